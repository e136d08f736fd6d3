"""`shrules check --scheduler/--cache`: the catalogue for each player count as a task of the
runner, so the counts of a check spread over a Dask cluster and a repeated check reads its
verdicts from the cache.

A task here is one count's check by the backends asked for, as verify/checker.py runs it
in a local process (verify/checker.py `decide_counts`: through the portfolio, the search
alone for `explicit`, else the search, then the solver for what it left unknown and as
its cross-check; tasks.py keys it the same way as the sweep's tasks: rules,
count, properties, backend, limits, the solver's invariants); its result is the
verdicts as JSON data (`as_data`), which `from_data` turns into typed verdicts whose
games are replayed through the engine on this machine when read. A result kept or returned is first checked (trust.py `check_raws`): each game
shows what it is kept for, and what no game shows is taken only from a cache no one else
can write.

The kept form is JSON (`as_data`, read back by `from_data`): the verdict's name, its
evidence, its game as moves, its message or reason, and the facts by name. It is read
here, at the edge, into the typed verdicts; nothing past it compares verdict names.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any


from spec.errors import SpecError
from spec.properties import Property

from ..checker import decide_counts
from ..explicit.check import STANDARD, select
from ..explicit.reductions import Reductions
from ..results import (Evidence, Facts, Played, PropertyResult, Proved, Refuted, StopReason, Unknown, Unwitnessed,
                       Vacuous, Verdict, VerdictKind, Witnessed)
from ..rules import Rules
from .cache import Cache
from .run import Progress, TlsFiles, run_all
from .tasks import Task, canonical_form, forget_games, stamp
from .trust import check_raws

Result = dict[str, Any]


def run_raws(task: Task) -> Result:
    """One count's catalogue decided through the portfolio (verify/checker.py
    `decide_counts`, for every backend), its verdicts as JSON data (`as_data`)."""
    rules = Rules.named(task.rules)     # a task names its rules (its key, its cache entry): loaded here once
    names = task.properties or tuple(prop.name for prop in select(rules, None))
    raws = decide_counts(rules, (task.players,), names, task.limits, Reductions(), task.explorer, task.backend,
                         task.infer, task.hints)
    form = canonical_form(task.rules, task.players)
    forget_games()
    return {"key": task.key, "rules": task.rules, "players": task.players, "form": form,
            "stamp": stamp(task.rules, task.players, select(rules, task.properties or None)),
            "raws": [as_data(result) for result in raws]}


def _moves(game: Played | None) -> list[Any] | None:
    return None if game is None else [[rule, list(args)] for rule, args in game.moves]


def as_data(result: PropertyResult) -> dict[str, Any]:
    """A result as the JSON data a task keeps: the games as moves (`from_data` reads it)."""
    verdict, facts = result.verdict, result.facts
    extra: dict[str, Any] = {**facts.given(), "reductions": list(facts.reductions)}
    if facts.fewest_elections_game is not None:
        extra["fewest_elections_moves"] = _moves(facts.fewest_elections_game)
    if facts.longest_game is not None:
        extra["longest_game_moves"] = _moves(facts.longest_game)
    message = ""
    game: Played | None = None
    match verdict:
        case Refuted() | Witnessed():
            game = verdict.played
            if verdict.lower_bound is not None:
                extra["shortest_at_least"] = verdict.lower_bound
            message = verdict.message if isinstance(verdict, Refuted) else ""
        case Vacuous():
            game, message = verdict.played, verdict.premise
            if game is not None:
                extra["premise_rules"] = game.rules
        case Unknown():
            message = verdict.reason
            extra["stop"] = verdict.stop.value
        case Proved() | Unwitnessed():
            pass
    return {"property": result.property, "players": result.players, "verdict": verdict.verdict.value,
            "evidence": asdict(verdict.evidence), "moves": _moves(game), "message": message,
            "value": verdict.value if isinstance(verdict, Proved) else None, "extra": extra}


def _played(rules: str, players: int, moves: Any) -> Played | None:
    """Kept moves as a game of `rules`, replayed now (a kept game that is not one is refused)."""
    if moves is None:
        return None
    game = Played(rules, players, tuple((str(rule), tuple(int(arg) for arg in args)) for rule, args in moves))
    game.trace      # noqa: B018  # replayed here, where the kept file is read: a broken game fails at the edge
    return game


def from_data(item: dict[str, Any], rules: str, props: dict[str, Property]) -> PropertyResult:
    """The typed result of kept JSON data (`as_data`), its games replayed under the rules
    of its property (monitored rules for the order of play; the standard rules for a
    vacuous verdict's game: trust.py refuses any other name)."""
    prop = props[item["property"]]
    players: int = item["players"]
    extra: dict[str, Any] = item.get("extra") or {}
    evidence = Evidence(**item["evidence"])
    own = prop.rules or rules
    kind = VerdictKind.parse(item["verdict"])
    game = _played(STANDARD if kind is VerdictKind.VACUOUS else own, players, item.get("moves"))
    bound = extra.get("shortest_at_least")
    bound = bound if isinstance(bound, int) and not isinstance(bound, bool) else None
    message: str = item.get("message") or ""
    verdict: Verdict
    match kind:
        case VerdictKind.PROVED:
            verdict = Proved(evidence, item.get("value"))
        case VerdictKind.REFUTED:
            verdict = Refuted(evidence, game, message, bound)
        case VerdictKind.WITNESS:
            verdict = Witnessed(evidence, game, game.trace.elections() if game else None, bound)
        case VerdictKind.NO_WITNESS:
            verdict = Unwitnessed(evidence)
        case VerdictKind.VACUOUS:
            verdict = Vacuous(evidence, message, game)
        case VerdictKind.UNKNOWN:
            stops = {stop.value: stop for stop in StopReason}
            verdict = Unknown(evidence, message, stops.get(str(extra.get("stop")), StopReason.OTHER))
    facts = Facts(prop.description, prop.group, backend=str(extra.get("backend", "")),
                  reductions=tuple(str(r) for r in extra.get("reductions") or ()),
                  reachable_states=extra.get("reachable_states"), fewest_elections=extra.get("fewest_elections"),
                  fewest_elections_game=_played(own, players, extra.get("fewest_elections_moves")),
                  longest_moves=extra.get("longest_moves"), longest_elections=extra.get("longest_elections"),
                  longest_game=_played(own, players, extra.get("longest_game_moves")),
                  stuck_states=extra.get("stuck_states"), cycle_moves=extra.get("cycle_moves"),
                  backends_disagree=str(extra.get("backends_disagree", "")))
    return PropertyResult(prop.name, players, prop.kind, prop.rule_ids, prop.expect, verdict, facts)


def runner_tasks(rules: Rules, counts: tuple[int, ...], names: tuple[str, ...] | None, *, max_states: int | None,
                 time_limit: float | None, memory_limit: int | None, explorer: str, backend: str = "explicit",
                 infer: bool = False, hints: bool = True) -> list[Task]:
    """The tasks of `check_on_runner`: one count's catalogue each (also how a kept entry's
    key is found again, by the fuzzer's cache cases)."""
    solver = backend != "explicit"
    names_in_order = tuple(prop.name for prop in select(rules, names))
    return [Task(rules.name, count, names_in_order, backend, explorer, max_states, time_limit, memory_limit, "raws",
                 infer and solver, hints or not solver) for count in counts]


def check_on_runner(rules: Rules, counts: tuple[int, ...], names: tuple[str, ...] | None, *, max_states: int | None,
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
            out.append(from_data(item, rules.name, by_name))
    order = {name: number for number, name in enumerate(by_name)}
    out.sort(key=lambda r: (order[r.property], r.players))
    return out
