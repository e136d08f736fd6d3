"""`shrules mutate --scheduler`: the mutants decided on a Dask LocalCluster give the run
that local processes give."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from verify.cli import main

ARGS = ["mutate", "-n", "5", "--random-only", "--mutant", "3", "--json"]


def outcomes(text: str) -> list[tuple[int, str]]:
    data = json.loads(text)
    return sorted((item["number"], item["status"]) for item in data["outcomes"])


def test_mutants_on_a_cluster_are_decided_as_on_local_processes() -> None:
    distributed = pytest.importorskip("distributed")
    local = CliRunner().invoke(main, ARGS)
    assert local.exit_code == 0, local.stderr
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=50) as cluster:
        remote = CliRunner().invoke(main, [*ARGS, "--scheduler", cluster.scheduler_address])
    assert remote.exit_code == 0, remote.stderr
    assert outcomes(remote.stdout) == outcomes(local.stdout) and len(outcomes(local.stdout)) == 1
