"""The no-leak certificate by one pass over the reachable transitions: the stepwise proof.

The claim (spec/LANGUAGE.md "Who sees what"; R-S5, R-L1-R-L4, R-X3, R-X5): the view the
engine gives a seat is a function of the seat's observation history (engine/observe.py).

The stepwise condition. Collect, over every reachable transition s -m-> t and every seat
N, the pair (view(s, N), observation(s, m, t, N)) -> view(t, N). If this relation is a
function F, the claim follows by induction on the length of a history: there is one first
state, so two games with no moves show N the same view; and if two games with equal
histories of length k show N equal views v, and their next moves show N the same
observation o, their next views are both F(v, o). The pass needs only the reachable
states, not the belief sets of beliefs.py: one sweep over the explicit state graph.

The converse does not hold: a relation that is not a function is not yet a leak (two
states with one view may differ in what the seat knows, so no pair of games need reach
them with the same history). `certify` (run.py) then runs the belief search for a real
pair of games, or says unknown; a leak is never reported without its pair.

Reductions kept, each argued for this check (verify/explicit/reductions.py argues them
for properties; the cone of influence and fused forced moves are not used: the views read
every field the cone drops, and a fused chain would skip the observations of the forced
moves and the views between them):

- Seat rotation. Where `beliefs._blockers` finds no expression of the rules, of what they
  show, of `[public]` or of `[view]` that reads absolute seat numbers, rotating every seat
  by r maps a reachable transition s -m-> t to the reachable rot(s) -rot(m)-> rot(t), and
  what seat N is shown and its views to what seat N + r is shown and its views, rotated.
  The relation is then keyed *relative to the seat*: (rot_-N view(s, N), rot_-N obs) ->
  rot_-N view(t, N), one relation G for every seat. Seat N's relation is rot_N . G . rot_-N,
  a function when G is; and the relative entries of every member of an orbit, over every
  seat, are the relative entries of the orbit's canonical state (`Codec.canonical`) over
  every seat. So only canonical states are stored and every seat of each is checked. The
  first state's rotations are covered too (their graphs are the rotated graph). Where
  rotation is not sound the key names the seat and nothing is rotated.
- Vote representatives. A `subset` parameter that the rule reads only through its size
  (reductions (b)) gives the same successor for every value of one size (for any
  satisfying value, where the effect and weight do not read it at all: `one`). Where each
  entry of what the move shows reads that parameter whole or not at all, its `to` does not
  read it, and no reveal reads it (`beliefs._shown_whole`), the key holds the parameter's
  size in its place (nothing, for `one`): a coarser key, so a function on it is a function
  on the finer one. Every value of a size then gives the same key and the same successor
  as the one value taken (the first legal one): no entry of the full graph is missed.
  Otherwise every value is taken.

Views and observations are interned: each distinct relative view and observation gets
an int id, a state's views are computed once (every seat at once, its legal moves listed
once) and kept as ids, and the relation is a dict from (view id, observation id) to the
view id after: exact, no hash stands for a value.
"""

from __future__ import annotations

import time
from array import array
from dataclasses import dataclass
from typing import Any

from engine.game import Game, Move, State
from engine.observe import Observation, SeatView, observer
from spec.lang import nodes as n
from verify.explicit.codec import Codec
from verify.explicit.reductions import pivot_field, representatives

from verify.budgets import PROGRESS_SECONDS

from ..results import Named
from .beliefs import Progress, _blockers, _shown_whole

PUBLIC_CACHE = 1 << 20
"""Rotated public parts remembered (most recur: five seats, many states per public part)."""
ID_BITS = 32
"""Bits of an observation id in a relation key (view id above them)."""


@dataclass(frozen=True, slots=True)
class Conflict:
    """Two transitions with one key and different views after: the relation is not a function.
    The views are relative to the seat where rotation is used (module docstring)."""

    seat: int
    before: State
    move: Move
    after: State
    view: SeatView
    other: SeatView


class PassVerdict(Named):
    """What the stepwise pass found: proved, unknown (a limit) or a conflict (two histories
    a seat cannot tell apart that its view tells apart: no proof, and no leak shown)."""

    PROVED = "proved"
    CONFLICT = "conflict"
    UNKNOWN = "unknown"

    @classmethod
    def noun(cls) -> str:
        return "stepwise pass's verdict"


@dataclass(slots=True)
class Pass:
    """What the pass found: `proved`, `unknown` (a limit) or `conflict`, and its figures."""

    verdict: PassVerdict
    states: int
    transitions: int
    keys: int
    views: int
    observations: int
    seconds: float
    reason: str = ""
    conflict: Conflict | None = None


