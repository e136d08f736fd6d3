"""The catalogue decided by the layered search: hits, deadlocks and graph facts over arrays.

The layered search (layers.py) takes a whole rank of states at once; this module is the
`Watch` that checks every property there as the reference searches check it state by
state (explore.py `_Search.expand`, `inside`, `permissions`): state properties on every
stored state and on the states inside fused chains, move properties on every decision
and forced move, permissions (`allows`) on the moves of each state together and
obligations (`only`) on each move; deadlocks; values out of range. The checks are the
properties compiled to arrays (engine/batchcheck.py).

What it keeps is the shallowest hit of each property: a state's fewest decisions from the
start is final when its layer is taken, so the least over every hit is the length of the
shortest game that shows it, as a breadth-first search finds. A hit is an id, or an id
and a move for what fires inside a move; after the sweep, `exploration()` turns them into
the reference's `Exploration`, whose traces are replayed through the engine. Where in a
move's forced chain a hit lies is found there again by the engine's own compiled checks
(propcheck.py), so each trace is checked by a second compilation of the same property:
the two disagreeing is an error, never a verdict.

With the graph facts, each hit of a property reporting elections also keeps the fewest
elected governments to it and its predecessors on such a game (`layers.VIA`), and the
search keeps the longest game: `terminates`, with its longest game, and the fewest
elections of each win come out of the same sweep.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.batchcheck import BatchChecks, Fired, compile_batch_checks
from engine.batched import BatchRule, Rows
from engine.propcheck import compile_allowances, compile_checks
from engine.trace import Trace
from spec.properties import Property

from ..results import Limits
from .codec import OutOfRange
from .explore import ELECTION_ROLE, Exploration, Hit, trace_along
from .graphs import GraphFacts
from .keys import Words
from .layers import Layered, LayeredSearch, LayerProgress
from .model import RULE_BITS, Model, Step
from .reductions import dealt_reads
from .scratch import scratch

Array = npt.NDArray[np.int64]
Bool = npt.NDArray[np.bool_]


@dataclass(slots=True)
class _Best:
    """The shallowest hit of one property so far: its cost (decisions, or elections)
    and where: a state id, or a state id and a move code."""

    cost: int
    state: int
    move: int | None = None


class PropertyWatch:
    """The `Watch` of layers.py checking `properties` (see the module docstring)."""

    def __init__(self, model: Model, properties: tuple[Property, ...], *, deadlocks: bool,
                 elections: bool, stop_on: frozenset[str] = frozenset(), whole: bool = False) -> None:
        game = model.game
        self.model = model
        self.properties = properties
        # A move property reading a dealt field the search drops (reductions.py (e)) is
        # checked apart, on each move widened to every value the deal could give.
        self.deals = model.deals
        self.dealt = frozenset(number for number, prop in enumerate(properties)
                               if dealt_reads(prop, game.spec, model.plan.dealt))
        self.checks: BatchChecks = compile_batch_checks(game, properties, skip=self.dealt)
        self.dealt_checks: BatchChecks | None = (
            compile_batch_checks(game, properties, skip=frozenset(range(len(properties))) - self.dealt)
            if self.dealt else None)
        self.phase = game.phase_index
        self.deadlocks = deadlocks
        self.whole = whole
        self.by_elections = frozenset(number for number, prop in enumerate(properties)
                                      if elections and prop.kind == "sometimes" and prop.report == "elections")
        self.stop_on = frozenset(number for number, prop in enumerate(properties) if prop.name in stop_on)
        # Their hits only send them to a search with the field kept (check.py): one
        # stops nothing and counts no elections here.
        self.stop_on -= self.dealt
        self.by_elections -= self.dealt
        self.stopped = False
        self.election_rule = np.zeros(1 << RULE_BITS, dtype=np.int64)
        for compiled in game.by_role[ELECTION_ROLE]:
            self.election_rule[compiled.index] = 1
        self.best: dict[int, _Best] = {}
        self.fewest: dict[int, _Best] = {}
        self.deadlock: _Best | None = None
        self.range: _Best | None = None
        self.range_error = ""
        self.longest: tuple[int, int] = (-1, -1)        # (moves, state id)
        # The part being expanded: its first id, each state's depth and fewest elections,
        # and the permissions wanted and given in it.
        self.first = 0
        self.depth: Array = np.zeros(0, dtype=np.int64)
        self.elections: Array | None = None
        self.wanted: dict[int, Bool] = {}
        self.given: dict[int, Bool] = {}

    # -------------------------------------------------------------- Watch

    def part(self, states: Array, first_id: int, values: dict[str, Array]) -> None:
        """A layer's part: its state checks; the permissions wanted in it, judged once
        its moves are seen (`expanded`)."""
        self.first = first_id
        self.depth = values["depth"].astype(np.int64)
        fewest = values.get("fewest_elections")
        self.elections = None if fewest is None else fewest.astype(np.int64)
        if "longest" in values and len(values["longest"]):
            at = int(np.argmax(values["longest"]))
            moves = int(values["longest"][at])
            if moves > self.longest[0]:
                self.longest = (moves, first_id + at)
        for columns, fired in self._by_phase(self.checks.state, states):
            for number, where in zip(*fired):
                if where.any():
                    self._state_hit(number, columns[where])
        self.wanted = {}
        self.given = {}
        for columns, fired in self._by_phase(self.checks.wanted, states):
            for number, where in zip(*fired):
                if where.any():
                    wanted = self.wanted.setdefault(number, np.zeros(states.shape[1], dtype=bool))
                    wanted[columns[where]] = True
        for number in self.wanted:
            self.given[number] = np.zeros(states.shape[1], dtype=bool)

    def moved(self, rule: BatchRule, before: Rows, after: Array, args: list[Array], origin: Array,
              move: Array) -> None:
        """Decisions: the move checks of their rule; the permissions they give and the
        obligations they break."""
        every = np.arange(after.shape[1])
        check = self.checks.move[rule.index]
        if check is not None:
            self._move_hits(check(before, Rows(after, every, slice(None)), *args), origin, move)
        if self.dealt_checks is not None and self.dealt_checks.move[rule.index] is not None:
            whole = before.states.take(before.games, axis=1)
            self._dealt_hits(rule.index, whole, after, list(args), origin, move)
        if not self.wanted:
            return
        given = self.checks.given[rule.index]
        satisfied: dict[int, Bool] = {}
        if given is not None:
            numbers, fired = given(before, Rows(after, every, slice(None)), *args)
            satisfied = dict(zip(numbers, fired))
        for number, wanted in self.wanted.items():
            these = satisfied.get(number)
            if these is not None:
                self.given[number][origin[these]] = True
            if number in self.checks.only:
                broken = wanted[origin] if these is None else wanted[origin] & ~these
                if broken.any():
                    self._move_hit(number, origin[broken], move[broken])

    def forced(self, rule: BatchRule, before: Array, after: Array, origin: Array, move: Array) -> None:
        """A forced move inside chains: the state checks on the state before it (inside
        the chain), the move checks of its rule."""
        columns = np.arange(before.shape[1])
        for picked, fired in self._by_phase(self.checks.state, before):
            self._move_hits(fired, origin[picked], move[picked])
        check = self.checks.move[rule.index]
        if check is not None:
            self._move_hits(check(Rows(before, columns, slice(None)), Rows(after, columns, slice(None))),
                            origin, move)
        if self.dealt_checks is not None and self.dealt_checks.move[rule.index] is not None:
            self._dealt_hits(rule.index, before, after, [], origin, move)

    def expanded(self) -> None:
        """Every move of the part seen: the permissions wanted and given by none."""
        for number, wanted in self.wanted.items():
            missing = wanted & ~self.given[number]
            if missing.any() and number not in self.checks.only:
                self._state_hit(number, np.flatnonzero(missing))

    def stuck(self, columns: Array) -> None:
        """Deadlocks: the shallowest is kept."""
        if not self.deadlocks:
            return
        at = columns[np.argmin(self.depth[columns])]
        depth = int(self.depth[at])
        if self.deadlock is None or depth < self.deadlock.cost:
            self.deadlock = _Best(depth, self.first + int(at))

    def unstorable(self, after: Array, origin: Array, move: Array, problem: Callable[[Array], str]) -> None:
        """Successors out of range: the shallowest kept with its reason; what else they
        break fires as any successor would (the deck no longer conserved, say)."""
        cost = self.depth[origin] + 1
        at = int(np.argmin(cost))
        if self.range is None or int(cost[at]) < self.range.cost:
            self.range = _Best(int(cost[at]), self.first + int(origin[at]), int(move[at]))
            self.range_error = problem(after[:, at:at + 1])
        for picked, fired in self._by_phase(self.checks.state, after):
            self._move_hits(fired, origin[picked], move[picked])

    def settled(self, least: dict[str, int]) -> bool:
        """Every property has fired no farther from the start than `least` (and, for a
        win that reports elections, with no more elections than any pending state has),
        and neither deadlocks nor the graph facts (`whole`) were asked: the rest of the
        sweep can change nothing (see `Watch.settled`). A tie keeps the hit found first,
        as long as any other."""
        if self.deadlocks or self.whole or not self.properties or len(self.best) < len(self.properties):
            return False        # (with nothing asked, the sweep itself is what was asked for)
        if any(best.cost > least["depth"] for best in self.best.values()):
            return False
        if not self.by_elections:
            return True
        elections = least.get("fewest_elections")
        return elections is not None and all(
            number in self.fewest and self.fewest[number].cost <= elections for number in self.by_elections)

    # -------------------------------------------------------------- hits

    def _by_phase(self, checks: tuple[Any, ...], states: Array) -> Iterator[tuple[Array, Fired]]:
        """Each phase's check over the columns in that phase."""
        phases = states[self.phase]
        for phase in np.unique(phases).tolist():
            check = checks[phase]
            if check is None:
                continue
            columns = np.flatnonzero(phases == phase)
            yield columns, check(Rows(states, columns))

    def _dealt_hits(self, rule: int, before: Array, after: Array, args: list[Array], origin: Array,
                    move: Array) -> None:
        """The checks of the properties reading a dealt field, on the moves widened to
        every value the deal could give beside them: a move fires where any value does.
        The deal's own moves set the fields: they are checked as made."""
        assert self.dealt_checks is not None and self.deals is not None
        check = self.dealt_checks.move[rule]
        assert check is not None
        if rule == self.deals.rule:
            every = np.arange(after.shape[1])
            self._move_hits(check(Rows(before, every, slice(None)), Rows(after, every, slice(None)), *args),
                            origin, move)
            return
        copies, wide_before, wide_after, wide_args = self.deals.widen(before, after, args)
        every = np.arange(len(copies))
        numbers, fired = check(Rows(wide_before, every, slice(None)), Rows(wide_after, every, slice(None)),
                               *wide_args)
        for number, where in zip(numbers, fired):
            if where.any():
                hit = np.zeros(len(origin), dtype=bool)
                hit[copies[where]] = True
                self._move_hit(number, origin[hit], move[hit])

    def _move_hits(self, fired: Fired, origin: Array, move: Array) -> None:
        for number, where in zip(*fired):
            if where.any():
                self._move_hit(number, origin[where], move[where])

    def _state_hit(self, number: int, columns: Array) -> None:
        at = columns[np.argmin(self.depth[columns])]
        self._keep(self.best, number, int(self.depth[at]), self.first + int(at), None)
        if number in self.by_elections and self.elections is not None:
            at = columns[np.argmin(self.elections[columns])]
            self._keep(self.fewest, number, int(self.elections[at]), self.first + int(at), None)

    def _move_hit(self, number: int, origin: Array, move: Array) -> None:
        at = int(np.argmin(self.depth[origin]))
        self._keep(self.best, number, int(self.depth[origin[at]]) + 1, self.first + int(origin[at]), int(move[at]))
        if number in self.by_elections and self.elections is not None:
            cost = self.elections[origin] + self.election_rule[move & ((1 << RULE_BITS) - 1)]
            at = int(np.argmin(cost))
            self._keep(self.fewest, number, int(cost[at]), self.first + int(origin[at]), int(move[at]))

    def _keep(self, into: dict[int, _Best], number: int, cost: int, state: int, move: int | None) -> None:
        best = into.get(number)
        if best is None or cost < best.cost:
            into[number] = _Best(cost, state, move)
        if number in self.stop_on:
            self.stopped = True


