"""Custom-game settings: named values checked one by one and turned into a variant overlay.

The site's custom games (data/secrethitler-io/README.md, `customGameSettings`) choose the
power of each of the five Fascist slots, the deck, the starting tracks, the Hitler and
veto zones, the number of Fascists and whether Hitler knows them. Here each is a
setting with a domain; `settings_overlay` checks the values and writes the overrides of
the `custom` variant's constants and tables (spec/variants/custom.toml) that they stand
for. Settings come from the command line (`--set powers=investigate,none,peek,execution,execution`),
from a file (`[settings]` in a variant, or `--settings FILE`), or inline in a rules name:
`custom[deck_fascist=10; powers=none,none,peek,execution,execution]`, the canonical form
a saved trace names so that it can be replayed.

Only what a single setting can get wrong is refused here (a power that does not exist, a
track that starts full, more Fascists than seats). A combination that breaks the game —
a deck that runs out, a win that cannot happen, no eligible Chancellor — is left to the
checkers, which report it as a refuted property with the game that shows it.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import SpecError, read_toml

POWERS = ("none", "investigate", "peek", "special_election", "execution")
"""The powers a Fascist slot can grant (the `power` enum of the rules)."""

POWER_ALIASES = {"null": "none", "": "none", "deckpeek": "peek", "policy_peek": "peek", "election": "special_election",
                 "bullet": "execution", "execute": "execution", "investigation": "investigate"}
"""The site's names (customGameSettings.powers) and common spellings for the same powers."""

UNSUPPORTED_POWERS = {"reverseinv": "reverse investigation", "peekdrop": "peek and drop"}
"""Site powers these rules do not have."""

SLOTS = 5
"""Fascist slots with a power; slot 6 is the Fascist win (R-X7, R-W3)."""


@dataclass(frozen=True, slots=True)
class Setting:
    """One setting: what it means, its kind, its bounds, and the constant or table it sets."""

    name: str
    meaning: str
    kind: str                 # int | bool | powers | players
    target: str               # the constant or table of the rules it sets
    low: int = 0
    high: int = 0


SETTINGS: dict[str, Setting] = {s.name: s for s in (
    Setting("powers", "the power of Fascist slots 1-5, comma-separated: "
            + ", ".join(POWERS), "powers", "board"),
    Setting("deck_liberal", "Liberal tiles in the whole game, the track included", "int", "deck_liberal", 0, 40),
    Setting("deck_fascist", "Fascist tiles in the whole game, the track included", "int", "deck_fascist", 0, 40),
    Setting("start_liberal", "Liberal policies enacted at the start", "int", "start_liberal_policies", 0, 4),
    Setting("start_fascist", "Fascist policies enacted at the start", "int", "start_fascist_policies", 0, 5),
    Setting("hitler_zone", "Fascist policies already enacted for Hitler's election to win", "int", "hitler_zone", 0, 9),
    Setting("veto_zone", "Fascist policies that unlock the veto", "int", "veto_zone", 0, 9),
    Setting("fascists", "ordinary Fascists, Hitler not counted", "int", "ordinary_fascists", 0, 8),
    Setting("hitler_knows_fascists", "whether Hitler knows the Fascists (true/false)", "bool",
            "hitler_knows_fascists"),
    Setting("players", "player counts the game is for: N or A-B, within 5-10", "players", "players", 5, 10),
    Setting("few_alive", "at or below this many living players only the last Chancellor is term-limited",
            "int", "few_alive", 0, 10),
    Setting("tracker_limit", "failed elections in a row that set off chaos", "int", "tracker_limit", 1, 9),
)}


def describe_settings() -> list[str]:
    """One line per setting, for help texts and error messages."""
    return [f"{s.name}: {s.meaning}" + (f" ({s.low}-{s.high})" if s.kind == "int" else "")
            for s in SETTINGS.values()]


def _unknown(name: str) -> SpecError:
    found = difflib.get_close_matches(name, list(SETTINGS), n=1)
    hint = f". Did you mean '{found[0]}'?" if found else "."
    return SpecError(f"unknown setting '{name}'{hint} The settings are {', '.join(SETTINGS)}.")


def parse_value(name: str, value: Any) -> Any:
    """The checked value of one setting, from command-line text or a TOML value."""
    setting = SETTINGS.get(name)
    if setting is None:
        raise _unknown(name)
    if setting.kind == "powers":
        items = value if isinstance(value, list) else str(value).split(",")
        powers = []
        for item in items:
            word = "none" if item is None else str(item).strip().lower().replace("-", "_")
            word = POWER_ALIASES.get(word, word)
            if word in UNSUPPORTED_POWERS:
                raise SpecError(f"powers: '{word}' ({UNSUPPORTED_POWERS[word]}) is a power of the site that these "
                                f"rules do not have; the powers are {', '.join(POWERS)}")
            if word not in POWERS:
                found = difflib.get_close_matches(word, POWERS, n=1)
                hint = f". Did you mean '{found[0]}'?" if found else ""
                raise SpecError(f"powers: '{word}' is not a power{hint}; the powers are {', '.join(POWERS)}")
            powers.append(word)
        if len(powers) != SLOTS:
            raise SpecError(f"powers: give the power of each of the {SLOTS} Fascist slots, got {len(powers)}: "
                            f"{','.join(powers)}")
        return powers
    if setting.kind == "bool":
        text = str(value).strip().lower()
        if isinstance(value, bool) or text in ("true", "false", "yes", "no", "1", "0", "on", "off"):
            return value if isinstance(value, bool) else text in ("true", "yes", "1", "on")
        raise SpecError(f"{name}: expected true or false, got {value!r}")
    if setting.kind == "players":
        text = format_value(tuple(value)) if isinstance(value, (tuple, list)) and len(value) == 2 else str(value).strip()
        low_text, _, high_text = text.partition("-")
        try:
            low, high = int(low_text), int(high_text or low_text)
        except ValueError:
            raise SpecError(f"players: expected a count N or a range A-B, got {value!r}") from None
        if not setting.low <= low <= high <= setting.high:
            raise SpecError(f"players: R-S1: the game is for {setting.low}-{setting.high} players; "
                            f"{text} is not within that")
        return (low, high)
    if isinstance(value, bool):
        raise SpecError(f"{name}: expected a whole number, got {value!r}")
    try:
        number = int(str(value).strip())
    except ValueError:
        raise SpecError(f"{name}: expected a whole number, got {value!r}") from None
    if not setting.low <= number <= setting.high:
        raise SpecError(f"{name}: {number} is outside {setting.low}-{setting.high} ({setting.meaning})")
    return number


