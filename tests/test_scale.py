"""The task runner (verify/scale): keys, the cache, resuming, local processes and a Dask
LocalCluster, a worker killed mid-run. The tasks are small rule sets whose soundness
properties a search of a few thousand states decides (a two-tile deck breaks at once;
tracks that start near their ends leave a game of a few rounds)."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from verify.scale import atlas
from verify.scale.cache import Cache
from verify.scale.run import Progress, run_all
from verify.scale.sweep import Space, soundness_properties, sweep_tasks
from verify.scale.tasks import Task, run_task

SMALL = Space(counts=(5,), powers=("none", "execution"), fixed=(("start_fascist", 4), ("start_liberal", 4)),
              sample=4, seed=3)
"""Four boards whose games are a few rounds long: a task takes a second or two."""


def small_tasks() -> list[Task]:
    return sweep_tasks(SMALL, soundness_properties(), max_states=50_000, time_limit=None, memory_limit=None)


def test_the_key_names_everything_that_decides_the_result() -> None:
    task = Task("custom[deck_fascist=5]", 5, ("terminates",))
    assert task.key == Task("custom[deck_fascist=5]", 5, ("terminates",)).key
    others = [Task("custom[deck_fascist=6]", 5, ("terminates",)), Task("custom[deck_fascist=5]", 6, ("terminates",)),
              Task("custom[deck_fascist=5]", 5, ("deadlock_free",)),
              Task("custom[deck_fascist=5]", 5, ("terminates",), max_states=10),
              Task("custom[deck_fascist=5]", 5, ("terminates",), explorer="sweep")]
    assert len({task.key} | {other.key for other in others}) == 6


def test_the_cache_keeps_whole_results_only(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    assert cache.get("ab" * 32) is None
    cache.put("ab" * 32, {"key": "ab" * 32, "value": 1})
    assert cache.get("ab" * 32) == {"key": "ab" * 32, "value": 1}
    cache.path("cd" * 32).parent.mkdir()
    cache.path("cd" * 32).write_text('{"key": "cdcd', encoding="utf-8")   # a half-written file of another writer
    assert cache.get("cd" * 32) is None
    assert not list(tmp_path.rglob("*.tmp"))


def test_a_broken_deck_is_refuted_with_its_shortest_game() -> None:
    result = run_task(Task("custom[deck_liberal=1; deck_fascist=1]", 5, soundness_properties(), max_states=20_000))
    json.dumps(result)                                  # plain data: crosses processes and machines
    verdicts = {item["property"]: item for item in result["results"]}
    assert verdicts["draw_finds_three"]["verdict"] == "refuted" and verdicts["draw_finds_three"]["game"]
    assert verdicts["fascist_policy_win"]["verdict"] == "no-witness"


class Stop(Exception):
    pass


CALLS: list[str] = []


def quick(task: Task) -> dict[str, Any]:
    """A stand-in for run_task where only the runner is under test."""
    return {"key": task.key, "rules": task.rules, "players": task.players}


def as_is(task: Task, result: Any, untrusted: str | None) -> dict[str, Any]:
    """The stand-ins' results believed as they are: only the runner is under test."""
    return dict(result)


def stopping_after_two(task: Task) -> dict[str, Any]:
    if len(CALLS) == 2:
        raise Stop
    CALLS.append(task.key)
    return quick(task)


def refusing(task: Task) -> dict[str, Any]:
    raise AssertionError(f"{task.label()} was run again although its result is kept")


@pytest.fixture(scope="module")
def undisturbed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """The small tasks run on two local processes, and where their results are kept."""
    folder = tmp_path_factory.mktemp("cache")
    seen: list[Progress] = []
    results = run_all(small_tasks(), Cache(folder), workers=2, progress=seen.append)
    assert seen[-1].done == seen[-1].total == 4 and seen[-1].rate > 0
    assert "4/4 done (0 cached)" in seen[-1].describe()
    return folder, results


def test_an_interrupted_run_resumes_and_a_repeated_run_pays_nothing(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    CALLS.clear()
    with pytest.raises(Stop):
        run_all(small_tasks(), cache, workers=1, function=stopping_after_two, check=as_is)
    kept = [task for task in small_tasks() if cache.get(task.key) is not None]
    assert len(kept) == 2
    seen: list[Progress] = []
    resumed = run_all(small_tasks(), cache, workers=1, progress=seen.append, function=quick, check=as_is)
    assert seen[0].cached == 2 and seen[-1].done == 4
    assert resumed == [quick(task) for task in small_tasks()]
    again = run_all(small_tasks(), cache, workers=2, function=refusing, check=as_is)
    assert [r["key"] for r in again] == [task.key for task in small_tasks()]


def test_a_dask_cluster_that_loses_a_worker_loses_no_result(
        tmp_path: Path, undisturbed: tuple[Path, list[dict[str, Any]]]) -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=50) as cluster, distributed.Client(cluster) as client:
        pids = list(client.run(os.getpid).values())
        killed: list[int] = []

        def kill_one(state: Progress) -> None:
            if state.done - state.cached == 1 and not killed:
                os.kill(pids[0], signal.SIGKILL)            # mid-run: the other tasks are queued or running
                killed.append(pids[0])

        results = run_all(small_tasks(), Cache(tmp_path), scheduler=cluster.scheduler_address, progress=kill_one)
    assert killed
    space = SMALL
    assert atlas.build(space, results) == atlas.build(space, undisturbed[1])
    assert all(Cache(tmp_path).get(task.key) is not None for task in small_tasks())


def test_an_unreachable_scheduler_is_one_clear_error(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    from spec.errors import SpecError
    with pytest.raises(SpecError, match="cannot reach a Dask scheduler"):
        run_all(small_tasks()[:1], Cache(tmp_path), scheduler="tcp://127.0.0.1:9", connect_timeout=1.0)


def other_version(task: Task) -> dict[str, Any]:
    return {"key": "0" * 64}


def test_a_worker_of_another_version_is_refused(tmp_path: Path) -> None:
    from spec.errors import SpecError
    with pytest.raises(SpecError, match="another version of shrules"):
        run_all(small_tasks()[:1], Cache(tmp_path), workers=1, function=other_version, check=as_is)
    assert not list(tmp_path.rglob("*.json"))


def dies_once(task: Task) -> dict[str, Any]:
    """The first call kills its process, as a worker lost to the kernel's OOM killer would die."""
    marker = Path(os.environ["SHRULES_TEST_MARKER"])
    if not marker.exists():
        marker.write_text("died", encoding="utf-8")
        os._exit(9)
    return quick(task)


def test_a_local_process_that_dies_costs_only_its_tasks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHRULES_TEST_MARKER", str(tmp_path / "marker"))
    results = run_all(small_tasks(), Cache(tmp_path / "cache"), workers=2, function=dies_once, check=as_is)
    assert (tmp_path / "marker").exists()
    assert results == [quick(task) for task in small_tasks()]


def test_a_scheduler_without_dask_installed_is_one_clear_error(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """`distributed` is the optional `scale` extra: a run given a scheduler without it
    says what to install, before any task runs."""
    from spec.errors import SpecError
    monkeypatch.setitem(sys.modules, "distributed", None)       # import distributed now raises ImportError
    with pytest.raises(SpecError, match=r"--scheduler needs Dask distributed.*shrules\[scale\]"):
        run_all(small_tasks()[:1], Cache(tmp_path), scheduler="tcp://127.0.0.1:9", connect_timeout=1.0)
    assert Cache(tmp_path).get(small_tasks()[0].key) is None
