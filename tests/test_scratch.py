"""A search terminated by SIGTERM removes its scratch folders (verify/explicit/scratch.py):
at 9 and 10 players they hold tens of GiB, and `kill`, `timeout` or a cancelled CI job
used to leave them in $TMPDIR."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from verify.explicit.scratch import TERMINATED, scratch

SHRULES = [sys.executable, "-m", "verify"]


def test_the_handler_is_back_and_the_folder_gone_after_the_block() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with scratch("shrules-test-") as folder:
        assert Path(folder).is_dir()
        assert signal.getsignal(signal.SIGTERM) is not before
    assert not Path(folder).exists()
    assert signal.getsignal(signal.SIGTERM) is before


def _signalled_inside(real: Callable[..., object]) -> Callable[..., object]:
    """`real` (mkdtemp or rmtree), with SIGTERM sent to this process halfway through: the
    handler runs as soon as the signal is sent, before `real` goes on."""
    def wrapped(*args: object, **kwargs: object) -> object:
        if getattr(real, "__name__", "") == "rmtree":
            os.kill(os.getpid(), signal.SIGTERM)
            return real(*args, **kwargs)
        made = real(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGTERM)
        return made
    return wrapped


@pytest.mark.parametrize("where", ["tempfile.mkdtemp", "shutil.rmtree"])
def test_a_sigterm_while_the_folder_is_made_or_removed_leaves_nothing(
        where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The race a search met when it was terminated just as it ended (or began): the
    signal came while the folder was being removed, and SystemExit left it half removed."""
    module_name, name = where.split(".")
    module = {"tempfile": tempfile, "shutil": shutil}[module_name]
    monkeypatch.setattr(module, name, _signalled_inside(getattr(module, name)))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(SystemExit) as ended:
        with scratch("shrules-test-") as folder:
            (Path(folder) / "paths").write_bytes(b"0" * 4096)
            (Path(folder) / "waiting").mkdir()
            if name == "mkdtemp":
                pytest.fail("the block began although SIGTERM came before it")
    assert ended.value.code == TERMINATED
    assert [path.name for path in tmp_path.iterdir()] == []
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_sigterm_during_a_failed_removal_still_ends_the_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The signal is not lost when the removal it waited for fails: the process ends with
    the status of a terminated one, not with the removal's error."""
    def failing(*args: object, **kwargs: object) -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        raise PermissionError("not removable")
    monkeypatch.setattr(shutil, "rmtree", failing)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    with pytest.raises(SystemExit) as ended:
        with scratch("shrules-test-"):
            pass
    assert ended.value.code == TERMINATED


@pytest.mark.parametrize(("command", "prefix"), [
    (["explore", "-n", "7"], "shrules-explore-"),
    (["check", "-n", "7", "--backend", "explicit"], "shrules-paths-"),
])
def test_sigterm_during_a_search_removes_its_folder(command: list[str], prefix: str, tmp_path: Path) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    process = subprocess.Popen([*SHRULES, *command], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not any(path.name.startswith(prefix) for path in tmp_path.iterdir()):
            assert process.poll() is None, f"ended before its search began: {process.stderr.read() if process.stderr else ''}"
            assert time.monotonic() < deadline, "no scratch folder within 120 s"
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == TERMINATED, stderr
    assert "Traceback" not in stderr
    assert [path.name for path in tmp_path.iterdir() if path.name.startswith("shrules-")] == []
