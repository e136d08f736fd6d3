"""Random play over many games at once: the spec compiled a third time, to numpy.

The typed tree that engine/pycompile.py turns into Python functions over one state tuple
is turned here into the same functions over a batch of states, one numpy row per field
(`s[i]` is field i of every game in the batch). A global step moves every game of the
batch once: the games are sorted by phase, and each phase's games, side by side, take
their move with a few dozen array operations instead of a few dozen Python calls each.

The moves are drawn with the one-game engine's probabilities (engine/game.py):
- the game's forced move: the first rule whose requirements hold;
- chance with equal weights (the deal): the parameters drawn uniformly until the
  requirements hold; chance with weights (a draw, a peek, chaos): every outcome listed
  with its exact weight, one drawn in proportion;
- a seat's or the table's choice: uniform over the legal (rule, parameters) pairs; a few
  candidates (a nomination) are listed and one legal one drawn, many (a vote's Ja sets)
  are sampled from the union of the domains until a legal one comes up.

What the arrays cannot do exactly is handed to the one-game engine, game by game, so a
batched game is never a different game: a rejection loop still undecided after `ROUNDS`
rounds, more than `MAX_OUTCOMES` chance outcomes, a `choose`/`perm` past 2**53, a value
past a bound of the language (which the one-game engine then reports with its rule). A
state with no legal move is a deadlock, counted apart. `BatchedPlay.handed_over` counts
the moves handed over.

As in pycompile, no name from the spec reaches the emitted text: fields are row indexes,
parameters and lets positional slots, constants inlined numbers (SECURITY.md).
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import product
from random import Random
from typing import Any

import numpy as np
import numpy.typing as npt

from spec.lang import nodes as n
from spec.lang.limits import MAX_TILES, EvaluationLimit, check_combinatoric, check_domain_size, check_tiles_length
from spec.model import Domain, Rule, Spec

from .game import MAX_MOVES, Game, PhaseKind, compiled_game
from .pycompile import Emitter, load_source

Array = npt.NDArray[np.int64]

ROUNDS = 64
"""Rejection rounds over a group before its undecided games go to the one-game engine
(which tries a million times and names a deadlock): a legal move is nearly always found
in the first few."""

MAX_OUTCOMES = 4096
"""Most chance outcomes of one phase listed at once (a draw has 4, a peek 8)."""

MAX_TRIES = 256
"""Most rejection candidates drawn per game in one round."""

MEMO_FROM = 64
"""Fewest games for which listing candidates once per distinct value of the fields read
pays for finding the distinct values."""

MEMO_SPACE = 1 << 14
"""Largest space of values of the fields read that is tabled to find the distinct ones."""

LISTED = 32
"""Most candidate moves of a seat's choice listed at once, instead of rejection sampling:
a nomination has one per seat; a vote's Ja sets (up to 1,024 per rule) are sampled."""

BATCH = 65536
"""Most games in flight at once: numpy's cost per call is spread over this many games
(measured at 5 players: 8,192 in flight made about a third as many games per second)."""


class HandOver(Exception):
    """A value the arrays cannot hold exactly: the group's games move one by one."""


class Rows:
    """Some games of a batch as the emitted code reads them: `s[i]` is field i of each,
    gathered from the batch the first time it is read. A rule reads a few of the
    fields, so the others are never copied."""

    __slots__ = ("states", "games", "width", "_cache", "_block")

    def __init__(self, states: "Array", games: "Array", block: slice | None = None) -> None:
        self.states = states
        self.games = games
        self.width = len(games)
        self._block = block             # the games are exactly these columns, in order
        self._cache: dict[int, Array] = {}

    def __getitem__(self, row: int) -> "Array":
        found = self._cache.get(row)
        if found is None:
            # take() on the row: numpy's fancy indexing of a 2-D array is several times slower.
            found = self._cache[row] = (self.states[row].take(self.games) if self._block is None
                                        else self.states[row, self._block])
        return found

    def subset(self, picked: "Array") -> "Rows":
        """The games at positions `picked` of these."""
        return Rows(self.states, self.games[picked])


# ---------------------------------------------------------------------- array helpers

def _bounded(check: Callable[..., None], *args: Any) -> None:
    """A bound of the language, checked as the one-game engine checks it: past it the
    group is handed over, and the one-game engine reports the limit with the location of
    the rule (a batch has no single rule to name)."""
    try:
        check(*args)
    except EvaluationLimit as error:
        raise HandOver(str(error)) from None


def _count(mask: Any) -> Any:
    """Seats in each set (popcount), as int64 so that arithmetic on it cannot wrap."""
    return np.bitwise_count(np.asarray(mask, dtype=np.int64)).astype(np.int64)


def _bitlen(code: Any) -> Any:
    """`int.bit_length` of each value (exact below 2**53; tile codes and seat sets are far below)."""
    return np.frexp(np.asarray(code, dtype=np.float64))[1].astype(np.int64)


def _first(code: Any) -> Any:
    return np.where(np.asarray(code) > 1, np.asarray(code) & 1, 0)


def _take(code: Any, k: Any) -> Any:
    length = np.minimum(np.maximum(k, 0), _bitlen(code) - 1)
    return (np.asarray(code) & ((np.int64(1) << length) - 1)) | (np.int64(1) << length)


def _drop(code: Any, k: Any) -> Any:
    return np.asarray(code) >> np.minimum(np.maximum(k, 0), _bitlen(code) - 1)


