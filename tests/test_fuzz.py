"""A bounded slice of the hostile-input fuzzer (tests/fuzz), run with the other tests.

Every input the command line reads comes from strangers: each case must end with a
verdict (exit 0, 1, 3) or one error line and exit 2 — no traceback, no hang, no crash,
no multi-line error, and no file created or changed outside what the case declared.
The slice is the known cases plus generated ones spread over every input kind; its size
and seed come from SHRULES_FUZZ_CASES (default 60) and SHRULES_FUZZ_SEED (default 1).
The long run is `python -m tests.fuzz --cases 1100 --seed 1 --jobs 2` (README).
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from fuzz import KINDS, Result
from fuzz import corpus as corpus_module
from fuzz import generate, report, runner
from fuzz.corpus import Corpus
from fuzz.model import Case

SLICE_CASES = int(os.environ.get("SHRULES_FUZZ_CASES", "60"))
SEED = int(os.environ.get("SHRULES_FUZZ_SEED", "1"))
TIMEOUT = runner.DEFAULT_TIMEOUT


class Run:
    """The slice, run once for the module: the cases, their results, run-level escapes."""

    def __init__(self, data: Corpus) -> None:
        self.corpus = data
        self.cases = generate.cases(SEED, SLICE_CASES, data)
        settings = runner.new_settings(sys.executable, TIMEOUT)
        try:
            self.results = runner.run_all(self.cases, settings, jobs=2)
            idents = {f"PWNED_{c.ident}" for c in self.cases}
            self.strays = [n for n in runner.stray_canaries(settings) if n not in idents]
        finally:
            runner.cleanup(settings)


@pytest.fixture(scope="module")
def data() -> Corpus:
    return corpus_module.build(sys.executable)


@pytest.fixture(scope="module")
def run(data: Corpus) -> Run:
    return Run(data)


def explain(bad: list[Result]) -> str:
    """Each bad case: kind, outcome, command, first stderr lines, and how to run it again."""
    parts = []
    for result in bad:
        lines = [f"{result.kind} {result.ident} [{result.outcome}] ({result.family}): {result.detail[:200]}",
                 f"  {report.command(result)}"]
        if result.files:
            lines.append(f"  files: {', '.join(result.files)}")
        lines += [f"  | {line[:200]}" for line in result.stderr_head[:4]]
        lines.append(f"  again: python -m tests.fuzz --seed {SEED} --only {result.ident} --keep /tmp/fuzz-case")
        parts.append("\n".join(lines))
    return f"{len(bad)} bad case(s):\n" + "\n".join(parts)


@pytest.mark.parametrize("kind", KINDS)
def test_hostile_input_is_refused_in_one_line(run: Run, kind: str) -> None:
    """No traceback, hang, crash, multi-line error or escape for any case of this kind."""
    if kind == "shio" and not run.corpus.shio_files:
        pytest.skip(run.corpus.shio_skip)
    mine = [r for r in run.results if r.kind == kind]
    assert mine, f"the slice has no {kind} case: raise SHRULES_FUZZ_CASES"
    bad = [r for r in mine if r.bad]
    assert not bad, explain(bad)


def test_no_canary_outside_a_case(run: Run) -> None:
    """Nothing lands in the canary directory that a case's own process did not make."""
    assert not run.strays, f"canary files no case made: {run.strays}"


def test_known_holes_are_in_the_slice(run: Run) -> None:
    """The reported hole (a parameter name that runs code) is always among the cases."""
    assert any(c.ident == "known-reported" for c in run.cases)


# ------------------------------------------------------------------ the fuzzer itself

def test_generation_is_deterministic(data: Corpus) -> None:
    """Same seed, same cases: a failing case can be made again from its identifier."""
    first = generate.cases(5, 24, data, with_known=False)
    again = generate.cases(5, 24, data, with_known=False)
    assert first == again
    assert generate.by_ident(first[7].ident, data) == first[7]


def test_every_kind_is_covered_even_by_a_small_run(data: Corpus) -> None:
    kinds = {c.kind for c in generate.cases(3, 30, data)}
    assert kinds == set(generate.available(data))


