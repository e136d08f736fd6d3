"""SPIN run beside the explorer: the reference model checked in the same session.

SPIN's figures in shared/bench/spin/README.md were measured on another day under another
load, so a ratio against them says as much about the machine as about the checkers. This
module runs the anchor folder's own `run.sh N` (the one place that knows SPIN's build
flags and hash sizes) into a temporary folder, then reads what its `summarize.py` reads:
pan's `verify.out` (states stored, transitions, depth, errors, why a search stopped) and
GNU time's `verify.time` (wall clock, user + system CPU, peak memory).

One SPIN state is one abstract state of ABSTRACTION.md, plus SPIN's single INIT state:
`abstract_states` is `stored - 1`, the number our projection must equal.

Where the folder or a tool is missing, `locate` and `missing_tools` say which, so the
benchmark can fall back to the README's figures and say they were not measured.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import shutil
import signal
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from ..budgets import BUILD_SECONDS

SPIN_DIR_ENV = "SHRULES_SPIN_DIR"
"""The environment variable naming the SPIN anchor folder (the option --spin-dir wins)."""

BESIDE_REPOSITORY = Path(__file__).resolve().parents[3] / "shared" / "bench" / "spin"
"""Where a checkout finds the anchor by default: ../shared/bench/spin beside the repository
(as CI lays it out). An installed copy has no such neighbour and must be told."""

ANCHOR_FILES = ("run.sh", "sh.pml")
"""What makes a folder the SPIN anchor."""

GNU_TIME = Path("/usr/bin/time")
"""run.sh times each step with GNU time at this fixed path."""



class SpinDirError(ValueError):
    """A SPIN folder was named (option or environment) but is not the anchor."""


@dataclass(frozen=True, slots=True)
class SpinRun:
    """What one `run.sh N` measured (None where pan or GNU time did not say)."""

    players: int
    status: str                  # "complete", or why not: "incomplete (time cap)", ...
    stored: int | None           # pan's "states, stored": abstract states + SPIN's INIT state
    transitions: int | None
    depth: int | None
    errors: int | None
    wall_seconds: float | None   # GNU time's elapsed wall clock of the verification
    cpu_seconds: float | None    # user + system CPU of the verification
    peak_mib: float | None
    approximate: bool = False    # pan printed a count >= 1e8 in %g (8 significant digits)
    states_approximate: bool = False     # ... the stored states among them (transitions pass 1e8 first)

    @property
    def complete(self) -> bool:
        """Whether pan searched the whole state space (no cap, no error, no truncation)."""
        return self.status == "complete"

    @property
    def abstract_states(self) -> int | None:
        """The abstract states of ABSTRACTION.md: stored minus SPIN's INIT state."""
        return None if self.stored is None else self.stored - 1

    def as_dict(self) -> dict[str, object]:
        """The figures with the derived ones, for JSON."""
        out = asdict(self)
        out["complete"] = self.complete
        out["abstract_states"] = self.abstract_states
        return out


def locate(option: str | None = None) -> Path | None:
    """The SPIN anchor folder: the option, else $SHRULES_SPIN_DIR, else ../shared/bench/spin
    beside the repository. A folder named by the option or the environment that is not
    the anchor raises `SpinDirError` (the user asked for it); the default one missing is
    None (nothing was asked, the benchmark falls back)."""
    named = option or os.environ.get(SPIN_DIR_ENV)
    if not named:
        return BESIDE_REPOSITORY if is_anchor(BESIDE_REPOSITORY) else None
    folder = Path(named).expanduser()
    if not folder.is_dir():
        raise SpinDirError(f"{named}: no such folder (expected the SPIN anchor holding {', '.join(ANCHOR_FILES)})")
    if not is_anchor(folder):
        raise SpinDirError(f"{named}: not the SPIN anchor (it has no {' or '.join(ANCHOR_FILES)})")
    return folder.resolve()


def is_anchor(folder: Path) -> bool:
    """Whether the folder holds run.sh and sh.pml."""
    return all((folder / name).is_file() for name in ANCHOR_FILES)


def missing_tools() -> list[str]:
    """The tools run.sh needs that this machine lacks (empty: SPIN can run here)."""
    missing = [tool for tool in ("spin", "gcc", "bash", "timeout") if shutil.which(tool) is None]
    if not os.access(GNU_TIME, os.X_OK):
        missing.append(f"GNU time ({GNU_TIME})")
    return missing


