"""Benchmark of the explicit-state checker against the SPIN reference (shared/bench/spin).

Per player count: the complete reduced graph (states, transitions, wall and CPU seconds,
stored states per second, the number of distinct states projected onto SPIN's
abstraction) and the time to decide the whole property catalogue; each set against SPIN's
time to explore that player count. `shrules bench --explore` prints these figures.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

from engine.game import compiled_game

from ..results import Limits
from .abstraction import PROJECTION_FIELDS, SPIN_STATES, count_projection
from .check import check_players, materialise, select
from .explore import explore
from .model import Model

SPIN_SECONDS = {5: 0.7, 6: 2.0, 7: 40.0, 8: 102.0}
"""SPIN's verification time per player count (shared/bench/spin/README.md): shown, marked as
not measured, only where SPIN cannot run beside us (side_by_side.py)."""


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
                  project: bool = True, rules: str = "standard") -> ExploreFigure:
    """Explore the complete graph of `players` (and, if asked, decide the catalogue)."""
    game = compiled_game(players, rules)
    model = Model(game, keep=frozenset(PROJECTION_FIELDS) if project else frozenset())
    cpu = time.process_time()
    exploration = explore(model, (), Limits(time_limit=time_limit), deadlocks=False, stop_when_decided=False)
    cpu = time.process_time() - cpu
    projected = count_projection(exploration) if project and exploration.complete else None
    figure = ExploreFigure(players, exploration.states, exploration.transitions, exploration.complete,
                           round(exploration.seconds, 2), round(cpu, 2), projected, SPIN_STATES.get(players),
                           SPIN_SECONDS.get(players))
    del exploration
    if not catalogue:
        return figure
    started = time.perf_counter()
    by_name = {prop.name: prop for prop in select(rules)}
    results = [materialise(raw, rules, by_name)
               for raw in check_players(rules, players, None, Limits(time_limit=time_limit))]
    seconds = time.perf_counter() - started
    expected = None if any(r.as_expected is None for r in results) else all(r.as_expected for r in results)
    return ExploreFigure(**{**asdict(figure), "catalogue_seconds": round(seconds, 2),
                            "catalogue_as_expected": expected})

