"""The one error type for bad input: a spec, a variant, a transcript, an expression.

Every user-facing mistake becomes a `SpecError` that knows where it happened (file, line,
and the field inside the entry) and prints as one line; the CLI turns it into exit 2.
`assert` is kept for the project's own invariants, never for input.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_INPUT_BYTES = 16 * 1024 * 1024
"""The most any one input file may hold: the largest real input (a spec, a long logged
game) is well under a megabyte, and a cap keeps `/dev/zero` or a huge file from costing
unbounded memory and time."""
SHOWN_CHARS = 80
"""How much of a user's value a message repeats: enough to recognise it, never 50 MB."""
MAX_MESSAGE_CHARS = 1_000
"""The longest message a `SpecError` prints; long enough for a list of the valid names
(the properties of the catalogue), short enough that a value nobody truncated cannot
flood the terminal."""


def shown(value: object, limit: int = SHOWN_CHARS) -> str:
    """`repr(value)` cut to `limit` characters with "…", for messages that echo user input.

    A huge integer is described by its size (its repr alone would raise beyond 4,300
    digits), and a repr that cannot be made at all (nested too deeply) is described."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 4 * limit:
        return f"a whole number of about {int(value.bit_length() * 0.30103):,} digits"
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        return f"a {type(value).__name__} too large to show"
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def one_line(text: str) -> str:
    """`text` with line breaks and other control characters written as escapes (`\\n`),
    so an error that quotes a stranger's input stays the one line it promises to be."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


def _capped(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… (message cut: {len(text):,} characters)"


@dataclass(frozen=True, slots=True)
class Location:
    """Where a piece of input came from: a file, a line in it, and the field inside."""

    file: str = "<input>"
    line: int | None = None
    field: str | None = None

    def __str__(self) -> str:
        text = self.file if self.line is None else f"{self.file}:{self.line}"
        field = None if self.field is None else one_line(self.field)
        if field is not None and len(field) > SHOWN_CHARS:
            field = f"{field[:SHOWN_CHARS]}…"
        return f"{text} {field}" if field else text


class SpecError(Exception):
    """Bad input, reported as `file:line field: message` with exit status 2."""

    def __init__(self, message: str, where: Location | None = None, *, caret: str | None = None) -> None:
        message = _capped(message)
        super().__init__(message)
        self.message = message
        self.where = where
        self.caret = None if caret is None else _capped(caret)

    def __str__(self) -> str:
        head = one_line(_capped(f"{self.where}: {self.message}" if self.where else self.message))
        return f"{head}\n{self.caret}" if self.caret else head


def read_text(path: "Path | str", limit: int = MAX_INPUT_BYTES) -> str:
    """A file's UTF-8 text, or a `SpecError` naming the file: unreadable, larger than
    `limit` bytes (read no further, so `/dev/zero` stops too), or not UTF-8."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as error:
        raise SpecError(f"cannot read {shown(str(path))}: {error.strerror}") from None
    if len(data) > limit:
        raise SpecError(f"{path}: larger than {limit:,} bytes; expected an input file of at most that size")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise SpecError(f"not UTF-8 text (byte {error.start:,} is {data[error.start]:#04x}); expected a UTF-8 file",
                        Location(str(path), line)) from None


@functools.lru_cache(maxsize=64)
def _parsed(text: str) -> "dict[str, Any]":
    """A TOML text parsed once: a sweep loads the same rule files for every one of its
    thousands of rule sets, and parsing them was a tenth of a small board's check. Keyed
    by the text read, so an edited file is parsed again; callers get a deep copy, since
    the loader merges overlays into what it is given."""
    import tomllib

    return tomllib.loads(text)


def read_toml(path: "Path | str") -> "tuple[dict[str, Any], str]":
    """A TOML file's data and text, or a `SpecError` naming the file: unreadable, too
    large, not UTF-8, not TOML, or nested too deeply for the parser."""
    import tomllib

    text = read_text(path)
    try:
        data = _parsed(text)
    except tomllib.TOMLDecodeError as error:
        raise SpecError(f"{path}: not valid TOML: {error}") from None
    except RecursionError:
        raise SpecError(f"{path}: TOML nested too deeply; expected tables and arrays a few levels deep") from None
    except ValueError as error:        # an integer of more than 4,300 digits
        raise SpecError(f"{path}: not valid TOML for shrules: {shown(str(error))}; expected whole numbers "
                        f"of a few digits") from None
    _refuse_controls(data, path)
    return copy.deepcopy(data), text


def control_character(text: str) -> str | None:
    """The first character of `text` that could rewrite a terminal it is printed on (a
    C0/C1 control other than a line break or a tab, or a bidirectional override), or None."""
    for char in text:
        code = ord(char)
        if (code < 0x20 and char not in "\n\t") or 0x7F <= code <= 0x9F or 0x202A <= code <= 0x202E \
                or 0x2066 <= code <= 0x2069:
            return char
    return None


def _refuse_controls(data: Any, path: "Path | str") -> None:
    """Refuse a TOML file with a control character in a key or a text: rule sets,
    settings and catalogues hold plain text, and their names and sentences are printed to
    the terminal, where an escape sequence would rewrite what it shows."""
    todo: list[tuple[str, Any]] = [("", data)]
    while todo:
        where, value = todo.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                field = f"{where}.{key}" if where else str(key)
                if control_character(str(key)) is not None:
                    raise SpecError(f"a control character {shown(control_character(str(key)))} in a key; expected "
                                    f"plain text", Location(str(path), None, one_line(field)))
                todo.append((field, item))
        elif isinstance(value, list):
            todo.extend((f"{where}[{index}]", item) for index, item in enumerate(value))
        elif isinstance(value, str) and control_character(value) is not None:
            raise SpecError(f"a control character {shown(control_character(value))} in a text; expected plain "
                            f"text (a control character could rewrite the terminal it is shown on)",
                            Location(str(path), None, one_line(where)))