# ---------------------------------------------------------------------- the exploration

class _Layers:
    """A per-layer column of the search's paths, read by state id."""

    def __init__(self, columns: list[Array], starts: Array) -> None:
        self.columns = columns
        self.starts = starts

    def __getitem__(self, state: int) -> int:
        layer = int(np.searchsorted(self.starts, state, side="right")) - 1
        return int(self.columns[layer][state - int(self.starts[layer])])


class _Keys:
    """The codec's key of a state id, from the packed words the search kept."""

    def __init__(self, search: LayeredSearch, words: list[Words], starts: Array) -> None:
        self.search = search
        self.words = words
        self.starts = starts

    def state(self, state: int) -> tuple[int, ...]:
        layer = int(np.searchsorted(self.starts, state, side="right")) - 1
        column = state - int(self.starts[layer])
        values = self.search.unpacked(self.words[layer][:, column:column + 1])
        return tuple(int(value) for value in values[:, 0])

    def __getitem__(self, state: int) -> int:
        return int(self.search.model.codec.encode(self.state(state)))

    def __len__(self) -> int:
        return int(self.starts[-1]) + self.words[-1].shape[1] if self.words else 0

    def __iter__(self) -> Iterator[int]:
        """Every key in id order, a layer unpacked at once (a scan of every state, as the
        frontier's, would otherwise unpack them one by one)."""
        encode = self.search.model.codec.encode
        for words in self.words:
            values = self.search.unpacked(words)
            for column in values.T.tolist():
                yield int(encode(tuple(column)))


