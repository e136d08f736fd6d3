"""`check` spreads player counts over processes with the search and the solver together
(verify/checker.py): the results crossing back as plain data must be the results one
process gives, traces included."""

from __future__ import annotations

import pytest

from verify.checker import check, plain
from verify.explicit.check import materialise, select
from verify.results import Limits

pytest.importorskip("z3", reason="the both backend needs z3-solver")

NAMES = ("the_vote_may_fail_narrowly", "tracker_in_range")


def _summary(results: list) -> list[tuple[str, int, str, int | None]]:   # type: ignore[type-arg]
    return [(r.property, r.players, r.verdict.verdict,
             None if getattr(r.verdict, "trace", None) is None else len(r.verdict.trace.steps)) for r in results]


def test_both_backends_in_two_processes_equal_one() -> None:
    """The search stopped early leaves the invariant to the solver at both counts; two
    processes give the verdicts, evidence and backends one process gives."""
    limits = Limits(max_states=20)
    apart = check("standard", (5, 6), NAMES, limits, backend="both", workers=2)
    together = check("standard", (5, 6), NAMES, limits, backend="both", workers=1)
    assert _summary(apart) == _summary(together)
    assert [r.extra.get("backend") for r in apart] == [r.extra.get("backend") for r in together]
    assert all(r.verdict.verdict != "unknown" for r in apart)


def test_plain_data_round_trips_traces() -> None:
    """A witness's trace and the fewest-elections trace survive the trip through plain data
    move for move."""
    props = {p.name: p for p in select("standard", ("liberal_policy_win",))}
    [result] = check("standard", (5,), tuple(props), workers=1)
    assert result.verdict.verdict == "witness"
    again = materialise(plain(result), "standard", props)
    assert _summary([again]) == _summary([result])
    for before, after in ((result.verdict.trace, again.verdict.trace),        # type: ignore[union-attr]
                          (result.extra["fewest_elections_trace"], again.extra["fewest_elections_trace"])):
        assert [move for move, _ in before.steps] == [move for move, _ in after.steps]
        assert before.end == after.end
