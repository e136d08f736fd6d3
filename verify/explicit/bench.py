"""Benchmark of the explicit-state checker against the SPIN reference (shared/bench/spin).

Per player count: the complete reduced graph (states, transitions, wall and CPU seconds,
stored states per second, the number of distinct states projected onto SPIN's
abstraction) and the time to decide the whole property catalogue; each set against SPIN's
time to explore that player count. `shrules bench --explore` prints these figures.

The graph is searched by each explorer asked for (breadth-first, explore.py; sweep-line,
sweep.py), each in a fresh process so that its peak resident memory is its own: the
figures of the two side by side are states, seconds, peak MiB and the most states held
in the index at once (`SearchFigure`).
"""

from __future__ import annotations

import multiprocessing
import resource
import time
from dataclasses import asdict, dataclass, replace

from ..budgets import SPIN_SECONDS
from ..results import Limits
from ..rules import Rules
from ..workers import WorkerPool
from .abstraction import PROJECTION_FIELDS, SPIN_STATES, count_projection
from .check import check_players, select
from .explore import Exploration, explore
from .layers import LayeredSearch
from .model import Model
from .scratch import scratch
from .sweep import sweep


@dataclass(frozen=True, slots=True)
class SearchFigure:
    """One explorer's search of the complete graph, measured in a process of its own."""

    explorer: str
    states: int
    transitions: int
    complete: bool
    limit: str
    seconds: float
    cpu_seconds: float
    peak_mib: float             # the process's peak resident memory (imports included)
    largest_layer: int          # most states in the index (or pending, for layers) at once
    projected: int | None
    projection_seconds: float = 0.0     # CPU spent projecting onto SPIN's abstraction, not in cpu_seconds

    def line(self) -> str:
        """The figures in words."""
        projecting = f", +{self.projection_seconds:.1f} s projecting" if self.projection_seconds else ""
        return (f"{self.explorer}: {self.states:,} states, {self.transitions:,} transitions in {self.seconds:.1f} s "
                f"({self.cpu_seconds:.1f} s CPU{projecting}), "
                f"peak {self.peak_mib:,.0f} MiB, at most {self.largest_layer:,} states held"
                + ("" if self.complete else f" (incomplete: {self.limit})"))


def search_figure(players: int, explorer: str, time_limit: float | None, project: bool, rules: Rules
                  ) -> SearchFigure:
    """Search the whole graph of `players` with `explorer` (layers | bfs | sweep) in this
    process. The layered search projects as it goes and times that apart: its CPU
    seconds are the search's alone, as the others' are (they project afterwards)."""
    game = rules.game(players)
    model = Model(game, keep=frozenset(PROJECTION_FIELDS) if project else frozenset())
    limits = Limits(time_limit=time_limit)
    if explorer == "layers":
        search = LayeredSearch(model)       # compiled before the clock starts, as Model is
        # At 9 and 10 players the successors waiting for their layer and the projections
        # go to disk (layers.PENDING_IN_MEMORY, tally.IN_MEMORY), as `shrules explore` does.
        with scratch("shrules-bench-") as spill:
            cpu = time.process_time()
            found = search.run(limits, project=project, spill=spill)
            cpu = time.process_time() - cpu - found.projection_seconds
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return SearchFigure(explorer, found.states, found.transitions, found.complete, found.limit,
                            round(found.seconds - found.projection_seconds, 2), round(cpu, 2), round(peak, 1),
                            found.largest_layer, found.projected, round(found.projection_seconds, 2))
    cpu = time.process_time()
    exploration: Exploration = (sweep(model, (), limits, deadlocks=False) if explorer == "sweep" else
                                explore(model, (), limits, deadlocks=False, stop_when_decided=False))
    cpu = time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024   # KiB on Linux
    projected = count_projection(exploration) if project and exploration.complete else None
    return SearchFigure(explorer, exploration.states, exploration.transitions, exploration.complete,
                        exploration.limit, round(exploration.seconds, 2), round(cpu, 2), round(peak, 1),
                        exploration.largest_layer, projected)


def search_apart(players: int, explorer: str, time_limit: float | None, project: bool, rules: Rules
                 ) -> SearchFigure:
    """`search_figure` in a freshly started process (not forked: a fork would start with
    this process's memory), so that the peak memory is the search's alone."""
    with WorkerPool(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(search_figure, players, explorer, time_limit, project, rules).result()



@dataclass(frozen=True, slots=True)
class ExploreFigure:
    """The figures of one player count."""

    players: int
    states: int
    transitions: int
    complete: bool
    seconds: float              # wall clock of the graph search
    cpu_seconds: float
    projected: int | None       # distinct states on SPIN's abstraction (complete graphs only)
    spin_states: int | None
    spin_seconds: float | None
    catalogue_seconds: float | None = None
    catalogue_as_expected: bool | None = None
    searches: tuple[SearchFigure, ...] = ()

    @property
    def states_per_second(self) -> float:
        """Stored states per wall-clock second."""
        return self.states / self.seconds if self.seconds else 0.0

    @property
    def ratio_to_spin(self) -> float | None:
        """Our graph time over SPIN's for the same player count."""
        return self.seconds / self.spin_seconds if self.spin_seconds else None

    def as_dict(self) -> dict[str, object]:
        """The figures with the derived ones, for JSON."""
        out = asdict(self)
        out["states_per_second"] = round(self.states_per_second)
        out["ratio_to_spin"] = None if self.ratio_to_spin is None else round(self.ratio_to_spin, 1)
        return out


def bench_explore(players: int, time_limit: float | None = 600.0, catalogue: bool = True,
                  project: bool = True, *, rules: Rules,
                  explorers: tuple[str, ...] = ("layers", "bfs", "sweep")) -> ExploreFigure:
    """Search the complete graph of `players` with each of `explorers`, each in a fresh
    process (and, if asked, decide the catalogue by the first); the headline figures are
    the first explorer's."""
    searches = tuple(search_apart(players, explorer, time_limit, project, rules) for explorer in explorers)
    first = searches[0]
    figure = ExploreFigure(players, first.states, first.transitions, first.complete, first.seconds,
                           first.cpu_seconds, first.projected, SPIN_STATES.get(players), SPIN_SECONDS.get(players),
                           searches=searches)
    if not catalogue:
        return figure
    started = time.perf_counter()
    results = check_players(rules, players, None, Limits(time_limit=time_limit), explorer=explorers[0])
    seconds = time.perf_counter() - started
    expected = None if any(r.as_expected is None for r in results) else all(r.as_expected for r in results)
    return replace(figure, catalogue_seconds=round(seconds, 2), catalogue_as_expected=expected)

