"""Breadth-first exploration of the state graph, with properties checked on the fly.

The explorer walks `verify.explicit.model.Model` (the engine's compiled rules under exact
reductions) from the initial state, before the deal: the role deal and the first
President are chance moves, so every deal is explored. States are stored packed
(codec.py) in a dict from key to id; per id it keeps the parent's id and the move
(one int each, in `array`s), so the shortest trace to any state is rebuilt by replaying
those moves through the engine (`trace_to`), which also re-checks every move's legality.

Each property fires at most once, at the first (shallowest) state or move where it does:
an `always`/`never` then has its counterexample, a `sometimes` its witness. When every
property has fired and no graph property is asked, the search stops early. Deadlocks
(a stored state that is not over and has no move) are found on the fly. With
`record_edges` the explorer also keeps the graph (successor ids and, per edge, the moves
and elections it stands for) for graphs.py.

Limits (`Limits`): states, seconds, resident memory. A search stopped by a limit says so
in `limit`; nothing it did not see is ever reported as proved (check.py).

A successor with a field outside its declared range (codec.OutOfRange) is not a limit
but a finding: the search stops there and keeps where (`out_of_range`, a `Hit` whose
trace is the shortest game reaching the value, breadth-first) and what (`range_error`);
check.py reports it as the refutation of the `in_range` property. `stop_on` names
properties whose first hit ends the search (the mutation analysis stops at the first
verdict that differs from the rules').
"""

from __future__ import annotations

import os
import time
from array import array
from dataclasses import dataclass, field
from typing import Any

from engine.game import Move
from engine.trace import Trace
from spec.properties import Property

from .codec import OutOfRange
from .model import Model, Step
from .propcheck import compile_checks

ELECTION_RULE = "elect"
"""The rule whose moves count as elected governments (as `Trace.elections` counts them)."""

CHECK_EVERY = 2048
"""Expansions between two looks at the clock and the memory."""


@dataclass(frozen=True, slots=True)
class Limits:
    """When to give up: stored states, wall-clock seconds, resident memory in MiB, and
    (for bounded comparisons) the BFS depth beyond which nothing is expanded."""

    max_states: int | None = None
    time_limit: float | None = None
    memory_limit: int | None = None
    max_depth: int | None = None

    def describe(self) -> str:
        """The limits in words."""
        parts = []
        if self.max_states is not None:
            parts.append(f"{self.max_states:,} states")
        if self.time_limit is not None:
            parts.append(f"{self.time_limit:g} s")
        if self.memory_limit is not None:
            parts.append(f"{self.memory_limit:,} MiB")
        return ", ".join(parts) or "none"


