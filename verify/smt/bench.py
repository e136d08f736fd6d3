"""How fast the Z3 backend is: proofs per property and player count, and the agreement
check's states per second.

`bench_proofs` decides the invariants of the catalogue (`always`, `never`, and the
`terminates` ranking) for each player count from a cold start (nothing cached: the
system is built and the support proved inside the measured time), and records the time
of every property's own proof. `bench_agreement` runs the engine-vs-solver comparison of
verify/smt/agree.py and reports states per second.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from .agree import compare_specs
from ..results import Limits
from ..rules import Rules
from ..workers import WorkerPool
from .backend import backend_for, catalogue_of, clear_cache
from .check import check_property


DECIDED = ("proved", "witness")
"""Verdicts that count as decided (as expected for the standard rules' catalogue)."""


@dataclass(frozen=True, slots=True)
class ProofFigure:
    """One property for one player count: its verdict and the seconds its proof took."""

    property: str
    players: int
    verdict: str
    seconds: float
    depth: int | None


@dataclass(slots=True)
class ProofBench:
    """The figures of a catalogue run: per property and count, and per count in total
    (system built, support proved, every property decided)."""

    figures: list[ProofFigure] = field(default_factory=list)
    per_count: dict[int, float] = field(default_factory=dict)
    support: dict[int, float] = field(default_factory=dict)
    built: dict[int, float] = field(default_factory=dict)      # the system, and inference without hints
    wall: float = 0.0                                          # the run's elapsed seconds
    workers: int = 1

    @property
    def total(self) -> float:
        """Seconds for every player count together."""
        return sum(self.per_count.values())

    def slowest(self) -> ProofFigure | None:
        """The property proof that took longest."""
        return max(self.figures, key=lambda figure: figure.seconds, default=None)

    def lines(self) -> list[str]:
        """The figures as a table in words."""
        counts = sorted(self.per_count)
        names = list(dict.fromkeys(figure.property for figure in self.figures))
        by_key = {(f.property, f.players): f for f in self.figures}
        width = max((len(name) for name in names), default=8)
        out = [f"{'property':{width}}  " + "  ".join(f"{n:>2} players" for n in counts)]
        for name in names:
            cells = []
            for count in counts:
                figure = by_key.get((name, count))
                cells.append(f"{figure.seconds:7.2f} s " if figure and figure.verdict in DECIDED
                             else f"{(figure.verdict if figure else '-'):>10}")
            out.append(f"{name:{width}}  " + "  ".join(cells))
        out.append(f"{'built (and inferred)':{width}}  " + "  ".join(f"{self.built[n]:7.2f} s " for n in counts))
        out.append(f"{'support (Houdini)':{width}}  " + "  ".join(f"{self.support[n]:7.2f} s " for n in counts))
        out.append(f"{'whole catalogue':{width}}  " + "  ".join(f"{self.per_count[n]:7.2f} s " for n in counts))
        slowest = self.slowest()
        out.append(f"total {self.total:.1f} s for {len(counts)} player counts"
                   + (f" ({self.wall:.1f} s wall in {self.workers} processes)" if self.workers > 1 else "")
                   + (f"; slowest proof: {slowest.property} for {slowest.players} players, {slowest.seconds:.2f} s"
                      if slowest else ""))
        return out


INVARIANT_KINDS = ("always", "never", "terminates", "deadlock_free")


def bench_proofs(rules: Rules, counts: Iterable[int], kinds: tuple[str, ...] = INVARIANT_KINDS,
                 seconds: float = 120, hints: bool = True, workers: int = 1) -> ProofBench:
    """Decide the catalogue's properties of these kinds for each player count from a cold
    start, each within `seconds`. Without `hints` (spec/invariants.toml unused) the
    support is inferred, from an empty invariant cache (a temporary one for the run, so
    the figures are those of a first run and the user's cache is left alone): the count's
    time then includes the sampling, the mining, the fixpoint and the found ranking.
    With `workers` > 1 the counts are decided in that many processes, the largest first
    (as `shrules check` spreads them); `wall` is then the run's elapsed time."""
    started = time.perf_counter()
    ordered = sorted(counts, reverse=workers > 1)
    bench = ProofBench()
    with tempfile.TemporaryDirectory() as empty, _cache_at(None if hints else empty):
        if workers > 1:
            with WorkerPool(workers) as pool:
                parts = list(pool.map(_bench_count, [rules] * len(ordered), ordered,
                                      [kinds] * len(ordered), [seconds] * len(ordered), [hints] * len(ordered)))
        else:
            parts = [_bench_count(rules, count, kinds, seconds, hints) for count in ordered]
    for part in sorted(parts, key=lambda p: min(p.per_count)):
        bench.figures += part.figures
        bench.per_count.update(part.per_count)
        bench.support.update(part.support)
        bench.built.update(part.built)
    bench.wall = time.perf_counter() - started
    bench.workers = workers
    return bench


def _bench_count(rules: Rules, count: int, kinds: tuple[str, ...], seconds: float, hints: bool) -> ProofBench:
    """`bench_proofs` for one player count, in this process (the cache setting inherited;
    the rules as a value, loaded again in a worker started by `spawn`)."""
    spec = rules.spec
    bench = ProofBench()
    clear_cache()
    start = time.perf_counter()
    backend = backend_for(spec, count, hints=hints)
    bench.built[count] = time.perf_counter() - start
    bench.support[count] = backend.induction.support().seconds
    for prop in catalogue_of(spec):
        if prop.kind not in kinds or count not in prop.players:
            continue
        began = time.perf_counter()
        verdict = check_property(spec, prop, count, Limits(time_limit=seconds), hints=hints)
        bench.figures.append(ProofFigure(prop.name, count, verdict.verdict, time.perf_counter() - began,
                                         verdict.evidence.depth))
    bench.per_count[count] = time.perf_counter() - start
    return bench


@contextmanager
def _cache_at(folder: str | None) -> Iterator[None]:
    """Inferred invariants kept in `folder` for the duration (None: where they are)."""
    if folder is None:
        yield
        return
    before = os.environ.get("SHRULES_CACHE")
    os.environ["SHRULES_CACHE"] = folder
    try:
        yield
    finally:
        if before is None:
            del os.environ["SHRULES_CACHE"]
        else:
            os.environ["SHRULES_CACHE"] = before


@dataclass(frozen=True, slots=True)
class AgreementFigure:
    """The engine-vs-solver comparison for one player count."""

    players: int
    states: int
    successors: int
    moves: int
    seconds: float
    differences: int

    @property
    def states_per_second(self) -> float:
        """Reachable states compared per second."""
        return self.states / self.seconds if self.seconds else 0.0


def bench_agreement(rules: Rules, counts: Iterable[int], states: int = 1000,
                    seed: int = 0) -> list[AgreementFigure]:
    """Compare engine and solver successors on `states` random reachable states per count."""
    spec = rules.spec
    out = []
    for count in counts:
        result = compare_specs(spec, spec, count, states, seed)
        out.append(AgreementFigure(count, result.states, result.successors, result.moves, result.seconds,
                                   len(result.differences)))
    return out
