"""Answer rules questions from the model checkers: yes with the shortest game, no with a proof.

A question is a `sometimes`/`never` query (spec/disputes.py): "can this happen?". Each
player count it concerns (the count that `decides` it first) is decided by the portfolio
(verify/portfolio.py `decide`) with the strategy `question_strategy` names, by the
backends here (`QuestionSearch`, `QuestionSolver`, `ProverBeside`, `Beliefs`;
`answer_many`: `CatalogueProofs`, `AfterSearch`); this room chooses the counts, the
portfolio the checkers. Two checkers answer:

- the explicit search (the portfolio's, verify/portfolio.py `explore`: layered by the
  ranking, breadth-first where there is none, over verify/explicit/model.py with its
  exact reductions): its hit is the shortest game where the thing happens; a search
  that finishes without one is a proof over every reachable state;
- the Z3 backend, when verify/smt provides `check_property`: a k-induction proof, or a
  witness by bounded model checking replayed through the engine.

The solver's cheap proof goes first whatever the phrasing (a few seconds at any count,
where a complete search of 7 players is out of reach): before each count's search for a
`never` query; for a `sometimes` query (the proof that it never happens, `Prover`) in a
process of its own, beside the first count's search, which finds a yes there fast and
with the shortest game, and before the other counts' searches. What a `sometimes`
query's search leaves undecided gets the solver's full check, with its search for a
witness (a `never` query's was its first proof). Where the solver's proof
from the hints of spec/invariants.toml fails, it tries again with invariants inferred
from played games (verify/smt/infer.py, `Budget.infer`): for a `never` query after a
search bounded by `SEARCH_FIRST_STATES` (which decides 5 and 6 players in seconds) and
before the count's full search, within `INFER_SHARE` of the time left; for a `sometimes` query in the
prover's process, beside the searches. "Yes" needs one witness
(the search stops there). "No" needs a proof for every count; a count no checker decided is "unknown (limit)", never "proved", and larger counts
are then not searched explicitly (their graphs are larger still). A catalogue entry's
answer is compared with its expected answer (`as_expected`).

Entries about hidden information (`rule_text`) are answered from the rule text; the
checks the spec can make about them (a player count it refuses, a rule that reveals
nothing) are run and reported, and the answer says it is not a proof. Positions
(`position`) are answered by verify/lawyer/position.py. The answer types are in
verify/lawyer/answers.py; words, in English and German, in verify/lawyer/words.py.
"""

from __future__ import annotations

import difflib
import math
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from spec.disputes import Dispute, load_disputes, query
from spec.errors import Location, SpecError, shown
from spec.loader import RULE_ID, load_rulebook
from spec.model import Spec
from spec.lang.nodes import Lit
from spec.knowledge import uses_knows
from spec.properties import Property

from ..budgets import (KNOWLEDGE_SECONDS, CORE_SECONDS, CORES_WAIT_SECONDS, INFER_AFTER_SECONDS, INFER_SHARE,
                       INFERRED_CORES_SECONDS, QUESTION_SECONDS, QUICK_SHARE, SEARCH_FIRST_STATES,
                       SMT_FIRST_SECONDS)
from ..clock import Budget as Clock
from ..explicit.explore import Exploration
from ..explicit.frontier import blocked_into
from ..explicit.model import Model
from ..explicit.reductions import Reductions, cone, fields_read, symmetry_blockers
from ..knowledge.decide import decide_count, reduced
from ..portfolio import Backend, Deadline, Once, Request, decide as decide_request, explore, within
from ..results import Evidence, Limits, Played, PropertyResult, Proved, Refuted, Unknown, Unwitnessed, Verdict, Witnessed
from ..rules import Rules
from ..workers import start_context
from .answers import Answer, FormalAnswer, PositionAnswer, TextAnswer, happens
from .grounds import (FIELDS, Frontier, proof_cores,
                      proved_with_inferred, rests_on)
from .record import inlined, rule_order
from .position import rule_position
from .words import counts_text


@dataclass(frozen=True, slots=True)
class Budget:
    """How much one question may cost: stored states per search, seconds in all, memory."""

    max_states: int | None = 5_000_000
    seconds: float | None = QUESTION_SECONDS
    memory_mib: int | None = 8_000
    infer: bool = True              # where the hinted proof fails, try again with inferred invariants

    def start(self) -> Clock:
        """The question's clock from now: its seconds counted as the work of this process,
        not the time spent waiting for a CPU, with a wall-clock backstop (verify/clock.py):
        a question decided in seconds on an idle machine is decided within its time when
        the other core is busy."""
        return Clock.started(self.seconds)

    def left(self, started: Clock) -> float:
        """The seconds of work left of the question's time since `started` (inf without a
        limit), no more than keeps a search's own backstop within the question's."""
        left = started.left()
        return math.inf if self.seconds is None or left is None else left

    def limits(self, started: Clock) -> Limits:
        """The explorer's limits for a search starting now, with the time that is left."""
        left = None if self.seconds is None else round(max(0.5, self.left(started)), 1)
        return Limits(self.max_states, left, self.memory_mib)


# ---------------------------------------------------------------------- the checkers


def _evidence(exploration: Exploration, note: str, depth: int | None = None) -> Evidence:
    return Evidence("explicit", exploration.states, exploration.transitions,
                    exploration.depth if depth is None else depth, round(exploration.seconds, 3), note)


def _result(prop: Property, players: int, verdict: Verdict) -> PropertyResult:
    return PropertyResult(prop.name, players, prop.kind, prop.rule_ids, prop.expect, verdict)


