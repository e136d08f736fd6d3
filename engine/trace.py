"""Traces: a game as states and the moves between them, printed for people and saved as ITF.

A `Trace` starts at a state and lists steps (move, state after). It prints round by
round — each move in words with the rule IDs it used, then only the fields it changed —
and saves as ITF JSON, the Informal Trace Format shared by Apalache and Quint, with the
move of each step in Quint's `mbt::actionTaken` / `mbt::nondetPicks` variables so that
`replay` can run it through the engine again.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spec.errors import SpecError, shown
from spec.files import write_atomic, write_named

from .game import MAX_MOVES, Game, IllegalMove, Move, compiled_game
from .safe_json import read_json
from .words import english, named, seat_shown, seats_shown, word

ITF_DESCRIPTION = "https://apalache-mc.org/docs/adr/015adr-trace.html"
ACTION_VAR = "mbt::actionTaken"
PICKS_VAR = "mbt::nondetPicks"
HIDDEN_FIELDS = ("phase",)


@dataclass(frozen=True, slots=True)
class Row:
    """One printed line of a game: `kind` is round (a round's heading), move, changes (the
    fields the move of `step` changed) or over (the end of the game)."""

    kind: str
    text: str
    step: int | None = None
    rule_ids: tuple[str, ...] = ()
    bookkeeping: bool = False


@dataclass(slots=True)
class Trace:
    """A game (or part of one): the first state and each (move, state after) step."""

    game: Game
    start: Any
    steps: list[tuple[Move, Any]] = field(default_factory=list)

    @property
    def states(self) -> list[Any]:
        """Every state of the trace, the first included."""
        return [self.start] + [state for _, state in self.steps]

    @property
    def end(self) -> Any:
        """The last state."""
        return self.steps[-1][1] if self.steps else self.start

    def append(self, move: Move, state: Any) -> None:
        """Add a step."""
        self.steps.append((move, state))

    def elections(self) -> int:
        """How many governments were elected in this trace (moves of rules with the role
        `election`)."""
        elections = {compiled.rule.name for compiled in self.game.by_role["election"]}
        return sum(1 for move, _ in self.steps if move.rule in elections)

    # ------------------------------------------------------------------ for people

    def lines(self, changes: bool = True, lang: str = "en") -> list[str]:
        """The trace in words, round by round, with rule IDs and the fields each move changed;
        in `lang`, the frame from engine/words.py and the moves from the spec's templates."""
        return [row.text for row in self.rows(changes, lang=lang)]

    def rows(self, changes: bool = True, bookkeeping: bool = False, tags: dict[int, tuple[str, ...]] | None = None,
             shown: frozenset[int] = frozenset(), lang: str = "en") -> list[Row]:
        """The printed lines with what each one is: a round's heading, a move (with the index
        of its step and the rule IDs it cites), the fields it changed, or the end of the game.

        Every move line cites rule IDs: `tags` (by step) where given, else the rule's own
        (`Rule.cited`); the game-over line cites the move that ended the game. Quiet
        bookkeeping moves are left out unless `bookkeeping` (then they are marked as such)
        or their step is in `shown`. In `lang`, as `lines`."""
        game = self.game
        out: list[Row] = []
        before = self.start
        round_number = 0
        nominations = {compiled.rule.name for compiled in game.by_role["nomination"]}
        for index, (move, after) in enumerate(self.steps):
            compiled = game.by_name[move.rule]
            rule = compiled.rule
            if rule.name in nominations or (round_number == 0 and rule.actor != "chance"):
                round_number += 1
                out.append(Row("round", word(lang, "round", number=round_number, seat=seat_shown(before.president))))
            hidden = rule.quiet and index not in shown
            if hidden and not bookkeeping:
                before = after
                continue
            ids = (tags or {}).get(index) or rule.cited
            who = word(lang, "chance") if rule.actor == "chance" else ""
            text = f"  {'· ' if hidden else ''}{who}{game.says(before, move, lang)} [{', '.join(ids)}]"
            reveal = game.reveals(before, move)
            if reveal:
                values = game.spec.values_de if lang == "de" else {}
                text += word(lang, "sees") + ", ".join(f"{values.get(k, k)} {values.get(str(v), v)}"
                                                      for k, v in reveal.items())
            out.append(Row("move", text, index, ids, hidden))
            if changes:
                delta = changed_fields(game, before, after, lang)
                if delta:
                    out.append(Row("changes", "      " + ", ".join(delta), index))
            before = after
        if game.is_over(before):
            winner = game.winner(before)
            ids = game.by_name[self.steps[-1][0].rule].rule.cited if self.steps else ()
            cite = f" [{', '.join(ids)}]" if ids else ""
            ending = word(lang, "over_none") if winner is None else word(
                lang, "over", winner=named(lang, "team", winner), how=named(lang, "how", str(game.how(before))))
            out.append(Row("over", ending + cite, len(self.steps) - 1, ids))
        return out

    def text(self, changes: bool = True, lang: str = "en") -> str:
        """`lines` joined."""
        return "\n".join(self.lines(changes, lang))

    # ------------------------------------------------------------------ ITF

    def to_itf(self, description: str = "") -> dict[str, Any]:
        """The trace as an ITF JSON object."""
        game = self.game
        variables = list(game.field_names) + [ACTION_VAR, PICKS_VAR]
        states = [_itf_state(game, 0, self.start, "init", {})]
        for index, (move, state) in enumerate(self.steps, start=1):
            states.append(_itf_state(game, index, state, move.rule, game.params_of(move)))
        meta = {"format": "ITF", "format-description": ITF_DESCRIPTION, "source": game.spec.name,
                "players": game.players, "description": description or f"a game of {game.players} players"}
        return {"#meta": meta, "vars": variables, "states": states}

    def save_itf(self, path: str | Path, description: str = "", root: Path | None = None) -> None:
        """Write the ITF JSON to `path`, never through a link (spec/files.py): inside an
        output folder `root` the user named, atomically, a link at its name replaced and the
        folders below `root` checked not to be links; without `root`, `path` is the file the
        user named (`write_named`: a link there refused). `SpecError` naming the file when
        the write fails (a full disk)."""
        text = json.dumps(self.to_itf(description), indent=1, sort_keys=False) + "\n"
        try:
            if root is None:
                write_named(path, text)
            else:
                write_atomic(path, text, root=root)
        except OSError as error:
            raise SpecError(f"cannot write {path}: {error.strerror}") from None


