"""The report and baseline options of `shrules check`, reusable by any checking command.

    @click.command()
    @report_options
    def check(..., report: ReportRequest) -> None:
        report.validate(rules_name)                 # bad baseline: exit 2 before the long run
        results = ...                               # list[PropertyResult]
        raise SystemExit(report.finish(results, RunInfo(rules_name, counts, backend)))

`report_options` adds `--report DIR`, `--baseline DIR` and `--update-baseline` and hands
the command one `ReportRequest` instead of three parameters. `finish` writes the report,
compares with (or rewrites) the baseline, prints what changed, and returns the exit
status: 0 every verdict as expected and none changed; 1 a verdict not as expected or
changed since the baseline; 3 a limit was hit (unknown) and nothing else went wrong.
Bad input (an unreadable or malformed baseline, a missing one without
--update-baseline) raises `SpecError`, which the shrules group turns into exit 2.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import click

from spec.errors import SpecError
from verify.outputs import writable
from verify.results import PropertyResult

from . import baseline
from .records import RunInfo, exit_status
from .writer import write_report

DEFAULT_BASELINE = Path("reports")


@dataclass(frozen=True, slots=True)
class ReportRequest:
    """What the command line asked for: a report directory, a baseline to compare with or
    to rewrite. All empty: nothing is written and the exit status is the verdicts' own."""

    report_dir: Path | None = None
    baseline_dir: Path | None = None
    update_baseline: bool = False

    @property
    def baseline_root(self) -> Path | None:
        """The baseline directory in use: --baseline, or reports/ for a bare --update-baseline."""
        if self.baseline_dir is not None:
            return self.baseline_dir
        return DEFAULT_BASELINE if self.update_baseline else None

    def validate(self, rules: str) -> None:
        """Refuse a baseline that cannot be used, before any checking is done."""
        rules = rules_name(rules)  # loads the rules now, before the run: finish reuses the name
        writable(self.report_dir, "--report", directory=True)
        root = self.baseline_root
        if self.update_baseline:
            writable(root, "--baseline", directory=True)
        if root is None:
            return
        if root.exists() and not root.is_dir():
            raise SpecError(f"--baseline {root}: not a directory")
        path = baseline.baseline_path(root, rules)
        found = baseline.load_baseline(path)        # SpecError when malformed
        if found is None and not self.update_baseline:
            raise SpecError(f"no baseline for the {rules} rules: {path} does not exist; "
                            f"create it with --baseline {root} --update-baseline")

    def finish(self, results: Sequence[PropertyResult], run: RunInfo,
               echo: Callable[[str], Any] = click.echo) -> int:
        """Write the report, compare with or update the baseline, print the changes; the exit status."""
        run = replace(run, rules=rules_name(run.rules))
        self.validate(run.rules)
        changes: list[baseline.Change] = []
        root = self.baseline_root
        if root is not None and self.update_baseline:
            path, written = baseline.update(root, results, run)
            echo(f"baseline {path}: rewritten, {_changes(len(written))}")
            for change in written:
                echo(f"  {change}")
        elif root is not None:
            path = baseline.baseline_path(root, run.rules)
            found = baseline.load_baseline(path) or {}
            changes = baseline.compare(found, results, run)
            if changes:
                echo(f"baseline {path}: {_changes(len(changes))} (old → new):")
                for change in changes:
                    echo(f"  {change}")
                echo(f"if the change is intended, rewrite the baseline with --baseline {root} --update-baseline")
            else:
                echo(f"baseline {path}: no verdict changed ({len(results)} compared)")
        if self.report_dir is not None:
            written_report = write_report(results, self.report_dir, run, changes)
            traces = sum(1 for name in written_report.files if name.startswith("traces/"))
            echo(f"report written to {self.report_dir}: report.md, report.html, junit.xml, report.json, "
                 f"timings.json, {traces} trace{'' if traces == 1 else 's'}")
        return exit_status(results, changes)


@functools.lru_cache(maxsize=64)
def rules_name(rules: str) -> str:
    """The rules' own name (`spec/variants/rebalance.toml` → `rebalance`), which names the
    baseline directory and the report; `SpecError` when the rules do not load. Cached, so
    the name found before a run is the name after it, whatever happens to the files."""
    from spec.loader import load_spec

    return load_spec(rules).name


def _changes(count: int) -> str:
    return "no verdict changed" if count == 0 else f"{count} verdict{'' if count == 1 else 's'} changed"


OPTIONS = (
    click.option("--report", "report_dir", type=click.Path(file_okay=False, path_type=Path),
                 help="Write report.json, junit.xml, report.md, report.html, timings.json and traces/ "
                      "into this directory."),
    click.option("--baseline", "baseline_dir", type=click.Path(file_okay=False, path_type=Path),
                 help="Compare the verdicts with DIR/<rules>/verdicts.json; any change exits 1 "
                      "and is printed as property, players: old → new."),
    click.option("--update-baseline", is_flag=True,
                 help="Rewrite the baseline (--baseline DIR, default reports/) with this run's verdicts."),
)


def report_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """Add --report, --baseline and --update-baseline to a click command; the command
    receives them as one keyword argument `report: ReportRequest`."""
    @functools.wraps(function)
    def wrapper(*args: Any, report_dir: Path | None, baseline_dir: Path | None, update_baseline: bool,
                **kwargs: Any) -> Any:
        return function(*args, report=ReportRequest(report_dir, baseline_dir, update_baseline), **kwargs)

    decorated: Callable[..., Any] = wrapper
    for option in reversed(OPTIONS):
        decorated = option(decorated)
    return decorated
