"""Questions decided by the Z3 backend alone, at every player count asked (`ask --solver`).

`decide` (verify/lawyer/ask.py) answers a question the fastest way it can: the explicit
search finds the shortest game, the solver's proofs rest on the written hints of
spec/invariants.toml, and a yes at one count ends the question. Here every count is
decided by the solver alone, each on its own, with no explicit search and no written
hint: the strengthening invariants, the ranking and the distance are inferred
(`check_property(..., hints=False)`, verify/smt/infer.py), a `never` query is proved by
induction or refuted by the shortest game the solver finds, a `sometimes` query proved
impossible or witnessed by a game the engine replays. It shows what the solver decides
without help: for a new variant, a count too large to search, or a rules question nobody
wrote invariants for. A count the solver leaves undecided is reported as unknown, never
as an answer.

The counts are decided in worker processes, one count per task (the solver's support for
a rule set and count is built once there and shared by every question at that count); a
question travels to its worker as data (`Asked`), never as code.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import as_completed
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from spec.disputes import Dispute, load_disputes, query
from spec.errors import Location
from spec.properties import Property

from ..budgets import SOLVER_SECONDS
from ..results import Facts, Limits, PropertyResult, Unknown
from ..portfolio import Deadline, Request, decide, within
from ..rules import Rules
from ..workers import WorkerPool
from .answers import NO, UNKNOWN, YES, FormalAnswer, happens



@dataclass(frozen=True, slots=True)
class Asked:
    """A question as data a worker can rebuild: a catalogue entry by id, or an ad-hoc
    `--can`/`--never` query by its text."""

    rules: Rules                       # crosses as its name, hash and overlay (verify/rules.py)
    dispute: str = ""                  # a catalogue entry's id ("" for an ad-hoc query)
    catalogue: str | None = None       # the catalogue file, None for spec/disputes.toml
    kind: str = ""                     # an ad-hoc query: sometimes / never
    text: str = ""
    on: tuple[str, ...] = ()
    option: str = "--can"

    def query(self) -> Property:
        """The question's query, rebuilt from the rules (checked on load as any spec text)."""
        spec = self.rules.spec
        if self.dispute:
            found = _queries(self.rules, self.catalogue).get(self.dispute)
            if found is None:
                raise LookupError(f"no formal entry '{self.dispute}' in the catalogue")
            return found
        return query(spec, "question", self.kind, self.text, self.on, tuple(spec.player_counts),
                     where=Location(f"{self.option} expression"), show_caret=True)


@lru_cache(maxsize=4)
def _queries(rules: Rules, catalogue: str | None) -> dict[str, Property]:
    """The formal entries' queries by id, the catalogue read once per process (it takes
    about half a second, and a worker rebuilds every question at each count)."""
    entries = load_disputes(rules.spec, None if catalogue is None else Path(catalogue))
    return {entry.id: entry.query for entry in entries if entry.query is not None}


def asked_of(dispute: Dispute, rules: Rules, path: Path | None) -> Asked:
    """A catalogue entry as a question for the workers."""
    return Asked(rules, dispute.id, None if path is None else str(path))


class SolverAlone:
    """The Z3 backend with no written hint, as the portfolio's backend (verify/portfolio.py):
    each question's verdict by `check_property(..., hints=False)`, its strengthening
    invariants, ranking and distance inferred."""

    name = "smt"

    def decide(self, request: Request, deadline: Deadline) -> list[PropertyResult]:
        from .. import smt   # imported on use: z3 is a noticeable part of a second

        limits = within(request.limits, deadline)
        out = []
        for prop in request.properties:
            spec = request.rules.own(prop.rules).game(request.players).spec
            started = time.perf_counter()
            verdict = smt.check_property(spec, prop, request.players, limits, hints=False)
            # The wall time (`_count_task` adds the inference of the count's support to the first question).
            wall = round(time.perf_counter() - started, 3)
            out.append(PropertyResult(prop.name, request.players, prop.kind, prop.rule_ids, prop.expect, verdict,
                                      Facts(prop.description, prop.group, backend="smt", wall_seconds=wall)))
        return out

    def heard(self, request: Request, results: list[PropertyResult]) -> None:
        """Nothing is kept between requests."""


def decide_count(prop: Property, players: int, seconds: float, rules: Rules, first_game: bool = False
                 ) -> PropertyResult:
    """The solver's verdict on one query at one count, with inferred invariants only
    (`first_game`: a witness need not be a shortest game, `Limits.first_game`), decided
    by the portfolio's `solver_only` strategy (`players` is one the query is stated for)."""
    request = Request(rules, players, (prop,),
                      Limits(time_limit=seconds, first_game=first_game))
    (result,) = decide(request, None, strategy="solver_only", backends={"smt": SolverAlone()}).results
    return result


