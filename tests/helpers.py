"""Small builders for the rule tests: scripted play and hand-made positions.

`start` deals fixed roles (Hitler at seat 3 unless told otherwise) so a scenario reads the
same for every player count; `play` applies scripted steps, each checked with the seat that
is to move, and runs the game's forced moves (win checks, reshuffles, passing candidacy)
after every one; `position` builds an arbitrary state from readable field values;
`refused` asserts that a move is illegal for the named rule ID with a reason in plain words.
Nothing here knows a rule of the game: every number comes from the engine or the test.
"""

from __future__ import annotations

from pathlib import Path

import re
from typing import Any

import pytest

from engine import IllegalMove, Move, compiled_game, new_game
from engine.game import Game
from verify.results import Moves, PropertyResult, Proved, Refuted, Unknown, Vacuous, Witnessed

HITLER = 3
"""Hitler's seat in every scripted game unless a test says otherwise."""

_FASCIST_SEATS = (1, 5, 6)
"""Ordinary Fascists are dealt from these seats, as many as the player count has."""


def game_for(players: int) -> Game:
    """The compiled standard game for `players`."""
    return compiled_game(players)


def default_fascists(players: int) -> list[int]:
    """The ordinary Fascist seats of a scripted game: as many as the rules deal (R-S2)."""
    game = compiled_game(players)
    count = game.values["ordinary_fascists"]
    assert isinstance(count, int)
    return list(_FASCIST_SEATS[:count])


def start(players: int = 7, *, hitler: int = HITLER, fascists: list[int] | None = None,
          first_president: int = 0) -> Any:
    """A new game at the first nomination with known roles and first President."""
    return new_game(players, seed=0, hitler=hitler,
                    fascists=default_fascists(players) if fascists is None else fascists,
                    first_president=first_president)


def field_value(game: Game, name: str, value: Any) -> int:
    """The encoded value of a readable field value (None is the absent seat or member)."""
    field = game.spec.fields[game.spec.field_index(name)]
    if value is None:
        assert field.type.optional, f"field {name} cannot be none"
        return -1
    return game.encode(field.type.kind, field.type.enum, value)


def position(players: int = 7, base: Any = None, **fields: Any) -> Any:
    """A state built from `base` (a fresh scripted game by default) with readable fields
    replaced: seats as ints, seat sets as lists, enums and tiles by name, None for none."""
    game = compiled_game(players)
    state = start(players) if base is None else base
    return state._replace(**{name: field_value(game, name, value) for name, value in fields.items()})


def read(state: Any) -> dict[str, Any]:
    """Every field of a state, readable."""
    return game_of(state).describe(state)


def game_of(state: Any) -> Game:
    """The compiled game a state belongs to."""
    game: Game = type(state)._game
    return game


Step = Move | tuple[Any, ...] | str
"""A scripted step: a Move, a rule name, (rule, params) or (rule, params, by)."""


def to_move(game: Game, step: Step) -> tuple[Move, int | None, bool]:
    """The move of a step, the seat it is made by, and whether that seat was given."""
    if isinstance(step, Move):
        return step, None, False
    if isinstance(step, str):
        return game.move(step), None, False
    rule, params, *rest = step
    move = game.move(rule, **params)
    if rest:
        return move, rest[0], True
    return move, None, False


def play(state: Any, *steps: Step, log: list[str] | None = None) -> Any:
    """Apply scripted steps, each by the seat whose turn it is (or the seat given), and run
    the forced moves of the game after every one. `log` collects every rule applied."""
    game = game_of(state)
    state, forced = game.advance(state)
    if log is not None:
        log.extend(move.rule for move in forced)
    for step in steps:
        move, by, given = to_move(game, step)
        if not given:
            actor = game.actor(state)
            by = actor if isinstance(actor, int) else None
        state = game.apply(state, move, by=by)
        state, forced = game.advance(state)
        if log is not None:
            log.append(move.rule)
            log.extend(m.rule for m in forced)
    return state


def government(state: Any, chancellor: int, *, fascist_tiles: int, discard: str, enact: str,
               ja: list[int] | None = None, log: list[str] | None = None) -> Any:
    """One whole elected round: nominate, elect (everyone alive votes Ja unless told), draw
    `fascist_tiles` Fascist tiles of three, discard one, enact one."""
    voters = read(state)["alive"] if ja is None else ja
    return play(state,
                ("nominate", {"chancellor": chancellor}),
                ("elect", {"ja": voters}),
                ("draw_hand", {"fascist_tiles": fascist_tiles}),
                ("president_discard", {"tile": discard}),
                ("enact", {"tile": enact}),
                log=log)


