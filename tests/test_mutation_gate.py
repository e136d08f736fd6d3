"""The mutation gate of CI (verify/diff/gate.py): recorded kills must stay kills, and a
mutant the record does not know must be killed.

The records here are made by hand around one mutant each, so every run is a few seconds;
the repository's own record (reports/standard/mutation-5.json) is checked in full by
.ci/run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from spec.loader import load_spec
from verify.cli import main
from verify.diff.gate import SCHEMA, load_record, names

NOMINEE = "drop_requirement nominate: requirement 'chancellor != president' dropped"
REPORTS = Path(__file__).resolve().parents[1] / "reports"


@pytest.fixture(scope="module")
def named() -> dict[int, str]:
    return names(load_spec("standard"))


def record(path: Path, killed: list[str], others: dict[str, str]) -> Path:
    path.write_text(json.dumps({"schema": SCHEMA, "version": 1, "rules": "standard", "players": 5,
                                "killed": killed, "others": others}), encoding="utf-8")
    return path


def test_mutant_names_are_unique_and_stable(named: dict[int, str]) -> None:
    assert len(set(named.values())) == len(named) >= 500
    assert names(load_spec("standard")) == named
    assert NOMINEE in named.values()


def test_a_recorded_kill_that_still_kills_passes(tmp_path: Path, named: dict[int, str]) -> None:
    others = {key: "unknown" for key in named.values() if key != NOMINEE}
    result = CliRunner().invoke(main, ["mutate", "-n", "5", "--gate", str(record(tmp_path / "r.json", [NOMINEE],
                                                                                 others))])
    assert result.exit_code == 0, result.output
    assert "mutation gate: 1 mutants checked" in result.output and "passed" in result.output


def test_a_kill_lost_fails_the_gate_with_the_game(tmp_path: Path, named: dict[int, str]) -> None:
    """The catalogue cut down to one property that cannot see the nominee rule: the kill is lost."""
    others = {key: "unknown" for key in named.values() if key != NOMINEE}
    result = CliRunner().invoke(main, ["mutate", "-n", "5", "--property", "deck_conservation_liberal",
                                       "--gate", str(record(tmp_path / "r.json", [NOMINEE], others))])
    assert result.exit_code == 1, result.output
    assert "KILL LOST" in result.output and "FAILED (1 kills lost" in result.output
    assert "told apart from the rules by: " in result.output and "nominate(" in result.output


def test_a_new_mutant_must_be_killed(tmp_path: Path, named: dict[int, str]) -> None:
    others = {key: "unknown" for key in named.values() if key != NOMINEE}
    result = CliRunner().invoke(main, ["mutate", "-n", "5", "--gate", str(record(tmp_path / "r.json", [], others))])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, ["mutate", "-n", "5", "--property", "deck_conservation_liberal",
                                       "--gate", str(record(tmp_path / "r.json", [], others))])
    assert result.exit_code == 1 and "NEW, NOT KILLED" in result.output


@pytest.mark.parametrize("content, message", [
    ("{", "not JSON"),
    ('{"schema": "other", "version": 1}', "expected a mutation record"),
    (json.dumps({"schema": SCHEMA, "version": 1, "rules": "standard", "players": 5, "killed": [1], "others": {}}),
     "expected 'killed'"),
    (json.dumps({"schema": SCHEMA, "version": 1, "rules": "standard", "players": 7, "killed": [], "others": {}}),
     "records standard at 7 players"),
])
def test_a_bad_record_is_refused_with_exit_2(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(content, encoding="utf-8")
    result = CliRunner().invoke(main, ["mutate", "-n", "5", "--gate", str(path)])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_the_gate_is_for_one_count_and_every_mutant(tmp_path: Path) -> None:
    path = record(tmp_path / "r.json", [], {})
    assert CliRunner().invoke(main, ["mutate", "-n", "5,7", "--gate", str(path)]).exit_code == 2
    assert CliRunner().invoke(main, ["mutate", "-n", "5", "--cap", "3", "--gate", str(path)]).exit_code == 2


def test_a_record_written_by_a_run_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    result = CliRunner().invoke(main, ["mutate", "-n", "5", "--operator", "swap_branches", "--rule", "R-E7",
                                       "--random-only", "--record", str(path)])
    assert result.exit_code in (0, 3), result.output
    saved = load_record(path)
    assert saved.rules == "standard" and saved.players == 5
    assert saved.killed or saved.others


def test_the_repository_record_is_a_record() -> None:
    path = REPORTS / "standard" / "mutation-5.json"
    saved = load_record(path)
    assert (saved.rules, saved.players) == ("standard", 5)
    assert len(saved.killed) > len(saved.others), "the catalogue kills most mutants by random games alone"


def test_the_gate_kills_by_games_counted_not_by_a_timed_query(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mutant that a few hundred random games miss is killed by the gate's longer run of
    games, before the solver's timed query: with that query given no time at all (a busy
    machine), the kill stands. The mutant reads the pile's counts where a tile of it is
    known (chaos, R-E9), so conservation breaks only after a chaos following a peek."""
    import verify.diff.mutate as mutate
    from verify.diff.mutate import baseline_verdicts, decide
    from verify.diff.operators import mutants
    from verify.report.baseline import load_baseline
    from verify.results import Limits

    monkeypatch.setattr(mutate, "SOLVER_SECONDS", 0.001)
    monkeypatch.setattr(mutate, "RELATIONAL_SECONDS", 0.001)
    base = load_spec("standard")
    by_name = {name: number for number, name in names(base).items()}
    number = by_name["constant chaos: requirement: literal 0 -> 1"]
    mutant = next(m for m in mutants(base) if m.number == number)
    entries = load_baseline(Path(__file__).resolve().parents[1] / "reports" / "standard" / "verdicts.json")
    assert entries is not None
    verdicts = baseline_verdicts(entries, base, (5,))[5]
    outcome = decide(base, mutant, 5, verdicts, Limits(time_limit=300), complete=False)
    assert outcome.status == "killed", outcome.detail
    assert "random game" in outcome.detail
