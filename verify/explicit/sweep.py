"""The sweep-line search (Christensen, Kristensen & Mailund 2001): the breadth-first
explorer's findings with only a few layers of states in memory.

Every move strictly lowers the spec's ranking (spec/invariants.toml `[ranking]`, proved by
the solver; or one found in played games, verify/smt/rank.py, passed in), so a state only reaches
states of lower rank. The sweep expands states by decreasing rank: a layer is the states
of one rank value, and once a layer is expanded nothing can generate its states again, so
they leave the index. The index (key -> id) then holds the pending layers only, not the
graph; every state keeps its key (packed, codec.PackedKeys), its best parent and move and
its distance in compact arrays, for traces.

Because the order is topological, a state's fewest moves from the start (or fewest
elected governments, `by_elections`) is final once its layer is reached: every
predecessor was expanded before. A state keeps the parent on its shortest path, so traces
are shortest, as the breadth-first search's are. The search cannot stop at a first hit
(a shallower one may come later), so every property keeps its shallowest hit, and so do
the deadlock and the value out of range (which ends nothing here: the search goes on
without that state, for the shallowest one, and is incomplete).

The ranking is checked on every move, on the canonical states the search stores: a
successor whose measure is not strictly lower (a reduction dropped a field the measure
reads, a variant the ranking does not fit, a move that returns to its state) stops the
sweep with that reason as its `limit` (`NOT_DECREASING`): incomplete, never a wrong
result, and the caller can fall back to the breadth-first explorer.

Graph facts: when the sweep is complete every move lowered the measure, so the graph is
acyclic; `terminates` then holds iff there is no deadlock. With `longest` the sweep also
keeps, per state, the longest game to it in moves and in elections (a DP over the DAG in
topological order), which gives the longest game and its path without the recorded
graph of explore.py / graphs.py; the export of the graph (`shrules graph`) stays with
the breadth-first explorer.
"""

from __future__ import annotations

import heapq
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from engine.game import Game
from engine.pycompile import compile_expression
from spec.invariants import Measure, load_invariants
from spec.properties import Property

from ..results import StopReason
from .codec import OutOfRange, PackedKeys
from .explore import CHECK_EVERY, Exploration, Hit, Limits, _Search, resident_mib
from .graphs import GraphFacts
from .model import Model, Step

NOT_DECREASING = "limit: the ranking does not decrease"
"""The start of a sweep's `limit` when a move did not lower the measure."""

ELECTION_WEIGHT = 1 << 32
"""A search by elections orders distances as (elections, moves): elections weigh more
than any number of moves a game can make."""


class _Stop(Exception):
    """The sweep ends early: `limit` says why."""

    def __init__(self, limit: str, stop: StopReason) -> None:
        super().__init__(limit)
        self.limit, self.stop = limit, stop


@dataclass(slots=True)
class Swept(Exploration):
    """A sweep's exploration: with `longest`, the graph facts of a complete sweep."""

    facts: GraphFacts | None = None


def ranking_of(game: Game) -> Measure | None:
    """The spec's ranking (spec/invariants.toml), or None (a variant's schema may not
    express it). A ranking found in played games (verify/smt/rank.py `find_ranking`) is
    the caller's to pass to `compiled_measure`: the explicit checker does not import the
    solver's package."""
    return load_invariants(game.spec).ranking


def compiled_measure(game: Game, measure: Measure | None = None) -> Callable[[Any], int] | None:
    """A ranking as a Python function of a state (`ranking_of` unless given), or None.
    Nothing is assumed of it: the sweep checks that every move lowers it."""
    measure = measure or ranking_of(game)
    if measure is None:
        return None
    spec = load_invariants(game.spec).spec      # the ranking may use the file's definitions
    function: Callable[[Any], int] = compile_expression(spec, game.players, measure.measure)
    return function


def measure_failed(exploration: Exploration) -> bool:
    """Whether a sweep stopped because the measure did not decrease (so it says nothing)."""
    return exploration.stop is StopReason.NO_RANKING


def sweep(model: Model, properties: tuple[Property, ...] = (), limits: Limits = Limits(), *,
          measure: Callable[[Any], int] | None = None, deadlocks: bool = True, by_elections: bool = False,
          longest: bool = False, progress: Callable[[int, int], object] | None = None,
          stop_on: frozenset[str] = frozenset()) -> Swept:
    """The sweep-line search of `model` (see the module docstring), checking `properties`
    as `explore` does; `measure` is the compiled ranking (`compiled_measure` of the game
    when None). `progress(states, rank)` is called now and then."""
    if measure is None:
        measure = compiled_measure(model.game)
    if measure is None:
        swept = Swept(model, properties, limit="limit: no ranking to sweep by", stop=StopReason.NO_RANKING)
        return swept
    search = _Sweep(model, properties, limits, measure, deadlocks, by_elections, longest, progress, stop_on)
    return search.sweep()


