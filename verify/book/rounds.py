"""A witness game cut into rounds, as data for the drawing of the tracks.

`Trace.lines` tells a game move by move in the spec's words; a reader of a ruling wants
the table's view: who governed, how the table voted, what was enacted, and where the
two tracks and the Election Tracker stood after each round. A round begins, as in
`Trace.lines`, with a nomination (the deal and the first President are the setup)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.trace import Trace


@dataclass(slots=True)
class Round:
    """One round of a game: the government, the vote, the policy, the tracks after it."""

    number: int                              # 0: the setup before the first nomination
    president: int | None = None
    chancellor: int | None = None
    ja: int | None = None
    voters: int | None = None
    elected: bool | None = None
    enacted: str | None = None               # 'liberal' / 'fascist'
    by_chaos: bool = False
    power: str | None = None                 # the power the President had to use
    target: int | None = None                # the seat it was used on (none for a Policy Peek)
    liberal: int = 0
    fascist: int = 0
    tracker: int = 0
    moves: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)   # (says, rule IDs)
    answer: int | None = None                # the index in `moves` of the move that answers the question


@dataclass(frozen=True, slots=True)
class Game:
    """A witness game as rounds, with what the tracks and the board are at its count."""

    players: int
    rounds: tuple[Round, ...]
    liberal_length: int
    fascist_length: int
    tracker_limit: int
    board: tuple[str, ...]                   # the power of each Fascist slot (R-X7)
    winner: str | None
    how: str | None
    over: bool


def rounds(trace: Trace, lang: str = "en", answer: int | None = None) -> Game:
    """The rounds of `trace`, each with the tracks as they stand at its end and its moves in
    `lang` (the spec's `says`, or `says_de`); the move of step `answer` is marked as the one
    that answers the question. A power used is kept with the seat it was used on (the
    move's seat parameter), so that the round card says who was executed or investigated
    and the next round's smaller vote is explained."""
    game = trace.game
    roles = {name: {c.rule.name for c in compiled} for name, compiled in game.by_role.items()}
    nominations, votes = roles.get("nomination", set()), roles.get("vote", set())
    elections, chaos = roles.get("election", set()), roles.get("top_policy", set())
    previous = trace.start
    before: dict[str, Any] = game.describe(previous)
    current = Round(0)
    out = [current]
    for step, (move, state) in enumerate(trace.steps):
        rule = game.by_name[move.rule].rule
        if rule.name in nominations:
            current = Round(len(out), president=before["president"])
            out.append(current)
        after: dict[str, Any] = game.describe(state)
        params = game.params_of(move)
        if rule.name in nominations:
            current.chancellor = params.get("chancellor")
        if rule.name in votes:
            current.ja = len(params.get("ja") or ())
            current.voters = len(before["alive"])
            current.elected = rule.name in elections
        for party in ("liberal", "fascist"):
            if after[f"{party}_policies"] > before[f"{party}_policies"]:
                current.enacted, current.by_chaos = party, rule.name in chaos
        if after["power"] != "none" and before["power"] == "none":
            current.power = str(after["power"])
        if before["power"] != "none" and after["power"] == "none":     # the power used: on whom
            seats = [value for p, value in zip(rule.params, params.values()) if p.type.kind == "seat"]
            current.target = seats[0] if seats else None
        if step == answer:
            current.answer = len(current.moves)
        if not rule.quiet or step == answer:
            current.moves.append((game.says(previous, move, lang), tuple(rule.cited)))
        current.liberal, current.fascist = after["liberal_policies"], after["fascist_policies"]
        current.tracker = after["election_tracker"]
        previous, before = state, after
    end = trace.end
    power_names = game.spec.enums["power"]
    slots = game.values["board"]
    board = tuple(power_names[i] for i in slots) if isinstance(slots, tuple) else ()
    return Game(game.players, tuple(out), _number(game.values["liberal_track_length"]),
                _number(game.values["fascist_track_length"]), _number(game.values["tracker_limit"]), board,
                game.winner(end), game.how(end), game.is_over(end))


def _number(value: int | tuple[int, ...]) -> int:
    """A constant of the rules that is one number (a table would be a tuple)."""
    assert isinstance(value, int), value
    return value

