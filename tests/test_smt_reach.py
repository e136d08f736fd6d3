"""A counterexample to induction that a game reaches is real: where the solver's one-step
proof of deadlock freedom or of an `allows` property fails, it searches for the shortest
game to a state that breaks the property and reports the refutation with that game,
replayed through the engine, instead of "unknown" (verify/smt/reach.py `reach`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.game import compiled_game
from verify.checker import check
from verify.results import Refuted
from verify.rules import Rules

STANDARD_RULES = Rules.named("standard")

pytest.importorskip("z3", reason="the solver backend needs z3-solver")

BROKEN = Path(__file__).parent / "mutants" / "one_government.toml"
"""A rule set whose deadlock the solver refutes with a dozen-move game."""


def test_a_reachable_deadlock_and_a_missing_move_are_refuted_with_their_game() -> None:
    rules = BROKEN
    results = check(Rules.named(str(rules)), (5,), ("deadlock_free", "the_next_player_may_be_nominated"), backend="smt",
                    workers=1)
    game = compiled_game(5, str(rules))
    for result in results:
        assert result.verdict.verdict == "refuted", (result.property, result.verdict)
        assert isinstance(result.verdict, Refuted)
        trace = result.verdict.trace
        assert trace is not None and trace.steps
        end = trace.end
        assert game.phase(end) == "nominate"
    deadlock = next(r for r in results if r.property == "deadlock_free")
    assert isinstance(deadlock.verdict, Refuted) and deadlock.verdict.trace is not None
    assert not game.legal_moves(deadlock.verdict.trace.end)


def test_the_standard_rules_stay_proved() -> None:
    """The search runs only once induction failed: the rules' own proofs are untouched."""
    results = check(STANDARD_RULES, (5,), ("deadlock_free", "the_next_player_may_be_nominated"), backend="smt",
                    workers=1)
    assert [r.verdict.verdict for r in results] == ["proved", "proved"]
