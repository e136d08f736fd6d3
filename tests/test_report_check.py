"""`shrules check` with --report, --baseline and --update-baseline, end to end, and its
exit status 0 / 1 / 2 / 3 (kept fast: one player count, one property that a witness
settles in seconds, or a state limit that stops the search at once)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.trace import replay_itf
from verify.cli import main
from verify.report.schema import validate_report

WITNESS = ["check", "-n", "5", "-p", "liberal_policy_win", "-q"]


def shrules(*args: str) -> tuple[int, str]:
    outcome = CliRunner().invoke(main, list(args))
    assert outcome.exception is None or isinstance(outcome.exception, SystemExit), outcome.exception
    return outcome.exit_code, outcome.output


@pytest.fixture(scope="module")
def gate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, int, str]:
    """One run that writes a report and creates the baseline."""
    root = tmp_path_factory.mktemp("gate")
    code, output = shrules(*WITNESS, "--report", str(root / "report"), "--baseline", str(root / "reports"),
                           "--update-baseline")
    return root / "report", root / "reports", code, output


def test_exit_0_writes_the_report_and_the_baseline(gate: tuple[Path, Path, int, str]) -> None:
    report, reports, code, output = gate
    assert code == 0, output
    assert "liberal_policy_win, 5 players: (not in the baseline) → witness" in output
    document = json.loads((report / "report.json").read_text(encoding="utf-8"))
    validate_report(document)
    (record,) = document["results"]
    assert (record["property"], record["players"], record["verdict"], record["status"]) == (
        "liberal_policy_win", 5, "witness", "as-expected")
    assert (document["rules"], document["all_properties"], document["exit_status"]) == ("standard", False, 0)
    assert replay_itf(report / record["trace"]).ok
    for name in ("junit.xml", "report.md", "report.html", "timings.json"):
        assert (report / name).is_file(), name
    baseline = json.loads((reports / "standard" / "verdicts.json").read_text(encoding="utf-8"))
    assert baseline["verdicts"] == [{"expect": "holds", "kind": "sometimes", "players": 5,
                                     "property": "liberal_policy_win", "verdict": "witness"}]


def test_exit_1_prints_what_changed_since_the_baseline(gate: tuple[Path, Path, int, str], tmp_path: Path) -> None:
    _, reports, _, _ = gate
    changed = tmp_path / "standard" / "verdicts.json"
    changed.parent.mkdir()
    changed.write_text((reports / "standard" / "verdicts.json").read_text(encoding="utf-8")
                       .replace('"verdict": "witness"', '"verdict": "no-witness"'), encoding="utf-8")
    code, output = shrules(*WITNESS, "--baseline", str(tmp_path))
    assert code == 1, output
    assert "1 verdict changed (old → new):\n  liberal_policy_win, 5 players: no-witness → witness\n" in output


def test_exit_2_for_a_missing_baseline_before_any_search(tmp_path: Path) -> None:
    code, output = shrules(*WITNESS, "--baseline", str(tmp_path))
    assert code == 2
    assert "shrules: error: no baseline for the standard rules" in output and "Traceback" not in output
    assert "checking" not in output


def test_exit_3_when_a_limit_leaves_a_verdict_unknown(tmp_path: Path) -> None:
    code, output = shrules("check", "-n", "5", "-p", "tracks_in_range", "--max-states", "50", "-q",
                           "--report", str(tmp_path))
    assert code == 3, output
    document = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert document["results"][0]["verdict"] == "unknown" and document["results"][0]["reason"]
    assert 'skipped message="unknown: ' in (tmp_path / "junit.xml").read_text(encoding="utf-8")
