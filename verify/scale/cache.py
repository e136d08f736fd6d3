"""Results kept between runs: one JSON file per task key.

A file is written through `spec.files.write_atomic` (a fresh temporary name in the same
folder, renamed over the final name, never through a link), so a run killed mid-write
leaves either the whole result or none; the folders the cache makes are the user's alone
(mode 0700). A file is read through `spec.files.read_kept` (a regular file only, never
through a link, capped, never blocking on a FIFO); one that cannot be read or parsed is a
miss with one warning line on stderr, never a traceback or a hang. The folder is `--cache
DIR`, else `$SHRULES_CACHE/tasks`, else the user's cache folder
(`$XDG_CACHE_HOME/shrules/tasks`, `~/.cache/shrules/tasks`), as for the inferred
invariants (verify/smt/infer.py). A file holds data only: it is parsed as JSON and never
evaluated; what it claims is checked before it is believed (trust.py), and
`untrusted_because` says whether its owner's word alone may be taken.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from spec import files
from spec.errors import SpecError, shown

from .trust import warn as warn_line


def default_folder() -> Path:
    """Where results are kept when no folder is named (module docstring)."""
    root = os.environ.get("SHRULES_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "shrules")
    return Path(root) / "tasks"


class Cache:
    """Task results by key, as files under `folder` (fanned out by the key's first two
    characters, so no folder holds more than a few hundred of a sweep's files)."""

    def __init__(self, folder: Path | None = None, warn: Callable[[str], None] = warn_line) -> None:
        self.folder = folder if folder is not None else default_folder()
        self._warn = warn
        self._warned: set[str] = set()

    def path(self, key: str) -> Path:
        """The file of one key."""
        return self.folder / key[:2] / f"{key}.json"

    def warn(self, line: str, once_as: str | None = None) -> None:
        """`line` on stderr, once per cache and run (or once for all lines `once_as` the
        same word): a sweep of thousands of entries from a shared folder says why it
        computes them again once, not thousands of times."""
        seen = once_as or line
        if seen not in self._warned:
            self._warned.add(seen)
            self._warn(line)

    def get(self, key: str) -> dict[str, Any] | None:
        """The kept data of `key`, or None when there is none; a file that cannot be read
        (a link, a FIFO, a device, too large, not JSON) is None and one warning line."""
        path = self.path(key)
        try:
            os.lstat(path)
        except OSError:
            return None                             # not kept: a plain miss
        try:
            data = json.loads(files.read_kept(path))
        except SpecError as error:
            self.warn(f"warning: the cache entry is not read, computing it again: {error.message}")
            return None
        except (ValueError, RecursionError):
            self.warn(f"warning: the cache entry {shown(str(path))} is not JSON, computing it again")
            return None
        if not isinstance(data, dict) or data.get("key") != key:
            self.warn(f"warning: the cache entry {shown(str(path))} is not one of this key, computing it again")
            return None
        return data

    def untrusted_because(self, key: str) -> str | None:
        """Why the file of `key` may not be believed on its owner's word (None: it may):
        not the user's, writable by others, a link (spec.files.untrusted_because)."""
        return files.untrusted_because(self.path(key), self.folder)

    def put(self, key: str, result: dict[str, Any]) -> None:
        """Keep `result` under `key`, atomically (module docstring)."""
        target = self.path(key)
        try:
            self.folder.parent.mkdir(parents=True, exist_ok=True)
            for folder in (self.folder, target.parent):
                try:
                    os.mkdir(folder, 0o700)
                except FileExistsError:
                    pass
            files.write_atomic(target, json.dumps(result, sort_keys=True), root=self.folder)
        except OSError as error:
            raise SpecError(f"cannot keep a result in the cache {shown(str(self.folder))}: "
                            f"{error.strerror or error}") from None
