"""Run a case as a stranger's input would be run, and say how it ended.

Each case runs as `python -P -m verify ARGS` in a fresh directory of its own (`-P`: the
working directory, full of hostile files, is not put on the import path), with HOME and
TMPDIR inside that directory, no standard input, a wall-clock timeout, and limits on
address space, file size and core dumps. The whole process group is killed when the
case ends, so worker processes a command started cannot outlive it.

Outcomes: `ok` (exit 0, 1 or 3: a verdict), `rejected` (exit 2 with exactly one error
line), and the bad ones: `traceback`, `hang` (timeout), `crash` (a signal, the memory
limit, another exit status), `multiline` (exit 2 with more than one line), `silent`
(exit 2 with nothing said), `escape` (a canary file appeared, an input changed, or a
file the case did not declare as an output was created).
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

from .model import CANARY, IDENT, Case, Content, Repeat, Result

DEFAULT_TIMEOUT = 20.0
DEFAULT_MEMORY = 4 << 30
FILE_LIMIT = 512 << 20
"""No case needs to write more than this; a runaway writer stops here instead of filling the disk."""

STDERR_KEEP = 64 << 10
CARET = re.compile(r"^ *\^+ *$")
CANARY_NAME = re.compile(r"^(owned|PWNED.*)$")


@dataclass(frozen=True, slots=True)
class Settings:
    """How cases run: the interpreter, the limits, and the run's own directories."""

    python: str
    base: Path
    canary: Path
    timeout: float = DEFAULT_TIMEOUT
    memory: int = DEFAULT_MEMORY
    keep: bool = False


def new_settings(python: str = sys.executable, timeout: float = DEFAULT_TIMEOUT, memory: int = DEFAULT_MEMORY,
                 base: Path | None = None, keep: bool = False) -> Settings:
    """Settings with a fresh run directory (cases below it) and an empty canary directory
    beside the cases, outside every case's own directory."""
    root = Path(tempfile.mkdtemp(prefix="shrules-fuzz-", dir=base))
    (root / "cases").mkdir()
    (root / "canary").mkdir()
    return Settings(python, root / "cases", root / "canary", timeout, memory, keep)


# ------------------------------------------------------------------ laying a case out

def fill(text: str, case: Case, settings: Settings) -> str:
    return text.replace(CANARY, str(settings.canary)).replace(IDENT, case.ident)


def _fill_bytes(data: bytes, case: Case, settings: Settings) -> bytes:
    return data.replace(CANARY.encode(), str(settings.canary).encode()).replace(IDENT.encode(), case.ident.encode())


