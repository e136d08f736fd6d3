"""Games that never end, found by a depth-first search: a game that comes back to a state.

`terminates` (R-W5) is decided by the layered sweep when every move lowers the ranking of
spec/invariants.toml: then no game can come back to a state. A rule set whose moves do
not all lower it (a veto that leaves the Election Tracker where it was) may let a game go
round for ever; the sweep stops at the first move that does not lower the ranking, and
the breadth-first search that takes over must record and analyse the whole graph before
it can say so (minutes at five players, which `shrules diff`'s per-count budget did not
have: the verdict stayed unknown).

A depth-first search finds such a game at once when there is one: it walks one game
deep, and a move back to a state on the path it is walking closes a cycle, the lasso
(the path to the cycle's first state, then the cycle). Games that loop go deep, so the
first branch points it tries again are the late ones where the loop lives (the veto's
needs five Fascist policies). It never proves termination: a search that ends, or runs
out of budget, without a cycle says nothing, and the complete searches decide.

The search runs over the model's states (its exact reductions: seat rotation, the cone of
influence, fused forced moves), so a cycle of the model may end in a rotation of the state
it left; the lasso is replayed through the engine and its cycle gone round again (at most
once per seat) until the engine's own state comes back exactly. Every move of it is
checked by the engine.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engine.game import Move
from engine.trace import Trace

from ..clock import Budget
from .model import Model, Step

DFS_STATES = 200_000
"""States the depth-first search may visit before it gives up (no verdict): the veto's
loops show within a few hundred at five players."""


@dataclass(frozen=True, slots=True)
class Lasso:
    """A game that comes back to a state: `trace` is the whole game replayed by the engine,
    its last `cycle` moves lead from a state back to that very state (`exact`), or to a
    state the model does not tell apart from it (a rotation of the seats: not `exact`)."""

    trace: Trace
    cycle: int
    exact: bool
    states: int
    seconds: float

    def describe(self) -> str:
        """What the lasso shows, in one line."""
        stem = len(self.trace.steps) - self.cycle
        same = "the same state" if self.exact else "the same state up to the seats' rotation"
        return (f"a game that need not end: after {stem} moves, a cycle of {self.cycle} moves comes back to {same}, "
                f"and the game can go round for ever")


def find_cycle(model: Model, max_states: int = DFS_STATES, budget: Budget | None = None) -> Lasso | None:
    """The first game the depth-first search finds that comes back to a state on its own
    path, as a lasso replayed through the engine; None when the search ends, or reaches
    `max_states` or spends its `budget` of time (work, verify/clock.py), without one
    (which proves nothing)."""
    started = time.perf_counter()
    encode = model.codec.encode
    initial = model.initial()
    first = encode(initial)
    colour = {first: 1}                                  # 1: on the path, 2: done
    path: list[tuple[int, Iterator[Step]]] = [(first, iter(list(model.steps(initial))))]
    taken: list[Step] = []                              # taken[i]: the move from path[i] to path[i + 1]
    visited = 0
    while path:
        if visited % 1024 == 0 and budget is not None and budget.spent():
            return None
        key, successors = path[-1]
        step = next(successors, None)
        if step is None:
            colour[key] = 2
            path.pop()
            if taken:
                taken.pop()
            continue
        target = encode(step.final)
        seen = colour.get(target)
        if seen == 1:
            start = next(i for i, (k, _) in enumerate(path) if k == target)
            trace, moves, exact = _replay(model, taken + [step], start)
            return Lasso(trace, moves, exact, visited, time.perf_counter() - started)
        if seen is None:
            visited += 1
            if visited > max_states:
                return None
            colour[target] = 1
            taken.append(step)
            path.append((target, iter(list(model.steps(step.final)))))
    return None


def _replay(model: Model, steps: list[Step], start: int) -> tuple[Trace, int, bool]:
    """The lasso through the engine: the stem, then the cycle (steps from `start`) gone
    round until the engine's state is the one it left, at most once per seat; the moves
    of the rounds gone, and whether the state came back exactly (if not, one round)."""
    game = model.game
    state = game.initial_state()
    trace = Trace(game, state)
    for step in steps[:start]:
        state = _apply(model, trace, state, step)
    left, stem = state, len(trace.steps)
    one_round = 0
    for rounds in range(1, game.players + 1):
        for step in steps[start:]:
            state = _apply(model, trace, state, step)
        if rounds == 1:
            one_round = len(trace.steps) - stem
        if state == left:
            return trace, len(trace.steps) - stem, True
    del trace.steps[stem + one_round:]      # the model's states repeat, the engine's are rotations
    return trace, one_round, False


def _apply(model: Model, trace: Trace, state: Any, step: Step) -> Any:
    """One step of the model from the engine's `state`: the move rotated to the engine's
    seats, then the forced chain that reaches the state the model stored."""
    game = model.game
    args = model.rotate_args(step.rule, step.args, model.codec.rotation(state))
    move = Move(step.rule.rule.name, args)
    state = game.apply(state, move)
    trace.append(move, state)
    wanted = model.codec.encode(step.final)
    chains = model.chains(state)
    matching = [chain for chain in chains if model.codec.encode(chain[-1][1] if chain else state) == wanted]
    if not matching:
        raise AssertionError(f"replaying {move} does not reach the state the search stored")
    for forced, _ in matching[0]:
        forced_move = Move(forced.rule.name, ())
        state = game.apply(state, forced_move)
        trace.append(forced_move, state)
    return state