def _verdict(exploration: Exploration, prop: Property, note: str) -> Verdict:
    hit = exploration.hits.get(prop.name)
    if hit is not None:
        trace = exploration.trace_to(hit)
        evidence = _evidence(exploration, note, len(trace.steps))
        if prop.kind == "sometimes":
            return Witnessed(evidence, Played.of(trace), trace.elections())
        return Refuted(evidence, Played.of(trace), f"it happens after {len(trace.steps)} moves")
    if exploration.complete:
        evidence = _evidence(exploration, note)
        return Unwitnessed(evidence) if prop.kind == "sometimes" else Proved(evidence)
    return Unknown(_evidence(exploration, note), exploration.limit or "limit: search stopped")


def search(props: tuple[Property, ...], players: int, limits: Limits, rules: Rules,
           progress: Callable[[int, int], None] | None = None,
           frontiers: dict[str, Frontier] | None = None) -> dict[str, PropertyResult]:
    """Decide queries for one player count by explicit search, each query's result by name:
    the layered search where the rules have a ranking every move lowers (a 5-player graph in
    about a second), breadth-first where they have none (verify/portfolio.py `explore`);
    either finds each query's shortest game.

    Queries that admit the same reductions (the rotation symmetry, the same fields kept by
    the cone of influence) share one exploration, which stops once each has its answer; a
    query that needs more of the state (e.g. the ordinary Fascists) does not make the
    others search the larger graph. Given `frontiers`, each query that a complete search
    shows never happens gets there what its "Rests on" can be read from later (the blocked
    moves into it, verify/explicit/frontier.py), taken only if the solver's cores are not."""
    game = rules.game(players)
    groups: dict[tuple[bool, frozenset[str]], list[Property]] = {}
    for prop in props:
        key = (not symmetry_blockers(game.spec, (prop,)), cone(game.spec, (prop,)))
        groups.setdefault(key, []).append(prop)
    out: dict[str, PropertyResult] = {}
    for (symmetric, _), members in sorted(groups.items(), key=lambda item: len(item[0][1])):
        group = tuple(members)
        model = Model(game, group, Reductions(symmetry=symmetric))
        exploration = explore(model, group, limits, progress=progress)
        note = model.plan.describe(game.spec)
        for prop in group:
            out[prop.name] = _result(prop, players, _verdict(exploration, prop, note))
            if frontiers is not None and exploration.complete and prop.name not in exploration.hits:
                frontiers[prop.name] = _frontier(exploration, prop)
    return out


def _frontier(exploration: Exploration, prop: Property) -> Frontier:
    def blocked(seconds: float) -> tuple[str, ...] | None:
        return blocked_into(exploration, prop, seconds)
    return blocked




def _smt_backend() -> Any:
    """The Z3 backend (verify/smt), when it provides `check_property(spec, property,
    players, limits) -> Verdict`: a k-induction proof, a bounded witness, or Unknown."""
    # Imported on use, not at the top: verify.smt imports z3 (a noticeable part of a
    # second), which listing the catalogue or ruling on a position never needs.
    try:
        from .. import smt
    except ImportError:  # pragma: no cover - the package is part of the project
        return None
    return smt if hasattr(smt, "check_property") else None




def _smt(prop: Property, players: int, seconds: float | None, rules: Rules, infer_within: float | None = None,
         stopped: dict[int, str] | None = None, *, hinted: bool = True,
         proof_only: bool = False) -> PropertyResult | None:
    """The Z3 backend's verdict for one count, or None when it is missing or undecided.
    With `infer_within` (the seconds the question has left; `math.inf`: no limit), an
    undecided verdict (induction failed, no witness found) is asked again with inferred
    strengthening invariants (verify/smt/infer.py, cached per rules and count) within
    `INFER_SHARE` of what is then left; why that too stayed undecided goes to `stopped`.
    Without `hinted`, the check with the written hints is taken as already failed; with
    `proof_only`, the hinted check tries the inductive proofs only (`Limits.proof_only`)."""
    smt = _smt_backend()
    if smt is None:
        return None
    started = time.perf_counter()
    spec = rules.game(players).spec
    verdict: Verdict = (smt.check_property(spec, prop, players, Limits(time_limit=seconds, proof_only=proof_only))
                        if hinted
                        else Unknown(Evidence("smt"), "the hinted proof failed"))
    if isinstance(verdict, Unknown) and infer_within is not None and players in prop.players:
        left = INFER_SHARE * (infer_within - (time.perf_counter() - started))
        if left >= 1:
            verdict = smt.check_property(spec, prop, players, Limits(time_limit=_finite(left)), infer=True)
        if isinstance(verdict, Unknown) and stopped is not None:
            stopped[players] = ("with inferred invariants: " + verdict.reason.splitlines()[0] if left >= 1
                                else "no time was left to infer invariants")
    if isinstance(verdict, Unknown):
        return None
    return _result(prop, players, verdict)


def _finite(seconds: float) -> float | None:
    """A time limit for the solver: None for no limit (`math.inf`)."""
    return None if math.isinf(seconds) else seconds


def _proof_of_never(prop: Property, players: int, rules: Rules) -> PropertyResult | None:
    """The Z3 backend's cheap proof that a `sometimes` query never happens at one count
    (induction on its negation, no search for a witness), or None when it is missing or
    has no such proof."""
    smt = _smt_backend()
    prove = getattr(smt, "prove_never_happens", None)
    if prove is None:
        return None
    verdict = prove(rules.game(players).spec, prop, players)
    return None if isinstance(verdict, Unknown) else _result(prop, players, verdict)


def _inferred_proof_of_never(prop: Property, players: int, rules: Rules, seconds: float
                             ) -> tuple[PropertyResult | None, str]:
    """`_proof_of_never` with inferred strengthening invariants, found within `seconds`
    (from the cache when the rules and count were inferred before): the proof, or None
    and why there is none."""
    smt = _smt_backend()
    prove = getattr(smt, "prove_never_happens", None)
    if prove is None or players not in prop.players:
        return None, "no solver"
    verdict = prove(rules.game(players).spec, prop, players, infer=True, seconds=_finite(seconds))
    if isinstance(verdict, Unknown):
        return None, f"with inferred invariants: {verdict.reason.splitlines()[0]}"
    return _result(prop, players, verdict), ""




