"""Transcripts of logged games, and the native JSON Lines format (engine/TRANSCRIPT.md).

A `Transcript` is what `judge` replays: a `Setup` (player count, rules, the roles and the
first President when known) and a list of `Entry` values, one per logged move or
observation of the draw pile. Importers of other formats (engine/importers/) build the
same values, so every format is judged by the same code.

This module parses and writes; it never decides legality. Parsing is strict and total:
any malformed line is a `SpecError` naming the file, the line and what was expected,
never a Python traceback. Whether a well-formed move is *legal* is the judge's question.

Seats in a transcript are numbers from 0 (`"by": 0` is the first seat), as in ITF traces
and every JSON output; what a person reads (traces, answers, judge messages, the book)
counts them from 1 ("seat 1"), `engine.words.SEAT_BASE`. An error about a seat in a
transcript gives both.
"""

from __future__ import annotations

import difflib
import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from collections.abc import Callable
from typing import Any

from spec.errors import Location, SpecError, read_text, shown
from spec.model import Rule

from .game import MAX_MOVES, Game, compiled_game
from .safe_json import loads
from .words import seat_range

TILE_NAMES = ("liberal", "fascist")
FIRST_PRESIDENT = "first_president"
"""The setup line's key for the first Presidential Candidate (engine/TRANSCRIPT.md)."""

SETUP_ROLES = ("deal", "opening")
"""Roles of the chance moves the setup line stands for: the roles and the first President."""

VOTE = "vote"
"""The pseudo-move of a vote by Ja list: the judge resolves it to `elect` or `reject`."""

DECK = "deck"
"""The entry kind of an observation of the whole draw pile, top first."""

EXTRA_FIELDS: dict[str, tuple[str, str]] = {
    "draw": ("tiles", "tiles"),      # the rule with role `draw`: the hand as drawn (order free), R-L1
    "discard": ("passed", "tiles"),  # role `discard`: the tiles passed on, R-L2
}
"""Optional evidence a move line may carry besides the rule's parameters, by the rule's
role (spec.model.ROLES); the judge checks it against the state (hidden information the
log happens to record). A rule that reveals a `party` (an investigation, R-X3) may carry
the membership the President saw as `party`."""

PARTY = "party"
"""The reveal (and evidence key) of the membership an investigation shows."""


def extra_fields(rule: Rule) -> dict[str, str]:
    """The evidence keys a move line of `rule` may carry, each with its kind."""
    extras = dict(EXTRA_FIELDS[role] for role in rule.roles if role in EXTRA_FIELDS)
    if any(name == PARTY for name, _ in rule.reveals):
        extras[PARTY] = PARTY
    return extras


def _setup_rules(game: Game) -> set[str]:
    """The rules the setup line stands for (`SETUP_ROLES`)."""
    return {rule.name for role in SETUP_ROLES for rule in game.spec.with_role(role)}


COMMON_KEYS = ("ref", "comment")


@dataclass(frozen=True, slots=True)
class Setup:
    """Who plays under which rules, and the hidden facts the log records (or not)."""

    players: int
    rules: str = "standard"
    hitler: int | None = None
    fascists: tuple[int, ...] | None = None
    first_president: int | None = None
    game: str | None = None
    line: int | None = None


@dataclass(frozen=True, slots=True)
class Entry:
    """One logged move (`kind` 'move' or 'vote') or an observation of the pile ('deck').

    `params` are readable parameters for `Game.move`; `tiles`, `passed` and `party` are
    optional evidence (see EXTRA_FIELDS); `line` is the line in the file (None when an
    importer made the entry) and `ref` the source's own reference (a log index)."""

    kind: str
    rule: str
    params: dict[str, Any] = field(default_factory=dict)
    by: int | None = None
    ref: Any = None
    line: int | None = None
    tiles: tuple[str, ...] | None = None
    passed: tuple[str, ...] | None = None
    party: str | None = None

    @property
    def where(self) -> str:
        """Where the entry came from, for messages: 'line 7', 'log 3' or both."""
        parts = []
        if self.line is not None:
            parts.append(f"line {self.line}")
        if self.ref is not None:
            parts.append(f"log {self.ref}")
        return ", ".join(parts) or "an entry"


