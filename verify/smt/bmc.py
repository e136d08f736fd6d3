"""Bounded model checking: the shortest path from the initial state to a target.

An `Unrolling` holds s_0 = init and the steps s_i -> s_{i+1}, built once and extended on
demand; "is the target reachable in exactly d steps?" is asked for d = lower bound, lower
bound + 1, ... so the first path found is a shortest one. Every state of the unrolling
also satisfies the proved support (verify/smt/induction.py) and the proved distance
bound (distance(s_i) <= distance(s_0) + i): both hold on every real path, so they exclude
none, and they spare the solver states no game reaches. The lower bound comes from the
same distance (`depth_bound`): the end of any path to the target is far from the start.

Before that, `guided` asks for a path along a given rule sequence (a witness's at
another player count, verify/smt/guides.py): the solver then only chooses parameters,
which takes a fraction of a second. Its path is as short as the one `shortest` would find
only when its length is a proved lower bound; the caller checks that.

Each depth is solved by a fresh solver that preprocesses (solves the equations that
define each state from the one before, drops unconstrained parameters) and bit-blasts;
on these deep, narrow problems that beats an incremental solver.

A path the solver finds is decoded into engine moves and **replayed through the engine**
(`Game.apply`): every move must be legal and every state must be the one the solver
claims. A disagreement means the two compilations of the spec differ, and is raised as
`BackendDisagreement`, never reported as a verdict.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import z3  # type: ignore[import-untyped]

from engine.game import IllegalMove, Move
from engine.trace import Trace, changed_fields

from ..results import StopReason
from .system import State, Step, System


class Path(Protocol):
    """States and the steps between them (an unrolling from init, or a window)."""

    states: list[State]
    steps: list[Step]


Target = Callable[[Path, int], z3.BoolRef]
"""A target at depth d: a formula over the path's state s_d or its last step."""


class BackendDisagreement(AssertionError):
    """The engine and the Z3 translation of the same spec disagree: an internal error."""


def solver(timeout_ms: int = 0) -> z3.Solver:
    """A fresh solver for one deep query: preprocessing, then bit-blasting to SAT."""
    tactic = z3.Then("simplify", "propagate-values", "solve-eqs", "elim-uncnstr", "simplify", "bit-blast", "sat")
    out = tactic.solver()
    if timeout_ms:
        out.set("timeout", timeout_ms)
    return out


class Ended(enum.Enum):
    """Why a search ended without a path (`Search.ended`), read by the callers that decide
    from it; `Search.stopped` says the same in words, with what the solver or the tries
    after the search added."""

    DEPTH = "depth"                 # every depth up to the limit asked: no path
    TIME = "time"                   # the deadline passed
    SOLVER = "solver"               # the solver answered unknown at a depth
    UNREACHABLE = "unreachable"     # no path of any length: the proved distance bound
    K_INDUCTIVE = "k-inductive"     # no path of any length: k-induction with the depths searched as base case
    UNGUIDED = "unguided"           # no path along the rules given (`guided`)
    NOT_SEARCHED = "not searched"   # nothing asked: the target has too many parameter values to spell out

    @property
    def stop(self) -> StopReason:
        """The `Unknown.stop` of a verdict this end leaves unknown: a limit by its name;
        a search that ended without one (no path, or none along the rules given) leaves
        the verdict to the induction, which did not close."""
        return _STOPS.get(self, StopReason.INDUCTION)


_STOPS = {Ended.DEPTH: StopReason.DEPTH, Ended.TIME: StopReason.TIME, Ended.SOLVER: StopReason.SOLVER,
          Ended.NOT_SEARCHED: StopReason.NOT_SEARCHED}


@dataclass(slots=True)
class Search:
    """The outcome of a BMC search: the trace found (or None), the depth reached, time,
    solver calls, and why it stopped when it found nothing: `ended` for the callers that
    decide by it, `stopped` in words (by default the words of `ended`)."""

    trace: Trace | None
    depth: int
    seconds: float
    queries: int
    ended: Ended | None = None      # None: a path was found
    stopped: str = ""               # why, in words: "time", "solver: <the solver's reason>", ...
    note: str = ""                  # how the trace was found, when not by the plain search
    lower_bound: int | None = None  # set when the trace is not proved a shortest: no shorter path exists

    def __post_init__(self) -> None:
        if self.ended is not None and not self.stopped:
            self.stopped = self.ended.value

    @property
    def stop(self) -> StopReason:
        """The `Unknown.stop` of a verdict this search leaves unknown (`Ended.stop`)."""
        return StopReason.INDUCTION if self.ended is None else self.ended.stop