def _count_task(questions: tuple[Asked, ...], players: int, seconds: float, verbose: bool, first_game: bool = False
                ) -> list[tuple[int, PropertyResult]]:
    """Every question stated for `players`, decided in this worker: (its index, result; a
    game crosses to the parent as its moves, verify/results.py `Played`)."""
    from .. import smt   # imported on use: z3 is a noticeable part of a second

    out = []
    stated = [(index, asked, prop) for index, asked in enumerate(questions)
              for prop in (asked.query(),) if players in prop.players]
    rules_of = [asked.rules.own(prop.rules) for _, asked, prop in stated]
    per_rules = Counter(rules_of)
    stopped: dict[Rules, Unknown | None] = {}
    for (index, asked, prop), rules in zip(stated, rules_of):
        inferring = 0.0
        if rules not in stopped:    # the support of these rules, inferred once within all their questions' time
            begun = time.perf_counter()
            stopped[rules] = smt.build_once(rules.game(players).spec, players, True, False,
                                            Limits(time_limit=seconds), per_rules[rules])
            inferring = time.perf_counter() - begun
        verdict = stopped[rules]
        result = decide_count(prop, players, seconds, asked.rules, first_game) if verdict is None else \
            PropertyResult(prop.name, players, prop.kind, prop.rule_ids, prop.expect, verdict,
                           Facts(prop.description, prop.group, backend="smt", wall_seconds=0.0))
        # The first question on these rules at this count carries the inference's time.
        result = replace(result, facts=replace(result.facts,
                                               wall_seconds=round((result.facts.wall_seconds or 0.0) + inferring, 3)))
        out.append((index, result))
        if verbose:
            name = asked.dispute or asked.text
            print(f"  … {players} players: {name}: {said(result)} ({result.verdict.evidence.method}, "
                  f"{result.facts.wall_seconds or 0.0:.1f} s)", file=sys.stderr, flush=True)
    return out


def decide_all(questions: Sequence[Asked], counts: Iterable[int], seconds: float = SOLVER_SECONDS,
               workers: int = 1, verbose: bool = False, done: Callable[[int, float], None] | None = None,
               first_game: bool = False) -> list[tuple[PropertyResult, ...]]:
    """Each question's results at each of `counts` where it is stated, by the solver alone:
    one task per count, the largest first (the slowest), `workers` at a time; `done(count,
    seconds)` as each count ends."""
    asked = tuple(questions)
    for question in asked:      # each question's rules made here too, where its games are replayed when read
        question.query()
    results: list[list[PropertyResult]] = [[] for _ in asked]
    ordered = sorted(set(counts), reverse=True)
    started = time.perf_counter()

    def take(count: int, found: list[tuple[int, PropertyResult]]) -> None:
        for index, result in found:
            results[index].append(result)
        if done is not None:
            done(count, time.perf_counter() - started)

    if workers <= 1 or len(ordered) <= 1:
        for count in ordered:
            take(count, _count_task(asked, count, seconds, verbose, first_game))
    else:
        with WorkerPool(min(workers, len(ordered))) as pool:
            futures = {pool.submit(_count_task, asked, count, seconds, verbose, first_game): count
                       for count in ordered}
            for future in as_completed(futures):
                take(futures[future], future.result())
    return [tuple(sorted(found, key=lambda r: r.players)) for found in results]


def answer_of(prop: Property, results: tuple[PropertyResult, ...], rule_ids: tuple[str, ...],
              dispute: Dispute | None = None, grounds: str = "") -> FormalAnswer:
    """The answer from the solver's results: yes if a count shows it happening, no if every
    count is proved, else unknown (a count left undecided is never read as no)."""
    return FormalAnswer(prop, rule_ids, results, {}, dispute, grounds)


def every_count_decided(answer: FormalAnswer) -> bool:
    """Whether the solver decided every count it was asked (a yes at one count is not
    enough here: the point is what the solver decides at each)."""
    return bool(answer.results) and not any(isinstance(r.verdict, Unknown) for r in answer.results)


def said(result: PropertyResult) -> str:
    """One count's answer to the question: yes (with the game's length), no or unknown."""
    outcome = happens(result.verdict)
    if outcome is None:
        return UNKNOWN
    trace = getattr(result.verdict, "trace", None)
    return f"{YES}, {len(trace.steps)} moves" if outcome and trace is not None else YES if outcome else NO
