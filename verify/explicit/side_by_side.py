"""The explorer's figures set beside SPIN's, both measured in the same run where SPIN can run.

`shrules bench --explore` prints, per player count, our graph (states, transitions, wall
and CPU seconds), SPIN's measured run of the same count (`spin.run_spin`), the ratio of
SPIN's CPU to ours, and the cross-check of the two models: our states projected onto
SPIN's abstraction must be exactly SPIN's abstract states wherever both searches finished.
Without SPIN (no folder, no spin or gcc, or --no-spin) it says why and shows the README's
figures labelled as not measured in this run, so no stale ratio passes for a fresh one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..rules import Rules
from .bench import ExploreFigure, bench_explore
from .check import STANDARD
from .spin import SpinRun, run_spin

EQUAL, DIFFERENT = "equal", "DIFFERENT"


@dataclass(frozen=True, slots=True)
class SideBySide:
    """One player count: our figures and SPIN's run (or why there is none)."""

    ours: ExploreFigure
    spin: SpinRun | None
    not_run: str | None = None       # why SPIN was not run in this session

    @property
    def spin_cpu_over_ours(self) -> float | None:
        """SPIN's verification CPU over our graph search's CPU, both from this run and both
        complete (a search cut short by its limit says nothing of the whole one's time)."""
        if self.spin is None or not self.spin.complete or not self.ours.complete or not self.spin.cpu_seconds \
                or not self.ours.cpu_seconds:
            return None
        return self.spin.cpu_seconds / self.ours.cpu_seconds

    @property
    def catalogue_over_spin(self) -> float | None:
        """The wall time to decide our whole catalogue over SPIN's to explore the same count
        (the comparison the SPIN README calls the one that counts), both from this run."""
        if self.spin is None or not self.spin.complete or not self.spin.wall_seconds \
                or self.ours.catalogue_seconds is None:
            return None
        return self.ours.catalogue_seconds / self.spin.wall_seconds

    @property
    def projection(self) -> str | None:
        """EQUAL or DIFFERENT: our projection against SPIN's measured abstract states (None
        where either search did not finish or SPIN's count is approximate)."""
        if self.spin is None or not self.spin.complete or self.spin.states_approximate or self.ours.projected is None:
            return None
        return EQUAL if self.ours.projected == self.spin.abstract_states else DIFFERENT

    def as_dict(self) -> dict[str, object]:
        """Our figures (with the README's SPIN figures as before), then this run's SPIN."""
        out = self.ours.as_dict()
        ratio = self.spin_cpu_over_ours
        out.update(spin_run=None if self.spin is None else self.spin.as_dict(), spin_not_run=self.not_run,
                   spin_cpu_over_ours=None if ratio is None else round(ratio, 4),
                   projection_vs_spin_run=self.projection,
                   catalogue_over_spin_wall=None if self.catalogue_over_spin is None
                   else round(self.catalogue_over_spin, 1))
        return out


def side_by_side(players: int, limit: float, spin_folder: Path | None, not_run: str | None,
                 catalogue: bool = True, progress: Callable[[str], None] = lambda line: None,
                 explorers: tuple[str, ...] = ("layers", "bfs", "sweep")) -> SideBySide:
    """SPIN's run of `players` (when `spin_folder` is given) and then ours with each of
    `explorers`, one after the other so that none takes CPU from another; `limit` caps
    every search. The headline figures and the ratio are the first explorer's."""
    spin = None
    if spin_folder is not None:
        progress(f"SPIN, {players} players: run.sh {players} from {spin_folder} (pan limited to {limit:g} s)")
        spin = run_spin(players, spin_folder, limit)
    progress(f"explore, {players} players: searching (limited to {limit:g} s)")
    # SPIN's model is of the shipped standard rules: ours are searched under the same.
    return SideBySide(bench_explore(players, limit, catalogue=catalogue, rules=Rules.named(STANDARD),
                                    explorers=explorers), spin, not_run)


def describe(pair: SideBySide) -> str:
    """The figures of one player count as a few lines."""
    ours = pair.ours
    lines = [f"explore, {ours.players} players: {ours.states:,} states, {ours.transitions:,} transitions "
             f"in {ours.seconds:.1f} s ({ours.cpu_seconds:.1f} s CPU), {ours.states_per_second:,.0f} states/s"
             + ("" if ours.complete else " (incomplete: limit hit)")]
    spin = pair.spin
    if spin is not None:
        lines.append(f"  SPIN (measured in this run): {_spin_states(spin)} in {_seconds(spin.wall_seconds)} "
                     f"({_seconds(spin.cpu_seconds)} CPU), {spin.status}")
        ratio = pair.spin_cpu_over_ours
        if ratio is not None:
            lines.append(f"  ratio SPIN CPU / ours: {ratio:.3g} (ours takes {1 / ratio:,.0f}x SPIN's CPU)")
        lines.append("  projected onto SPIN's abstraction: " + _projection(pair))
    else:
        lines.append(f"  SPIN not run: {pair.not_run}")
        if ours.spin_states is not None or ours.spin_seconds is not None:
            readme = ", ".join(part for part in (
                None if ours.spin_states is None else f"{ours.spin_states:,} abstract states",
                None if ours.spin_seconds is None else f"{ours.spin_seconds:g} s") if part)
            lines.append(f"  SPIN per its README (not measured in this run): {readme}")
        if ours.projected is not None:
            against = ("" if ours.spin_states is None else
                       f" against the README's {ours.spin_states:,}: "
                       + (EQUAL if ours.projected == ours.spin_states else DIFFERENT))
            lines.append(f"  projected onto SPIN's abstraction: {ours.projected:,}{against}")
    if ours.catalogue_seconds is not None:
        times = pair.catalogue_over_spin
        lines.append(f"  whole catalogue decided in {ours.catalogue_seconds:.1f} s"
                     + ("" if times is None else f" ({times:,.0f}x SPIN's wall clock in this run)") + {
            True: ", all as expected", False: ", NOT all as expected", None: ", some unknown"}[
            ours.catalogue_as_expected])
    lines += [f"  {search.line()}" for search in ours.searches]
    return "\n".join(lines)


def _spin_states(spin: SpinRun) -> str:
    if spin.stored is None:
        return "no states reported"
    about = "about " if spin.states_approximate else ""
    text = f"{about}{spin.stored:,} states stored ({spin.stored - 1:,} abstract + INIT)"
    about = "about " if spin.approximate else ""    # transitions pass 1e8 before states do
    return text if spin.transitions is None else f"{text}, {about}{spin.transitions:,} transitions"


def _seconds(value: float | None) -> str:
    return "? s" if value is None else f"{value:.1f} s"


def _projection(pair: SideBySide) -> str:
    ours, spin = pair.ours, pair.spin
    assert spin is not None
    mine = "not counted (our search did not finish)" if ours.projected is None else f"{ours.projected:,}"
    verdict = pair.projection
    if verdict is not None:
        return f"ours {mine}, SPIN's {spin.abstract_states:,}: {verdict}"
    why = "SPIN's search did not finish" if not spin.complete else \
        "SPIN's count is rounded" if spin.states_approximate else "ours did not finish"
    return f"ours {mine}; not compared ({why})"
