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

How the workers start is chosen here and nowhere else (`start_context`): the platform's
default, or the method `SHRULES_START_METHOD` names (`fork`, `spawn`, `forkserver`). A
worker must never depend on what `fork` copies of its parent: the rules reach it as a
value (verify/rules.py `Rules`), which it loads again, so every command gives the same
verdicts under each method (tests/test_start_methods.py runs them).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
import multiprocessing
from multiprocessing.context import BaseContext
from multiprocessing.managers import SyncManager
from types import FrameType, TracebackType
from typing import ParamSpec, TypeVar

from spec.errors import SpecError, shown

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


START_METHOD_VARIABLE = "SHRULES_START_METHOD"
"""The environment variable naming how worker processes start (module docstring)."""


def start_context() -> BaseContext:
    """The multiprocessing context every worker, pool and manager of shrules starts from:
    the one `SHRULES_START_METHOD` names, else the platform's default. A method this
    platform lacks, or a misspelt one, is bad input (`SpecError`: exit 2)."""
    method = os.environ.get(START_METHOD_VARIABLE, "").strip()
    if not method:
        return multiprocessing.get_context()
    methods = multiprocessing.get_all_start_methods()
    if method not in methods:
        raise SpecError(f"{START_METHOD_VARIABLE}={shown(method)}: expected one of {', '.join(methods)} "
                        f"(how worker processes start on this platform)")
    return multiprocessing.get_context(method)


class WorkerPool(ProcessPoolExecutor):
    """A process pool whose workers each end soon after this process ends (module
    docstring), started by `mp_context` (default: `start_context()`)."""

    def __init__(self, workers: int, mp_context: BaseContext | None = None) -> None:
        super().__init__(max_workers=workers, mp_context=mp_context or start_context(), initializer=watch_parent,
                         initargs=(os.getpid(),))

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        """`fn(*args, **kwargs)` in a worker that ends at once if its parent's end cut the
        call short (`map` submits through here too)."""
        return super().submit(_call, fn, *args, **kwargs)

    def __exit__(self, exc_type: type[BaseException] | None, exc_val: BaseException | None,
                 exc_tb: TracebackType | None) -> bool | None:
        """Leaving the `with` normally waits for every call, as a pool does. Leaving it by
        an exception (a worker's result refused, Ctrl-C, a generator over the results
        closed early) abandons the work: `ProcessPoolExecutor` would wait for every call
        still queued, hundreds of mutants, before the error could be reported; a `mutate`
        whose worker's outcome did not check hung that way for half an hour."""
        if exc_type is None:
            return super().__exit__(exc_type, exc_val, exc_tb)
        self.abandon()
        return None

    def abandon(self) -> None:
        """Cancel every call not started and end the workers running the others (SIGTERM:
        a search removes its scratch folder first, verify/explicit/scratch.py), without
        waiting for their results."""
        running = list((getattr(self, "_processes", None) or {}).values())
        self.shutdown(wait=False, cancel_futures=True)
        for process in running:
            if process.is_alive():
                process.terminate()
        for process in running:
            process.join(timeout=GRACE)


def worker_manager() -> SyncManager:
    """A started multiprocessing manager (its queues can be handed to pool workers) whose
    server process ends soon after this process ends, removing its socket's folder."""
    manager = SyncManager(ctx=start_context())
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
    """Wait until the parent is gone, then end this process, gently first. Gone is either
    sign: this process given another parent (init or a subreaper), or `parent` no longer
    there. Under `fork` and `spawn` the two are one, `parent` being this process's parent;
    a worker started by `forkserver` is the server's child, and the server ends only once
    `parent` has (so a parent that is killed is seen by its pid)."""
    started_by = os.getppid()
    while os.getppid() == started_by and _alive(parent):
        time.sleep(PARENT_POLL)
    _orphaned.set()
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(GRACE)
    os._exit(ORPHANED)


def _alive(pid: int) -> bool:
    """Whether a process `pid` is there (a signal 0 reaches it, or it is another user's)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
