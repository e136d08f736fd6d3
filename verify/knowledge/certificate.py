"""The no-leak certificate's verdicts, the leak found (a shortest pair of games) and their words.

A verdict is one of `proved` (a complete search, or an induction that closed, found no two
games with the same observations and different views), `leak` (two such games, the
shortest, replayed by the engine) or `unknown` (a limit was hit first; never a pass).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.game import Game, Move
from engine.observe import SeatView, observer
from engine.trace import Trace
from engine.words import seat_shown, seats_shown
from verify.results import EXIT_FAILED, EXIT_LIMIT, EXIT_OK, KnowledgeVerdict


VERDICTS = tuple(KnowledgeVerdict)
EXIT_OF = {KnowledgeVerdict.PROVED: EXIT_OK, KnowledgeVerdict.LEAK: EXIT_FAILED, KnowledgeVerdict.UNKNOWN: EXIT_LIMIT}


@dataclass(frozen=True, slots=True)
class Difference:
    """What two views of one seat differ in: a `[view]` item (by name), `public` (a public
    field or count) or `moves` (what the seat may do now), the rule ID that allows it, and
    the two values in words."""

    item: str
    rule_id: str
    first: str
    second: str


@dataclass(slots=True)
class Leak:
    """Two games of equal length that show `seat` the same thing move by move and end in
    different views of it."""

    seat: int
    first: Trace
    second: Trace
    difference: Difference

    def lines(self) -> list[str]:
        """The pair round by round in the table's words, then what the views differ in."""
        d = self.difference
        out = [f"seat {seat_shown(self.seat)} is shown the same {len(self.first.steps)} moves in both games, "
               f"yet the engine shows it different views:"]
        for label, trace in (("first game", self.first), ("second game", self.second)):
            out.append(f"{label}:")
            out += trace.lines(changes=False)
        out.append(f"the view differs in '{d.item}' [{d.rule_id}]: {d.first} in the first game, "
                   f"{d.second} in the second")
        return out

    def to_json(self) -> dict[str, Any]:
        """The pair as plain data: each game's moves and the difference."""
        game = self.first.game
        return {
            "seat": seat_shown(self.seat),
            "item": self.difference.item,
            "rule": self.difference.rule_id,
            "first_value": self.difference.first,
            "second_value": self.difference.second,
            "games": [[{"rule": move.rule, "params": _params(game, move)} for move, _ in trace.steps]
                      for trace in (self.first, self.second)],
            "text": self.lines(),
        }


@dataclass(slots=True)
class Certificate:
    """The verdict for one rule set at one player count, with the measures of its search."""

    rules: str
    players: int
    backend: str                         # explicit | smt
    verdict: KnowledgeVerdict
    seats: tuple[int, ...]               # the seats checked (seat 0 alone under rotation)
    symmetry: str                        # why those seats suffice
    seconds: float
    figures: dict[str, int] = field(default_factory=dict)
    reason: str = ""                     # why unknown / what was proved
    leak: Leak | None = None

    @property
    def exit_status(self) -> int:
        """0 proved, 1 a leak, 3 unknown (verify/results.py)."""
        return EXIT_OF[self.verdict]

    def to_json(self) -> dict[str, Any]:
        """Plain data for `shrules knows --json`."""
        return {"rules": self.rules, "players": self.players, "backend": self.backend, "verdict": self.verdict.value,
                "seats": list(self.seats), "symmetry": self.symmetry, "seconds": round(self.seconds, 2),
                "figures": dict(self.figures), "reason": self.reason,
                "leak": self.leak.to_json() if self.leak else None}

    def lines(self) -> list[str]:
        """The verdict in words, with the leak's games."""
        figures = ", ".join(f"{value:,} {name}" for name, value in self.figures.items())
        head = f"{self.rules}, {self.players} players ({self.backend}): {self.verdict}"
        out = [f"{head}; {figures}; {self.seconds:.1f} s", f"  seats: {self.symmetry}"]
        if self.reason:
            out.append(f"  {self.reason}")
        if self.leak is not None:
            out += ["  " + line for line in self.leak.lines()]
        return out


def _params(game: Game, move: Move) -> dict[str, Any]:
    """A move's parameters as a person reads them (seats from 1)."""
    rule = game.by_name[move.rule].rule
    return {p.name: _plain(seats_shown(p.type.kind, value)) for p, value in zip(rule.params, game.params_of(move).values())}


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple, frozenset, set)):
        return [_plain(item) for item in value]
    return value


def difference(game: Game, first: SeatView, second: SeatView) -> Difference | None:
    """The first thing two views of a seat differ in (None: equal), with its rule ID."""
    watch = observer(game)
    names = (*watch.public_fields, *watch.count_names)
    for name, a, b in zip(names, first.public, second.public):
        if a != b:
            return Difference(f"public {name}", "R-S5", str(a), str(b))
    items = {item.name: item for item in game.spec.view}
    a_items, b_items = dict(first.items), dict(second.items)
    for name, item in items.items():
        if a_items.get(name, _ABSENT) != b_items.get(name, _ABSENT):
            return Difference(name, item.rule_id, _item_words(game, item.what.type, a_items.get(name, _ABSENT)),
                              _item_words(game, item.what.type, b_items.get(name, _ABSENT)))
    if first.moves != second.moves:
        only = sorted(set(first.moves) ^ set(second.moves))
        name = only[0][0]
        rule_id = _move_rule_id(game, name)
        return Difference("moves", rule_id, _moves_words(game, first.moves), _moves_words(game, second.moves))
    return None


_ABSENT = object()


def _item_words(game: Game, kind: Any, value: Any) -> str:
    if value is _ABSENT:
        return "not shown"
    return str(_plain(seats_shown(kind.kind, game.decode(kind.kind, kind.enum, value))))


def _move_rule_id(game: Game, name: str) -> str:
    if name.startswith("table:"):
        word = name[len("table:"):]
        rules = [c.rule for c in game.rules if c.rule.actor == "table" and (c.rule.word or c.rule.name) == word]
    else:
        rules = [game.by_name[name].rule]
    return rules[0].cited[0] if rules and rules[0].cited else ""


def _moves_words(game: Game, moves: tuple[tuple[str, tuple[int, ...]], ...]) -> str:
    if not moves:
        return "no moves"
    shown = []
    for name, args in moves:
        if name.startswith("table:"):
            shown.append(name[len("table:"):])
            continue
        rule = game.by_name[name].rule
        params = {p.name: seats_shown(p.type.kind, v) for p, v in zip(rule.params, game.params_of(Move(name, args)).values())}
        shown.append(name + ("(" + ", ".join(f"{k}={_plain(v)}" for k, v in params.items()) + ")" if params else ""))
    return "[" + ", ".join(shown) + "]"
