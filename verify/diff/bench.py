"""The time of the mutation analysis, measured on a sample (`shrules bench --mutate`).

The whole analysis takes hours, so the benchmark times the random-games stage (the one
the CI gate runs, verify/diff/gate.py) on an even sample of the mutants of the standard
rules (every k-th, so every operator is in it) for as many CPU seconds as asked, and
projects the time of all of them on one core. The rules' own verdicts come from the
repository's baseline; a count it does not decide is reported as not measured rather
than measured against verdicts that would kill nothing.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any

from spec.loader import load_spec

from ..explicit.explore import Limits
from ..results import MutantStatus, VerdictKind
from .mutate import decide
from .operators import mutants

SAMPLE = 60
"""Mutants in the sample at most (spread evenly over all of them)."""


@dataclass(frozen=True, slots=True)
class MutateFigure:
    """The random stage timed on a sample of mutants at one player count."""

    players: int
    mutants: int                # all the mutants of the rules
    sampled: int
    killed: int
    cpu_seconds: float
    projected_cpu_seconds: float    # all the mutants, one core

    def as_dict(self) -> dict[str, Any]:
        """The figure as plain data (`--json`)."""
        return {key: round(value, 2) if isinstance(value, float) else value for key, value in asdict(self).items()}

    def line(self) -> str:
        """The figure in one line."""
        each = self.cpu_seconds / max(self.sampled, 1)
        return (f"mutation analysis, random stage, {self.players} players: {self.sampled} of {self.mutants} mutants "
                f"in {self.cpu_seconds:.1f} s CPU ({each:.2f} s each, {self.killed} killed); all {self.mutants}: "
                f"~{self.projected_cpu_seconds / 60:.0f} min CPU on one core")


def bench_mutate(players: int, seconds: float, verdicts: dict[str, VerdictKind]) -> MutateFigure:
    """The random stage on an even sample for up to `seconds` CPU seconds, against the
    rules' own `verdicts` (the baseline's)."""
    base = load_spec("standard")
    chosen = mutants(base)
    sample = chosen[::max(1, len(chosen) // SAMPLE)]
    started = time.process_time()
    done = killed = 0
    for mutant in sample:
        if time.process_time() - started > seconds:
            break
        outcome = decide(base, mutant, players, verdicts, Limits(), complete=False)
        done += 1
        killed += outcome.status is MutantStatus.KILLED
    cpu = time.process_time() - started
    return MutateFigure(players, len(chosen), done, killed, cpu, cpu / max(done, 1) * len(chosen))
