"""Breadth-first exploration of the state graph, with properties checked on the fly.

The explorer walks `verify.explicit.model.Model` (the engine's compiled rules under exact
reductions) from the initial state, before the deal: the role deal and the first
President are chance moves, so every deal is explored. States are stored packed
(codec.py) in a dict from key to id; per id it keeps the parent's id and the move
(one int each, in `array`s), so the shortest trace to any state is rebuilt by replaying
those moves through the engine (`trace_to`), which also re-checks every move's legality.

Each property fires at most once, at the first (shallowest) state or move where it does:
an `always`/`never` then has its counterexample, a `sometimes` its witness, an `allows`
the state where the move it asks for is wanting, an `only` the move it does not allow
(both checked over all of a state's moves at once). When every property has fired and no
graph property is asked, the search stops early. Deadlocks
(a stored state that is not over and has no move) are found on the fly. With
`record_edges` the explorer also keeps the graph (successor ids and, per edge, the moves
and elections it stands for) for graphs.py.

Limits (`verify.results.Limits`): states, seconds, resident memory, BFS depth. A search
stopped by a limit says so in `limit`; nothing it did not see is ever reported as proved
(check.py).

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
from random import Random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.game import Move
from engine.trace import Trace
from spec.properties import Property

from ..clock import Budget
from ..results import Limits as Limits  # re-exported: the callers of explore import it from here
from ..results import StopReason
from .codec import OutOfRange, PackedKeys
from .model import Model, Step
from engine.propcheck import compile_allowances, compile_checks

ELECTION_ROLE = "election"
"""The role of the rules whose moves count as elected governments (as `Trace.elections`
counts them)."""

CHECK_EVERY = 2048
"""Expansions between two looks at the clock and the memory."""


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

    offsets: array[int]
    targets: array[int]
    moves: array[int]       # moves each edge stands for (1 + forced moves)
    elections: array[int]   # elected governments on each edge (0 or 1)
    over: array[int]        # 1 where the state is a finished game


@dataclass(slots=True)
class Exploration:
    """What a search found: counts, hits, the first deadlock, and whether it was complete.

    `peak_mib` is the largest resident memory sampled while searching (every CHECK_EVERY
    expansions), `largest_layer` the most states the search held in its index at once
    (every stored state for the breadth-first search; the pending layers for the sweep,
    sweep.py). `keys` is a list, or packed bytes when the sweep keeps memory down."""

    model: Model
    properties: tuple[Property, ...]
    states: int = 0
    transitions: int = 0
    seconds: float = 0.0
    depth: int = 0
    complete: bool = False
    limit: str = ""
    stop: StopReason = StopReason.OTHER     # which limit `limit` says stopped it
    hits: dict[str, Hit] = field(default_factory=dict)
    deadlock: Hit | None = None
    out_of_range: Hit | None = None
    range_error: str = ""
    loop: Hit | None = None         # random games (`walk`): a state whose move returns to an earlier state of the game
    graph: Graph | None = None
    keys: list[int] | PackedKeys = field(default_factory=list)
    parent: array[int] = field(default_factory=lambda: array("q"))
    parent_move: array[int] = field(default_factory=lambda: array("q"))
    layers: list[int] = field(default_factory=list)
    peak_mib: float = 0.0
    largest_layer: int = 0

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
            by_elections: bool = False, progress: Callable[[int, int], object] | None = None,
            stop_on: frozenset[str] = frozenset()) -> Exploration:
    """Breadth-first search of `model`, checking `properties` (state and move kinds) on the
    fly; see the module docstring. `progress(states, depth)` is called now and then.

    With `by_elections` the search is a 0-1 BFS over elected governments instead of moves:
    level e holds exactly the states whose fewest elections from the start is e (moves of
    the election rule cost 1, every other move 0), so the first hit of a property is at the
    fewest elections it needs. Election steps are held back, properties inside them
    included, until the level they lead to.
    """
    search = _Search(model, properties, limits, deadlocks, record_edges, stop_when_decided, by_elections, progress,
                     stop_on)
    return search.run()


class _Search:
    """One run of `explore`: the stored states, the open properties and the graph so far."""

    def __init__(self, model: Model, properties: tuple[Property, ...], limits: Limits, deadlocks: bool,
                 record_edges: bool, stop_when_decided: bool, by_elections: bool,
                 progress: Callable[[int, int], object] | None, stop_on: frozenset[str] = frozenset()) -> None:
        self.properties = tuple(p for p in properties if p.state is not None or p.move is not None)
        self.result = Exploration(model, self.properties)
        self.model = model
        self.limits = limits
        self.deadlocks, self.record_edges, self.stop_when_decided = deadlocks, record_edges, stop_when_decided
        self.by_elections = by_elections
        self.progress = progress
        self.stop_on = stop_on
        self.stopped = False
        self.open_mask = (1 << len(self.properties)) - 1
        checks = compile_checks(model.game, self.properties)
        self.state_checks, self.move_checks = checks.state, checks.move
        self.allowances = compile_allowances(model.game, self.properties)
        self.index: dict[int, int] = {}
        self.offsets, self.targets = array("q"), array("i")
        self.edge_moves, self.edge_elections, self.over = array("B"), array("B"), array("B")
        self.election_rules = {c.index for c in model.game.by_role[ELECTION_ROLE]}
        self.deferred: list[tuple[int, Step, int]] = []
        self.started = time.perf_counter()
        self.budget = Budget.started(limits.time_limit)

    def run(self) -> Exploration:
        """Search level by level until every property is decided, a limit stops it, or no
        state is left; then the counts, and the graph when it was recorded and complete."""
        result, model, limits = self.result, self.model, self.limits
        keys, layers = result.keys, result.layers
        decode = model.codec.decode
        max_states = limits.max_states
        try:
            initial = model.initial()
            self.store(initial, model.codec.encode(initial), -1, 0, 0)
            layers.append(0)
            position = 0
            next_layer = 1
            while not self.decided():
                if position == len(keys):
                    if not self.deferred:
                        break
                    self.release_elections()
                    continue
                if not self.by_elections and position == next_layer:
                    layers.append(position)
                    next_layer = len(keys)
                if limits.max_depth is not None and len(layers) - 1 >= limits.max_depth:
                    result.limit, result.stop = f"limit: depth {limits.max_depth}", StopReason.DEPTH
                    break
                if position % CHECK_EVERY == 0:
                    if self.progress is not None:
                        self.progress(len(keys), len(layers) - 1)
                    result.limit = self.clock_or_memory()
                    if result.limit:
                        break
                if max_states is not None and len(keys) > max_states:
                    result.limit, result.stop = f"limit: {max_states:,} states", StopReason.STATES
                    break
                self.expand(position, decode(keys[position]), len(layers) - 1)
                position += 1
            result.complete = position == len(keys) and not self.deferred and not result.limit and not self.stopped
            if self.stopped:
                result.limit = "stopped at a decisive hit"
        except OutOfRange as error:
            result.limit = f"state out of range: {error}"
            result.complete = False
        result.states = len(keys)
        result.largest_layer = len(self.index)
        result.depth = len(layers) - 1
        result.seconds = time.perf_counter() - self.started
        result.peak_mib = max(result.peak_mib, resident_mib())
        if self.record_edges and result.complete:
            self.offsets.append(len(self.targets))
            result.graph = Graph(self.offsets, self.targets, self.edge_moves, self.edge_elections, self.over)
        return result

    def walks(self, walks: int, max_length: int, rng: Random) -> Exploration:
        """`walk`: up to `walks` random games, each stopped at `max_length` steps."""
        result, model = self.result, self.model
        try:
            initial = model.initial()
            self.store(initial, model.codec.encode(initial), -1, 0, 0)
            for _ in range(walks):
                if self.stopped or self.clock_or_memory():
                    break
                self.one_game(initial, max_length, rng)
        finally:
            result.limit = "random games: no complete search"
            result.complete = False
            result.states = len(result.keys)
            result.seconds = time.perf_counter() - self.started
        return result

    def one_game(self, initial: Any, max_length: int, rng: Random) -> None:
        """One random game from `initial`, each state and move checked, each new state
        stored; it ends when the game does, at `max_length` steps, or at a finding: a
        deadlock, a value out of range, or a return to one of its own states (the game
        can go on for ever), which stops the walks (`stopped`)."""
        result, model = self.result, self.model
        encode, decode = model.codec.encode, model.codec.decode
        position, state, depth = 0, initial, 0
        seen_in_game = {0}
        for _ in range(max_length):
            steps = list(model.steps(state))
            result.transitions += len(steps)
            self.permissions(state, steps, position, depth, depth + 1)
            if not steps:
                if not model.is_over(state) and result.deadlock is None:
                    result.deadlock = Hit(position, depth=depth)
                    self.stopped = True
                return
            step = steps[rng.randrange(len(steps))]
            code = model.encode_move(step.rule, step.args)
            depth += 1
            self.inside(state, step, position, code, depth)
            try:
                key = encode(step.final)
            except OutOfRange as error:
                result.out_of_range = Hit(None, position, code, step.chain_number, len(step.chain), depth)
                result.range_error = str(error)
                self.unstored(step.final, result.out_of_range)
                self.stopped = True
                return
            target = self.index.get(key)
            if target in seen_in_game and result.loop is None:
                result.loop = Hit(position, depth=depth)   # the move closes a cycle: no end
                self.stopped = True
            position = target if target is not None else self.store(step.final, key, position, code, depth)
            seen_in_game.add(position)
            if self.stopped:
                return
            state = decode(key)

    def clock_or_memory(self) -> str:
        """The limit the clock (the work done, or the wall-clock backstop: `Budget`) or
        the resident memory has reached ('' for none); the memory read is kept as the
        peak so far."""
        limits, result = self.limits, self.result
        resident = resident_mib()
        result.peak_mib = max(result.peak_mib, resident)
        spent = self.budget.spent()
        if spent:
            result.stop = StopReason.TIME
            return spent
        if limits.memory_limit is not None and resident > limits.memory_limit:
            result.stop = StopReason.MEMORY
            return f"limit: memory {limits.memory_limit:,} MiB"
        return ""

    def expand(self, position: int, state: Any, depth: int) -> None:
        """Every step from the stored state `position`: checked, stored when new, recorded
        as an edge; election steps held back in a search by elections."""
        model, result = self.model, self.result
        encode = model.codec.encode
        index, targets, election_rules = self.index, self.targets, self.election_rules
        by_elections, record_edges = self.by_elections, self.record_edges
        if record_edges:
            self.offsets.append(len(targets))
            self.over.append(1 if model.is_over(state) else 0)
        successors = 0
        steps = list(model.steps(state))
        self.permissions(state, steps, position, depth, depth + (0 if by_elections else 1))
        for step in steps:
            successors += 1
            compiled = step.rule
            code = model.encode_move(compiled, step.args)
            if by_elections and compiled.index in election_rules:
                self.deferred.append((position, step, code))
                continue
            self.inside(state, step, position, code, depth + (0 if by_elections else 1))
            final = step.final
            try:
                key = encode(final)
            except OutOfRange as error:
                result.out_of_range = Hit(None, position, code, step.chain_number, len(step.chain),
                                          depth + (0 if by_elections else 1))
                result.range_error = str(error)
                self.unstored(final, result.out_of_range)
                raise
            target = index.get(key)
            if target is None:
                target = self.store(final, key, position, code, depth + (0 if by_elections else 1))
            if record_edges:
                targets.append(target)
                self.edge_moves.append(1 + len(step.chain))
                self.edge_elections.append(1 if compiled.index in election_rules else 0)
        result.transitions += successors
        if successors == 0 and not model.is_over(state) and result.deadlock is None and self.deadlocks:
            result.deadlock = Hit(position, depth=depth)

    def permissions(self, state: Any, steps: list[Step], position: int, depth: int, step_depth: int) -> None:
        """Fire the permissions (`allows`) wanted in `state` that none of its `steps` gives
        (at the state, `depth`), and the obligations (`only`) wanted there that one of them
        breaks (at that move, `step_depth`)."""
        wanted_in = self.allowances.wanted[state[self.model.phase_index]]
        wanted = wanted_in(state) if wanted_in is not None else 0
        if not wanted:
            return
        given, only, model = 0, self.allowances.only, self.model
        for step in steps:
            allowed = self.allowances.given[step.rule.index]
            this = allowed(state, step.after, *step.args) if allowed is not None else 0
            given |= this
            if wanted & only & ~this:
                code = model.encode_move(step.rule, step.args)
                self.fire(wanted & only & ~this, Hit(None, position, code, step.chain_number, 0, step_depth))
        if wanted & ~only & ~given:
            self.fire(wanted & ~only & ~given, Hit(position, depth=depth))

    def release_elections(self) -> None:
        """A search by elections ran out of states at this level: the held-back election
        steps make the next level."""
        keys, layers = self.result.keys, self.result.layers
        decode, encode = self.model.codec.decode, self.model.codec.encode
        layers.append(len(keys))
        level = len(layers) - 1
        held, self.deferred = self.deferred, []
        for from_id, step, code in held:
            self.inside(decode(keys[from_id]), step, from_id, code, level)
            key = encode(step.final)
            if key not in self.index:
                self.store(step.final, key, from_id, code, level)

    def fire(self, bits: int, hit: Hit) -> None:
        """The properties of `bits` still open fire at `hit`; the checks are recompiled without them."""
        for bit, prop in enumerate(self.properties):
            if bits >> bit & 1 and self.open_mask >> bit & 1:
                self.result.hits[prop.name] = hit
                self.open_mask &= ~(1 << bit)
                self.stopped = self.stopped or prop.name in self.stop_on
        recompiled = compile_checks(self.model.game, self.properties, self.open_mask)
        self.state_checks, self.move_checks = recompiled.state, recompiled.move
        self.allowances = compile_allowances(self.model.game, self.properties, self.open_mask)

    def decided(self) -> bool:
        """Whether the search may stop: a property of `stop_on` fired, or every property
        fired and nothing else is asked."""
        if self.stopped:
            return True
        return self.stop_when_decided and not self.open_mask and not self.record_edges and (
            not self.deadlocks or self.result.deadlock is not None)

    def inside(self, state: Any, step: Step, position: int, code: int, depth: int) -> None:
        """Check the move, the forced moves and the states inside a fused step."""
        check = self.move_checks[step.rule.index]
        if check is not None:
            bits = check(state, step.after, *step.args)
            if bits:
                self.fire(bits, Hit(None, position, code, step.chain_number, 0, depth))
        if not step.chain:
            return
        phase_index = self.model.phase_index
        before = step.after
        for number, (_, after) in enumerate(((None, step.after),) + step.chain[:-1]):
            check = self.state_checks[after[phase_index]]
            if check is not None:
                bits = check(after)
                if bits:
                    self.fire(bits, Hit(None, position, code, step.chain_number, number, depth))
        for number, (forced, after) in enumerate(step.chain):
            check = self.move_checks[forced.index]
            if check is not None:
                bits = check(before, after)
                if bits:
                    self.fire(bits, Hit(None, position, code, step.chain_number, number + 1, depth))
            before = after

    def unstored(self, final: Any, hit: Hit) -> None:
        """The state checks on a state the codec cannot store (a value out of range): the
        search ends there, but what else that state breaks (the deck no longer conserved,
        say) is a finding too, for the properties a checker can decide where the range
        property itself is left undecided."""
        check = self.state_checks[final[self.model.phase_index]]
        if check is not None:
            bits = check(final)
            if bits:
                self.fire(bits, hit)

    def store(self, final: Any, key: int, from_id: int, code: int, depth: int) -> int:
        """A new state stored under the next id, with its parent and move; its state checks run."""
        result = self.result
        target = len(result.keys)
        self.index[key] = target
        result.keys.append(key)
        result.parent.append(from_id)
        result.parent_move.append(code)
        check = self.state_checks[final[self.model.phase_index]]
        if check is not None:
            bits = check(final)
            if bits:
                self.fire(bits, Hit(target, depth=depth))
        return target


def walk(model: Model, properties: tuple[Property, ...], walks: int, seconds: float, seed: int = 0, *,
         stop_on: frozenset[str] = frozenset(), max_length: int = 2_000) -> Exploration:
    """Random games through `model` (each step uniform among the state's transitions), the
    properties checked on every state and move exactly as the breadth-first search checks
    them; states are stored with their parents, so a hit's trace is the game that found it
    (not the shortest). Deadlocks and values out of range are found as in `explore`.

    A walk can only find: it never completes, so nothing it did not hit is decided. The
    mutation analysis uses it to kill a mutant in seconds before any complete search."""
    search = _Search(model, properties, Limits(None, seconds, None), True, False, True, False, None, stop_on)
    return search.walks(walks, max_length, Random(seed))


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
