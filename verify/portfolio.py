"""One decision pipeline: which checker decides a request, in what order, and for how long.

A `Request` is what is asked: the rules as a value (`Rules`: the loaded `Spec`, its name
and content hash), one player count, the properties, the limits each backend call gets.
`decide(request, deadline, strategy=..., backends=...)` runs the backends in the order
the named strategy gives and returns every property's result:

- `search_only`: the explicit search alone (`check`'s default backend);
- `search_first`: the search, then the solver for what it left unknown;
- `solver_first`: the solver, then the search (with `search_share` of the time) for what
  the solver left unknown (a later count in a process, guided by earlier witnesses);
- `solver_only`: the solver alone (a count above one whose search was cut short);
- `cross_check`: the search with `search_share` of the time, its witnesses heard by the
  solver (guides for later counts), the solver for what it left unknown, and the solver's
  proofs again for what the search claims about every state, of the kinds it decides
  cheaply (`CROSS_CHECKED`, `over_every_state`), each for no longer than the search took:
  where the two disagree, the result is the verdict not as expected, naming both;
- the rules lawyer's (verify/lawyer/ask.py, one question at one count): `proof_first`
  and `proof_first_inferring` (a `never` question: the solver's inductive proofs, then
  the search; where invariants may be inferred, a search bounded in states and the
  inferred proof before the full search), `proofs_alone` and `proofs_alone_inferring`
  (a count above one whose search hit its limit), `prover_beside` and `prover_alone` (a
  `sometimes` question: the proof from the process beside, the search, the solver's full
  check), `catalogue_count` (the catalogue's entries at one count, sharing one search)
  and `beliefs` (what a player knows).

Each turn is a `Step`: a backend's name and what the turn may take at most (seconds,
stored states, the solver's proofs alone). `Once` wraps a backend asked at most once per
count, for callers that pass over the counts more than once.

A backend (`Backend`) decides a request within a deadline; what it cannot decide it
returns as `Unknown` (or, where an earlier turn's reason should stand, not at all), and
no strategy turns an unknown into a verdict: a property only ever gets a backend's own
verdict. The limits' seconds are seconds of work for the explicit searches
(verify/clock.py); a deadline is a wall-clock moment. The explicit backend runs the layered search by
default (verify/explicit/check.py `DEFAULT_EXPLORER`), its layers breadth-first over
a set of every state taken where the rules have no ranking; `explore` is the same search for a
caller that wants the exploration itself (the rules lawyer reads blocked moves off it).

`Rules` (verify/rules.py) crosses into worker processes as its name, content hash and,
for an overlay registered in this process (a temporal query's monitors), the overlay
itself: a worker started by `spawn` loads the same rules and refuses them if they changed
meanwhile.
This room imports the solver only inside the functions that use it (z3 is slow to load).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Protocol

from spec.errors import SpecError, shown
from spec.properties import Property

from .budgets import BOTH_SEARCH_SHARE, CROSS_CHECK_FLOOR_SECONDS, CROSS_CHECK_SECONDS, SEARCH_FIRST_STATES, SMT_FIRST_SECONDS
from .explicit.check import DEFAULT_EXPLORER, Searched, check_players, search
from .explicit.explore import Exploration
from .explicit.model import Model
from .explicit.reductions import Reductions
from .results import Evidence, Limits, PropertyResult, Refuted, Unknown, Verdict, Witnessed
from .clock import work_seconds
from .rules import Rules

__all__ = ["Backend", "Decision", "ExplicitBackend", "Once", "Request", "Rules", "SolverBackend", "Step",
           "Strategy", "decide",
           "explore", "solver_check"]


# ---------------------------------------------------------------------- requests and backends


@dataclass(frozen=True, slots=True)
class Request:
    """One player count's properties under the rules, with the limits of each backend's
    call: the search's for the whole search, the solver's for each property."""

    rules: Rules
    players: int
    properties: tuple[Property, ...]
    limits: Limits = Limits()


Deadline = float | None
"""A `time.perf_counter()` moment the decision must end by (None: none but the limits)."""


def left(deadline: Deadline) -> float | None:
    """The seconds left until `deadline` (None without one; never below 0)."""
    return None if deadline is None else max(0.0, deadline - time.perf_counter())


def within(limits: Limits, deadline: Deadline, share: float = 1.0) -> Limits:
    """`limits` with its time cut to `share` of it and to what is left until `deadline`."""
    seconds = limits.time_limit if limits.time_limit is None else limits.time_limit * share
    remaining = left(deadline)
    if remaining is not None:
        seconds = remaining if seconds is None else min(seconds, remaining)
    return limits if seconds == limits.time_limit else replace(limits, time_limit=seconds)


class Backend(Protocol):
    """A checker deciding a request: every property's result, `Unknown` where it could not
    decide within the request's limits and the deadline."""

    name: str

    def decide(self, request: Request, deadline: Deadline) -> list[PropertyResult]:
        """Every property of `request` at its count, in any order."""
        ...

    def heard(self, request: Request, results: list[PropertyResult]) -> None:
        """What another backend decided for `request`, to be used for later requests (the
        solver keeps the search's witnesses as guides)."""
        ...