def _prove_counts(prop: Property, counts: tuple[int, ...], rules: Rules, send: Connection,
                  infer_until: float | None = None) -> None:
    """The prover process: each count's proof (or None), sent as soon as it is known; then
    the rule IDs in the unsat cores of each proof (verify/lawyer/grounds.py), taken here
    where the solver's support for the count is already built; then, until `infer_until`
    (a `time.perf_counter()` value; None: no inference), each count left unproved tried
    again with inferred invariants: a proof is sent as the first ones are (it stops that
    count's search), then its cores, a failure as the reason why."""
    started = time.perf_counter()
    proved = []
    for count in counts:
        try:
            proof = _proof_of_never(prop, count, rules)
        except Exception:  # a crash proves nothing; the search and the full check go on
            proof = None
        send.send((count, proof))
        if proof is not None:
            proved.append(count)
    for count in proved:   # after every proof: a count's search may be waiting for its proof
        try:
            cores = proof_cores(prop, count, rules)
        except Exception:  # no cores: they are taken where needed, or "Rests on" falls back
            cores = None
        if cores is not None:
            send.send((count, cores))
    if infer_until is not None:
        time.sleep(max(0.0, started + INFER_AFTER_SECONDS - time.perf_counter()))
    for count in counts if infer_until is not None else ():
        left = infer_until - time.perf_counter() if infer_until is not None else 0.0
        if count in proved or left < 1:
            continue
        try:
            inferred, why = _inferred_proof_of_never(prop, count, rules, left)
        except Exception as error:  # as above: a crash proves nothing
            inferred, why = None, f"with inferred invariants: {type(error).__name__}"
        send.send((count, inferred if inferred is not None else why))
        if inferred is not None:
            # Its cores here, where the inferred support is built: anywhere else they
            # would cost what inferring did (verify/lawyer/grounds.py `proof_cores`).
            left = INFERRED_CORES_SECONDS if infer_until is None else infer_until - time.perf_counter()
            try:
                cores = proof_cores(prop, count, rules, infer=True,
                                    seconds=max(1.0, min(INFERRED_CORES_SECONDS, left)))
            except Exception:  # as above: "Rests on" falls back to the fields read
                cores = None
            if cores is not None:
                send.send((count, cores))
    send.close()


class _ProvedMeanwhile(Exception):
    """Stops an explicit search whose count the prover has decided in the meantime."""


class Prover:
    """The solver's cheap proofs that a `sometimes` query never happens, count by count.

    The proofs run in a process of their own while the explicit search runs here, and a
    proof stops the search of its count: a question whose answer is no is decided as fast
    as by the proof (as the same question asked as `never`), and one whose answer is yes at
    the first count as fast as the search finds its shortest game, not after the support's
    few seconds. (`decide` waits for the proof before the other counts' searches: two
    processes on a busy machine slow each other.) With `infer_seconds` (`math.inf`: no
    limit) the prover goes on, once the cheap proofs and their cores are sent, to try each
    count left unproved with inferred invariants within that time, beside the searches,
    which a proof stops as before. The process starts as every worker of shrules does
    (verify/workers.py `start_context`: fork, spawn or forkserver): the rules cross as a
    value (verify/rules.py), a query's overlay with them."""

    def __init__(self, prop: Property, counts: tuple[int, ...], rules: Rules, infer_seconds: float | None = None
                 ) -> None:
        self.prop, self.rules = prop, rules
        self.proofs: dict[int, PropertyResult | None] = {}
        self.cores: dict[int, tuple[str, ...]] = {}     # count -> the rule IDs its proof used
        self.stopped: dict[int, str] = {}               # count -> why inference proved nothing
        until = None if infer_seconds is None else time.perf_counter() + infer_seconds
        context: Any = start_context()      # a BaseContext's Process is typed on its subclasses only
        self._receive: Connection | None
        self._receive, send = context.Pipe(duplex=False)
        self._process: Any = context.Process(target=_prove_counts, args=(prop, counts, rules, send, until),
                                             name="shrules-prover", daemon=True)
        self._process.start()
        send.close()

    def _poll(self, seconds: float = 0.0) -> None:
        """Take in the proofs sent so far, waiting up to `seconds` for the first."""
        receive = self._receive
        try:
            while receive is not None and receive.poll(seconds):
                count, sent = receive.recv()
                if isinstance(sent, tuple):     # the rule IDs of a proof sent before
                    self.cores[count] = sent
                elif isinstance(sent, str):     # why inference proved nothing
                    self.stopped[count] = sent
                elif sent is not None or count not in self.proofs:
                    self.proofs[count] = sent
                seconds = 0.0
        except (EOFError, OSError):  # the prover is done or gone: no more proofs
            self._receive = None

    def proved(self, count: int) -> PropertyResult | None:
        """The proof for `count` if there is one yet."""
        self._poll()
        return self.proofs.get(count)

    def wait(self, count: int, seconds: float) -> PropertyResult | None:
        """The proof for `count`, waiting up to `seconds` for the prover to decide it."""
        deadline = time.perf_counter() + seconds
        while count not in self.proofs and self._receive is not None and time.perf_counter() < deadline:
            self._poll(max(0.0, deadline - time.perf_counter()))
        return self.proved(count)

    def wait_cores(self, counts: tuple[int, ...], seconds: float) -> None:
        """Wait up to `seconds` for the rule IDs of the proofs of `counts` (those the prover
        made; the others' are taken where they are needed)."""
        deadline = time.perf_counter() + seconds
        wanted = [count for count in counts if self.proofs.get(count) is not None]
        while (any(count not in self.cores for count in wanted) and self._receive is not None
               and time.perf_counter() < deadline):
            self._poll(max(0.0, deadline - time.perf_counter()))

    def stop_search(self, count: int) -> Callable[[int, int], None] | None:
        """A progress hook that stops the explicit search of `count` once it is proved."""
        def check(states: int, depth: int) -> None:
            if self.proved(count) is not None:
                raise _ProvedMeanwhile
        return check

    def close(self) -> None:
        """End the prover process (it is ours) if it is still working."""
        if self._process.is_alive():
            self._process.terminate()
        self._process.join()
        if self._receive is not None:
            self._receive.close()
            self._receive = None