@dataclass(frozen=True, slots=True)
class Transcript:
    """A logged game: setup, entries, and what the source could not express."""

    setup: Setup
    entries: tuple[Entry, ...]
    source: str = "<input>"
    unsupported: str | None = None
    notes: tuple[str, ...] = ()
    asked_rules: str | None = None
    """The rules the log itself names when they are not the ones it is judged by (the
    rules pinned with `judge --rules`); None when the log's own rules are used."""

    @property
    def game_id(self) -> str:
        """The game's id: the setup's, else the file name without its extension."""
        return self.setup.game or Path(self.source).stem


# ---------------------------------------------------------------------- reading


def read_transcript(path: str | Path, rules: str | None = None) -> Transcript:
    """Parse a native transcript file; `SpecError` (file:line, what was expected) if
    malformed. `rules` pins the rules it is read and judged by (`parse_transcript`)."""
    path = Path(path)
    return parse_transcript(read_text(path), str(path), rules)


def parse_transcript(text: str, source: str = "<input>", rules: str | None = None) -> Transcript:
    """Parse native JSON Lines text: a setup line, then one line per move or observation.

    With `rules` (`judge --rules`), the moves are read under those rules whatever the
    setup names, and a rules file the setup names is never opened: a log must not choose
    the rules it is judged by. What the setup asked for, when it differs, is kept as
    `Transcript.asked_rules` so that the verdict can say so."""
    lines = [(number, raw) for number, raw in enumerate(text.splitlines(), start=1) if raw.strip()]
    if not lines:
        raise SpecError("empty transcript: expected a first line {\"setup\": {\"players\": N, ...}}",
                        Location(source, 1))
    if len(lines) > MAX_MOVES + 1:
        raise SpecError(f"the transcript has {len(lines) - 1:,} moves; a game has at most {MAX_MOVES:,} (the first "
                        f"{MAX_MOVES:,} moves of a longer log can be judged on their own)",
                        Location(source, lines[MAX_MOVES + 1][0]))
    number, raw = lines[0]
    setup = _parse_setup(_object(raw, source, number), source, number)
    setup, asked = pin_setup(setup, rules)
    game = _game_for(setup, source, number)
    entries = tuple(_parse_entry(_object(raw, source, n), game, source, n) for n, raw in lines[1:])
    return Transcript(setup, entries, source, asked_rules=asked)


def pin_setup(setup: Setup, rules: str | None) -> tuple[Setup, str | None]:
    """The setup under the pinned `rules` (None: the log's own), and the rules the log
    asked for when they are other than the pinned ones."""
    if rules is None or same_rules(setup.rules, rules):
        return (setup if rules is None else replace(setup, rules=rules)), None
    return replace(setup, rules=rules), setup.rules


def pin_rules(transcript: Transcript, rules: str | None) -> Transcript:
    """A transcript judged by the pinned `rules` (an imported log's, whose moves the
    importer wrote in the names every rule set shares), noting what the log asked for."""
    setup, asked = pin_setup(transcript.setup, rules)
    return replace(transcript, setup=setup, asked_rules=asked or transcript.asked_rules)


def same_rules(asked: str, pinned: str) -> bool:
    """Whether the rules a log names are the pinned ones: the same name, or the same file
    (compared by where the paths lead, without opening either)."""
    if asked == pinned:
        return True
    try:
        return os.path.realpath(asked) == os.path.realpath(pinned) and os.path.isfile(asked)
    except (OSError, ValueError):
        return False


def _object(raw: str, source: str, number: int) -> dict[str, Any]:
    value = loads(raw, source, number)
    if not isinstance(value, dict):
        raise SpecError(f"expected a JSON object {{...}}, got {_kind(value)}", Location(source, number))
    return value


