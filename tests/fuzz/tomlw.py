"""A small TOML writer for generated variants and catalogues.

The standard library reads TOML but does not write it. Generated documents need keys
that are any string at all (quoted, escaped) and, now and then, text no Python value
stands for (an integer of 5,000 digits), so this writer quotes every key and lets a
`Verbatim` value through unchanged.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Verbatim:
    """TOML text written as it is, e.g. a giant integer or a malformed value."""

    text: str


def quote(text: str) -> str:
    """A TOML basic string holding `text` exactly (control characters escaped)."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            out.append("\\\\")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04X}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


BARE = re.compile(r"[A-Za-z0-9_-]+")


def key(text: str) -> str:
    """A key, bare where TOML allows it (as people write them), quoted otherwise."""
    return text if BARE.fullmatch(text) else quote(text)


def value(item: Any) -> str:
    """One value, inline."""
    if isinstance(item, Verbatim):
        return item.text
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, int):
        return str(item)
    if isinstance(item, float):
        if math.isnan(item):
            return "nan"
        if math.isinf(item):
            return "inf" if item > 0 else "-inf"
        return repr(item)
    if isinstance(item, str):
        return quote(item)
    if isinstance(item, (list, tuple)):
        return "[" + ", ".join(value(v) for v in item) + "]"
    if isinstance(item, dict):
        return "{ " + ", ".join(f"{key(str(k))} = {value(v)}" for k, v in item.items()) + " }"
    raise TypeError(f"no TOML for {type(item).__name__}")


def _is_table_list(item: Any) -> bool:
    return isinstance(item, list) and bool(item) and all(isinstance(v, dict) for v in item)


def _section(path: list[str], table: dict[str, Any], lines: list[str]) -> None:
    """Scalars of `table` under its header, then its sub-tables and arrays of tables."""
    later: list[tuple[str, Any]] = []
    for name, item in table.items():
        if isinstance(item, dict) or _is_table_list(item):
            later.append((name, item))
        else:
            lines.append(f"{key(str(name))} = {value(item)}")
    for name, item in later:
        header = ".".join(key(p) for p in [*path, str(name)])
        if isinstance(item, dict):
            lines.append("")
            lines.append(f"[{header}]")
            _section([*path, str(name)], item, lines)
        else:
            for entry in item:
                lines.append("")
                lines.append(f"[[{header}]]")
                for k, v in entry.items():
                    lines.append(f"{key(str(k))} = {value(v)}")


def dumps(document: dict[str, Any]) -> str:
    """The document as TOML text. Entries of an array of tables are written inline."""
    lines: list[str] = []
    _section([], document, lines)
    return "\n".join(lines) + "\n"
