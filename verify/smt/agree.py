"""The two compilations agree: engine successors against the successors Z3 enumerates.

For a concrete state s, the engine's successors are `apply(s, m)` for every `m` in
`legal_moves(s)` (chance outcomes of positive weight included); the solver's are every
s' with `step(s, s')`, enumerated one model at a time with a blocking clause that forbids
the s' just found. The two sets must be equal. For a (state, move) pair, the engine's
verdict (`Game.check` accepts or raises `IllegalMove`) must equal the satisfiability of
`step(s, ·)` with the selector and parameters fixed to the move, and a legal move must
lead to the same state in both.

Engines and relations may come from different specs on purpose: `compare_specs` with a
mutated requirement on one side must report a difference (tests/test_smt_agreement.py).

For speed the pre-state is substituted into the relation and simplified, and a state is
read from a model, and blocked, as one wide bit-vector (all fields concatenated): the
Python side of Z3 costs far more than the solver on formulas this small.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from random import Random
from typing import Any

import z3  # type: ignore[import-untyped]

from engine.game import Game, IllegalMove, Move
from engine.play import random_game
from spec.model import Spec

from .system import State, Step, System


@dataclass(frozen=True, slots=True)
class Difference:
    """A state where the engine and the solver disagree, and how."""

    state: Any
    only_engine: tuple[Any, ...] = ()
    only_solver: tuple[Any, ...] = ()
    move: Move | None = None
    engine_legal: bool | None = None
    solver_legal: bool | None = None

    def describe(self, game: Game) -> str:
        """The difference in words, with the state's fields decoded."""
        lines = [f"in phase {game.phase(self.state)}: {game.describe(self.state)}"]
        if self.move is not None:
            lines.append(f"  move {self.move.rule}{game.params_of(self.move)}: engine says "
                         f"{'legal' if self.engine_legal else 'illegal'}, solver says "
                         f"{'legal' if self.solver_legal else 'illegal'}")
        for label, states in (("only the engine", self.only_engine), ("only the solver", self.only_solver)):
            for successor in states[:3]:
                changed = {k: v for k, v in game.describe(successor).items() if v != game.describe(self.state)[k]}
                lines.append(f"  successor found by {label}: changes {changed}")
        return "\n".join(lines)


class Packer:
    """All fields of a state as one bit-vector, and back (bools one bit, seat sets
    `players` bits, the rest the system's width, the first field most significant)."""

    def __init__(self, system: System) -> None:
        self.system = system
        self.sizes = [1 if kind == "bool" else system.players if kind == "seats" else system.width
                      for kind in system.kinds.values()]
        self._constants: dict[tuple[str, int], Any] = {}

    def pack(self, state: State) -> z3.BitVecRef:
        """The concatenation of a state's fields."""
        parts = []
        for name, kind in self.system.kinds.items():
            term = state[name]
            parts.append(z3.If(term, z3.BitVecVal(1, 1), z3.BitVecVal(0, 1)) if kind == "bool" else term)
        return z3.Concat(parts)

    def unpack(self, code: int) -> Any:
        """The engine state of a packed value."""
        values: list[int | bool] = []
        for (kind, size) in reversed(list(zip(self.system.kinds.values(), self.sizes))):
            part = code & ((1 << size) - 1)
            code >>= size
            if kind == "bool":
                values.append(bool(part))
            elif kind == "seats":
                values.append(part)
            else:
                values.append(part - (1 << size) if part >> (size - 1) else part)
        return self.system.game.State._make(reversed(values))  # type: ignore[attr-defined]

    def constant(self, kind: str, value: int | bool) -> Any:
        """A cached Z3 constant of a field's sort."""
        key = (kind, int(value))
        if key not in self._constants:
            self._constants[key] = self.system.translator.constant(kind, value)
        return self._constants[key]