def _parse_setup(data: dict[str, Any], source: str, number: int) -> Setup:
    where = Location(source, number, "setup")
    if "setup" not in data:
        raise SpecError("the first line must be the setup: {\"setup\": {\"players\": N, \"rules\": \"standard\", ...}}",
                        Location(source, number))
    _only(data, ("setup", *COMMON_KEYS), Location(source, number))
    setup = data["setup"]
    if not isinstance(setup, dict):
        raise SpecError(f"expected an object, got {_kind(setup)}", where)
    _only(setup, ("players", "rules", "roles", FIRST_PRESIDENT, "game", "comment"), where)
    value = setup.get("players")
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 64:
        raise SpecError(f"'players' must be a whole number of players, got {shown(value)}", where)
    players = value
    rules = setup.get("rules", "standard")
    if not isinstance(rules, str) or not rules:
        raise SpecError(f"'rules' must name a rules file or variant, got {shown(rules)}", where)
    rules = _resolve_rules(rules, source)
    hitler = fascists = None
    roles = setup.get("roles")
    if roles is not None:
        roles_where = Location(source, number, "setup.roles")
        if not isinstance(roles, dict):
            raise SpecError(f"expected {{\"hitler\": SEAT, \"fascists\": [SEATS]}}, got {_kind(roles)}", roles_where)
        _only(roles, ("hitler", "fascists"), roles_where)
        if "hitler" in roles:
            hitler = _seat(roles["hitler"], players, roles_where, "hitler")
        if "fascists" in roles:
            fascists = tuple(_seats(roles["fascists"], players, roles_where, "fascists"))
    first = setup.get(FIRST_PRESIDENT)
    first_president = None if first is None else _seat(first, players, where, FIRST_PRESIDENT)
    game_id = setup.get("game")
    if game_id is not None and not isinstance(game_id, (str, int)):
        raise SpecError(f"'game' must be an id (text), got {_kind(game_id)}", where)
    return Setup(players, rules, hitler, fascists, first_president, None if game_id is None else str(game_id), number)


def _resolve_rules(rules: str, source: str) -> str:
    """A rules path is read relative to the transcript's folder when it is there."""
    if "/" in rules or rules.endswith(".toml"):
        beside = Path(source).parent / rules
        if not Path(rules).is_absolute() and beside.is_file():
            return str(beside)
    return rules


def _game_for(setup: Setup, source: str, number: int) -> Game:
    try:
        return compiled_game(setup.players, setup.rules)
    except SpecError as error:
        if error.where is not None:
            raise
        raise SpecError(error.message, Location(source, number, "setup")) from None