@dataclass(slots=True)
class Unrolling:
    """init(s_0), then steps s_i -> s_{i+1} added on demand."""

    system: System
    support: Callable[[State, int], list[z3.BoolRef]] = field(default=lambda state, index: [])
    timeout_ms: int = 0
    states: list[State] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    constraints: list[list[z3.BoolRef]] = field(default_factory=list)     # per state: support
    model: z3.ModelRef | None = None
    reason: str = ""

    def __post_init__(self) -> None:
        first = self.system.state("s0")
        self.states.append(first)
        self.constraints.append([self.system.init(first)] + self.support(first, 0))

    def extend(self, depth: int) -> None:
        """Make steps 0..depth-1 available."""
        while len(self.steps) < depth:
            index = len(self.steps)
            after = self.system.state(f"s{index + 1}")
            self.steps.append(self.system.step(self.states[index], after, f"step{index}"))
            self.states.append(after)
            self.constraints.append(self.support(after, index + 1))

    def check(self, depth: int, target: z3.BoolRef, extra: Sequence[z3.BoolRef] = ()) -> z3.CheckSatResult:
        """Whether a path of exactly `depth` steps ends in the target (and satisfies `extra`)."""
        self.extend(depth)
        query = solver(self.timeout_ms)
        for index in range(depth + 1):
            query.add(*self.constraints[index])
        for index in range(depth):
            query.add(self.steps[index].relation)
        query.add(target)
        query.add(*extra)
        return self._answer(query)

    def _answer(self, query: z3.Solver) -> z3.CheckSatResult:
        """Ask `query`, keeping its model (for `trace`) or why it is unknown."""
        result = query.check()
        self.model = query.model() if result == z3.sat else None
        self.reason = query.reason_unknown() if result == z3.unknown else ""
        return result

    def check_departing(self, rules: Sequence[str], beyond: int, target: Target) -> tuple[z3.CheckSatResult, int]:
        """Whether a path of one step or more meets the target having followed `rules`
        (a guide) for as many of its first steps as it likes, then made at most `beyond`
        moves of its own; and, when one does, how long the model's path is. One query:
        where the path leaves the guide and where it ends are the solver's to choose, so
        a guide that fits only part of the way still leads somewhere. Steps past the end
        are left free (not asserted), so the model's path is only as long as it says."""
        total = len(rules) + beyond
        self.extend(total)
        width = total.bit_length() + 2          # leave + beyond stays below 2^(width-1)
        end, leave = z3.BitVec("path.end", width), z3.BitVec("path.leave", width)
        query = solver(self.timeout_ms)
        query.add(*self.constraints[0])
        query.add(z3.ULE(leave, len(rules)), z3.ULE(leave, end), z3.ULE(end, leave + beyond), z3.UGE(end, 1))
        for index in range(total):
            query.add(z3.Implies(z3.UGT(end, index), z3.And(self.steps[index].relation, *self.constraints[index + 1])))
            if index < len(rules):
                query.add(z3.Implies(z3.UGT(leave, index), self.steps[index].fires(rules[index])))
        query.add(z3.Or([z3.And(end == depth, target(self, depth)) for depth in range(1, total + 1)]))
        result = self._answer(query)
        depth = self.model.eval(end, model_completion=True).as_long() if self.model is not None else 0
        return result, int(depth)

    def meets(self, target: Target, depth: int) -> bool:
        """Whether the last satisfiable check's path meets the target at `depth`."""
        assert self.model is not None
        return bool(z3.is_true(self.model.eval(target(self, depth), model_completion=True)))

    def trace(self, depth: int) -> Trace:
        """The path of the last satisfiable check, replayed through the engine."""
        model = self.model
        assert model is not None
        states = [self.system.decode_state(model, self.states[i]) for i in range(depth + 1)]
        moves = [self.system.decode_move(model, self.steps[i]) for i in range(depth)]
        return replay(self.system, states, moves)


def replay(system: System, states: Sequence[object], moves: Sequence[Move]) -> Trace:
    """The engine's trace of `moves` from the initial state, checked against `states`
    (the solver's claim); raises `BackendDisagreement` on any difference."""
    game = system.game
    state = game.initial_state()
    if tuple(state) != tuple(states[0]):  # type: ignore[arg-type]
        raise BackendDisagreement(f"the solver's initial state differs from the engine's: "
                                  f"{', '.join(changed_fields(game, state, states[0]))}")
    trace = Trace(game, state)
    for index, move in enumerate(moves):
        try:
            after = game.apply(state, move)
        except IllegalMove as error:
            raise BackendDisagreement(f"step {index + 1}: the solver's move {move.rule} "
                                      f"{game.params_of(move)} is illegal in the engine: {error}") from None
        if tuple(after) != tuple(states[index + 1]):  # type: ignore[arg-type]
            raise BackendDisagreement(f"step {index + 1}: after {move.rule} {game.params_of(move)} the engine "
                                      f"computes another state than the solver: solver's differs in "
                                      f"{', '.join(changed_fields(game, after, states[index + 1]))}")
        trace.append(move, after)
        state = after
    return trace


