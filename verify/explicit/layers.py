"""The sweep-line search over numpy: every state of one rank expanded at once.

The search of sweep.py takes its states one at a time through the engine's compiled
Python; this one takes a whole layer through the rules compiled to array operations
(engine/batched.py), so that a rule costs a few dozen numpy calls per layer instead of a
few dozen Python calls per state. The walk is the same: the model's reductions
(symmetry, vote representatives, cone of influence, fused forced moves; reductions.py),
the moves of `Model.steps` and the states of `Model.codec`, in the order of the spec's
ranking (spec/invariants.toml `[ranking]`).

Why by rank. Every move lowers the ranking, so once the states of the highest pending
rank are taken, nothing can generate them again: they are complete and free of
duplicates after one sort, with no set of every state seen (which a breadth-first
search needs, and which costs a random memory access per successor). A layer is all
the pending states of one rank: the ranking counts progress and the stage of the round,
so a layer is a few phases' states, and its successors fall into a few lower ranks.
Memory is the pending layers, held as packed keys (keys.py), not the graph
(Christensen, Kristensen & Mailund 2001).

Each state's fewest decisions from the start is final when its layer is taken (every
predecessor was expanded before), so the duplicates keep the shortest; with `paths` the
search keeps every state's key, parent and move, for traces, as sweep.py does. With
`facts`, the duplicates also merge the longest game to the state (in moves and in
elections) and the fewest elections to it: the graph is acyclic and taken in
topological order, so these dynamic programmes are exact layer by layer.

What it checks as it goes: a move that does not lower the ranking stops the search
(`NOT_DECREASING`, incomplete, as in sweep.py); a value outside its declared range stops
it (incomplete: the reference searches report where); a state that is not over and has
no move is a deadlock, counted. Nothing is reported complete unless every layer was
expanded within the limits.

Rules with no ranking every move lowers (games that can go round: a veto that leaves the
Election Tracker where it was) are swept breadth-first instead (`BREADTH_FIRST`): a layer
is every state of one fewest number of decisions from the start, and a set of every state
taken (visited.py) drops a successor met before, so that a cycle is closed, not searched
round again. Each state's fewest decisions are final when its layer is taken, as by the
ranking; the graph facts (longest games, fewest elections) are not, and are not kept.
"""

from __future__ import annotations

import errno
import itertools
import math
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

import numpy as np
import numpy.typing as npt

from engine.batched import BatchedGame, BatchRule, HandOver, Rows, compile_batch_expression
from engine.game import MAX_FORCED
from spec.invariants import Measure, load_invariants
from spec.lang import nodes as n

from ..clock import Budget
from ..results import Halt, Limits, StopReason
from .abstraction import batch_projector
from .codec import field_bounds
from .explore import ELECTION_ROLE, resident_mib
from .keys import Words, distinct_groups, mixed, pack_rows, places, unpack_rows
from .model import ARG_BITS, RULE_BITS, Model
from .sweep import NOT_DECREASING, ranking_of
from .tally import Tally
from .visited import Visited

Array = npt.NDArray[np.int64]

CHUNK = 1 << 13
"""States of a layer expanded together: a layer of millions is taken in parts whose
arrays stay in the processor's caches (a 7-player layer at once ran at half the speed;
at 6 players 8,192 took 3.8 s, 4,096 4.0-4.2 s and 16,384 4.2 s)."""

HANDED_OVER = "a value the arrays cannot hold"
"""How a search's `limit` goes on when a value passed a bound of the language the arrays
hand over to the one-game engine (engine/batched.py `HandOver`)."""

BREADTH_FIRST = "breadth-first over a set of every state taken"
"""How a layered search sweeps rules without a ranking (module docstring)."""

ELECTIONS_FIRST = 1 << 10
"""A breadth-first sweep by elections counts a state's depth as elections × this +
decisions (as sweep.py's `ELECTION_WEIGHT`), so that its layers come by the fewest
elections, then the fewest decisions, and a hit's depth orders games the same way: the
first hit of a win is on a game with the fewest elections. Small, so that the depth and
a column still pack into one word (keys.py `distinct_groups`); a game of more decisions
with no election between stops the sweep (a limit, never a verdict)."""

NO_RANKING = "no ranking to sweep by"
"""The end of a search's `limit` when the rules have no ranking: nothing to sweep by."""

SORT_BYTES = 64
"""Bytes per state the sort of a layer takes beside the layer itself (keys.distinct_groups:
the packed hashes, columns, groups and leaders, a few int64s each)."""

MAX_SLICES = 64
"""Slices a layer may be sorted in when it does not fit at once: each reads the layer's
file again, so past this the search stops at the memory limit instead."""

PACE_AFTER = 3.0
"""Seconds of work (verify/clock.py) a search does before its pace is judged (`_hopeless`)."""

PACE_MARGIN = 2.0
"""How far beyond the time limit the pace must point before a search is cut early."""

STOPPED = "stopped at a decisive hit"
"""The `limit` of a search its watch stopped (a property the caller needed only once fired)."""

SETTLED = "stopped: every property has fired, and no state left to search is nearer the start than its hit"
"""The `limit` of a search its watch `settled`: what it found is what a complete search finds."""

NEAREST = ("depth", "fewest_elections")
"""What each pending layer keeps the least of (`_Pending.least`): the fewest decisions
and elections of any state still to search bound those of every hit yet to come."""

OUT_OF_RANGE = "state out of range"
"""How `limit` begins when a value left its declared range: a finding about the rules
(the search stops there), not a limit of the search."""

TABLED = 1 << 18
"""Largest table of an expression's values over the fields it reads (`_tabled`)."""

CELLS = 1 << 22
"""Most candidate moves judged in one call (candidates × states): a vote's Ja sets at 10
players are 1,024 per state when listed one by one."""


# ---------------------------------------------------------------------- result

@dataclass(slots=True)
class Layered:
    """What a layered search found: counts, deadlocks, and whether it was complete.

    `largest_layer` is the most successors waiting at once, counted as they were put
    aside (duplicates included, also those a merge has since removed: `_Pending.size`);
    `projected` the distinct states on SPIN's abstraction when asked for and
    complete."""

    players: int
    states: int = 0
    transitions: int = 0
    layers: int = 0
    depth: int = 0
    seconds: float = 0.0
    complete: bool = False
    settled: bool = False               # stopped early with nothing nearer to find (`SETTLED`)
    limit: str = ""
    deadlocks: int = 0
    largest_layer: int = 0
    peak_mib: float = 0.0
    out_of_range: bool = False          # with a watch: successors were left out (`Watch.unstorable`)
    projected: int | None = None
    projection_seconds: float = 0.0                             # CPU of projecting, within `seconds`
    per_depth: dict[int, int] = field(default_factory=dict)     # states by fewest decisions
    longest_moves: int | None = None                            # with facts: the longest game, in moves
    longest_elections: int | None = None                        # ... and in elected governments
    fewest_elections: dict[tuple[int, int], int] = field(default_factory=dict)   # (winner, how) -> fewest
    ends: dict[tuple[int, int], int] = field(default_factory=dict)               # finished states by outcome
    keys: list[Words] = field(default_factory=list)             # with `paths`: per layer
    parent: list[npt.NDArray[Any]] = field(default_factory=list)        # int32 where it fits (`_narrowed`)
    parent_move: list[npt.NDArray[Any]] = field(default_factory=list)
    long_via: list[npt.NDArray[Any]] = field(default_factory=list)      # with paths and facts: the ids
    elect_via: list[npt.NDArray[Any]] = field(default_factory=list)     # of `VIA`, -1 for none


