"""Live fields (spec/liveness.py): a state with its dead fields reset plays exactly the
games the state plays — the claim the product search's keys and the solver's equivalence
of a changed rule rest on — checked move by move on random games of the standard rules
and of every shipped variant; and the analysis follows what rules read."""

from __future__ import annotations

from dataclasses import replace
from random import Random

import pytest

from engine.game import Game
from spec.lang import nodes as n
from spec.liveness import dead_fields, live_fields, successor_phases
from spec.lang.types import BOOL
from spec.loader import known_specs, load_spec
from verify.diff.reductions import dead_masker

STATES_PER_GAME = 60


def _same_games(game: Game, seed: int, games: int) -> int:
    """Walk random games; at each state compare it with its masked twin: the same actor,
    legal moves, odds, reveals and outcome, and successors with equal masks. Returns the
    number of states compared."""
    mask = dead_masker(game)
    assert mask is not None
    rng = Random(seed)
    compared = 0
    for _ in range(games):
        state = game.initial_state()
        for _ in range(STATES_PER_GAME):
            twin = game.make_state(mask(state))
            assert game.actor(twin) == game.actor(state)
            assert (game.is_over(twin), game.winner(twin), game.how(twin)) == (
                game.is_over(state), game.winner(state), game.how(state))
            moves = game.legal_moves(state)
            assert game.legal_moves(twin) == moves, game.phase(state)
            assert game.chance_outcomes(twin) == game.chance_outcomes(state)
            for move in moves[:40]:
                assert game.reveals(twin, move) == game.reveals(state, move)
                assert mask(game.apply(twin, move)) == mask(game.apply(state, move)), (game.phase(state), move)
            compared += 1
            following = game.random_step(state, rng)
            if following is None:
                break
            state = following
    return compared


@pytest.mark.parametrize("players", [5, 7, 9, 10])
def test_a_state_and_its_dead_fields_reset_play_the_same_games(players: int) -> None:
    assert _same_games(Game(load_spec("standard"), players), seed=players, games=12) > 300


@pytest.mark.parametrize("variant", [name for name in known_specs() if name != "standard"])
def test_the_same_holds_for_every_shipped_variant(variant: str) -> None:
    spec = load_spec(variant)
    players = spec.player_counts[len(spec.player_counts) // 2]
    assert _same_games(Game(spec, players), seed=7, games=4) > 50


def test_stale_bookkeeping_is_dead_and_what_a_phase_reads_is_live() -> None:
    """The President's hand is read only while he discards (R-L2), the power only while it
    is used (R-X1); what the nomination checks (R-E2-E4) is live when it is made."""
    dead = dead_fields(load_spec("standard"))
    assert "president_hand" in dead["nominate"] and "president_hand" not in dead["president_discard"]
    assert "power" in dead["next_round"] and "power" not in dead["power"]
    assert not {"alive", "last_chancellor", "last_president", "president"} & dead["nominate"]
    assert dead["over"] >= {"president_hand", "alive", "known_top"}
    assert not {"phase", "winner", "how"} & dead["over"]


def test_a_changed_rule_that_reads_a_field_makes_it_live() -> None:
    """Analysed with the changed rule beside the rules (as the solver's equivalence does),
    a field the change reads is live where it reads it and wherever it flows from."""
    spec = load_spec("standard")
    nominate = spec.rule("nominate")
    power = n.Name(spec.fields[[f.name for f in spec.fields].index("power")].type, "power", "field")
    reading = replace(nominate, requires=nominate.requires + (
        replace(nominate.requires[0], when=n.Compare(BOOL, "==", power, power)),))
    assert "power" not in live_fields(spec)["nominate"]
    live = live_fields(spec, [reading])
    assert "power" in live["nominate"] and "power" in live["next_round"]


def test_a_phase_assignment_that_is_not_a_literal_may_go_anywhere() -> None:
    spec = load_spec("standard")
    reject = spec.rule("reject")
    assert successor_phases(reject, spec) == {"chaos", "next_round"}
    anywhere = replace(reject, effect=tuple((name, n.Name(node.type, "phase", "field") if name == "phase" else node)
                                            for name, node in reject.effect))
    assert successor_phases(anywhere, spec) == frozenset(spec.enums["phase"])