# ---------------------------------------------------------------------- the backends


class QuestionSearch:
    """The explicit search as the portfolio's backend for questions (`search`): each
    question's shortest game or a complete search; given `frontiers`, what "Rests on" reads
    for a count the search decided; given a `Prover`, stopped once the prover proves the
    count, whose proof is then the result."""

    name = "explicit"

    def __init__(self, prover: Prover | None = None, frontiers: dict[int, Frontier] | None = None) -> None:
        self.prover, self.frontiers = prover, frontiers
        self.last: dict[tuple[str, int], PropertyResult] = {}   # (question, count) -> what the search found

    def decide(self, request: Request, deadline: Deadline) -> list[PropertyResult]:
        count = request.players
        found_here: dict[str, Frontier] = {}
        try:
            found = search(request.properties, count, within(request.limits, deadline), request.rules,
                           None if self.prover is None else self.prover.stop_search(count),
                           None if self.frontiers is None else found_here)
        except _ProvedMeanwhile:
            assert self.prover is not None
            proved = self.prover.proved(count)
            assert proved is not None
            return [proved]
        if self.frontiers is not None:
            for name in found_here:     # one question per request where frontiers are kept
                self.frontiers[count] = found_here[name]
        self.last.update(((name, count), result) for name, result in found.items())
        return list(found.values())

    def heard(self, request: Request, results: list[PropertyResult]) -> None:
        """The search keeps nothing between requests."""


class QuestionSolver:
    """The Z3 backend as the portfolio's backend for questions (`_smt`): the hinted check,
    only its inductive proofs where the limits say `proof_only`; with `infer_within`
    (inference tried, `name` "inferred"), the proof with inferred invariants within
    `INFER_SHARE` of the time, why it failed going to `stopped`."""

    def __init__(self, name: str = "smt", infer_within: float | None = None,
                 stopped: dict[int, str] | None = None) -> None:
        self.name, self.infer_within, self.stopped = name, infer_within, stopped

    def decide(self, request: Request, deadline: Deadline) -> list[PropertyResult]:
        limits = within(request.limits, deadline)
        out = []
        for prop in request.properties:
            if self.infer_within is None:
                found = _smt(prop, request.players, limits.time_limit, request.rules, proof_only=limits.proof_only)
            else:
                found = _smt(prop, request.players, None, request.rules, limits.time_limit or self.infer_within,
                             self.stopped, hinted=False)
            if found is not None:   # undecided: no result, so the search's reason for stopping stands
                out.append(found)
        return out

    def heard(self, request: Request, results: list[PropertyResult]) -> None:
        """Nothing is kept between questions."""


class ProverBeside:
    """The prover's proofs (`Prover`, a process beside the search) as a backend: the first
    count's proof if it is already made (its search, beside, finds a yes fast), the other
    counts' waited for within the request's time."""

    name = "prover"

    def __init__(self, prover: Prover, first: int) -> None:
        self.prover, self.first = prover, first

    def decide(self, request: Request, deadline: Deadline) -> list[PropertyResult]:
        count = request.players
        seconds = within(request.limits, deadline).time_limit
        proof = self.prover.proved(count) if count == self.first else \
            self.prover.wait(count, SMT_FIRST_SECONDS if seconds is None else seconds)
        return [proof for prop in request.properties if proof is not None]   # no proof: nothing to say

    def heard(self, request: Request, results: list[PropertyResult]) -> None:
        """The prover works on its own."""


class CatalogueProofs:
    """The proofs `answer_many` asks first of each entry at its count: a `never` entry's
    hinted check (with inferred invariants where it fails, why that failed going to
    `stopped`), a `sometimes` entry's cheap proof that it never happens (the support is
    built once per count; one such entry left to the search would make it finish)."""

    name = "smt"

    def __init__(self, budget: Budget, started: Clock, stopped: dict[str, str]) -> None:
        self.budget, self.started, self.stopped = budget, started, stopped

    def decide(self, request: Request, deadline: Deadline) -> list[PropertyResult]:
        within_ = _infer_within(self.budget)
        out = []
        for prop in request.properties:
            if prop.kind == "never":
                why: dict[int, str] = {}
                proof = _smt(prop, request.players, request.limits.time_limit, request.rules,
                             None if within_ is None else self.budget.limits(self.started).time_limit or within_, why)
                if request.players in why:
                    self.stopped[prop.name] = why[request.players]
            else:
                proof = _proof_of_never(prop, request.players, request.rules)
            if proof is not None:   # unproved: the search is asked, and says why it stopped if it does
                out.append(proof)
        return out

    def heard(self, request: Request, results: list[PropertyResult]) -> None:
        """Nothing is kept between counts."""