def resident_mib() -> float:
    """The process's resident memory now, in MiB (0 where /proc is unavailable)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            pages = int(handle.read().split()[1])
    except (OSError, ValueError, IndexError):
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


@dataclass(frozen=True, slots=True)
class Hit:
    """Where a property fired: a stored state, or a state inside a fused step.

    `state` is the stored state's id when `parent` is None; otherwise the property fired
    `prefix` states into the step `move` from stored state `parent` (0 = right after the
    move, k = after the k-th forced move of chain number `chain`).
    """

    state: int | None
    parent: int | None = None
    move: int = 0
    chain: int = 0
    prefix: int = 0
    depth: int = 0


@dataclass(slots=True)
class Graph:
    """The explored graph in arrays: successors of id i are targets[offsets[i]:offsets[i+1]]."""

    offsets: array  # type: ignore[type-arg]
    targets: array  # type: ignore[type-arg]
    moves: array  # type: ignore[type-arg]       moves each edge stands for (1 + forced moves)
    elections: array  # type: ignore[type-arg]   elected governments on each edge (0 or 1)
    over: array  # type: ignore[type-arg]        1 where the state is a finished game


@dataclass(slots=True)
class Exploration:
    """What a search found: counts, hits, the first deadlock, and whether it was complete."""

    model: Model
    properties: tuple[Property, ...]
    states: int = 0
    transitions: int = 0
    seconds: float = 0.0
    depth: int = 0
    complete: bool = False
    limit: str = ""
    hits: dict[str, Hit] = field(default_factory=dict)
    deadlock: Hit | None = None
    out_of_range: Hit | None = None
    range_error: str = ""
    graph: Graph | None = None
    keys: list[int] = field(default_factory=list)
    parent: array = field(default_factory=lambda: array("q"))  # type: ignore[type-arg]
    parent_move: array = field(default_factory=lambda: array("q"))  # type: ignore[type-arg]
    layers: list[int] = field(default_factory=list)

    @property
    def states_per_second(self) -> float:
        """Stored states per second of search."""
        return self.states / self.seconds if self.seconds else 0.0

    # ------------------------------------------------------------------ traces

    def path(self, state_id: int) -> list[tuple[int, int, int]]:
        """(parent id, move code, child id) from the initial state to `state_id`."""
        out = []
        current = state_id
        while self.parent[current] >= 0:
            parent = self.parent[current]
            out.append((parent, self.parent_move[current], current))
            current = parent
        out.reverse()
        return out

    def trace_to(self, hit: Hit) -> Trace:
        """The trace from the initial state to where `hit` fired, replayed through the engine."""
        model = self.model
        game = model.game
        state = game.initial_state()
        trace = Trace(game, state)
        target = hit.state if hit.parent is None else hit.parent
        assert target is not None
        for _, code, child in self.path(target):
            state = self._replay_step(trace, state, code, None, self.keys[child])
        if hit.parent is not None:
            self._replay_step(trace, state, hit.move, (hit.chain, hit.prefix), None)
        return trace

    def _replay_step(self, trace: Trace, state: Any, code: int, partial: tuple[int, int] | None,
                     child_key: int | None) -> Any:
        model = self.model
        game = model.game
        compiled, args = model.decode_move(code)
        args = model.rotate_args(compiled, args, model.codec.rotation(state))
        move = Move(compiled.rule.name, args)
        state = game.apply(state, move)
        trace.append(move, state)
        chains = model.chains(state)
        if partial is not None:
            chain = chains[partial[0]][:partial[1]]
        else:
            matching = [c for c in chains if model.codec.encode(c[-1][1] if c else state) == child_key]
            if not matching:
                raise AssertionError(f"replaying {move} does not reach the stored state")
            chain = matching[0]
        for forced, _ in chain:
            forced_move = Move(forced.rule.name, ())
            state = game.apply(state, forced_move)
            trace.append(forced_move, state)
        return state


def explore(model: Model, properties: tuple[Property, ...] = (), limits: Limits = Limits(), *,
            deadlocks: bool = True, record_edges: bool = False, stop_when_decided: bool = True,
            by_elections: bool = False, progress: Any = None,
            stop_on: frozenset[str] = frozenset()) -> Exploration:
    """Breadth-first search of `model`, checking `properties` (state and move kinds) on the
    fly; see the module docstring. `progress(states, depth)` is called now and then.

    With `by_elections` the search is a 0-1 BFS over elected governments instead of moves:
    level e holds exactly the states whose fewest elections from the start is e (moves of
    the election rule cost 1, every other move 0), so the first hit of a property is at the
    fewest elections it needs. Election steps are held back, properties inside them
    included, until the level they lead to.
    """
    properties = tuple(p for p in properties if p.state is not None or p.move is not None)
    result = Exploration(model, properties)
    codec = model.codec
    encode, decode = codec.encode, codec.decode
    open_mask = (1 << len(properties)) - 1
    checks = compile_checks(model.game, properties)
    state_checks, move_checks = checks.state, checks.move
    phase_index = model.phase_index
    index: dict[int, int] = {}
    keys = result.keys
    parent, parent_move = result.parent, result.parent_move
    layers = result.layers
    offsets, targets, edge_moves, edge_elections, over = (array("q"), array("i"), array("B"), array("B"),
                                                          array("B"))
    election_rules = {c.index for c in model.game.rules if c.rule.name == ELECTION_RULE}
    deferred: list[tuple[int, Any, int]] = []
    started = time.perf_counter()
    deadline = started + limits.time_limit if limits.time_limit is not None else None
    max_states = limits.max_states

    stopped = False

    def fire(bits: int, hit: Hit) -> None:
        nonlocal open_mask, state_checks, move_checks, stopped
        for bit, prop in enumerate(properties):
            if bits >> bit & 1 and open_mask >> bit & 1:
                result.hits[prop.name] = hit
                open_mask &= ~(1 << bit)
                stopped = stopped or prop.name in stop_on
        recompiled = compile_checks(model.game, properties, open_mask)
        state_checks, move_checks = recompiled.state, recompiled.move

    def decided() -> bool:
        if stopped:
            return True
        return stop_when_decided and not open_mask and not record_edges and (not deadlocks or
                                                                             result.deadlock is not None)

    def inside(state: Any, step: Step, position: int, code: int, depth: int) -> None:
        """Check the move, the forced moves and the states inside a fused step."""
        check = move_checks[step.rule.index]
        if check is not None:
            bits = check(state, step.after, *step.args)
            if bits:
                fire(bits, Hit(None, position, code, step.chain_number, 0, depth))
        if not step.chain:
            return
        before = step.after
        for number, (_, after) in enumerate(((None, step.after),) + step.chain[:-1]):
            check = state_checks[after[phase_index]]
            if check is not None:
                bits = check(after)
                if bits:
                    fire(bits, Hit(None, position, code, step.chain_number, number, depth))
        for number, (forced, after) in enumerate(step.chain):
            check = move_checks[forced.index]
            if check is not None:
                bits = check(before, after)
                if bits:
                    fire(bits, Hit(None, position, code, step.chain_number, number + 1, depth))
            before = after

    def store(final: Any, key: int, from_id: int, code: int, depth: int) -> int:
        target = len(keys)
        index[key] = target
        keys.append(key)
        parent.append(from_id)
        parent_move.append(code)
        check = state_checks[final[phase_index]]
        if check is not None:
            bits = check(final)
            if bits:
                fire(bits, Hit(target, depth=depth))
        return target

    try:
        initial = model.initial()
        store(initial, encode(initial), -1, 0, 0)
        layers.append(0)
        position = 0
        next_layer = 1
        while not decided():
            if position == len(keys):
                if not deferred:
                    break
                layers.append(position)
                level = len(layers) - 1
                held, deferred = deferred, []
                for from_id, step, code in held:
                    inside(decode(keys[from_id]), step, from_id, code, level)
                    key = encode(step.final)
                    if key not in index:
                        store(step.final, key, from_id, code, level)
                continue
            if not by_elections and position == next_layer:
                layers.append(position)
                next_layer = len(keys)
            if limits.max_depth is not None and len(layers) - 1 >= limits.max_depth:
                result.limit = f"limit: depth {limits.max_depth}"
                break
            if position % CHECK_EVERY == 0:
                if progress is not None:
                    progress(len(keys), len(layers) - 1)
                now = time.perf_counter()
                if deadline is not None and now > deadline:
                    result.limit = f"limit: time {limits.time_limit:g} s"
                    break
                if limits.memory_limit is not None and resident_mib() > limits.memory_limit:
                    result.limit = f"limit: memory {limits.memory_limit:,} MiB"
                    break
            if max_states is not None and len(keys) > max_states:
                result.limit = f"limit: {max_states:,} states"
                break
            state = decode(keys[position])
            if record_edges:
                offsets.append(len(targets))
                over.append(1 if model.is_over(state) else 0)
            successors = 0
            depth = len(layers) - 1
            for step in model.steps(state):
                successors += 1
                compiled = step.rule
                code = model.encode_move(compiled, step.args)
                if by_elections and compiled.index in election_rules:
                    deferred.append((position, step, code))
                    continue
                inside(state, step, position, code, depth + (0 if by_elections else 1))
                final = step.final
                try:
                    key = encode(final)
                except OutOfRange as error:
                    result.out_of_range = Hit(None, position, code, step.chain_number, len(step.chain),
                                              depth + (0 if by_elections else 1))
                    result.range_error = str(error)
                    raise
                target = index.get(key)
                if target is None:
                    target = store(final, key, position, code, depth + (0 if by_elections else 1))
                if record_edges:
                    targets.append(target)
                    edge_moves.append(1 + len(step.chain))
                    edge_elections.append(1 if compiled.index in election_rules else 0)
            result.transitions += successors
            if successors == 0 and not model.is_over(state) and result.deadlock is None and deadlocks:
                result.deadlock = Hit(position, depth=depth)
            position += 1
        result.complete = position == len(keys) and not deferred and not result.limit and not stopped
        if stopped:
            result.limit = "stopped at a decisive hit"
    except OutOfRange as error:
        result.limit = f"state out of range: {error}"
        result.complete = False
    result.states = len(keys)
    result.depth = len(layers) - 1
    result.seconds = time.perf_counter() - started
    if record_edges and result.complete:
        offsets.append(len(targets))
        result.graph = Graph(offsets, targets, edge_moves, edge_elections, over)
    return result


def trace_along(exploration: Exploration, ids: list[int] | tuple[int, ...]) -> Trace:
    """The trace through stored states `ids` (each one a successor of the one before),
    starting with the shortest trace to the first of them."""
    model = exploration.model
    encode = model.codec.encode
    game = model.game
    state = game.initial_state()
    trace = Trace(game, state)
    for _, code, child in exploration.path(ids[0]):
        state = exploration._replay_step(trace, state, code, None, exploration.keys[child])
    for source, target in zip(ids, ids[1:]):
        canonical = model.codec.decode(exploration.keys[source])
        wanted = exploration.keys[target]
        for step in model.steps(canonical):
            if encode(step.final) == wanted:
                code = model.encode_move(step.rule, step.args)
                state = exploration._replay_step(trace, state, code, None, wanted)
                break
        else:
            raise AssertionError(f"state {target} is not a successor of state {source}")
    return trace