class _Sweep(_Search):
    """One run of `sweep`: the pending layers, the per-state arrays and the best hits."""

    def __init__(self, model: Model, properties: tuple[Property, ...], limits: Limits,
                 measure: Callable[[Any], int], deadlocks: bool, by_elections: bool, longest: bool,
                 progress: Callable[[int, int], object] | None, stop_on: frozenset[str]) -> None:
        super().__init__(model, properties, limits, deadlocks, False, False, by_elections, progress, stop_on)
        self.swept = Swept(model, self.properties)
        self.result = self.swept
        self.measure = measure
        self.keys = PackedKeys(model.codec.bits)
        self.result.keys = self.keys
        self.result.parent = array("i")
        self.cost = array("q" if by_elections else "i")
        self.pending: dict[int, dict[int, int]] = {}
        self.ranks: list[int] = []          # heap of the pending ranks, negated
        self.held = 0
        self.flagged: dict[int, int] = {}   # state id -> state properties it fires, until expanded
        self.hit_cost: dict[str, int] = {}
        self.deadlock_cost = self.range_cost = -1
        self.deadlock_count = 0
        self.longest = longest
        self.long_moves, self.long_elections, self.long_parent = array("i"), array("i"), array("i")
        self.expanded = 0
        self.cut = False                    # a state at the depth limit was left unexpanded

    # ------------------------------------------------------------------ the sweep

    def sweep(self) -> Swept:
        """Expand the layers by decreasing rank until none is left or the search stops;
        then the counts, and the graph facts of a complete sweep asked for them."""
        result, model = self.swept, self.model
        try:
            initial = model.initial()
            self.add(model.codec.encode(initial), self.measure(initial), -1, 0, 0)
            while self.ranks and not self.stopped:
                rank = -heapq.heappop(self.ranks)
                self.expand_layer(rank, self.pending.pop(rank))
            if self.stopped:
                result.limit = "stopped at a decisive hit"
            elif result.out_of_range is not None:
                result.limit = f"state out of range: {result.range_error}"
            elif self.cut:
                result.limit, result.stop = f"limit: depth {self.limits.max_depth}", StopReason.DEPTH
            else:
                result.complete = True
        except _Stop as stop:
            result.limit, result.stop = stop.limit, stop.stop
        result.states = len(self.keys)
        result.seconds = time.perf_counter() - self.started
        result.peak_mib = max(result.peak_mib, resident_mib())
        result.depth = max(self.cost) // (ELECTION_WEIGHT if self.by_elections else 1) if self.cost else 0
        if self.longest and result.complete and self.deadlock_count == 0:
            result.facts = self.facts()
        return result

    def expand_layer(self, rank: int, layer: dict[int, int]) -> None:
        """Expand every state of one rank; then the layer leaves the index."""
        decode, limits = self.model.codec.decode, self.limits
        max_states = limits.max_states
        for key, position in layer.items():
            if self.expanded % CHECK_EVERY == 0:
                self.look(rank)
            if max_states is not None and len(self.keys) > max_states:
                raise _Stop(f"limit: {max_states:,} states", StopReason.STATES)
            self.expanded += 1
            cost = self.cost[position]
            if limits.max_depth is not None and self.shown(cost) >= limits.max_depth:
                self.cut = True         # as deep as asked: stored, checked, not expanded
                bits = self.flagged.pop(position, 0)
                if bits:
                    self.fire(bits, Hit(position, depth=cost))
                continue
            self.expand_state(position, decode(key), rank, cost)
            if self.stopped:
                return
        self.held -= len(layer)

    def look(self, rank: int) -> None:
        """Progress, and the limits of the clock and the memory."""
        if self.progress is not None:
            self.progress(len(self.keys), rank)
        limit = self.clock_or_memory()
        if limit:
            raise _Stop(limit, self.result.stop)

    def expand_state(self, position: int, state: Any, rank: int, cost: int) -> None:
        """Every step from one state whose distance is final: checked, its successor
        stored or given a shorter parent; the state's own properties fire now, at their
        final distance."""
        model, result = self.model, self.result
        bits = self.flagged.pop(position, 0)
        if bits:
            self.fire(bits, Hit(position, depth=cost))
        steps = list(model.steps(state))
        # An `only` broken by a move counts that move as one step, election or not: a
        # search by elections is asked for wins (`sometimes`), never for permissions.
        self.permissions(state, steps, position, cost, cost + 1)
        for step in steps:
            self.follow(position, state, step, rank, cost)
        result.transitions += len(steps)
        if not steps and not model.is_over(state) and self.deadlocks:
            self.deadlock_count += 1
            if self.deadlock_cost < 0 or cost < self.deadlock_cost:
                self.deadlock_cost = cost
                result.deadlock = Hit(position, depth=self.shown(cost))

    def follow(self, position: int, state: Any, step: Step, rank: int, cost: int) -> None:
        """One step: its checks, the measure's decrease, its successor."""
        model = self.model
        compiled = step.rule
        code = model.encode_move(compiled, step.args)
        election = compiled.index in self.election_rules
        step_cost = cost + 1 + (ELECTION_WEIGHT if self.by_elections and election else 0)
        self.inside(state, step, position, code, step_cost)
        final = step.final
        try:
            key = model.codec.encode(final)
        except OutOfRange as error:
            self.out_of_range(error, Hit(None, position, code, step.chain_number, len(step.chain), step_cost),
                              final)
            return
        following = self.measure(model.codec.canonical(final))
        if following >= rank:
            raise _Stop(f"{NOT_DECREASING}: {compiled.rule.name} goes from rank {rank} to {following} "
                        f"after {self.shown(cost)} {'elections' if self.by_elections else 'moves'}",
                        StopReason.NO_RANKING)
        layer = self.pending.get(following)
        if layer is None:
            layer = self.pending[following] = {}
            heapq.heappush(self.ranks, -following)
        target = layer.get(key)
        if target is None:
            target = self.add(key, following, position, code, step_cost, final, layer)
        elif step_cost < self.cost[target]:
            self.result.parent[target] = position
            self.result.parent_move[target] = code
            self.cost[target] = step_cost
        if self.longest:
            self.lengthen(position, target, 1 + len(step.chain), 1 if election else 0)

    def add(self, key: int, rank: int, parent: int, code: int, cost: int, final: Any = None,
            layer: dict[int, int] | None = None) -> int:
        """A new state under the next id, pending in its rank's layer; its state checks
        run now and fire when it is expanded."""
        result = self.result
        target = len(self.keys)
        if layer is None:
            layer = self.pending[rank] = {}
            heapq.heappush(self.ranks, -rank)
        layer[key] = target
        self.held += 1
        if self.held > result.largest_layer:
            result.largest_layer = self.held
        self.keys.append(key)
        result.parent.append(parent)
        result.parent_move.append(code)
        self.cost.append(cost)
        if self.longest:
            self.long_moves.append(0)
            self.long_elections.append(0)
            self.long_parent.append(-1)
        state = final if final is not None else self.model.codec.decode(key)
        check = self.state_checks[state[self.model.phase_index]]
        if check is not None:
            bits = check(state)
            if bits:
                self.flagged[target] = bits
        return target

    def out_of_range(self, error: OutOfRange, hit: Hit, final: Any) -> None:
        """A successor the codec cannot store: kept when it is the shallowest so far; the
        sweep goes on without it."""
        cost = hit.depth
        if self.range_cost < 0 or cost < self.range_cost:
            self.range_cost = cost
            self.result.out_of_range = replace(hit, depth=self.shown(cost))
            self.result.range_error = str(error)
        self.unstored(final, hit)

    # ------------------------------------------------------------------ hits

    def shown(self, cost: int) -> int:
        """A distance as reported: moves, or elections in a search by elections."""
        return cost // ELECTION_WEIGHT if self.by_elections else cost

    def fire(self, bits: int, hit: Hit) -> None:
        """The properties of `bits` keep `hit` when it is shallower than theirs (its
        `depth` is the distance in the sweep's own order, reported as `shown`)."""
        cost = hit.depth
        reported = replace(hit, depth=self.shown(cost))
        for bit, prop in enumerate(self.properties):
            if bits >> bit & 1:
                best = self.hit_cost.get(prop.name)
                if best is None or cost < best:
                    self.hit_cost[prop.name] = cost
                    self.result.hits[prop.name] = reported
                    self.stopped = self.stopped or prop.name in self.stop_on

    # ------------------------------------------------------------------ longest game

    def lengthen(self, source: int, target: int, moves: int, elections: int) -> None:
        """The longest game to `target` through the edge from `source` (exact once every
        predecessor of `target` is expanded, as the topological order ensures)."""
        if self.long_moves[source] + moves > self.long_moves[target]:
            self.long_moves[target] = self.long_moves[source] + moves
            self.long_parent[target] = source
        if self.long_elections[source] + elections > self.long_elections[target]:
            self.long_elections[target] = self.long_elections[source] + elections

    def facts(self) -> GraphFacts:
        """The facts of a complete sweep without deadlock: acyclic (every move lowered the
        measure), every state can end, the longest game in moves and elections."""
        longest_moves = max(self.long_moves)
        end = self.long_moves.index(longest_moves)
        path = [end]
        while self.long_parent[path[-1]] >= 0:
            path.append(self.long_parent[path[-1]])
        result = self.result
        return GraphFacts(result.states, result.transitions, True, (), 0, 0, longest_moves,
                          max(self.long_elections), tuple(reversed(path)))
