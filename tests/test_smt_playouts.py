"""Witnesses found along random games once the solver's search stalls (verify/smt/playouts.py).

When the search for a shortest witness runs out of time, the property is still decided if
a random game gets there: the solver finds a path along that game's rules, replayed
through the engine, and the verdict says how far it may be from a shortest one. These
tests stall the search on purpose (almost all of the time limit held back for the
random games) and check the path, its bound, and that nothing is claimed when no game
gets there.
"""

from __future__ import annotations

import pickle
from typing import Any

import pytest

import verify.smt.backend as smt_backend
from engine.game import Game, Move
from spec.lang.limits import EvaluationLimit
from spec.loader import load_spec
from verify.cli.check import cell
from verify.report.html import _trace_block
from verify.report.records import result_record
from verify.diff.operators import Mutant, mutants
from verify.results import Limits, PropertyResult, Refuted, Unknown, Witnessed
from verify.smt import check_property
from verify.smt.bmc import shortest as real_shortest
from verify.smt.backend import catalogue_of, clear_cache
from verify.smt.guides import forget_guides
from verify.smt.playouts import played_guides

pytest.importorskip("z3", reason="the solver backend needs z3-solver")

SPEC = load_spec("standard")
CATALOGUE = {prop.name: prop for prop in catalogue_of(SPEC)}


def test_played_guides_end_where_the_property_first_holds() -> None:
    """Each guide is the rules of a random game up to the first state where a Fascist
    policy win holds: it ends in the enactment that wins, shortest first, none shorter
    than asked for, and the same seed gives the same guides."""
    game = Game(SPEC, 5)
    prop = CATALOGUE["fascist_policy_win"]
    guides = played_guides(game, prop, seconds=5.0, games=3_000, at_least=40)
    assert guides, "3,000 random games at 5 players include a Fascist policy win"
    assert [len(g) for g in guides] == sorted(len(g) for g in guides)
    assert all(len(g) >= 40 and g[0] == "deal_roles" for g in guides)
    assert guides == played_guides(game, prop, seconds=5.0, games=3_000, at_least=40)
    assert played_guides(game, prop, seconds=5.0, games=3_000, at_least=500) == []


@pytest.fixture
def stalled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hold back nearly all of a property's time from the plain search, so that it stops
    by time at its first depth and the random games decide."""
    monkeypatch.setattr(smt_backend, "PLAYOUT_SHARE", 0.97)
    monkeypatch.setattr(smt_backend, "PLAYOUT_RESERVE", 1_000.0)


@pytest.mark.slow
def test_a_stalled_search_is_decided_along_a_random_game(stalled: None) -> None:
    """The search stops, a random game leads the solver to a Fascist policy win: the
    verdict is a witness, its path a real game ending in that win, reported with the
    proved bound when it is longer than the depth the search reached."""
    forget_guides()
    prop = CATALOGUE["fascist_policy_win"]
    verdict = check_property(SPEC, prop, 5, Limits(time_limit=20))
    assert isinstance(verdict, Witnessed) and verdict.trace is not None
    assert "random game" in verdict.evidence.note
    game = verdict.trace.game
    assert (game.winner(verdict.trace.end), game.how(verdict.trace.end)) == ("fascist", "policies")
    assert verdict.evidence.depth == len(verdict.trace.steps)
    if verdict.lower_bound is not None:
        assert verdict.lower_bound < verdict.evidence.depth
        assert f"no game shorter than {verdict.lower_bound} moves" in verdict.evidence.note
    else:   # a random game as long as the proved bound, before or after the plain search
        assert "no game is shorter" in verdict.evidence.note
    # across processes (pickled: the game as its moves) the bound is kept, and the matrix shows it
    result = PropertyResult(prop.name, 5, prop.kind, prop.rule_ids, prop.expect, verdict)
    again = pickle.loads(pickle.dumps(result))
    assert isinstance(again.verdict, Witnessed) and again.verdict.lower_bound == verdict.lower_bound
    moves = verdict.evidence.depth
    assert cell(again) == (f"witness {moves}m" if verdict.lower_bound is None
                           else f"witness {verdict.lower_bound}-{moves}m")
    assert result_record(again)["shortest_at_least"] == verdict.lower_bound
    assert ("not proved the shortest" in _trace_block(again)) == (verdict.lower_bound is not None)


def test_no_random_game_leaves_the_verdict_unknown(stalled: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where no random game gets there, nothing is claimed: unknown, saying so."""
    forget_guides()
    monkeypatch.setattr(smt_backend, "played_guides", lambda *args, **kwargs: [])
    verdict = check_property(SPEC, CATALOGUE["fascist_policy_win"], 5, Limits(time_limit=10))
    assert isinstance(verdict, Unknown)
    assert "no random game played in time got there" in verdict.reason


def test_exactly_as_long_as_asked() -> None:
    """With `exactly`, only games reaching the property in that many moves give guides."""
    game = Game(SPEC, 7)
    guides = played_guides(game, CATALOGUE["fascist_hitler_win"], seconds=30.0, games=4_000, at_least=39,
                           exactly=True)
    assert guides and all(len(guide) == 39 for guide in guides)