def _liberals(code: Any) -> Any:
    return _bitlen(code) - _count(code)


@lru_cache(maxsize=64)
def _exact_table(name: str, top: int) -> Array:
    """`choose` or `perm` of every pair up to `top`, exactly; past 2**53 it hands over
    (the weights are drawn through float64)."""
    function = math.comb if name == "choose" else math.perm
    rows = [[function(t, j) if 0 <= j <= t else 0 for j in range(top + 1)] for t in range(top + 1)]
    if max(max(row) for row in rows) >= 1 << 53:
        raise HandOver(f"{name}({top}, …) is past the exact range of the arrays")
    return np.array(rows, dtype=np.int64)


def _table(name: str, total: Any, k: Any) -> Any:
    """`choose`/`perm` of each pair through a table of exact values, bounded like the
    one-game engine's."""
    top = int(np.max(total)) if np.size(total) else 0
    _bounded(check_combinatoric, name, top)
    top = max(top, 0)
    values = _exact_table(name, top)
    total_a, k_a = np.broadcast_arrays(np.asarray(total, dtype=np.int64), np.asarray(k, dtype=np.int64))
    inside = (k_a >= 0) & (k_a <= total_a) & (total_a >= 0)
    return np.where(inside, values[np.clip(total_a, 0, top), np.clip(k_a, 0, top)], 0)


def _choose(total: Any, k: Any) -> Any:
    return _table("choose", total, k)


def _perm(total: Any, k: Any) -> Any:
    return _table("perm", total, k)


def _index(table: Sequence[int], index: Any, zero: int) -> Any:
    values = np.asarray(table, dtype=np.int64)
    index = np.asarray(index, dtype=np.int64)
    inside = (index >= 0) & (index < len(values))
    return np.where(inside, values[np.clip(index, 0, max(len(values) - 1, 0))], zero) if len(values) \
        else np.full(np.shape(index), zero, dtype=np.int64)


def _seat_in(seat: Any, mask: Any) -> Any:
    seat = np.asarray(seat, dtype=np.int64)
    return (seat >= 0) & (((np.asarray(mask, dtype=np.int64) >> np.maximum(seat, 0)) & 1) == 1)


def _next_in(players: int) -> Callable[[Any, Any], Any]:
    def next_in(mask: Any, seat: Any) -> Any:
        """The first seat of `mask` clockwise after `seat` (R-E1); `seat` itself if none is."""
        seat = np.asarray(seat, dtype=np.int64)
        mask = np.asarray(mask, dtype=np.int64)
        result = seat.copy()
        found = np.zeros(np.broadcast(seat, mask).shape, dtype=bool)
        for step in range(1, players + 1):
            candidate = (seat + step) % players
            hit = ~found & (((mask >> candidate) & 1) == 1)
            result = np.where(hit, candidate, result)
            found |= hit
        return result
    return next_in


def _minimum(*values: Any) -> Any:
    out = values[0]
    for value in values[1:]:
        out = np.minimum(out, value)
    return out


def _maximum(*values: Any) -> Any:
    out = values[0]
    for value in values[1:]:
        out = np.maximum(out, value)
    return out


HELPERS: dict[str, Any] = {
    "_np": np, "_count": _count, "_bitlen": _bitlen, "_first": _first, "_take": _take, "_drop": _drop,
    "_liberals": _liberals, "_choose": _choose, "_perm": _perm, "_index": _index, "_seat_in": _seat_in,
    "_min": _minimum, "_max": _maximum,
}


def batch_namespace(players: int) -> dict[str, Any]:
    """The names code emitted by `BatchEmitter` calls, for one player count."""
    namespace = dict(HELPERS)
    namespace["_next_in"] = _next_in(players)
    return namespace


class BatchEmitter(Emitter):
    """The Python emitter with each operator replaced by its elementwise array form:
    `and`/`or` by `&`/`|` (no short cut: both sides are computed for every game, and
    every helper is total), `x if c else y` by `where`, builtins by the helpers above."""

    def for_rule(self, rule: Rule, param_slots: Sequence[str] | None = None) -> "BatchEmitter":
        return BatchEmitter(self.spec, self.players, [p.name for p in rule.params], [name for name, _ in rule.lets],
                            param_slots)

    def _Unary(self, node: n.Unary) -> str:
        operand = self.emit(node.operand)
        return f"_np.logical_not({operand})" if node.op == "not" else f"(-{operand})"

    def _Compare(self, node: n.Compare) -> str:
        left, right = self.emit(node.left), self.emit(node.right)
        if node.op in ("in", "not in"):
            if node.right.type.kind == "seats":
                test = f"_seat_in({left}, {right})"
            else:
                test = f"_np.isin({left}, {right})"
            return test if node.op == "in" else f"_np.logical_not({test})"
        if node.left.type.kind == "seats" and node.op in ("<=", "<"):
            subset = f"((({left}) & ~({right})) == 0)"
            return subset if node.op == "<=" else f"({subset} & (({left}) != ({right})))"
        return f"(({left}) {node.op} ({right}))"

    def _BoolOp(self, node: n.BoolOp) -> str:
        joiner = " & " if node.op == "and" else " | "
        return "(" + joiner.join(f"_np.asarray({self.emit(item)}, dtype=bool)" for item in node.operands) + ")"

    def _IfElse(self, node: n.IfElse) -> str:
        return f"_np.where({self.emit(node.condition)}, {self.emit(node.then)}, {self.emit(node.otherwise)})"

    def _Call(self, node: n.Call) -> str:
        args = [self.emit(arg) for arg in node.args]
        if node.function == "count":
            return f"_count({args[0]})"
        if node.function == "size":
            return f"(_bitlen({args[0]}) - 1)"
        if node.function == "fascists":
            return f"(_count({args[0]}) - 1)"
        if node.function == "next_in":
            return f"_next_in({args[0]}, {args[1]})"
        if node.function in ("min", "max"):
            return f"_{node.function}({', '.join(args)})"
        if node.function == "abs":
            return f"_np.abs({args[0]})"
        return f"_{node.function}({', '.join(args)})"

    def _ListLit(self, node: n.ListLit) -> str:
        return "(" + "".join(f"{self.emit(item)}, " for item in node.items) + ")"

    def _Index(self, node: n.Index) -> str:
        return f"_index({self.emit(node.table)}, {self.emit(node.index)}, {self.zero(node.type)})"