@dataclass(slots=True)
class _Pending:
    """Successors waiting for their rank's turn: the states (as keys: `pack`ed stored
    fields, some two words where the fields take 30 int64s) and what each
    column carries: its fewest decisions from the start; with paths, its parent and
    move; with facts (`FACTS`), the longest game to it in moves and in elections and
    the fewest elections. `least`: the least of each of `NEAREST` it carries.

    The parts held in memory are merged without their duplicates whenever those added
    since take `SPILL_BUFFER` bytes (`compact`). Once the successors in memory take
    `PENDING_IN_MEMORY`, a layer's later parts go to its one file on disk: gathered in
    `buffered` first, then appended together as one record without the duplicates among
    them (`records`: the states in each; `dropped`: the duplicates removed), so that a
    10-player search opens a file per flush and layer, not per part (a file per part,
    opened and parsed, cost more than its bytes: a third of the spilling time at 7
    players). `size` counts every successor put aside, duplicates included.

    With `distinct` False the parts are rows that must all be kept (the odds' pass,
    odds_layers.py: rows of one state carry masses summed only when their layer is
    taken), so a record is the parts joined, nothing dropped."""

    states: list[npt.NDArray[Any]] = field(default_factory=list)
    carried: dict[str, list[Array]] = field(default_factory=dict)
    size: int = 0
    least: dict[str, int] = field(default_factory=dict)
    memory: int = 0                                         # bytes of its parts held in memory
    file: str | None = None                                 # its later parts, written to disk
    records: list[int] = field(default_factory=list)        # states per record of `file`
    disk: int = 0                                           # their bytes
    dropped: int = 0                                        # duplicates removed (`compact`, `flush`)
    fresh: int = 0                                          # bytes held in memory since `compact`
    compacted: int = 0                                      # parts of `states` already compacted
    buffered: list[tuple[npt.NDArray[Any], dict[str, Array]]] = field(default_factory=list)
    buffered_bytes: int = 0                                 # parts waiting to be appended to `file`
    layout: tuple[int, Any, dict[str, Any]] | None = None   # a record's key words and dtypes
    distinct: bool = True                                   # duplicates merged when written

    @property
    def spilling(self) -> bool:
        """Whether its parts go to disk now (once one did, every later one does: `load`
        reads them back in the order they came)."""
        return self.file is not None or bool(self.buffered)

    def flush(self, folder: str) -> None:
        """The buffered parts appended to the layer's file as one record without the
        duplicates among them (`_merged`): the keys, then each carried column in
        `carried`'s order, raw."""
        if not self.buffered:
            return
        keys, columns = self._merged([part for part, _ in self.buffered],
                                     {name: [carried[name] for _, carried in self.buffered] for name in self.carried})
        if self.file is None:
            self.file = os.path.join(folder, f"pending-{next(_PARTS)}.bin")
            self.layout = keys.shape[0], keys.dtype, {name: column.dtype for name, column in columns.items()}
        with open(self.file, "ab") as out:
            for array in (keys, *columns.values()):
                out.write(np.ascontiguousarray(array).data)
        self.records.append(keys.shape[1])
        self.disk += keys.nbytes + sum(column.nbytes for column in columns.values())
        self.buffered.clear()
        self.buffered_bytes = 0

    def compact(self) -> int:
        """The parts held in memory since the last compaction (`fresh` bytes of them)
        merged into one without their duplicates, as `flush` writes a record; the bytes
        this frees."""
        first, freed = self.compacted, 0
        if len(self.states) - first > 1:
            keys, columns = self._merged(self.states[first:],
                                         {name: parts[first:] for name, parts in self.carried.items()})
            del self.states[first:]
            self.states.append(keys)
            for name, parts in self.carried.items():
                del parts[first:]
                parts.append(columns[name])
            freed = self.fresh - keys.nbytes - sum(column.nbytes for column in columns.values())
            self.memory -= freed
        self.compacted = len(self.states)
        self.fresh = 0
        return freed

    def _merged(self, keys: list[Words], columns: dict[str, list[Array]]) -> tuple[Words, dict[str, Array]]:
        """Parts of the layer joined and merged without their duplicates
        (`_without_duplicates`), the duplicates counted in `dropped`. A record or a
        compaction holds the successors of many parts of one layer, which meet the same
        states again and again: at 7 players a fifth of a record's were distinct."""
        joined = np.concatenate(keys, axis=1)
        if not self.distinct:
            return joined, {name: np.concatenate(parts) for name, parts in columns.items()}
        merged, values = _without_duplicates(joined, {name: np.concatenate(parts) for name, parts in columns.items()})
        self.dropped += joined.shape[1] - merged.shape[1]
        return merged, values

    def slice(self, number: int, slices: int) -> tuple[list[Words], dict[str, list[Array]]]:
        """The `number`th of `slices` parts of the layer, split by the hash of the keys
        (keys.mixed: equal keys fall in the same slice), in the order they came: those
        in memory, those on disk read a record at a time, those still buffered. The
        layer is left as it was, for the next slice."""
        states: list[Words] = []
        carried: dict[str, list[Array]] = {name: [] for name in self.carried}

        def keep(keys: Words, columns: dict[str, Array]) -> None:
            chosen = np.flatnonzero(mixed(keys) % np.uint64(slices) == np.uint64(number))
            states.append(keys.take(chosen, axis=1))
            for name in carried:
                carried[name].append(columns[name][chosen])

        for index, keys in enumerate(self.states):
            keep(keys, {name: columns[index] for name, columns in self.carried.items()})
        for keys, columns in self._records():
            keep(keys, columns)
        for keys, columns in self.buffered:
            keep(keys, columns)
        return states, carried

    def _records(self) -> Iterator[tuple[Words, dict[str, Array]]]:
        """The records of the layer's file, read one at a time (the keys, then each
        carried column, as `flush` wrote them)."""
        if self.file is None or self.layout is None:
            return
        words, key_type, types = self.layout
        with open(self.file, "rb") as source:
            for count in self.records:
                keys = np.fromfile(source, dtype=key_type, count=words * count).reshape(words, count)
                yield keys, {name: np.fromfile(source, dtype=types[name], count=count) for name in self.carried}

    def discard(self) -> None:
        """The layer done with: its parts dropped, its file removed."""
        if self.file is not None:
            os.remove(self.file)
        self.file, self.records = None, []
        self.states.clear()
        self.carried.clear()
        self.buffered.clear()
        self.buffered_bytes = 0

    def load(self) -> None:
        """The parts written to disk read back after those in memory, and then those
        still buffered (the order they came in), the file removed."""
        for keys, columns in self._records():
            self.states.append(keys)
            for name, parts in self.carried.items():
                parts.append(columns[name])
        if self.file is not None:
            os.remove(self.file)
            self.file, self.records = None, []
        for keys, columns in self.buffered:
            self.states.append(keys)
            for name, parts in self.carried.items():
                parts.append(columns[name])
        self.buffered.clear()
        self.buffered_bytes = 0


@dataclass(frozen=True, slots=True)
class LayerProgress:
    """Where a layered search stands after a layer: the ranking falls from `top` to 0 at
    most, so the share of it swept is a true measure of the work done (by layers; the
    layers in the middle of the game are the largest)."""

    states: int
    layers: int
    pending: int
    rank: int
    top: int
    seconds: float
    mib: float

    @property
    def swept(self) -> float:
        """The share of the ranking's range swept, 0 to 1."""
        return (self.top - self.rank) / self.top if self.top > 0 else 1.0

    @property
    def states_per_second(self) -> float:
        return self.states / self.seconds if self.seconds else 0.0


