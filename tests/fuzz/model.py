"""The vocabulary of the fuzzer: a case to run, the content of its files, and its result.

A case is pure data (picklable, no callables) so that the runner can hand it to a worker
process and so that a failing case can be written out and run again by hand. Paths and
text may hold two placeholders, filled in only when the case is laid out in its temporary
directory: `@CANARY@` (the run's absolute canary directory, which must stay empty) and
`@ID@` (the case's identifier, so a file the tool was tricked into creating names the
case that did it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

CANARY = "@CANARY@"
"""Placeholder for the absolute canary directory of the run."""

IDENT = "@ID@"
"""Placeholder for the case identifier (letters, digits and '-' only)."""

KINDS = ("spec", "transcript", "shio", "itf", "expr", "cli", "cache", "atlas", "invariants", "outputs")
"""Input kinds: variant/spec TOML, native transcripts, secrethitler.io logs, ITF traces,
dispute/property expressions and catalogues, command lines, task-cache entries and atlases
(kept files a stranger wrote first: tests/fuzz/gen_kept.py), invariant cache files
(tests/fuzz/gen_invariants.py), output folders with links and odd files planted in them
(tests/fuzz/gen_outputs.py)."""

OUTCOMES = ("ok", "rejected", "traceback", "hang", "crash", "multiline", "silent", "escape")
"""How a case can end. `ok` (exit 0/1/3: a verdict) and `rejected` (exit 2 with one line)
are the only acceptable ones."""

BAD_OUTCOMES = ("traceback", "hang", "crash", "multiline", "silent", "escape")


@dataclass(frozen=True, slots=True)
class Repeat:
    """File content too large to hold for every case: `head + unit * times + tail`,
    written in chunks when the case is laid out."""

    head: bytes
    unit: bytes
    times: int
    tail: bytes = b""

    def size(self) -> int:
        return len(self.head) + len(self.unit) * self.times + len(self.tail)


Content = bytes | Repeat


@dataclass(frozen=True, slots=True)
class Case:
    """One hostile input and the command line that feeds it to `python -m verify`.

    `files` are laid out relative to the case's working directory; `fifos` become named
    pipes there; `links` symbolic links (name, target: a target inside the canary
    directory is created only by a write that followed the link); `env` is added to the
    command's environment (`SHRULES_CACHE`); `timeout` is longer than the run's for a
    command whose legitimate work takes longer. `outputs` are glob patterns (relative to the
    working directory) of files the command may legitimately create, or replace where
    something was planted, such as the `--trace` it was asked to write.
    `family` names the way the input was made, so that findings group by cause."""

    kind: str
    ident: str
    family: str
    args: tuple[str, ...]
    files: tuple[tuple[str, Content], ...] = ()
    outputs: tuple[str, ...] = ()
    fifos: tuple[str, ...] = ()
    note: str = ""
    links: tuple[tuple[str, str], ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    timeout: float = 0.0    # seconds it may take when more than the run's timeout (0: the run's)

    def size(self) -> int:
        """Bytes of input, used to pick the smallest example of a failure."""
        return sum(len(c) if isinstance(c, bytes) else c.size() for _, c in self.files) + sum(map(len, self.args))


@dataclass(slots=True)
class Result:
    """What running a case did. `detail` says why an outcome is bad; `stderr_head` holds
    the first lines of the error output for the report."""

    kind: str
    ident: str
    family: str
    args: tuple[str, ...]
    outcome: str
    returncode: int | None
    seconds: float
    detail: str = ""
    stderr_head: list[str] = field(default_factory=list)
    signature: str = ""
    files: list[str] = field(default_factory=list)
    note: str = ""
    size: int = 0

    @property
    def bad(self) -> bool:
        return self.outcome in BAD_OUTCOMES