# ---------------------------------------------------------------------- compiled rules

@dataclass(frozen=True)
class BatchDomain:
    """One parameter's domain over a batch: its sizes, uniform draws, and its values."""

    kind: str
    players: int
    count: int = 0                                         # members of an enum
    low: Callable[..., Any] | None = None
    high: Callable[..., Any] | None = None
    length: Callable[..., Any] | None = None
    of: Callable[..., Any] | None = None

    def _length(self, s: Rows) -> Array:
        assert self.length is not None
        length = np.broadcast_to(np.asarray(self.length(s), dtype=np.int64), (s.width,))
        for value in np.unique(length):
            _bounded(check_tiles_length, int(value))
        return length

    def size(self, s: Rows) -> Array:
        """The domain's size in each game."""
        width = s.width
        if self.kind in ("seat", "enum"):
            return np.full(width, self.players if self.kind == "seat" else self.count, dtype=np.int64)
        if self.kind == "range":
            assert self.low is not None and self.high is not None
            low, high = np.broadcast_arrays(np.asarray(self.low(s), dtype=np.int64),
                                            np.asarray(self.high(s), dtype=np.int64))
            if high.size:
                _bounded(check_domain_size, int(np.min(low)), int(np.max(high)))
            return np.broadcast_to(np.maximum(0, high - low + 1), (width,)).copy()
        if self.kind == "tiles":
            return np.int64(1) << self._length(s)
        assert self.of is not None
        seats: Array = _count(np.broadcast_to(np.asarray(self.of(s), dtype=np.int64), (width,)))
        return np.int64(1) << seats

    def draw(self, s: Rows, rng: np.random.Generator) -> Array:
        """A uniform value of the domain for each game (its size must be positive)."""
        width = s.width
        if self.kind in ("seat", "enum"):
            return (rng.random(width) * (self.players if self.kind == "seat" else self.count)).astype(np.int64)
        if self.kind == "range":
            assert self.low is not None
            low = np.broadcast_to(np.asarray(self.low(s), dtype=np.int64), (width,))
            return low + (rng.random(width) * self.size(s)).astype(np.int64)
        if self.kind == "tiles":
            length = self._length(s)
            bits = rng.integers(0, 1 << MAX_TILES, width, dtype=np.int64)    # masked to each length below
            return (np.int64(1) << length) | (bits & ((np.int64(1) << length) - 1))
        assert self.of is not None
        of = np.broadcast_to(np.asarray(self.of(s), dtype=np.int64), (width,))
        return rng.integers(0, 1 << self.players, width, dtype=np.int64) & of

    def most(self) -> int | None:
        """How many values the domain can hold, known without the state (None: a range or
        a tile length read from it): a vote's 1,024 Ja sets need not be listed to be
        too many to list."""
        if self.kind in ("seat", "enum"):
            return self.players if self.kind == "seat" else self.count
        return 1 << self.players if self.kind == "subset" else None

    def values(self, s: Rows) -> tuple[list[int], Callable[[Array], Array | bool]]:
        """Every value the domain takes in some game of the batch, and for a column of
        values, which games' domains hold each (a value per row, a game per column)."""
        if self.kind in ("seat", "enum"):
            return list(range(self.players if self.kind == "seat" else self.count)), lambda value: True
        if self.kind == "range":
            assert self.low is not None and self.high is not None
            low, high = np.broadcast_arrays(np.asarray(self.low(s), dtype=np.int64),
                                            np.asarray(self.high(s), dtype=np.int64))
            if not high.size:
                return [], lambda value: True
            first, last = int(np.min(low)), int(np.max(high))
            _bounded(check_domain_size, first, last)
            return list(range(first, last + 1)), lambda value: (low <= value) & (value <= high)
        if self.kind == "tiles":
            length = self._length(s)
            codes = [code for k in np.unique(length).tolist() for code in range(1 << k, 2 << k)]
            return codes, lambda value: length == _bitlen(value) - 1
        assert self.of is not None
        of = np.asarray(self.of(s), dtype=np.int64)
        return list(range(1 << self.players)), lambda value: (of & value) == value