class Watch(Protocol):
    """What a checker sees of a layered search (verify/explicit/layered_check.py): every
    state of a layer, part by part, and every move made from it, decisions and forced
    moves alike, with the states inside fused chains. Columns are positions in the part
    last given to `part`. `stopped` ends the search after the layer it was set in."""

    stopped: bool

    def part(self, states: Array, first_id: int, values: dict[str, Array]) -> None:
        """The states of a layer's part (ids from `first_id`), with what each carries."""

    def moved(self, rule: BatchRule, before: Rows, after: Array, args: list[Array], origin: Array,
              move: Array) -> None:
        """Decisions of `rule` from the columns `origin`, the states right after them."""

    def forced(self, rule: BatchRule, before: Array, after: Array, origin: Array, move: Array) -> None:
        """A forced move of `rule` inside the chains of the decisions `move` from `origin`:
        the states before it (inside a chain) and after it."""

    def expanded(self) -> None:
        """Every move of the part was given to `moved`."""

    def stuck(self, columns: Array) -> None:
        """States that are not over and have no move."""

    def unstorable(self, after: Array, origin: Array, move: Array, problem: Callable[[Array], str]) -> None:
        """Successors holding a value outside its declared range: the search goes on
        without them and is incomplete; `problem(states)` says which value, in words."""

    def settled(self, least: dict[str, int]) -> bool:
        """Whether the watch has all it needs, with no state still to search nearer the
        start than `least` (fewest decisions, `depth`; with facts, `fewest_elections`):
        the search then stops, and is `SETTLED`. Every layer taken so far had its
        predecessors expanded before it, so a pending state's values can still fall only
        through other pending states: no hit yet to come is nearer than `least`."""


FACTS = ("longest", "most_elections", "fewest_elections")
"""Values carried per state for the graph facts: the most moves and the most elections
of a game reaching it (longest paths of the acyclic graph), and the fewest elections."""

WIDE = ("parent", "move", "long_via", "elect_via")
"""Carried columns that keep 64 bits (ids and move codes); counts of moves fit 32."""

VIA = 40
"""With paths and facts, each state also carries the predecessor on a longest game to it
and on a game with the fewest elections, packed under the value as `value << VIA | id`
(`long_via`, `elect_via`), so that one `maximum.at` / `minimum.at` over the duplicates
keeps the value and its predecessor together: ids stay below 2**40."""


# ---------------------------------------------------------------------- the search

class _Made(NamedTuple):
    """The moves of one rule from some states, before their successors are gathered."""

    rule: BatchRule
    origin: Array               # the column each move leaves from
    move: Array                 # its code (Model.encode_move)
    args: list[Array]           # its arguments
    values: list[Any]           # what it writes to each of `rule.writes`


def ready_columns(rule: BatchRule, states: Array, columns: Array) -> tuple[Array, Rows]:
    """The columns whose state the rule is ready for (its phase, what it needs before any
    candidate is listed), and their rows: the first cut of every rule's moves, shared by
    the search and the odds (odds_layers.py)."""
    rows = Rows(states, columns)
    ready = np.broadcast_to(np.asarray(rule.ready(rows), dtype=bool), (len(columns),))
    if not ready.all():
        columns = columns[ready]
        rows = Rows(states, columns)
    return columns, rows


