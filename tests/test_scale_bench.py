"""`shrules bench --sweep`: measured figures, never assumed; a board stopped by the time
limit is counted as unknown at the limit."""

from __future__ import annotations

import json

from click.testing import CliRunner

from verify.cli import main
from verify.scale.bench import CLUSTER_CORES, SweepFigure, estimate


def test_the_figures_are_measured_and_the_unknown_counted() -> None:
    done = CliRunner().invoke(main, ["bench", "--sweep", "-n", "5", "--sample", "1", "--seconds", "1",
                                     "--no-scaling", "--json"])
    assert done.exit_code == 0, done.stderr
    figure = json.loads(done.stdout.splitlines()[0])
    assert figure["players"] == 5 and figure["rule_sets"] == 1 and figure["unknown"] == 1
    assert figure["one_worker_seconds"] > 0 and figure["mean_cpu_seconds"] > 0 and figure["scaling"] is None


def test_the_cluster_estimate_is_the_cpu_seconds_of_every_board_over_the_cores() -> None:
    figure = SweepFigure(5, 4, 100.0, 52.0, 25.0, 64.0, 0, 600.0)
    assert round(figure.scaling or 0, 2) == 1.92
    assert abs(figure.cluster_hours() - 3125 * 64.0 / CLUSTER_CORES / 3600) < 1e-9
    assert "3,125 rule sets" in estimate([figure]) and f"on {CLUSTER_CORES} cores" in estimate([figure])
