"""`shrules bench --questions`: what a rules question over time costs, per player count.

The temporal entries of the catalogue (spec/disputes.toml: a query that needs monitored
history, spec/temporal.py) are answered one count at a time, as `shrules ask ID -n N`
would, within the seconds given, and each gets its answer, whether that is the expected
one (at the count that decides the entry: at another count a "no" may be right), how it
was decided, what "Rests on" was taken from, and its wall and CPU seconds
(the question's own process and the prover process it forks, which the CPU figure
includes: on a shared machine the wall time alone would mislead).
"""

from __future__ import annotations

import resource
import time
from dataclasses import dataclass
from typing import Any

from spec.disputes import Dispute

from ..rules import Rules
from .answers import FormalAnswer, as_expected
from .ask import Budget, answer_dispute


@dataclass(frozen=True, slots=True)
class QuestionFigure:
    """One catalogue entry answered at one player count, and what it cost."""

    id: str
    players: int
    answer: str
    expected: str
    as_expected: bool | None
    method: str          # how the count was decided: explicit, k-induction, bmc, ... ("" if not)
    rules_from: str      # where "Rests on" came from (verify/lawyer/grounds.py)
    wall: float
    cpu: float

    def line(self, width: int = 0) -> str:
        """One line for the terminal, the entry's ID padded to `width`."""
        mark = "" if self.as_expected is None else ("as expected" if self.as_expected else "NOT AS EXPECTED")
        how = f"{self.method}, " if self.method else ""
        return (f"{self.id:<{width}} {self.players:>2} players: {self.answer:<7} ({how}rests on {self.rules_from or 'catalogue'})"
                f" {self.wall:7.1f} s wall {self.cpu:7.1f} s CPU  {mark}")

    def as_dict(self) -> dict[str, Any]:
        """The figure as JSON."""
        return {"id": self.id, "players": self.players, "answer": self.answer, "expected": self.expected,
                "as_expected": self.as_expected, "method": self.method, "rules_from": self.rules_from,
                "wall_seconds": round(self.wall, 2), "cpu_seconds": round(self.cpu, 2)}


def temporal(disputes: tuple[Dispute, ...]) -> tuple[Dispute, ...]:
    """The entries whose query needs history: checked under monitored rules."""
    return tuple(d for d in disputes if d.query is not None and d.query.rules)


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def time_question(dispute: Dispute, players: int, seconds: float | None, rules: Rules) -> QuestionFigure:
    """Answer `dispute` of `rules`' catalogue for `players` alone within `seconds` (None: no
    limit), and time it."""
    wall, cpu = time.perf_counter(), _cpu()
    answer = answer_dispute(dispute, Budget(seconds=seconds), (players,), rules=rules)
    wall, cpu = time.perf_counter() - wall, _cpu() - cpu
    method = ""
    grounds = ""
    if isinstance(answer, FormalAnswer):
        method = ", ".join(sorted({r.verdict.evidence.method for r in answer.results}))
        grounds = answer.grounds
    # the expected answer is the entry's over its counts: only the count that decides it is held to it
    deciding = dispute.decides if dispute.decides is not None else dispute.players[0]
    expected = as_expected(answer) if players == deciding else None
    return QuestionFigure(dispute.id, players, answer.verdict, dispute.answer, expected, method, grounds, wall, cpu)
