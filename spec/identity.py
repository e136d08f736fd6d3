"""Which rules a verdict was reached under: their content hash and the names they may take.

A verdict is only as good as the rules it was reached under, and a name says little: a
file may call itself anything, and a file edited after a run keeps its name. So every
output that states a verdict (`judge --json`, every report) names the rules *and* their
content hash, and a rules file of the user's may not take the name of a shipped rule set
(a variant calling itself `standard` would otherwise be reported and baselined as the
standard rules).

`content_hash` digests what decides the rules' games and verdicts: the constants, tables,
enums, state fields, definitions and rules (their requirements, effects, texts and rule
IDs), and a variant's property expectations. Not the rules' name, description or file,
and not where in a file a thing was written (`Location`s): the same rules read from two
folders, or with a comment added, hash the same; any change of a rule does not.
"""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path
from typing import Any

from .errors import Location
from .model import Spec

HASH_NAME = "sha256"
"""The digest of `content_hash`, named where a hash is shown (`sha256:…`)."""


def behaviour(spec: Spec, players: int | None = None) -> tuple[Any, ...]:
    """The parts of the rules that decide their games, free of file names and lines; at
    one player count when `players` is given (a table's rows for other counts dropped,
    and the player-count bounds left out, so rule sets that play alike at that count
    compare equal)."""
    constants = {name: value for name, value in spec.constants.items()
                 if players is None or name not in ("min_players", "max_players")}
    tables = {name: (rows.get(players) if players is not None else rows) for name, rows in spec.tables.items()}
    parts = (sorted(constants.items()), sorted(tables.items(), key=lambda item: item[0]), spec.enums, spec.fields,
             spec.definitions, spec.rules, spec.properties if players is None else {})
    canonical: tuple[Any, ...] = _canonical(parts)
    return canonical


def content_hash(spec: Spec) -> str:
    """The sha256 (hex) of the rules' behaviour (module docstring): what every report and
    `judge --json` give beside the rules' name."""
    return hashlib.sha256(repr(behaviour(spec)).encode()).hexdigest()


def _canonical(value: Any) -> Any:
    """`value` as nested tuples of plain values with every `Location` dropped, so that its
    repr is the same wherever the file was read from."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    names = _field_names(kind)
    if names is not None:
        items = ((name, getattr(value, name)) for name in names)
        return (kind.__name__, tuple((name, _canonical(item)) for name, item in items
                                     if not isinstance(item, Location)))
    if isinstance(value, dict):
        return ("dict", tuple((_canonical(key), _canonical(item)) for key, item in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_canonical(item) for item in value)
    if isinstance(value, (set, frozenset)):
        return ("set", tuple(sorted((_canonical(item) for item in value), key=repr)))
    return value


_PLAIN = frozenset({int, str, bool, float, type(None)})


_FIELDS: dict[type, tuple[str, ...] | None] = {}


def _field_names(kind: type) -> tuple[str, ...] | None:
    """The fields of a dataclass type (None for any other type), looked up once per type."""
    if kind not in _FIELDS:
        _FIELDS[kind] = tuple(item.name for item in dataclasses.fields(kind)) \
            if dataclasses.is_dataclass(kind) else None
    return _FIELDS[kind]


# ---------------------------------------------------------------------- shipped names


def shipped_names(rules_dir: Path, variants_dir: Path) -> frozenset[str]:
    """Every name a shipped rule set answers to: `standard`, each variant, each mistake
    both as `mistakes/NAME` and as `NAME` (spec/loader.py `resolve` takes either)."""
    names = {path.stem for folder in (rules_dir, variants_dir) for path in folder.glob("*.toml")}
    mistakes = {path.stem for path in (variants_dir / "mistakes").glob("*.toml")}
    return frozenset(names | mistakes | {f"mistakes/{name}" for name in mistakes})


def is_shipped_file(path: Path, rules_dir: Path, variants_dir: Path) -> bool:
    """Whether `path` is one of the shipped rules files (not merely a file of that name)."""
    try:
        resolved = path.resolve()
    except OSError:
        return False
    return resolved.parent in (rules_dir.resolve(), variants_dir.resolve(), (variants_dir / "mistakes").resolve())


def base_name(name: str) -> str:
    """The rule set a name stands for before any settings: `custom[deck_fascist=10]` → `custom`."""
    return name.split("[", 1)[0]