class _Rotator:
    """Relative views and observations: every seat and seat set moved -N places."""

    def __init__(self, game: Game) -> None:
        self.players = players = game.players
        spec = game.spec
        watch = observer(game)
        kinds = [game.spec.fields[game.field_names.index(name)].type.kind for name in watch.public_fields]
        kinds += [node.type.kind for node in spec.public.values()]
        self.public_kinds = tuple(kind if kind in ("seat", "seats") else None for kind in kinds)
        self._publics: dict[tuple[tuple[int, ...], int], tuple[int, ...]] = {}
        self.item_kinds = {item.name: item.what.type.kind for item in spec.view}
        self.shown_kinds: dict[str, tuple[str, ...]] = {}
        for compiled in game.rules:
            rule = compiled.rule
            entry_kinds = [show.what.type.kind for show in rule.shows]
            if rule.reveals and rule.actor == "seat":
                entry_kinds += [node.type.kind for _, node in rule.reveals]
            self.shown_kinds[rule.name] = tuple(entry_kinds)
        self.param_kinds = {c.rule.name: tuple(p.type.kind for p in c.rule.params) for c in game.rules}
        full = 1 << players
        self.masks = [[((m << (players - by)) | (m >> by)) & (full - 1) if by else m for m in range(full)]
                      for by in range(players)]

    def value(self, kind: str, value: Any, by: int) -> Any:
        """`value` of type `kind` moved -`by` places (seats and seat sets; the rest as is)."""
        if kind == "seat":
            return value if value < 0 else (value - by) % self.players
        if kind == "seats":
            return self.masks[by][value]
        return value

    def public(self, public: tuple[int, ...], by: int) -> tuple[int, ...]:
        key = (public, by)
        found = self._publics.get(key)
        if found is None:
            if len(self._publics) > PUBLIC_CACHE:
                self._publics.clear()
            found = self._publics[key] = tuple(
                v if kind is None else self.value(kind, v, by) for kind, v in zip(self.public_kinds, public))
        return found

    def view(self, view: SeatView, by: int) -> SeatView:
        items = tuple((name, self.value(self.item_kinds[name], v, by)) for name, v in view.items)
        moves = tuple(sorted((name, tuple(self.value(k, v, by) for k, v in zip(self.param_kinds.get(name, ()), args)))
                             for name, args in view.moves))
        return SeatView(self.public(view.public, by), items, moves)

    def observation(self, seen: Observation, by: int) -> Observation:
        kinds = self.shown_kinds[seen.rule]
        shown = tuple((index, value if isinstance(value, _Size) else self.value(kinds[index], value, by))
                      for index, value in seen.shown)
        return Observation(seen.rule, self.public(seen.public, by), shown)


class _Size(tuple[str, int]):
    """A vote's seat set in a key, by its size alone (module docstring)."""