class AfterSearch:
    """What `answer_many` asks of the solver for the `sometimes` entries the search left
    unknown (`_after_search`); a `never` entry gets nothing more (its proofs came first)."""

    name = "after"

    def __init__(self, search_backend: QuestionSearch, budget: Budget, started: Clock) -> None:
        self.search_backend, self.budget, self.started = search_backend, budget, started

    def decide(self, request: Request, deadline: Deadline) -> list[PropertyResult]:
        return [_after_search(prop, request.players, self.search_backend.last[(prop.name, request.players)],
                              self.budget, self.started, request.rules)
                for prop in request.properties
                if prop.kind != "never" and (prop.name, request.players) in self.search_backend.last]

    def heard(self, request: Request, results: list[PropertyResult]) -> None:
        """Nothing is kept between counts."""


class Beliefs:
    """The search over the knower's beliefs (verify/knowledge/decide.py) as a backend, for
    questions with knows() that are not facts known to all."""

    name = "beliefs"

    def decide(self, request: Request, deadline: Deadline) -> list[PropertyResult]:
        seconds = within(request.limits, deadline).time_limit
        return [decide_count(prop, request.players, request.rules,
                             KNOWLEDGE_SECONDS if seconds is None else seconds)
                for prop in request.properties]

    def heard(self, request: Request, results: list[PropertyResult]) -> None:
        """Nothing is kept between counts."""


def question_strategy(prop: Property, budget: Budget, prover: Prover | None, *, searched: bool = True
                      ) -> str | None:
    """The portfolio's strategy for one question at one count (verify/portfolio.py): a
    `never` question has the solver's inductive proofs first, and where invariants may be
    inferred, the bounded search and the inferred proof before the full search; a
    `sometimes` question has the prover beside its search and the solver's full check after
    it; without the solver, the search alone. Not `searched`: a count above one whose
    search hit its limit, decided by the proofs alone (None: there are none)."""
    if _smt_backend() is None:
        return "search_only" if searched else None
    if prop.kind == "never":
        inferring = "_inferring" if _infer_within(budget) is not None else ""
        return ("proof_first" if searched else "proofs_alone") + inferring
    if prover is not None:
        return "prover_beside" if searched else "prover_alone"
    return "search_first" if searched else None


def question_backends(budget: Budget, prover: Prover | None, first: int, stopped: dict[int, str],
                      frontiers: dict[int, Frontier] | None) -> dict[str, Backend]:
    """The backends one question's counts are decided by: the solver and the bounded
    search asked once per count (a count decided again after the quick pass gets only its
    search again, with more time)."""
    search_backend = QuestionSearch(prover, frontiers)
    backends: dict[str, Backend] = {
        "explicit": search_backend, "bounded": Once(QuestionSearch(None, frontiers)),
        "smt": Once(QuestionSolver()),
        "inferred": Once(QuestionSolver("inferred", _infer_within(budget), stopped))}
    if prover is not None:
        backends["prover"] = ProverBeside(prover, first)
    return backends


def _infer_within(budget: Budget) -> float | None:
    """The seconds inference may take for a question with this budget (None: not tried)."""
    if not budget.infer:
        return None
    return math.inf if budget.seconds is None else budget.seconds


def order(prop: Property, counts: tuple[int, ...], decides: int | None) -> tuple[int, ...]:
    """The counts to search: the deciding one first, then the others from the smallest."""
    chosen = tuple(sorted(c for c in counts if c in prop.players)) or tuple(sorted(counts))
    if decides in chosen:
        return (decides,) + tuple(c for c in chosen if c != decides)
    return chosen




def decide(prop: Property, counts: tuple[int, ...], budget: Budget = Budget(), *, rules: Rules,
           decides: int | None = None, rule_ids: tuple[str, ...] = (), dispute: Dispute | None = None,
           progress: Callable[[str], None] | None = None,
           backends: dict[str, Backend] | None = None) -> FormalAnswer:
    """Search the counts until a game where it happens is found or every count is decided.

    A catalogue entry's deciding count goes first. Without one (an ad-hoc question), a quick
    first pass gives every count a small share of the time, so a game that needs 7 players
    is not starved by a complete search of 5. Then each undecided count, from the smallest,
    gets all the time left; counts above one whose search hit its limit are not searched
    (their graphs are larger still) but by the solver. The solver's cheap proof goes first
    whatever the phrasing: for a `never` query before each count's search, for a
    `sometimes` query beside it (`Prover`); each count gets the solver's full check (with
    its slower search for a witness) at most once, after an undecided search.

    Each count is decided by the portfolio (verify/portfolio.py) with the strategy
    `question_strategy` names, by `backends` (default: `question_backends`; a test gives
    its own)."""
    if uses_knows(prop.state):
        return _decide_knowledge(prop, counts, budget, decides, rules, rule_ids, dispute, progress)
    started = budget.start()
    chosen = order(prop, counts, decides)
    prover = Prover(prop, chosen, rules, _infer_within(budget)) \
        if prop.kind == "sometimes" and _smt_backend() is not None else None
    cores: dict[int, tuple[str, ...]] = {}
    frontiers: dict[int, Frontier] = {}
    try:
        results, skipped = _decide_counts(prop, chosen, budget, started, decides is None, rules, prover, progress,
                                          None if rule_ids else frontiers, backends)
        if prover is not None and not rule_ids:
            proved = [r for r in results.values() if r.verdict.evidence.method == "k-induction"]
            wait = CORES_WAIT_SECONDS
            if any(proved_with_inferred(r) for r in proved):   # its cores take longer, within the question's time
                wait = max(wait, min(INFERRED_CORES_SECONDS, budget.left(started)))
            prover.wait_cores(tuple(r.players for r in proved), wait)
            cores = prover.cores
    finally:
        if prover is not None:
            prover.close()
    ordered = tuple(results[count] for count in chosen if count in results)
    if rule_ids:
        return FormalAnswer(prop, rule_ids, ordered, skipped, dispute)
    found = rests_on(prop, ordered, rules, cores, frontiers,
                     inferred_seconds=max(CORE_SECONDS, min(INFERRED_CORES_SECONDS, budget.left(started))))
    ids, grounds = found if found is not None and found[0] else (rules_of(rules.spec, prop), FIELDS)
    return FormalAnswer(prop, ids, ordered, skipped, dispute, grounds)


