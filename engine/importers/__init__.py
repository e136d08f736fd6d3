"""Game-log formats the judge reads, each turned into a `Transcript`.

`native` is the project's own JSON Lines format (engine/TRANSCRIPT.md); the other
formats are importers, one module each, that derive the moves their logs leave implicit
the way the rules do and never decide legality themselves (that is the judge's task).
"""

from __future__ import annotations

from pathlib import Path

from spec.errors import SpecError, shown

from ..transcript import Transcript, pin_rules, read_transcript

FORMATS = ("native", "secrethitler-io")
EXTENSIONS = {"native": ".jsonl", "secrethitler-io": ".json"}


def detect_format(path: Path) -> str:
    """The format of a file by its extension: .jsonl native, .json a secrethitler.io summary."""
    for fmt, extension in EXTENSIONS.items():
        if path.name.endswith(extension):
            return fmt
    raise SpecError(f"{path}: cannot tell the format from the file name; expected "
                    f"{' or '.join(EXTENSIONS.values())}, or give --format")


def read_game(path: str | Path, fmt: str = "auto", rules: str | None = None) -> Transcript:
    """Read one game file as a transcript; `SpecError` if it is malformed. `rules` pins
    the rules it is judged by, whatever the log names (`judge --rules`)."""
    path = Path(path)
    if fmt == "auto":
        fmt = detect_format(path)
    if fmt == "native":
        return read_transcript(path, rules)
    if fmt == "secrethitler-io":
        from .secrethitler_io import read_summary

        return pin_rules(read_summary(path), rules)
    raise SpecError(f"unknown format {shown(fmt)}; expected auto, {', '.join(FORMATS)}")


def game_files(path: Path, fmt: str = "auto") -> list[Path]:
    """The game files of a folder in a format (by extension), sorted; a file is itself."""
    if not path.is_dir():
        return [path]
    extensions = tuple(EXTENSIONS.values()) if fmt == "auto" else (EXTENSIONS[fmt],)
    return sorted(p for p in path.iterdir() if p.is_file() and p.name.endswith(extensions))
