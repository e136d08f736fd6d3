"""Files kept between runs and files written for users, handled as a stranger may have
prepared them.

A cache, an atlas or an output folder is a place someone else may have written to first
(a shared CI cache, a colleague's atlas, a folder with a planted link). So:

- `read_kept` reads only a regular file, never through a symbolic link, never more than
  the capped size, and never blocks on a FIFO: a device, a pipe or a link is refused with
  the reason, which a cache turns into a miss and a one-line warning.
- `write_atomic` writes to a fresh temporary name in the target's folder (created with
  `O_EXCL`, so a planted name is never opened) and renames it over the target; a rename
  replaces a link rather than writing through it, and a run killed mid-write leaves the
  whole old file or the whole new one.
- `write_named` writes the one file a user named for output: a device or FIFO named
  there is written into, a link at that name is refused, anything else `write_atomic`.
- `folder_within` makes the folders of an output path below a root the user named,
  refusing any component that is a link (the root itself is the user's choice).
- `untrusted_because` says why a kept file cannot be believed on its owner's word: owned
  by someone else, or writable by others (itself or its folder). A verdict that cannot be
  checked again is read only from a file for which it returns None.

Only the standard library: `spec/` imports nothing else.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from .errors import MAX_INPUT_BYTES, SpecError, shown


def read_kept(path: Path | str, limit: int = MAX_INPUT_BYTES) -> str:
    """The UTF-8 text of the regular file at `path`, or a `SpecError` saying why not: a
    link, a device, a FIFO or a folder; larger than `limit`; not UTF-8; unreadable."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError as error:
        raise SpecError(f"cannot read {shown(str(path))}: {_reason(error)}") from None
    try:
        regular = stat.S_ISREG(os.fstat(descriptor).st_mode)
    except OSError:
        regular = False
    if not regular:    # checked before `fdopen`, which refuses a folder with an `OSError` of its own
        os.close(descriptor)
        raise SpecError(f"{shown(str(path))} is not a regular file; expected a file written by shrules")
    try:
        with os.fdopen(descriptor, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as error:
        raise SpecError(f"cannot read {shown(str(path))}: {_reason(error)}") from None
    if len(data) > limit:
        raise SpecError(f"{shown(str(path))} is larger than {limit:,} bytes; expected a file written by shrules")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise SpecError(f"{shown(str(path))} is not UTF-8 text; expected a file written by shrules") from None


def _reason(error: OSError) -> str:
    """An `OSError` in words; `ELOOP` from `O_NOFOLLOW` is a link, said as such."""
    import errno

    if error.errno == errno.ELOOP:
        return "it is a symbolic link, which is never followed"
    return error.strerror or str(error)


def folder_within(root: Path, folder: Path) -> Path:
    """`folder` (below `root`, or `root` itself) made where missing, each component below
    `root` checked not to be a link; a `SpecError` when one is, or when it is not a folder."""
    root = Path(root)
    folder = Path(folder)
    try:
        relative = folder.relative_to(root)
    except ValueError:
        relative = None
    if relative is None:
        raise SpecError(f"{shown(str(folder))} is not inside the output folder {shown(str(root))}")
    root.mkdir(parents=True, exist_ok=True)
    current = root
    for part in relative.parts:
        current = current / part
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            try:
                os.mkdir(current)
            except FileExistsError:
                pass
            info = os.lstat(current)
        if stat.S_ISLNK(info.st_mode):
            raise SpecError(f"{shown(str(current))} is a symbolic link; an output folder is written without "
                            f"following links (remove it, or choose another folder)")
        if not stat.S_ISDIR(info.st_mode):
            raise SpecError(f"{shown(str(current))} is not a folder; expected a folder to write into")
    return folder


def write_atomic(path: Path | str, data: str | bytes, *, root: Path | None = None) -> None:
    """Write `data` to `path` through a fresh temporary file and an atomic rename (module
    docstring); with `root`, the folders from `root` down to the file are checked not to be
    links first. Raises `OSError` (callers say what was being written) or `SpecError`."""
    target = Path(path)
    if root is not None:
        folder_within(Path(root), target.parent)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
    try:
        existing = os.lstat(target).st_mode
    except FileNotFoundError:
        existing = None
    if existing is not None and (stat.S_ISCHR(existing) or stat.S_ISBLK(existing) or stat.S_ISDIR(existing)):
        # a rename would put a file where a device was (as root, /dev/full) or fail on a folder;
        # a link or a FIFO planted in a kept or output folder is replaced, never opened
        raise SpecError(f"{shown(str(target))} is a device or a folder, not a regular file; expected a file "
                        f"to write")
    payload = data.encode("utf-8") if isinstance(data, str) else data
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(payload)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def write_named(path: Path | str, data: str | bytes) -> None:
    """Write `data` to the one output file the user named (`--trace FILE`, `-o FILE`): a
    device or a FIFO named there (`/dev/null`) is written into, opened without following a
    link and without waiting for a reader; a link at that name is refused, since the file
    it points at was not named (a link planted in a shared folder); anything else is
    written by `write_atomic` in the file's folder. `OSError` or `SpecError`, as there."""
    target = Path(path)
    try:
        existing: int | None = os.lstat(target).st_mode
    except FileNotFoundError:
        existing = None
    if existing is not None and stat.S_ISLNK(existing):
        raise SpecError(f"{shown(str(target))} is a symbolic link, which is never followed for output "
                        f"(remove it, or name another file)")
    if existing is not None and (stat.S_ISCHR(existing) or stat.S_ISFIFO(existing)):
        flags = os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        descriptor = os.open(target, flags)
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data.encode("utf-8") if isinstance(data, str) else data)
        return
    write_atomic(target, data, root=target.parent)


def untrusted_because(path: Path | str, root: Path | str | None = None) -> str | None:
    """Why the kept file at `path` cannot be believed on its owner's word, or None when it
    can: it and every folder from `root` (else its own folder) down to it are owned by this
    user and writable by no one else. A link anywhere on that way is a reason too."""
    target = Path(path)
    chain = [target]
    top = Path(root) if root is not None else target.parent
    folder = target.parent
    chain.append(folder)
    while folder != top and top in folder.parents:
        folder = folder.parent
        chain.append(folder)
    me = os.geteuid() if hasattr(os, "geteuid") else None
    for item in chain:
        try:
            info = os.lstat(item)
        except OSError as error:
            return f"{shown(str(item))} cannot be examined: {error.strerror or error}"
        if stat.S_ISLNK(info.st_mode):
            return f"{shown(str(item))} is a symbolic link"
        if me is not None and info.st_uid != me:
            return f"{shown(str(item))} belongs to another user (uid {info.st_uid})"
        if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return f"{shown(str(item))} is writable by other users"
    return None
