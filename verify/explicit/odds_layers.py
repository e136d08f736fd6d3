"""Exact odds over numpy: the mass of a whole layer of the ranking pushed at once.

The same computation as odds.py (read its docstring first): the probability mass of the
start state pushed forward through the complete state graph in the order of the proved
ranking, split by rounds played (R-E1) and by whether the `--given` condition has held.
There a state at a time goes through the one-game engine; here a layer (every state of one
rank) goes through the rules compiled to array operations (engine/batched.py), as the
layered search (layers.py) takes it, whose pieces this module reuses: the packed keys,
the canonical form (rotation, the cone's fixed fields), the fused forced moves, the
ranking and the candidate grids.

A layer is a set of rows, one per (state, rounds, held), each with its mass (rounds
stay 0 without `within`: then a state has a row, or two with a condition). The rows are
merged (`keys.distinct_groups` on the states, then one sort of (state, rounds, held)) and
their masses summed; each distinct state is expanded once into its moves, each with its
probability, and every row of the state is then multiplied through every move of the
state: the array form of odds.py's "a small vector of masses per state".

The probabilities are those of engine/strategy.py `Policy` and `Game.chance_outcomes`:
- chance: every outcome of the phase's chance rules with its rule weight, over their sum
  (in a phase where a seat may also move, chance moves where it has outcomes);
- a seat's choice: every legal move of the phase (requirements, domain, rule weight > 0)
  with the profile's weight, read from what the actor sees (the viewer, its `[view]`
  items as it is shown them, the public counts, the profile's parameters: `_seen`, the
  arrays twin of `Policy._seen`), over their sum; a weight below 0 or all 0 is refused;
- the table's vote: each living voter says Ja with its own odds ja/(ja + nein), read from
  its own view; the vote rules read their Ja set only through its size (Policy's
  `by_size`, reductions.py (b)), so the lowest k voters stand for every set of k, with the
  probability of k Ja votes (`engine.strategy._sizes`, computed once per distinct tuple of
  voters' odds in a layer).
Every probability is an exact fraction, kept once in a table (`_Odds`), and the moves
carry its number.

Where the arrays cannot represent something, the pass stops with `Unbatchable` and
`fast_odds` runs the per-state pass instead, saying so (`Odds.method`, `Odds.fallback`): a
value past the arrays' bounds (engine/batched.py `HandOver`), two forced rules holding at
once (the one-game engine takes the first, the fused chains branch), a vote rule that
reads its Ja set beyond its size, a chance rule without weight. A limit (time, states), a
move that does not lower the ranking, a state out of its range or a state with no move
leave the result incomplete, as in odds.py.

Memory. The rows waiting for their layer are the pass's memory (a layer's states are met
again and again before it is taken, each meeting a row). In floats, with a folder to
spill to (`shrules odds` gives one under $TMPDIR), once those kept take
`PENDING_IN_MEMORY` bytes the later rows go to disk as the layered search's do
(layers.py `_Pending`, its rows kept whole: a row's mass is summed with the others of
its state when the layer is taken, never dropped as a duplicate), each with its own key,
and come back in the order they came when their rank comes up: the merge sees the same
rows, so the figures are the same floats. Exact rows stay in memory: each part's limbs
are over its own denominator, which a record joining many parts would have to bring to
a common one. A pass that cannot end within its time limit at its pace so far stops
early (layers.py `_hopeless`), its odds unknown, as at the limit itself.

Exact numbers. A batch of masses (a pending part, a merged layer) shares one denominator,
a Python integer, and each mass is its integer numerator held as limbs over numpy
(limbs.py): a move multiplies the numerators by its probability times the common
denominator of the batch's moves (an integer), a merge brings the parts to the lcm of
their denominators and adds, and each merged layer is divided by the common factor of its
numerators and its denominator (found on a sample, tried on all: limbs.reduced), which
keeps the numbers near the size of the masses' own reduced denominators (a few hundred
bits at 5 players). Measured on the 5-player graph under `uniform` (1,237,754 states,
29 M rows pushed), CPU seconds of the whole pass: `gmpy2.mpq` rationals in object
arrays 33 s (`fractions.Fraction` 7 times slower per operation still), limbs 7.6 s; the
floats 4.7 s. The figures are handed back as `Fraction`, as odds.py gives them.

Floats and their bound. Every figure is a sum of products of non-negative numbers. Each
mass carries `chain`, a bound on the roundings it went through: a move's probability is
one rounding (a fraction to the nearest float), the product a second (+2); a merge of m
rows of one (state, rounds, held) is `numpy.bincount`'s sum, done in order, so each of
them goes through at most m - 1 additions (the merged chain is the largest of the m plus
m - 1); the figures (outcomes, rounds, elections) are summed per part in pairs, the pairs' sums
in pairs and so on (`_halving_sum`: each term through ceil(log2 n) additions), and the
parts' sums added exactly (as fractions), with one last rounding: + ceil(log2 n) + 1. Every quantity computed with at most c roundings of relative size u = 2**-53
of non-negative terms is within γ_c = c·u/(1 − c·u) of the exact one (Higham, Accuracy
and Stability of Numerical Algorithms, lemma 3.1 and §4.2), so `Odds.error_bound` is
γ of the largest chain.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from engine.batched import BatchRule, HandOver, Rows, compile_batch_expression
from engine.game import Game, PhaseKind
from engine.strategy import EVEN, Policy, _sizes
from spec.errors import SpecError
from spec.lang.nodes import Node
from spec.strategies import Strategy, profile_names

from ..results import Limits
from .codec import Codec
from .explore import resident_mib
from . import limbs
from .keys import Words, distinct_groups, mixed
from .layers import CHUNK, DISK_FULL, PENDING_IN_MEMORY, SPILL_BUFFER, LayeredSearch, _Pending, ready_columns
from .model import Model
from .odds import NO_RANKING, Odds, memory_stop, odds, prepared
from .reductions import Reductions, Representative, pivot_field
from .sweep import NOT_DECREASING, ranking_of

Array = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

LAYERS = "layers"
"""The `Odds.method` of odds computed here."""


VOTE_ODDS_KEPT = 100_000
"""The vote's odds kept per tuple of voters' weights (`_Pass.vote_odds`): `partisan` gives
a few hundred; a profile whose weights vary more is computed again past this, not kept."""


Progress = Callable[[float, int, float], None]
"""Told after each layer: the share of the ranking swept (0 to 1), the states taken so far
and the peak resident MiB."""


class Unbatchable(Exception):
    """Something the arrays cannot represent: the per-state pass computes the odds instead."""


def _halving_sum(values: npt.NDArray[np.float64]) -> tuple[float, int]:
    """The sum of non-negative floats, added in pairs, then the pairs' sums in pairs, and
    so on: each term goes through `depth` = ceil(log2 n) additions (a zero added to pad a
    level is exact), the chain of roundings the module docstring counts."""
    depth = 0
    while len(values) > 1:
        if len(values) % 2:
            values = np.append(values, 0.0)
        values = values[0::2] + values[1::2]
        depth += 1
    return float(values[0]), depth


TABLE_PER_CODE = 32
"""How much larger than the codes their space may be for `_groups` to table it: a byte
and a running count per entry of the space, against a sort of the codes (an argsort of a
few million codes took a fifth of the 5-player pass)."""


def _groups(codes: Array, space: int) -> tuple[Array, Array]:
    """The distinct values of `codes` (each in 0..space-1), ascending, and each code's
    position among them: by a table of the space when it is not much larger than the
    codes (no sort), else by sorting."""
    if space <= max(TABLE_PER_CODE * len(codes), 1 << 16):
        present = np.zeros(space, dtype=bool)
        present[codes] = True
        distinct = np.flatnonzero(present)
        number = np.cumsum(present) - 1
        return number[codes], distinct
    distinct, inverse = np.unique(codes, return_inverse=True)
    return inverse.ravel(), distinct


class _Stop(Exception):
    def __init__(self, limit: str) -> None:
        super().__init__(limit)
        self.limit = limit


def fast_odds(game: Game, strategy: Strategy, *, exact: bool, given: str | None = None,
              seconds: float | None = None, max_states: int | None = None, rotation: bool = True,
              spill: str | None = None, in_memory: int = PENDING_IN_MEMORY, memory_mib: int | None = None,
              within: bool = True, progress: Progress | None = None) -> Odds:
    """The odds by the layered pass, or by the per-state pass (odds.py) where the arrays
    cannot represent the rules or the profile: then `fallback` says why. `spill`,
    `in_memory`, `memory_mib`, `within`, `progress`: as `layered_odds`."""
    started, cpu = time.perf_counter(), time.process_time()
    try:
        return layered_odds(game, strategy, exact=exact, given=given, seconds=seconds, max_states=max_states,
                            rotation=rotation, spill=spill, in_memory=in_memory, memory_mib=memory_mib,
                            within=within, progress=progress)
    except (Unbatchable, HandOver) as why:
        spent = time.perf_counter() - started
        left = None if seconds is None else max(0.0, seconds - spent)
        result = odds(game, strategy, exact=exact, given=given, seconds=left, max_states=max_states,
                      rotation=rotation, memory_mib=memory_mib, within=within)
        result.fallback = str(why) or type(why).__name__
        result.seconds += spent
        result.cpu_seconds = time.process_time() - cpu
        return result


def layered_odds(game: Game, strategy: Strategy, *, exact: bool, given: str | None = None,
                 seconds: float | None = None, max_states: int | None = None, rotation: bool = True,
                 spill: str | None = None, in_memory: int = PENDING_IN_MEMORY, memory_mib: int | None = None,
                 within: bool = True, progress: Progress | None = None) -> Odds:
    """The odds of `game` under `strategy` a layer at a time (module docstring); raises
    `Unbatchable` (or `HandOver`) where the arrays cannot represent something. `spill`: a
    folder the rows waiting for their layer go to once those in memory take `in_memory`
    bytes (floats only: `_Pass.put`). `memory_mib`: the resident MiB at which the pass
    stops, its odds unknown (odds.py `memory_stop`). `within`: the odds of a win within k
    rounds too, a row per round count (odds.py: the split the pass costs most). `progress`:
    called after each layer with the share of the ranking swept, the states taken and the
    resident MiB."""
    started, cpu = time.perf_counter(), time.process_time()
    result, condition = prepared(game, strategy, exact, given, rotation, within)
    result.method = LAYERS
    if ranking_of(game) is None:
        result.limit = NO_RANKING
        return result
    deadline = None if seconds is None else started + seconds
    try:
        _Pass(game, strategy, result, condition, exact, spill, in_memory, memory_mib, progress).run(
            started, seconds, deadline, max_states)
    finally:
        result.seconds = time.perf_counter() - started
        result.cpu_seconds = time.process_time() - cpu
        result.peak_mib = max(result.peak_mib, resident_mib())
    return result


class _Odds:
    """Every probability of a move met so far, each exact fraction once: moves carry its
    number; `values` gives them as the nearest floats, `multipliers` over a common
    denominator; `primes` are the primes of every denominator (what `limbs.reduced` tries)."""

    def __init__(self) -> None:
        self.table: list[Fraction] = []
        self.number: dict[Fraction, int] = {}
        self.primes: list[int] = []
        self._values: npt.NDArray[np.float64] | None = None

    def of(self, odds: Fraction) -> int:
        found = self.number.get(odds)
        if found is None:
            found = self.number[odds] = len(self.table)
            self.table.append(odds)
            self._values = None
            self.primes = sorted(set(self.primes) | _prime_factors(odds.denominator))
        return found

    def multipliers(self, numbers: Array) -> tuple[int, limbs.Limbs]:
        """For moves with these probabilities: a common denominator B of them, and for each
        move its probability times B (an integer), as a column of digits."""
        used = np.flatnonzero(np.bincount(numbers, minlength=len(self.table)))
        place = np.zeros(len(self.table), dtype=np.int64)
        place[used] = np.arange(len(used))
        fractions = [self.table[number] for number in used.tolist()]
        common = math.lcm(*(odds.denominator for odds in fractions)) if fractions else 1
        columns = [limbs.digits(odds.numerator * (common // odds.denominator)) for odds in fractions]
        rows = max((len(column) for column in columns), default=1)
        table = np.array([[column[row] if row < len(column) else 0 for column in columns] for row in range(rows)],
                         dtype=np.int64).reshape(rows, len(columns))
        return common, table.take(place[numbers], axis=1)

    def ratios(self, num: Array, den: Array) -> Array:
        """The numbers of the fractions num/den (den > 0), a pair at a time."""
        if not len(num):
            return np.zeros(0, dtype=np.int64)
        span = int(den.max()) + 1
        inverse, pairs = _groups(den * span + num, span * span)
        numbers = np.array([self.of(Fraction(int(pair % span), int(pair // span))) for pair in pairs.tolist()],
                           dtype=np.int64)
        found: Array = numbers[inverse]
        return found

    def values(self) -> npt.NDArray[np.float64]:
        """Each probability as the nearest float (one rounding)."""
        if self._values is None or len(self._values) != len(self.table):
            self._values = np.array([float(odds) for odds in self.table], dtype=np.float64)
        return self._values


def _prime_factors(number: int) -> set[int]:
    """The primes of a (small) denominator, by trial division."""
    out, factor = set(), 2
    while factor * factor <= number:
        while number % factor == 0:
            out.add(factor)
            number //= factor
        factor += 1
    if number > 1:
        out.add(number)
    return out


class _Block(NamedTuple):
    """Moves of one rule from some states: the column each leaves, its arguments, the
    number of its probability (`_Odds`)."""

    rule: BatchRule
    origin: Array
    args: list[Array]
    odds: Array


class _Rows(NamedTuple):
    """Rows of masses waiting for their layer: some states (packed keys, each once), and
    per row its state among them, rounds, held, its mass and (floats) its chain of
    roundings. Rows with the same state, rounds and held are merged when their layer is
    taken."""

    keys: Words
    state: Array
    rounds: Array
    held: Bools
    mass: npt.NDArray[Any]      # floats, or (exact) numerators as limbs over `denominator`
    chain: Array
    denominator: int


def _chosen(part: _Rows, chosen: Bools) -> _Rows:
    """The rows of `part` whose states are `chosen`, the states renumbered among those."""
    number = np.cumsum(chosen) - 1
    rows = chosen[part.state]
    return _Rows(part.keys[:, chosen], number[part.state[rows]], part.rounds[rows], part.held[rows],
                 part.mass[..., rows], part.chain[rows], part.denominator)


def _read(keys: list[Words], carried: dict[str, list[Array]]) -> list[_Rows]:
    """Rows read back from disk (`_Pass.put`: each with its own key) as parts."""
    return [_Rows(words, np.arange(words.shape[1], dtype=np.int64), rounds.astype(np.int64), held, mass,
                  chain.astype(np.int64), 1)
            for words, rounds, held, mass, chain in zip(keys, *(carried[name] for name in _SPILLED))]


LAYER_ROWS = 1 << 24
"""Rows of a layer merged at once: a larger layer (7 players under `partisan` and up) is
merged and expanded in slices, each merge sorting a few hundred MiB (`_Pass._layer`)."""

_SPILLED = ("rounds", "held", "mass", "chain")
"""The columns of a row written to disk beside its state's key (`_Pass.put`)."""