def _decide_knowledge(prop: Property, counts: tuple[int, ...], budget: Budget, decides: int | None, rules: Rules,
                      rule_ids: tuple[str, ...], dispute: Dispute | None,
                      progress: Callable[[str], None] | None) -> FormalAnswer:
    """A question with knows() (verify/knowledge): a fact known to all as the state question
    it is equivalent to, decided as any; every other one over the knower's beliefs, count by
    count, each within `KNOWLEDGE_SECONDS` of what is left, until a game is found."""
    spec = rules.spec
    as_state = reduced(prop, spec)
    if as_state is not None:
        answer = decide(as_state, counts, budget, decides=decides, rules=rules, rule_ids=rule_ids,
                        dispute=dispute, progress=progress)
        noted = tuple(replace(result, verdict=_noted(result.verdict, KNOWN_TO_ALL)) for result in answer.results)
        return FormalAnswer(prop, answer.rule_ids, noted, answer.not_searched, dispute, answer.grounds)
    started = budget.start()
    results: list[PropertyResult] = []
    skipped: dict[int, str] = {}
    limit_hit: int | None = None
    for count in order(prop, counts, decides):
        if any(happens(r.verdict) for r in results):
            skipped[count] = "not needed: a game where it happens was found"
            continue
        if limit_hit is not None and count > limit_hit:
            skipped[count] = f"not searched: the search for {limit_hit} players already hit its limit"
            continue
        left = budget.left(started)
        if left < 1:
            skipped[count] = "not searched: no time was left"
            continue
        # the default question time gives each count `KNOWLEDGE_SECONDS`; a time asked for
        # (--seconds) is the search's to use
        seconds = min(left, KNOWLEDGE_SECONDS) if budget.seconds == QUESTION_SECONDS else left
        if progress:
            progress(f"{count} players: searching the beliefs (up to {seconds:.0f} s)")
        decision = decide_request(Request(rules, count, (prop,), Limits(time_limit=seconds)), None,
                                  strategy="beliefs", backends={"beliefs": Beliefs()})
        result = decision.results[0] if decision.results else _result(
            prop, count, Unknown(Evidence("beliefs"), f"not stated for {count} players"))
        results.append(result)
        if isinstance(result.verdict, Unknown):
            limit_hit = count if limit_hit is None else min(limit_hit, count)
    ids = rule_ids or knowledge_rules(spec, prop)
    return FormalAnswer(prop, ids, tuple(results), skipped, dispute, "" if rule_ids else FIELDS)


KNOWN_TO_ALL = "a fact known to all: decided as the state question it is equivalent to (verify/knowledge/decide.py)"


def _noted(verdict: Verdict, note: str) -> Verdict:
    """The verdict with `note` added to its evidence."""
    evidence = verdict.evidence
    return replace(verdict, evidence=replace(evidence, note=f"{evidence.note}; {note}" if evidence.note else note))


def knowledge_rules(spec: Spec, prop: Property) -> tuple[str, ...]:
    """The rule IDs an ad-hoc knowledge question rests on: those of `rules_of`, and those
    by which the rules changing the fields it reads show what they do."""
    read = fields_read(prop.state, spec) - {"phase"}
    ids = dict.fromkeys(rules_of(spec, prop))
    for rule in spec.rules:
        if {name for name, _ in rule.effect} & read:
            for show in rule.shows:
                ids.setdefault(show.rule_id, None)
    return tuple(sorted(ids, key=rule_order))


def _decide_counts(prop: Property, chosen: tuple[int, ...], budget: Budget, started: Clock, quick_pass: bool,
                   rules: Rules, prover: Prover | None, progress: Callable[[str], None] | None,
                   frontiers: dict[int, Frontier] | None = None,
                   backends: dict[str, Backend] | None = None
                   ) -> tuple[dict[int, PropertyResult], dict[int, str]]:
    """`decide`'s passes over the counts: each count's result, and why the others have none
    (and, given `frontiers`, the blocked moves of each count a complete search decided).
    Each count is decided by the portfolio (verify/portfolio.py) with the strategy
    `question_strategy` names, by `backends` (default: `question_backends`)."""
    results: dict[int, PropertyResult] = {}
    stopped: dict[int, str] = {}    # count -> why inference proved nothing
    if backends is None:
        backends = question_backends(budget, prover, chosen[0], stopped, frontiers)

    def found() -> bool:
        return any(happens(r.verdict) for r in results.values())

    def limits_now(cap: float | None) -> Limits:
        limits = budget.limits(started)
        if cap is not None and limits.time_limit is not None:
            limits = Limits(limits.max_states, min(round(cap, 1), limits.time_limit), limits.memory_limit)
        return limits

    def decided(count: int, cap: float | None, searched: bool = True) -> PropertyResult | None:
        strategy = question_strategy(prop, budget, prover, searched=searched)
        if strategy is None:
            return None
        decision = decide_request(Request(rules, count, (prop,), limits_now(cap)), None, strategy=strategy,
                                  backends=backends)
        if not decision.results:    # the proofs alone found none (or the question is not for this count)
            return None
        result = decision.results[0]
        why = stopped.get(count) or (prover.stopped.get(count) if prover is not None else None)
        if isinstance(result.verdict, Unknown) and why:
            result = _result(prop, count, Unknown(result.verdict.evidence, f"{result.verdict.reason}; {why}"))
        return result

    def run(count: int, cap: float | None) -> None:
        if progress:
            progress(f"{count} players: searching ({limits_now(cap).describe()})")
        result = decided(count, cap)
        results[count] = result if result is not None else _result(
            prop, count, Unknown(Evidence("explicit"), f"the question is not stated for {count} players"))

    if quick_pass and budget.seconds is not None and len(chosen) > 1:
        for count in chosen:
            if not found():
                run(count, budget.seconds / (QUICK_SHARE * len(chosen)))
    skipped: dict[int, str] = {}
    limit_hit: int | None = None
    for count in chosen:
        previous = results.get(count)
        if found() or (previous is not None and not isinstance(previous.verdict, Unknown)):
            continue
        if limit_hit is not None and count > limit_hit:
            # a larger graph still: only the solver's proofs, if they have not been asked
            if previous is None:
                proof = decided(count, None, searched=False)
                if proof is not None and not isinstance(proof.verdict, Unknown):
                    results[count] = proof
            if count not in results:
                skipped[count] = f"not searched: the search for {limit_hit} players already hit its limit"
            continue
        if (budget.limits(started).time_limit or 1) < 1:
            if previous is None:
                skipped[count] = "not searched: no time was left"
            continue
        run(count, None)
        if isinstance(results[count].verdict, Unknown):
            limit_hit = count if limit_hit is None else min(limit_hit, count)
    for count in chosen:
        if count not in results and count not in skipped:
            skipped[count] = "not needed: a game where it happens was found"
    return results, skipped


