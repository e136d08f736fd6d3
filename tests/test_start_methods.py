"""Every command that uses worker processes gives its verdicts under `spawn` and
`forkserver` too, not only under `fork`.

Under `fork` a worker is a copy of its parent and sees whatever the parent loaded, a
user's rules file and a variant's settings included; a worker started by `spawn` or
`forkserver` sees nothing of it, so it must get the rules as a value and load them
itself (verify/rules.py `Rules`). A worker started by `forkserver` is, besides, the
server's child, not the command's: a worker that took its parent for gone ended at once
(verify/workers.py). `multiprocessing.set_start_method` holds for the whole process, so
each command runs in a process of its own, started with `SHRULES_START_METHOD`, which
verify/workers.py `start_context` honours. Each run is a few seconds of 5-player search.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
METHODS = ("spawn", "forkserver")

HOUSE_RULE = """\
extends = "standard"
name = "house_tracker_kept"
description = "House rule: an enacted policy leaves the Election Tracker where it was"

[[rule]]
name = "enact"
effect = { election_tracker = "election_tracker" }
"""
"""A user's overlay: R-L6 says an enacted policy resets the Election Tracker; this one does
not, so `enactment_resets_tracker` is refuted under it within a few moves."""


def shrules(method: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`shrules ARGS` in a process of its own whose workers start by `method`."""
    environment = {**os.environ, "SHRULES_START_METHOD": method, "SHRULES_CACHE": str(cwd / "cache")}
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, (str(ROOT), environment.get("PYTHONPATH"))))
    return subprocess.run([sys.executable, "-m", "verify", *args], cwd=cwd, env=environment,
                          capture_output=True, text=True, timeout=240)


@pytest.mark.parametrize("method", METHODS)
def test_check_decides_two_counts_on_two_workers(method: str, tmp_path: Path) -> None:
    done = shrules(method, "check", "-n", "5,6", "-p", "tracks_in_range", "--workers", "2", "--time-limit", "120",
                   "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    verdicts = {(r["property"], r["players"]): r["verdict"] for r in json.loads(done.stdout)}
    assert verdicts == {("tracks_in_range", 5): "proved", ("tracks_in_range", 6): "proved"}


@pytest.mark.parametrize("method", METHODS)
def test_check_of_a_users_rules_file_on_workers(method: str, tmp_path: Path) -> None:
    """The overlay is loaded in each worker from the file, not copied from the parent."""
    (tmp_path / "house.toml").write_text(HOUSE_RULE, encoding="utf-8")
    done = shrules(method, "check", "--rules", "house.toml", "-n", "5,6", "-p", "enactment_resets_tracker",
                   "--workers", "2", "--time-limit", "120", "--json", cwd=tmp_path)
    assert done.returncode == 1, done.stderr       # the house rule breaks R-L6: not as expected
    verdicts = {r["players"]: r["verdict"] for r in json.loads(done.stdout)}
    assert verdicts == {5: "refuted", 6: "refuted"}


@pytest.mark.slow
@pytest.mark.parametrize("method", METHODS)
def test_diff_of_a_users_overlay_decides_its_catalogue_on_workers(method: str, tmp_path: Path) -> None:
    (tmp_path / "house.toml").write_text(HOUSE_RULE, encoding="utf-8")
    done = shrules(method, "diff", "standard", "house.toml", "-n", "5", "--workers", "2", "--time-limit", "20",
                   "--random-time", "2", "-p", "tracks_in_range", "-p", "enactment_resets_tracker",
                   "--property-time", "60", "--json", cwd=tmp_path)
    assert done.returncode == 1, done.stderr       # they differ
    found = json.loads(done.stdout)
    assert (found["b"], found["verdict"]) == ("house_tracker_kept", "differ")
    verdicts = {item["property"]: (item["a"], item["b"]) for item in found["properties"]}
    assert verdicts == {"tracks_in_range": ("proved", "proved"), "enactment_resets_tracker": ("proved", "refuted")}


@pytest.mark.slow
@pytest.mark.parametrize("method", METHODS)
def test_sweep_of_two_custom_games_on_two_workers(method: str, tmp_path: Path) -> None:
    done = shrules(method, "sweep", "-n", "5", "--sample", "2", "--workers", "2", "--time-limit", "60",
                   "--cache", str(tmp_path / "tasks"), "--report", str(tmp_path / "atlas"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "2 rule sets: 1 sound, 1 broken, 0 unknown" in done.stdout
    atlas = json.loads((tmp_path / "atlas" / "atlas.json").read_text(encoding="utf-8"))
    assert atlas["counts"] == {"sound": 1, "broken": 1, "unknown": 0}


@pytest.mark.slow
@pytest.mark.parametrize("method", METHODS)
def test_mutate_kills_two_mutants_on_two_workers(method: str, tmp_path: Path) -> None:
    done = shrules(method, "mutate", "-n", "5", "--mutant", "1", "--mutant", "2", "--workers", "2",
                   "--time-limit", "60", "--diff-time", "10", "--baseline", str(ROOT / "reports"), "--json",
                   cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    counts = json.loads(done.stdout)["counts"]
    assert counts == {"killed": 2, "equivalent": 0, "survived": 0, "unknown": 0, "invalid": 0}


@pytest.mark.slow
@pytest.mark.parametrize("method", METHODS)
def test_ask_by_the_solver_under_a_users_rules_file_on_two_workers(method: str, tmp_path: Path) -> None:
    """`ask --solver`: each question crosses to its worker with the rules as a value
    (verify/lawyer/solver.py `Asked`), loaded there from the file (a minute and a half on
    a busy machine: the solver infers its support at each count)."""
    (tmp_path / "house.toml").write_text(HOUSE_RULE, encoding="utf-8")
    done = shrules(method, "ask", "--solver", "--can", "liberal_policies == 1", "-n", "5,6", "--workers", "2",
                   "--rules", "house.toml", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["answer"] == "yes"
    assert {(count["players"], count["verdict"]) for count in found["players"]} == {(5, "witness"), (6, "witness")}


def test_an_unknown_start_method_is_bad_input(tmp_path: Path) -> None:
    done = shrules("fork-and-hope", "check", "-n", "5,6", "-p", "tracks_in_range", "--workers", "2",
                   cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("shrules: error: SHRULES_START_METHOD='fork-and-hope': expected one of "), \
        done.stderr
    assert "Traceback" not in done.stderr