class LayeredExploration(Exploration):
    """The reference's `Exploration` of a layered search: hits as the breadth-first search
    records them, keys, parents and moves read from the layers kept, the fewest-elections
    hits and the graph facts beside."""

    elected: dict[str, Hit]
    elected_ids: dict[str, list[int]]
    facts: GraphFacts | None
    settled: bool = False       # stopped with every hit as near as a complete search's (`SETTLED`)
    dealt_fired: tuple[str, ...] = ()   # properties that fired for some dealt value (reductions.py (e))
    breadth_first: bool = False         # swept breadth-first over a visited set (layers.py `BREADTH_FIRST`)

    def trace_of(self, ids: list[int], hit: Hit | None) -> Trace:
        """The trace through the stored states `ids` (from the initial state), then the
        move of `hit` to where it fired inside it."""
        trace = trace_along(self, ids)
        if hit is not None and hit.parent is not None:
            self._replay_step(trace, trace.end, hit.move, (hit.chain, hit.prefix), None)
        return trace


def _path_ids(via: _Layers, state: int) -> list[int]:
    """The ids from the initial state to `state` along a predecessor column (-1: none)."""
    ids = [state]
    while (before := via[ids[-1]]) >= 0:
        ids.append(before)
    ids.reverse()
    return ids


def locate(model: Model, state: Any, code: int, prop: Property) -> tuple[int, int] | None:
    """Where in the move `code` from the stored `state` the engine's own compiled checks
    fire `prop`: (chain number, states into the chain), as explore.py's `inside` and
    `permissions` record a hit; None if they nowhere do."""
    checks = compile_checks(model.game, (prop,))
    allowances = compile_allowances(model.game, (prop,))
    phase = model.phase_index
    for step in _steps_with(model, state, code):
        if allowances.only:
            wanted = allowances.wanted[state[phase]]
            given = allowances.given[step.rule.index]
            if wanted is not None and wanted(state) and not (given is not None and given(state, step.after,
                                                                                          *step.args)):
                return step.chain_number, 0
            continue
        check = checks.move[step.rule.index]
        if check is not None and check(state, step.after, *step.args):
            return step.chain_number, 0
        inside = ((None, step.after),) + step.chain[:-1] if step.chain else ()
        for number, (_, after) in enumerate(inside):
            state_check = checks.state[after[phase]]
            if state_check is not None and state_check(after):
                return step.chain_number, number
        before = step.after
        for number, (forced, after) in enumerate(step.chain):
            forced_check = checks.move[forced.index]
            if forced_check is not None and forced_check(before, after):
                return step.chain_number, number + 1
            before = after
        final_check = checks.state[step.final[phase]]
        if final_check is not None:
            try:
                model.codec.encode(step.final)
            except OutOfRange:
                if final_check(step.final):     # an unstorable successor fires where it ends
                    return step.chain_number, len(step.chain)
    return None