def unknown(prop: Property, players: int, method: str, reason: str) -> PropertyResult:
    """A property left undecided, and why."""
    return PropertyResult(prop.name, players, prop.kind, prop.rule_ids, prop.expect,
                          Unknown(Evidence(method), reason))


class Once:
    """`backend` asked at most once per player count: asked again (a later pass over the
    counts with more time), it returns no result, so what the backends before it found
    stands (a search's reason for stopping is not overwritten). For a backend whose
    second try would only repeat the first: the solver's proofs do not improve with a
    longer share of the question's time, where a search does."""

    def __init__(self, backend: Backend) -> None:
        self.backend, self.name = backend, backend.name
        self.asked: set[int] = set()

    def decide(self, request: Request, deadline: Deadline) -> list[PropertyResult]:
        if request.players in self.asked:
            return []
        self.asked.add(request.players)
        return self.backend.decide(request, deadline)

    def heard(self, request: Request, results: list[PropertyResult]) -> None:
        self.backend.heard(request, results)


class ExplicitBackend:
    """The explicit-state search (verify/explicit/check.py): the layered one by default."""

    name = "explicit"

    def __init__(self, reductions: Reductions = Reductions(), explorer: str = DEFAULT_EXPLORER,
                 progress: Callable[[str], None] | None = None, *, stop_on: frozenset[str] = frozenset(),
                 fewest_elections: bool = True) -> None:
        """`stop_on` and `fewest_elections` as for verify/explicit/check.py `check_game`:
        the mutation analysis stops a mutant's search at the first hit of a property
        whose verdict one hit overturns, and counts no elections."""
        self.reductions, self.explorer, self.progress = reductions, explorer, progress
        self.stop_on, self.fewest_elections = stop_on, fewest_elections

    def decide(self, request: Request, deadline: Deadline) -> list[PropertyResult]:
        limits = within(request.limits, deadline)
        if limits.time_limit is not None and limits.time_limit <= 0:
            return [unknown(prop, request.players, self.name, "limit: no time was left for the search")
                    for prop in request.properties]
        names = tuple(prop.name for prop in request.properties)
        return check_players(request.rules, request.players, names, limits, self.reductions, self.progress,
                             self.explorer, catalogue=request.properties, stop_on=self.stop_on,
                             fewest_elections=self.fewest_elections)

    def heard(self, request: Request, results: list[PropertyResult]) -> None:
        """The search keeps nothing between requests."""


def explore(model: Model, props: tuple[Property, ...], limits: Limits, *, explorer: str = DEFAULT_EXPLORER,
            progress: Callable[[int, int], object] | None = None) -> Exploration:
    """The explicit search of `model` for `props` (no deadlocks asked), as its exploration:
    the layered search by default, its layers breadth-first where the rules have no ranking (with the
    time left). Every hit is at the shortest game's depth either way."""
    started = time.perf_counter()

    def remaining() -> Limits:
        if limits.time_limit is None:
            return limits
        return replace(limits, time_limit=max(0.5, limits.time_limit - (time.perf_counter() - started)))

    searched: Searched = search(model, props, remaining, explorer, deadlocks=False, progress=progress)
    return searched.exploration