def stepwise(game: Game, time_limit: float | None = None, max_states: int | None = None,
             progress: Progress | None = None) -> Pass:
    """One pass over the reachable transitions, checking the stepwise condition (module
    docstring)."""
    started = time.monotonic()
    spec, players = game.spec, game.players
    watch = observer(game)
    symmetric = not _blockers(game)
    codec = Codec(game, None, pivot_field(spec) if symmetric else None)
    rotator = _Rotator(game)
    seats = range(players)

    # Which parameters are taken one value per size (or one value), and the shows entries
    # that read them whole: their value in the key is the size (or nothing).
    reduced: dict[str, tuple[int, bool, frozenset[int]]] = {}
    for compiled in game.rules:
        rule = compiled.rule
        for position, rep in representatives(rule).items():
            name = rule.params[position].name
            if len(rule.params) == 1 and _shown_whole(rule, name):
                whole = frozenset(i for i, show in enumerate(rule.shows)
                                  if isinstance(show.what, n.Name) and show.what.name == name)
                reduced[rule.name] = (position, rep.one, whole)

    actor_of = {c.rule.name: c.actor for c in game.rules if c.actor is not None}
    table_word = {c.rule.name: "table:" + (c.rule.word or c.rule.name) for c in game.rules if c.rule.actor == "table"}
    view_items = watch.view_items
    shows = watch.shows

    view_ids: dict[Any, int] = {}
    observation_ids: dict[Any, int] = {}
    relation: dict[int, int] = {}
    state_ids: dict[int, int] = {}
    states: list[State] = []
    views_of = array("q")                      # state id * players + seat -> relative view id

    def intern(table: dict[Any, int], value: Any) -> int:
        found = table.get(value)
        if found is None:
            found = table[value] = len(table)
        return found

    def legal(state: State) -> list[tuple[Any, tuple[int, ...]]]:
        out = []
        for compiled in game.by_phase[state[game.phase_index]]:
            guard, weight = compiled.guard, compiled.weight
            for args in game._arg_tuples(compiled, state):
                if guard(state, *args) and (weight is None or weight(state, *args) > 0):
                    out.append((compiled, args))
        return out

    def views(state: State, moves: list[tuple[Any, tuple[int, ...]]]) -> list[SeatView]:
        public = watch.public(state)
        own: list[set[tuple[str, tuple[int, ...]]]] = [set() for _ in seats]
        actors: dict[str, int] = {}
        for compiled, args in moves:
            rule = compiled.rule
            if rule.actor == "table":
                taking_part = 0
                for arg in args:
                    taking_part |= arg
                for seat in seats:
                    if taking_part >> seat & 1:
                        own[seat].add((table_word[rule.name], ()))
            elif rule.actor == "seat" and rule.name in actor_of:
                actor = actors.get(rule.name)
                if actor is None:
                    actor = actors[rule.name] = actor_of[rule.name](state)
                own[actor].add((rule.name, args))
        items: list[list[tuple[str, Any]]] = [[] for _ in seats]
        for item, to, what in view_items:
            mask = to(state)
            for seat in seats:
                if mask >> seat & 1:
                    items[seat].append((item.name, what(state, seat)))
        return [SeatView(public, tuple(items[seat]), tuple(sorted(own[seat]))) for seat in seats]

    def view_key(view: SeatView, seat: int) -> int:
        if symmetric:
            return intern(view_ids, rotator.view(view, seat) if seat else view)
        return intern(view_ids, (seat, view))

    def add(state: State) -> tuple[int, list[tuple[Any, tuple[int, ...]]]]:
        """Store a canonical state: its id and its legal moves (its views kept as ids)."""
        moves = legal(state)
        state_id = state_ids[codec.encode(state)] = len(states)
        states.append(state)
        views_of.extend(view_key(view, seat) for seat, view in enumerate(views(state, moves)))
        return state_id, moves

    transitions = 0
    first = codec.canonical(game.initial_state())
    pending = [add(first)]
    last_word = started
    while pending:
        following: list[tuple[int, list[tuple[Any, tuple[int, ...]]]]] = []
        for state_id, moves in pending:
            now = time.monotonic()
            if time_limit is not None and now - started > time_limit:
                return Pass(PassVerdict.UNKNOWN,
                            len(states), transitions, len(relation), len(view_ids), len(observation_ids),
                            now - started, f"the time limit of {time_limit:g} s was hit after {len(states):,} states")
            if max_states is not None and len(states) > max_states:
                return Pass(PassVerdict.UNKNOWN,
                            len(states), transitions, len(relation), len(view_ids), len(observation_ids),
                            now - started, f"the limit of {max_states:,} states was hit")
            if progress is not None and now - last_word > PROGRESS_SECONDS:
                last_word = now
                progress(f"{players} players: {len(states):,} states, {transitions:,} transitions, "
                         f"{len(relation):,} keys, {now - started:.0f} s")
            state = states[state_id]
            base = state_id * players
            taken: set[tuple[str, int]] = set()
            for compiled, args in moves:
                rule = compiled.rule
                cut = reduced.get(rule.name)
                if cut is not None:
                    position, one, whole = cut
                    size = 0 if one else bin(args[position]).count("1")
                    if (rule.name, size) in taken:
                        continue
                    taken.add((rule.name, size))
                after = compiled.effect(state, *args)
                transitions += 1
                canonical = codec.canonical(after)
                code = codec.encode(canonical)
                after_id = state_ids.get(code)
                if after_id is None:
                    after_id, after_moves = add(canonical)
                    following.append((after_id, after_moves))
                rotation = codec.rotation(after)
                after_base = after_id * players
                public = watch.public(after)
                entries = shows[rule.name]
                masks = [entry.to(state, *args) for entry in entries]
                for seat in seats:
                    shown = []
                    for index, entry in enumerate(entries):
                        if masks[index] >> seat & 1:
                            if cut is not None and index in cut[2]:
                                shown.append((index, _Size(("size", -1 if cut[1] else size))))
                            else:
                                shown.append((index, entry.what(state, after, *args, seat)))
                    seen = Observation(rule.name, public, tuple(shown))
                    if symmetric:
                        seen_id = intern(observation_ids, rotator.observation(seen, seat) if seat else seen)
                    else:
                        seen_id = intern(observation_ids, (seat, seen))
                    key = views_of[base + seat] << ID_BITS | seen_id
                    value = views_of[after_base + (seat - rotation) % players]
                    known = relation.setdefault(key, value)
                    if known != value:
                        mine = views(after, legal(after))[seat]
                        if symmetric and seat:
                            mine = rotator.view(mine, seat)
                        return Pass(PassVerdict.CONFLICT, len(states), transitions, len(relation), len(view_ids),
                                    len(observation_ids), time.monotonic() - started,
                                    "the view after a move is not a function of the view before and what the "
                                    "move shows", Conflict(seat, state, Move(rule.name, args), after, mine,
                                                           _view_of(view_ids, known)))
        pending = following
    return Pass(PassVerdict.PROVED, len(states), transitions, len(relation), len(view_ids), len(observation_ids),
                time.monotonic() - started,
                f"complete: over all {transitions:,} transitions of {len(states):,} states, every seat's view after a "
                f"move is a function of its view before and what the move shows it")


def _view_of(view_ids: dict[Any, int], wanted: int) -> SeatView:
    for view, number in view_ids.items():
        if number == wanted:
            return view[1] if isinstance(view, tuple) and not isinstance(view, SeatView) else view  # type: ignore[no-any-return]
    raise AssertionError("an interned view id without its view")