def changed_fields(game: Game, before: Any, after: Any, lang: str = "en") -> list[str]:
    """`field old → new` for every field a move changed, the phase left out. Fields and
    values are the spec's names; in `lang` an empty value is its word (`keine`)."""
    out = []
    words = {**game.spec.values_de, "True": "ja", "False": "nein"} if lang == "de" else {}
    for field_spec, old, new in zip(game.spec.fields, before, after):
        if old != new and field_spec.name not in HIDDEN_FIELDS:
            kind, enum = field_spec.type.kind, field_spec.type.enum
            out.append(f"{field_spec.name} {_show(seats_shown(kind, game.decode(kind, enum, old)), words)} → "
                       f"{_show(seats_shown(kind, game.decode(kind, enum, new)), words)}")
    return out


def _show(value: Any, words: dict[str, str] | None = None) -> str:
    """A field's value in a change line; `words` gives a translation's word for a name."""
    words = words or {}
    if isinstance(value, list):
        if value and isinstance(value[0], int):
            return "{" + " ".join(str(v) for v in value) + "}"
        return str([words.get(str(v), v) for v in value])
    text = "none" if value is None else str(value)
    return words.get(text, text)


def _itf_value(kind: str, optional: bool, value: Any) -> Any:
    if kind == "seats":
        return {"#set": list(value)}
    if optional:
        return {"tag": "None", "value": {"#tup": []}} if value is None else {"tag": "Some", "value": value}
    return value


