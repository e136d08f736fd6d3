"""Belief sets: the states a seat thinks possible after what it was shown, move by move.

A seat with perfect recall knows its observation history (engine/observe.py: each move's
rule, the public part after it, the values its `shows` give that seat). Its *belief* is
every state consistent with that history. Beliefs are computed by the subset construction
over the engine's own moves, chance included: from a belief B, for each observation o of
the seat,

    B' = { t : s in B, s -> t by a legal move, observation(s, move, t, seat) == o }.

Every state of B is reached by a game with the seat's history, so a question about a seat's
knowledge is decided exactly by searching the beliefs reachable from the initial one.

The moves are those of `verify/explicit/model.py` under two reductions that keep beliefs
exact (verify/explicit/reductions.py argues each for states; here for beliefs):

- vote representatives (b): two votes of equal size lead every state of B to the same
  successor and show the same count, so they give the same B' (only the list of names
  shown differs, which no state keeps): one vote per size is searched;
- fusing forced moves (d): a move of the game itself is forced in each state; its
  observation is appended to that of the move before it, so a fused step is observed as
  the sequence of what each of its moves showed.

Rotation and the cone of influence are not used: the seat is fixed, and what a move shows
may read any field. A belief is stored compactly: the public part its states share (a
tuple) and the frozenset of their hidden parts (tuples of the hidden fields).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from operator import itemgetter
from typing import Any, NamedTuple

from engine.game import Game, Move
from engine.observe import Observation, Observer, observer
from engine.pycompile import load_source

from ..explicit.model import Model
from ..explicit.reductions import Reductions

EXACT = Reductions(symmetry=False, representatives=True, cone=False, fuse=True)
"""The reductions under which beliefs stay exact (module docstring)."""


CACHE_STATES = 400_000
"""States whose observed steps are kept: a union of beliefs grows and is expanded again,
and most of its states were expanded before (the cache is emptied when full)."""


class Belief(NamedTuple):
    """One belief: the public fields its states share, and the hidden fields of each state."""

    public: tuple[int, ...]
    hidden: frozenset[tuple[int, ...]]


Seen = tuple[Observation, ...]
"""What a seat is shown of one fused step: the observation of each move in it."""


def _getter(indexes: tuple[int, ...]) -> Callable[[Any], tuple[int, ...]]:
    """A function giving the fields at `indexes` of a state, as a tuple."""
    if len(indexes) == 1:
        index = indexes[0]
        return lambda state: (state[index],)
    if not indexes:
        return lambda state: ()
    getter: Callable[[Any], tuple[int, ...]] = itemgetter(*indexes)
    return getter


class Beliefs:
    """The beliefs of one seat in one compiled game."""

    def __init__(self, game: Game, seat: int) -> None:
        self.game = game
        self.seat = seat
        self.model = Model(game, (), EXACT)
        self.observer: Observer = observer(game)
        public = set(self.observer.public_index)
        self.public_index = tuple(i for i in range(len(game.field_names)) if i in public)
        self.hidden_index = tuple(i for i in range(len(game.field_names)) if i not in public)
        slots = {index: f"p[{k}]" for k, index in enumerate(self.public_index)}
        slots.update({index: f"h[{k}]" for k, index in enumerate(self.hidden_index)})
        # one tuple built per state: the fields in schema order, from the two parts
        source = (f"def merge(p, h):\n"
                  f"    return new(State, ({', '.join(slots[i] for i in range(len(game.field_names)))},))\n")
        namespace = load_source(source, "belief merge", {"new": tuple.__new__, "State": game.State})
        self._merge: Callable[[tuple[int, ...], tuple[int, ...]], Any] = namespace["merge"]
        self._hidden_of = _getter(self.hidden_index)
        self._public_of = _getter(self.public_index)
        self.expanded = 0               # beliefs whose successors were computed
        self.states = 0                 # states of those beliefs
        self._cache: dict[Any, tuple[tuple[Seen, Any], ...]] = {}

    # ------------------------------------------------------------------ representation

    def belief(self, states: Any) -> Belief:
        """The belief of a non-empty collection of states sharing their public fields."""
        hidden = frozenset(map(self._hidden_of, states))
        return Belief(self._public_of(next(iter(states))), hidden)

    def members(self, belief: Belief) -> Iterator[Any]:
        """The states of a belief."""
        public, merge = belief.public, self._merge
        for hidden in belief.hidden:
            yield merge(public, hidden)

    def initial(self) -> Belief:
        """The belief before the first move: the one initial state."""
        return self.belief([self.model.initial()])

    # ------------------------------------------------------------------ the subset construction

    def seen(self, before: Any, step: Any) -> Seen:
        """What the seat is shown of one fused step from `before`."""
        observe, seat = self.observer.observation, self.seat
        out = [observe(before, Move(step.rule.rule.name, step.args), step.after, seat)]
        previous = step.after
        for compiled, after in step.chain:
            out.append(observe(previous, Move(compiled.rule.name, ()), after, seat))
            previous = after
        return tuple(out)

    def successors(self, belief: Belief) -> dict[Seen, Belief]:
        """Each observation the seat may have next, with the belief it leads to."""
        buckets: dict[Seen, list[Any]] = {}
        count = 0
        cache = self._cache
        for state in self.members(belief):
            count += 1
            steps = cache.get(state)
            if steps is None:
                steps = tuple((self.seen(state, step), step.final) for step in self.model.steps(state))
                if len(cache) >= CACHE_STATES:
                    cache.clear()
                cache[state] = steps
            for seen, final in steps:
                buckets.setdefault(seen, []).append(final)
        self.expanded += 1
        self.states += count
        return {seen: self.belief(states) for seen, states in buckets.items()}

    def step_to(self, belief: Belief, seen: Seen, state: Any) -> tuple[Any, list[tuple[Move, Any]]]:
        """A state of `belief` and the moves from it to `state`, observed as `seen` (to
        rebuild a game along a path of beliefs)."""
        for before in self.members(belief):
            for step in self.model.steps(before):
                if step.final == state and self.seen(before, step) == seen:
                    moves = [(Move(step.rule.rule.name, step.args), step.after)]
                    moves += [(Move(compiled.rule.name, ()), after) for compiled, after in step.chain]
                    return before, moves
        raise AssertionError("a belief's parent has no step to it")     # the replay computed it so