def _steps_with(model: Model, state: Any, code: int) -> Iterator[Step]:
    for step in model.steps(state):
        if model.encode_move(step.rule, step.args) == code:
            yield step


def out_of_range_at(model: Model, state: Any, code: int) -> tuple[int, int]:
    """The chain of the move `code` from `state` whose final state the codec cannot store."""
    for step in _steps_with(model, state, code):
        try:
            model.codec.encode(step.final)
        except OutOfRange:
            return step.chain_number, len(step.chain)
    raise AssertionError("the move found out of range by the arrays is in range for the engine")


def layered_exploration(model: Model, properties: tuple[Property, ...], limits: Limits, *,
                        deadlocks: bool = True, graph: bool = False, elections: bool = False,
                        stop_on: frozenset[str] = frozenset(),
                        progress: Callable[[int, int], object] | None = None,
                        breadth_first: bool = False, by_elections: bool = False) -> LayeredExploration:
    """A layered search of `model` checking `properties`, as the reference's `Exploration`
    (with `graph`, its `facts`; with `elections`, the fewest-elections hits).

    `breadth_first`: the layers by the fewest decisions over a set of every state taken,
    for rules whose games can go round (layers.py `BREADTH_FIRST`): every hit is as
    shallow as by the ranking, but neither the graph facts (the longest game: `terminates`
    is the caller's, cycles.py) nor the fewest elections come out of it. With
    `by_elections` too, its layers come by the fewest elections first (layers.py
    `ELECTIONS_FIRST`): each hit is then on a game with the fewest elections, as the
    reference's search by elections finds it."""
    search = LayeredSearch(model)
    breadth_first = breadth_first or by_elections
    graph_facts = graph and not breadth_first
    elections = elections and not breadth_first
    watch = PropertyWatch(model, properties, deadlocks=deadlocks, elections=elections, stop_on=stop_on,
                          whole=graph)

    def on_layer(step: LayerProgress) -> None:
        if progress is not None:
            progress(step.states, -step.rank if breadth_first else step.rank)
    # The paths go to disk a layer at a time, mapped back for the few traces read from
    # them; the files are gone once the search is over (the mappings stay readable).
    with scratch("shrules-paths-") as folder:
        layered = search.run(limits, paths=True, facts=graph_facts or elections, progress=on_layer, watch=watch,
                             spill=folder, breadth_first=breadth_first, by_elections=by_elections)
    result = _exploration(model, properties, search, layered, watch, graph_facts)
    result.breadth_first = breadth_first
    return result


