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
"""

from __future__ import annotations

import signal
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

TERMINATED = 128 + signal.SIGTERM
"""The exit status of a process ended by SIGTERM while it held a scratch folder: the
status a shell reports for a process the signal killed, so scripts read it the same way."""


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(TERMINATED)


@contextmanager
def scratch(prefix: str) -> Iterator[str]:
    """A temporary folder (under $TMPDIR) removed when the block is left, by an exception
    or by SIGTERM (module docstring)."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if main else None
    try:
        with tempfile.TemporaryDirectory(prefix=prefix) as folder:
            yield folder
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
