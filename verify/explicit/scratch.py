"""Scratch folders that are removed when the process is terminated, not only when it ends.

The large searches keep their paths and the successors waiting for their layer on disk:
tens of GiB at 9 and 10 players. A `tempfile.TemporaryDirectory` is removed when its block
is left, including by an exception (Ctrl-C raises `KeyboardInterrupt`), but SIGTERM (what
`kill`, `timeout`, a CI runner cancelling a job or a cluster reclaiming a machine send)
ends a Python process by default without leaving any block, so the folder stayed behind.
While a `scratch` folder is held in the main thread, SIGTERM raises `SystemExit` with the
conventional status 128 + 15 instead: the blocks are left, the folder goes, the process
ends. The previous handler comes back when the folder is gone. Elsewhere (a worker
thread, where no handler can be set) the folder is an ordinary temporary directory.

A signal that arrives while the folder is being made or removed waits until that is done:
raised between the folder's creation and the block's start, or halfway through removing
it, `SystemExit` would leave the folder, or part of it, behind (a search that ends just as
the signal comes removes its folder at that moment).
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

TERMINATED = 128 + signal.SIGTERM
"""The exit status of a process ended by SIGTERM while it held a scratch folder: the
status a shell reports for a process the signal killed, so scripts read it the same way."""


class _Deferral:
    """Whether the main thread is making or removing a folder (then SIGTERM waits), and
    whether one came meanwhile. Signal handlers run in the main thread only, as the
    handled folders are, so a plain counter is enough."""

    depth = 0
    pending = False


def _terminate(signum: int, frame: FrameType | None) -> None:
    if _Deferral.depth:
        _Deferral.pending = True
        return
    _Deferral.pending = False
    raise SystemExit(TERMINATED)


@contextmanager
def _deferred() -> Iterator[None]:
    """SIGTERM waits until the block is done, then ends the process as it would have."""
    _Deferral.depth += 1
    try:
        yield
    finally:
        _Deferral.depth -= 1
        if _Deferral.depth == 0 and _Deferral.pending:
            # Also over an error the block raised: the signal asked the process to end.
            _Deferral.pending = False
            raise SystemExit(TERMINATED)


@contextmanager
def scratch(prefix: str) -> Iterator[str]:
    """A temporary folder (under $TMPDIR) removed when the block is left, by an exception
    or by SIGTERM (module docstring)."""
    if threading.current_thread() is not threading.main_thread():
        with tempfile.TemporaryDirectory(prefix=prefix) as plain:
            yield plain
        return
    previous = signal.signal(signal.SIGTERM, _terminate)
    folder: str | None = None
    try:
        with _deferred():
            folder = tempfile.mkdtemp(prefix=prefix)
        yield folder
    finally:
        try:
            with _deferred():
                if folder is not None and os.path.lexists(folder):
                    shutil.rmtree(folder)
        finally:
            signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
