"""Games that never end, found by the solver: a path to a state that comes back to itself.

`terminates` (R-W5: the game ends the moment a win happens) is proved by a ranking
every move decreases (verify/smt/rank.py) with deadlock freedom. Where no ranking is
proved, the rules may let a game go on for ever, and the only finite evidence of that is
a lasso: a game to a state from which a few moves lead back to the very same state, so
the game can go round for ever. A refused veto that no longer sticks (R-V3) is one: the
Chancellor proposes the veto, the President refuses, the Chancellor proposes it again.

The target here is "the path's last state starts a cycle of at most `CYCLE_MOVES`
moves": a window of fresh states w_0 = s_d, w_1, ..., w_CYCLE_MOVES, each step a move of
the rules, with w_j = w_0 for some j. A cycle of j moves can be gone round again, so
every step of the window may be asserted. It is searched for like any other target: the
shortest path to it, and when that search stalls, paths along random games that came back
to a state within as many moves (verify/smt/playouts.py), one quick query each. The cycle
of the state found is then asked for again from that state alone (`close`), decoded, and
replayed through the engine, whose last move must bring it back to the state the cycle
left, or the two compilations disagree (`BackendDisagreement`). A longer cycle is not
looked for: then the verdict stays unknown, never proved.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import z3  # type: ignore[import-untyped]

from engine.trace import Trace

from .bmc import Path, Target, replay, solver
from .system import State, Step, System

CYCLE_MOVES = 6
"""The longest cycle looked for, in moves: the veto's loops take one or two; every move of
the window is in every query, so each one more costs every query one more step."""


@dataclass(slots=True)
class Cycle:
    """The window of `CYCLE_MOVES` steps whose first state starts a cycle."""

    system: System
    states: list[State]
    steps: list[Step]
    support: Callable[[State], list[z3.BoolRef]]

    @classmethod
    def build(cls, system: System, support: Callable[[State], list[z3.BoolRef]],
              moves: int = CYCLE_MOVES) -> "Cycle":
        """Fresh states and steps for the window (named apart from an unrolling's and from
        `bmc.Window`'s, which a search may hold in the same query)."""
        states = [system.state(f"cycle.w{i}") for i in range(moves + 1)]
        steps = [system.step(states[i], states[i + 1], f"cycle.step{i}") for i in range(moves)]
        return cls(system, states, steps, support)

    def _comes_back(self, first: z3.BoolRef) -> list[z3.BoolRef]:
        """The window's constraints once `first` pins its first state."""
        same = self.system.same
        return [first, *(step.relation for step in self.steps),
                *(term for state in self.states[1:] for term in self.support(state)),
                z3.Or([same(self.states[j], self.states[0]) for j in range(1, len(self.states))])]

    def target(self) -> Target:
        """The target "the path's state at depth d starts a cycle"."""
        def starts_a_cycle(path: Path, depth: int) -> z3.BoolRef:
            return z3.And(self._comes_back(self.system.same(self.states[0], path.states[depth])))
        return starts_a_cycle

    def close(self, trace: Trace, deadline: float | None = None) -> tuple[Trace, int] | None:
        """`trace` with the moves of a cycle from its last state back to it appended, the
        whole game replayed through the engine (`bmc.replay`: every move legal, every state
        the solver's, so the last is the state the cycle left), and the cycle's length;
        None when the solver finds no cycle of at most `CYCLE_MOVES` moves there by
        `deadline` (the search's model claimed one: then the caller reports nothing)."""
        system = self.system
        start = trace.end
        left = None if deadline is None else deadline - time.perf_counter()
        if left is not None and left <= 0:
            return None
        query = solver(0 if left is None else max(1, int(left * 1000)))
        query.add(*self._comes_back(system.equals(self.states[0], start)))
        if query.check() != z3.sat:
            return None
        model = query.model()
        values = [system.decode_state(model, state) for state in self.states]
        length = next(j for j in range(1, len(values)) if tuple(values[j]) == tuple(start))
        moves = [move for move, _ in trace.steps] + [system.decode_move(model, step) for step in self.steps[:length]]
        return replay(system, trace.states + values[1:length + 1], moves), length


def never_ends(depth: int, length: int) -> str:
    """What a lasso shows, in one line."""
    moves = "one move comes" if length == 1 else f"{length} moves come"
    return (f"a game that need not end: after {depth} moves, {moves} back to the same state, and the game can "
            f"go round for ever")