def _itf_state(game: Game, index: int, state: Any, action: str, picks: dict[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = {"#meta": {"index": index}}
    for field_spec, value in zip(game.spec.fields, state):
        readable = game.decode(field_spec.type.kind, field_spec.type.enum, value)
        record[field_spec.name] = _itf_value(field_spec.type.kind, field_spec.type.optional, readable)
    rule = game.by_name[action].rule if action in game.by_name else None
    record[ACTION_VAR] = action
    encoded: dict[str, Any] = {}
    if rule is not None:
        for param in rule.params:
            encoded[param.name] = {"tag": "Some", "value": _itf_value(param.type.kind, False, picks[param.name])}
    record[PICKS_VAR] = encoded
    return record


def _from_itf(value: Any) -> Any:
    if isinstance(value, dict):
        for key in ("#set", "#tup"):
            if key in value and not isinstance(value[key], list):
                raise SpecError(f"'{key}' must hold a list, got {shown(value[key])}")
        if "#set" in value:
            return [_from_itf(v) for v in value["#set"]]
        if "#bigint" in value:
            digits = value["#bigint"]
            if not isinstance(digits, str) or not re.fullmatch(r"-?\d{1,18}", digits):
                raise SpecError(f"'#bigint' must hold the digits of a whole number, got {shown(digits)}")
            return int(digits)
        if value.get("tag") == "None":
            return None
        if value.get("tag") == "Some":
            return _from_itf(value.get("value"))
        if "#tup" in value:
            return [_from_itf(v) for v in value["#tup"]]
    if isinstance(value, list):
        return [_from_itf(v) for v in value]
    return value


def load_itf(path: str | Path) -> dict[str, Any]:
    """Read an ITF JSON file, or raise `SpecError` saying what is wrong with it."""
    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("states"), list) or not data["states"]:
        raise SpecError(f"{path}: an ITF trace is an object with a non-empty 'states' list")
    if len(data["states"]) > MAX_MOVES + 1:
        raise SpecError(f"{path}: the trace has {len(data['states']) - 1:,} moves; a game has at most "
                        f"{MAX_MOVES:,}")
    return data


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """The outcome of replaying an ITF trace: the trace rebuilt, or where it went wrong."""

    trace: Trace
    ok: bool
    message: str
    index: int | None = None
    message_de: str | None = None    # the message in German, where there is one

    def said(self, lang: str = "en") -> str:
        """The message in `lang`: German where there is one, else the English marked as such."""
        return self.message_de if lang == "de" and self.message_de is not None else english(self.message, lang)


def replay_itf(path: str | Path, rules: str | None = None) -> ReplayResult:
    """Replay a saved trace through the engine, checking every move and every state;
    under `rules` when given (`view --rules`), else the rules the trace names."""
    data = load_itf(path)
    meta = data.get("#meta", {})
    if not isinstance(meta, dict):
        raise SpecError(f"{path}: '#meta' must be an object with the players and the rules, got {shown(meta)}")
    players = meta.get("players")
    if rules is None:
        rules = meta.get("source", "standard")
    if not isinstance(players, int):
        raise SpecError(f"{path}: #meta.players must give the player count")
    game = compiled_game(players, str(rules))
    states = data["states"]
    start = _state_from_itf(game, states[0], path, 0)
    if start != game.initial_state():
        return ReplayResult(Trace(game, start), False, "state 0 is not the initial state of the rules", 0)
    trace = Trace(game, start)
    state = start
    for index, record in enumerate(states[1:], start=1):
        if not isinstance(record, dict):
            raise SpecError(f"{path}: state {index}: expected an object of fields, got {shown(record)}")
        action = record.get(ACTION_VAR)
        if not isinstance(action, str) or action not in game.by_name:
            raise SpecError(f"{path}: state {index}: '{ACTION_VAR}' names no move of the rules: {shown(action)}")
        try:
            picked = record.get(PICKS_VAR) or {}
            if not isinstance(picked, dict):
                raise SpecError(f"'{PICKS_VAR}' must be an object of parameters, got {shown(picked)}")
            wanted = [param.name for param in game.by_name[action].rule.params]
            unknown = [name for name in picked if name not in wanted]
            if unknown:
                raise SpecError(f"'{PICKS_VAR}' names {shown(unknown[0])}, which is no parameter of {action}; "
                                f"expected {', '.join(wanted) or 'none'}")
            picks = {name: _from_itf(value) for name, value in picked.items()}
            move = game.move(action, **picks)
            state = game.apply(state, move)
        except IllegalMove as error:
            return ReplayResult(trace, False, f"state {index}: {action} is illegal: {error}", index)
        except SpecError as error:
            raise SpecError(f"{path}: state {index}: {error.message}") from None
        recorded = _state_from_itf(game, record, path, index)
        if recorded != state:
            delta = changed_fields(game, state, recorded)
            return ReplayResult(trace, False, f"state {index}: the engine computes a different state after "
                                f"{action}: recorded differs in {', '.join(delta)}", index)
        trace.append(move, state)
    return ReplayResult(trace, True, word("en", "replayed", moves=len(states) - 1),
                        message_de=word("de", "replayed", moves=len(states) - 1))


def _state_from_itf(game: Game, record: dict[str, Any], path: str | Path, index: int) -> Any:
    values = []
    if not isinstance(record, dict):
        raise SpecError(f"{path}: state {index}: expected an object of fields, got {shown(record)}")
    for field_spec in game.spec.fields:
        if field_spec.name not in record:
            raise SpecError(f"{path}: state {index} lacks the field '{field_spec.name}'")
        kind = field_spec.type.kind
        try:
            readable = _from_itf(record[field_spec.name])
            if readable is None:
                values.append(-1)
            elif kind == "seat":
                values.append(game.encode("int", None, readable))
            else:
                values.append(game.encode(kind, field_spec.type.enum, readable))
        except SpecError as error:
            raise SpecError(f"{path}: state {index} field '{field_spec.name}': {error.message}") from None
    return game.make_state(values)