def test_a_random_game_as_long_as_the_bound_saves_the_deep_query(monkeypatch: pytest.MonkeyPatch) -> None:
    """No earlier witness is kept, a random game reaches a Hitler win in exactly the proved
    lower bound: the solver's path along it is the witness, a shortest one, of the length
    test_smt_bmc.py's table records for the unguided search."""
    clear_cache()
    monkeypatch.setattr(smt_backend, "PLAYOUT_FIRST_SECONDS", 60.0)
    verdict = check_property(SPEC, CATALOGUE["fascist_hitler_win"], 7)
    assert isinstance(verdict, Witnessed) and verdict.trace is not None and verdict.lower_bound is None
    assert verdict.evidence.note.startswith("found along the rules of a random game; 36 moves is the proved")
    assert verdict.evidence.depth == len(verdict.trace.steps) == 36


@pytest.mark.slow
def test_a_longer_path_keeps_the_bound(stalled: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Random games only longer than the depth the search reached: the witness is a real
    game, reported with that depth as the bound on the shortest (64 moves, the proved
    lower bound of the Fascist policy win at 5 players), never as a shortest itself."""
    forget_guides()
    real = played_guides
    monkeypatch.setattr(smt_backend, "played_guides",
                        lambda game, prop, **kw: real(game, prop, **{**kw, "at_least": kw["at_least"] + 2,
                                                                     "exactly": False}))
    prop = CATALOGUE["fascist_policy_win"]
    verdict = check_property(SPEC, prop, 5, Limits(time_limit=20))
    assert isinstance(verdict, Witnessed) and verdict.trace is not None and verdict.evidence.depth is not None
    assert verdict.lower_bound == 64 < verdict.evidence.depth == len(verdict.trace.steps)
    result = PropertyResult(prop.name, 5, prop.kind, prop.rule_ids, prop.expect, verdict)
    assert cell(result) == f"witness 64-{verdict.evidence.depth}m"
    assert result_record(result)["shortest_at_least"] == 64
    assert "not proved the shortest: none takes fewer than 64 moves" in _trace_block(result)


@pytest.mark.slow
def test_first_game_is_led_by_random_games_before_the_deep_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """`Limits.first_game`: random games lead the solver to a Fascist policy win before
    any depth-by-depth search (here forbidden); the game is real, ends in that win, and
    carries the proved lower bound unless it is as long as it."""
    clear_cache()
    forget_guides()

    def no_plain_search(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the depth-by-depth search ran before the random games")
    monkeypatch.setattr(smt_backend, "shortest", lambda unrolling, target, high, low=0, deadline=None:
                        no_plain_search() if high > 0 else real_shortest(unrolling, target, high, low, deadline))
    verdict = check_property(SPEC, CATALOGUE["fascist_policy_win"], 5, Limits(time_limit=120, first_game=True))
    assert isinstance(verdict, Witnessed) and verdict.trace is not None
    game = verdict.trace.game
    assert (game.winner(verdict.trace.end), game.how(verdict.trace.end)) == ("fascist", "policies")
    assert verdict.evidence.depth == len(verdict.trace.steps)
    assert "random game" in verdict.evidence.note
    if verdict.lower_bound is not None:
        assert verdict.lower_bound == 64 < verdict.evidence.depth
        assert "the first game looked for" in verdict.evidence.note
    else:
        assert verdict.evidence.depth == 64


def mutant(operator: str, rule: str, description: str, nth: int = 0) -> Mutant:
    """The `nth` mutant of the standard rules by `operator` on `rule` described so."""
    return [m for m in mutants(SPEC, (operator,), (rule,)) if m.description == description][nth]


CHAOS_NEEDS_TWO = ("constant", "chaos", "requirement: literal 0 -> 1", 1)
"""R-E9 mutated: chaos enacts a Fascist tile from the pile only when it holds two or more
(`draw_fascist > 0` made `> 1`, the second such literal of the chaos rule)."""


def test_random_games_end_where_a_permission_is_first_broken() -> None:
    """An `allows` fires where its state holds and no legal move is one it allows: the
    chaos mutant's random games get there (chaos, nothing known on top, one Fascist tile
    in the pile), and the rules' own never do in as many games."""
    prop = CATALOGUE["chaos_may_enact_a_fascist_from_the_pile"]
    broken = mutant(*CHAOS_NEEDS_TWO)
    guides = played_guides(Game(broken.spec, 5), prop, seconds=60.0, games=3_000)
    assert guides and all(guide[-1] == "reject" and guide[-3:] == ("pass_candidacy", "nominate", "reject")
                          for guide in guides), guides      # the third failed election brings chaos
    assert played_guides(Game(SPEC, 5), prop, seconds=60.0, games=3_000) == []


