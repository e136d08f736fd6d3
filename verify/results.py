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
each reading the limits that mean something to it; `StopReason` says which one stopped it.

Every value here pickles cheaply, so a worker process hands its `PropertyResult`s back as
they are: a game travels as its moves and the name of its rules (`Played`) and is
replayed through the engine, once, when it is first read (a compiled game's states are
classes made per process, so a `Trace` itself cannot cross).
"""

from __future__ import annotations

import builtins
import enum
from dataclasses import dataclass, field
from typing import Any, Self

from engine.game import Game, Move, compiled_game
from engine.trace import Trace
from spec.loader import users_file

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_LIMIT = 0, 1, 2, 3


@dataclass(frozen=True, slots=True)
class Limits:
    """When to give up (None: no limit, or the backend's default).

    - `max_states`: stored states (explicit);
    - `time_limit`: seconds. Explicit (for one player count's search): seconds of work,
      the CPU time of the searching process, with a wall-clock backstop of
      `WALL_BACKSTOP` times it (verify/clock.py): a search waiting for a busy machine's
      CPU is not cut short by the wait, and one that gets no CPU still ends. Smt (for
      one property): wall-clock seconds, the solver's own timeout;
    - `memory_limit`: resident memory in MiB (explicit);
    - `max_depth`: explicit: the BFS depth beyond which nothing is expanded (bounded
      comparisons); smt: the longest path BMC looks at (default 160, `DEFAULT_DEPTH`);
    - `k`: the largest k of k-induction (smt; default 3, `DEFAULT_K`);
    - `first_game`: smt: a witness need not be a shortest game. Random games lead the
      solver to one before its depth-by-depth search for the shortest, which for a
      witness 50 to 70 moves long takes minutes; the game found is reported with the
      proved lower bound on the shortest, never as the shortest unless as long as it.
    - `proof_only`: smt: the inductive proofs of an invariant only (one step, k-induction),
      no bounded search for a violation when they fail. For a caller that searches the
      graph itself (the rules lawyer's first proof): a question true but not inductive as
      stated otherwise spends its whole time on bounded model checking, which finds no
      violation because there is none.
    """

    max_states: int | None = None
    time_limit: float | None = None
    memory_limit: int | None = None
    max_depth: int | None = None
    k: int | None = None
    first_game: bool = False
    proof_only: bool = False

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


Moves = tuple[tuple[str, tuple[int, ...]], ...]
"""A game as its moves: (rule, arguments) per step."""


def moves_of(trace: Trace) -> Moves:
    """A trace as its moves (`replay` undoes it)."""
    return tuple((move.rule, tuple(move.args)) for move, _ in trace.steps)


def replay(game: Game, moves: Moves) -> Trace:
    """A trace from its moves, every one checked by the engine."""
    state = game.initial_state()
    trace = Trace(game, state)
    for rule, args in moves:
        move = Move(rule, tuple(args))
        state = game.apply(state, move)
        trace.append(move, state)
    return trace


def rules_name(game: Game) -> str:
    """The name that loads `game`'s rules again: the user's file, else the rules' own name
    (a shipped rule set, a name with settings, an overlay registered in this process: the
    name a saved trace gives, engine/trace.py)."""
    return users_file(game.spec) or game.spec.name


@dataclass(frozen=True, slots=True)
class Played:
    """A game as its moves under named rules, replayed through the engine when `trace` is
    first read and kept. It pickles as the moves alone (`__reduce__`): the replay is made
    again on the other side, under the rules `rules` names for `players`."""

    rules: str
    players: int
    moves: Moves
    _replayed: list[Trace] = field(default_factory=list, init=False, compare=False, repr=False)

    @classmethod
    def of(cls, trace: Trace, rules: str | None = None) -> Played:
        """The game of `trace` (kept: no replay in this process); `rules`: the name of the
        rules to replay it under elsewhere, when not the trace's own (the same moves of a
        monitored game are a game of the rules it watches)."""
        played = cls(rules or rules_name(trace.game), trace.game.players, moves_of(trace))
        if rules is None:
            played._replayed.append(trace)
        return played

    @builtins.property
    def trace(self) -> Trace:
        """The game replayed (once) through the engine."""
        if not self._replayed:
            self._replayed.append(replay(compiled_game(self.players, self.rules), self.moves))
        return self._replayed[0]

    def __reduce__(self) -> tuple[type[Played], tuple[str, int, Moves]]:
        return (Played, (self.rules, self.players, self.moves))


def played(trace: Trace | None) -> Played | None:
    """`Played.of(trace)`, None kept."""
    return None if trace is None else Played.of(trace)


class StopReason(enum.Enum):
    """Why a search stopped before a verdict (the `Unknown`'s message says it in words)."""

    STATES = "states"               # the stored states reached `Limits.max_states`
    TIME = "time"                   # `Limits.time_limit`
    MEMORY = "memory"               # `Limits.memory_limit`, or no room left on the disk
    DEPTH = "depth"                 # `Limits.max_depth` (a bounded search, BMC's longest path)
    NO_RANKING = "no ranking"       # a sweep by the ranking the rules do not have or break
    SOLVER = "solver"               # the solver answered unknown
    INDUCTION = "induction"         # the induction did not close, and no search decided (none hit a limit)
    NOT_SEARCHED = "not searched"   # nothing searched: rules the backend cannot take, or a premise cut short
    DISAGREEMENT = "disagreement"   # the backends disagree
    OUT_OF_RANGE = "out of range"   # a successor left its declared range: a finding, and the search incomplete
    ARRAYS = "arrays"               # a value the layered search's arrays cannot hold: searched state by state
    OTHER = "other"


class UnknownName(ValueError):
    """A name read from JSON or a dict that is none of its `Named` set's: the message says
    what was found and what may be."""


class Named(enum.StrEnum):
    """A closed set of names a JSON output writes (a verdict, a status). A member is its
    name as a string, so the files written stay as they were; a name read back is made a
    member by `parse`, once, where the JSON or the dict is read, and matched as a member
    everywhere after (tests/test_typed_names.py keeps it so)."""

    @classmethod
    def noun(cls) -> str:
        """What one of the names is, in a word, for `parse`'s message."""
        return "name"

    @classmethod
    def parse(cls, name: object) -> Self:
        """The member named `name`, else `UnknownName` saying what was found and what may be."""
        if isinstance(name, str):
            for member in cls:
                if member.value == name:
                    return member
        shown = repr(name)[:60]
        raise UnknownName(f"{shown} is not a {cls.noun()}: expected one of {', '.join(cls)}")


class VerdictKind(Named):
    """A verdict's name, as `Verdict.verdict` gives it and every report writes it."""

    PROVED = "proved"
    WITNESS = "witness"
    REFUTED = "refuted"
    NO_WITNESS = "no-witness"
    VACUOUS = "vacuous"
    UNKNOWN = "unknown"

    @classmethod
    def noun(cls) -> str:
        return "verdict"


class Status(Named):
    """Whether a verdict is as its property expects (`PropertyResult.as_expected`), in the
    words a report writes: unknown when a limit left it undecided."""

    AS_EXPECTED = "as-expected"
    NOT_AS_EXPECTED = "not-as-expected"
    UNKNOWN = "unknown"

    @classmethod
    def noun(cls) -> str:
        return "status"


class MutantStatus(Named):
    """What became of a mutant at one player count (verify/diff/mutate.py): killed (a
    property's verdict changed), equivalent (proved the same games), survived (a game
    tells the two apart and no property sees it), unknown (a limit), invalid (the
    mutant does not compile)."""

    KILLED = "killed"
    EQUIVALENT = "equivalent"
    SURVIVED = "survived"
    UNKNOWN = "unknown"
    INVALID = "invalid"

    @classmethod
    def noun(cls) -> str:
        return "mutant status"


class KnowledgeVerdict(Named):
    """What a check of who knows what ended in (verify/knowledge/, and the solver's half of
    it in verify/smt/): proved (no seat learns what it may not), leak (a seat does, shown
    by a pair of games), unknown (a limit)."""

    PROVED = "proved"
    LEAK = "leak"
    UNKNOWN = "unknown"

    @classmethod
    def noun(cls) -> str:
        return "knowledge verdict"


class Halt(str):
    """Why a search stopped: the words a user reads (the string itself) and the
    `StopReason` a program reads (`reason`), made together where the search stops, so
    that no reader has to recognise a limit by the first words of its message."""

    reason: StopReason

    def __new__(cls, reason: StopReason, words: str) -> "Halt":
        made = super().__new__(cls, words)
        made.reason = reason
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return (Halt, (self.reason, str(self)))


def halted_by(words: str) -> StopReason | None:
    """The reason a search's `limit` carries (None: no limit, or an early stop that is no
    limit, like a decisive hit)."""
    return words.reason if isinstance(words, Halt) else None


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

    verdict = VerdictKind.PROVED
    holds = True


@dataclass(frozen=True, slots=True)
class Refuted:
    """The property fails: a reachable counterexample, with the shortest trace to it (or,
    when `lower_bound` is set, a trace not proved the shortest: no game shorter than
    `lower_bound` moves breaks it, and the trace may be longer than one that does)."""

    evidence: Evidence
    played: Played | None
    message: str = ""
    lower_bound: int | None = None  # None: the trace is a shortest one

    verdict = VerdictKind.REFUTED
    holds = False

    @builtins.property
    def trace(self) -> Trace | None:
        """The counterexample, replayed when first read."""
        return None if self.played is None else self.played.trace


@dataclass(frozen=True, slots=True)
class Witnessed:
    """A `sometimes` property: a state (or move) where it is true, with the shortest trace
    (or, when `lower_bound` is set, a trace not proved the shortest: no game shorter than
    `lower_bound` moves gets there, and the trace is longer)."""

    evidence: Evidence
    played: Played | None
    elections: int | None = None    # elected governments in the witness
    lower_bound: int | None = None  # None: the trace is a shortest one

    verdict = VerdictKind.WITNESS
    holds = True

    @builtins.property
    def trace(self) -> Trace | None:
        """The witness, replayed when first read."""
        return None if self.played is None else self.played.trace


@dataclass(frozen=True, slots=True)
class Unwitnessed:
    """A `sometimes` property searched completely without a witness: it never happens."""

    evidence: Evidence

    verdict = VerdictKind.NO_WITNESS
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
    played: Played | None = None

    verdict = VerdictKind.VACUOUS
    holds = False

    @builtins.property
    def trace(self) -> Trace | None:
        """The standard rules' shortest game to the premise, replayed when first read."""
        return None if self.played is None else self.played.trace

    @builtins.property  # the same spelling as the other verdicts' field
    def message(self) -> str:
        """What makes it vacuous, in one line."""
        shown = f"; the standard rules reach it after {len(self.played.moves)} moves" if self.played else ""
        return f"its premise is never reached ({self.premise}): it holds vacuously{shown}"


@dataclass(frozen=True, slots=True)
class Unknown:
    """A limit was hit before a verdict: reported with the reason, never a pass."""

    evidence: Evidence
    reason: str
    stop: StopReason = StopReason.OTHER

    verdict = VerdictKind.UNKNOWN
    holds = None


Verdict = Proved | Refuted | Witnessed | Unwitnessed | Vacuous | Unknown


@dataclass(frozen=True, slots=True)
class Facts:
    """What a checker found beside the verdict, each read by name (the reports, the
    command line): none of it changes whether the verdict is as expected."""

    description: str = ""                   # the property's, from spec/properties.toml
    group: str = ""                         # its class: conformance | soundness ("" unknown)
    backend: str = ""                       # the backend that decided it, when said
    reductions: tuple[str, ...] = ()        # the exact reductions the exploration applied
    reachable_states: int | None = None     # the whole reachable graph of this count, reduced
    fewest_elections: int | None = None     # the fewest elected governments to the witness; None: not
    fewest_elections_game: Played | None = None  # searched, or cut short ... and that game
    longest_moves: int | None = None        # `terminates`: the longest game, in moves
    longest_elections: int | None = None    # ... the most elections of a game
    longest_game: Played | None = None      # ... and a longest game
    stuck_states: int | None = None         # ... states that cannot reach the end
    cycle_moves: int | None = None          # a game coming back to a state: the moves of its loop
    wall_seconds: float | None = None       # the count's time, inference included (`ask --solver`)
    backends_disagree: str = ""             # the note when the two backends disagree

    def given(self) -> dict[str, int | str]:
        """The whole-number and text facts that have a value, by the names the JSON outputs
        give them (`class` for the group): games, the reductions and times left out."""
        named = {"description": self.description, "class": self.group, "backend": self.backend,
                 "reachable_states": self.reachable_states, "fewest_elections": self.fewest_elections,
                 "longest_moves": self.longest_moves, "longest_elections": self.longest_elections,
                 "stuck_states": self.stuck_states, "cycle_moves": self.cycle_moves,
                 "backends_disagree": self.backends_disagree}
        return {name: value for name, value in named.items() if value is not None and value != ""}


@dataclass(frozen=True, slots=True)
class PropertyResult:
    """The verdict of one property for one player count, with its expectation."""

    property: str
    players: int
    kind: str
    rule_ids: tuple[str, ...]
    expect: str                     # holds | fails
    verdict: Verdict
    facts: Facts = Facts()

    @builtins.property  # the field `property` shadows the builtin inside this class
    def as_expected(self) -> bool | None:
        """True / False, or None when the verdict is unknown; a vacuous verdict is never as
        expected (a property that tests nothing is no pass, nor an expected failure)."""
        if isinstance(self.verdict, Unknown):
            return None
        if isinstance(self.verdict, Vacuous):
            return False
        return self.verdict.holds == (self.expect == "holds")