def run_spin(players: int, folder: Path, limit: float) -> SpinRun:
    """Run `run.sh players` from the anchor folder in a temporary OUTDIR, pan capped at
    `limit` wall seconds (run.sh's LIMIT), and read its outputs. The whole run (with
    `spin -a` and the compile) is stopped BUILD_SECONDS after that, and with us if we are
    interrupted (it runs in its own session, out of reach of the terminal's Ctrl-C). MEMLIM
    and WBITS pass through from the environment as run.sh reads them; VARIANT does not, as
    our side is always the standard rules."""
    with tempfile.TemporaryDirectory(prefix="shrules-spin-") as outdir:
        env = {**os.environ, "OUTDIR": outdir, "LIMIT": str(max(1, math.ceil(limit))), "VARIANT": ""}
        process = subprocess.Popen(["bash", str(folder / "run.sh"), str(players)], cwd=outdir, env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            process.wait(timeout=limit + BUILD_SECONDS)
        except BaseException as stopped:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            if not isinstance(stopped, subprocess.TimeoutExpired):
                raise
            return SpinRun(players, "incomplete (build or run overran)", None, None, None, None, None, None, None)
        return read_run(players, Path(outdir) / "runs" / f"N{players}")


def read_run(players: int, run: Path) -> SpinRun:
    """The figures of one runs/N<n> folder: pan's verify.out and GNU time's verify.time."""
    out = _read(run / "verify.out")
    timing = _read(run / "verify.time")
    if not out and (build := _read(run / "gcc.out") + _read(run / "spin_a.out")).strip():
        return SpinRun(players, f"no verification (build failed: {build.strip().splitlines()[-1][:120]})",
                       None, None, None, None, None, None, None)
    return parse_verify(players, out, timing)


def parse_verify(players: int, out: str, timing: str = "") -> SpinRun:
    """pan's output and GNU time's report as a SpinRun; the status is summarize.py's."""
    stored, approx_stored = _count(out, r"^\s*([0-9.e+]+) states, stored")
    transitions, approx_transitions = _count(out, r"^\s*([0-9.e+]+) transitions")
    depth = _int(out, r"depth reached (\d+)")
    errors = _int(out, r"errors: (\d+)")
    if "reached -DMEMLIM" in out:
        status = "incomplete (memory cap)"
    elif "Interrupted" in out:
        status = "incomplete (time cap)"
    elif "Search not completed" in out:
        status = "incomplete"
    elif stored is None:
        status = "no output"
    elif errors:
        status = f"stopped at an error ({errors} errors)"
    else:
        status = "complete"
    if "max search depth too small" in out:
        status = "incomplete (depth truncated)" if status == "complete" else status + ", depth truncated"
    user, system = _float(timing, r"User time \(seconds\): ([0-9.]+)"), _float(timing, r"System time \(seconds\): ([0-9.]+)")
    cpu = None if user is None or system is None else round(user + system, 2)
    wall = _clock(timing)
    if wall is None and status == "complete":          # no GNU time report: pan's own clock
        wall = _float(out, r"pan: elapsed time ([0-9.e+]+)")
    rss = _int(timing, r"Maximum resident set size \(kbytes\): (\d+)")
    return SpinRun(players, status, stored, transitions, depth, errors, wall, cpu,
                   None if rss is None else round(rss / 1024, 1), approx_stored or approx_transitions, approx_stored)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _match(text: str, pattern: str) -> str | None:
    found = re.search(pattern, text, re.M)
    return found.group(1) if found else None


def _int(text: str, pattern: str) -> int | None:
    value = _match(text, pattern)
    return None if value is None else int(value)


def _float(text: str, pattern: str) -> float | None:
    value = _match(text, pattern)
    try:
        return None if value is None else float(value)
    except ValueError:
        return None


def _count(text: str, pattern: str) -> tuple[int | None, bool]:
    """A pan count and whether it is approximate (%g for counts of 1e8 and more)."""
    value = _match(text, pattern)
    if value is None:
        return None, False
    if value.isdigit():
        return int(value), False
    try:
        return int(float(value)), True
    except ValueError:
        return None, False


def _clock(timing: str) -> float | None:
    """GNU time's "Elapsed (wall clock) time (h:mm:ss or m:ss): 0:02.10" in seconds."""
    value = _match(timing, r"Elapsed \(wall clock\) time.*?: ([0-9:.]+)\s*$")
    if value is None:
        return None
    seconds = 0.0
    for part in value.split(":"):
        seconds = seconds * 60 + float(part)
    return seconds


def availability(wanted: bool, option: str | None = None) -> tuple[Path | None, str | None]:
    """The anchor folder to run SPIN from, or None and why SPIN cannot run in this session.
    A folder named by the option or the environment that is not the anchor raises
    `SpinDirError`: that is bad input, not a reason to fall back."""
    if not wanted:
        return None, "--no-spin was given"
    folder = locate(option)
    if folder is None:
        return None, (f"no SPIN anchor folder at {BESIDE_REPOSITORY} (give --spin-dir DIR or "
                      f"${SPIN_DIR_ENV} pointing at shared/bench/spin)")
    missing = missing_tools()
    if missing:
        return None, f"{', '.join(missing)} not found (run.sh needs spin, gcc, bash, timeout and GNU time)"
    return folder, None
