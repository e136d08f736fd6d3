"""The clock an explicit search's time limit is measured on: the work done, not the time
waited for a CPU.

A question the search decides in seconds on an idle machine was "unknown" when the other
core was busy: its time limit was wall-clock seconds, and half of them went to waiting
for a turn on the CPU. The work a search has done is the CPU time of its process
(`work_seconds`), the same however busy the machine is; a `Budget` of T seconds counts
that, and stops the search too once `WALL_BACKSTOP` times T seconds of wall time have
passed (verify/budgets.py), so that a process that gets no CPU at all (starved,
suspended) still ends.

The CPU time is the process's, every thread's: the searches run on one thread, and the
process's other threads (the status line, the watch on the parent) sleep. Child
processes are not counted, nor should they be: a search runs in the process that checks
its limit. Any room may import this one; it imports only the budgets.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from .budgets import WALL_BACKSTOP


def work_seconds() -> float:
    """The CPU time of this process so far, in seconds: the work done (a moment of it
    means nothing alone; differences do)."""
    return time.process_time()


def wall_seconds() -> float:
    """A wall-clock moment in seconds, for the backstop."""
    return time.perf_counter()


@dataclass(frozen=True, slots=True)
class Budget:
    """`seconds` of work from the moment it was `started`, and `WALL_BACKSTOP` times
    that of wall time (None: no limit)."""

    seconds: float | None
    work_start: float
    wall_start: float

    @classmethod
    def started(cls, seconds: float | None) -> Budget:
        """A budget of `seconds` of work from now."""
        return cls(seconds, work_seconds(), wall_seconds())

    def worked(self) -> float:
        """The seconds of work done since the start."""
        return work_seconds() - self.work_start

    def elapsed(self) -> float:
        """The wall-clock seconds since the start."""
        return wall_seconds() - self.wall_start

    def backstop(self) -> float | None:
        """The wall-clock seconds after which the budget is spent, however little was done."""
        return None if self.seconds is None else WALL_BACKSTOP * self.seconds

    def spent(self) -> str:
        """Why the budget is spent, as the stop of a search ("limit: time ..."; '' while
        it is not): the work done reached its seconds, or the wall clock its backstop."""
        backstop = self.backstop()
        if self.seconds is None or backstop is None:
            return ""
        if self.worked() >= self.seconds:
            return f"limit: time {self.seconds:g} s of work"
        if self.elapsed() >= backstop:
            return f"limit: time {self.seconds:g} s (wall backstop {backstop:g} s)"
        return ""

    def left(self) -> float | None:
        """The seconds of work a search that follows may get (None: no limit): what is
        left of the work, but no more than keeps that search's own backstop within this
        one's, so that the searches in turn end by this budget's backstop."""
        backstop = self.backstop()
        if self.seconds is None or backstop is None:
            return None
        return max(0.0, min(self.seconds - self.worked(), (backstop - self.elapsed()) / WALL_BACKSTOP))
