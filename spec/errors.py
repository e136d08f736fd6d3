"""The one error type for bad input: a spec, a variant, a transcript, an expression.

Every user-facing mistake becomes a `SpecError` that knows where it happened (file, line,
and the field inside the entry) and prints as one line; the CLI turns it into exit 2.
`assert` is kept for the project's own invariants, never for input.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True, slots=True)
class Location:
    """Where a piece of input came from: a file, a line in it, and the field inside."""

    file: str = "<input>"
    line: int | None = None
    field: str | None = None

    def __str__(self) -> str:
        text = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{text} {self.field}" if self.field else text


class SpecError(Exception):
    """Bad input, reported as `file:line field: message` with exit status 2."""

    def __init__(self, message: str, where: Location | None = None, *, caret: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.where = where
        self.caret = caret

    def __str__(self) -> str:
        head = f"{self.where}: {self.message}" if self.where else self.message
        return f"{head}\n{self.caret}" if self.caret else head


def read_toml(path: "Path") -> "tuple[dict[str, Any], str]":
    """A TOML file's data and text, or a `SpecError` naming the file."""
    import tomllib

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise SpecError(f"cannot read {path}: {error.strerror}") from None
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as error:
        raise SpecError(f"{path}: not valid TOML: {error}") from None
