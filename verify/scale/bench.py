"""`shrules bench --sweep`: the sweep's throughput per core, its scaling from one local
worker to two, and what the whole default space would take on a cluster.

For each player count, an even sample of boards (the sweep's own `Space.sample`) is
checked twice from an empty cache: on one worker, then on two. The figures are measured
wall-clock seconds of this machine, never assumed; the estimate for a cluster multiplies
the mean CPU seconds a task took in its worker by the boards of the default space and divides
by the cluster's cores, so it assumes what the sample shows (and a task stopped by the
time limit counts at the limit, its rule set unknown).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from spec.settings import POWERS, SLOTS

from .cache import Cache
from .run import run_all
from .sweep import BoardVerdict, Space, read_verdict, soundness_properties, sweep_tasks

CLUSTER_CORES = 64
"""The cluster the estimate is for (the issue's figure)."""


@dataclass(frozen=True, slots=True)
class SweepFigure:
    """What one count's sample took, on one worker and on two."""

    players: int
    rule_sets: int
    one_worker_seconds: float
    two_worker_seconds: float | None
    mean_task_seconds: float
    mean_cpu_seconds: float
    unknown: int
    time_limit: float

    @property
    def per_core(self) -> float:
        """Rule sets per CPU second of one core (the CPU time each task took: a figure that
        does not depend on what else the machine was running)."""
        return 1 / self.mean_cpu_seconds if self.mean_cpu_seconds else 0.0

    @property
    def scaling(self) -> float | None:
        """How many times faster two workers were than one."""
        return None if not self.two_worker_seconds else self.one_worker_seconds / self.two_worker_seconds

    def cluster_hours(self, cores: int = CLUSTER_CORES) -> float:
        """Hours the count's whole board space would take on `cores` cores at the sample's CPU
        seconds per board (each core running one task at a time)."""
        return int(pow(len(POWERS), SLOTS)) * self.mean_cpu_seconds / cores / 3600

    def as_dict(self) -> dict[str, Any]:
        """The figure as JSON data, derived numbers included."""
        return {**asdict(self), "per_core": round(self.per_core, 4),
                "scaling": None if self.scaling is None else round(self.scaling, 2),
                "cluster_hours_64": round(self.cluster_hours(), 2)}

    def line(self) -> str:
        """The figure in one line."""
        scaling = "" if self.scaling is None else (f"; two workers {self.two_worker_seconds:.1f} s, "
                                                   f"{self.scaling:.2f}x")
        unknown = f", {self.unknown} unknown at the {self.time_limit:g} s limit" if self.unknown else ""
        return (f"sweep, {self.players} players: {self.rule_sets} boards on one worker in "
                f"{self.one_worker_seconds:.1f} s wall ({self.mean_cpu_seconds:.1f} CPU s and "
                f"{self.mean_task_seconds:.1f} s wall each, {self.per_core:.4f} boards per CPU second{unknown})"
                f"{scaling}; all {int(pow(len(POWERS), SLOTS)):,} "
                f"boards on {CLUSTER_CORES} cores: about {self.cluster_hours():.1f} h")


def bench_sweep(players: int, sample: int, time_limit: float, *, seed: int = 1, scaling: bool = True,
                echo: Callable[[str], None] = lambda text: None) -> SweepFigure:
    """One count's figure (module docstring)."""
    space = Space(counts=(players,), sample=sample, seed=seed)
    tasks = sweep_tasks(space, soundness_properties(), max_states=None, time_limit=time_limit, memory_limit=4_000)
    walls: list[float] = []
    results: list[dict[str, Any]] = []
    for workers in (1, 2) if scaling else (1,):
        with tempfile.TemporaryDirectory(prefix="shrules-bench-") as folder:
            echo(f"sweep, {players} players: {len(tasks)} boards on {workers} worker{'s' if workers > 1 else ''}")
            started = time.perf_counter()
            found = run_all(tasks, Cache(Path(folder)), workers=workers)
            walls.append(time.perf_counter() - started)
            results = results or found
    unknown = sum(1 for result in results if read_verdict(result).verdict is BoardVerdict.UNKNOWN)
    mean = statistics.fmean(float(result["seconds"]) for result in results)
    cpu = statistics.fmean(float(result.get("cpu_seconds", result["seconds"])) for result in results)
    return SweepFigure(players, len(tasks), round(walls[0], 2), round(walls[1], 2) if len(walls) > 1 else None,
                       round(mean, 2), round(cpu, 2), unknown, time_limit)


def estimate(figures: list[SweepFigure], cores: int = CLUSTER_CORES) -> str:
    """The whole default space (every board at every count measured) on `cores` cores."""
    hours = sum(figure.cluster_hours(cores) for figure in figures)
    counts = ", ".join(str(figure.players) for figure in figures)
    return (f"the default space at {counts} players ({len(figures) * int(pow(len(POWERS), SLOTS)):,} rule sets) "
            f"on {cores} cores: about {hours:.1f} h at the measured seconds per board")