def test_an_only_breach_ends_with_the_move_that_breaks_it() -> None:
    """An `only` fires at a legal move it does not allow: with R-X3's `power ==
    'investigate'` dropped, an investigation is legal where a peek was granted, and the
    guide ends with that investigation, not with the random move made instead."""
    prop = CATALOGUE["the_peek_granted_is_used"]
    broken = mutant("drop_requirement", "investigate", "requirement \"power == 'investigate'\" dropped")
    guides = played_guides(Game(broken.spec, 5), prop, seconds=60.0, games=500)
    assert guides and all(guide[-2:] == ("grant_power", "investigate") for guide in guides), guides
    assert played_guides(Game(SPEC, 5), prop, seconds=60.0, games=500) == []


def test_a_random_game_that_sticks_is_a_deadlock_guide() -> None:
    """`deadlock_free` fires where a game not over has no legal move: a draw that needs a
    new Fascist tile (R-L1 mutated) sticks after a policy peek, the guide ending there."""
    prop = CATALOGUE["deadlock_free"]
    broken = mutant("constant", "draw_hand", "requirement: literal 0 -> 1")
    guides = played_guides(Game(broken.spec, 5), prop, seconds=60.0, games=500)
    assert guides and all("policy_peek" in guide and guide[-1] == "legislate" for guide in guides), guides
    assert played_guides(Game(SPEC, 5), prop, seconds=60.0, games=500) == []


def test_a_game_stopped_by_an_evaluation_limit_gives_no_guide(monkeypatch: pytest.MonkeyPatch) -> None:
    """A changed rule may ask for a value past a bound (spec/lang/limits.py) deep in a
    random game: that game ends there, with no guide and no error, and the games after it
    are played as before."""
    game = Game(SPEC, 5)
    prop = CATALOGUE["fascist_policy_win"]
    honest = game.recorded_steps
    calls = {"n": 0}

    def limited(record: Any) -> tuple[Any, ...]:
        steps = honest(record)
        draw = game.spec.enums["phase"].index("draw")
        drawing = steps[draw]
        assert drawing is not None

        def failing(state: Any, rng: Any) -> Any:
            calls["n"] += 1
            if calls["n"] == 1:
                raise EvaluationLimit("tiles(4): a tile sequence holds 0..3 tiles")
            return drawing(state, rng)
        return tuple(failing if number == draw else step for number, step in enumerate(steps))
    monkeypatch.setattr(game, "recorded_steps", limited)
    guides = played_guides(game, prop, seconds=30.0, games=300, at_least=40)
    assert calls["n"] > 1 and guides and all(len(guide) >= 40 and guide[0] == "deal_roles" for guide in guides)


@pytest.mark.slow
def test_a_permission_broken_only_deep_in_a_game_is_refuted_by_the_solver() -> None:
    """The chaos mutant breaks its permission 50 moves in or more, past what the plain
    search reaches in the time given, and with no written invariant: a random game leads
    the solver there, and the engine, replaying the path, agrees at its end: chaos, one
    Fascist tile in the pile, nothing known on top, and a Fascist chaos is legal under the
    rules there but not under the mutant."""
    forget_guides()
    prop = CATALOGUE["chaos_may_enact_a_fascist_from_the_pile"]
    broken = mutant(*CHAOS_NEEDS_TWO)
    verdict = check_property(broken.spec, prop, 5, Limits(time_limit=120), infer=True, hints=False)
    assert isinstance(verdict, Refuted) and verdict.trace is not None, verdict
    assert "random game" in verdict.evidence.note
    end = verdict.trace.end
    game, rules = Game(broken.spec, 5), Game(SPEC, 5)
    fields = game.describe(end)
    assert (fields["phase"], fields["draw_fascist"], fields["known_top"]) == ("chaos", 1, [])
    fascist = Move("chaos", (SPEC.enums["tile"].index("fascist"),))
    assert fascist in rules.legal_moves(end) and fascist not in game.legal_moves(end)
    assert verdict.evidence.depth == len(verdict.trace.steps) >= 50
    assert verdict.lower_bound is None or verdict.lower_bound < verdict.evidence.depth   # not claimed a shortest


@pytest.mark.parametrize("players", [5, 8, 10])
def test_recorded_steps_tell_the_moves_they_make(players: int) -> None:
    """The fast random step, compiled to record its moves, tells each move's rule and
    parameters: replayed through the engine's checked `apply`, every one is legal and
    leads to the very state the step made, to the end of the game."""
    from random import Random

    from engine.game import Move

    game = Game(SPEC, players)
    made: list[tuple[int, tuple[int, ...]]] = []
    steps = game.recorded_steps(lambda index, args: made.append((index, args)))
    rng = Random(players)
    for _ in range(20):
        state = replayed = game.initial_state()
        made.clear()
        while (step := steps[state[game.phase_index]]) is not None:
            after = step(state, rng)
            assert after is not None
            state = after
            index, args = made[-1]
            replayed = game.apply(replayed, Move(game.rules[index].rule.name, args))
            assert replayed == state
        assert game.is_over(state) and len(made) > 10
