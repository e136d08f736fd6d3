"""`shrules mutate --scheduler/--cache`: the mutants decided on a Dask LocalCluster give the
run that local processes give, and each outcome is kept, so a repeated run reads it back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from verify.cli import main
from verify.diff import mutate

ARGS = ["mutate", "-n", "5", "--random-only", "--mutant", "3", "--json"]


def outcomes(text: str) -> list[tuple[int, str]]:
    data = json.loads(text)
    return sorted((item["number"], item["status"]) for item in data["outcomes"])


def test_mutants_on_a_cluster_are_decided_as_on_local_processes(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHRULES_CACHE", str(tmp_path))      # --scheduler keeps outcomes in the default cache
    distributed = pytest.importorskip("distributed")
    local = CliRunner().invoke(main, ARGS)
    assert local.exit_code == 0, local.stderr
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=50) as cluster:
        remote = CliRunner().invoke(main, [*ARGS, "--scheduler", cluster.scheduler_address])
    assert remote.exit_code == 0, remote.stderr
    assert outcomes(remote.stdout) == outcomes(local.stdout) and len(outcomes(local.stdout)) == 1


def test_kept_outcomes_are_read_back_and_a_damaged_one_is_run_again(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    args = ["mutate", "-n", "5", "--random-only", "--mutant", "3", "--mutant", "4", "--json", "--workers", "1",
            "--cache", str(tmp_path)]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.stderr
    kept = sorted(tmp_path.rglob("*.json"))
    assert len(kept) == 2

    def not_again(*_: Any) -> Any:
        raise AssertionError("a kept mutant was decided again")
    decide = mutate.decide
    monkeypatch.setattr(mutate, "decide", not_again)
    again = CliRunner().invoke(main, args, catch_exceptions=False)
    assert again.exit_code == 0 and outcomes(again.stdout) == outcomes(first.stdout)
    kept[0].write_text(json.dumps({"key": kept[0].stem, "outcome": {"number": "three"}}), encoding="utf-8")
    monkeypatch.setattr(mutate, "decide", decide)
    mended = CliRunner().invoke(main, args, catch_exceptions=False)
    assert mended.exit_code == 0 and outcomes(mended.stdout) == outcomes(first.stdout)
    assert json.loads(kept[0].read_text(encoding="utf-8"))["outcome"]["number"] in (3, 4)