def rules_of(spec: Spec, prop: Property) -> tuple[str, ...]:
    """The rule IDs an ad-hoc query rests on: those of the rules it is over and of the
    rules that change the fields it reads (the phase aside, which nearly every rule moves)."""
    node = prop.state if prop.state is not None else prop.move
    read = fields_read(node, spec)
    # A temporal query's monitors (spec/temporal.py) are written by every rule: the query
    # rests on what they read, not on every rule of the game.
    monitors = set.intersection(*({name for name, _ in rule.effect} for rule in spec.rules)) - {"phase"} \
        if spec.rules else set()
    followed: set[str] = set()
    nodes = [node]
    while read & monitors - followed:
        name = sorted(read & monitors - followed)[0]
        followed.add(name)
        nodes.append(dict(spec.rules[0].effect)[name])
        read |= fields_read(nodes[-1], spec)
    read -= monitors | {"phase"}
    # A question about phases alone ("chaos twice") rests on the rules of those phases.
    phases = set() if read else {spec.enums["phase"][item.value] for item in inlined(nodes, spec)
                                  if isinstance(item, Lit) and item.type.enum == "phase"
                                  and 0 <= item.value < len(spec.enums["phase"])}
    ids: dict[str, None] = {}
    for rule in spec.rules:
        writes = {name for name, _ in rule.effect}
        if rule.name in prop.on or writes & read or rule.phase in phases:
            for rule_id in rule.rule_ids or (rule.actor_rule,):
                ids.setdefault(rule_id, None)
    return tuple(sorted(ids, key=rule_order))


# ---------------------------------------------------------------------- entries


CHECKS = {
    "refused": {"en": "the rules refuse a game of {count} players",
                "de": "die Regeln lehnen ein Spiel mit {count} Personen ab"},
    "silent": {"en": "'{name}' reveals nothing to anyone", "de": "'{name}' zeigt niemandem etwas"},
    "not_revealed": {"en": "no move reveals '{name}'", "de": "kein Zug zeigt '{name}'"},
}
"""What the spec checks about a rule-text entry, in English and German."""


def spec_checks(dispute: Dispute, rules: Rules, lang: str = "en") -> tuple[tuple[str, bool], ...]:
    """What the spec can check about a rule-text entry, in `lang`, and whether it agrees."""
    spec = rules.spec
    checks: list[tuple[str, bool]] = []
    for count in dispute.refused_players:
        try:
            rules.game(count)
            refused = False
        except SpecError:
            refused = True
        checks.append((CHECKS["refused"][lang].format(count=count), refused))
    for name in dispute.silent:
        rule = spec.rule(name)
        checks.append((CHECKS["silent"][lang].format(name=name), not rule.reveals))
    revealing: set[str] = set()
    for rule in spec.rules:
        for _, node in rule.reveals:
            revealing |= fields_read(node, spec)
    for name in dispute.not_revealed:
        checks.append((CHECKS["not_revealed"][lang].format(name=name), name not in revealing))
    return tuple(checks)


def answer_dispute(dispute: Dispute, budget: Budget = Budget(), counts: tuple[int, ...] | None = None, *,
                   rules: Rules, progress: Callable[[str], None] | None = None) -> Answer:
    """Answer one catalogue entry of `rules` (for `counts`, default: the counts it concerns)."""
    if dispute.kind == "rule_text":
        return TextAnswer(dispute, spec_checks(dispute, rules),
                          tuple(text for text, _ in spec_checks(dispute, rules, "de")))
    if dispute.kind == "position":
        assert dispute.game is not None and dispute.next_move is not None
        ruling = rule_position(dispute.game, dispute.next_move, f"dispute '{dispute.id}' next_move")
        return PositionAnswer(ruling, dispute)
    assert dispute.query is not None
    chosen = counts or dispute.players
    bad = [c for c in chosen if c not in dispute.players]
    if bad:
        raise SpecError(f"'{dispute.id}' concerns {counts_text(dispute.players)} players, not {bad[0]}")
    return decide(dispute.query, chosen, budget, decides=dispute.decides, rules=rules.own(dispute.query.rules),
                  rule_ids=dispute.rule_ids, dispute=dispute, progress=progress)