@dataclass(frozen=True)
class BatchRule:
    """One rule's array functions for one player count."""

    rule: Rule
    index: int
    allowed: Callable[..., Any]                # (s, *params) -> every requirement holds
    ready: Callable[..., Any]                  # s -> the requirements that read no parameter hold
    effect: Callable[..., tuple[Any, ...]]     # (s, *params) -> new values of `writes`
    writes: tuple[int, ...]                     # the field rows the effect assigns
    weight: Callable[..., Any] | None
    domains: tuple[BatchDomain, ...]
    reads: tuple[int, ...]                      # the field rows its requirements, weight and domains read
    source: str

    @property
    def uniform(self) -> bool:
        return isinstance(self.rule.weight, n.Lit) and self.rule.weight.value == 1


def compile_batch_rule(emitter: BatchEmitter, rule: Rule, index: int) -> BatchRule:
    """A rule's requirements, effect, weight and parameter domains as array functions."""
    bound = emitter.for_rule(rule)
    params = ", ".join(["s", *bound.params()])
    lets = [f"    {bound.let_slots[name]} = {bound.emit(node)}" for name, node in rule.lets]
    conditions = [f"_np.asarray({bound.emit(req.when)}, dtype=bool)" for req in rule.requires] or ["True"]
    # The requirements that read no parameter: whether the rule can move at all in a game,
    # known before any candidate is listed (a Policy Peek's power, a vote's phase).
    ready = [f"_np.asarray({emitter.emit(req.when)}, dtype=bool)" for req in rule.requires
             if not any(isinstance(item, n.Name) and item.kind in ("param", "let") for item in n.walk(req.when))]
    writes = tuple(bound.fields[name] for name, _ in rule.effect)
    values = [bound.emit(node) for _, node in rule.effect]
    source = [f"def allowed({params}):", *lets, f"    return {' & '.join(conditions)}", "",
              "def ready(s):", f"    return {' & '.join(ready) or 'True'}", "",
              f"def effect({params}):", *lets, f"    return ({''.join(v + ', ' for v in values)})", ""]
    if rule.weight is not None:
        source += [f"def weight({params}):", *lets, f"    return {bound.emit(rule.weight)}", ""]
    domain_parts: list[dict[str, str]] = []
    for position, param in enumerate(rule.params):
        parts = {slot: getattr(param.domain, slot) for slot in ("low", "high", "length", "of")}
        # A domain reads the state only, never another parameter.
        emitted = {slot: emitter.emit(node) for slot, node in parts.items() if node is not None}
        for slot, text in emitted.items():
            source += [f"def {slot}{position}(s):", f"    return {text}", ""]
        domain_parts.append(emitted)
    namespace = batch_namespace(emitter.players)
    load_source("\n".join(source), f"batched rule {rule.name}", namespace)
    domains = tuple(_domain(emitter, param.domain, {slot: namespace[f"{slot}{position}"] for slot in parts})
                    for position, (param, parts) in enumerate(zip(rule.params, domain_parts)))
    roots = [node for _, node in rule.lets] + [req.when for req in rule.requires] + [rule.weight]
    roots += [getattr(param.domain, slot) for param in rule.params for slot in ("low", "high", "length", "of")]
    reads = tuple(sorted(bound.fields[name] for name in n.fields_read(roots, emitter.spec.definitions)))
    return BatchRule(rule, index, namespace["allowed"], namespace["ready"], namespace["effect"], writes,
                     namespace.get("weight"), domains, reads, "\n".join(source))


def compile_batch_expression(spec: Spec, players: int, node: n.Node, params: Sequence[str] = ()
                             ) -> Callable[..., Any]:
    """A state expression (a ranking, a property) as an array function of a batch of
    states, `f(s)`, or `f(s, *args)` with the values of `params` (arrays, a value per
    game, or columns that broadcast): the batched twin of pycompile's `compile_expression`."""
    emitter = BatchEmitter(spec, players, params)
    namespace = batch_namespace(players)
    arguments = ", ".join(["s", *emitter.params()])
    load_source(f"def f({arguments}):\n    return {emitter.emit(node)}\n", "batched expression", namespace)
    function: Callable[..., Any] = namespace["f"]
    return function


def _domain(emitter: Emitter, domain: Domain, parts: dict[str, Callable[..., Any]]) -> BatchDomain:
    count = len(emitter.spec.enums[str(domain.enum)]) if domain.kind == "enum" else 0
    return BatchDomain(domain.kind, emitter.players, count, parts.get("low"), parts.get("high"),
                       parts.get("length"), parts.get("of"))


# ---------------------------------------------------------------------- the batched game

@dataclass
class Listing:
    """Candidate moves listed for a batch: per move, the rule it is of (an index into
    `rules`) and its parameters; kept per rule, so that the games choosing any move of a
    rule are moved by one call of its effect, their parameters as arrays."""

    rules: list[BatchRule] = field(default_factory=list)
    owner: list[Array] = field(default_factory=list)        # per rule: its index, once per move
    args: list[Array] = field(default_factory=list)         # per rule: a row of parameters per move

    def __len__(self) -> int:
        return sum(len(rows) for rows in self.args)


