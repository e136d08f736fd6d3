"""The regression gate: the committed baseline of verdicts, what a change prints, and the
exit status of a checking command with --report, --baseline and --update-baseline."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from report_samples import PLAYERS, RUN, all_as_expected, sample_results, with_verdict
from spec.errors import SpecError
from verify.cli import ShrulesGroup
from verify.report import RunInfo, baseline
from verify.cli.options import ReportRequest, report_options
from verify.results import Evidence, PropertyResult, Unknown, Unwitnessed

NO_WITNESS = Unwitnessed(Evidence("explicit", 10))


def written_baseline(directory: Path, results: Sequence[PropertyResult], run: RunInfo = RUN) -> Path:
    path, _ = baseline.update(directory, results, run)
    return path


# ------------------------------------------------------------------ the file

def test_the_baseline_is_sorted_one_entry_per_line_and_byte_stable(tmp_path: Path) -> None:
    path = written_baseline(tmp_path / "a", sample_results())
    assert path == tmp_path / "a" / "standard" / "verdicts.json"
    shuffled = list(reversed(sample_results(seconds=5.0)))
    again = written_baseline(tmp_path / "b", shuffled)
    assert path.read_bytes() == again.read_bytes()
    text = path.read_text(encoding="utf-8")
    data = json.loads(text)
    assert (data["schema"], data["version"], data["rules"]) == ("shrules-verdicts", 1, "standard")
    lines = [line for line in text.splitlines() if line.startswith("    {")]
    assert len(lines) == len(data["verdicts"]) == len(sample_results())
    assert lines[0] == ('    {"expect": "holds", "kind": "always", "players": 5, "property": "chaos_finds_a_tile", '
                        '"verdict": "proved"},')
    keys = [(e["property"], e["players"]) for e in data["verdicts"]]
    assert keys == sorted(keys)
    assert "seconds" not in text and "states" not in text


def test_the_same_verdicts_compare_equal(tmp_path: Path) -> None:
    path = written_baseline(tmp_path, sample_results())
    loaded = baseline.load_baseline(path)
    assert loaded is not None
    assert baseline.compare(loaded, sample_results(seconds=2.0), RUN) == []


def test_a_changed_verdict_prints_property_count_old_and_new(tmp_path: Path) -> None:
    loaded = baseline.load_baseline(written_baseline(tmp_path, sample_results()))
    assert loaded is not None
    changed = with_verdict(sample_results(), "liberal_policy_win", 6, NO_WITNESS)
    changes = baseline.compare(loaded, changed, RUN)
    assert [str(c) for c in changes] == ["liberal_policy_win, 6 players: witness → no-witness"]
    assert changes[0].as_dict() == {"property": "liberal_policy_win", "players": 6, "field": "verdict",
                                    "old": "witness", "new": "no-witness"}


def test_a_changed_expectation_a_new_check_and_a_removed_one_are_changes(tmp_path: Path) -> None:
    loaded = baseline.load_baseline(written_baseline(tmp_path, sample_results()))
    assert loaded is not None
    results = [r for r in sample_results() if (r.property, r.players) != ("terminates", 6)]
    results = [r if (r.property, r.players) != ("nominee_eligible", 5) else
               PropertyResult(r.property, r.players, r.kind, r.rule_ids, "fails", r.verdict) for r in results]
    results.append(PropertyResult("brand_new", 5, "always", (), "holds", NO_WITNESS))
    assert [str(c) for c in baseline.compare(loaded, results, RUN)] == [
        "brand_new, 5 players: (not in the baseline) → no-witness",
        "nominee_eligible, 5 players: expect holds → fails",
        "terminates, 6 players: proved → (not checked any more)",
    ]


def test_entries_the_run_did_not_cover_are_neither_compared_nor_lost(tmp_path: Path) -> None:
    path = written_baseline(tmp_path, sample_results())
    only_five = [r for r in sample_results() if r.players == 5]
    five = RunInfo("standard", (5,), "explicit")
    loaded = baseline.load_baseline(path)
    assert loaded is not None
    assert baseline.compare(loaded, only_five, five) == []
    selected = [r for r in only_five if r.property == "terminates"]
    assert baseline.compare(loaded, selected, RunInfo("standard", (5,), "explicit", all_properties=False)) == []
    assert [str(c) for c in baseline.compare(loaded, selected, five)][:1] == [
        "chaos_finds_a_tile, 5 players: proved → (not checked any more)"]
    _, written = baseline.update(tmp_path, with_verdict(only_five, "terminates", 5, NO_WITNESS), five)
    assert [str(c) for c in written] == ["terminates, 5 players: proved → no-witness"]
    reloaded = baseline.load_baseline(path)
    assert reloaded is not None and len(reloaded) == len(sample_results())
    assert reloaded[("terminates", 6)].verdict == "proved" and reloaded[("terminates", 5)].verdict == "no-witness"


@pytest.mark.parametrize("text,message", [
    ("{", "verdicts.json:1: the baseline is not JSON"),
    ('{"schema": "other"}', "not a shrules baseline"),
    ('{"schema": "shrules-verdicts", "version": 9, "verdicts": []}', "baseline version 9"),
    ('{"schema": "shrules-verdicts", "version": 1, "verdicts": [{"property": "x"}]}',
     r"verdicts\[0\]: an entry has exactly the keys"),
    ('{"schema": "shrules-verdicts", "version": 1, "verdicts": [{"property": "x", "players": 5, "kind": "always", '
     '"expect": "holds", "verdict": "fine"}]}', "verdict must be one of"),
])
def test_a_malformed_baseline_is_bad_input_naming_the_file(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "verdicts.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError, match=message) as caught:
        baseline.load_baseline(path)
    assert str(path) in str(caught.value)


def test_a_missing_baseline_is_none() -> None:
    assert baseline.load_baseline(Path("/nonexistent/standard/verdicts.json")) is None


# ------------------------------------------------------------------ the command line

def command_with(results: list[PropertyResult]) -> click.Group:
    """A shrules-like group whose `check` returns the given results, with the report options."""
    @click.group(cls=ShrulesGroup)
    def group() -> None:
        """test group"""

    @group.command()
    @click.option("--players", "-n", default="5,6")
    @report_options
    def check(players: str, report: ReportRequest) -> None:
        """Return canned verdicts."""
        counts = tuple(int(p) for p in players.split(","))
        run = RunInfo("standard", counts, "explicit")
        report.validate(run.rules)
        raise SystemExit(report.finish([r for r in results if r.players in counts], run))

    return group


def invoke(results: list[PropertyResult], *args: str) -> tuple[int, str]:
    outcome = CliRunner().invoke(command_with(results), ["check", *args])
    assert outcome.exception is None or isinstance(outcome.exception, SystemExit), outcome.exception
    return outcome.exit_code, outcome.output


def test_exit_0_when_every_verdict_is_as_expected_and_none_changed(tmp_path: Path) -> None:
    written_baseline(tmp_path, all_as_expected())
    code, output = invoke(all_as_expected(), "--baseline", str(tmp_path))
    assert code == 0, output
    assert "no verdict changed (10 compared)" in output


def test_exit_1_and_the_changes_when_a_verdict_differs_from_the_baseline(tmp_path: Path) -> None:
    written_baseline(tmp_path, all_as_expected())
    changed = with_verdict(all_as_expected(), "nominee_eligible", 6, NO_WITNESS)
    code, output = invoke(changed, "--baseline", str(tmp_path), "--report", str(tmp_path / "out"))
    assert code == 1
    assert "1 verdict changed (old → new):\n  nominee_eligible, 6 players: refuted → no-witness\n" in output
    document = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    assert document["exit_status"] == 1 and document["baseline_changes"][0]["new"] == "no-witness"
    assert "## Changed since the baseline" in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")


def test_exit_1_when_a_verdict_is_not_as_expected_even_without_a_baseline() -> None:
    code, _ = invoke([r for r in sample_results() if r.as_expected is not None])
    assert code == 1


def test_exit_2_for_a_missing_or_malformed_baseline(tmp_path: Path) -> None:
    code, output = invoke(all_as_expected(), "--baseline", str(tmp_path))
    assert code == 2
    assert output.startswith("shrules: error: no baseline for the standard rules:")
    assert "--update-baseline" in output and "Traceback" not in output
    (tmp_path / "standard").mkdir()
    (tmp_path / "standard" / "verdicts.json").write_text("[]", encoding="utf-8")
    code, output = invoke(all_as_expected(), "--baseline", str(tmp_path))
    assert code == 2 and "not a shrules baseline" in output
    assert not (tmp_path / "report").exists()


def test_exit_3_when_a_limit_was_hit(tmp_path: Path) -> None:
    unknown = Unknown(Evidence("explicit", 10, None, 3), "state limit 10 reached")
    results = with_verdict(all_as_expected(), "terminates", 5, unknown)
    code, _ = invoke(results, "--report", str(tmp_path))
    assert code == 3
    assert json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))["exit_status"] == 3


def test_update_baseline_writes_it_and_the_next_run_passes(tmp_path: Path) -> None:
    changed = with_verdict(all_as_expected(), "terminates", 6, NO_WITNESS)
    code, output = invoke(changed, "--baseline", str(tmp_path), "--update-baseline")
    assert code == 1  # the new verdict is still not as expected; the baseline records it anyway
    assert "rewritten, 10 verdicts changed" in output
    code, output = invoke(changed, "--baseline", str(tmp_path))
    assert code == 1 and "no verdict changed" in output
    code, output = invoke(all_as_expected(), "--baseline", str(tmp_path), "--update-baseline", "-n", "6")
    assert code == 0 and "terminates, 6 players: no-witness → proved" in output
    loaded = baseline.load_baseline(tmp_path / "standard" / "verdicts.json")
    assert loaded is not None and {players for _, players in loaded} == set(PLAYERS)


def test_bare_update_baseline_writes_under_reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, output = invoke(all_as_expected(), "--update-baseline")
    assert code == 0 and (tmp_path / "reports" / "standard" / "verdicts.json").is_file(), output


def test_help_lists_the_report_options() -> None:
    outcome = CliRunner().invoke(command_with([]), ["check", "--help"])
    assert outcome.exit_code == 0
    for option in ("--report", "--baseline", "--update-baseline", "--players"):
        assert option in outcome.output
