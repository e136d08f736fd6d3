"""Decide the property catalogue: every property for every player count, as typed verdicts.

`check(rules, players, properties, limits)` is the one entry point the command line,
reports and `diff` build on. It sits above the backends and chooses among them, every
count decided through the portfolio (verify/portfolio.py `decide`, the strategy
`strategy_for` names), in this process or a worker's (`decide_counts`, which the
runner's tasks call too, verify/scale/checks.py):

- `explicit`: the explicit-state search (verify/explicit/check.py `check_players`), one
  player count per process (`workers`, default: both cores), each returning its
  `PropertyResult`s, whose games cross as moves and are replayed when read;
- `smt`: the Z3 backend (verify/smt `check_players`, same arguments, returning
  `PropertyResult`s);
- `both`: the search first, the solver for what it left unknown; the solver also decides
  again the invariants the search decided (cheap for it): where the two disagree, the
  result is the verdict not as expected, so the check fails. Counts decided after
  another in the same process have the solver first, guided by the earlier witnesses,
  and the search only for what it left unknown (`_in_turn`).

A new backend is a room of its own with a `check_players` of the same shape, and a name
in `BACKENDS` here.
"""

from __future__ import annotations

import queue
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, wait
from contextlib import ExitStack
from multiprocessing.context import BaseContext
from typing import Any

from spec.errors import SpecError, shown
from spec.properties import Property

from .explicit.check import DEFAULT_EXPLORER, chosen_from, select
from .explicit.reductions import Reductions
from .portfolio import Backend, ExplicitBackend, Request, SolverBackend, decide, solver_check
from .results import Limits, PropertyResult
from .rules import Rules
from .workers import WorkerPool, worker_manager

BACKENDS = ("explicit", "smt", "both")


def _smt_backend() -> Callable[..., list[PropertyResult]] | None:
    """The Z3 backend's `check_players`, or None without it (verify/portfolio.py)."""
    return solver_check()


def check(rules: Rules, players: tuple[int, ...] | None = None,
          properties: tuple[str, ...] | None = None, limits: Limits = Limits(), *,
          reductions: Reductions = Reductions(), backend: str = "explicit", workers: int = 2,
          progress: Callable[[str], None] | None = None, explorer: str = DEFAULT_EXPLORER, infer: bool = False,
          hints: bool = True, mp_context: BaseContext | None = None) -> list[PropertyResult]:
    """Every selected property for every selected player count under `rules` (loaded once by
    the caller, verify/rules.py), sorted by property and count.

    `explorer` is the explicit backend's search (verify/explicit/check.py EXPLORERS);
    `infer` and `hints` go to the Z3 backend (`verify.smt.backend.backend_for`): strengthening
    invariants found in played games added to spec/invariants.toml's, or used alone.
    `mp_context`: how worker processes start (default: the platform's); the rules reach
    them as a value (`Rules`), so `spawn` works as `fork` does."""
    if backend not in BACKENDS:
        raise SpecError(f"backend must be one of {', '.join(BACKENDS)}, got {shown(backend)}")
    defined = rules.spec.player_counts
    counts = tuple(defined) if not players else players
    for count in counts:
        if count not in defined:
            rules.game(count)  # raises the R-S1 SpecError
    catalogue = select(rules, properties)
    by_name = {p.name: p for p in catalogue}
    names = tuple(by_name)
    if workers > 1 and len(counts) > 1:
        results = _in_processes(rules, counts, names, by_name, limits, reductions, explorer, backend, infer,
                                hints, workers, progress, mp_context)
    else:
        results = []
        turns = _in_turn(rules, counts, names, limits, reductions, explorer, backend, infer, hints, progress,
                         catalogue=catalogue)
        for count, decided in zip(counts, turns):
            results += decided
            if progress:
                progress(f"{count} players: done")
    order = {name: number for number, name in enumerate(names)}
    results.sort(key=lambda r: (order[r.property], r.players))
    return results


def _decide_count(rules: Rules, count: int, names: tuple[str, ...], limits: Limits,
                  reductions: Reductions, explorer: str, backend: str, infer: bool, hints: bool,
                  progress: Callable[[str], None] | None = None, *,
                  search: bool = True, solver_first: bool = False,
                  catalogue: tuple[Property, ...] | None = None) -> tuple[list[PropertyResult], bool]:
    """Every selected property at one player count, by the backends asked for, and
    whether the search was cut short: the portfolio (verify/portfolio.py) with the
    strategy `strategy_for` names."""
    catalogue = select(rules, names) if catalogue is None else chosen_from(catalogue, names)
    strategy = strategy_for(backend, search=search, solver_first=solver_first)
    if progress and strategy in ("solver_first", "solver_only"):
        why = ("the solver first" if strategy == "solver_first" else
               "the solver" if backend == "smt" else
               "not searched (a smaller count's search was cut short); the solver")
        progress(f"{count} players: {why}")
    decision = decide(Request(rules, count, catalogue, limits), None, strategy=strategy,
                      backends=backends_for(reductions, explorer, infer, hints, progress))
    return list(decision.results), "explicit" in decision.undecided_by


def strategy_for(backend: str, *, search: bool = True, solver_first: bool = False) -> str:
    """The portfolio's strategy for a `--backend` at one count: `explicit` the search alone,
    `smt` the solver alone; `both` the search cross-checked by the solver, or the solver
    first at a later count (guided by the earlier witnesses), or the solver alone above a
    count whose search was cut short."""
    if backend == "explicit":
        return "search_only"
    if backend == "smt" or not search:
        return "solver_only"
    return "solver_first" if solver_first else "cross_check"