def _parse_entry(data: dict[str, Any], game: Game, source: str, number: int) -> Entry:
    ref = data.get("ref")
    if ref is not None and not isinstance(ref, (str, int)) or isinstance(ref, bool):
        raise SpecError(f"'ref' must be text or a whole number, got {_kind(ref)}", Location(source, number, "ref"))
    if "move" not in data:
        if DECK in data:
            where = Location(source, number, DECK)
            _only(data, (DECK, *COMMON_KEYS), Location(source, number))
            return Entry(DECK, DECK, ref=ref, line=number, tiles=tuple(_tiles(data[DECK], where, DECK)))
        raise SpecError("expected a move {\"move\": NAME, ...} or an observation {\"deck\": [TILES]}",
                        Location(source, number))
    name = data["move"]
    if not isinstance(name, str):
        raise SpecError(f"'move' must be a move name, got {_kind(name)}", Location(source, number, "move"))
    where = Location(source, number, f"move {shown(name)}")
    players = game.players
    if name == VOTE:
        _only(data, ("move", "ja", *COMMON_KEYS), where)
        if "ja" not in data:
            raise SpecError("a vote needs 'ja': the list of seats voting Ja", where)
        ja = _seats(data["ja"], players, where, "ja")
        return Entry(VOTE, VOTE, {"ja": ja}, ref=ref, line=number)
    setup_rules = _setup_rules(game)
    if name in setup_rules:
        raise SpecError(f"{shown(name)} is given in the setup line (roles, first_president), not as a move", where)
    compiled = game.by_name.get(name)
    if compiled is None:
        names = [n for n in game.by_name if n not in setup_rules] + [VOTE]
        raise SpecError(f"no move named {shown(name)}{_close(name, names)}; moves are {', '.join(names)}", where)
    rule = compiled.rule
    extras = extra_fields(rule)
    allowed = ["move", *COMMON_KEYS, *(p.name for p in rule.params), *extras]
    if rule.actor == "seat":
        allowed.append("by")
    _only(data, tuple(allowed), where)
    by = None
    if "by" in data:
        by = _seat(data["by"], players, where, "by")
    params: dict[str, Any] = {}
    tiles = passed = party = None
    if "tiles" in extras and "tiles" in data:
        tiles = tuple(_tiles(data["tiles"], where, "tiles"))
    if "passed" in extras and "passed" in data:
        passed = tuple(_tiles(data["passed"], where, "passed"))
    if PARTY in extras and PARTY in data:
        party = data["party"]
        if party not in TILE_NAMES:
            raise SpecError(f"'party' must be 'liberal' or 'fascist', got {shown(party)}", where)
    initial = game.initial_state()
    for position, param in enumerate(rule.params):
        if param.name not in data:
            if "draw" in rule.roles and tiles is not None:
                params[param.name] = sum(1 for tile in tiles if tile == "fascist")
                continue
            hint = " (or 'tiles': the hand as drawn)" if "draw" in rule.roles else ""
            raise SpecError(f"missing '{param.name}' ({param.domain.text}){hint}", where)
        domain = compiled.domains[position]
        params[param.name] = _param(data[param.name], param.type.kind, param.name, players, where,
                                    lambda: domain(initial), game.spec.enums.get(str(param.type.enum), TILE_NAMES))
    if "draw" in rule.roles and tiles is not None and rule.params[0].name in data:
        if sum(1 for tile in tiles if tile == "fascist") != params[rule.params[0].name]:
            raise SpecError(f"'tiles' and '{rule.params[0].name}' disagree", where)
    return Entry("move", name, params, by, ref, number, tiles, passed, party)


def _param(value: Any, kind: str, name: str, players: int, where: Location, domain: Callable[[], Any],
           members: tuple[str, ...]) -> Any:
    """A parameter value checked for its type, and for its range read in the state before the
    deal (the ranges of the rules' parameters are fixed numbers: hand size, tile counts)."""
    if kind == "seat":
        return _seat(value, players, where, name)
    if kind == "seats":
        return _seats(value, players, where, name)
    if kind == "tiles":
        tiles = _tiles(value, where, name)
        lengths = sorted({code.bit_length() - 1 for code in domain()})
        if lengths and len(tiles) not in lengths:
            raise SpecError(f"'{name}' must list {' or '.join(map(str, lengths))} tiles, got {len(tiles)}", where)
        return tiles
    if kind == "enum":
        if value not in members:
            raise SpecError(f"'{name}' must be one of {', '.join(repr(m) for m in members)}, got {shown(value)}", where)
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise SpecError(f"'{name}' must be true or false, got {shown(value)}", where)
        return value
    if not _is_int(value):
        raise SpecError(f"'{name}' must be a whole number, got {shown(value)}", where)
    values = list(domain())
    if values and not values[0] <= value <= values[-1]:
        raise SpecError(f"'{name}' must be {values[0]}..{values[-1]}, got {shown(value)}", where)
    return value


def _seat(value: Any, players: int, where: Location, name: str) -> int:
    if not _is_int(value) or not 0 <= value < players:
        raise SpecError(f"'{name}' must be 0..{players - 1}, the number of a seat in a transcript (which "
                        f"counts from 0: seats {seat_range(players)} at the table), got {shown(value)}", where)
    return int(value)


def _seats(value: Any, players: int, where: Location, name: str) -> list[int]:
    if not isinstance(value, list):
        raise SpecError(f"'{name}' must be a list of seats, got {_kind(value)}", where)
    seats = [_seat(item, players, where, name) for item in value]
    if len(set(seats)) != len(seats):
        raise SpecError(f"'{name}' lists a seat twice: {shown(value)}", where)
    return seats


