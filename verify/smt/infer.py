"""Strengthening invariants found, not written: candidates mined from played games.

The catalogue's invariants are rarely inductive alone (verify/smt/induction.py). What
they lack is mostly bookkeeping a person would write down phase by phase: "while the
President discards, the Election Tracker is below its limit", "after an accepted veto
nothing is enacted this round", "Hitler is alive while a round is played". This module
proposes such clauses in bulk and lets the Houdini fixpoint of `Induction.support` keep
the ones that are inductive together; sampling only proposes, the solver decides.

Candidates come from templates over the spec's fields and its typed definitions
(`pile`, `slot_power`, ...), each guarded by a *situation*: a phase, or a phase together
with the value of one small field (a flag, an enum, a counter of a few values). In each
situation seen in random games of the rules, an atom becomes a candidate when every state
seen there satisfies it:

- a value: `x == c` when only one is seen; else the bounds `x >= lo`, `x <= hi` for
  counters and `count(S)`, the members seen for an enum, `x != none` for an optional;
- two values of one kind: `x == y`, `x != y`, `x <= y`;
- a seat and a seat set: `x in S`, `x not in S`; two seat sets: `S <= T`;
- a phase no game entered: `phase != 'p'` (its own situation: nothing else is proposed
  for a state in it).

Every candidate is printed in the spec's own expression language (`phase != 'veto' or
(election_tracker <= 2)`), parsed back like any invariant of spec/invariants.toml and
compiled by the same translator; none is assumed: whatever the fixpoint keeps holds in
every reachable state for the player count it was computed for.

The mining is a function of the rules, the player count and the seed; the random games
are the engine's (`Game.random_step`), so a candidate false in a reachable state the
games missed is simply dropped by the fixpoint.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import os
import stat
import sys
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from random import Random
from pathlib import Path
from typing import Any

from engine.game import Game
from engine.pycompile import compile_expression
from spec.errors import Location, SpecError, one_line
from spec.files import read_kept, write_atomic
from spec.invariants import Invariant, Strengthening, guard_phase
from spec.lang import nodes as n
from spec.lang.check import parse
from spec.lang.types import BOOL, INT, decode_tiles
from spec.model import Spec
from spec.properties import state_scope

from .rank import field_value, find_distance, find_ranking

GAMES = 400
"""Random games whose states propose candidates: enough to visit every phase with every
flag value the rules allow at 5-10 players (a missed rare state only proposes a
candidate the fixpoint then drops)."""
RARE_SITUATION = 200
"""A phase, or a phase with one value of a flag or enum, that fewer sampled states than
this are in is rare: more games are played for it (`sample_states`)."""
RARE_GAMES_PER_GAME = 9
"""The games played for the rare situations, per game sampled in full."""
BRANCH_BACK = 6
"""From each state in a phase still rare after the extra games, and from the states up to
this many moves before it, more random games are played (`sample_states`)."""
BRANCHES = 8
"""The random games played from each such state."""
MAX_MOVES = 400
"""A random game longer than this stops being sampled (the rules' games are far shorter)."""
SMALL = 7
"""An int feature with at most this many values seen in a phase splits it into situations."""
RARE = 20
"""A situation seen in fewer states proposes nothing: in so few states almost every value
looks constant, and the fixpoint would spend a query on each such accident."""
JUSTIFIED = 50
"""A bound is proposed only when at least 1/JUSTIFIED of the states (and two) sit on it: a
bound no state presses against is usually where the sampling stopped, not a rule."""


@dataclass(frozen=True, slots=True)
class Feature:
    """A value of a state the templates talk about: a field, or a typed definition."""

    text: str                      # its name in the expression language
    kind: str                      # bool | int | enum | seat | seats | tiles
    enum: str | None
    optional: bool
    fields: frozenset[str]         # the state fields it reads
    read: Callable[[Any], int]     # its encoded value in an engine state
    ledger: bool = False           # a count of what a table has granted so far (`ledgers`)
    acts_on: frozenset[str] = frozenset()   # a ledger's: the fields the moves it grants write


@dataclass(frozen=True, slots=True)
class Found:
    """A candidate invariant: its guard's phase, its text, the fields it relates."""

    phase: str
    text: str
    fields: frozenset[str]


def features(spec: Spec, game: Game) -> list[Feature]:
    """Every field but the phase, and every definition of a kind the templates know."""
    out: list[Feature] = []
    for index, field in enumerate(spec.fields):
        if field.name == "phase":
            continue
        kind = field.type.kind
        if kind in ("bool", "int", "enum", "seat", "seats", "tiles"):
            out.append(Feature(field.name, kind, field.type.enum, field.type.optional, frozenset({field.name}),
                               field_value(index)))
    for name, node in spec.definitions.items():
        kind = node.type.kind
        if kind not in ("bool", "int", "enum", "seat", "seats"):
            continue
        reads = frozenset(n.fields_read([node], spec.definitions))
        if reads == {"phase"} or not reads:
            continue
        function = compile_expression(spec, game.players, node)
        out.append(Feature(name, kind, node.type.enum, node.type.optional, reads, _encoded(function, kind)))
    return out + ledgers(spec, game)


def ledgers(spec: Spec, game: Game) -> list[Feature]:
    """What a table indexed by a counter has granted so far, one count per member.

    A definition `T[c - k]` (the power of the slot the last Fascist policy filled,
    `board[fascist_policies - 1]`) reads one entry of a per-player-count table at a
    time; the entries the counter has passed are a ledger: how many executions the board
    has granted, how many investigations. What the game did with them (the dead, the
    investigated) is bounded by that count, a relation no single entry states."""
    out: list[Feature] = []
    scope = state_scope(spec)
    seen: set[tuple[str, str, int]] = set()
    for node in spec.definitions.values():
        for part in n.walk(node):
            if not (isinstance(part, n.Index) and isinstance(part.table, n.Name) and part.table.name in spec.tables):
                continue
            counter, offset = _counter(part.index)
            entries = spec.tables[part.table.name].get(game.players)
            if counter is None or not isinstance(entries, tuple) or (part.table.name, counter, offset) in seen:
                continue
            seen.add((part.table.name, counter, offset))
            for member in sorted(set(entries) - {"none"}):
                text = " + ".join(f"(1 if {counter} >= {slot + offset} and {part.table.name}[{slot}] == "
                                  f"{member!r} else 0)" for slot, entry in enumerate(entries) if entry == member)
                parsed = parse(text, scope, Location("<inferred>"), INT)
                function = compile_expression(spec, game.players, parsed)
                acts_on = _written_when(spec, str(part.type.enum), member)
                out.append(Feature(f"({text})", "int", None, False, frozenset({counter}),
                                   _encoded(function, "int"), ledger=True, acts_on=acts_on))
    return out


def _written_when(spec: Spec, enum: str, member: str) -> frozenset[str]:
    """The fields written by the rules that require a value of `enum` to be `member`
    (the moves a granted power allows: an Investigation writes the investigated)."""
    code = spec.enums[enum].index(member)
    out: set[str] = set()
    for rule in spec.rules:
        for requirement in rule.requires:
            if any(isinstance(node, n.Compare) and node.op == "==" and node.left.type.enum == enum
                   and isinstance(node.right, n.Lit) and node.right.value == code for node in n.walk(requirement.when)):
                out.update(name for name, _ in rule.effect)
    return frozenset(out)


def _counter(index: n.Node) -> tuple[str | None, int]:
    """The counter field and the constant subtracted from it in a table index `c - k` or `c`."""
    if isinstance(index, n.Name) and index.kind == "field":
        return index.name, 0
    if (isinstance(index, n.Binary) and index.op == "-" and isinstance(index.left, n.Name)
            and index.left.kind == "field" and isinstance(index.right, n.Lit) and isinstance(index.right.value, int)):
        return index.left.name, index.right.value
    return None, 0


def _encoded(function: Callable[[Any], Any], kind: str) -> Callable[[Any], int]:
    """An engine expression's value as the int the templates compare."""
    if kind == "seat":
        return lambda state: -1 if function(state) is None else int(function(state))
    return lambda state: int(function(state))


def sample_states(game: Game, games: int = GAMES, seed: int = 0, rare_games: int | None = None) -> set[Any]:
    """Every state of `games` random games of the rules (engine states), and the states in
    rare situations of `rare_games` more (default: RARE_GAMES_PER_GAME per game): a rare
    phase, flag or enum value in a phase, and a counter's value in a phase until it is no
    longer rare (`_small_counters`).

    A phase most games pass through once or never (a veto, an execution), or a flag that
    is seldom set in a common phase (a session just vetoed), is where the relations a
    proof needs are seen least: fewer than `RARE` states in a situation propose nothing.
    Playing more games but keeping only their states in such situations gives them the
    samples they lack, at the cost of playing (cheap), not of mining every state of every
    game (the dearer part)."""
    rng = Random(seed)
    seen: set[Any] = set()
    phase = game.phase_index
    flags = _flag_fields(game)

    roots: dict[Any, None] = {}         # states in or just before a phase still rare (ordered)
    visits = [0] * len(game.phase_names)

    def play(keep: Callable[[Any], bool], start: Any = None, rooted: frozenset[int] = frozenset()) -> None:
        state = game.initial_state() if start is None else start
        recent: deque[Any] = deque(maxlen=BRANCH_BACK)
        for _ in range(MAX_MOVES):
            if keep(state):
                seen.add(state)
            visits[state[phase]] += 1
            if state[phase] in rooted:
                roots.update(dict.fromkeys([*recent, state]))
            recent.append(state)
            following = game.random_next(state, rng)
            if following is None:
                break
            state = following

    for _ in range(games):
        play(lambda state: True)
    # A situation (a phase, or a phase with one value of a flag or enum) seen in fewer
    # than RARE_SITUATION states keeps every state of the extra games that is in it. A
    # counter's value in a phase (`_small_counters`) is rare too, but only until
    # RARE_SITUATION states have it (`scarce`, counted down as states are kept): a phase
    # splits into many such values, and keeping every state of each from every extra
    # game doubled the cost of mining.
    counters = _small_counters(game, seen)
    counts: dict[tuple[int, ...], int] = {}
    scarce: dict[tuple[int, int, int], int] = {}     # (phase, counter, value) -> states kept
    for state in seen:
        here = state[phase]
        for key in [(here,), *((here, index, int(state[index])) for index in flags)]:
            counts[key] = counts.get(key, 0) + 1
        for index in counters:
            value = (here, index, int(state[index]))
            scarce[value] = scarce.get(value, 0) + 1
    rare = {key for key, count in counts.items() if count < RARE_SITUATION}
    scarce = {key: count for key, count in scarce.items() if count < RARE_SITUATION}
    # The rare situations looked up by phase: `keep` runs on every state of the extra games.
    rare_phases = {key[0] for key in rare if len(key) == 1}
    rare_values: dict[int, list[tuple[int, int]]] = {}
    for key in rare:
        if len(key) == 3:
            rare_values.setdefault(key[0], []).append((key[1], key[2]))

    def keep(state: Any) -> bool:
        """Whether to keep a state of an extra game: in a rare situation, or with a
        counter value still scarce in its phase (counted here, dropped once it is not)."""
        here = state[phase]
        if here in rare_phases or any(int(state[index]) == value for index, value in rare_values.get(here, ())):
            return True
        wanted = [key for key in ((here, index, int(state[index])) for index in counters) if key in scarce]
        if not wanted or state in seen:
            return bool(wanted)
        for key in wanted:
            scarce[key] += 1
            if scarce[key] >= RARE_SITUATION:
                del scarce[key]
        return True

    # A phase still rare, or never entered, is often a step or two from another rare one:
    # at 6 players under no_topdecking chaos follows only an accepted veto with the tracker
    # at two, and 4,000 random games entered it never (38 states in a veto). Nothing was
    # then proposed for chaos, and every phase after it lost its invariants in the
    # fixpoint (897 kept, 2,427 at 5 players). So the extra games note the states in and
    # just before a phase visited rarely (`roots`), and random games from them sample its
    # neighbourhood, where the next rare phase lies. Rare by its visits, not its distinct
    # states: every game passes the deal once, in one of a few states, and games from
    # there would only be played over again.
    seldom = frozenset(number for number, count in enumerate(visits) if count < RARE_SITUATION)
    extra = games * RARE_GAMES_PER_GAME if rare_games is None else rare_games
    if rare or scarce:
        for _ in range(extra):
            play(keep, rooted=seldom)
    still = frozenset(number for number, count in enumerate(visits) if count < RARE_SITUATION)
    if still and extra:
        for start in list(roots)[:extra // BRANCHES]:
            for _ in range(BRANCHES):
                play(lambda state: state[phase] in still or keep(state), start)
    return seen


def _small_counters(game: Game, states: Iterable[Any]) -> list[int]:
    """The counters that take at most `SMALL` values in `states`, as mining splits a
    phase by them (`_splits`). A counter's high values are where a game is long: under
    rules whose games end early (a third failed election a Fascist win), a phase with
    five Fascist policies was seen too rarely for `fascist_policies <= 5` to be proposed
    there, and every invariant of the late game fell with it."""
    values: dict[int, set[int]] = {index: set() for index, field in enumerate(game.spec.fields)
                                   if field.type.kind == "int"}
    for state in states:
        for index, seen in values.items():
            if len(seen) <= SMALL:
                seen.add(int(state[index]))
    return sorted(index for index, seen in values.items() if 1 < len(seen) <= SMALL)


def _flag_fields(game: Game) -> list[int]:
    """The fields whose values split a phase into situations for sampling: flags and enums."""
    return [index for index, field in enumerate(game.spec.fields)
            if field.name != "phase" and field.type.kind in ("bool", "enum")]


def mine(spec: Spec, game: Game, states: Iterable[Any]) -> list[Found]:
    """The candidates every sampled state satisfies, situation by situation."""
    feats = features(spec, game)
    by_phase: dict[int, list[tuple[int, ...]]] = {}
    phase_index = game.phase_index
    for state in states:
        by_phase.setdefault(state[phase_index], []).append(tuple(f.read(state) for f in feats))
    out: list[Found] = []
    for phase_number in sorted(by_phase):
        phase = game.phase_names[phase_number]
        rows = by_phase[phase_number]
        guard = f"phase != '{phase}'"
        general = _atoms(spec, feats, rows, game.players)
        out += [Found(phase, f"{guard} or ({text})", fields) for text, fields in general]
        known = {text for text, _ in general}
        single: dict[tuple[int, int], set[str]] = {}
        for index, feature in enumerate(feats):
            values = sorted({row[index] for row in rows})
            if len(values) < 2 or not _splits(feature, values):
                continue
            for value, part in _situations(feature, index, values, rows):
                if len(part) < RARE:
                    continue
                situation = _escape(spec, feature, value)
                single[index, value] = set()
                for text, fields in _atoms(spec, feats, part, game.players, skip=index, general=False):
                    single[index, value].add(text)
                    if text not in known:
                        out.append(Found(phase, f"{guard} or {situation} or ({text})", fields | feature.fields))
        out += _pair_situations(spec, feats, rows, game.players, phase, known, single)
    # A phase no sampled game entered: perhaps one no game can enter (a mutant that
    # deadlocks at the first draw, a power the board never grants). Without this
    # candidate nothing at all is assumed of states in it, and every candidate of a phase
    # reachable from it falls in the fixpoint: for such a mutant at 5 players the kept set
    # left the players' seats empty and the policy counts negative.
    for number, name in enumerate(game.phase_names):
        if number not in by_phase:
            out.append(Found(name, f"phase != '{name}'", frozenset({"phase"})))
    return out


def _escape(spec: Spec, feature: Feature, value: int) -> str:
    """The disjunct that lets a state out of the situation `feature == value`."""
    if feature.kind == "bool":
        return f"not {feature.text}" if value else feature.text
    if feature.kind == "seat":
        return f"{feature.text} == none" if value >= 0 else f"{feature.text} != none"
    return f"{feature.text} != {_literal(spec, feature, value)}"


def _pair_situations(spec: Spec, feats: Sequence[Feature], rows: Sequence[tuple[int, ...]], players: int,
                     phase: str, known: set[str], single: dict[tuple[int, int], set[str]]) -> list[Found]:
    """What holds in situations of two flags or enums and neither the phase nor either flag
    alone gives. A power is pending between the enactment that grants it and its use only
    where the policy was Fascist *and* the slot carries that power: there what was done is
    one short of what a ledger granted, and what the power's move will write is still
    unset (no Special Election is running when one is called: `special_return == none`).
    So two kinds of atom are proposed: relations against a ledger, and the values of
    flags, enums and seats that one such situation fixes (a count is left out: within a
    narrow situation it is mostly where the sampling stopped)."""
    out: list[Found] = []
    flags = [i for i, f in enumerate(feats) if f.kind in ("bool", "enum") and not f.ledger]
    pairs = [(i, j) for i, j in itertools.combinations(enumerate(feats), 2) if i[1].ledger != j[1].ledger]
    for a, b in itertools.combinations(flags, 2):
        groups: dict[tuple[int, int], list[tuple[int, ...]]] = {}
        for row in rows:
            groups.setdefault((row[a], row[b]), []).append(row)
        for (x, y), part in groups.items():
            if len(part) < RARE or (a, x) not in single or (b, y) not in single:
                continue
            seen_alone = known | single[a, x] | single[b, y]
            escape = f"{_escape(spec, feats[a], x)} or {_escape(spec, feats[b], y)}"
            found: list[tuple[str, frozenset[str]]] = []
            columns = list(zip(*part))
            for index, feature in enumerate(feats):
                if index in (a, b) or feature.ledger or feature.kind not in ("bool", "enum", "seat"):
                    continue
                values = set(columns[index])
                if len(values) == 1:
                    found.append((f"{feature.text} == {_literal(spec, feature, values.pop())}", feature.fields))
            for (i, first), (j, second) in pairs:
                relation = _against_ledger(first, second, list(columns[i]), list(columns[j]), players)
                if relation:
                    found.append((relation, first.fields | second.fields))
            for text, fields in found:
                if text not in seen_alone:
                    out.append(Found(phase, f"phase != '{phase}' or {escape} or ({text})",
                                     fields | feats[a].fields | feats[b].fields))
    return out


def _splits(feature: Feature, values: Sequence[int]) -> bool:
    """Whether a feature's value splits a phase into situations worth mining apart: a
    flag, an enum, whether an optional seat is set, a counter of a few values."""
    if feature.ledger:
        return False
    if feature.kind in ("bool", "enum"):
        return True
    if feature.kind == "seat":
        return feature.optional and -1 in values
    return feature.kind == "int" and len(values) <= SMALL


def _situations(feature: Feature, index: int, values: Sequence[int], rows: Sequence[tuple[int, ...]]
                ) -> list[tuple[int, list[tuple[int, ...]]]]:
    """The situations a feature splits rows into: one per value, or for an optional seat
    set and unset (a representative value, the rows)."""
    if feature.kind == "seat":
        unset = [row for row in rows if row[index] < 0]
        return [(-1, unset), (0, [row for row in rows if row[index] >= 0])]
    return [(value, [row for row in rows if row[index] == value]) for value in values]


def _atoms(spec: Spec, feats: Sequence[Feature], rows: Sequence[tuple[int, ...]], players: int, skip: int = -1,
           general: bool = True) -> list[tuple[str, frozenset[str]]]:
    """The template atoms every row satisfies, with the fields each reads. Bounds and
    relations between two features only for a whole phase (`general`): within a
    narrower situation they are mostly where the sampling stopped (the deck's counters
    wander), and each costs the fixpoint a query. Relations against a ledger are the
    exception: they are few, and sharpest in a situation."""
    bounds = general
    out: list[tuple[str, frozenset[str]]] = []
    columns = [list(column) for column in zip(*rows)] if rows else [[] for _ in feats]
    justified = max(2, len(rows) // JUSTIFIED)
    constant: set[int] = set()
    for index, (feature, column) in enumerate(zip(feats, columns)):
        if index == skip or feature.ledger:   # a ledger's own values follow from its counter
            continue
        values = set(column)
        name = feature.text
        if len(values) == 1:
            constant.add(index)
            value = column[0]
            if feature.kind == "tiles":
                out.append((f"size({name}) == {len(decode_tiles(value))}", feature.fields))
            else:
                out.append((f"{name} == {_literal(spec, feature, value)}", feature.fields))
            continue
        if feature.kind in ("int", "seats") and bounds:
            numbers = column if feature.kind == "int" else [bin(v).count("1") for v in column]
            shown = name if feature.kind == "int" else f"count({name})"
            for bound, op in ((min(numbers), ">="), (max(numbers), "<=")):
                if numbers.count(bound) >= justified:
                    out.append((f"{shown} {op} {bound}", feature.fields))
        elif feature.kind == "tiles":
            out.append((f"size({name}) <= {max(len(decode_tiles(v)) for v in values)}", feature.fields))
        elif feature.kind in ("enum", "seat") and feature.optional and -1 not in values:
            out.append((f"{name} != none", feature.fields))
        if feature.kind == "enum" and -1 not in values and len(values) < len(spec.enums[str(feature.enum)]):
            members = ", ".join(_literal(spec, feature, v) for v in sorted(values))
            out.append((f"{name} in [{members}]", feature.fields))
    for (i, first), (j, second) in itertools.combinations(enumerate(feats), 2):
        if skip in (i, j) or (i in constant and j in constant):
            continue
        if first.ledger or second.ledger:
            if skip >= 0 and (first.fields | second.fields) & feats[skip].fields:
                continue    # the ledger's own counter fixed: what is left is a bound
            relation = _against_ledger(first, second, columns[i], columns[j], players, with_counts=general)
        elif general:
            relation = _relation(first, second, columns[i], columns[j])
        else:
            continue
        if relation:
            out.append((relation, first.fields | second.fields))
    return out


def _relation(first: Feature, second: Feature, xs: Sequence[int], ys: Sequence[int]) -> str | None:
    """The strongest template relation between two features that every row satisfies."""
    a, b = first.text, second.text
    pairs = zip(xs, ys)
    if first.kind == second.kind and first.enum == second.enum and first.kind in ("int", "enum", "seat"):
        if all(x == y for x, y in zip(xs, ys)):
            return f"{a} == {b}"
        if first.kind == "int":
            if all(x <= y for x, y in pairs):
                return f"{a} <= {b}"
            if all(x >= y for x, y in zip(xs, ys)):
                return f"{a} >= {b}"
            return None
        if all(x != y for x, y in pairs):
            return f"{a} != {b}"
        return None
    if {first.kind, second.kind} == {"seat", "seats"}:
        (seat, seats, ss, ms) = (a, b, xs, ys) if first.kind == "seat" else (b, a, ys, xs)
        if all(s >= 0 and (m >> s) & 1 for s, m in zip(ss, ms)):
            return f"{seat} in {seats}"
        if all(s < 0 or not (m >> s) & 1 for s, m in zip(ss, ms)):
            return f"{seat} not in {seats}"
        return None
    if first.kind == second.kind == "seats":
        if all(x & ~y == 0 for x, y in pairs):
            return f"{a} <= {b}"
        if all(y & ~x == 0 for x, y in zip(xs, ys)):
            return f"{b} <= {a}"
    return None


def _against_ledger(first: Feature, second: Feature, xs: Sequence[int], ys: Sequence[int], players: int,
                    with_counts: bool = True) -> str | None:
    """What was done against what a ledger granted: the seats of a set (or the seats not
    in it: the dead, for the living), or a count the moves it grants advance (a temporal
    query's `times(...)` of a power: spec/temporal.py), at most or below the ledger's
    count. Proposed in narrow situations too: a power granted and not yet used is exactly
    where the count is one short. A count is related (`with_counts`) over a whole phase and
    where a power is pending (`_pair_situations`), not in the situations of one flag,
    where a counter's values are mostly where the sampling stopped."""
    if first.ledger == second.ledger:
        return None
    ledger, other, granted, values = (first, second, xs, ys) if first.ledger else (second, first, ys, xs)
    if not other.fields <= ledger.acts_on:
        return None
    if other.kind == "seats":
        counts = [bin(v).count("1") for v in values]
        shown = [(f"count({other.text})", counts), (f"players - count({other.text})", [players - c for c in counts])]
    elif other.kind == "int" and with_counts:
        shown = [(other.text, list(values))]
    else:
        return None
    for text, done in shown:
        if all(d < g for d, g in zip(done, granted)):
            return f"{text} < {ledger.text}"
        if all(d <= g for d, g in zip(done, granted)):
            return f"{text} <= {ledger.text}"
    return None


def _literal(spec: Spec, feature: Feature, value: int) -> str:
    """A value of a feature as a literal of the expression language."""
    kind = feature.kind
    if kind == "bool":
        return "True" if value else "False"
    if kind == "int":
        return str(value)
    if kind == "enum":
        return "none" if value < 0 else repr(spec.enums[str(feature.enum)][value])
    if kind == "seat":
        return "none" if value < 0 else str(value)
    if kind == "seats":
        return "{" + ", ".join(str(s) for s in range(value.bit_length()) if (value >> s) & 1) + "}"
    raise SpecError(f"no literal for a {kind} value")


def candidates(spec: Spec, players: int, games: int = GAMES, seed: int = 0) -> list[Invariant]:
    """The mined candidates of a spec and player count as invariants (parsed, typed),
    named by their guard's phase and their place in the list."""
    game = Game(spec, players)
    found = mine(spec, game, sample_states(game, games, seed))
    scope = state_scope(spec)
    where = Location("<inferred>")
    writers = _writers(spec)
    return [_inferred(spec, index, parse(item.text, scope, where, BOOL), item.text, item.fields, where, writers)
            for index, item in enumerate(found)]


def _inferred(spec: Spec, index: int, node: n.Node, text: str, fields: Iterable[str], where: Location,
              writers: dict[str, set[str]]) -> Invariant:
    """An inferred candidate as an invariant, mined or read back alike: named after the
    phase its own expression guards (`guard_phase`; `any` when none), citing the rule IDs
    of the rules that write the fields it reads. Nothing but its text says what it is."""
    rule_ids = sorted({rule_id for field in fields for rule_id in writers.get(field, ())})
    return Invariant(f"found_{index}_{guard_phase(spec, node) or 'any'}", "found in played games and kept by induction",
                     tuple(rule_ids), node, text, (), where, "inferred")


def _writers(spec: Spec) -> dict[str, set[str]]:
    """For each field, the rule IDs of the rules whose effects write it."""
    out: dict[str, set[str]] = {}
    for rule in spec.rules:
        for name, _ in rule.effect:
            out.setdefault(name, set()).update(rule.rule_ids)
    return out


CACHE_VERSION = "7"
"""Changes when the templates or the file's shape change, so an old cache is not read as a
new one's (7: the texts alone, no phase written beside them)."""


def cache_root() -> Path:
    """The folder of every shrules cache: $SHRULES_CACHE, else the user's cache directory."""
    return Path(os.environ.get("SHRULES_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or
                                                                os.path.expanduser("~/.cache"), "shrules"))


def cache_dir() -> Path:
    """Where inferred invariants are kept between runs: `invariants` in `cache_root()`."""
    return cache_root() / "invariants"


def cache_key(strengthening: Strengthening, players: int) -> str:
    """What decides the inferred set: the rules (with the hints' definitions), the hints,
    the player count and the templates' version."""
    spec = strengthening.spec
    material = repr((CACHE_VERSION, players, spec.fields, spec.rules, spec.definitions, sorted(spec.constants.items()),
                     [(i.name, i.text) for i in strengthening.invariants]))
    return hashlib.sha256(material.encode()).hexdigest()[:32]


def strengthen(base: Strengthening, players: int, use_cache: bool = True) -> tuple[Strengthening, str]:
    """`base` (the hints of spec/invariants.toml, or none) with the inferred candidates
    added and, when `base` has none, a ranking found in played games. The candidates are
    the set kept last time for the same key when the cache has it, else freshly mined.
    Either way they are only candidates: the fixpoint proves each again against every rule
    its own text does not exempt, so the cache saves the mining and the queries that
    dropped the rest, and can change no verdict. Returns the strengthening and the key."""
    key = cache_key(base, players)
    found: list[Invariant] | None = _cached(base.spec, key) if use_cache else None
    if found is None:
        found = candidates(base.spec, players)
    ranking, distance = base.ranking, base.distance
    if ranking is None:
        ranking = find_ranking(base.spec, players, _writers(base.spec))
    if distance is None:
        distance = find_distance(base.spec, players, _writers(base.spec))
    return dataclasses.replace(base, invariants=base.invariants + tuple(found), ranking=ranking,
                               distance=distance), key


def remember(key: str, kept: Sequence[Invariant]) -> None:
    """Keep the texts of the inferred invariants the fixpoint proved, for the next run with
    this key: written atomically (spec/files.py), never through a link planted in the cache
    (best effort: a cache that cannot be written only costs the next run its mining)."""
    path = cache_dir() / f"{key}.json"
    body = {"version": CACHE_VERSION, "invariants": [item.text for item in kept]}
    try:
        write_atomic(path, json.dumps(body, indent=0), root=cache_root())
    except (OSError, SpecError) as error:
        _warn(f"not written: {_why(error, path)}", "the next run mines its invariants again")


def _cached(spec: Spec, key: str) -> list[Invariant] | None:
    """The invariants kept last time for `key`, parsed as expressions of the spec (data,
    never code), or None: when there are none (silently) or the file is not what shrules
    writes (a one-line warning: a link, a device or a FIFO, too large, not JSON of the
    right shape, an expression that does not parse)."""
    path = cache_dir() / f"{key}.json"
    try:
        folder = os.lstat(cache_dir())
        os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        _warn(f"ignored: {_why(error, path)}")
        return None
    try:
        if stat.S_ISLNK(folder.st_mode):
            raise SpecError(f"{one_line(str(cache_dir()))} is a symbolic link, which is never followed")
        texts = _texts(path, read_kept(path))
        if texts is None:
            return None
        scope = state_scope(spec)
        where = Location(str(path))
        writers = _writers(spec)
        out = []
        for index, text in enumerate(texts):
            node = parse(text, scope, where, BOOL)
            fields = n.fields_read([node], spec.definitions) - {"phase"}
            out.append(_inferred(spec, index, node, text, fields, where, writers))
        return out
    except SpecError as error:
        _warn(f"ignored: {_why(error, path)}")
        return None


def _texts(path: Path, data: str) -> list[str] | None:
    """The expressions a cache file's JSON text lists; None for another version's file (a
    miss, not damage); a `SpecError` when it is not what shrules writes."""
    where = Location(str(path))
    try:
        body = json.loads(data)
    except (ValueError, RecursionError) as error:
        raise SpecError(f"not JSON ({str(error)[:80]}); expected a file written by shrules", where) from None
    if not isinstance(body, dict):
        raise SpecError(f"a JSON {type(body).__name__}, not an object; expected a file written by shrules", where)
    if body.get("version") != CACHE_VERSION:
        return None
    texts = body.get("invariants")
    if not isinstance(texts, list) or not all(isinstance(text, str) for text in texts):
        raise SpecError("'invariants' is not a list of expressions; expected a file written by shrules", where)
    return texts


def _why(error: BaseException, path: Path) -> str:
    """An error as one line, whatever it quotes; an `OSError` with the file it is about."""
    if isinstance(error, OSError):
        return one_line(f"{path}: {error.strerror or error}")
    lines = str(error).splitlines()
    return one_line(lines[0] if lines else type(error).__name__)


def _warn(why: str, then: str = "its invariants are mined again") -> None:
    """One line on stderr for a cache file that cannot be used: the run goes on as a miss."""
    print(f"shrules: warning: invariant cache {why}; {then}", file=sys.stderr)