@dataclass
class BatchedPlay:
    """What a run of batched random play made: complete games, their moves and outcomes."""

    players: int
    games: int = 0
    seconds: float = 0.0
    moves: int = 0
    choices: int = 0
    outcomes: Counter[tuple[str | None, str | None]] = field(default_factory=Counter)
    deadlocks: int = 0          # games that reached a state with no legal move
    unfinished: int = 0         # games cut at MAX_MOVES
    handed_over: int = 0        # moves the one-game engine made for the arrays

    @property
    def games_per_second(self) -> float:
        """Complete games per CPU second."""
        return self.games / self.seconds if self.seconds else 0.0

    @property
    def moves_per_game(self) -> float:
        return self.moves / self.games if self.games else 0.0

    @property
    def choices_per_game(self) -> float:
        return self.choices / self.games if self.games else 0.0


class BatchedGame:
    """A `Game` compiled to array operations over a batch of states, for random play."""

    def __init__(self, game: Game) -> None:
        self.game = game
        emitter = BatchEmitter(game.spec, game.players)
        self.rules = tuple(compile_batch_rule(emitter, compiled.rule, compiled.index) for compiled in game.rules)
        self.by_phase: tuple[tuple[BatchRule, ...], ...] = tuple(
            tuple(self.rules[compiled.index] for compiled in rules) for rules in game.by_phase)
        self.phase_index = game.phase_index
        self.initial = np.array(game.initial_state(), dtype=np.int64)
        self.over = np.array([not rules for rules in game.by_phase], dtype=bool)
        self.choice = np.array([kind is PhaseKind.CHOICE for kind in game.phase_kind], dtype=bool)
        self.handed_over = 0
        self.deadlocked: list[int] = []
        self._acceptance = [1.0] * len(self.by_phase)    # share of rejection candidates kept, per phase
        self._group: Array = np.arange(0)                # the games of the phase being moved ...
        self._block = slice(0, 0)                        # ... which are these columns
        self._moved: list[Array] = []

    # -------------------------------------------------------------- one global step

    def step(self, states: Array, rng: np.random.Generator, fallback: Random) -> tuple[Array, Array]:
        """Move every game of `states` (one column each) that is not over once. Returns the
        games after their moves, in a new order, and that order: column j of the result
        is the game that was in column `order[j]`. The games are sorted by phase first,
        so that each phase's games lie side by side: the rules read and write them as
        slices, not gathered one by one."""
        # A phase is a small enum index: as int16 numpy sorts it by radix, in linear time.
        order = np.argsort(states[self.phase_index].astype(np.int16), kind="stable")
        states = np.take(states, order, axis=1)
        counts = np.bincount(states[self.phase_index], minlength=len(self.by_phase))
        start = 0
        self.deadlocked.clear()
        for phase, count in enumerate(counts.tolist()):
            if count and self.by_phase[phase]:
                self._group = np.arange(start, start + count)
                self._block = slice(start, start + count)
                self._phase_step(phase, states, self._group, rng, fallback)
            start += count
        self._group, self._block = np.arange(0), slice(0, 0)
        return states, order

    def _rows(self, states: Array, games: Array) -> Rows:
        """The games as the emitted code reads them: a phase's whole group as slices."""
        return Rows(states, games, self._block if games is self._group else None)

    def _phase_step(self, phase: int, states: Array, games: Array, rng: np.random.Generator,
                    fallback: Random) -> None:
        rules = self.by_phase[phase]
        self._moved = []
        stuck_before = len(self.deadlocked)
        try:
            actor = rules[0].rule.actor
            if actor == "game":
                rest = self._forced(rules, states, games)
            elif actor == "chance" and len(rules) == 1 and rules[0].uniform and rules[0].domains:
                rest = self._rejection(phase, rules, states, games, rng)
            elif actor == "chance":
                rest = self._weighted_chance(rules, states, games, rng)
            else:
                rest = self._choice(phase, rules, states, games, rng)
        except HandOver:
            # Whatever moved before the value that could not be held stays moved.
            done = np.concatenate([*self._moved, np.array(self.deadlocked[stuck_before:], dtype=np.int64)])
            rest = np.setdiff1d(games, done)
        self._one_by_one(states, rest, fallback)

    def _apply(self, rule: BatchRule, states: Array, games: Array, args: Sequence[Any]) -> None:
        if not len(games):
            return
        values = rule.effect(self._rows(states, games), *args)
        self._moved.append(games)
        if games is self._group:
            # Read as slices of the rows it writes: every value is copied out before any is
            # written, so that `a = b, b = a` swaps.
            copies = [np.array(value, dtype=np.int64) for value in values]
            for row, value in zip(rule.writes, copies):
                states[row, self._block] = value
            return
        for row, value in zip(rule.writes, values):
            states[row, games] = value

    def _forced(self, rules: tuple[BatchRule, ...], states: Array, games: Array) -> Array:
        sub = self._rows(states, games)
        left = np.ones(len(games), dtype=bool)
        moves: list[tuple[BatchRule, Array]] = []
        for rule in rules:
            holds = np.broadcast_to(np.asarray(rule.allowed(sub), dtype=bool), left.shape)
            if not moves and holds.all():
                moves.append((rule, games))                 # every game takes the first rule
                left[:] = False
                break
            moves.append((rule, games[left & holds]))
            left &= ~holds
        for rule, chosen in moves:
            self._apply(rule, states, chosen, ())
        self.deadlocked.extend(games[left].tolist())      # no game rule applies
        return games[:0]

    def _rejection(self, phase: int, rules: Sequence[BatchRule], states: Array, games: Array,
                   rng: np.random.Generator) -> Array:
        """Each game's move by rejection sampling, as the one-game engine draws it: a (rule,
        parameters) pair uniform over the union of the rules' domains, kept when its
        requirements hold. A round draws several candidates per game and keeps each
        game's first legal one (the first success of independent uniform draws is
        uniform over the legal moves); how many follows the share of candidates the
        phase accepted so far, so a deal (one in eight legal) and a vote (one in two)
        both end in two or three rounds. Returns the games left undecided."""
        pending = games
        for round_number in range(ROUNDS):
            if not len(pending):
                break
            sub = self._rows(states, pending)
            bounds = np.empty((len(rules), len(pending)), dtype=np.int64)
            for number, rule in enumerate(rules):
                size: Any = 1
                for domain in rule.domains:
                    size = size * domain.size(sub)
                bounds[number] = size if number == 0 else bounds[number - 1] + size
            empty = bounds[-1] <= 0                 # no candidate move at all: a deadlock
            self.deadlocked.extend(pending[empty].tolist())
            if empty.any():
                pending, bounds = pending[~empty], np.compress(~empty, bounds, axis=1)
            width = len(pending)
            # About one legal candidate per game in the first round; the few games left
            # after it get eight times as many, so that a round or two decide them all.
            tries = min(MAX_TRIES, max(1, math.ceil(1.0 / self._acceptance[phase])) * (8 if round_number else 1))
            # Candidate c of game g sits at row g, column c (flat: g * tries + c); the
            # rule it is of: how many of the rules' cumulative sizes its point passes.
            point = (rng.random((width, tries)) * bounds[-1][:, None]).astype(np.int64)
            passed = np.zeros((width, tries), dtype=np.int64)
            for bound in bounds[:-1]:
                passed += point >= bound[:, None]
            picked = passed.reshape(-1)
            legal = np.zeros(tries * width, dtype=bool)
            drawn: list[tuple[Array, list[Array]]] = []
            for number, rule in enumerate(rules):
                mine = np.flatnonzero(picked == number) if len(rules) > 1 else np.arange(tries * width)
                candidates = Rows(states, pending[mine // tries])
                args = [domain.draw(candidates, rng) for domain in rule.domains]
                legal[mine] = np.broadcast_to(np.asarray(rule.allowed(candidates, *args), dtype=bool), mine.shape)
                drawn.append((mine, args))
            self._acceptance[phase] = 0.5 * self._acceptance[phase] + 0.5 * max(float(legal.mean()), 1.0 / MAX_TRIES)
            grid = legal.reshape(width, tries)
            found = grid.any(axis=1)
            first = np.arange(width) * tries + np.argmax(grid, axis=1)       # each game's first legal candidate
            winner = np.zeros(tries * width, dtype=bool)
            winner[first[found]] = True
            for number, rule in enumerate(rules):
                mine, args = drawn[number]
                keep = winner[mine]
                if keep.any():
                    self._apply(rule, states, pending[mine[keep] // tries], [arg[keep] for arg in args])
            pending = pending[~found]
        return pending

    def _candidates(self, rules: Sequence[BatchRule], sub: Rows, chance: bool,
                    limit: int) -> tuple[Listing, Array] | None:
        """`_listed`, for chance computed once per distinct value of the fields its rules
        read: a draw reads the pile, so thousands of games share a few dozen values (the
        one-game engine memoizes chance outcomes alike). A seat's few candidates cost
        less to list than the distinct values cost to find (measured)."""
        reads = sorted({row for rule in rules if rule.rule.actor == "chance" or not chance for row in rule.reads})
        if not chance or sub.width < MEMO_FROM or not reads:
            return self._listed(rules, sub, chance, limit)
        found = _distinct([sub[row] for row in reads], sub.width)
        if found is None:
            return self._listed(rules, sub, chance, limit)
        distinct, inverse = found
        few = np.zeros((sub.states.shape[0], distinct.shape[1]), dtype=np.int64)
        few[reads] = distinct
        listed = self._listed(rules, Rows(few, np.arange(distinct.shape[1])), chance, limit)
        if listed is None:
            return None
        moves, weights = listed
        return moves, weights.take(inverse, axis=1)

    def _listed(self, rules: Sequence[BatchRule], sub: Rows, chance: bool,
                limit: int) -> tuple[Listing, Array] | None:
        """Every move of the rules (chance's only, or every rule's) with its weight in each
        game of `sub`: rows are moves, 0 where the move is not legal in that game (its
        weight for chance, 1 for a seat's or the table's move). None when the rules have
        more than `limit` candidate moves in the batch. A rule's candidates are judged in
        one call: its parameters a column of values, the games a row, so the arrays
        broadcast to a move per row."""
        width = sub.width
        chosen = []
        for rule in rules:
            if chance and rule.rule.actor != "chance":
                continue
            if math.prod(domain.most() or 1 for domain in rule.domains) > limit:
                return None
            ready = np.flatnonzero(np.broadcast_to(np.asarray(rule.ready(sub), dtype=bool), (width,)))
            if len(ready):
                mine = sub if len(ready) == width else sub.subset(ready)
                chosen.append((rule, ready, mine, [domain.values(mine) for domain in rule.domains]))
        if sum(math.prod(len(values) for values, _ in domains) for *_, domains in chosen) > limit:
            return None
        listing = Listing()
        weights: list[Array] = []
        for rule, ready, mine, domains in chosen:
            grid = [axis.reshape(-1) for axis in np.meshgrid(*(np.array(values, dtype=np.int64)
                                                              for values, _ in domains), indexing="ij")]
            count = len(grid[0]) if grid else 1
            if not count:
                continue
            columns = [axis.reshape(-1, 1) for axis in grid]
            legal: Any = np.broadcast_to(np.asarray(rule.allowed(mine, *columns), dtype=bool), (count, mine.width))
            for (_, holds), column in zip(domains, columns):
                legal = legal & holds(column)
            if chance and rule.weight is not None:
                weight = np.asarray(rule.weight(mine, *columns), dtype=np.int64)
                chances = np.broadcast_to(np.where(legal & (weight > 0), weight, 0), (count, mine.width))
            else:
                chances = np.broadcast_to(np.asarray(legal, dtype=np.int64), (count, mine.width))
            rows = np.zeros((count, width), dtype=np.int64)
            rows[:, ready] = chances
            weights.append(rows)
            listing.rules.append(rule)
            listing.owner.append(np.full(count, len(listing.rules) - 1, dtype=np.int64))
            listing.args.append(np.stack(grid, axis=1) if grid else np.zeros((count, 0), dtype=np.int64))
        if not weights:
            return listing, np.zeros((0, width), dtype=np.int64)
        return listing, np.concatenate(weights)

    def _draw_listed(self, rules: Sequence[BatchRule], states: Array, games: Array, rng: np.random.Generator,
                     chance: bool, limit: int) -> Array | None:
        """Each game's move drawn from its listed candidates in proportion to their weights
        (a game with none is in a deadlock); None when there are too many to list."""
        listed = self._candidates(rules, self._rows(states, games), chance, limit)
        if listed is None:
            return None
        self._draw_from(*listed, states, games, rng)
        return games[:0]

    def _draw_from(self, listing: Listing, weights: Array, states: Array, games: Array,
                   rng: np.random.Generator) -> None:
        """Each game's move, one of the listed moves in proportion to its weight in that
        game; the games are moved rule by rule, each with its own parameters."""
        if not len(listing):
            self.deadlocked.extend(games.tolist())
            return
        bounds = np.cumsum(weights, axis=0)
        some = bounds[-1] > 0
        point = (rng.random(len(games)) * bounds[-1]).astype(np.int64)
        picked = np.minimum((bounds <= point).sum(axis=0), len(bounds) - 1)
        owner = np.concatenate(listing.owner)[picked]
        widest = max(rows.shape[1] for rows in listing.args)
        args = np.concatenate([np.pad(rows, ((0, 0), (0, widest - rows.shape[1]))) for rows in listing.args])
        for number, rule in enumerate(listing.rules):
            mine = some & (owner == number)
            if not mine.any():
                continue
            chosen = picked[mine]
            values = [args[chosen, k] for k in range(len(rule.domains))]
            self._apply(rule, states, games if mine.all() else games[mine], values)
        self.deadlocked.extend(games[~some].tolist())

    def _weighted_chance(self, rules: tuple[BatchRule, ...], states: Array, games: Array,
                         rng: np.random.Generator) -> Array:
        left = self._draw_listed(rules, states, games, rng, True, MAX_OUTCOMES)
        if left is None:
            raise HandOver("too many chance outcomes to list")
        return left

    def _choice(self, phase: int, rules: tuple[BatchRule, ...], states: Array, games: Array,
                rng: np.random.Generator) -> Array:
        if any(rule.rule.actor == "chance" for rule in rules):
            # The power phase: chance moves (a Policy Peek) where it has outcomes now.
            listed = self._candidates(rules, self._rows(states, games), True, MAX_OUTCOMES)
            if listed is None:
                raise HandOver("too many chance outcomes to list")
            moves, weights = listed
            chance = weights.sum(axis=0) > 0 if len(moves) else np.zeros(len(games), dtype=bool)
            if chance.any():
                self._draw_from(moves, np.compress(chance, weights, axis=1), states, games if chance.all() else games[chance], rng)
            games = games[~chance]
            if not len(games):
                return games
        # Few candidates (a nomination, a power's target): list them, one draw each.
        left = self._draw_listed(rules, states, games, rng, False, LISTED)
        if left is not None:
            return left
        # Many (a vote's Ja sets): rejection sampling over the union of the domains.
        return self._rejection(phase, rules, states, games, rng)

    def _one_by_one(self, states: Array, games: Array, fallback: Random) -> None:
        """The one-game engine's move for each game the arrays left undecided."""
        game = self.game
        for column in games.tolist():
            self.handed_over += 1
            state = game.make_state(states[:, column].tolist())
            try:
                after = game.random_step(state, fallback)
            except AssertionError:
                self.deadlocked.append(column)
                continue
            if after is not None:
                states[:, column] = after

    # -------------------------------------------------------------- many games

    def _restart(self, states: Array, moves: Array, ended: Array, games: int | None,
                 started: int) -> tuple[Array, Array, int]:
        """New games in the columns of games that ended, while games are still to be
        started; the other columns leave the batch, so that it only ever holds games in
        play and a run's last games are not stepped among empty columns."""
        fresh = len(ended) if games is None else max(0, min(len(ended), games - started))
        states[:, ended[:fresh]] = self.initial[:, None]
        moves[ended[:fresh]] = 0
        if fresh < len(ended):
            keep = np.ones(states.shape[1], dtype=bool)
            keep[ended[fresh:]] = False
            states, moves = np.compress(keep, states, axis=1), moves[keep]
        return states, moves, started + fresh

    def play(self, games: int | None = None, seconds: float | None = None, seed: int = 0, batch: int = BATCH,
             max_moves: int = MAX_MOVES, finals: list[tuple[int, ...]] | None = None) -> BatchedPlay:
        """Play complete random games `batch` at a time: `games` of them, or as many as
        `seconds` of CPU time allow (a game in flight at the deadline is not counted).
        `finals`, when given, receives each complete game's last state."""
        if games is None and seconds is None:
            raise ValueError("give games, seconds or both")
        rng = np.random.default_rng(seed)
        fallback = Random(seed)
        game = self.game
        figure = BatchedPlay(game.players)
        width = batch if games is None else max(1, min(batch, games))
        states = np.repeat(self.initial[:, None], width, axis=1)
        moves = np.zeros(width, dtype=np.int64)
        started = width
        winner_row = game.field_names.index("winner") if "winner" in game.field_names else None
        how_row = game.field_names.index("how") if "how" in game.field_names else None
        start = time.process_time()
        deadline = None if seconds is None else start + seconds
        self.handed_over = 0
        self._acceptance = [1.0] * len(self.by_phase)        # the same seed plays the same games, run after run
        with np.errstate(all="ignore"):
            while True:
                phases = states[self.phase_index]
                over = self.over[phases]
                cut = ~over & (moves >= max_moves)
                ended = np.flatnonzero(over | cut)
                if len(ended):
                    done = np.flatnonzero(over)
                    figure.games += len(done)
                    figure.moves += int(moves[done].sum())
                    figure.unfinished += int(cut.sum())
                    if finals is not None:
                        finals.extend(tuple(column) for column in states[:, done].T.tolist())
                    if winner_row is not None and how_row is not None:
                        pairs = Counter(zip(states[winner_row, done].tolist(), states[how_row, done].tolist()))
                        for (winner, how), count in pairs.items():
                            figure.outcomes[(_named(game, "team", winner), _named(game, "how", how))] += count
                    states, moves, started = self._restart(states, moves, ended, games, started)
                    phases = states[self.phase_index]
                if not states.shape[1]:
                    break
                if deadline is not None and games is None and time.process_time() >= deadline:
                    # Start no more games; those in flight are played out and counted, so
                    # the figure is not biased towards the games that end soonest.
                    games = started
                stepped = ~self.over[phases]
                figure.choices += int(np.count_nonzero(self.choice[phases] & stepped))
                moves += stepped
                states, order = self.step(states, rng, fallback)      # a game that is over is not moved
                moves = moves[order]
                if self.deadlocked:
                    figure.deadlocks += len(self.deadlocked)
                    stuck = np.array(self.deadlocked, dtype=np.int64)
                    states, moves, started = self._restart(states, moves, stuck, games, started)
        figure.seconds = time.process_time() - start
        figure.handed_over = self.handed_over
        return figure


def _distinct(rows: list[Array], width: int) -> tuple[Array, Array] | None:
    """The distinct columns of `rows` (one value per game in each) and, per game, the
    number of its column among them; None when the values span too large a space for a
    table (then sorting would cost more than the work saved). A table of the mixed-radix
    codes finds them in a few passes over the games, with no sort."""
    lows = [int(row.min()) for row in rows]
    spans = [int(row.max()) - low + 1 for row, low in zip(rows, lows)]
    space = math.prod(spans)
    if space > max(MEMO_SPACE, width):
        return None
    code = np.zeros(width, dtype=np.int64)
    for row, low, span in zip(rows, lows, spans):
        code = code * span + (row - low)
    present = np.zeros(space, dtype=bool)
    present[code] = True
    codes = np.flatnonzero(present)
    if len(codes) * 4 > width:
        return None
    number = np.zeros(space, dtype=np.int64)
    number[codes] = np.arange(len(codes))
    distinct = np.empty((len(rows), len(codes)), dtype=np.int64)
    rest = codes
    for position in range(len(rows) - 1, -1, -1):
        distinct[position] = rest % spans[position] + lows[position]
        rest = rest // spans[position]
    return distinct, number[code]


def _named(game: Game, enum: str, value: int) -> str | None:
    members: Sequence[str] = game.spec.enums.get(enum, [])
    name = members[value] if 0 <= value < len(members) else None
    return None if name in (None, "none") else name


def batched_game(players: int, rules: str = "standard") -> BatchedGame:
    """The batched form of the named rules' game for `players`."""
    return BatchedGame(compiled_game(players, rules))


def share_interval(share: float, games: int) -> float:
    """Half the width of the 95% interval (normal approximation) of a share of `games`
    random games; two independent shares differ beyond chance when their difference
    exceeds the root of the sum of their squared half-widths."""
    return 1.96 * math.sqrt(share * (1 - share) / games) if games else 0.0


def bench_batched_play(players: int, seconds: float = 3.0, seed: int = 0, rules: str = "standard") -> BatchedPlay:
    """Batched random play for about `seconds` of CPU time, the games in flight then
    played out and counted. Fewer games are in flight for a short run, so that playing
    them out does not outlast it by much."""
    batch = min(BATCH, max(512, int(seconds * 6000)))
    return batched_game(players, rules).play(seconds=seconds, seed=seed, batch=batch)

