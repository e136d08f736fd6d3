"""The shortest game in which a seat comes to know something, or why there is none.

A breadth-first search over one seat's beliefs (beliefs.py), for each knower the question
needs (question.py: one seat when the rules look the same from every seat). Its answer:

- `found`: a game, replayed exactly, in which the question holds; the shortest one unless
  `lower_bound` says how short a game could still be;
- `none`: every belief the seat can reach was searched: the question never holds;
- `unknown`: the time, the beliefs or the depth ran out first (never "no").

Three things keep the search small, all sound:

- *phases out of reach*: a question that holds only in some phases (a conjunct `phase ==
  'x'`) skips beliefs in a phase from which no rule's effect leads back to one of them;
  one that holds only up to a value of a public count no rule lowers (a conjunct
  `fascist_policies == 0` where every effect adds to it) skips beliefs past that value;

- *knowers of the wrong role*: a question that needs the knower to have a role (some('liberal')
  among its conjuncts) skips beliefs of a seat of another role, once the roles are dealt and
  no rule deals them again (only rules with the role `deal` assign the fields `[view.role]`
  reads);
- *merging*: beliefs are kept by their public part and their part on the components of the
  hidden fields the question reads (components.py: `hitler` and `fascists` for who is
  Hitler, not the pile); two beliefs alike there are stored as their union. The question
  reads the same in the union as in each (it reads only that part), and a successor of the
  union is alike there with the successor of each part (the components evolve apart), so
  every exact belief at depth d lies inside a stored union alike with it found by depth d. A
  union can reach more than its parts, never less: a search of unions that finds nothing
  proves "no", and the depth of the first union where the question holds is a lower bound on
  the shortest game. A game found is replayed observation by observation over the exact
  beliefs, and only a game the replay confirms is reported. A question reading every
  component merges nothing: the search is exact.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from engine.game import Game, Move
from engine.trace import Trace
from spec.lang.nodes import IfElse, ListLit, Lit, fields_read, walk

from .belief_sets import Belief, Beliefs, Seen
from .components import closure
from ..clock import Budget as Clock
from ..results import Named
from .question import Question

Key = tuple[tuple[int, ...], frozenset[tuple[int, ...]]]


class Found(Named):
    """How a knowledge search ended (`Searched.status`): a game found where the question
    holds, none (the search was complete), or unknown (a limit)."""

    FOUND = "found"
    NONE = "none"
    UNKNOWN = "unknown"

    @classmethod
    def noun(cls) -> str:
        return "knowledge search's status"


@dataclass(frozen=True, slots=True)
class Searched:
    """The outcome of a knowledge search, with its size."""

    status: Found
    trace: Trace | None = None
    seat: int | None = None         # the knower of the game found
    beliefs: int = 0                # beliefs stored (unions, when merging)
    states: int = 0                 # states of the beliefs expanded
    depth: int = 0                  # the deepest level searched
    seconds: float = 0.0
    reason: str = ""
    lower_bound: int | None = None  # set when the game found is not proved the shortest
    merged: bool = False


@dataclass(slots=True)
class _Entry:
    belief: Belief
    level: int
    parent: Key | None
    seen: Seen | None


class _Seat:
    """The search for one knower."""

    def __init__(self, game: Game, question: Question, seat: int, merge: bool = True) -> None:
        self.game = game
        self.question = question
        self.seat = seat
        self.beliefs = Beliefs(game, seat)
        hidden_names = [game.field_names[i] for i in self.beliefs.hidden_index]
        kept = closure(game.spec, question.reads) if merge else frozenset(hidden_names)
        self.keep = tuple(k for k, name in enumerate(hidden_names) if name in kept)
        self.merged = len(self.keep) < len(hidden_names)
        self.fixed_roles, self.deal_phases = _roles_fixed(game)
        self.phase_at = self.beliefs.public_index.index(game.phase_index)
        self.hopeless = _hopeless_phases(game, question.phases)
        self.ceilings = tuple((self.beliefs.public_index.index(game.field_names.index(name)), bound)
                              for name, bound in question.ceilings.items()
                              if game.field_names.index(name) in self.beliefs.public_index)

    def key(self, belief: Belief) -> Key:
        if not self.merged:
            return belief.public, belief.hidden
        keep = self.keep
        return belief.public, frozenset(tuple(h[k] for k in keep) for h in belief.hidden)

    def phase(self, belief: Belief) -> int:
        return int(belief.public[self.phase_at])

    def pruned(self, belief: Belief) -> bool:
        if self.phase(belief) in self.hopeless:
            return True
        if any(belief.public[at] > bound for at, bound in self.ceilings):
            return True
        wanted = self.question.role
        if wanted is None or not self.fixed_roles:
            return False
        if self.phase(belief) in self.deal_phases:
            return False
        return all(self.question.role_of(state, self.seat) != wanted for state in self.beliefs.members(belief))

    def holds(self, belief: Belief) -> Any:
        if self.phase(belief) in self.deal_phases:
            return None             # before the deal the roles are placeholders nobody was shown
        return self.question.holds_in(list(self.beliefs.members(belief)), self.seat)


def search(game: Game, question: Question, budget: Clock, max_beliefs: int,
           max_depth: int | None = None, merge: bool = True) -> Searched:
    """The shortest game in which `question` holds for some knower (module docstring),
    within `budget`: seconds of work, with a wall-clock backstop (verify/clock.py).
    `merge=False` keeps every belief apart: the exact search the merged one is tested
    against (tests/test_knowledge.py)."""
    started = time.perf_counter()
    seats = [_Seat(game, question, seat, merge) for seat in question.seats()]
    stores: list[dict[Key, _Entry]] = []
    frontiers: list[list[Key]] = []
    for seat in seats:
        first = seat.beliefs.initial()
        key = seat.key(first)
        stores.append({key: _Entry(first, 0, None, None)})
        frontiers.append([key])
    level = 0
    hit_level: int | None = None     # the first depth where a union held the question
    refuted = 0                      # games found over unions that the exact replay refuted
    while any(frontiers):
        for index, seat in enumerate(seats):
            store = stores[index]
            for key in frontiers[index]:
                entry = store[key]
                if entry.level != level:
                    continue
                if seat.holds(entry.belief) is not None:
                    hit_level = level if hit_level is None else hit_level
                    found = _confirm(seat, store, key)
                    if found is not None:
                        trace, length = found
                        bound = None if length == hit_level else hit_level
                        return _done(seats, stores, Found.FOUND, started, length, trace=trace, seat=seat.seat,
                                     lower_bound=bound)
                    refuted += 1
        if max_depth is not None and level >= max_depth:
            return _done(seats, stores, Found.UNKNOWN, started, level,
                         reason=f"the depth limit ({max_depth} moves) was reached")
        nexts: list[list[Key]] = []
        for index, seat in enumerate(seats):
            store = stores[index]
            grown: dict[Key, None] = {}
            for key in frontiers[index]:
                entry = store[key]
                if entry.level != level:
                    continue
                for seen, after in seat.beliefs.successors(entry.belief).items():
                    if seat.pruned(after):
                        continue
                    child = seat.key(after)
                    known = store.get(child)
                    if known is None:
                        store[child] = _Entry(after, level + 1, key, seen)
                    elif after.hidden <= known.belief.hidden:
                        continue
                    else:
                        union = Belief(after.public, known.belief.hidden | after.hidden)
                        store[child] = _Entry(union, level + 1, key, seen)
                    grown[child] = None
                if budget.spent():
                    return _done(seats, stores, Found.UNKNOWN, started, level,
                                 reason=f"the time ran out at depth {level + 1} ({budget.spent()})")
                if sum(len(s) for s in stores) > max_beliefs:
                    return _done(seats, stores, Found.UNKNOWN, started, level,
                                 reason=f"the belief limit ({max_beliefs:,}) was reached at depth {level + 1}")
            nexts.append(list(grown))
        frontiers = nexts
        level += 1
    if refuted:
        return _done(seats, stores, Found.UNKNOWN, started, level,
                     reason=f"{refuted} game(s) found over merged beliefs were not confirmed by the exact replay")
    return _done(seats, stores, Found.NONE, started, level)


def _confirm(seat: _Seat, store: dict[Key, _Entry], key: Key) -> tuple[Trace, int] | None:
    """The game along the parents of `key`, replayed over the exact beliefs, if the
    question holds at its end: (the game, its length in steps)."""
    seens: list[Seen] = []
    current: Key | None = key
    visited: set[Key] = set()
    while current is not None:
        if current in visited:
            return None
        visited.add(current)
        entry = store[current]
        if entry.seen is not None:
            seens.append(entry.seen)
        current = entry.parent
    seens.reverse()
    beliefs = seat.beliefs
    path = [beliefs.initial()]
    for seen in seens:
        after = beliefs.successors(path[-1]).get(seen)
        if after is None:
            return None
        path.append(after)
    state = seat.holds(path[-1])
    if state is None:
        return None
    steps: list[tuple[Move, Any]] = []
    for index in range(len(seens), 0, -1):
        state, moves = beliefs.step_to(path[index - 1], seens[index - 1], state)
        steps[:0] = moves
    return Trace(seat.game, state, steps), len(seens)


def _done(seats: list[_Seat], stores: list[dict[Key, _Entry]], status: Found, started: float, depth: int,
          **fields: Any) -> Searched:
    return Searched(status, beliefs=sum(len(s) for s in stores), states=sum(s.beliefs.states for s in seats),
                    depth=depth, seconds=time.perf_counter() - started, merged=any(s.merged for s in seats), **fields)


def _hopeless_phases(game: Game, allowed: frozenset[int] | None) -> frozenset[int]:
    """The phases from which no phase the question can hold in is reached again, by the
    phases each rule's effect may move to (every phase literal of its `phase` assignment)."""
    if allowed is None:
        return frozenset()
    names = game.phase_names
    nexts: dict[int, set[int]] = {index: set() for index in range(len(names))}
    for rule in game.spec.rules:
        source = names.index(rule.phase)
        assigned = dict(rule.effect).get("phase")
        if assigned is None:
            nexts[source].add(source)
            continue
        for item in walk(assigned):
            if isinstance(item, Lit) and item.type.kind == "enum" and item.type.enum == "phase":
                nexts[source].add(int(item.value))
            elif not isinstance(item, Lit) and item.type.kind == "enum" and item.type.enum == "phase" \
                    and not isinstance(item, (IfElse, ListLit)):
                return frozenset()              # a phase computed otherwise: no pruning
    hopeful = set(allowed)
    changed = True
    while changed:
        changed = False
        for source, targets in nexts.items():
            if source not in hopeful and targets & hopeful:
                hopeful.add(source)
                changed = True
    return frozenset(range(len(names))) - hopeful


def _roles_fixed(game: Game) -> tuple[bool, frozenset[int]]:
    """Whether only the deal assigns the fields a seat's role is read from, and the
    phases of the deal (before it no role is dealt, and no question is asked)."""
    spec = game.spec
    role_fields: set[str] = set()
    for item in spec.view:
        if item.what.type.kind == "enum" and item.what.type.enum == "role":
            role_fields |= fields_read([item.what], spec.definitions)
    deal_phases = frozenset(game.phase_names.index(rule.phase) for rule in spec.rules if "deal" in rule.roles)
    fixed = bool(role_fields) and not any(
        {name for name, _ in rule.effect} & role_fields for rule in spec.rules if "deal" not in rule.roles)
    return fixed, deal_phases
