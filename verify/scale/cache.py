"""Results kept between runs: one JSON file per task key.

A file is written to a temporary name in the same folder and renamed over its final
name, so a run killed mid-write leaves either the whole result or none, never half of
one; a reader that finds a file it cannot read treats the task as not yet run. The
folder is `--cache DIR`, else `$SHRULES_CACHE/tasks`, else the user's cache folder
(`$XDG_CACHE_HOME/shrules/tasks`, `~/.cache/shrules/tasks`), as for the inferred
invariants (verify/smt/infer.py). A file holds data only: it is parsed as JSON and never
evaluated.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from spec.errors import SpecError


def default_folder() -> Path:
    """Where results are kept when no folder is named (module docstring)."""
    root = os.environ.get("SHRULES_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "shrules")
    return Path(root) / "tasks"


class Cache:
    """Task results by key, as files under `folder` (fanned out by the key's first two
    characters, so no folder holds more than a few hundred of a sweep's files)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder if folder is not None else default_folder()

    def path(self, key: str) -> Path:
        """The file of one key."""
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The kept result of `key`, or None when there is none (or it cannot be read)."""
        try:
            data = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) and data.get("key") == key else None

    def put(self, key: str, result: dict[str, Any]) -> None:
        """Keep `result` under `key`, atomically (module docstring)."""
        target = self.path(key)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=target.parent)
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(result, stream, sort_keys=True)
            os.replace(temporary, target)
        except OSError as error:
            raise SpecError(f"cannot keep a result in the cache {self.folder}: {error.strerror or error}") from None
