"""Decide the property catalogue: every property for every player count, as typed verdicts.

`check(spec_name, players, properties, limits)` is the one entry point the command line,
reports and `diff` build on. It sits above the backends and chooses among them:

- `explicit`: the explicit-state search (verify/explicit/check.py `check_players`), one
  player count per process (`workers`, default: both cores), each returning plain data
  (moves, not compiled games) that the parent replays into traces;
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
from dataclasses import replace
from functools import partial
from typing import Any

from engine.game import compiled_game
from spec.errors import SpecError, shown
from spec.loader import load_spec
from spec.properties import Property

from .budgets import BOTH_SEARCH_SHARE
from .explicit.check import DEFAULT_EXPLORER, Raw, check_players, chosen_from, materialise, plain, select
from .explicit.reductions import Reductions
from .results import Evidence, Limits, PropertyResult, Refuted, Unknown, Verdict, Witnessed
from .workers import WorkerPool, worker_manager

BACKENDS = ("explicit", "smt", "both")


def load_spec_counts(spec_name: str) -> range:
    """The player counts the rules are defined for."""
    return load_spec(spec_name).player_counts


def _smt_backend() -> Callable[..., list[PropertyResult]] | None:
    # Imported on use, not at the top: verify.smt imports z3, which takes a noticeable
    # part of a second, and the default explicit backend never needs it.
    try:
        from .smt import check_players
    except ImportError:
        return None
    return check_players


def check(spec_name: str = "standard", players: tuple[int, ...] | None = None,
          properties: tuple[str, ...] | None = None, limits: Limits = Limits(), *,
          reductions: Reductions = Reductions(), backend: str = "explicit", workers: int = 2,
          progress: Callable[[str], None] | None = None, explorer: str = DEFAULT_EXPLORER, infer: bool = False,
          hints: bool = True) -> list[PropertyResult]:
    """Every selected property for every selected player count, sorted by property and count.

    `explorer` is the explicit backend's search (verify/explicit/check.py EXPLORERS);
    `infer` and `hints` go to the Z3 backend (`verify.smt.check.backend_for`): strengthening
    invariants found in played games added to spec/invariants.toml's, or used alone."""
    if backend not in BACKENDS:
        raise SpecError(f"backend must be one of {', '.join(BACKENDS)}, got {shown(backend)}")
    defined = load_spec_counts(spec_name)
    counts = tuple(defined) if not players else players
    for count in counts:
        if count not in defined:
            compiled_game(count, spec_name)  # raises the R-S1 SpecError
    catalogue = select(spec_name, properties)
    by_name = {p.name: p for p in catalogue}
    names = tuple(by_name)
    if workers > 1 and len(counts) > 1:
        results = _in_processes(spec_name, counts, names, by_name, limits, reductions, explorer, backend, infer,
                                hints, workers, progress)
    else:
        results = []
        turns = _in_turn(spec_name, counts, names, limits, reductions, explorer, backend, infer, hints, progress,
                         catalogue=catalogue)
        for count, decided in zip(counts, turns):
            results += decided
            if progress:
                progress(f"{count} players: done")
    order = {name: number for number, name in enumerate(names)}
    results.sort(key=lambda r: (order[r.property], r.players))
    return results


def _decide_count(spec_name: str, count: int, names: tuple[str, ...], limits: Limits, reductions: Reductions,
                  explorer: str, backend: str, infer: bool, hints: bool,
                  progress: Callable[[str], None] | None = None, *,
                  search: bool = True, solver_first: bool = False,
                  catalogue: tuple[Property, ...] | None = None) -> tuple[list[PropertyResult], bool]:
    """Every selected property at one player count, by the backends asked for, and
    whether the search was cut short. `both`: the search first, then the solver for what
    it left unknown and as its cross-check; with `solver_first`, the solver first and the
    search only for what the solver left unknown; without `search`, the solver alone (a
    smaller count's search was already cut short, and this count's graph is larger)."""
    catalogue = select(spec_name, names) if catalogue is None else chosen_from(catalogue, names)
    by_name = {p.name: p for p in catalogue}
    results: list[PropertyResult] = []
    cut = False
    if backend == "both" and (solver_first or not search):
        if progress:
            why = "the solver first" if search else "not searched (a smaller count's search was cut short); the solver"
            progress(f"{count} players: {why}")
        results = _with_smt(results, spec_name, (count,), catalogue, limits, "smt", infer, hints)
        left = tuple(r.property for r in results if isinstance(r.verdict, Unknown))
        if not search or not left:
            return results, False
        raws = check_players(spec_name, count, left, _search_share(limits), reductions, progress, explorer,
                             catalogue=catalogue)
        searched = {result.property: result for result in (materialise(raw, spec_name, by_name) for raw in raws)}
        cut = any(isinstance(result.verdict, Unknown) for result in searched.values())
        return [searched.get(r.property, r) if isinstance(r.verdict, Unknown) else r for r in results], cut
    if backend in ("explicit", "both"):
        searched_limits = _search_share(limits) if backend == "both" else limits
        raws = check_players(spec_name, count, names, searched_limits, reductions, progress, explorer,
                             catalogue=catalogue)
        results = [materialise(raw, spec_name, by_name) for raw in raws]
        cut = any(isinstance(result.verdict, Unknown) for result in results)
        if backend == "both":
            _keep_witnesses(spec_name, results)
    if backend in ("smt", "both"):
        if progress:
            progress(f"{count} players: the solver")
        results = _with_smt(results, spec_name, (count,), catalogue, limits, backend, infer, hints)
    return results, cut


def _search_share(limits: Limits) -> Limits:
    """`both`: the limits of a count's search, `BOTH_SEARCH_SHARE` of its time."""
    if limits.time_limit is None:
        return limits
    return replace(limits, time_limit=limits.time_limit * BOTH_SEARCH_SHARE)


