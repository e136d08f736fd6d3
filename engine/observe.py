"""What each seat sees: a move's observation and a seat's view, compiled from the spec.

The rules say who sees what (spec/observations.py): the public fields and `[public]`
counts after every move, the move's rule, and each `shows` entry to the seats in its `to`
(a rule's `reveals` go to its actor). A seat's *observation history* is the sequence of
what it was shown, move by move; under perfect recall that is everything a seat can know.
A seat's *view* (`[view]`) is what the engine shows it at a moment: the public fields and
counts, the items of `[view]` it is shown, and the moves it may make now. The no-leak
certificate (verify/knowledge) proves the view a function of the observation history.

Values stay encoded (ints, seat bit masks) so observations hash fast in the searches;
`words` turns them into the table's words for `shrules view`.
"""

from __future__ import annotations

import weakref
from operator import itemgetter
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple

from spec.model import Rule, Show, ViewItem

from .game import Game, Move, State
from .pycompile import Emitter, _lines_for_lets, bounded_helpers, compile_expression, load_source


class Observation(NamedTuple):
    """What one seat is shown of one move: the move's rule, the public part of the state
    after it, and the values of the entries shown to that seat (in the rule's order, each
    with its index, so two entries that show equal values stay apart)."""

    rule: str
    public: tuple[int, ...]
    shown: tuple[tuple[int, Any], ...]


@dataclass(frozen=True, slots=True)
class SeatView:
    """What the engine shows a seat at a moment."""

    public: tuple[int, ...]                 # the public fields, then the [public] counts
    items: tuple[tuple[str, Any], ...]      # the [view] items shown to the seat, by name
    moves: tuple[tuple[str, tuple[int, ...]], ...]   # the moves the seat may make now


@dataclass(frozen=True, slots=True)
class _CompiledShow:
    show: Show | None                       # None: the rule's reveal `name` to its actor
    name: str
    to: Callable[..., int]                  # (s, *args) -> seat mask
    what: Callable[..., Any]                # (s, t, *args, viewer) -> value


class Observer:
    """The observations and views of one compiled game (one rule set, one player count)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        spec, players = game.spec, game.players
        self.public_fields = spec.seen_fields("public")
        self.public_index = tuple(game.field_names.index(name) for name in self.public_fields)
        self._public_fields = itemgetter(*self.public_index) if self.public_index else (lambda state: ())
        self.count_names = tuple(spec.public)
        self.counts = tuple(compile_expression(spec, players, node) for node in spec.public.values())
        self.shows: dict[str, tuple[_CompiledShow, ...]] = {
            compiled.rule.name: self._compile_rule(compiled.rule) for compiled in game.rules}
        self.view_items: tuple[tuple[ViewItem, Callable[..., int], Callable[..., Any]], ...] = tuple(
            (item, compile_expression(spec, players, item.to),
             compile_expression(spec, players, item.what, ["viewer"])) for item in spec.view)

    def _compile_rule(self, rule: Rule) -> tuple[_CompiledShow, ...]:
        spec, players = self.game.spec, self.game.players
        names = [param.name for param in rule.params]
        lets = [name for name, _ in rule.lets]
        out = []
        for show in rule.shows:
            emitter = Emitter(spec, players, names, lets)
            to = _function(emitter, rule, show.to, ", ".join(["s", *emitter.params()]))
            with_viewer = Emitter(spec, players, [*names, "viewer"], lets)
            what = _function(with_viewer, rule, show.what, ", ".join(["s", "t", *with_viewer.params()]))
            out.append(_CompiledShow(show, "", to, what))
        if rule.reveals and rule.actor == "seat":
            actor = self.game.by_name[rule.name].actor
            assert actor is not None
            for (name, _), (_, function) in zip(rule.reveals, self.game.by_name[rule.name].reveals):
                out.append(_CompiledShow(None, name, _actor_mask(actor), _reveal(function)))
        return tuple(out)

    # ------------------------------------------------------------------ observations

    def public(self, state: State) -> tuple[int, ...]:
        """The public part of a state: the public fields, then the `[public]` counts."""
        fields = self._public_fields(state)
        return (fields if isinstance(fields, tuple) else (fields,)) + tuple(count(state) for count in self.counts)

    def observation(self, before: State, move: Move, after: State, seat: int) -> Observation:
        """What `seat` is shown of `move` from `before` to `after`."""
        shown = []
        for index, compiled in enumerate(self.shows[move.rule]):
            if compiled.to(before, *move.args) >> seat & 1:
                shown.append((index, compiled.what(before, after, *move.args, seat)))
        return Observation(move.rule, self.public(after), tuple(shown))

    def shown(self, before: State, move: Move, after: State, seat: int) -> list[tuple[Show | None, str, Any]]:
        """The entries of `move` shown to `seat`, each with its value (for `shrules view`)."""
        out = []
        for compiled in self.shows[move.rule]:
            if compiled.to(before, *move.args) >> seat & 1:
                out.append((compiled.show, compiled.name, compiled.what(before, after, *move.args, seat)))
        return out

    # ------------------------------------------------------------------ views

    def view(self, state: State, seat: int) -> SeatView:
        """What the engine shows `seat` in `state`: the public part, the `[view]` items it is
        shown, and the moves it may make now (its own, and whether it takes part in the
        table's vote)."""
        items = tuple((item.name, what(state, seat)) for item, to, what in self.view_items if to(state) >> seat & 1)
        return SeatView(self.public(state), items, self.moves(state, seat))

    def moves(self, state: State, seat: int) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """The moves `seat` may make in `state`, sorted: a seat's own moves with their
        parameters; for the table's vote, the word and no parameters when the seat votes."""
        game = self.game
        out: set[tuple[str, tuple[int, ...]]] = set()
        for move in game.legal_moves(state):
            compiled = game.by_name[move.rule]
            rule = compiled.rule
            if rule.actor == "seat" and compiled.actor is not None and compiled.actor(state) == seat:
                out.add((move.rule, move.args))
            elif rule.actor == "table" and any(arg >> seat & 1 for arg in move.args):
                out.add(("table:" + (rule.word or rule.name), ()))
        return tuple(sorted(out))


def _function(emitter: Emitter, rule: Rule, node: Any, params: str) -> Callable[..., Any]:
    """A function of a rule's text with the rule's lets computed first (as its `says` are)."""
    lines = _lines_for_lets(emitter, rule)
    source = "\n".join([f"def f({params}):", *lines, f"    return {emitter.emit(node)}"])
    function: Callable[..., Any] = load_source(source, f"rule {rule.name} shows", bounded_helpers(rule.where))["f"]
    return function


def _actor_mask(actor: Callable[..., int]) -> Callable[..., int]:
    def to(state: State, *args: int) -> int:
        return 1 << actor(state)
    return to


def _reveal(function: Callable[..., Any]) -> Callable[..., Any]:
    def what(before: State, after: State, *args: Any) -> Any:
        return function(before, *args[:-1])
    return what


_OBSERVERS: "weakref.WeakKeyDictionary[Game, Observer]" = weakref.WeakKeyDictionary()


def observer(game: Game) -> Observer:
    """The observer of a compiled game, built once per game and gone with it."""
    found = _OBSERVERS.get(game)
    if found is None:
        found = _OBSERVERS[game] = Observer(game)
    return found
