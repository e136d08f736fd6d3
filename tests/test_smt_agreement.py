"""The engine and the Z3 transition relation compute the same successors.

For random reachable states (random play, chance included), the successors the engine
computes (`legal_moves` + apply) equal the successors Z3 enumerates for `step(s, ·)`
with blocking clauses, and for random (state, move) pairs the two agree on legality and
on the state after a legal move. The comparison must notice a difference: an engine of
the standard rules against the relation of a copy with one requirement removed.
"""

from __future__ import annotations

from pathlib import Path
from random import Random

import pytest

from engine.game import Game, Move
from spec.loader import load_spec
from verify.smt.agree import (Enumerator, compare, compare_specs, engine_after, engine_successors, random_move,
                              reachable_states)
from verify.smt.system import System

SPEC = load_spec("standard")
PLAYERS = list(SPEC.player_counts)


@pytest.mark.parametrize("players", PLAYERS)
def test_successors_and_verdicts_agree_on_reachable_states(players: int) -> None:
    result = compare_specs(SPEC, SPEC, players, count=60, seed=players)
    assert result.states == 60 and result.moves == 120
    assert result.agree, "\n".join(d.describe(Game(SPEC, players)) for d in result.differences)


@pytest.mark.slow
@pytest.mark.parametrize("players", PLAYERS)
def test_successors_agree_on_ten_thousand_states(players: int) -> None:
    result = compare_specs(SPEC, SPEC, players, count=10_000, seed=1000 + players, moves_per_state=2)
    assert result.states == 10_000
    assert result.agree, "\n".join(d.describe(Game(SPEC, players)) for d in result.differences)


def test_every_chance_outcome_and_vote_is_enumerated() -> None:
    """The deal (every Hitler and Fascist choice), the first President and a vote: the
    solver finds exactly the engine's successors, each once."""
    system = System(SPEC, 6)
    game = system.game
    enumerator = Enumerator(system)
    start = game.initial_state()
    dealt = enumerator.successors(start)
    assert dealt == engine_successors(game, start)
    assert len(dealt) == 6 * 5            # Hitler anywhere, one ordinary Fascist among the others (R-S2)
    state = sorted(dealt)[0]
    assert enumerator.successors(state) == engine_successors(game, state)
    state = game.apply(state, Move("first_president", (2,)))
    state = game.apply(state, game.move("nominate", chancellor=4))
    after_vote = enumerator.successors(state)
    assert after_vote == engine_successors(game, state) and len(after_vote) == 2   # elected or rejected


def mutant(tmp_path: Path) -> Path:
    path = tmp_path / "no_term_limit_mutant.toml"
    path.write_text('extends = "standard"\nname = "no_term_limit_mutant"\n\n'
                    '[[requirement]]\nrule = "nominate"\nid = "R-E3"\nwhen = "True"\n', encoding="utf-8")
    return path


def test_a_mutated_requirement_is_caught(tmp_path: Path) -> None:
    """The engine plays the standard rules, the solver a copy whose R-E3 requirement is
    always true: the comparison reports extra successors, at a nomination."""
    mutated = load_spec(str(mutant(tmp_path)))
    result = compare_specs(SPEC, mutated, 7, count=150, seed=3)
    assert not result.agree
    difference = result.differences[0]
    game = Game(SPEC, 7)
    assert game.phase(difference.state) == "nominate"
    extra = difference.only_solver[0]
    assert game.describe(extra)["nominee"] == game.describe(difference.state)["last_chancellor"]
    assert "nominee" in difference.describe(game)


def test_a_mutated_requirement_is_caught_from_the_engine_side(tmp_path: Path) -> None:
    """The other way round: the engine of the mutant, the solver of the standard rules."""
    mutated = load_spec(str(mutant(tmp_path)))
    engine_game = Game(mutated, 7)
    states = reachable_states(engine_game, 150, seed=4)
    result = compare(engine_game, System(SPEC, 7), states, moves_per_state=2, seed=4)
    assert not result.agree
    assert any(d.only_engine or d.engine_legal for d in result.differences)


def test_random_moves_include_illegal_ones() -> None:
    """The legality comparison is not vacuous: it judges legal and illegal moves."""
    system = System(SPEC, 8)
    game = system.game
    states = reachable_states(game, 80, seed=8)
    enumerator = Enumerator(system)
    rng = Random(8)

    verdicts = {True: 0, False: 0}
    for state in states:
        moves = [random_move(game, state, rng) for _ in range(3)]
        for move, after in zip(moves, enumerator.legal(state, moves)):
            assert engine_after(game, state, move) == after
            verdicts[after is not None] += 1
    assert verdicts[True] > 20 and verdicts[False] > 20