def failed_vote(state: Any, chancellor: int, log: list[str] | None = None) -> Any:
    """The President nominates `chancellor` and everybody votes Nein."""
    return play(state, ("nominate", {"chancellor": chancellor}), ("reject", {"ja": []}), log=log)


_NOT_PLAIN = re.compile(r"[{}]|\bNone\b|\bs\[|\bp_|\bl_|Move\(|Traceback|0b[01]|\n")


def assert_plain(reason: str) -> None:
    """A reason is a short sentence in words: no unfilled holes, no code, no raw encodings."""
    assert isinstance(reason, str) and len(reason.split()) >= 3, reason
    assert not _NOT_PLAIN.search(reason), f"reason is not plain words: {reason!r}"
    assert not re.match(r"^[RD]-[A-Z]?\d", reason), f"reason repeats the rule ID: {reason!r}"


def refused(state: Any, step: Step, rule_id: str) -> IllegalMove:
    """Assert that `step` is illegal in `state` for the rule `rule_id`, in plain words."""
    game = game_of(state)
    move, by, given = to_move(game, step)
    actor = game.actor(state)
    if not given:
        by = actor if isinstance(actor, int) else None
    with pytest.raises(IllegalMove) as caught:
        game.apply(state, move, by=by)
    error = caught.value
    assert error.rule_id == rule_id, f"refused for {error.rule_id} ({error.reason}), expected {rule_id}"
    assert_plain(error.reason)
    if by == actor or not isinstance(actor, int):
        assert move not in game.legal_moves(state), "a refused move must not be listed as legal"
    return error


def legal(state: Any, step: Step) -> Any:
    """Assert that `step` is legal now (and listed by legal_moves); the state after it,
    forced moves run."""
    game = game_of(state)
    move, _, _ = to_move(game, step)
    assert move in game.legal_moves(state), f"{move} is not listed as legal"
    return play(state, step)


def session(players: int = 7, *, chancellor_hand: int = 1, fascist_policies: int = 0,
            liberal_policies: int = 0, president: int = 0, nominee: int = 4, **more: object) -> Any:
    """The Chancellor holding two tiles (`chancellor_hand` of them Fascist) after the President
    discarded a Fascist tile; every tile of the deck accounted for."""
    fields: dict[str, object] = dict(
        phase="chancellor_enact", president=president, nominee=nominee, last_president=president,
        last_chancellor=nominee, chancellor_hand=chancellor_hand, fascist_policies=fascist_policies,
        liberal_policies=liberal_policies, discard_fascist=1,
        draw_fascist=11 - fascist_policies - chancellor_hand - 1,
        draw_liberal=6 - liberal_policies - (2 - chancellor_hand))
    fields.update(more)
    return position(players, **fields)


BAD_VARIANT_HEADER = 'extends = "standard"\nname = "bad"\ndescription = "a deliberately broken variant"\n\n'
"""The head of a variant a test breaks on purpose."""


def write_bad_variant(tmp_path: Path, body: str) -> Path:
    """A variant of the standard rules with `body` after the head, as tmp_path/bad.toml."""
    path = tmp_path / "bad.toml"
    path.write_text(BAD_VARIANT_HEADER + body, encoding="utf-8")
    return path


def line_of(path: Path, needle: str) -> int:
    """The first line of `path` that contains `needle`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(number for number, text in enumerate(lines, start=1) if needle in text)


# ------------------------------------------------------------------ reading a result


def moves(result: PropertyResult) -> Moves:
    """The moves of a result's game (a counterexample, a witness, a vacuous verdict's); none
    without one (`length` tells the two apart)."""
    verdict = result.verdict
    game = verdict.played if isinstance(verdict, (Refuted, Witnessed, Vacuous)) else None
    return () if game is None else game.moves


def length(result: PropertyResult) -> int | None:
    """The moves of a result's game, or None without one."""
    verdict = result.verdict
    game = verdict.played if isinstance(verdict, (Refuted, Witnessed, Vacuous)) else None
    return None if game is None else len(game.moves)


def message(result: PropertyResult) -> str:
    """What a result says in words: a counterexample's message, why it is unknown, a premise."""
    verdict = result.verdict
    if isinstance(verdict, Unknown):
        return verdict.reason
    return verdict.message if isinstance(verdict, (Refuted, Vacuous)) else ""


def value(result: PropertyResult) -> int | None:
    """A proof's measured quantity (`Proved.value`), or None."""
    return result.verdict.value if isinstance(result.verdict, Proved) else None