def _tiles(value: Any, where: Location, name: str) -> list[str]:
    if not isinstance(value, list) or not all(item in TILE_NAMES for item in value):
        raise SpecError(f"'{name}' must be a list of \"liberal\"/\"fascist\" tiles, got {shown(value)}", where)
    return list(value)


def _only(data: dict[str, Any], allowed: tuple[str, ...], where: Location) -> None:
    for key in data:
        if key not in allowed:
            raise SpecError(f"unknown key {shown(key)}{_close(key, allowed)}; expected {', '.join(allowed)}", where)


def _close(word: str, options: Any) -> str:
    if len(word) > 100:                         # no name is that long; difflib would take its time
        return ""
    close = difflib.get_close_matches(word, list(options), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "text", bool: "true/false", type(None): "null"}.get(
        type(value), "a number")


# ---------------------------------------------------------------------- writing


def entry_json(entry: Entry) -> dict[str, Any]:
    """The native JSON object of an entry."""
    out: dict[str, Any]
    if entry.kind == DECK:
        out = {DECK: list(entry.tiles or ())}
    else:
        out = {"move": entry.rule}
        if entry.by is not None:
            out["by"] = entry.by
        out.update(entry.params)
        if entry.tiles is not None:
            out["tiles"] = list(entry.tiles)
        if entry.passed is not None:
            out["passed"] = list(entry.passed)
        if entry.party is not None:
            out["party"] = entry.party
    if entry.ref is not None:
        out["ref"] = entry.ref
    return out


def setup_json(setup: Setup) -> dict[str, Any]:
    """The native setup line of a setup."""
    body: dict[str, Any] = {"players": setup.players, "rules": setup.rules}
    if setup.game is not None:
        body = {"game": setup.game, **body}
    roles: dict[str, Any] = {}
    if setup.hitler is not None:
        roles["hitler"] = setup.hitler
    if setup.fascists is not None:
        roles["fascists"] = list(setup.fascists)
    if roles:
        body["roles"] = roles
    if setup.first_president is not None:
        body[FIRST_PRESIDENT] = setup.first_president
    return {"setup": body}


def dump_transcript(transcript: Transcript) -> str:
    """A transcript as native JSON Lines text (what `parse_transcript` reads back)."""
    lines = [json.dumps(setup_json(transcript.setup))]
    lines += [json.dumps(entry_json(entry)) for entry in transcript.entries]
    return "\n".join(lines) + "\n"


def transcript_of_trace(trace: Any, forced: bool = False, game_id: str | None = None) -> Transcript:
    """A native transcript of an engine trace (engine/trace.py) that starts before the deal:
    the deal and the first President become the setup, votes become `vote` entries, and
    the game's forced moves are written in only when `forced` (the judge runs them anyway)."""
    game: Game = trace.game
    hitler: int | None = None
    fascists: tuple[int, ...] | None = None
    first: int | None = None
    entries: list[Entry] = []
    before = trace.start
    for move, after in trace.steps:
        compiled = game.by_name[move.rule]
        rule = compiled.rule
        params = game.params_of(move)
        if "deal" in rule.roles:
            hitler, fascists = params["hitler_seat"], tuple(params["fascist_seats"])
        elif "opening" in rule.roles:
            first = params[rule.params[0].name]
        elif rule.actor == "game":
            if forced and not rule.quiet:
                entries.append(Entry("move", move.rule, line=len(entries) + 2))
        elif rule.actor == "table":
            entries.append(Entry(VOTE, VOTE, {"ja": params["ja"]}, line=len(entries) + 2))
        else:
            by = compiled.actor(before) if compiled.actor is not None else None
            entries.append(Entry("move", move.rule, params, by, line=len(entries) + 2))
        before = after
    setup = Setup(game.players, game.spec.name, hitler, fascists, first, game_id, 1)
    return Transcript(setup, tuple(entries), game_id or "<trace>")