def answer_many(disputes: tuple[Dispute, ...], players: int, budget: Budget = Budget(), *,
                rules: Rules) -> dict[str, Answer]:
    """Answer entries for one player count: what the Z3 backend proves first (`never`
    queries, with inferred invariants where the written ones do not suffice, as `decide`
    does; `sometimes` ones by the cheap proof alone: the support is built once per count,
    and one such entry left to the search would make it finish), the other formal ones in
    one explicit search per rule set (the first hit of each is still its shortest game,
    and a search that must finish for one does so for all), what stays unknown by the Z3
    backend (`_after_search`); rule-text and position entries one by one."""
    started = budget.start()
    knowing = {d.id: d for d in disputes if d.query is not None and uses_knows(d.query.state)}
    if knowing:
        # knowledge entries are decided over beliefs (verify/knowledge), each on its own
        rest_of = tuple(d for d in disputes if d.id not in knowing)
        out_first = {ident: _decide_knowledge(d.query, (players,), budget, players, rules, d.rule_ids, d, None)
                     for ident, d in knowing.items() if d.query is not None}
        out_rest = answer_many(rest_of, players, budget, rules=rules) if rest_of else {}
        return {d.id: (out_first[d.id] if d.id in out_first else out_rest[d.id]) for d in disputes}
    found: dict[str, PropertyResult] = {}
    formal = [d.query for d in disputes if d.query is not None]
    stopped: dict[str, str] = {}        # entry -> why inference proved nothing
    # A temporal entry is checked under its own monitored rules (spec/temporal.py): one
    # request per rule set, its entries sharing one search.
    for under in dict.fromkeys(rules.own(prop.rules) for prop in formal):
        shared = tuple(prop for prop in formal if rules.own(prop.rules) == under)
        searched = QuestionSearch()
        backends: dict[str, Backend] = {"smt": CatalogueProofs(budget, started, stopped), "explicit": searched,
                                        "after": AfterSearch(searched, budget, started)}
        strategy = "catalogue_count" if _smt_backend() is not None else "search_only"
        decision = decide_request(Request(under, players, shared, budget.limits(started)), None,
                                  strategy=strategy, backends=backends)
        found.update((result.property, result) for result in decision.results)
    for prop in formal:
        result = found.setdefault(prop.name, _result(prop, players, Unknown(
            Evidence("explicit"), f"not stated for {players} players")))
        if isinstance(result.verdict, Unknown) and prop.kind == "never" and prop.name in stopped:
            found[prop.name] = _result(prop, players, Unknown(result.verdict.evidence,
                                                              f"{result.verdict.reason}; {stopped[prop.name]}"))
    out: dict[str, Answer] = {}
    for dispute in disputes:
        if dispute.query is None:
            out[dispute.id] = answer_dispute(dispute, budget, rules=rules)
        else:
            out[dispute.id] = FormalAnswer(dispute.query, dispute.rule_ids, (found[dispute.query.name],), {}, dispute)
    return out


def _after_search(prop: Property, players: int, searched: PropertyResult, budget: Budget, started: Clock,
                  rules: Rules) -> PropertyResult:
    """A `sometimes` entry the count's search left unknown, asked of the solver with what
    is left of the time: first proved impossible with inferred invariants, within
    `INFER_SHARE` of it, then searched for a witness by the solver with the rest. Why it
    stayed unknown is added to the search's reason."""
    smt = _smt_backend()
    if smt is None:
        return searched
    why = ""
    if budget.infer and players in prop.players:
        left = budget.limits(started).time_limit
        seconds = None if left is None else INFER_SHARE * left
        if seconds is None or seconds >= 1:
            spec = rules.game(players).spec
            verdict = smt.prove_never_happens(spec, prop, players, infer=True, seconds=seconds)
            if not isinstance(verdict, Unknown):
                return _result(prop, players, verdict)
            why = "with inferred invariants: " + verdict.reason.splitlines()[0]
        else:
            why = "no time was left to infer invariants"
    witness = _smt(prop, players, budget.limits(started).time_limit, rules)
    if witness is not None:
        return witness
    if not why:
        return searched
    unknown = searched.verdict
    assert isinstance(unknown, Unknown)
    return _result(prop, players, Unknown(unknown.evidence, f"{unknown.reason}; {why}"))


def catalogue(rules: Rules, path: Path | None = None) -> tuple[Dispute, ...]:
    """The dispute catalogue for the rules (spec/disputes.toml, or the file at `path`)."""
    return load_disputes(rules.spec, path)


def find(disputes: tuple[Dispute, ...], ident: str) -> Dispute:
    """The entry with this id, or a `SpecError` naming the closest ones."""
    for dispute in disputes:
        if dispute.id == ident:
            return dispute
    rule_id = ident.strip().upper()
    if RULE_ID.match(rule_id) and rule_id in load_rulebook():
        # a rule ID is not a question, but whoever typed one wants that rule: say where it is
        resting = [d.id for d in disputes if rule_id in d.rule_ids]
        questions = f"; the questions resting on it: {', '.join(resting)}" if resting else ""
        raise SpecError(f"{shown(ident)} is a rule ID, not a question of the catalogue: `shrules rules {rule_id}` "
                        f"prints the rule{questions}")
    close = difflib.get_close_matches(ident, [d.id for d in disputes], n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `shrules ask` lists them"
    raise SpecError(f"no dispute {shown(ident)} in the catalogue{hint}")


def ad_hoc(text: str, kind: str, players: tuple[int, ...], on: tuple[str, ...] = (), budget: Budget = Budget(), *,
           rules: Rules, option: str = "--can",
           progress: Callable[[str], None] | None = None) -> FormalAnswer:
    """Answer `--can EXPR` / `--never EXPR` (over moves with `--on`); a mistake in EXPR is a
    `SpecError` with a caret under the place and what was expected there."""
    spec = rules.spec
    where = Location(f"{option} expression")
    prop = query(spec, "question", kind, text, on, tuple(spec.player_counts), where=where, show_caret=True)
    counts = players or tuple(spec.player_counts)
    return decide(prop, counts, budget, rules=rules.own(prop.rules), progress=progress)