def backends_for(reductions: Reductions, explorer: str, infer: bool, hints: bool,
                 progress: Callable[[str], None] | None = None) -> dict[str, Backend]:
    """The two backends with the options of the command line."""
    return {"explicit": ExplicitBackend(reductions, explorer, progress),
            "smt": SolverBackend(_smt_backend(), infer=infer, hints=hints)}


def decide_counts(rules: Rules, counts: tuple[int, ...], names: tuple[str, ...], limits: Limits,
                  reductions: Reductions, explorer: str, backend: str, infer: bool, hints: bool,
                  lines: Any = None) -> list[PropertyResult]:
    """Every one of `counts` decided in turn through the portfolio (`_in_turn`, one
    `decide` per count with the strategy `strategy_for` names, `search_only` for the
    explicit backend), in this process: what a worker of `check` runs, and a task of the
    runner (verify/scale/checks.py). A compiled game's states are classes made per
    process, so each game crosses as its moves and is replayed when read
    (verify/results.py `Played`). Progress lines go to the queue `lines`, when given.
    The rules come as a value (`Rules`), which a worker started by `spawn` loads again
    and refuses if they changed."""
    progress = None if lines is None else lines.put
    out: list[PropertyResult] = []
    for decided in _in_turn(rules, counts, names, limits, reductions, explorer, backend, infer, hints, progress):
        out += decided
    return out


def _in_turn(rules: Rules, counts: tuple[int, ...], names: tuple[str, ...], limits: Limits,
             reductions: Reductions, explorer: str, backend: str, infer: bool, hints: bool,
             progress: Callable[[str], None] | None, *,
             catalogue: tuple[Property, ...] | None = None) -> Iterator[list[PropertyResult]]:
    """`_decide_count` for each of `counts` in turn. With `both`, the first count is
    searched first: no witness is known yet to guide the solver, and `batches` puts a
    small count first, whose complete graph is cheap and gives the shortest witnesses.
    Every later count has the solver first, guided by those witnesses (a count sharing
    the board is then a quick query per witness, and induction proves the invariants in
    seconds), and is searched only for what the solver left unknown: its graph is larger,
    and a search cut short proves nothing (at 7 and 9 players the search's share of the
    default limit found three and one witnesses that the solver finds in seconds). A
    count above one whose search was cut short is left to the solver alone."""
    cut_at: int | None = None
    for index, count in enumerate(counts):
        decided, cut = _decide_count(rules, count, names, limits, reductions, explorer, backend, infer, hints,
                                     progress, search=cut_at is None or count < cut_at, solver_first=index > 0,
                                     catalogue=catalogue)
        if cut and (cut_at is None or count < cut_at):
            cut_at = count
        yield decided


def batches(counts: tuple[int, ...], backend: str, workers: int) -> list[tuple[int, ...]]:
    """The counts each worker task decides. Alone, or with as many counts as workers,
    one task per count, largest first (the longest). With the solver and more counts
    than workers, one task per worker, each from the smallest counts up: a small count
    first, whose search completes and whose witnesses guide the solver after it, then
    neighbouring counts in pairs, which mostly share a board, so the second count's
    witness searches are guided by the first's (verify/smt/guides.py, a store per
    process) and take a fraction of a second instead of many seconds each. Going up,
    each count after the first has the solver first and is searched only for what it
    left unknown (`_in_turn`): its graph is larger, and a search cut short would be time
    lost (5-10 players on two workers: 5, 7, 8 and 6, 9, 10)."""
    if backend == "explicit" or len(counts) <= workers:
        return [(count,) for count in sorted(counts, reverse=True)]
    ordered = sorted(counts)
    chains = [[head] for head in ordered[:workers]]
    rest = ordered[workers:]
    for number, start in enumerate(range(0, len(rest), 2)):
        chains[number % workers] += rest[start:start + 2]
    return [tuple(chain) for chain in chains]


def _in_processes(rules: Rules, counts: tuple[int, ...], names: tuple[str, ...], by_name: dict[str, Property],
                  limits: Limits, reductions: Reductions, explorer: str, backend: str, infer: bool, hints: bool,
                  workers: int, progress: Callable[[str], None] | None,
                  mp_context: BaseContext | None = None) -> list[PropertyResult]:
    """Player counts in worker processes (`batches`), search and solver together, so both
    cores work through the solver's share too; the largest counts start first, being the
    longest."""
    results: list[PropertyResult] = []
    with ExitStack() as stack:
        lines = stack.enter_context(worker_manager()).Queue() if progress else None
        tasks = batches(counts, backend, workers)
        pool = stack.enter_context(WorkerPool(min(workers, len(tasks)), mp_context))
        futures = {batch: pool.submit(decide_counts, rules, batch, names, limits, reductions, explorer,
                                      backend, infer, hints, lines)
                   for batch in tasks}
        pending = set(futures.values())
        while pending:
            finished, pending = wait(pending, timeout=PROGRESS_POLL, return_when=FIRST_COMPLETED)
            _forward(lines, progress)
            for batch, future in futures.items():
                if future in finished and progress:
                    for count in batch:
                        progress(f"{count} players: done")
        for batch in tasks:
            results += futures[batch].result()
    return results


PROGRESS_POLL = 0.3
"""Seconds between two looks at the workers' progress lines."""


def _forward(lines: Any, progress: Callable[[str], None] | None) -> None:
    """Every progress line the workers have sent so far, to `progress`."""
    while lines is not None and progress is not None:
        try:
            progress(lines.get_nowait())
        except queue.Empty:
            return


def catalogue_of(result: PropertyResult, catalogue: tuple[Property, ...]) -> Property | None:
    """The catalogue entry of a result."""
    return next((p for p in catalogue if p.name == result.property), None)
