"""Typed verdicts shared by every checker, report and command.

A property checked for one player count ends in exactly one of:
`Proved` (an invariant holds everywhere / a graph property holds: the exploration was
complete or the induction closed), `Refuted` (a reachable counterexample, with the
shortest trace), `Witnessed` (a `sometimes` found, with the shortest trace),
`Unwitnessed` (a complete search found no witness: the `sometimes` is false),
`Vacuous` (it holds only because its premise is never reached: it tests nothing; see
spec/premises.py), or `Unknown` (a limit was hit: never counted as a pass). Whether a
verdict is *as expected* depends on the property's `expect` (holds / fails); a vacuous
one never is.

The exit statuses say the same of a whole run, for every command and every report:
`EXIT_OK` every verdict as expected, `EXIT_FAILED` one is not, `EXIT_BAD_INPUT` the input
was wrong (a spec, a variant, a transcript, a command line), `EXIT_LIMIT` a limit left a
verdict unknown. They live here, below the command line and the reports, so that both
read the one definition.

`Limits` says when a backend gives up and answers `Unknown`: one value for both backends,
each reading the limits that mean something to it.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from typing import Any

from engine.trace import Trace

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_LIMIT = 0, 1, 2, 3


@dataclass(frozen=True, slots=True)
class Limits:
    """When to give up (None: no limit, or the backend's default).

    - `max_states`: stored states (explicit);
    - `time_limit`: wall-clock seconds (explicit: for one player count's search;
      smt: for one property);
    - `memory_limit`: resident memory in MiB (explicit);
    - `max_depth`: explicit: the BFS depth beyond which nothing is expanded (bounded
      comparisons); smt: the longest path BMC looks at (default 160, `DEFAULT_DEPTH`);
    - `k`: the largest k of k-induction (smt; default 3, `DEFAULT_K`);
    - `first_game`: smt: a witness need not be a shortest game. Random games lead the
      solver to one before its depth-by-depth search for the shortest, which for a
      witness 50 to 70 moves long takes minutes; the game found is reported with the
      proved lower bound on the shortest, never as the shortest unless as long as it.
    """

    max_states: int | None = None
    time_limit: float | None = None
    memory_limit: int | None = None
    max_depth: int | None = None
    k: int | None = None
    first_game: bool = False

    def describe(self) -> str:
        """The explicit checker's limits in words."""
        parts = []
        if self.max_states is not None:
            parts.append(f"{self.max_states:,} states")
        if self.time_limit is not None:
            parts.append(f"{self.time_limit:g} s")
        if self.memory_limit is not None:
            parts.append(f"{self.memory_limit:,} MiB")
        return ", ".join(parts) or "none"


@dataclass(frozen=True, slots=True)
class Evidence:
    """How a verdict was reached: the method and the size of the work."""

    method: str                     # explicit | k-induction | bmc | graph | ranking
    states: int | None = None       # states explored (explicit)
    transitions: int | None = None
    depth: int | None = None        # BMC depth / induction k / trace length
    seconds: float = 0.0
    note: str = ""


@dataclass(frozen=True, slots=True)
class Proved:
    """The property holds for this player count."""

    evidence: Evidence
    value: int | None = None        # a measured quantity, e.g. the longest game in moves

    verdict = "proved"
    holds = True


@dataclass(frozen=True, slots=True)
class Refuted:
    """The property fails: a reachable counterexample, with the shortest trace to it (or,
    when `lower_bound` is set, a trace not proved the shortest: no game shorter than
    `lower_bound` moves breaks it, and the trace may be longer than one that does)."""

    evidence: Evidence
    trace: Trace | None
    message: str = ""
    lower_bound: int | None = None  # None: the trace is a shortest one

    verdict = "refuted"
    holds = False


@dataclass(frozen=True, slots=True)
class Witnessed:
    """A `sometimes` property: a state (or move) where it is true, with the shortest trace
    (or, when `lower_bound` is set, a trace not proved the shortest: no game shorter than
    `lower_bound` moves gets there, and the trace is longer)."""

    evidence: Evidence
    trace: Trace | None
    elections: int | None = None    # elected governments in the witness
    lower_bound: int | None = None  # None: the trace is a shortest one

    verdict = "witness"
    holds = True


@dataclass(frozen=True, slots=True)
class Unwitnessed:
    """A `sometimes` property searched completely without a witness: it never happens."""

    evidence: Evidence

    verdict = "no-witness"
    holds = False


@dataclass(frozen=True, slots=True)
class Vacuous:
    """The property holds only because its premise (spec/premises.py: its move filter,
    its guard, a permission's state) is never reached: a complete search found no game
    that gets there, so it tested nothing. Never a pass, whatever was expected. `trace`:
    the shortest game of the standard rules that reaches the premise, where they have the
    property (None otherwise, and under the standard rules themselves)."""

    evidence: Evidence
    premise: str
    trace: Trace | None = None

    verdict = "vacuous"
    holds = False

    @builtins.property  # the same spelling as the other verdicts' field
    def message(self) -> str:
        """What makes it vacuous, in one line."""
        shown = f"; the standard rules reach it after {len(self.trace.steps)} moves" if self.trace else ""
        return f"its premise is never reached ({self.premise}): it holds vacuously{shown}"


@dataclass(frozen=True, slots=True)
class Unknown:
    """A limit was hit before a verdict: reported with the reason, never a pass."""

    evidence: Evidence
    reason: str

    verdict = "unknown"
    holds = None


Verdict = Proved | Refuted | Witnessed | Unwitnessed | Vacuous | Unknown


@dataclass(frozen=True, slots=True)
class PropertyResult:
    """The verdict of one property for one player count, with its expectation."""

    property: str
    players: int
    kind: str
    rule_ids: tuple[str, ...]
    expect: str                     # holds | fails
    verdict: Verdict
    extra: dict[str, Any] = field(default_factory=dict)

    @builtins.property  # the field `property` shadows the builtin inside this class
    def as_expected(self) -> bool | None:
        """True / False, or None when the verdict is unknown; a vacuous verdict is never as
        expected (a property that tests nothing is no pass, nor an expected failure)."""
        if isinstance(self.verdict, Unknown):
            return None
        if isinstance(self.verdict, Vacuous):
            return False
        return self.verdict.holds == (self.expect == "holds")