def write_content(path: Path, content: Content, case: Case, settings: Settings) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(_fill_bytes(content, case, settings))
        return
    with path.open("wb") as out:
        out.write(_fill_bytes(content.head, case, settings))
        chunk = content.unit * max(1, (1 << 20) // max(1, len(content.unit)))
        per_chunk = len(chunk) // max(1, len(content.unit))
        left = content.times
        while left > 0 and content.unit:
            take = min(left, per_chunk)
            out.write(chunk if take == per_chunk else content.unit * take)
            left -= take
        out.write(_fill_bytes(content.tail, case, settings))


def layout(case: Case, work: Path, settings: Settings) -> None:
    """The case's files, folders, FIFOs and links in its working directory."""
    work.mkdir(parents=True)
    for name, content in case.files:
        write_content(work / name, content, case, settings)
    for name in case.fifos:
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(work / name)
    for name, target in case.links:
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(fill(target, case, settings), work / name)


Snapshot = dict[str, tuple[str, int, str]]


def snapshot(folder: Path) -> Snapshot:
    """Every entry below `folder`: its type, size and (for files) a digest."""
    out: Snapshot = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(root) / name
            rel = str(path.relative_to(folder))
            info = path.lstat()
            if stat.S_ISREG(info.st_mode):
                digest = hashlib.sha256()
                with path.open("rb") as handle:
                    for block in iter(lambda: handle.read(1 << 20), b""):
                        digest.update(block)
                out[rel] = ("file", info.st_size, digest.hexdigest())
            else:
                out[rel] = ("dir" if stat.S_ISDIR(info.st_mode) else "other", 0, "")
    return out


def canaries(folder: Path) -> list[str]:
    """Files anywhere below `folder` named like an injection's canary."""
    return sorted(str(Path(root, name).relative_to(folder)) for root, dirs, files in os.walk(folder)
                  for name in dirs + files if CANARY_NAME.match(name))


def rewritable(case: Case, rel: str) -> bool:
    """Whether an input the case laid out may be replaced by the command: it matches one of
    the case's declared outputs (a cache entry found damaged is computed again and kept)."""
    return any(fnmatch.fnmatch(rel, pattern) for pattern in case.outputs)


def escapes(case: Case, before: Snapshot, after: Snapshot, root: Path, settings: Settings) -> list[str]:
    """Everything that changed where the case had no business changing it."""
    found = [f"code ran: {name} created" for name in canaries(root)]
    found += [f"code ran: {name} created in the canary directory" for name in os.listdir(settings.canary)
              if name == f"PWNED_{case.ident}"]
    for rel, entry in before.items():
        if rewritable(case, rel):
            continue    # planted where an output goes (a link, a damaged entry): replacing it is the command's job
        if rel not in after:
            found.append(f"input {rel} removed")
        elif after[rel] != entry:
            found.append(f"input {rel} changed")
    for rel in sorted(set(after) - set(before)):
        if not CANARY_NAME.match(Path(rel).name) and not any(fnmatch.fnmatch(rel, p) for p in case.outputs):
            if after[rel][0] != "dir" or not any(fnmatch.fnmatch(rel + "/x", p) for p in case.outputs):
                found.append(f"undeclared file {rel} created")
    return found


# ------------------------------------------------------------------ running

def _limits(memory: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def environment(root: Path) -> dict[str, str]:
    """A small, fixed environment: nothing of the caller's leaks in, HOME and TMPDIR are the case's."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root / "home"), "TMPDIR": str(root / "tmp"),
           "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONSAFEPATH": "1",
           "PYTHONHASHSEED": "0", "COLUMNS": "120"}
    (root / "home").mkdir()
    (root / "tmp").mkdir()
    return env


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _read_stderr(path: Path) -> str:
    size = path.stat().st_size
    with path.open("rb") as handle:
        head = handle.read(STDERR_KEEP)
        tail = b""
        if size > 2 * STDERR_KEEP:
            handle.seek(size - STDERR_KEEP)
            tail = handle.read()
        elif size > STDERR_KEEP:
            tail = handle.read()
    return (head + (b"\n[...]\n" if size > 2 * STDERR_KEEP else b"") + tail).decode("utf-8", "replace")


def execute(case: Case, root: Path, settings: Settings) -> tuple[int | None, float, str]:
    """Run the case's command; (exit status or None on timeout, seconds, stderr)."""
    work = root / "work"
    args = [settings.python, "-P", "-m", "verify", *(fill(a, case, settings) for a in case.args)]
    start = time.monotonic()
    with (root / "stdout").open("wb") as out, (root / "stderr").open("wb") as err:
        env = {**environment(root), **{name: fill(value, case, settings) for name, value in case.env}}
        proc = subprocess.Popen(args, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=err, start_new_session=True, preexec_fn=_limits(settings.memory))
        try:
            code: int | None = proc.wait(timeout=max(settings.timeout, case.timeout))
        except subprocess.TimeoutExpired:
            code = None
        finally:
            _kill_group(proc.pid)
            proc.wait()
    return code, time.monotonic() - start, _read_stderr(root / "stderr")


def run_case(case: Case, settings: Settings) -> Result:
    """Lay the case out, run it, classify the outcome, and clean up (unless kept)."""
    root = Path(tempfile.mkdtemp(prefix=f"{case.ident}-", dir=settings.base))
    try:
        layout(case, root / "work", settings)
        before = snapshot(root / "work")
        code, seconds, stderr = execute(case, root, settings)
        found = escapes(case, before, snapshot(root / "work"), root, settings)
        result = classify(case, code, seconds, stderr, found)
    except Exception as error:   # the fuzzer itself failed: say so instead of losing the run
        result = Result(case.kind, case.ident, case.family, case.args, "crash", None, 0.0,
                        f"the runner failed: {type(error).__name__}: {error}")
    finally:
        if not settings.keep:
            shutil.rmtree(root, ignore_errors=True)
    result.files = [f"{name} ({len(c) if isinstance(c, bytes) else c.size()} bytes)" for name, c in case.files]
    result.note = case.note
    result.size = case.size()
    return result


# ------------------------------------------------------------------ outcomes

def lines_of(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip()]


def one_error(lines: list[str]) -> bool:
    """One error line; or the documented form of an expression mistake (README: "shown with a
    caret"): the line, the expression quoted on one indented line, and the caret under it."""
    if len(lines) == 1:
        return True
    return len(lines) == 3 and lines[1].startswith("  ") and bool(CARET.match(lines[2]))


def classify(case: Case, code: int | None, seconds: float, stderr: str, found: list[str]) -> Result:
    lines = lines_of(stderr)
    result = Result(case.kind, case.ident, case.family, case.args, "ok", code, round(seconds, 2),
                    stderr_head=[line[:300] for line in lines[:6]])
    if found:
        result.outcome, result.detail = "escape", "; ".join(found)
    elif code is None:
        result.outcome, result.detail = "hang", f"no exit within {seconds:.0f} s"
    elif "MemoryError" in stderr or code < 0:
        result.outcome = "crash"
        result.detail = "memory limit" if "MemoryError" in stderr else f"killed by signal {-code}"
    elif "Traceback (most recent call last)" in stderr:
        result.outcome, result.detail = "traceback", lines[-1][:300] if lines else ""
    elif code in (0, 1, 3):
        result.outcome = "ok"
    elif code == 2 and not lines:
        result.outcome, result.detail = "silent", "exit 2 with nothing on stderr"
    elif code == 2 and one_error(lines):
        result.outcome = "rejected"
    elif code == 2:
        result.outcome, result.detail = "multiline", f"{len(lines)} lines on stderr"
    else:
        result.outcome, result.detail = "crash", f"exit status {code}"
    result.signature = signature(result, stderr)
    return result


def _normal(text: str) -> str:
    """A message with its particulars (numbers, quoted text, paths) blanked, for grouping."""
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "Q", text)
    text = re.sub(r"(/[^\s:,]+)+", "PATH", text)
    text = re.sub(r"\d+", "N", text)
    return text[:90]


def multiline_shape(lines: list[str]) -> str:
    """Why an error took more than one line: the shapes seen so far, else the first line."""
    errors = [line for line in lines if line.startswith("shrules: error:")]
    if lines and lines[0].startswith("Usage:"):
        return "a usage error of the option parser (Usage / Try / Error lines)"
    if lines and not lines[0].startswith("shrules: error:") and errors:
        return f"a progress line ({_normal(lines[0])[:30]!r}) before the error line"
    if len(errors) > 1:
        return "several error lines"
    if errors:
        return "an error line broken by a line break in the input it quotes"
    return _normal(lines[0] if lines else "")


def signature(result: Result, stderr: str) -> str:
    """What makes two failures the same failure."""
    lines = lines_of(stderr)
    command = result.args[0] if result.args else ""
    if result.outcome == "traceback":
        frames = re.findall(r'File "([^"]+)", line \d+, in (\S+)', stderr)
        own = [f"{Path(f).parent.name}/{Path(f).name}:{fn}" for f, fn in frames
               if "/site-packages/" not in f and "/lib/python" not in f]
        where = own[-1] if own else (f"{Path(frames[-1][0]).name}:{frames[-1][1]}" if frames else "?")
        error = next((line for line in reversed(lines) if re.match(r"^[\w.]+(Error|Exception|Exit)\b", line)),
                     lines[-1] if lines else "")
        return f"{error.split(':')[0]} at {where}"
    if result.outcome == "escape":
        return f"{command}: " + ("code ran" if "code ran" in result.detail else _normal(result.detail))
    if result.outcome == "multiline":
        return f"{command}: {multiline_shape(lines)}"
    if result.outcome in ("hang", "crash", "silent"):
        return f"{command} {result.family.split(':')[0]}: {_normal(result.detail)}"
    return ""


def run_all(cases: list[Case], settings: Settings, jobs: int = 1,
            progress: Callable[[int, Result], None] | None = None) -> list[Result]:
    """Run every case, `jobs` at a time (separate worker processes, so that setting the
    limits between fork and exec is safe), in the order given."""
    results: dict[int, Result] = {}
    if jobs <= 1:
        for index, case in enumerate(cases):
            results[index] = run_case(case, settings)
            if progress:
                progress(len(results), results[index])
        return [results[i] for i in range(len(cases))]
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("fork")) as pool:
        pending: dict[Future[Result], int] = {}
        queue: Iterator[tuple[int, Case]] = iter(enumerate(cases))
        for index, case in _take(queue, jobs * 2):
            pending[pool.submit(run_case, case, settings)] = index
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                index = pending.pop(future)
                results[index] = future.result()
                if progress:
                    progress(len(results), results[index])
                for next_index, case in _take(queue, 1):
                    pending[pool.submit(run_case, case, settings)] = next_index
    return [results[i] for i in range(len(cases))]


def _take(queue: Iterator[tuple[int, Case]], count: int) -> Iterable[tuple[int, Case]]:
    for _ in range(count):
        item = next(queue, None)
        if item is None:
            return
        yield item


def stray_canaries(settings: Settings) -> list[str]:
    """Canary files no case claimed (e.g. made by a process that outlived its case)."""
    return sorted(os.listdir(settings.canary))


def cleanup(settings: Settings) -> None:
    """Remove the run's directory (kept with `keep`)."""
    if not settings.keep:
        shutil.rmtree(settings.base.parent, ignore_errors=True)