def _exploration(model: Model, properties: tuple[Property, ...], search: LayeredSearch, layered: Layered,
                 watch: PropertyWatch, graph: bool) -> LayeredExploration:
    result = LayeredExploration(model, properties)
    result.states, result.transitions = layered.states, layered.transitions
    result.seconds, result.depth = layered.seconds, layered.depth
    result.complete, result.settled = layered.complete, layered.settled
    result.limit = layered.limit
    result.peak_mib, result.largest_layer = layered.peak_mib, layered.largest_layer
    sizes = [0] + [words.shape[1] for words in layered.keys]
    starts = np.cumsum(np.array(sizes, dtype=np.int64))
    keys = _Keys(search, layered.keys, starts[:-1] if len(starts) > 1 else starts)
    result.keys = keys      # type: ignore[assignment]     # read by id, as a list is
    result.parent = _Layers(layered.parent, keys.starts)    # type: ignore[assignment]
    result.parent_move = _Layers(layered.parent_move, keys.starts)   # type: ignore[assignment]
    result.elected, result.elected_ids, result.facts = {}, {}, None
    for number, best in watch.best.items():
        if number in watch.dealt:
            # Fired on a move with a dealt value beside it: not a game of the reduced
            # graph, so no trace; the caller searches again with the field kept.
            result.dealt_fired += (properties[number].name,)
            continue
        result.hits[properties[number].name] = _hit(model, keys, properties[number], best)
    if watch.deadlock is not None:
        result.deadlock = Hit(watch.deadlock.state, depth=watch.deadlock.cost)
    if watch.range is not None:
        assert watch.range.move is not None
        chain, prefix = out_of_range_at(model, keys.state(watch.range.state), watch.range.move)
        result.out_of_range = Hit(None, watch.range.state, watch.range.move, chain, prefix, watch.range.cost)
        result.range_error = watch.range_error
    if layered.long_via or layered.elect_via:
        elect_via = _Layers(layered.elect_via, keys.starts)
        for number, best in watch.fewest.items():
            name = properties[number].name
            result.elected[name] = _hit(model, keys, properties[number], best)
            result.elected_ids[name] = _path_ids(elect_via, best.state)
    if graph and result.complete and layered.deadlocks == 0 and watch.longest[1] >= 0:
        path = _path_ids(_Layers(layered.long_via, keys.starts), watch.longest[1])
        result.facts = GraphFacts(result.states, result.transitions, True, (), 0, 0, layered.longest_moves,
                                  layered.longest_elections, tuple(path))
    return result


def _hit(model: Model, keys: _Keys, prop: Property, best: _Best) -> Hit:
    """A kept hit as explore.py records it: a move's hit located in its chain by the engine."""
    if best.move is None:
        return Hit(best.state, depth=best.cost)
    where = locate(model, keys.state(best.state), best.move, prop)
    if where is None:
        raise AssertionError(f"the arrays fire {prop.name!r} on a move where the engine does not")
    return Hit(None, best.state, best.move, where[0], where[1], best.cost)
