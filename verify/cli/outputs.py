"""Output paths checked before the work starts, so a long run never loses its results.

A `check` of every player count can take an hour; if its `--report` directory cannot be
created, or `--trace` names a directory or a file in a folder that does not exist, the
run must be refused at once (exit 2, naming the option and the path), not after the
hour. `writable` is called by every command for every path it will write. For an output folder
it also looks at what is already inside at the names the command will write (`inside`):
a link, a FIFO or a folder where a file goes, a link or a file where a sub-folder goes,
would make the final write fail (the writers never follow links: spec/files.py), so it
is refused now, in one line, rather than after the run.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import NoReturn

from spec.errors import SpecError


def writable(path: str | Path | None, option: str, directory: bool = False, inside: Iterable[str] = ()) -> None:
    """Refuse `path` unless the command can write it: a file (`directory` False) whose
    folder exists and takes new files, or a directory that exists or can be created
    under an existing one. Writability is probed by creating and removing a file, the
    only test that is right for every user (root included) and every file system. With
    `inside` (names the command writes in the folder; a sub-folder's ends with `/`), what
    is already at each name must be what the writers can replace: a regular file or a
    link where a file goes, a real folder where a folder goes."""
    if path is None:
        return
    path = Path(path)
    if directory:
        if path.exists() and not path.is_dir():
            _refuse(option, path, "exists and is not a directory; expected a directory to write into")
        folder = _existing_ancestor(path)
    else:
        if path.is_symlink():   # never written through (spec/files.py `write_named`): said now, not after the run
            _refuse(option, path, "is a symbolic link, which is never followed for output (remove it, or name "
                                  "another file)")
        if path.is_dir():
            _refuse(option, path, "is a directory; expected a file name")
        if path.exists() and not os.access(path, os.W_OK):
            _refuse(option, path, "exists and cannot be overwritten")
        folder = path.parent
        if not folder.is_dir():
            _refuse(option, path, f"the folder {folder} does not exist; expected a file in an existing folder")
    if not folder.is_dir():
        _refuse(option, path, f"{folder} is not a directory; expected a directory to write into")
    try:
        handle, probe = tempfile.mkstemp(prefix=".shrules-probe-", dir=folder)
    except OSError as error:
        _refuse(option, path, f"cannot write into {folder}: {error.strerror}")
    os.close(handle)
    os.unlink(probe)
    for name in inside if directory else ():
        _replaceable(option, path / name.rstrip("/"), name.endswith("/"))


def _replaceable(option: str, path: Path, folder: bool) -> None:
    """Refuse what sits at an output's name when the writers could not replace it."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as error:
        _refuse(option, path, f"cannot be examined: {error.strerror}")
    if folder and not stat.S_ISDIR(mode):
        kind = "a symbolic link" if stat.S_ISLNK(mode) else "not a folder"
        _refuse(option, path, f"is {kind}; an output folder is written without following links "
                              f"(remove it, or choose another folder)")
    if not folder and not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        _refuse(option, path, "is not a regular file; expected a file this command writes (remove it, "
                              "or choose another folder)")


def _existing_ancestor(path: Path) -> Path:
    """The nearest folder above (or at) `path` that exists: where a missing directory
    would be created."""
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path.cwd()


def _refuse(option: str, path: Path, why: str) -> NoReturn:
    raise SpecError(f"{option} {path}: {why}")
