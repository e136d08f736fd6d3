"""Local worker processes that end when the process that started them ends.

A `concurrent.futures.ProcessPoolExecutor` worker does not notice that its parent is gone.
When the parent is killed (SIGTERM from `kill`, `timeout` or a cancelled CI job; SIGKILL
from the kernel when memory runs out), the worker runs its task to the end, an hour of
9-player search, and then waits on its task queue for ever, holding its memory. That was
seen with a killed `shrules bench` and, on CPython 3.11, with a plain pool: a worker whose
parent was killed mid-task was still there, asleep, long after its task had ended.

Every worker made here watches its parent from a thread. Once the parent is gone the
worker sends itself SIGTERM: a search holding a scratch folder removes it
(verify/explicit/scratch.py) and the worker then ends, any other worker ends at once. One
that has not ended `GRACE` seconds later ends by `os._exit`. The manager whose queues carry
the workers' progress lines (`worker_manager`) watches its parent likewise: left alone, its
server process outlived a killed `check` too, with its socket's folder in $TMPDIR.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing.context import BaseContext
from multiprocessing.managers import SyncManager
from types import FrameType
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

PARENT_POLL = 0.5
"""Seconds between two looks at the parent: how long an orphaned worker may go on before it
is told to end."""

GRACE = 60.0
"""Seconds an orphaned worker has, after its SIGTERM, to remove its scratch folders (tens
of GiB at 9 players) before it is ended outright."""

ORPHANED = 128 + signal.SIGTERM
"""The status of a worker ended for its parent's end: that of a process SIGTERM ended."""


class WorkerPool(ProcessPoolExecutor):
    """A process pool whose workers each end soon after this process ends (module
    docstring)."""

    def __init__(self, workers: int, mp_context: BaseContext | None = None) -> None:
        super().__init__(max_workers=workers, mp_context=mp_context, initializer=watch_parent,
                         initargs=(os.getpid(),))

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        """`fn(*args, **kwargs)` in a worker that ends at once if its parent's end cut the
        call short (`map` submits through here too)."""
        return super().submit(_call, fn, *args, **kwargs)


def worker_manager() -> SyncManager:
    """A started multiprocessing manager (its queues can be handed to pool workers) whose
    server process ends soon after this process ends, removing its socket's folder."""
    manager = SyncManager()
    manager.start(_watch_as_manager, (os.getpid(),))
    return manager


def _watch_as_manager(parent: int) -> None:
    """The manager server's initializer: SIGTERM raises `SystemExit`, on which the server
    leaves its loop and the process exits through multiprocessing's own clean-up (the
    folder of its socket goes), rather than dying where it stands."""
    signal.signal(signal.SIGTERM, _leave)
    watch_parent(parent)


def _leave(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(ORPHANED)


_orphaned = threading.Event()
"""Set in a worker once its parent is gone."""


def _call(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """Call `fn` in a worker. The `SystemExit` that a scratch folder's SIGTERM handler
    raises ends the worker once the folder is removed; a pool worker would otherwise catch
    it, try to send it to the parent that is gone, and wait for the next task for ever."""
    try:
        return fn(*args, **kwargs)
    except SystemExit:
        if _orphaned.is_set():
            os._exit(ORPHANED)
        raise


def watch_parent(parent: int) -> None:
    """Run in each worker as it starts: watch `parent`, this worker's parent at the time
    the pool was made, from a daemon thread (it must not keep the worker alive)."""
    threading.Thread(target=_end_when_orphaned, args=(parent,), name="shrules-parent-watch", daemon=True).start()


def _end_when_orphaned(parent: int) -> None:
    """Wait until the parent is gone (this process is then given another parent: init or a
    subreaper), then end this process, gently first."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL)
    _orphaned.set()
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(GRACE)
    os._exit(ORPHANED)
