"""`shrules check --scheduler/--cache`: the catalogue for each player count as a task of the
runner, so the counts of a check spread over a Dask cluster and a repeated check reads its
verdicts from the cache.

A task here is one count's check by the backends asked for, as verify/checker.py runs it
in a local process (`_counts_in_a_process`: the search, then the solver for what it left
unknown and as its cross-check; tasks.py keys it the same way as the sweep's tasks: rules,
count, properties, backend, limits, the solver's invariants); its result is the plain
`Raw` verdicts, which `materialise` turns into typed verdicts with every trace replayed
through the engine on this machine, exactly as verify/checker.py does for its local
processes. A result kept or returned is first checked (trust.py `check_raws`): each game
shows what it is kept for, and what no game shows is taken only from a cache no one else
can write.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from spec.errors import SpecError

from ..checker import _counts_in_a_process
from ..explicit.check import Raw, check_players, materialise, select
from ..explicit.reductions import Reductions
from ..results import PropertyResult
from .cache import Cache
from .run import Progress, TlsFiles, run_all
from .tasks import Task, canonical_form, forget_games, stamp
from .trust import check_raws

Result = dict[str, Any]


def run_raws(task: Task) -> Result:
    """One count's catalogue, as the `Raw` verdicts in plain data."""
    if task.backend == "explicit":
        raws = check_players(task.rules, task.players, task.properties or None, task.limits, explorer=task.explorer)
    else:
        names = task.properties or tuple(prop.name for prop in select(task.rules, None))
        raws = _counts_in_a_process(task.rules, (task.players,), names, task.limits, Reductions(), task.explorer,
                                    task.backend, task.infer, task.hints)
    form = canonical_form(task.rules, task.players)
    forget_games()
    return {"key": task.key, "rules": task.rules, "players": task.players, "form": form,
            "stamp": stamp(task.rules, task.players, select(task.rules, task.properties or None)),
            "raws": [asdict(raw) for raw in raws]}


def runner_tasks(rules: str, counts: tuple[int, ...], names: tuple[str, ...] | None, *, max_states: int | None,
                 time_limit: float | None, memory_limit: int | None, explorer: str, backend: str = "explicit",
                 infer: bool = False, hints: bool = True) -> list[Task]:
    """The tasks of `check_on_runner`: one count's catalogue each (also how a kept entry's
    key is found again, by the fuzzer's cache cases)."""
    solver = backend != "explicit"
    names_in_order = tuple(prop.name for prop in select(rules, names))
    return [Task(rules, count, names_in_order, backend, explorer, max_states, time_limit, memory_limit, "raws",
                 infer and solver, hints or not solver) for count in counts]


def check_on_runner(rules: str, counts: tuple[int, ...], names: tuple[str, ...] | None, *, max_states: int | None,
                    time_limit: float | None, memory_limit: int | None, explorer: str, workers: int,
                    scheduler: str | None, cache: Cache, backend: str = "explicit", infer: bool = False,
                    hints: bool = True, progress: Callable[[Progress], None] | None = None,
                    security: TlsFiles | None = None) -> list[PropertyResult]:
    """The catalogue for every count, decided by the runner (module docstring), sorted as
    verify/checker.py sorts: by property in catalogue order, then by count."""
    by_name = {prop.name: prop for prop in select(rules, names)}
    tasks = runner_tasks(rules, counts, names, max_states=max_states, time_limit=time_limit,
                         memory_limit=memory_limit, explorer=explorer, backend=backend, infer=infer, hints=hints)
    results = run_all(tasks, cache, workers=workers, scheduler=scheduler, progress=progress, function=run_raws,
                      check=check_raws, security=security)
    out = []
    for result in results:
        if "raws" not in result:
            raise SpecError(f"the cache holds a result of another kind under {result.get('key')}")
        for item in result["raws"]:
            out.append(materialise(Raw(**item), rules, by_name))
    order = {name: number for number, name in enumerate(by_name)}
    out.sort(key=lambda r: (order[r.property], r.players))
    return out
