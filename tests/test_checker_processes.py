"""`check` spreads player counts over processes with the search and the solver together
(verify/checker.py): the results crossing back as plain data must be the results one
process gives, traces included."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.game import compiled_game
from verify.checker import check
from verify.explicit.check import moves_of, replay
from verify.results import Limits, PropertyResult, Refuted, Witnessed
from verify.rules import Rules

STANDARD_RULES = Rules.named("standard")

pytest.importorskip("z3", reason="the both backend needs z3-solver")

BROKEN = Path(__file__).parent / "mutants" / "one_government.toml"
"""A rule set whose deadlock the solver refutes with a dozen-move game."""


def _summary(results: list[PropertyResult]) -> list[tuple[str, int, str, int | None]]:
    return [(r.property, r.players, r.verdict.verdict, _length(r)) for r in results]


def _length(result: PropertyResult) -> int | None:
    """How many moves the game carried back with the verdict has (None without one)."""
    trace = result.verdict.trace if isinstance(result.verdict, (Refuted, Witnessed)) else None
    return None if trace is None else len(trace.steps)


@pytest.mark.slow
def test_both_backends_in_two_processes_equal_one() -> None:
    """The search, stopped early, leaves both properties to the solver at both counts:
    two processes give the verdicts, backends and game lengths one process gives, and each
    game carried back is one of the rules' (the solver may pick another game as short)."""
    rules = BROKEN
    names = ("deadlock_free", "tracker_in_range")
    limits = Limits(max_states=20)
    apart = check(Rules.named(str(rules)), (5, 6), names, limits, backend="both", workers=2)
    together = check(Rules.named(str(rules)), (5, 6), names, limits, backend="both", workers=1)
    assert _summary(apart) == _summary(together)
    assert [r.facts.backend for r in apart] == [r.facts.backend for r in together]
    assert [r.verdict.verdict for r in apart] == ["refuted", "refuted", "proved", "proved"]
    for result in apart:
        trace = getattr(result.verdict, "trace", None)
        if trace is not None:
            game = compiled_game(result.players, str(rules))
            assert replay(game, moves_of(trace)).end == trace.end
            assert not game.legal_moves(trace.end) and not game.is_over(trace.end)


def test_neighbouring_counts_share_a_process_when_the_solver_runs() -> None:
    """With the solver, each worker goes up from a small count, then two neighbouring
    counts, so that witness searches are guided by the ones before; the search alone
    keeps one count per task, largest first."""
    from verify.checker import batches
    counts = (5, 6, 7, 8, 9, 10)
    assert batches(counts, "both", 2) == [(5, 7, 8), (6, 9, 10)]
    assert batches(counts, "smt", 3) == [(5, 8, 9), (6, 10), (7,)]
    assert batches(counts, "explicit", 2) == [(10,), (9,), (8,), (7,), (6,), (5,)]
    assert batches((7, 8), "smt", 2) == [(8,), (7,)]


def test_a_count_above_a_search_cut_short_is_left_to_the_solver() -> None:
    """`both`: once a count's search hits its limit, the larger counts after it in the
    same process are not searched (their graphs are larger); the solver decides them."""
    lines: list[str] = []
    results = check(STANDARD_RULES, (5, 6), ("deck_conservation_liberal",), Limits(max_states=2_000, time_limit=60),
                    backend="both", workers=1, progress=lines.append)
    assert [r.verdict.verdict for r in results] == ["proved", "proved"]
    assert all(r.verdict.evidence.method == "k-induction" for r in results)
    assert any(line.startswith("6 players: not searched") for line in lines)
    assert not any(line.startswith("5 players: not searched") for line in lines)


def test_the_searchs_witnesses_guide_the_solver_at_the_next_counts() -> None:
    """A witness the search found is kept as a guide (verify/smt/guides.py) for the
    solver's witness searches later in the same process."""
    from spec.loader import load_spec
    from verify.smt.guides import forget_guides, guides_for

    forget_guides()
    results = check(STANDARD_RULES, (5,), ("liberal_policy_win",), Limits(time_limit=600), backend="both", workers=1)
    trace = getattr(results[0].verdict, "trace")
    assert results[0].verdict.evidence.method == "explicit"
    assert guides_for(load_spec("standard"), "liberal_policy_win", len(trace.steps)) == [
        tuple(move.rule for move, _ in trace.steps)]
    forget_guides()


def test_a_later_count_has_the_solver_first_guided_by_the_first_counts_witness() -> None:
    """`both` in one process: the first count is searched (its witness becomes a guide),
    the next is decided by the solver first, along that witness, and not searched."""
    from verify.smt.guides import forget_guides

    forget_guides()
    lines: list[str] = []
    results = check(STANDARD_RULES, (5, 6), ("liberal_policy_win",), Limits(time_limit=600), backend="both",
                    workers=1, progress=lines.append)
    forget_guides()
    five, six = results
    assert five.verdict.evidence.method == "explicit" and six.verdict.evidence.method == "bmc"
    assert "earlier witness" in six.verdict.evidence.note and "no game is shorter" in six.verdict.evidence.note
    assert len(getattr(five.verdict, "trace").steps) == len(getattr(six.verdict, "trace").steps) == 49
    assert "6 players: the solver first" in lines
    assert not any(line.startswith("5 players: the solver first") for line in lines)


def test_what_the_solver_leaves_unknown_at_a_later_count_is_searched(monkeypatch: pytest.MonkeyPatch) -> None:
    """Solver first: a property it leaves unknown goes to the search, whose verdict is
    kept; one it decides is not searched again."""
    from dataclasses import replace

    from verify import checker
    from verify.results import Evidence, PropertyResult, Unknown

    real = checker._smt_backend()
    assert real is not None

    def unsure_of_the_tracker(rules: Rules, count: int, names: tuple[str, ...], limits: Limits,
                              **options: object) -> list[PropertyResult]:
        results = real(rules, count, names, limits, **options)
        if count != 6:
            return results
        # The solver is asked every property of a count in one call: only the tracker's is made unknown.
        return [replace(result, verdict=Unknown(Evidence("smt"), "made unknown by the test"))
                if result.property == "tracker_in_range" else result for result in results]

    monkeypatch.setattr(checker, "_smt_backend", lambda: unsure_of_the_tracker)
    results = check(STANDARD_RULES, (5, 6), ("tracker_in_range", "deck_conservation_liberal"), Limits(time_limit=300),
                    backend="both", workers=1)
    at_six = {r.property: r for r in results if r.players == 6}
    assert at_six["tracker_in_range"].verdict.verdict == "proved"
    assert at_six["tracker_in_range"].verdict.evidence.method == "explicit"
    assert at_six["deck_conservation_liberal"].verdict.evidence.method == "k-induction"