@dataclass
class _Weighed:
    """One rule's legal moves from some states, with a weight each, before normalising."""

    rule: BatchRule
    origin: Array
    args: list[Array]
    weight: Array


class _Pass:
    """One forward pass, layer by layer (module docstring)."""

    def __init__(self, game: Game, strategy: Strategy, result: Odds, condition: Node | None, exact: bool,
                 spill: str | None = None, in_memory: int = PENDING_IN_MEMORY, memory_mib: int | None = None,
                 progress: Progress | None = None) -> None:
        self.game, self.strategy, self.result, self.exact = game, strategy, result, exact
        self.progress = progress
        self.memory_mib = memory_mib        # resident MiB at which the pass stops (`_watch`)
        # Rows waiting for their layer: in memory up to `in_memory` bytes (`memory`), then
        # (floats, with a folder) on disk, a layer's in its `_Pending` file (`put`).
        self.folder = None if exact else spill
        self.in_memory, self.memory, self.buffered = in_memory, 0, 0
        self.spilled: dict[int, _Pending] = {}
        players = game.players
        self.players = players
        model = Model(game, (), Reductions(symmetry=False, representatives=False))
        model.codec = Codec(game, kept=frozenset(result.kept),
                            pivot=pivot_field(game.spec) if result.rotation else None)
        search = self.search = LayeredSearch(model)
        self.batched = search.batched
        self.policy = Policy(game, strategy)
        for compiled in game.rules:
            if compiled.rule.actor == "table" and not self.policy.by_size[compiled.rule.name]:
                raise Unbatchable(f"vote rule '{compiled.rule.name}' reads its Ja set beyond its size")
            if compiled.rule.actor == "table" and compiled.rule.weight is not None:
                raise Unbatchable(f"vote rule '{compiled.rule.name}' has a weight")
            if compiled.rule.actor == "chance" and compiled.rule.weight is None:
                raise Unbatchable(f"chance rule '{compiled.rule.name}' has no weight")
        # The vote's Ja sets by size (Policy's `by_size`): the lowest k voters for each k.
        search.representatives = tuple(
            {0: Representative(0, compiled.rule.params[0].domain.of, False)}       # type: ignore[arg-type]
            if compiled.rule.actor == "table" else {} for compiled in game.rules)
        self.phase, self.over = game.phase_index, game.over_phase
        self.game_phase = search.game_phase
        self.kind = game.phase_kind
        rounds = {c.index for c in game.by_role["nomination"]}
        elections = {c.index for c in game.by_role["election"]}
        self.nominates = np.array([index in rounds for index in range(len(game.rules))], dtype=bool)
        self.elects = np.array([index in elections for index in range(len(game.rules))], dtype=bool)
        self.test = None if condition is None else compile_batch_expression(game.spec, players, condition)
        # The profile over arrays: its weights, what an actor sees.
        names = profile_names(game.spec)
        spec = strategy.spec
        extra = [*names, *strategy.parameters]
        self.weights: dict[int, Callable[..., Any]] = {
            game.by_name[rule].index: compile_batch_expression(
                spec, players, weight.node, [param.name for param in game.by_name[rule].rule.params] + extra)
            for rule, weight in strategy.moves.items() if rule in game.by_name}
        self.ja = None if strategy.ja is None else compile_batch_expression(spec, players, strategy.ja.node, extra)
        self.nein = None if strategy.nein is None else compile_batch_expression(spec, players, strategy.nein.node,
                                                                                extra)
        self.view = [(compile_batch_expression(game.spec, players, item.to),
                      compile_batch_expression(game.spec, players, item.what, ["viewer"]), nothing)
                     for item, nothing in zip(game.spec.view, self.policy.unshown)]
        self.counts = [compile_batch_expression(game.spec, players, node) for node in game.spec.public.values()]
        self.parameters = tuple(strategy.parameters.values())
        self.actor: dict[int, Callable[..., Any]] = {
            compiled.index: compile_batch_expression(game.spec, players, compiled.rule.actor_seat)
            for compiled in game.rules if compiled.rule.actor_seat is not None}
        self.odds = _Odds()
        self.vote_odds: dict[tuple[int, ...], Array] = {}     # `_vote_odds` by its tuple
        self.zero = Fraction(0)
        self.sums: dict[tuple[str, Any], Fraction] = {}      # the figures, summed exactly (module docstring)
        self.held: Bools = np.zeros(0, dtype=bool)
        search.on_forced = self._forced

    # ------------------------------------------------------------------ the sweep

    def run(self, started: float, seconds: float | None, deadline: float | None, max_states: int | None) -> None:
        search, result = self.search, self.result
        initial = search.initial.copy()
        top = int(np.asarray(search.rank(Rows(initial, np.arange(1), slice(None)))).ravel()[0])  # type: ignore[misc]
        held = self._holds(initial)
        zero = np.zeros(1, dtype=np.int64)
        pending: dict[int, list[_Rows]] = {top: [_Rows(search.keys(initial), zero, zero, held, self._ones(1), zero, 1)]}
        try:
            while pending or self.spilled:
                rank = max([*pending, *self.spilled])
                parts = pending.pop(rank, [])
                self.memory -= sum(part.keys.nbytes + sum(column.nbytes for column in part[1:6]) for part in parts)
                layer = self.spilled.pop(rank, None)
                if layer is not None:
                    self.buffered -= layer.buffered_bytes
                try:
                    self._layer(rank, parts, layer, pending, deadline, max_states)
                finally:
                    if layer is not None:
                        layer.discard()
                result.layers += 1
                if self.progress is not None:
                    self.progress((top - rank) / top if top else 1.0, result.states, result.peak_mib)
                # The pace of the search's sweep (layers.py `_hopeless`): a pass that
                # cannot end within the time limit stops now, its odds unknown.
                pace = LayeredSearch._hopeless(Limits(time_limit=seconds), time.perf_counter() - started, rank, top)
                if pace:
                    raise _Stop(pace)
        except _Stop as stop:
            result.limit = stop.limit
            return
        except OSError as error:
            if error.errno not in DISK_FULL:
                raise
            result.limit = (f"limit: disk (no space left in {self.folder or error.filename} after "
                            f"{result.states:,} states: the rows waiting for their layer are kept there; TMPDIR "
                            f"names another folder)")
            return
        finally:
            for layer in self.spilled.values():
                layer.discard()
        self._finish()
        result.complete = True
        if self.progress is not None:       # the lowest layers (finished games) may rank above 0
            self.progress(1.0, result.states, result.peak_mib)

    def put(self, rank: int, rows: _Rows, pending: dict[int, list[_Rows]]) -> None:
        """Rows set aside for their layer: in memory, or once those in memory take
        `in_memory` bytes (and for every later part of a layer that went to disk, so a
        layer's rows come back in order), gathered for its file on disk: each row with its
        own key, since a record joins many parts (layers.py `_Pending`, its rows kept
        whole: `distinct` False), appended once `SPILL_BUFFER` bytes wait."""
        size = rows.keys.nbytes + sum(column.nbytes for column in rows[1:6])
        layer = self.spilled.get(rank)
        if self.folder is None or (layer is None and self.memory + size <= self.in_memory):
            pending.setdefault(rank, []).append(rows)
            self.memory += size
            return
        if layer is None:
            layer = self.spilled[rank] = _Pending(carried={name: [] for name in _SPILLED}, distinct=False)
        columns = {"rounds": rows.rounds.astype(np.int32), "held": rows.held, "mass": rows.mass,
                   "chain": rows.chain.astype(np.int32)}
        keys = rows.keys.take(rows.state, axis=1)
        held = keys.nbytes + sum(column.nbytes for column in columns.values())
        layer.buffered.append((keys, columns))
        layer.buffered_bytes += held
        layer.size += len(rows.state)
        self.buffered += held
        if self.buffered >= SPILL_BUFFER:
            for waiting in self.spilled.values():
                waiting.flush(self.folder)
            self.buffered = 0

    def _ones(self, count: int) -> npt.NDArray[Any]:
        return limbs.ones(count) if self.exact else np.ones(count)

    def _watch(self, deadline: float | None, max_states: int | None) -> None:
        result = self.result
        result.peak_mib = max(result.peak_mib, resident_mib())
        if deadline is not None and time.perf_counter() > deadline:
            raise _Stop(f"time limit: {result.states:,} states taken")
        if max_states is not None and result.states >= max_states:
            raise _Stop(f"state limit: {result.states:,} states taken")
        if self.memory_mib is not None and result.peak_mib > self.memory_mib:
            raise _Stop(memory_stop(self.memory_mib, result.states))

    def _merged(self, state: Array, states: int, rounds: Array, held: Bools, mass: npt.NDArray[Any], chain: Array
                ) -> tuple[Array, Array, Bools, npt.NDArray[Any], Array]:
        """Rows of equal (state, rounds, held) merged, their masses summed (module
        docstring: a merge of m rows adds m - 1 to the chain); the rows come out ordered
        by state."""
        low = int(rounds.min()) if len(rounds) else 0
        top = int(rounds.max()) - low + 1 if len(rounds) else 1
        group, codes = _groups((state * top + rounds - low) * 2 + held, states * top * 2)
        count = len(codes)
        if self.exact:
            summed: npt.NDArray[Any] = limbs.sums(group, count, mass)
            merged_chain = np.zeros(count, dtype=np.int64)
        else:
            summed = np.bincount(group, weights=mass, minlength=count)
            merged_chain = np.zeros(count, dtype=np.int64)
            np.maximum.at(merged_chain, group, chain)
            merged_chain += np.bincount(group, minlength=count) - 1
        return codes // (2 * top), (codes // 2) % top + low, (codes % 2) == 1, summed, merged_chain

    def _layer(self, rank: int, parts: list[_Rows], layer: _Pending | None, pending: dict[int, list[_Rows]],
               deadline: float | None, max_states: int | None) -> None:
        """A layer's rows (`parts` in memory, then those of `layer` on disk, in the order
        they came) merged and expanded; past `LAYER_ROWS` rows, in slices by the hash of
        their states' keys (keys.mixed, as `_Pending.slice` reads the file a slice at a
        time: a state's rows all fall in one slice, so each slice merges whole states),
        so that a merge sorts, and memory holds, a slice of the layer, not all of it."""
        slices = math.ceil((sum(len(part.state) for part in parts) + (layer.size if layer else 0)) / LAYER_ROWS)
        if slices <= 1:
            if layer is not None:
                layer.load()
                parts += _read(layer.states, layer.carried)
            self._merge_and_expand(rank, parts, pending, deadline, max_states)
            return
        hashes = [mixed(part.keys) % np.uint64(slices) for part in parts]
        for number in range(slices):
            chosen = [_chosen(part, hashed == np.uint64(number)) for part, hashed in zip(parts, hashes)]
            if layer is not None:
                chosen += _read(*layer.slice(number, slices))
            chosen = [part for part in chosen if len(part.state)]
            if chosen:
                self._merge_and_expand(rank, chosen, pending, deadline, max_states)
        parts.clear()

    def _merge_and_expand(self, rank: int, parts: list[_Rows], pending: dict[int, list[_Rows]],
                          deadline: float | None, max_states: int | None) -> None:
        """Merge rows of whole states, then expand the states a part at a time."""
        keys = np.concatenate([part.keys for part in parts], axis=1)
        offsets = np.cumsum([0] + [part.keys.shape[1] for part in parts[:-1]])
        state = np.concatenate([part.state + offset for part, offset in zip(parts, offsets.tolist())])
        rounds = np.concatenate([part.rounds for part in parts])
        held = np.concatenate([part.held for part in parts])
        denominator = math.lcm(*(part.denominator for part in parts))
        if self.exact:
            mass = limbs.joined([limbs.scaled(part.mass, denominator // part.denominator) for part in parts])
        else:
            mass = np.concatenate([part.mass for part in parts])
        chain = np.concatenate([part.chain for part in parts])
        parts.clear()
        keep, global_state = distinct_groups(keys)
        states_keys = keys.take(keep, axis=1)
        del keys
        count = states_keys.shape[1]
        row_state, row_rounds, row_held, merged, merged_chain = self._merged(
            global_state[state], count, rounds, held, mass, chain)
        del state, rounds, held, mass, chain
        if self.exact:
            merged, denominator = limbs.reduced(merged, denominator, self.odds.primes)
        bounds = np.searchsorted(row_state, np.arange(0, count + CHUNK, CHUNK))
        for number, start in enumerate(range(0, count, CHUNK)):
            first, last = int(bounds[number]), int(bounds[number + 1])
            states = self.search.unpacked(states_keys[:, start:start + CHUNK])
            self._expand(states, rank, row_state[first:last] - start, row_rounds[first:last], row_held[first:last],
                         merged[..., first:last], merged_chain[first:last], denominator, pending)
            self.result.states += states.shape[1]
            self._watch(deadline, max_states)

    def _expand(self, states: Array, rank: int, local: Array, rounds: Array, held: Bools, mass: npt.NDArray[Any],
                chain: Array, denominator: int, pending: dict[int, list[_Rows]]) -> None:
        """The rows of some states of a layer (`local`: each row's state among `states`)
        pushed through every move of their state, the finished games' counted."""
        over = states[self.phase] == self.over
        ended = over[local]
        if ended.any():
            self._finished(states, local[ended], rounds[ended], held[ended], mass[..., ended], chain[ended],
                           denominator)
        live = ~ended
        local, rounds, held, mass, chain = local[live], rounds[live], held[live], mass[..., live], chain[live]
        blocks = self._moves(states)
        width = states.shape[1]
        origin = np.concatenate([block.origin for block in blocks]) if blocks else np.zeros(0, dtype=np.int64)
        moves = np.bincount(origin, minlength=width)
        stuck = (moves == 0) & ~over
        if stuck.any():
            phase = int(states[self.phase, int(np.argmax(stuck))])
            raise _Stop(f"deadlock: no move in phase {self.game.phase_names[phase]}")
        if not len(local):
            return
        odds, nominates, elects, made, keys, ranks = self._successors(states, blocks, origin, rank)
        # The successors, each once, ordered by rank (highest first), so that the merged
        # rows, ordered by successor, fall into their layers in slices.
        keep, successor = distinct_groups(keys)
        keys, ranks = keys.take(keep, axis=1), ranks[keep]
        by_rank = np.argsort(rank - ranks, kind="stable")
        renumber = np.empty(len(by_rank), dtype=np.int64)
        renumber[by_rank] = np.arange(len(by_rank))
        keys, ranks = keys.take(by_rank, axis=1), ranks[by_rank]
        successor = renumber[successor]
        order = np.argsort(origin, kind="stable")
        starts = np.cumsum(moves) - moves
        repeat = moves[local]
        row = np.repeat(np.arange(len(local)), repeat)
        offset = np.arange(len(row)) - np.repeat(np.cumsum(repeat) - repeat, repeat)
        move = order[starts[local][row] + offset]
        if self.exact:
            common, multipliers = self.odds.multipliers(odds[move])
            new_mass = limbs.times(mass.take(row, axis=1), multipliers)
            denominator *= common
        else:
            new_mass = mass[row] * self.odds.values()[odds[move]]
        new_chain = chain[row] + 2
        elected = elects[move]
        if elected.any():
            self._add(("elections", None), new_mass[..., elected], new_chain[elected], denominator)
        nominated = nominates[move]
        if nominated.any():
            self._add(("nominations", None), new_mass[..., nominated], new_chain[nominated], denominator)
        # A row's round count moves on only where the rounds are split (odds.py `within`).
        new_rounds = rounds[row] + nominated if self.result.within_rounds else rounds[row]
        target, new_rounds, new_held, new_mass, new_chain = self._merged(
            successor[move], len(ranks), new_rounds, held[row] | made[move], new_mass, new_chain)
        if self.exact:
            new_mass = new_mass.astype(np.int32)        # normalised limbs fit: half the memory while they wait
        cuts = np.flatnonzero(np.diff(ranks)) + 1
        state_bounds = [0, *cuts.tolist(), len(ranks)]
        row_bounds = np.searchsorted(target, state_bounds).tolist()
        for first, last, low, high in zip(state_bounds, state_bounds[1:], row_bounds, row_bounds[1:]):
            self.put(int(ranks[first]), _Rows(keys[:, first:last], target[low:high] - first, new_rounds[low:high],
                                              new_held[low:high], new_mass[..., low:high], new_chain[low:high],
                                              denominator), pending)

    # ------------------------------------------------------------------ figures

    def _add(self, key: tuple[str, Any], mass: npt.NDArray[Any], chain: Array, denominator: int) -> None:
        """Masses added to a figure: exactly, or (floats) their `fsum` added as a fraction."""
        if not mass.shape[-1]:
            return
        if self.exact:
            total = Fraction(limbs.total(mass), denominator)
        else:
            summed, depth = _halving_sum(mass)
            total = Fraction(summed)
            self.result.chain = max(self.result.chain, int(chain.max()) + depth + 1)
        self.sums[key] = self.sums.get(key, self.zero) + total

    def _finished(self, states: Array, local: Array, rounds: Array, held: Bools, mass: npt.NDArray[Any],
                  chain: Array, denominator: int) -> None:
        """The mass of finished games, by outcome, rounds and whether the condition held."""
        game = self.game
        winner_row, how_row = game.field_names.index("winner"), game.field_names.index("how")
        names = {(w, h): game.outcome_named(w, h)
                 for w, h in set(zip(states[winner_row].tolist(), states[how_row].tolist()))}
        winners, hows = states[winner_row].take(local), states[how_row].take(local)
        for (w, h), outcome in names.items():
            mine = (winners == w) & (hows == h)
            if not mine.any():
                continue
            self._add(("outcome", outcome), mass[..., mine], chain[mine], denominator)
            self._add(("given", outcome), mass[..., mine & held], chain[mine & held], denominator)
            if not self.result.within_rounds:
                continue
            for value in np.unique(rounds[mine]).tolist():
                pick = mine & (rounds == value)
                self._add(("rounds", (value, outcome[0])), mass[..., pick], chain[pick], denominator)

    def _finish(self) -> None:
        """The figures handed to the result as fractions (exact) or floats."""
        result = self.result

        def final(value: Fraction) -> Any:
            return value if self.exact else float(value)
        result.elections = final(self.sums.get(("elections", None), self.zero))
        result.nominations = final(self.sums.get(("nominations", None), self.zero))
        for (kind, key), value in sorted(self.sums.items(), key=lambda item: str(item[0])):
            if kind == "outcome":
                result.outcomes[key] = final(value)
            elif kind == "given":
                result.given_outcomes[key] = final(value)
            elif kind == "rounds":
                result.by_rounds[key] = final(value)

    # ------------------------------------------------------------------ moves

    def _moves(self, states: Array) -> list[_Block]:
        """Every move from the states with its probability (module docstring)."""
        phases = states[self.phase]
        order = np.argsort(phases.astype(np.int16), kind="stable")
        counts = np.bincount(phases, minlength=len(self.batched.by_phase))
        blocks: list[_Block] = []
        start = 0
        for phase, count in enumerate(counts.tolist()):
            columns = order[start:start + count]
            start += count
            rules = self.batched.by_phase[phase]
            if not count or not rules or self.game_phase[phase]:
                continue            # over, or a game phase a chain stopped in: a deadlock
            chance = [rule for rule in rules if rule.rule.actor == "chance"]
            if chance:
                weighed = self._weighed(chance, states, columns, True)
                blocks += self._normalised(weighed, states.shape[1])
                if self.kind[phase] is PhaseKind.CHANCE:
                    continue
                moved = np.zeros(states.shape[1], dtype=bool)
                for part in weighed:
                    moved[part.origin] = True
                columns = columns[~moved[columns]]
                if not len(columns):
                    continue
            if rules[0].rule.actor == "table":
                blocks += self._votes(rules, states, columns)
            else:
                seat = [rule for rule in rules if rule.rule.actor != "chance"]
                blocks += self._normalised(self._weighed(seat, states, columns, False), states.shape[1])
        return blocks

    def _weighed(self, rules: list[BatchRule], states: Array, columns: Array, chance: bool) -> list[_Weighed]:
        """The legal moves of the rules from the columns, each with its rule weight
        (chance) or the profile's weight (a seat's choice); moves of weight 0 left out."""
        out: list[_Weighed] = []
        for rule in rules:
            for chunk in self.search._chunks(rule, columns):
                chunk, rows = ready_columns(rule, states, chunk)
                width = len(chunk)
                if not width:
                    continue
                grid: list[Array] = []
                if rule.domains:
                    grid, inside = self.search._candidates(rule, rows, width)
                    legal = inside & np.asarray(rule.allowed(rows, *grid), dtype=bool)
                else:
                    legal = np.broadcast_to(np.asarray(rule.allowed(rows), dtype=bool), (1, width)).copy()
                rule_weight = None
                if rule.weight is not None:
                    rule_weight = np.broadcast_to(np.asarray(rule.weight(rows, *grid), dtype=np.int64), legal.shape)
                    legal &= rule_weight > 0
                chosen, picked = np.nonzero(legal)
                if not len(picked):
                    continue
                args = [np.broadcast_to(values, legal.shape)[chosen, picked] for values in grid]
                origin = chunk[picked]
                if chance:
                    assert rule_weight is not None
                    weight = rule_weight[chosen, picked]
                else:
                    weight = self._profile_weight(rule, states, origin, args)
                keep = weight > 0
                if not keep.all():
                    origin, args, weight = origin[keep], [arg[keep] for arg in args], weight[keep]
                if len(origin):
                    out.append(_Weighed(rule, origin, args, weight))
        return out

    def _profile_weight(self, rule: BatchRule, states: Array, origin: Array, args: list[Array]) -> Array:
        """The profile's weight of each move (1 for a rule it does not list), read from the
        actor's view; a weight below 0 is refused, as `Policy.choices` refuses it."""
        function = self.weights.get(rule.index)
        if function is None:
            return np.ones(len(origin), dtype=np.int64)
        rows = Rows(states, origin)
        seat = np.broadcast_to(np.asarray(self.actor[rule.index](rows), dtype=np.int64), (len(origin),))
        weight = np.broadcast_to(np.asarray(function(rows, *args, *self._seen(rows, seat)), dtype=np.int64),
                                 (len(origin),))
        if (weight < 0).any():
            raise SpecError(f"strategy '{self.strategy.name}': the weight of {rule.rule.name} is "
                            f"{int(weight.min())}, below 0", self.strategy.moves[rule.rule.name].where)
        return weight

    def _seen(self, rows: Rows, seat: Array) -> list[Array]:
        """What each `seat` reads besides the public fields (`Policy._seen` over arrays):
        itself, its view items (nothing where it is not shown one) and whether it is
        shown each, the public counts, the profile's parameters."""
        width = rows.width
        values, known = [], []
        for to, what, nothing in self.view:
            shown = (np.broadcast_to(np.asarray(to(rows), dtype=np.int64), (width,)) >> np.maximum(seat, 0)) & 1 == 1
            values.append(np.where(shown, np.broadcast_to(np.asarray(what(rows, seat)), (width,)), nothing))
            known.append(shown)
        counts = [np.broadcast_to(np.asarray(count(rows)), (width,)) for count in self.counts]
        return [seat, *values, *known, *counts, *(np.full(width, value, dtype=np.int64) for value in self.parameters)]

    def _normalised(self, weighed: list[_Weighed], width: int) -> list[_Block]:
        """Each move's weight over the sum of its state's: its probability's number."""
        if not weighed:
            return []
        totals = np.zeros(width, dtype=np.int64)
        for part in weighed:
            np.add.at(totals, part.origin, part.weight)
        return [_Block(part.rule, part.origin, part.args, self.odds.ratios(part.weight, totals[part.origin]))
                for part in weighed]

    def _votes(self, rules: tuple[BatchRule, ...], states: Array, columns: Array) -> list[_Block]:
        """The table's vote: for each k, the lowest k voters saying Ja, with the
        probability of k Ja votes of independent voters (module docstring)."""
        blocks: list[_Block] = []
        for rule in rules:
            for chunk in self.search._chunks(rule, columns):
                rows = Rows(states, chunk)
                width = len(chunk)
                grid, inside = self.search._candidates(rule, rows, width)
                legal = inside & np.asarray(rule.allowed(rows, *grid), dtype=bool)
                domain = rule.domains[0]
                assert domain.of is not None
                voters = np.broadcast_to(np.asarray(domain.of(rows), dtype=np.int64), (width,))
                odds = self._sizes(rows, voters)            # (width, players + 1), -1 for none
                legal &= odds.T >= 0
                chosen, picked = np.nonzero(legal)
                if len(picked):
                    blocks.append(_Block(rule, chunk[picked], [grid[0][chosen, picked]], odds[picked, chosen]))
        return blocks

    def _sizes(self, rows: Rows, voters: Array) -> Array:
        """Per state, the number of the probability of k Ja votes for each k (-1 where
        there are not k voters or it is 0)."""
        width, players = rows.width, self.players
        columns = [voters]
        if self.ja is not None or self.nein is not None:
            for seat in range(players):
                voting = (voters >> seat) & 1 == 1
                seen = self._seen(rows, np.full(width, seat, dtype=np.int64))
                ja = np.broadcast_to(np.asarray(1 if self.ja is None else self.ja(rows, *seen), dtype=np.int64),
                                     (width,))
                nein = np.broadcast_to(np.asarray(1 if self.nein is None else self.nein(rows, *seen),
                                                  dtype=np.int64), (width,))
                columns += [np.where(voting, ja, 0), np.where(voting, nein, 0)]
        stacked = np.stack(columns)
        keep, inverse = distinct_groups(stacked.view(np.uint64))
        table = np.full((len(keep), players + 1), -1, dtype=np.int64)
        for number, column in enumerate(stacked.take(keep, axis=1).T.tolist()):
            known = self.vote_odds.get(tuple(column))
            if known is None:
                if len(self.vote_odds) >= VOTE_ODDS_KEPT:
                    self.vote_odds.clear()
                known = self.vote_odds[tuple(column)] = self._vote_odds(column)
            table[number] = known
        found: Array = table[inverse]
        return found

    def _vote_odds(self, column: list[int]) -> Array:
        """For one tuple of voters and their Ja and Nein weights, the number of the
        probability of k Ja votes for each k (-1 for none): a profile gives few such
        tuples, and each is met in layer after layer (kept in `vote_odds`)."""
        players = self.players
        row = np.full(players + 1, -1, dtype=np.int64)
        seats = [seat for seat in range(players) if column[0] >> seat & 1]
        odds = []
        for seat in seats:
            if len(column) == 1:
                odds.append(EVEN)
                continue
            ja, nein = column[1 + 2 * seat], column[2 + 2 * seat]
            if ja < 0 or nein < 0 or ja + nein == 0:
                raise SpecError(f"strategy '{self.strategy.name}': a voter's weights are ja {ja}, nein {nein}; "
                                f"each must be >= 0 and not both 0")
            odds.append(Fraction(ja, ja + nein))
        for size, probability in enumerate(_sizes(tuple(odds))):
            if probability:
                row[size] = self.odds.of(probability)
        return row

    # ------------------------------------------------------------------ successors

    def _successors(self, states: Array, blocks: list[_Block], origin: Array, rank: int
                    ) -> tuple[Array, Array, Bools, Bools, Words, Array]:
        """The states the moves lead to (forced moves fused, canonical) with, per move, its
        probability's number, whether it nominates (a round begins), whether it elects, whether the condition held
        on the way; their keys and ranks."""
        search = self.search
        after = states.take(origin, axis=1)
        written: set[int] = set()
        at = 0
        for block in blocks:
            stop = at + len(block.origin)
            written.update(block.rule.writes)
            for row, value in zip(block.rule.writes, block.rule.effect(Rows(states, block.origin), *block.args)):
                after[row, at:stop] = value
            at = stop
        odds = np.concatenate([block.odds for block in blocks])
        rule = np.concatenate([np.full(len(block.origin), block.rule.index, dtype=np.int64) for block in blocks])
        self.held = self._holds(after)
        width = after.shape[1]
        after, _, same, _ = search._fused(after, origin, np.arange(width), written)
        if after.shape[1] != width:
            raise Unbatchable("two forced rules hold at once (the one-game engine takes the first)")
        assert (same == np.arange(width)).all()
        problem = search.out_of_range(after, written)
        if problem:
            raise _Stop(f"state out of range: {problem}")
        search.canonical(after)
        assert search.rank is not None
        ranks = np.broadcast_to(np.asarray(search.rank(Rows(after, np.arange(width), slice(None))), dtype=np.int64),
                                (width,))
        if (ranks >= rank).any():
            raise _Stop(f"{NOT_DECREASING}: {rank} to {int(ranks[np.argmax(ranks >= rank)])}")
        return odds, self.nominates[rule], self.elects[rule], self.held, search.keys(after), ranks

    def _holds(self, states: Array) -> Bools:
        """Where the condition holds (nowhere without one)."""
        if self.test is None:
            return np.zeros(states.shape[1], dtype=bool)
        held: Bools = np.broadcast_to(np.asarray(self.test(Rows(states, np.arange(states.shape[1]), slice(None))),
                                                 dtype=bool), (states.shape[1],)).copy()
        return held

    def _forced(self, after: Array, taken: Array) -> None:
        """After a forced move inside the chains: the condition tested on the states it made."""
        if self.test is None:
            return
        if len(taken) and int(taken.max()) >= len(self.held):
            raise Unbatchable("two forced rules hold at once (the one-game engine takes the first)")
        self.held[taken] |= np.broadcast_to(np.asarray(self.test(Rows(after, taken)), dtype=bool), (len(taken),))