SolverCheck = Callable[..., list[PropertyResult]]
"""The Z3 backend's `check_players(rules, players, names, limits, *, infer, hints)`."""


def solver_check() -> SolverCheck | None:
    """The Z3 backend's `check_players`, or None where it cannot be imported."""
    # Imported on use, not at the top: verify.smt imports z3, which takes a noticeable
    # part of a second, and the default explicit backend never needs it.
    try:
        from .smt import check_players as smt_check_players
    except ImportError:
        return None
    return smt_check_players


class SolverBackend:
    """The Z3 backend: each property asked on its own with the request's limits (k-induction,
    bounded model checking, ranking; verify/smt/check.py)."""

    name = "smt"

    def __init__(self, check: SolverCheck | None, *, infer: bool = False, hints: bool = True) -> None:
        self.check, self.infer, self.hints = check, infer, hints

    def decide(self, request: Request, deadline: Deadline) -> list[PropertyResult]:
        if self.check is not None and deadline is None and request.properties:
            # Without a deadline each property gets the request's limits however many come
            # before it, so all are asked in one call: the premises of the proofs are then
            # reached by one set of random games for the whole count (verify/smt/vacuity.py),
            # where one property at a time played two seconds of games for each.
            return self.check(request.rules, request.players, tuple(prop.name for prop in request.properties),
                              request.limits, infer=self.infer, hints=self.hints)
        out: list[PropertyResult] = []
        for prop in request.properties:
            if self.check is None:
                out.append(unknown(prop, request.players, self.name,
                                   "the smt backend (verify/smt) is not available"))
                continue
            limits = within(request.limits, deadline)
            if limits.time_limit is not None and limits.time_limit <= 0:
                out.append(unknown(prop, request.players, self.name, "limit: no time was left for the solver"))
                continue
            out += self.check(request.rules, request.players, (prop.name,), limits, infer=self.infer,
                              hints=self.hints)
        return out

    def heard(self, request: Request, results: list[PropertyResult]) -> None:
        """The search's witnesses as guides for the solver at the counts this process decides
        next (verify/smt/guides.py): a count sharing the board, or a win no power decides
        (five Liberal policies take 49 moves at every count), then has its shortest game
        in one guided query. A guide is only tried at the proved lower bound's length."""
        if self.check is None:
            return
        try:
            from .smt.guides import keep_guide
        except ImportError:
            return
        for result in results:
            if isinstance(result.verdict, Witnessed) and result.verdict.trace is not None:
                keep_guide(request.rules.spec, result.property, [move.rule for move, _ in result.verdict.trace.steps])


# ---------------------------------------------------------------------- strategies


@dataclass(frozen=True, slots=True)
class Step:
    """One backend's turn in a strategy, with what that turn may take at most: `seconds`
    of the request's time, `max_states` stored states, and, with `proof_only`, the
    solver's inductive proofs alone (`Limits.proof_only`: a caller with a search to
    follow wants no bounded search for a violation from the solver)."""

    backend: str
    seconds: float | None = None
    max_states: int | None = None
    proof_only: bool = False

    def limits(self, limits: Limits) -> Limits:
        """`limits` cut to this turn's caps."""
        out = limits
        if self.seconds is not None:
            out = replace(out, time_limit=self.seconds if out.time_limit is None
                          else min(self.seconds, out.time_limit))
        if self.max_states is not None:
            out = replace(out, max_states=self.max_states if out.max_states is None
                          else min(self.max_states, out.max_states))
        return replace(out, proof_only=True) if self.proof_only else out


@dataclass(frozen=True, slots=True)
class Strategy:
    """The backends asked in turn (`steps`), each for what the ones before left unknown;
    the share of the time the search gets when another backend follows or went first;
    whether the solver then checks again what the search decided."""

    name: str
    steps: tuple[Step, ...]
    search_share: float = 1.0
    cross_check: bool = False

    @property
    def order(self) -> tuple[str, ...]:
        """The backends' names, in the order they are asked."""
        return tuple(step.backend for step in self.steps)