class LayeredSearch:
    """One game under the model's reductions, searched layer by layer over arrays."""

    def __init__(self, model: Model, measure: Measure | None = None) -> None:
        game = model.game
        self.model = model
        self.game = game
        self.players = game.players
        self.batched = BatchedGame(game)
        measure = measure or ranking_of(game)
        spec = load_invariants(game.spec).spec
        self.phase = game.phase_index
        self.over = game.over_phase
        self.game_phase = np.array(model.game_phase, dtype=bool)
        codec = model.codec
        self.pivot = codec.pivot
        stored = [layout for layout in codec.layouts if layout.bits]
        self.stored = [(layout.index, layout.low, layout.bits) for layout in stored]
        # Where the phase lies in a key (word, shift, bits), to order a layer by it.
        self.phase_key = next(((word, shift, bits) for (row, _, bits), (word, shift)
                               in zip(self.stored, places([bits for _, _, bits in self.stored]))
                               if row == self.phase and bits), None)
        self.seat_rows = [layout.index for layout in stored if layout.kind == "seat"]
        self.seats_rows = [layout.index for layout in stored if layout.kind == "seats"]
        self.fixed = [(layout.index, 0 if layout.index == codec.pivot else layout.default)
                      for layout in codec.layouts if not layout.bits]
        kinds = [game.spec.fields[layout.index].type.kind for layout in stored]
        self.checked = [(layout.index, layout.low, layout.high, layout.name)
                        for layout, kind in zip(stored, kinds) if kind in ("int", "tiles")]
        players = game.players
        seats = np.arange(-1, players)
        by = np.arange(players)[:, None]
        self._seat_table = np.where(seats >= 0, (seats - by) % players, seats).ravel()
        sets = np.arange(1 << players)
        self._seats_table = (((sets >> by) | (sets << (players - by))) & ((1 << players) - 1)).ravel()
        self.representatives = model.representatives
        self.fuse = model.fuse
        self.initial = np.array(model.initial(), dtype=np.int64)[:, None]
        self.election_rule = np.zeros(1 << RULE_BITS, dtype=np.int64)
        for compiled in game.by_role[ELECTION_ROLE]:
            self.election_rule[compiled.index] = 1
        names = game.field_names
        self.winner = names.index("winner") if "winner" in names else None
        self.how = names.index("how") if "how" in names else None
        # What one `run` was asked for, set as it starts and cleared as it ends (`_begin`):
        # nothing of one run is left for the next, nor for a `successors` asked between.
        self._facts = False
        self._vias = False
        self._breadth_first = False
        self._by_elections = False
        self._spill: str | None = None       # where waiting successors go past PENDING_IN_MEMORY
        self._pending_memory = 0
        self._buffered = 0                   # bytes of them gathered for disk (`_Pending.buffered`)
        self.watch: Watch | None = None
        # Called after each forced move of a fused chain with the states and the columns it
        # moved (the odds' pass tests its condition inside the chains: odds_layers.py).
        self.on_forced: Callable[[Array, Array], None] | None = None
        self.rank: Callable[[Rows], Any] | None = (
            None if measure is None else self._tabled(compile_batch_expression(spec, game.players, measure.measure),
                                                      sorted(n.fields_read([measure.measure], spec.definitions))))

    def _tabled(self, function: Callable[[Rows], Any], names: list[str]) -> Callable[[Rows], Any]:
        """`function` of a state as a lookup in a table of its values over every
        combination of the fields it reads, when those are few (the ranking reads five
        small fields: a few thousand entries): one index per state instead of the dozens of
        array operations of its nested conditions. Else `function` itself."""
        game = self.game
        rows = [game.field_names.index(name) for name in names]
        bounds = [field_bounds(game, row) for row in rows]
        sizes = [high - low + 1 for low, high in bounds]
        if not rows or math.prod(sizes) > TABLED:
            return function
        grid = np.stack(np.meshgrid(*[np.arange(low, high + 1) for low, high in bounds], indexing="ij")).reshape(
            len(rows), -1)
        states = np.repeat(self.initial, grid.shape[1], axis=1)
        states[rows] = grid
        try:
            # Combinations no game reaches may divide by zero: their entries are never read.
            with np.errstate(all="ignore"):
                table = np.broadcast_to(np.asarray(function(Rows(states, np.arange(grid.shape[1]), slice(None))),
                                                   dtype=np.int64), (grid.shape[1],)).copy()
        except (HandOver, ArithmeticError, ValueError):
            return function
        strides = [math.prod(sizes[position + 1:]) for position in range(len(sizes))]
        lows = [low for low, _ in bounds]

        def tabled(s: Rows) -> Any:
            code = (s[rows[0]] - lows[0]) * strides[0]
            for row, low, stride in zip(rows[1:], lows[1:], strides[1:]):
                code = code + (s[row] - low) * stride
            return np.take(table, code)
        return tabled

    # -------------------------------------------------------------- moves of a layer

    def successors(self, states: Array) -> tuple[Array, Array, Array, Array, set[int]]:
        """Every stored transition from the states (a column each): the final states
        (forced chains fused, not yet canonical), the column each came from, the move,
        the forced moves that followed it, and the rows any of those moves wrote."""
        phases = states[self.phase]
        order = np.argsort(phases.astype(np.int16), kind="stable")
        counts = np.bincount(phases, minlength=len(self.batched.by_phase))
        made: list[_Made] = []
        written: set[int] = set()
        start = 0
        for phase, count in enumerate(counts.tolist()):
            columns = order[start:start + count]
            start += count
            for rule in self.batched.by_phase[phase] if count else ():
                for chunk in self._chunks(rule, columns):
                    moves_of = self._moves(rule, states, chunk)
                    if moves_of is not None:
                        made.append(moves_of)
        if not made:
            empty = np.zeros(0, dtype=np.int64)
            return np.zeros((len(states), 0), dtype=np.int64), empty, empty, empty, written
        origin = np.concatenate([moves_of.origin for moves_of in made])
        move = np.concatenate([moves_of.move for moves_of in made])
        # One gather of every successor's state, then each rule's writes into its own
        # slice: a gather per rule and a concatenation of them took twice as long.
        after = states.take(origin, axis=1)
        at = 0
        for moves_of in made:
            written.update(moves_of.rule.writes)
            stop = at + len(moves_of.origin)
            for row, value in zip(moves_of.rule.writes, moves_of.values):
                after[row, at:stop] = value
            if self.watch is not None:
                self.watch.moved(moves_of.rule, Rows(states, moves_of.origin), after[:, at:stop], moves_of.args,
                                 moves_of.origin, moves_of.move)
            at = stop
        if self.fuse:
            return (*self._fused(after, origin, move, written), written)
        return after, origin, move, np.zeros(len(move), dtype=np.int64), written

    def _chunks(self, rule: BatchRule, columns: Array) -> list[Array]:
        """The columns in groups whose candidate grid (candidates × states) stays within
        CELLS: a rule with many candidates per state takes fewer states at once."""
        listed = 1
        for position, domain in enumerate(rule.domains):
            most = domain.most()
            listed *= (self.players + 1 if position in self.representatives[rule.index]
                       else most if most is not None else 64)
        step = max(1, CELLS // max(listed, 1))
        return [columns[at:at + step] for at in range(0, len(columns), step)]

    def _moves(self, rule: BatchRule, states: Array, columns: Array) -> _Made | None:
        """The moves of one rule from the given columns: the columns they came from, their
        codes (Model.encode_move), their arguments and the values the rule writes."""
        columns, rows = ready_columns(rule, states, columns)
        width = len(columns)
        if not width:
            return None
        args: list[Array] = []
        if not rule.domains:
            legal = np.broadcast_to(np.asarray(rule.allowed(rows), dtype=bool), (width,))
            if rule.weight is not None:
                legal = legal & (np.asarray(rule.weight(rows)) > 0)
            picked = np.flatnonzero(legal)
        else:
            grid, inside = self._candidates(rule, rows, width)
            legal = inside & np.asarray(rule.allowed(rows, *grid), dtype=bool)
            if rule.weight is not None:
                legal &= np.asarray(rule.weight(rows, *grid)) > 0
            reps = self.representatives[rule.index]
            if reps and len(reps) == len(rule.domains) and all(rep.one for rep in reps.values()):
                # One satisfying value suffices (reductions.py (b)): the first, as Model lists them.
                first = np.argmax(legal, axis=0)
                picked = np.flatnonzero(legal[first, np.arange(width)])
                chosen = first[picked]
            else:
                chosen, picked = np.nonzero(legal)
            args = [np.broadcast_to(values, legal.shape)[chosen, picked] for values in grid]
        if not len(picked):
            return None
        origin = columns[picked]
        values = rule.effect(Rows(states, origin), *args)
        move = np.full(len(origin), rule.index, dtype=np.int64)
        for position, value in enumerate(args):
            move |= (value + 1) << (RULE_BITS + ARG_BITS * position)
        return _Made(rule, origin, move, args, list(values))

    def _candidates(self, rule: BatchRule, rows: Rows, width: int) -> tuple[list[Array], npt.NDArray[np.bool_]]:
        """Every parameter tuple to try, as a grid (a candidate per row, a state per
        column) in the order of `product` over the parameters, and where each lies in
        its domain. A representative parameter takes the lowest k seats of its set, for
        each k (reductions.py (b))."""
        pools: list[tuple[Array, npt.NDArray[np.bool_]]] = []
        for position, domain in enumerate(rule.domains):
            if position in self.representatives[rule.index]:
                assert domain.of is not None
                rest = np.broadcast_to(np.asarray(domain.of(rows), dtype=np.int64), (width,)).copy()
                values = np.zeros((self.players + 1, width), dtype=np.int64)
                inside = np.ones((self.players + 1, width), dtype=bool)
                for size in range(1, self.players + 1):
                    lowest = rest & -rest
                    inside[size] = lowest != 0
                    values[size] = values[size - 1] | lowest
                    rest ^= lowest
                pools.append((values, inside))
            else:
                listed, holds = domain.values(rows)
                column = np.array(listed, dtype=np.int64)[:, None]
                pools.append((column, np.broadcast_to(np.asarray(holds(column), dtype=bool),
                                                      (len(listed), width))))
        sizes = [len(values) for values, _ in pools]
        grid: list[Array] = []
        inside_all = np.ones((*sizes, width), dtype=bool)
        for position, (values, inside) in enumerate(pools):
            shape = [1] * len(pools) + [values.shape[1]]
            shape[position] = sizes[position]
            grid.append(values.reshape(shape))
            inside_all &= inside.reshape([*shape[:-1], width])
        total = int(np.prod(sizes))
        flat = [np.broadcast_to(values, (*sizes, values.shape[-1])).reshape(total, values.shape[-1])
                for values in grid]
        return flat, inside_all.reshape(total, width)

    def _fused(self, after: Array, origin: Array, move: Array, written: set[int]
               ) -> tuple[Array, Array, Array, Array]:
        """Each successor in a game phase taken through its forced moves (Model.chains),
        in place: a chain ends where no game rule holds (stored, found as a deadlock),
        at a move that leaves the state as it was, or past MAX_FORCED moves; where two
        game rules hold the chain branches, and each branch gets a column of its own.
        Returns the states, origins and moves with the forced moves of each chain; adds the rows
        the forced moves write to `written`."""
        forced = np.zeros(len(move), dtype=np.int64)
        active = np.flatnonzero(self.game_phase[after[self.phase]])
        for _ in range(MAX_FORCED):
            if not active.size:
                break
            phases = after[self.phase].take(active)
            onward: list[Array] = []
            for phase in np.flatnonzero(np.bincount(phases)).tolist():     # np.unique sorts: slower
                columns = active[phases == phase]
                rules = self.batched.by_phase[phase]
                if not rules:
                    continue
                enabled = np.array([np.broadcast_to(np.asarray(rule.allowed(Rows(after, columns)), dtype=bool),
                                                    (len(columns),)) for rule in rules], dtype=bool)
                if (enabled.sum(axis=0) > 1).any():
                    after, (origin, move, forced), columns, enabled = self._branch(
                        after, (origin, move, forced), columns, enabled)
                for rule, holds in zip(rules, enabled):
                    taken = columns[holds]
                    if not len(taken):
                        continue
                    values = rule.effect(Rows(after, taken))
                    written.update(rule.writes)
                    before = after.take(taken, axis=1) if self.watch is not None else None
                    changed = np.zeros(len(taken), dtype=bool)
                    for row, value in zip(rule.writes, values):
                        value = np.broadcast_to(np.asarray(value, dtype=np.int64), (len(taken),))
                        target = after[row]        # a row's view: numpy indexes one axis several times faster
                        changed |= value != target.take(taken)
                        target[taken] = value
                    forced[taken] += 1
                    if self.on_forced is not None:
                        self.on_forced(after, taken)
                    if self.watch is not None and before is not None:
                        self.watch.forced(rule, before, after.take(taken, axis=1), origin[taken], move[taken])
                    onward.append(taken[changed & self.game_phase[after[self.phase].take(taken)]])
            active = np.concatenate(onward) if onward else active[:0]
        return after, origin, move, forced

    @staticmethod
    def _branch(after: Array, carried: tuple[Array, ...], columns: Array, enabled: npt.NDArray[np.bool_]
                ) -> tuple[Array, tuple[Array, ...], Array, npt.NDArray[np.bool_]]:
        """Columns where several game rules hold, copied so that each copy takes one:
        the original keeps its first rule, a new column at the end each further one
        (with what is `carried` per column)."""
        rule, position = np.nonzero(enabled)
        order = np.lexsort((rule, position))
        rule, position = rule[order], position[order]
        later = np.ones(len(position), dtype=bool)
        later[np.unique(position, return_index=True)[1]] = False
        copies = columns[position[later]]
        added = np.arange(after.shape[1], after.shape[1] + len(copies))
        after = np.concatenate([after, after.take(copies, axis=1)], axis=1)
        carried = tuple(np.concatenate([values, values[copies]]) for values in carried)
        kept = enabled.copy()
        kept[rule[later], position[later]] = False
        grown = np.zeros((len(enabled), len(added)), dtype=bool)
        grown[rule[later], np.arange(len(added))] = True
        return after, carried, np.concatenate([columns, added]), np.concatenate([kept, grown], axis=1)

    # -------------------------------------------------------------- states

    def _checked_of(self, written: set[int] | None) -> list[tuple[int, int, int, str]]:
        """The checked fields among the rows `written` (all of them for None): a successor
        copies every other field from a stored state, which was in range."""
        return self.checked if written is None else [check for check in self.checked if check[0] in written]

    @staticmethod
    def _outside(states: Array, checked: list[tuple[int, int, int, str]]) -> npt.NDArray[np.bool_]:
        """Per checked field (a row each), where the states hold a value outside its range."""
        rows = [index for index, _, _, _ in checked]
        lows = np.array([low for _, low, _, _ in checked], dtype=np.int64)[:, None]
        spans = np.array([high - low for _, low, high, _ in checked], dtype=np.uint64)[:, None]
        outside: npt.NDArray[np.bool_] = (states[rows] - lows).view(np.uint64) > spans
        return outside

    def outside(self, states: Array, written: set[int] | None = None) -> npt.NDArray[np.bool_]:
        """Where a state holds a stored field outside its declared range (of the rows
        `written`, if given)."""
        checked = self._checked_of(written)
        if not checked:
            return np.zeros(states.shape[1], dtype=bool)
        return np.asarray(self._outside(states, checked).any(axis=0), dtype=bool)

    def out_of_range(self, states: Array, written: set[int] | None = None) -> str:
        """The first stored field outside its declared range, in words ('' if none); of
        the rows `written`, if given."""
        checked = self._checked_of(written)
        if not checked:
            return ""
        bad = self._outside(states, checked)
        if not bad.any():
            return ""
        at, column = np.argwhere(bad)[0]
        index, low, high, name = checked[at]
        return f"field '{name}' = {int(states[index, column])} is outside its declared range {low}..{high}"

    def canonical(self, states: Array) -> None:
        """The states in place as the codec stores them: rotated so that the pivot seat
        field is seat 0, the fields the reductions drop at their fixed value. Rotations
        are looked up in tables (a seat, or a set of seats, by the pivot's seat)."""
        if self.pivot is not None:
            shift = states[self.pivot]
            seat_base = shift * (self.players + 1) + 1
            for row in self.seat_rows:
                states[row] = np.take(self._seat_table, seat_base + states[row])
            seats_base = shift << self.players
            for row in self.seats_rows:
                states[row] = np.take(self._seats_table, seats_base + states[row])
        for row, value in self.fixed:
            states[row] = value

    def keys(self, states: Array) -> Words:
        """The codec's stored fields, packed into words (a column per state)."""
        return pack_rows(states, self.stored)

    # -------------------------------------------------------------- the sweep

    def run(self, limits: Limits = Limits(), *, paths: bool = False, project: bool = False, facts: bool = False,
            progress: Callable[[LayerProgress], object] | None = None, watch: Watch | None = None,
            spill: str | None = None, breadth_first: bool = False, by_elections: bool = False) -> Layered:
        """Sweep every layer, highest rank first, within `limits` (seconds, states,
        resident memory); `progress` after each layer. `breadth_first`: layers by the
        fewest decisions from the start instead of by the ranking, over a set of every
        state taken (`BREADTH_FIRST`; no `facts`); with `by_elections` too, by the fewest
        elections and then the fewest decisions (`ELECTIONS_FIRST`). With
        `facts`, the longest game (in moves and in elections) and the fewest elections
        to each outcome (`winner`, `how`) of a finished game (and, with `paths` too, the
        predecessors on them: `VIA`). `watch` sees every state and move (`Watch`).
        `spill`: a folder the paths are written to, a layer at a time once those kept
        in memory take `SPILL_AFTER` bytes, and read back mapped, so that they take
        disk, not memory (at 9 players they are tens of GiB); and the successors waiting
        for their layer, once those in memory take `PENDING_IN_MEMORY` bytes."""
        started = time.perf_counter()
        result = Layered(self.players)
        if self.rank is None and not breadth_first:
            result.limit = Halt(StopReason.NO_RANKING, f"limit: {NO_RANKING}")
            return result
        if breadth_first and facts:
            raise ValueError("the graph facts need the ranking's order: a breadth-first sweep has none")
        if by_elections and not breadth_first:
            raise ValueError("by elections is an order of the breadth-first sweep")
        self._begin(facts=facts, vias=facts and paths, breadth_first=breadth_first, by_elections=by_elections,
                    spill=spill, watch=watch)
        try:
            return self._sweep(result, started, limits, paths, project, facts, progress, watch, spill, breadth_first)
        finally:
            self._begin()

    def _begin(self, *, facts: bool = False, vias: bool = False, breadth_first: bool = False,
               by_elections: bool = False, spill: str | None = None, watch: Watch | None = None) -> None:
        """Set what one run was asked for, and its tallies at zero (the defaults: none, as
        between runs), so that a second `run` of the same search starts as the first did."""
        self._facts, self._vias = facts, vias
        self._breadth_first, self._by_elections = breadth_first, by_elections
        self._spill, self.watch = spill, watch
        self._pending_memory = self._buffered = 0

    def _sweep(self, result: Layered, started: float, limits: Limits, paths: bool, project: bool, facts: bool,
               progress: Callable[[LayerProgress], object] | None, watch: Watch | None, spill: str | None,
               breadth_first: bool) -> Layered:
        """`run`'s sweep, once `_begin` has set what it was asked for."""
        budget = Budget.started(limits.time_limit)
        visited = Visited() if breadth_first else None
        projector = batch_projector(self.game) if project else None
        # Abstract states recur across layers: they are tallied to the end, on disk past
        # tally.IN_MEMORY when there is a folder to spill to.
        projected = Tally(spill)
        pending: dict[int, _Pending] = {}
        initial_rank = 0 if self.rank is None or breadth_first else int(
            np.asarray(self.rank(Rows(self.initial, np.arange(1)))).ravel()[0])
        zero = np.zeros(1, dtype=np.int64)
        carried = {"depth": [zero]}
        if paths:
            carried.update(parent=[np.full(1, -1, dtype=np.int64)], move=[zero])
        if facts:
            carried.update({name: [zero] for name in FACTS})
        if self._vias:
            carried.update(long_via=[np.full(1, -1, dtype=np.int64)], elect_via=[np.full(1, -1, dtype=np.int64)])
        pending[initial_rank] = _Pending([self.keys(self.initial)], carried, 1,
                                         {name: 0 for name in NEAREST if name in carried})
        held = 1
        in_memory = 0
        try:
            while pending:
                resident = resident_mib()
                result.limit = self._limit(limits, budget, result, resident)
                if result.limit:
                    break
                rank = max(pending)
                slices, result.limit = self._room(limits, pending[rank], resident)
                if result.limit:
                    break
                layer = pending.pop(rank)
                held -= layer.size
                self._pending_memory -= layer.memory
                self._buffered -= layer.buffered_bytes
                result.layers += 1
                problem = ""
                # A layer too large to sort at once is taken in slices by the hash of its
                # keys (equal keys share a slice), each sorted and expanded on its own.
                for number in range(slices):
                    if slices == 1:
                        layer.load()
                        words, values = self._layer(layer.states, layer.carried)
                    else:
                        words, values = self._layer(*layer.slice(number, slices))
                    base = result.states
                    if visited is not None:
                        # Breadth-first, a state met again was taken in an earlier layer
                        # (or this one): it is dropped, and a cycle closes there.
                        new = visited.find(words) < 0
                        if not new.all():
                            words = words.compress(new, axis=1)
                            values = {name: column[new] for name, column in values.items()}
                        words, values = self._by_phase(words, values)
                        visited.add(words, base + np.arange(words.shape[1], dtype=np.int64))
                    result.states += words.shape[1]
                    if paths:
                        kept: dict[str, Any] = {"keys": words, "parent": _narrowed(values["parent"]),
                                                "move": _narrowed(values["move"])}
                        if self._vias:
                            kept.update(long_via=_narrowed(_via_ids(values["long_via"])),
                                        elect_via=_narrowed(_via_ids(values["elect_via"])))
                        if spill is not None and in_memory >= SPILL_AFTER:
                            kept = {name: _spilled(spill, f"{result.layers}.{number}", name, column)
                                    for name, column in kept.items()}
                        else:
                            in_memory += sum(column.nbytes for column in kept.values())
                        result.keys.append(kept["keys"])
                        result.parent.append(kept["parent"])
                        result.parent_move.append(kept["move"])
                        if self._vias:
                            result.long_via.append(kept["long_via"])
                            result.elect_via.append(kept["elect_via"])
                    depth = values["depth"]
                    for value, count in enumerate(np.bincount(depth).tolist()):
                        if count:
                            result.per_depth[value] = result.per_depth.get(value, 0) + count
                    result.depth = max(result.depth, int(depth.max()) if len(depth) else 0)
                    # The layer stays packed; each part is unpacked only to be expanded, so a
                    # layer of tens of millions of states never lies in memory as int64s.
                    for start in range(0, words.shape[1], CHUNK):
                        stop = start + CHUNK
                        states = self.unpacked(words[:, start:stop])
                        part = {name: column[start:stop] for name, column in values.items()}
                        if facts:
                            self._note_facts(states, part, result)
                        if watch is not None:
                            watch.part(states, base + start, part)
                        if projector is not None:
                            clock = time.process_time()
                            image = projector(states)
                            if image is not None:
                                projected.add(image)
                            result.projection_seconds += time.process_time() - clock
                        problem, added = self._expand(states, rank, base + start, part, pending, result)
                        held += added
                        # A layer of millions takes minutes: the clock and the memory are
                        # looked at after each part, not only between layers.
                        problem = problem or self._limit(limits, budget, result, resident_mib())
                        if problem:
                            break
                    if problem:
                        break
                layer.discard()
                if problem:
                    result.limit = problem
                    break
                result.largest_layer = max(result.largest_layer, held)
                if progress is not None:
                    progress(LayerProgress(result.states, result.layers, held, rank, initial_rank,
                                           time.perf_counter() - started, resident))
                if watch is not None and watch.stopped:
                    result.limit = STOPPED
                    break
                # Successors left out of range may have led nearer: then nothing settles.
                if watch is not None and pending and not result.out_of_range and watch.settled(_least(pending)):
                    result.limit, result.settled = SETTLED, True
                    break
                result.limit = self._hopeless(limits, budget.worked(), rank, initial_rank)
                if result.limit:
                    break
            else:
                result.complete = not result.out_of_range
                if result.out_of_range:
                    result.limit = Halt(StopReason.OUT_OF_RANGE, f"{OUT_OF_RANGE}: successors were left out")
        except HandOver as error:
            result.limit = Halt(StopReason.ARRAYS, f"limit: {HANDED_OVER} ({error})")
        except OSError as error:
            if error.errno not in DISK_FULL:
                raise
            result.limit = Halt(StopReason.MEMORY,
                                f"limit: disk (no space left in {spill or error.filename} after {result.states:,} "
                                f"states: the paths and the states waiting for their layer are kept there; TMPDIR "
                                f"names another folder)")
        if result.complete and projector is not None:
            clock = time.process_time()
            result.projected = projected.count()
            result.projection_seconds += time.process_time() - clock
        if not result.complete:
            result.longest_moves = result.longest_elections = None
            result.fewest_elections = {}
        result.seconds = time.perf_counter() - started
        result.peak_mib = max(result.peak_mib, resident_mib())
        return result

    @staticmethod
    def _room(limits: Limits, layer: _Pending, resident: float) -> tuple[int, str]:
        """The slices the next layer is sorted in, or the memory limit reached ('' when
        it fits). The sort of a layer of tens of millions of states needs a few times
        the layer's own bytes at once (the layer gathered, the hashes sorted, the kept
        columns copied), more than the growth between two looks at the memory; a slice
        needs its share of that, and a record of the layer's file read at a time."""
        if limits.memory_limit is None or not layer.size:
            return 1, ""
        own = layer.disk + layer.buffered_bytes + sum(part.nbytes for part in layer.states) + sum(
            column.nbytes for columns in layer.carried.values() for column in columns)
        needed = (2 * own + SORT_BYTES * (layer.size - layer.dropped)) / 2**20
        room = limits.memory_limit - resident
        if needed <= room:
            return 1, ""
        record = 2 * SPILL_BUFFER / 2**20
        slices = math.ceil(needed / (room - record)) if room > 2 * record else MAX_SLICES + 1
        if slices <= MAX_SLICES:
            return slices, ""
        return 1, Halt(StopReason.MEMORY,
                       f"limit: memory {limits.memory_limit:,} MiB (the next layer, {layer.size:,} states, needs "
                       f"about {needed:,.0f} MiB more to sort, more than {MAX_SLICES} slices of what is left)")

    @staticmethod
    def _hopeless(limits: Limits, elapsed: float, rank: int, top: int) -> str:
        """The time limit, reached early: at its pace so far (seconds of work, `elapsed`,
        per share of the ranking swept) the sweep would need more than PACE_MARGIN times
        the limit ('' while it may finish). Work, as the limit is (verify/clock.py): a
        search slowed by a busy machine is not judged hopeless for the wait. The first layers are small, so early on the pace
        understates the whole sweep; past the middle of the game, where the largest
        layers lie, it overstates it, at 6 players by at most 1.3 times, within the
        margin. A search cut here is unknown, as one cut at the limit would be."""
        if limits.time_limit is None or elapsed < PACE_AFTER or top <= 0:
            return ""
        swept = (top - rank) / top
        needed = elapsed / max(swept, 1e-9)
        if needed <= PACE_MARGIN * limits.time_limit:
            return ""
        return Halt(StopReason.TIME, f"limit: time {limits.time_limit:g} s of work (stopped after {elapsed:.0f} s: "
                                     f"at its pace so far the sweep would take more than {needed:,.0f} s)")

    @staticmethod
    def _limit(limits: Limits, budget: Budget, result: Layered, resident: float) -> str:
        """The limit reached ('' for none): the time's is the work done or the wall-clock
        backstop (`Budget`); the memory read is kept as the peak so far."""
        result.peak_mib = max(result.peak_mib, resident)
        spent = budget.spent()
        if spent:
            return Halt(StopReason.TIME, spent)
        if limits.max_states is not None and result.states > limits.max_states:
            return Halt(StopReason.STATES, f"limit: {limits.max_states:,} states")
        if limits.memory_limit is not None and resident > limits.memory_limit:
            return Halt(StopReason.MEMORY, f"limit: memory {limits.memory_limit:,} MiB")
        return ""

    def _note_facts(self, states: Array, values: dict[str, Array], result: Layered) -> None:
        """A layer's part of the graph facts: every state's longest game so far (a game
        can stop only at a finished or stuck state, but a longest path to any state is
        a prefix of a longest one to an end), and the fewest elections per outcome."""
        result.longest_moves = max(result.longest_moves or 0, int(values["longest"].max()))
        result.longest_elections = max(result.longest_elections or 0, int(values["most_elections"].max()))
        over = np.flatnonzero(states[self.phase] == self.over)
        if not len(over):
            return
        winner = states[self.winner, over] if self.winner is not None else np.zeros(len(over), dtype=np.int64)
        how = states[self.how, over] if self.how is not None else np.zeros(len(over), dtype=np.int64)
        fewest = values["fewest_elections"][over]
        for outcome in set(zip(winner.tolist(), how.tolist())):
            picked = (winner == outcome[0]) & (how == outcome[1])
            least = int(fewest[picked].min())
            result.fewest_elections[outcome] = min(result.fewest_elections.get(outcome, least), least)
            result.ends[outcome] = result.ends.get(outcome, 0) + int(np.count_nonzero(picked))

    def _expand(self, states: Array, rank: int, base: int, values: dict[str, Array],
                pending: dict[int, "_Pending"], result: Layered) -> tuple[str, int]:
        """Expand some states of one layer (ids from `base`): their successors put aside by
        rank, the transitions and deadlocks counted. Returns what stops the search ('' for
        nothing) and how many successors were put aside."""
        after, origin, moves, forced, written = self.successors(states)
        result.transitions += after.shape[1]
        movers = np.bincount(origin, minlength=states.shape[1])
        stuck = (movers == 0) & (states[self.phase] != self.over)
        result.deadlocks += int(np.count_nonzero(stuck))
        if self.watch is not None:
            self.watch.expanded()
            if stuck.any():
                self.watch.stuck(np.flatnonzero(stuck))
        if not after.shape[1]:
            return "", 0
        if self.watch is not None:
            # A checker wants the shallowest such successor and what else it breaks:
            # the search goes on without them (and cannot be complete).
            bad = self.outside(after, written)
            if bad.any():
                self.watch.unstorable(np.compress(bad, after, axis=1), origin[bad], moves[bad], self.out_of_range)
                kept = ~bad
                after, origin, moves, forced = np.compress(kept, after, axis=1), origin[kept], moves[kept], forced[kept]
                result.out_of_range = True
                if not after.shape[1]:
                    return "", 0
        problem = self.out_of_range(after, written)
        if problem:
            return Halt(StopReason.OUT_OF_RANGE, f"{OUT_OF_RANGE}: {problem}"), 0
        self.canonical(after)
        if self._breadth_first:
            # The layer of the successor's depth (`rank` counts down from 0 by it).
            carried = self._carried(values, base, origin, moves, forced)
            if self._by_elections and int((carried["depth"] % ELECTIONS_FIRST).max()) >= ELECTIONS_FIRST - 1:
                return Halt(StopReason.DEPTH, f"limit: a game of {ELECTIONS_FIRST - 1} decisions, the most a search "
                                              f"by elections counts"), 0
            return "", self._hold(pending, rank, after, -carried["depth"], carried)
        assert self.rank is not None        # run() stops at once without a ranking
        ranks = np.broadcast_to(np.asarray(self.rank(Rows(after, np.arange(after.shape[1]), slice(None))),
                                           dtype=np.int64), (after.shape[1],))
        if (ranks >= rank).any():
            return Halt(StopReason.NO_RANKING, f"{NOT_DECREASING}: a move from a state of rank {rank} "
                                               f"leads to rank {int(ranks[np.argmax(ranks >= rank)])}"), 0
        return "", self._hold(pending, rank, after, ranks, self._carried(values, base, origin, moves, forced))

    def _carried(self, values: dict[str, Array], base: int, origin: Array, moves: Array, forced: Array
                 ) -> dict[str, Array]:
        """What each successor carries, from the state it left (`_Pending`)."""
        carried = {"depth": values["depth"][origin] + 1}
        if self._by_elections:
            carried["depth"] += ELECTIONS_FIRST * self.election_rule[moves & ((1 << RULE_BITS) - 1)]
        if "parent" in values:
            carried.update(parent=base + origin, move=moves)
        if self._facts:
            elected = self.election_rule[moves & ((1 << RULE_BITS) - 1)]
            carried["longest"] = values["longest"][origin] + 1 + forced
            carried["most_elections"] = values["most_elections"][origin] + elected
            carried["fewest_elections"] = values["fewest_elections"][origin] + elected
            if self._vias:
                ids = base + origin
                carried["long_via"] = carried["longest"] << VIA | ids
                carried["elect_via"] = carried["fewest_elections"] << VIA | ids
        return carried

    def _layer(self, states: list[Words], carried: dict[str, list[Array]]) -> tuple[Words, dict[str, Array]]:
        """A rank's pending states (or a slice of them) without duplicates
        (`_without_duplicates`). The lists given are emptied."""
        words = np.concatenate(states, axis=1)
        values = {name: np.concatenate(parts) for name, parts in carried.items()}
        states.clear()
        carried.clear()
        return _without_duplicates(words, values)

    def _by_phase(self, words: Words, values: dict[str, Array]) -> tuple[Words, dict[str, Array]]:
        """A breadth-first layer ordered by phase. A layer by rank holds a few phases; one
        by depth holds most of them, and its parts, expanded rule by rule over the
        columns of each phase, took twice as long in four times as many calls."""
        if words.shape[1] <= 1 or self.phase_key is None:
            return words, values
        word, shift, bits = self.phase_key
        phases = (words[word] >> np.uint64(shift)) & np.uint64((1 << bits) - 1)
        order = np.argsort(phases.astype(np.int16) if bits < 15 else phases, kind="stable")
        return words.take(order, axis=1), {name: column[order] for name, column in values.items()}

    def unpacked(self, words: Words) -> Array:
        """The states whose keys these are (the inverse of `keys` on canonical states)."""
        states = np.empty((len(self.initial), words.shape[1]), dtype=np.int64)
        unpack_rows(words, self.stored, states)
        for row, value in self.fixed:
            states[row] = value
        return states

    def _hold(self, pending: dict[int, _Pending], rank: int, after: Array, ranks: Array,
              carried: dict[str, Array]) -> int:
        """The successors put aside by rank."""
        below = rank - ranks          # ≥ 1; small, so sorted by radix when it fits 16 bits
        order = np.argsort(below.astype(np.int16) if below.max() < 1 << 15 else below, kind="stable")
        ranks = ranks[order]
        cuts = np.flatnonzero(np.diff(ranks)) + 1
        compact = self.keys(after).take(order, axis=1)
        # Counts of moves fit 32 bits; ids and move codes keep 64.
        carried = {name: column[order] if name in WIDE else column[order].astype(np.int32)
                   for name, column in carried.items()}
        bounds = [0, *cuts.tolist(), len(ranks)]
        nearest = {name: np.minimum.reduceat(carried[name], bounds[:-1]).tolist()
                   for name in NEAREST if name in carried}
        size = compact.nbytes + sum(column.nbytes for column in carried.values())
        full = self._pending_memory + size > PENDING_IN_MEMORY
        for number, (start, stop) in enumerate(zip(bounds, bounds[1:])):
            into = pending.setdefault(int(ranks[start]), _Pending())
            keys = compact[:, start:stop]
            parts = {name: column[start:stop] for name, column in carried.items()}
            for name in parts:
                into.carried.setdefault(name, [])
            held = keys.nbytes + sum(column.nbytes for column in parts.values())
            if self._spill is not None and (full or into.spilling):
                # Views: the whole part stays alive until the flush, a few times
                # SPILL_BUFFER at most; the flush copies them once, together.
                into.buffered.append((keys, parts))
                into.buffered_bytes += held
                self._buffered += held
            else:
                into.states.append(keys)
                for name, column in parts.items():
                    into.carried[name].append(column)
                into.memory += held
                self._pending_memory += held
                into.fresh += held
                if into.fresh >= SPILL_BUFFER:
                    self._pending_memory -= into.compact()
            into.size += stop - start
            for name, least in nearest.items():
                into.least[name] = min(into.least.get(name, least[number]), least[number])
        if self._spill is not None and self._buffered >= SPILL_BUFFER:
            for layer in pending.values():
                layer.flush(self._spill)
            self._buffered = 0
        return len(ranks)


def _without_duplicates(words: Words, values: dict[str, Array]) -> tuple[Words, dict[str, Array]]:
    """Successors without duplicates, as keys, in the order they came, each with its
    fewest decisions from the start and the parent and move of one shortest path (the
    first such duplicate's), and, with facts, the most moves and elections and the fewest
    elections over its duplicates. Merging parts first and then the merged parts gives
    what merging all at once gives: the first of the fewest decisions stays the first,
    and the most and the fewest are the most and the fewest of the parts'."""
    if words.shape[1] <= 1:
        return words, values
    keep, group = distinct_groups(words, values["depth"])
    merged = {name: column[keep] for name, column in values.items()}
    if "longest" in values:
        for name, reduce in (("longest", np.maximum), ("most_elections", np.maximum),
                             ("fewest_elections", np.minimum), ("long_via", np.maximum),
                             ("elect_via", np.minimum)):
            if name in values:
                reduce.at(merged[name], group, values[name])
    return words.take(keep, axis=1), merged


def _least(pending: dict[int, _Pending]) -> dict[str, int]:
    """The least of each of `NEAREST` over every pending layer."""
    least: dict[str, int] = {}
    for layer in pending.values():
        for name, value in layer.least.items():
            least[name] = min(least.get(name, value), value)
    return least


SPILL_AFTER = 256 << 20
"""Bytes of paths kept in memory before the next layers' go to disk: a graph of a few
million states (5 and 6 players, most boards of a sweep) never writes a file, which
took a tenth of a 5-player sweep task (a few thousand files written and mapped)."""


PENDING_IN_MEMORY = 2 << 30
"""Bytes of successors waiting for their layer kept in memory before the next ones go to
disk (with a folder to spill to). A state is met about twice (as many transitions as
states) before its layer removes the duplicates, and the waiting successors span the
next policies' layers: at 10 players up to 195 M of them waited at once. A 6-player
check never writes them; each layer's are read back once."""

DISK_FULL = (errno.ENOSPC, errno.EDQUOT)
"""The errors of a write the disk has no room for: a limit like memory, so the verdicts
are unknown and the run says where it stopped. A check keeps 32 bytes of paths a state
on disk at 10 players (two words of keys; the parent, the move and the predecessors on
the longest game and on the fewest elections in 32 bits each, `_narrowed`), so the 1.55
billion states of 10 players need 50 GB before the states waiting for their layer."""

SPILL_BUFFER = 64 << 20
"""Bytes of waiting successors bound for disk gathered in memory before they are
appended to their layers' files, each layer's as one record."""

_PARTS = itertools.count()
"""Numbers for the files of waiting successors (one folder may serve several searches)."""


def _narrowed(column: Array) -> npt.NDArray[Any]:
    """`column` as 32-bit integers when every value fits (the ids of 10 players' 1.55
    billion states, the codes of moves with one argument), else as it is: the paths of a
    10-player check keep 32 bytes a state on disk instead of 48."""
    if column.dtype == np.int64 and len(column) and int(column.min()) >= -(1 << 31) and int(column.max()) < 1 << 31:
        return column.astype(np.int32)
    return column


def _via_ids(packed: Array) -> Array:
    """The predecessors' ids of a `VIA` column, -1 kept where there is none: the values
    packed above them served only to merge the duplicates."""
    ids: Array = np.where(packed < 0, -1, packed & ((1 << VIA) - 1))
    return ids


def _spilled(folder: str, layer: str, name: str, column: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """`column` written to `folder` and read back mapped: its pages leave memory."""
    path = os.path.join(folder, f"{layer}-{name}.npy")
    np.save(path, column)
    mapped: npt.NDArray[Any] = np.load(path, mmap_mode="r")
    return mapped


def layered(model: Model, limits: Limits = Limits(), *, measure: Measure | None = None, paths: bool = False,
            project: bool = False, facts: bool = False,
            progress: Callable[[LayerProgress], object] | None = None) -> Layered:
    """The layered sweep of `model` (see the module docstring)."""
    return LayeredSearch(model, measure).run(limits, paths=paths, project=project, facts=facts, progress=progress)