def _case(**changes: Any) -> Case:
    return dataclasses.replace(Case("cli", "unit-0", "unit", ("play",)), **changes)


@pytest.mark.parametrize(("code", "stderr", "outcome"), [
    (0, "", "ok"),
    (3, "checking\n", "ok"),
    (2, "shrules: error: v.toml:3 bad\n", "rejected"),
    (2, "shrules: error: --can expression: syntax error\n  1 +\n     ^\n", "rejected"),
    (2, "Usage: shrules play\nTry 'shrules play --help'\n\nError: bad\n", "multiline"),
    (2, "", "silent"),
    (1, "Traceback (most recent call last):\n  File \"x.py\", line 1, in f\nValueError: x\n", "traceback"),
    (None, "", "hang"),
    (-9, "", "crash"),
    (1, "Traceback (most recent call last):\nMemoryError\n", "crash"),
    (120, "", "crash"),
])
def test_outcomes(code: int | None, stderr: str, outcome: str) -> None:
    assert runner.classify(_case(), code, 1.0, stderr, []).outcome == outcome


def test_escapes_are_seen(tmp_path: Path) -> None:
    """A canary file, a changed input or an undeclared output is an escape; a declared output is not."""
    settings = runner.new_settings(sys.executable, base=tmp_path)
    case = _case(files=(("in.txt", b"x"),), outputs=("out.json",))
    work = tmp_path / "case" / "work"
    runner.layout(case, work, settings)
    before = runner.snapshot(work)
    (work / "out.json").write_text("{}")
    assert runner.escapes(case, before, runner.snapshot(work), work.parent, settings) == []
    (work / "in.txt").write_text("y")
    (work / "stray").write_text("")
    (work / "owned").write_text("")
    (settings.canary / "PWNED_unit-0").write_text("")
    found = runner.escapes(case, before, runner.snapshot(work), work.parent, settings)
    assert any("in.txt changed" in f for f in found)
    assert any("stray" in f for f in found)
    assert sum("code ran" in f for f in found) == 2


def test_a_write_through_a_planted_link_is_an_escape_and_replacing_it_is_not(tmp_path: Path) -> None:
    """The output-folder and cache cases plant links: one into the canary directory is only
    created by a write that followed it (an escape); replacing a planted declared output
    is the command's job (not an escape)."""
    settings = runner.new_settings(sys.executable, base=tmp_path)
    case = _case(ident="unit-2", files=(("victim.txt", b"x"),), outputs=("out/*",),
                 links=(("out/report.json", "@CANARY@/PWNED_@ID@"), ("out/junit.xml", "../victim.txt")),
                 env=(("SHRULES_CACHE", "cache"),))
    work = tmp_path / "case" / "work"
    runner.layout(case, work, settings)
    assert (work / "out" / "report.json").is_symlink()
    before = runner.snapshot(work)
    (work / "out" / "junit.xml").unlink()
    (work / "out" / "junit.xml").write_text("<new/>")
    assert runner.escapes(case, before, runner.snapshot(work), work.parent, settings) == []
    (work / "out" / "report.json").write_text("{}")      # through the link
    (work / "victim.txt").write_text("y")
    found = runner.escapes(case, before, runner.snapshot(work), work.parent, settings)
    assert any("canary directory" in f for f in found) and any("victim.txt changed" in f for f in found)


def test_placeholders_are_filled(tmp_path: Path) -> None:
    settings = runner.new_settings(sys.executable, base=tmp_path)
    case = _case(ident="unit-1", files=(("a", b"touch @CANARY@/PWNED_@ID@"),))
    runner.layout(case, tmp_path / "w", settings)
    assert (tmp_path / "w" / "a").read_text() == f"touch {settings.canary}/PWNED_unit-1"
    assert shlex.split(runner.fill("@CANARY@ @ID@", case, settings)) == [str(settings.canary), "unit-1"]


def test_shares_cover_the_count() -> None:
    kinds = list(KINDS)
    for count in (0, 1, 6, 64, 1100):
        split = generate.shares(count, kinds)
        assert sum(split.values()) == count
    assert min(generate.shares(64, kinds).values()) >= 1
