"""Writing a report directory: every file of a run, or none presented as complete.

`write_report` (a `shrules check` run) and `write_mutation_report` (a `shrules mutate`
run) compute each file's text first and write afterwards, so a formatting error leaves
the directory as it was rather than half rewritten. Trace files of an earlier check that
this run did not produce are removed, so the directory describes one run only; the two
reports' files have different names and can share a directory.

The directory is the user's choice; what is inside it may not be (a folder others can
write to, a link planted there). Every file is written through `write_atomic` with the
directory as its root (spec/files.py): a link at a file's name is replaced, not written
through, and a link where `traces/` should be is refused (`SpecError`, exit 2) before
anything is removed or written.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spec.files import folder_within, write_atomic
from verify.results import PropertyResult, Refuted

from .html import report_html
from .junit import junit_xml
from .markdown import report_markdown
from .mutation import mutation_texts
from .records import (RunInfo, dumps, exit_status, fewest_trace_name, fewest_trace_of, report_document,
                      sorted_results, timings_document, trace_name, trace_of)
from .schema import validate_report

TRACES_DIR = "traces"
REPORT_FILES = ("report.json", "timings.json", "junit.xml", "report.md", "report.html")
"""The files of a check's report besides its traces (`report_texts`)."""
MUTATION_FILES = ("mutation.json", "mutation.md", "mutation.html")
"""The files of a mutation report (verify/report/mutation.py, `mutation_texts`)."""


@dataclass(frozen=True, slots=True)
class WrittenReport:
    """The files a report consists of, relative to its directory, and its exit status."""

    directory: Path
    files: tuple[str, ...]
    exit_status: int


def _trace_description(result: PropertyResult) -> str:
    rules = ", ".join(result.rule_ids)
    what = "counterexample to" if isinstance(result.verdict, Refuted) else "witness of"
    which = "a" if getattr(result.verdict, "lower_bound", None) is not None else "the shortest"
    return f"shrules: {which} {what} {result.property}, {result.players} players" + (
        f" [{rules}]" if rules else "")


def report_texts(results: Sequence[PropertyResult], run: RunInfo, changes: Sequence[Any] = ()) -> dict[str, str]:
    """Every file of the report (path relative to the report directory → text)."""
    ordered = sorted_results(results)
    document = report_document(ordered, run, changes)
    validate_report(document)
    texts = {
        "report.json": dumps(document),
        "timings.json": dumps(timings_document(ordered, run)),
        "junit.xml": junit_xml(ordered, run),
        "report.md": report_markdown(ordered, run, changes),
        "report.html": report_html(ordered, run, changes),
    }
    for result in ordered:
        # the formatting of Trace.save_itf, so `shrules replay` reads these files as it reads any
        trace = trace_of(result)
        if trace is not None:
            itf = trace.to_itf(_trace_description(result))
            texts[f"{TRACES_DIR}/{trace_name(result)}"] = json.dumps(itf, indent=1) + "\n"
        fewest = fewest_trace_of(result)
        if fewest is not None:
            itf = fewest.to_itf(f"shrules: a game reaching {result.property} with the fewest elected governments, "
                                f"{result.players} players")
            texts[f"{TRACES_DIR}/{fewest_trace_name(result)}"] = json.dumps(itf, indent=1) + "\n"
    return texts


def write_report(results: Sequence[PropertyResult], directory: str | Path, run: RunInfo,
                 changes: Sequence[Any] = ()) -> WrittenReport:
    """Write report.json, timings.json, junit.xml, report.md, report.html and traces/ into
    `directory` (created if needed); returns what was written."""
    texts = report_texts(results, run, changes)
    directory = Path(directory)
    traces = folder_within(directory, directory / TRACES_DIR)   # never a link: stale traces are removed there
    for stale in sorted(traces.glob("*.itf.json")):
        if f"{TRACES_DIR}/{stale.name}" not in texts:
            stale.unlink()
    _write_texts(directory, texts)
    return WrittenReport(directory, tuple(sorted(texts)), exit_status(results, changes))


def write_mutation_report(document: dict[str, Any], directory: str | Path) -> WrittenReport:
    """Write mutation.json, mutation.md and mutation.html of a mutation analysis (the run
    as `Run.to_json()` gives it) into `directory` (created if needed)."""
    texts = mutation_texts(document)
    directory = Path(directory)
    _write_texts(directory, texts)
    return WrittenReport(directory, tuple(sorted(texts)), int(document["exit_status"]))


def _write_texts(directory: Path, texts: dict[str, str]) -> None:
    """Write every file only once all their texts exist: a failure before leaves no half report.
    Each goes through `write_atomic` below `directory`, so no link inside it is followed."""
    for name, text in texts.items():
        write_atomic(directory / name, text, root=directory)