def shortest(unrolling: Unrolling, target: Target, max_depth: int, min_depth: int = 0,
             deadline: float | None = None, probe: Callable[[int], bool] | None = None) -> Search:
    """The shortest path of `min_depth` to `max_depth` steps to the target, trying depths
    in increasing order (no path shorter than `min_depth` reaches it: the caller's proof).
    `probe`, asked before each depth with the depth every shorter path was ruled out to,
    proves that no path of any length does (k-induction with that base case, in
    verify/smt/reach.py `KProbe`): the search then stops, `ended is Ended.K_INDUCTIVE`."""
    start = time.perf_counter()
    queries = 0
    for depth in range(min_depth, max_depth + 1):
        if probe is not None and depth > 0 and probe(depth - 1):
            return Search(None, depth - 1, time.perf_counter() - start, queries, Ended.K_INDUCTIVE)
        if deadline is not None:
            left = deadline - time.perf_counter()
            if left <= 0:
                return Search(None, depth - 1, time.perf_counter() - start, queries, Ended.TIME)
            unrolling.timeout_ms = max(1, int(left * 1000))
        queries += 1
        unrolling.extend(depth)
        result = unrolling.check(depth, target(unrolling, depth))
        if result == z3.sat:
            return Search(unrolling.trace(depth), depth, time.perf_counter() - start, queries)
        if result == z3.unknown:
            return Search(None, depth, time.perf_counter() - start, queries, Ended.SOLVER,
                          f"solver: {unrolling.reason}")
    return Search(None, max_depth, time.perf_counter() - start, queries, Ended.DEPTH)


def guided(unrolling: Unrolling, target: Target, rules: Sequence[str], deadline: float | None = None) -> Search:
    """A path of exactly `len(rules)` steps to the target whose i-th step is a move of
    rule `rules[i]`: one query, quick because the solver only chooses parameters. Not a
    shortest path unless its length is proved a lower bound (the caller's to know)."""
    start = time.perf_counter()
    depth = len(rules)
    if deadline is not None:
        left = deadline - time.perf_counter()
        if left <= 0:
            return Search(None, depth, 0.0, 0, Ended.TIME)
        unrolling.timeout_ms = max(1, int(left * 1000))
    unrolling.extend(depth)
    fixed = [unrolling.steps[index].fires(rule) for index, rule in enumerate(rules)]
    result = unrolling.check(depth, target(unrolling, depth), fixed)
    seconds = time.perf_counter() - start
    if result == z3.sat:
        return Search(unrolling.trace(depth), depth, seconds, 1)
    if result == z3.unsat:
        return Search(None, depth, seconds, 1, Ended.UNGUIDED)
    return Search(None, depth, seconds, 1, Ended.SOLVER, f"solver: {unrolling.reason}")


@dataclass(slots=True)
class Window:
    """k steps s_0 -> ... -> s_k anywhere in a game (not from the initial state): the end
    of a path to a target, whose length it bounds."""

    states: list[State]
    steps: list[Step]

    @classmethod
    def build(cls, system: System, length: int) -> "Window":
        """Fresh states and steps for a window of `length` steps."""
        states = [system.state(f"w{i}") for i in range(length + 1)]
        steps = [system.step(states[i], states[i + 1], f"wstep{i}") for i in range(length)]
        return cls(states, steps)


def depth_bound(system: System, support: Callable[[State], list[z3.BoolRef]], distance: Callable[[State], Any],
                start_distance: int, target: Target, length: int = 1, timeout_ms: int = 0) -> int | None:
    """A proved lower bound on the depth of any path from the initial state to the target.

    `distance` grows by at most one per step (proved), so a path of d >= `length` steps
    ending in the target has distance(s_{d-length}) <= start_distance + d - length. The
    least distance of the first state of a `length`-step window that ends in the target
    (every state satisfying the support) bounds d from below. Depths below `length` are
    not covered: the caller searches them anyway. None: no such window exists, so no path
    of `length` steps or more reaches the target."""
    window = Window.build(system, length)
    query = z3.SolverFor("QF_BV")
    if timeout_ms:
        query.set("timeout", timeout_ms)
    for step in window.steps:
        query.add(step.relation)
    for state in window.states:
        query.add(*support(state))
    query.add(target(window, length))
    first = distance(window.states[0])
    result = query.check()
    if result == z3.unsat:
        return None
    if result != z3.sat:
        return length
    least = int(query.model().eval(first, model_completion=True).as_signed_long())
    while True:
        query.push()
        query.add(first < least)
        result = query.check()
        if result == z3.sat:
            least = int(query.model().eval(first, model_completion=True).as_signed_long())
        query.pop()
        if result == z3.unknown:
            return length       # `least` is not proved the least: it bounds nothing
        if result == z3.unsat:
            break
    return max(length, least - start_distance + length)


def state_target(holds: Callable[[State], z3.BoolRef]) -> Target:
    """The target "the last state satisfies `holds`"."""
    return lambda path, depth: holds(path.states[depth])


def any_of(targets: Sequence[Target]) -> Target:
    """The target "one of `targets` is met" (several properties asked in one query)."""
    return lambda path, depth: z3.Or([target(path, depth) for target in targets])


def move_target(holds: Callable[[Step], z3.BoolRef]) -> Target:
    """The target "the last step satisfies `holds`" (false at depth 0)."""
    return lambda path, depth: holds(path.steps[depth - 1]) if depth > 0 else z3.BoolVal(False)
