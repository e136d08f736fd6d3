"""`check` spreads player counts over processes with the search and the solver together
(verify/checker.py): the results crossing back as plain data must be the results one
process gives, traces included."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.game import compiled_game
from verify.checker import check
from verify.explicit.check import moves_of, replay
from verify.results import Limits

pytest.importorskip("z3", reason="the both backend needs z3-solver")

BROKEN = Path(__file__).parent / "mutants" / "one_government.toml"
"""A rule set whose deadlock the solver refutes with a dozen-move game."""


def _summary(results: list) -> list[tuple[str, int, str, int | None]]:   # type: ignore[type-arg]
    return [(r.property, r.players, r.verdict.verdict,
             None if getattr(r.verdict, "trace", None) is None else len(r.verdict.trace.steps)) for r in results]


def test_both_backends_in_two_processes_equal_one() -> None:
    """The search, stopped early, leaves both properties to the solver at both counts:
    two processes give the verdicts, backends and game lengths one process gives, and each
    game carried back is one of the rules' (the solver may pick another game as short)."""
    rules = BROKEN
    names = ("deadlock_free", "tracker_in_range")
    limits = Limits(max_states=20)
    apart = check(str(rules), (5, 6), names, limits, backend="both", workers=2)
    together = check(str(rules), (5, 6), names, limits, backend="both", workers=1)
    assert _summary(apart) == _summary(together)
    assert [r.extra.get("backend") for r in apart] == [r.extra.get("backend") for r in together]
    assert [r.verdict.verdict for r in apart] == ["refuted", "refuted", "proved", "proved"]
    for result in apart:
        trace = getattr(result.verdict, "trace", None)
        if trace is not None:
            game = compiled_game(result.players, str(rules))
            assert replay(game, moves_of(trace)).end == trace.end
            assert not game.legal_moves(trace.end) and not game.is_over(trace.end)


def test_neighbouring_counts_share_a_process_when_the_solver_runs() -> None:
    """With the solver, two neighbouring counts go to one task so that the second's
    witness searches are guided by the first's; the search alone keeps one per task."""
    from verify.checker import batches
    counts = (5, 6, 7, 8, 9, 10)
    assert batches(counts, "both", 2) == [(10, 9), (8, 7), (6, 5)]
    assert batches(counts, "explicit", 2) == [(10,), (9,), (8,), (7,), (6,), (5,)]
    assert batches((7, 8), "smt", 2) == [(8,), (7,)]