def _plain(*names: str) -> tuple[Step, ...]:
    return tuple(Step(name) for name in names)


STRATEGIES: dict[str, Strategy] = {strategy.name: strategy for strategy in (
    Strategy("search_only", _plain("explicit")),
    Strategy("search_first", _plain("explicit", "smt")),
    Strategy("solver_first", _plain("smt", "explicit"), search_share=BOTH_SEARCH_SHARE),
    Strategy("solver_only", _plain("smt")),
    Strategy("cross_check", _plain("explicit", "smt"), search_share=BOTH_SEARCH_SHARE, cross_check=True),
    # The rules lawyer's (verify/lawyer/ask.py), one question at one count:
    # a `never` question: the solver's inductive proofs first (seconds at any count, where
    # a bounded search for a violation that does not exist would spend the whole share),
    # then the search, complete where it can be;
    Strategy("proof_first", (Step("smt", seconds=SMT_FIRST_SECONDS, proof_only=True), Step("explicit"))),
    # the same, where the hinted proof fails and invariants may be inferred: the search
    # bounded in states first (it decides 5 and 6 players in seconds, where inference
    # takes ten and more), then the proof with inferred invariants, then the search;
    Strategy("proof_first_inferring", (Step("smt", seconds=SMT_FIRST_SECONDS, proof_only=True),
                                       Step("bounded", max_states=SEARCH_FIRST_STATES), Step("inferred"),
                                       Step("explicit"))),
    # a count above one whose search hit its limit: the proofs alone, no search;
    Strategy("proofs_alone", (Step("smt", seconds=SMT_FIRST_SECONDS, proof_only=True),)),
    Strategy("proofs_alone_inferring", (Step("smt", seconds=SMT_FIRST_SECONDS, proof_only=True),
                                        Step("inferred"))),
    # a `sometimes` question: the proof that it never happens from the prover running
    # beside (a process of its own, which stops the search once it proves the count), the
    # search, which finds the shortest game, then the solver's full check;
    Strategy("prover_beside", (Step("prover", seconds=SMT_FIRST_SECONDS), Step("explicit"), Step("smt"))),
    Strategy("prover_alone", (Step("prover", seconds=SMT_FIRST_SECONDS),)),
    # the catalogue's entries at one count, together (`shrules ask --all`, `book`): each
    # entry's proofs first, one search for what they left, then the solver for the
    # `sometimes` entries still unknown;
    Strategy("catalogue_count", (Step("smt", seconds=SMT_FIRST_SECONDS), Step("explicit"), Step("after"))),
    # questions about what a player knows: the search over the knower's beliefs.
    Strategy("beliefs", _plain("beliefs")),
)}
"""The named strategies (module docstring)."""

CROSS_CHECKED = ("always", "never", "allows", "only", "shows", "terminates", "deadlock_free", "in_range")
"""`cross_check`: kinds the solver decides cheaply (by induction) where the search decided
them too, over every state (`over_every_state`)."""


@dataclass(frozen=True, slots=True)
class Decision:
    """Every property's result, and the backends that ran and left some property unknown."""

    results: tuple[PropertyResult, ...]
    undecided_by: frozenset[str]