class Enumerator:
    """Successors and legality of concrete states under one transition system."""

    def __init__(self, system: System) -> None:
        self.system = system
        self.before = system.state("s")
        self.after = system.state("t")
        self.step: Step = system.step(self.before, self.after, "step")
        self.packer = Packer(system)
        self.packed_after = self.packer.pack(self.after)

    def relation_at(self, state: Any) -> z3.BoolRef:
        """`step(state, t)` with the pre-state substituted and simplified."""
        pairs = [(self.before[name], self.packer.constant(kind, value))
                 for (name, kind), value in zip(self.system.kinds.items(), state)]
        return z3.simplify(z3.substitute(self.step.relation, *pairs))

    def successors(self, state: Any, limit: int = 100_000) -> set[Any]:
        """Every s' with step(state, s'), one model at a time, each blocked once found."""
        return self.judge(state, [], limit)[0]

    def legal(self, state: Any, moves: list[Move]) -> list[Any | None]:
        """For each move, the state after it if step allows it, else None."""
        return self.judge(state, moves, 0)[1]

    def judge(self, state: Any, moves: list[Move], limit: int = 100_000) -> tuple[set[Any], list[Any | None]]:
        """The moves' outcomes (the state after each, None when step refuses it), then up to
        `limit` successors of the state, from one solver holding step(state, t)."""
        solver = z3.SimpleSolver()
        solver.add(self.relation_at(state))
        afters: list[Any | None] = []
        for move in moves:
            solver.push()
            solver.add(self.system.move_is(self.step, move))
            if solver.check() == z3.sat:
                afters.append(self.packer.unpack(solver.model().eval(self.packed_after, model_completion=True).as_long()))
            else:
                afters.append(None)
            solver.pop()
        found: set[Any] = set()
        while limit and solver.check() == z3.sat:
            code = solver.model().eval(self.packed_after, model_completion=True).as_long()
            found.add(self.packer.unpack(code))
            if len(found) >= limit:
                break
            solver.add(self.packed_after != code)
        return found, afters


def engine_successors(game: Game, state: Any) -> set[Any]:
    """The engine's successors: the effect of every legal move (`apply` without re-checking
    what `legal_moves` just established)."""
    return {game.by_name[move.rule].effect(state, *move.args) for move in game.legal_moves(state)}


def engine_after(game: Game, state: Any, move: Move) -> Any | None:
    """The engine's state after a move, or None when `Game.check` refuses it."""
    try:
        return game.apply(state, move)
    except IllegalMove:
        return None


def random_move(game: Game, state: Any, rng: Random) -> Move:
    """A move to judge: half the time a rule of the state's phase, else any rule; its
    parameters drawn from their domains in this state."""
    rules = game.by_phase[state[game.phase_index]]
    compiled = rng.choice(rules) if rules and rng.random() < 0.5 else rng.choice(game.rules)
    args = []
    for domain in compiled.domains:
        try:
            values = list(domain(state))
        except (ValueError, IndexError):
            values = []
        args.append(rng.choice(values) if values else 0)
    return Move(compiled.rule.name, tuple(args))


def reachable_states(game: Game, count: int, seed: int = 0) -> list[Any]:
    """At least `count` distinct states from random games (or all of those games' states)."""
    seen: dict[Any, None] = {}
    rng = Random(seed)
    games = 0
    while len(seen) < count and games < 100 * count:
        for state in random_game(game, rng=rng).states:
            seen.setdefault(state, None)
        games += 1
    return list(seen)[:count]


@dataclass(slots=True)
class Agreement:
    """The outcome of comparing engine and solver on many states and moves."""

    players: int
    states: int = 0
    successors: int = 0
    moves: int = 0
    seconds: float = 0.0
    differences: list[Difference] = field(default_factory=list)

    @property
    def agree(self) -> bool:
        """No difference found."""
        return not self.differences


def compare(engine_game: Game, system: System, states: list[Any], moves_per_state: int = 2,
            seed: int = 0, stop_after: int = 5) -> Agreement:
    """Compare successors and move verdicts on `states` (engine from `engine_game`, relation
    from `system`, which may come from different specs)."""
    enumerator = Enumerator(system)
    rng = Random(seed)
    result = Agreement(system.players)
    start = time.perf_counter()
    for state in states:
        result.states += 1
        expected = engine_successors(engine_game, state)
        moves = [random_move(engine_game, state, rng) for _ in range(moves_per_state)]
        found, afters = enumerator.judge(state, moves, limit=len(expected) + 8)
        result.successors += len(found)
        if expected != found:
            result.differences.append(Difference(state, tuple(expected - found), tuple(found - expected)))
        for move, after in zip(moves, afters):
            result.moves += 1
            wanted = engine_after(engine_game, state, move)
            if wanted != after:
                result.differences.append(Difference(state, (wanted,) if wanted is not None else (),
                                                     (after,) if after is not None else (), move,
                                                     wanted is not None, after is not None))
        if len(result.differences) >= stop_after:
            break
    result.seconds = time.perf_counter() - start
    return result


def compare_specs(engine_spec: Spec, solver_spec: Spec, players: int, count: int, seed: int = 0,
                  moves_per_state: int = 2) -> Agreement:
    """Compare the engine of one spec with the transition relation of another (the same
    spec twice for the agreement test) on `count` reachable states of the engine's game."""
    engine_game = Game(engine_spec, players)
    system = System(solver_spec, players)
    states = reachable_states(engine_game, count, seed)
    return compare(engine_game, system, states, moves_per_state, seed)