def parse_assignments(items: list[str], label: str = "--set") -> dict[str, Any]:
    """`NAME=VALUE` texts (the command line's `--set`) as checked settings, in order;
    `label` says where they were given, for errors."""
    out: dict[str, Any] = {}
    for item in items:
        name, equals, value = item.partition("=")
        name = name.strip()
        if not equals or not name:
            raise SpecError(f"{label} {item.strip()!r}: write NAME=VALUE, e.g. deck_fascist=10")
        try:
            out[name] = parse_value(name, value.strip())
        except SpecError as error:
            raise SpecError(f"{label} {item.strip()}: {error.message}") from None
    return out


def load_settings_file(path: str | Path) -> dict[str, Any]:
    """Settings from a TOML file: `name = value` lines, at the top or under `[settings]`."""
    data, text = read_toml(path)
    table = data.get("settings", data)
    if not isinstance(table, dict):
        raise SpecError(f"{path}: [settings] is a table of name = value")
    lines = text.splitlines()
    out: dict[str, Any] = {}
    for name, value in table.items():
        line = next((i + 1 for i, text in enumerate(lines) if text.strip().startswith(f"{name}")), None)
        try:
            out[name] = parse_value(name, value)
        except SpecError as error:
            raise SpecError(f"{path}:{line}: {error.message}" if line else f"{path}: {error.message}") from None
    return out


def format_value(value: Any) -> str:
    """The canonical text of a setting's value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return str(value[0]) if value[0] == value[1] else f"{value[0]}-{value[1]}"
    if isinstance(value, list):
        return ",".join(value)
    return str(value)


def settings_name(base: str, values: dict[str, Any]) -> str:
    """The canonical rules name of `base` with settings: `custom[a=1; b=x,y]`, keys sorted."""
    if not values:
        return base
    inner = "; ".join(f"{name}={format_value(values[name])}" for name in sorted(values))
    return f"{base}[{inner}]"


def settings_overlay(values: dict[str, Any], where: Callable[[str], str],
                     base: dict[str, Any] | None = None) -> dict[str, Any]:
    """The `[constants]` and `[tables]` overrides the settings stand for. `where(name)` says
    where a setting was given (for errors); `base` is the merged TOML they apply to, for the
    checks that involve values the settings leave as they are."""
    checked: dict[str, Any] = {}
    for name, value in values.items():
        try:
            checked[name] = parse_value(name, value)
        except SpecError as error:
            raise SpecError(f"{where(name)}: settings.{name}: {error.message}") from None
    constants = dict((base or {}).get("constants", {}))
    low, high = checked.get("players", (constants.get("min_players", 5), constants.get("max_players", 10)))
    counts = f"{low}-{high}"
    overlay: dict[str, Any] = {"constants": {}, "tables": {}}
    for name, value in checked.items():
        setting = SETTINGS[name]
        if setting.kind == "players":
            overlay["constants"]["min_players"], overlay["constants"]["max_players"] = value
        elif setting.kind == "powers":
            overlay["tables"]["board"] = {counts: list(value)}
        elif setting.kind == "bool":
            overlay["tables"][setting.target] = {counts: int(value)}
        elif name == "fascists":
            overlay["tables"][setting.target] = {counts: value}
        else:
            overlay["constants"][setting.target] = value
    _check_together(checked, {**constants, **overlay["constants"]}, low, where)
    return overlay


def _check_together(checked: dict[str, Any], constants: dict[str, Any], low: int, where: Callable[[str], str]) -> None:
    """Checks that involve two numbers: the track tiles come from the deck (R-S3), and
    every game has at least one Liberal (R-S2)."""
    for tile in ("liberal", "fascist"):
        start = constants.get(f"start_{tile}_policies", 0)
        deck = constants.get(f"deck_{tile}")
        if isinstance(deck, int) and isinstance(start, int) and start > deck:
            name = f"start_{tile}" if f"start_{tile}" in checked else f"deck_{tile}"
            raise SpecError(f"{where(name)}: settings.{name}: {start} {tile.capitalize()} policies on the track "
                            f"at the start need at least {start} {tile.capitalize()} tiles, and the deck has {deck}")
    if "fascists" in checked and checked["fascists"] + 1 >= low:
        raise SpecError(f"{where('fascists')}: settings.fascists: {checked['fascists']} Fascists and Hitler leave "
                        f"no Liberal in a game of {low} players")