def decide(request: Request, deadline: Deadline = None, *, strategy: str, backends: Mapping[str, Backend],
           progress: Callable[[str], None] | None = None) -> Decision:
    """Each property of `request` decided by the backends in the strategy's order, each
    backend asked only for what the ones before left unknown (module docstring). An
    unknown stays unknown: no step turns it into a verdict."""
    if strategy not in STRATEGIES:
        raise SpecError(f"strategy must be one of {', '.join(STRATEGIES)}, got {shown(strategy)}")
    plan = STRATEGIES[strategy]
    request = replace(request, properties=tuple(prop for prop in request.properties if request.players in prop.players))
    results: dict[str, PropertyResult] = {}
    decided_by: dict[str, str] = {}
    undecided: set[str] = set()
    searched_for = 0.0      # the seconds of work the search took, which bound its cross-check
    for turn, step in enumerate(plan.steps):
        name = step.backend
        if name not in backends:
            raise SpecError(f"strategy {plan.name} asks the backend {shown(name)}, which was not given")
        backend = backends[name]
        asked = tuple(prop for prop in request.properties
                      if prop.name not in results or isinstance(results[prop.name].verdict, Unknown))
        if turn > 0 and not asked:
            break
        if name == "smt" and turn > 0 and progress:
            progress(f"{request.players} players: the solver")
        share = plan.search_share if name == "explicit" and len(plan.steps) > 1 else 1.0
        limits = step.limits(within(request.limits, None, share))
        begun = work_seconds()
        found = backend.decide(replace(request, properties=asked, limits=limits), deadline)
        if name == "explicit":
            searched_for += work_seconds() - begun
        wanted = {prop.name for prop in asked}
        for result in found:
            if result.property not in wanted:
                continue
            if isinstance(result.verdict, Unknown):
                undecided.add(name)     # the last backend asked says why it is unknown
            else:
                decided_by[result.property] = name
            results[result.property] = result
        if name == "explicit" and plan.cross_check:
            for other in plan.order:
                if other != name:
                    backends[other].heard(request, found)
    if plan.cross_check and "smt" in backends:
        checked = tuple(prop for prop in request.properties if decided_by.get(prop.name) == "explicit"
                        and prop.name in results and prop.kind in CROSS_CHECKED
                        and over_every_state(results[prop.name].verdict))
        # All asked of the solver at once (`SolverBackend.decide`: one call, one set of
        # random games for every premise), each then compared with the search's verdict.
        # The solver's proofs only (`Limits.proof_only`): the cross-check is a second proof of
        # what the complete search proved; where induction fails, a bounded search for a
        # violation the search showed there is none of would spend the whole cap.
        capped = replace(request.limits, time_limit=min(request.limits.time_limit or CROSS_CHECK_SECONDS,
                                                         CROSS_CHECK_SECONDS,
                                                         max(CROSS_CHECK_FLOOR_SECONDS, searched_for)),
                         proof_only=True)
        again = {other.property: other for other in backends["smt"].decide(
            replace(request, properties=checked, limits=capped), deadline)} if checked else {}
        for prop in checked:
            results[prop.name] = _cross_check(results[prop.name], again.get(prop.name))
    order = {prop.name: number for number, prop in enumerate(request.properties)}
    return Decision(tuple(sorted(results.values(), key=lambda r: order.get(r.property, len(order)))),
                    frozenset(undecided))


def over_every_state(verdict: Verdict) -> bool:
    """Whether a decided verdict is a claim about every reachable state (proved, never
    witnessed, its premise never reached), which the solver checks again under
    `cross_check`. A refutation or a witness with its game is not asked again: the engine
    replays that game when it is read (verify/results.py `Played`), which checks it
    independently of the search; asking the solver to find it again cost the check of a
    variant whose games go round 30 s for a game already replayed."""
    if isinstance(verdict, Unknown):
        return False
    if isinstance(verdict, (Refuted, Witnessed)):
        return verdict.played is None
    return True


def _cross_check(result: PropertyResult, other: PropertyResult | None) -> PropertyResult:
    """The search's verdict, checked by the solver's (`other`, None when it gave
    none): when both decide and disagree, the result is the one of the two verdicts that
    is not as expected, naming both."""
    if other is None or isinstance(other.verdict, Unknown) or other.verdict.holds == result.verdict.holds:
        return result
    note = f"the backends disagree: explicit {result.verdict.verdict}, smt {other.verdict.verdict}"
    wrong = result if result.as_expected is False else other
    verdict: Verdict = wrong.verdict
    if isinstance(verdict, Refuted):
        verdict = replace(verdict, message=f"{note}; {verdict.message}")
    else:
        verdict = replace(verdict, evidence=replace(verdict.evidence, note=note))
    return replace(result, verdict=verdict, facts=replace(result.facts, backends_disagree=note))