def _keep_witnesses(spec_name: str, results: list[PropertyResult]) -> None:
    """The search's witnesses as guides for the solver at the counts this process decides
    next (verify/smt/guides.py): a count sharing the board, or a win no power decides
    (five Liberal policies take 49 moves at every count), then has its shortest game
    in one guided query. A guide is only tried at the proved lower bound's length."""
    try:
        from .smt.guides import keep_guide
    except ImportError:
        return
    spec = load_spec(spec_name)
    for result in results:
        if isinstance(result.verdict, Witnessed) and result.verdict.trace is not None:
            keep_guide(spec, result.property, [move.rule for move, _ in result.verdict.trace.steps])




def _counts_in_a_process(spec_name: str, counts: tuple[int, ...], names: tuple[str, ...], limits: Limits,
                         reductions: Reductions, explorer: str, backend: str, infer: bool, hints: bool,
                         lines: Any = None) -> list[Raw]:
    """`_decide_count` in a worker process for each of `counts` in turn, the results as
    plain data: a compiled game's states are classes made per process, so traces cross
    as their moves. Progress lines go to the queue `lines`, when given."""
    progress = None if lines is None else lines.put
    out: list[Raw] = []
    if backend == "explicit":
        for count in counts:
            out += check_players(spec_name, count, names, limits, reductions, progress, explorer)
        return out
    for decided in _in_turn(spec_name, counts, names, limits, reductions, explorer, backend, infer, hints, progress):
        out += [plain(result) for result in decided]
    return out


def _in_turn(spec_name: str, counts: tuple[int, ...], names: tuple[str, ...], limits: Limits,
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
        decided, cut = _decide_count(spec_name, count, names, limits, reductions, explorer, backend, infer, hints,
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


def _in_processes(spec_name: str, counts: tuple[int, ...], names: tuple[str, ...], by_name: dict[str, Property],
                  limits: Limits, reductions: Reductions, explorer: str, backend: str, infer: bool, hints: bool,
                  workers: int, progress: Callable[[str], None] | None) -> list[PropertyResult]:
    """Player counts in worker processes (`batches`), search and solver together, so both
    cores work through the solver's share too; the largest counts start first, being the
    longest."""
    results: list[PropertyResult] = []
    with ExitStack() as stack:
        lines = stack.enter_context(worker_manager()).Queue() if progress else None
        tasks = batches(counts, backend, workers)
        pool = stack.enter_context(WorkerPool(min(workers, len(tasks))))
        futures = {batch: pool.submit(_counts_in_a_process, spec_name, batch, names, limits, reductions, explorer,
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
            results += [materialise(raw, spec_name, by_name) for raw in futures[batch].result()]
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


def _with_smt(results: list[PropertyResult], spec_name: str, counts: tuple[int, ...],
              catalogue: tuple[Property, ...], limits: Limits, backend: str, infer: bool = False,
              hints: bool = True) -> list[PropertyResult]:
    found = _smt_backend()
    smt = None if found is None else partial(found, infer=infer, hints=hints)
    wanted = [(p, n) for p in catalogue for n in counts if n in p.players]
    if backend == "both":
        wanted = [(p, n) for p, n in wanted
                  if any(r.property == p.name and r.players == n and isinstance(r.verdict, Unknown) for r in results)]
    kept = [r for r in results if (catalogue_of(r, catalogue), r.players) not in wanted]
    for prop, count in wanted:
        if smt is None:
            reason = "the smt backend (verify/smt) is not available"
            previous = next((r for r in results if r.property == prop.name and r.players == count), None)
            if previous is not None:
                kept.append(previous)
            else:
                kept.append(PropertyResult(prop.name, count, prop.kind, prop.rule_ids, prop.expect,
                                           Unknown(Evidence("smt"), reason)))
        else:
            kept += smt(spec_name, count, (prop.name,), limits)
    if backend == "both" and smt is not None:
        kept = [_cross_check(result, spec_name, catalogue, limits, smt) for result in kept]
    return kept


CROSS_CHECKED = ("always", "never", "allows", "only", "shows", "terminates", "deadlock_free", "in_range")
"""`both`: kinds the solver decides cheaply (by induction) where the search decided them too."""


def _cross_check(result: PropertyResult, spec_name: str, catalogue: tuple[Property, ...], limits: Limits,
                 smt: Callable[..., list[PropertyResult]]) -> PropertyResult:
    """The search's verdict, checked by the solver: when both decide and disagree, the
    result is the one of the two verdicts that is not as expected, naming both."""
    prop = catalogue_of(result, catalogue)
    if prop is None or prop.kind not in CROSS_CHECKED or isinstance(result.verdict, Unknown):
        return result
    if (result.extra or {}).get("backend") == "smt":
        return result
    other = smt(spec_name, result.players, (prop.name,), limits)
    if not other or isinstance(other[0].verdict, Unknown) or other[0].verdict.holds == result.verdict.holds:
        return result
    note = f"the backends disagree: explicit {result.verdict.verdict}, smt {other[0].verdict.verdict}"
    wrong = result if result.as_expected is False else other[0]
    verdict: Verdict = wrong.verdict
    if isinstance(verdict, Refuted):
        verdict = replace(verdict, message=f"{note}; {verdict.message}")
    else:
        verdict = replace(verdict, evidence=replace(verdict.evidence, note=note))
    return replace(result, verdict=verdict, extra={**result.extra, "backends_disagree": note})


def catalogue_of(result: PropertyResult, catalogue: tuple[Property, ...]) -> Property | None:
    """The catalogue entry of a result."""
    return next((p for p in catalogue if p.name == result.property), None)
