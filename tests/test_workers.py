"""Worker processes end with their parent (verify/workers.py): a killed `check`, `sweep` or
`bench` used to leave its workers running their task to the end and then waiting on the
task queue for ever, holding their memory and, at 9 players, GiB of scratch files.

The processes are found by an environment variable only the test's own processes carry,
read from /proc: the tests need Linux."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from verify.workers import PARENT_POLL, WorkerPool

ROOT = Path(__file__).resolve().parents[1]
PROC = Path("/proc")

pytestmark = pytest.mark.skipif(not (PROC / "self" / "environ").exists(),
                                reason="finds the test's processes in /proc, which only Linux has")

PARENT = """
import os, time
from verify.workers import WorkerPool
pool = WorkerPool(2)
print(pool.submit(os.getpid).result(), flush=True)
pool.submit(time.sleep, 600).result()
"""
"""A parent whose worker sleeps ten minutes: it prints the worker's process id first."""


DEAF = """
import os, signal, time
import verify.workers
verify.workers.GRACE = 2.0
from verify.workers import WorkerPool
pool = WorkerPool(1)

def deaf():
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    return os.getpid()

print(pool.submit(deaf).result(), flush=True)
pool.submit(time.sleep, 600).result()
"""
"""A parent whose worker ignores SIGTERM (as a task that installs its own handler might),
with a fallback of 2 s instead of a minute: the pool forks after the change, so the
worker has it too."""


def living(marker: str) -> list[int]:
    """The processes, zombies left out, whose environment holds the line `marker`."""
    found = []
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if marker.encode() not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            state = (entry / "stat").read_text().rpartition(")")[2].split()[0]
        except OSError:          # ended meanwhile, or not ours to read
            continue
        if state not in ("Z", "X"):
            found.append(int(entry.name))
    return found


def left_after(marker: str, seconds: float) -> list[int]:
    """The processes carrying `marker` still alive after at most `seconds`."""
    deadline = time.monotonic() + seconds
    while (left := living(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def end_all(marker: str) -> None:
    for pid in living(marker):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@contextmanager
def parent_of_one_worker(script: str, tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], int, str]]:
    """`script` run as a parent process that prints its worker's process id: the parent,
    the worker's id and the marker of the test's processes; every one of them is killed
    on the way out, whatever the test found."""
    marker = f"SHRULES_TEST_RUN={tmp_path}"
    env = {**os.environ, "SHRULES_TEST_RUN": str(tmp_path)}
    parent = subprocess.Popen([sys.executable, "-c", script], env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        yield parent, int(parent.stdout.readline()), marker
    finally:
        parent.kill()
        end_all(marker)


def test_a_pool_in_this_process_works_as_a_pool() -> None:
    with WorkerPool(2) as pool:
        assert list(pool.map(abs, [-1, -2, 3])) == [1, 2, 3]
        assert pool.submit(divmod, 7, 2).result() == (3, 1)
        with pytest.raises(ZeroDivisionError):
            pool.submit(divmod, 1, 0).result()


@pytest.mark.parametrize("sent", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_workers_end_when_their_parent_is_killed(sent: signal.Signals, tmp_path: Path) -> None:
    with parent_of_one_worker(PARENT, tmp_path) as (parent, worker, marker):
        time.sleep(2 * PARENT_POLL)
        assert worker in living(marker), "the worker ended before its parent"
        parent.send_signal(sent)
        parent.wait(timeout=30)
        assert left_after(marker, 20) == [], "a worker outlived its parent by 20 s"


def test_a_killed_check_leaves_no_worker_and_no_scratch_folder(tmp_path: Path) -> None:
    """`check` spreads 7 and 8 players over two workers, each holding a folder of paths
    while it searches: killed outright, the parent can clean nothing, so the workers must."""
    marker = f"TMPDIR={tmp_path}"
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    parent = subprocess.Popen([sys.executable, "-m", "verify", "check", "-n", "7,8", "--backend", "explicit",
                               "--workers", "2"], env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 180
        while not any(path.name.startswith("shrules-paths-") for path in tmp_path.iterdir()):
            assert parent.poll() is None, f"ended before its search began: {parent.stderr.read() if parent.stderr else ''}"
            assert time.monotonic() < deadline, "no search began within 180 s"
            time.sleep(0.05)
        parent.kill()
        parent.wait(timeout=30)
        assert left_after(marker, 30) == [], "a process of the check outlived it by 30 s"
        assert [path.name for path in tmp_path.iterdir() if path.name.startswith("shrules-")] == []
    finally:
        parent.kill()
        end_all(marker)


def test_a_worker_deaf_to_sigterm_ends_after_the_grace(tmp_path: Path) -> None:
    """The fallback: an orphan whose SIGTERM does nothing is ended outright `GRACE` seconds
    after it was told to end (here 2 s), not left asleep on its task."""
    with parent_of_one_worker(DEAF, tmp_path) as (parent, worker, marker):
        parent.kill()
        parent.wait(timeout=30)
        time.sleep(PARENT_POLL + 0.5)
        assert worker in living(marker), "the worker ended at its SIGTERM, which it ignores: nothing was tested"
        assert left_after(marker, 20) == [], "a worker deaf to SIGTERM outlived its parent by 20 s"
