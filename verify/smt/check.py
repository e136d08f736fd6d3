"""Decide one property with the solver: the verdicts of the Z3 backend.

`check_property(spec, prop, players, limits)` returns a typed verdict (verify/results.py):

- `always` / `never` over states: `Proved` when the property belongs to the inductive
  support (k = 1) or closes by k-induction relative to it; `Refuted` with the shortest
  trace when BMC reaches a violation; otherwise `Unknown`, with the counterexample to
  induction in words;
- `always` / `never` over moves: `Proved` over one step from every state satisfying the
  support; `Refuted` when BMC reaches a violating move; otherwise `Unknown`;
- `sometimes`: `Witnessed` with the shortest witness (BMC from a proved lower bound,
  replayed through the engine; tried first along the rules of a witness found at
  another player count, which, as long as the bound, is a shortest one too),
  `Unwitnessed` when its negation is inductive relative to the support, `Unknown` when
  a limit stops the search; `prove_never_happens` tries only the induction, without the
  (slower) search for a witness;
- `terminates` and `deadlock_free` (verify/smt/liveness.py), `allows` and `only`
  (verify/smt/permissions.py);
- where a one-step proof fails, a bounded search for the shortest game to a state that
  breaks the property (verify/smt/reach.py): found, `Refuted` with that game (a
  reachable counterexample is real); ruled out at every length, `Proved`; otherwise
  `Unknown` with the counterexample to induction, how far the search got, and why it
  stopped as a `StopReason`.

`check_players(rules, players, names, limits)` decides a list of catalogue properties
for one player count as `PropertyResult`s, the form `shrules check --backend smt` uses.
Everything built for a spec and a player count (the system, the support) is kept
(verify/smt/backend.py), so deciding the whole catalogue costs one support computation.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

import z3  # type: ignore[import-untyped]

from spec.loader import load_spec
from spec.model import Spec
from spec.order import is_monitored
from spec.properties import Property

from ..budgets import K_INDUCTION_SHARE
from ..results import (Evidence, Facts, Limits, Played, PropertyResult, Proved, StopReason, Unknown, Unwitnessed,
                       Verdict, Witnessed)
from ..rules import Rules
from .backend import Backend, backend_built, backend_for, catalogue_of, largest_k
from .bmc import Ended
from .deep import out_of_range, violation_target
from .induction import Candidate, OutOfTime, Outcome
from .liveness import deadlock_free, terminates
from .permissions import permission
from .reach import (by_k_induction, decided_by_search, deadline_of, how_far, inferred_note, k_inductive, k_proved,
                    kept_invariants, probe_for, refuted_by, searched_below, stop_of, unproved)
from .vacuity import judge_premises

IN_MEMORY = "the order of play is followed on rules loaded by name, with its monitor; these rules were built in memory"
"""Why a property over monitored rules (spec/order.py) is not decided on rules built in memory."""


def check_property(spec: Spec, prop: Property, players: int, limits: Limits = Limits(), infer: bool = False,
                   hints: bool = True) -> Verdict:
    """The solver's verdict on one property for one player count (of the limits, the
    solver reads `max_depth`, `k` and `time_limit`, seconds for this property; `infer`
    and `hints` as for `backend_for`)."""
    if players not in prop.players:
        return Unknown(Evidence("k-induction"), f"'{prop.name}' is not stated for {players} players",
                       StopReason.NOT_SEARCHED)
    if prop.rules and prop.rules != spec.name and not is_monitored(spec):
        # A property over monitored rules (the order of play, spec/order.py): decided on
        # them, when they are these rules with the monitor; rules built in memory have none.
        # A question's own monitored rules (a temporal query, spec/temporal.py) are `spec`
        # itself: asked on them, not loaded again (which would ask again, without end).
        monitored = load_spec(prop.rules)
        if load_spec(spec.source if spec.source.endswith(".toml") else spec.name) != spec:
            return Unknown(Evidence("k-induction"), IN_MEMORY, StopReason.NOT_SEARCHED)
        own = {p.name: p for p in catalogue_of(monitored)}
        return check_property(monitored, own.get(prop.name, prop), players, limits, infer, hints)
    start = time.perf_counter()
    try:
        backend = backend_for(spec, players, infer, hints, deadline_of(limits))
    except OutOfTime as stopped:
        return _inference_stopped(stopped, limits)
    if limits.time_limit is not None:
        left = max(0.5, limits.time_limit - (time.perf_counter() - start))
        limits = dataclasses.replace(limits, time_limit=left)
    return noting_inference(backend, decide(backend, prop, limits))


def _inference_stopped(stopped: OutOfTime, limits: Limits) -> Unknown:
    """The verdict when inferring strengthening invariants did not finish in time."""
    return Unknown(Evidence("k-induction", seconds=stopped.seconds),
                   f"limit: inferring strengthening invariants took longer than the {limits.time_limit:.0f} s given "
                   f"({stopped}, {len(stopped.remaining)} candidates left, cached for the next run)", StopReason.TIME)


def decide(backend: Backend, prop: Property, limits: Limits) -> Verdict:
    """The solver's verdict on one property with a backend already built."""
    if prop.kind in ("always", "never") and prop.state is not None:
        return _state_invariant(backend, prop, limits)
    if prop.kind in ("always", "never", "shows"):
        return _move_invariant(backend, prop, limits)
    if prop.kind == "sometimes":
        return _witness(backend, prop, limits)
    if prop.kind == "terminates":
        return terminates(backend, limits, prop)
    if prop.kind == "deadlock_free":
        return deadlock_free(backend, limits, prop)
    if prop.kind in ("allows", "only"):
        return permission(backend, prop, limits)
    if prop.kind == "in_range":
        return _in_range(backend, limits)
    return Unknown(Evidence("k-induction"), f"{prop.kind}: not a kind of property the solver decides",
                   StopReason.NOT_SEARCHED)


def _state_invariant(backend: Backend, prop: Property, limits: Limits) -> Verdict:
    start = time.perf_counter()
    deadline = deadline_of(limits)
    induction = backend.induction
    support = induction.support()
    assert prop.state is not None
    node = prop.state
    negate = prop.kind == "never"
    known = {c.name: c for c in induction.candidates}
    if prop.name in known and known[prop.name].text == prop.text:
        candidate = known[prop.name]
    else:
        candidate = Candidate(prop.name, "property", prop.text, induction.state_invariant(prop, induction.before),
                              induction.state_invariant(prop, induction.after, successor=True))
    note = (f"with {kept_invariants(backend)} "
            f"(support: {support.seconds:.2f} s, {support.queries} queries)")
    outcome = induction.consecution_of(candidate)
    if outcome.proved and induction.initial(candidate.before):
        return Proved(Evidence("k-induction", depth=1, seconds=time.perf_counter() - start, note=note))
    first = outcome
    if induction.initial(candidate.before):
        for k in range(2, largest_k(limits) + 1):
            if deadline is not None and time.perf_counter() > deadline:
                break
            invariant = (lambda state: z3.Not(backend.system.holds(node, state))) if negate else \
                (lambda state: backend.system.holds(node, state))
            attempt = induction.k_induction(invariant, k, prop.name)
            if attempt.proved:
                base = backend.search(backend.state_target(node, not negate), Limits(max_depth=k - 1, k=limits.k),
                                      deadline)
                if base.trace is None and base.ended in (Ended.DEPTH, Ended.UNREACHABLE):
                    return Proved(Evidence("k-induction", depth=k, seconds=time.perf_counter() - start, note=note))
                break
    if limits.proof_only:
        return _not_inductive(first, backend, start, largest_k(limits))
    target = violation_target(backend, prop)
    assert target is not None
    probe = probe_for(backend, target, limits, deadline)
    found = backend.search(target, limits, deadline, play=prop, probe=probe)
    seconds = time.perf_counter() - start
    decided = decided_by_search(found, seconds, f"reachable in {found.depth} moves",
                                 "no path of one step or more ends in a violation, and the initial state satisfies it")
    if decided is not None:
        return decided
    proved = k_proved(found, probe, backend, seconds, "no violation")
    if proved is not None:
        return proved
    return Unknown(Evidence("k-induction", depth=largest_k(limits), seconds=seconds),
                   unproved(first, backend.game, f"not inductive; {how_far(found, 'violation')}"),
                   stop_of(first, found))


def _not_inductive(outcome: Outcome, backend: Backend, start: float, depth: int) -> Unknown:
    """`Limits.proof_only`: the induction did not close, and no search was asked for."""
    return Unknown(Evidence("k-induction", depth=depth, seconds=time.perf_counter() - start),
                   unproved(outcome, backend.game, "not inductive; no search for a violation was asked"),
                   StopReason.INDUCTION)


def noting_inference(backend: Backend, verdict: Verdict) -> Verdict:
    """A proof made with inferred invariants in its support says so in its note, however it
    was made (a witness or refutation stands on its game alone)."""
    inferred = sum(1 for c in backend.induction.support().kept if c.origin == "inferred")
    if not inferred or not isinstance(verdict, (Proved, Unwitnessed)) or "inferred" in verdict.evidence.note:
        return verdict
    note = ((verdict.evidence.note + "; ") if verdict.evidence.note else "") + \
        f"with {inferred} strengthening invariants inferred from played games"
    return dataclasses.replace(verdict, evidence=dataclasses.replace(verdict.evidence, note=note))


def _in_range(backend: Backend, limits: Limits) -> Verdict:
    """`in_range`: every field's declared range (its typing candidate) is in the proved
    support, or else the shortest game that leaves one, by BMC."""
    start = time.perf_counter()
    support = backend.induction.support()
    left_out, outside = out_of_range(backend)
    note = (f"every field's declared range is inductive together with the {len(support.kept)} proved "
            f"strengthening invariants (support: {support.seconds:.2f} s)")
    if outside is None:
        return Proved(Evidence("k-induction", depth=1, seconds=time.perf_counter() - start, note=note))
    deadline = deadline_of(limits)
    probe = probe_for(backend, outside, limits, deadline)
    found = backend.search(outside, limits, deadline, probe=probe)
    seconds = time.perf_counter() - start
    decided = decided_by_search(found, seconds, f"a value outside its declared range after {found.depth} moves",
                                 "no path of one step or more leaves a declared range")
    if decided is not None:
        return decided
    proved = k_proved(found, probe, backend, seconds, "no value leaves its declared range")
    if proved is not None:
        return proved
    return Unknown(Evidence("k-induction", depth=1, seconds=seconds),
                   f"the ranges of {', '.join(left_out[:3])} are not inductive; {how_far(found, 'value out of range')}",
                   found.stop)


def _move_invariant(backend: Backend, prop: Property, limits: Limits) -> Verdict:
    start = time.perf_counter()
    support = backend.induction.support()
    outcome = backend.induction.move_step(prop)
    note = f"one step from every state satisfying the {kept_invariants(backend)}"
    if outcome.proved:
        return Proved(Evidence("k-induction", depth=1, seconds=time.perf_counter() - start, note=note))
    if limits.proof_only:
        return _not_inductive(outcome, backend, start, 1)
    target = violation_target(backend, prop)
    assert target is not None
    deadline = deadline_of(limits)
    probe = probe_for(backend, target, limits, deadline)
    found = backend.search(target, limits, deadline, play=prop, probe=probe)
    seconds = time.perf_counter() - start
    if found.trace is not None:
        return refuted_by(found, seconds, f"a violating move after {found.depth - 1} moves")
    if found.ended is Ended.UNREACHABLE:
        return Proved(Evidence("k-induction", depth=1, seconds=seconds, note="no violating move is reachable"))
    proved = k_proved(found, probe, backend, seconds, "no violating move")
    if proved is not None:
        return proved
    return Unknown(Evidence("k-induction", depth=1, seconds=seconds),
                   unproved(outcome, backend.game, f"not proved in one step; {how_far(found, 'violation')}"),
                   stop_of(outcome, found))


def prove_never_happens(spec: Spec, prop: Property, players: int, infer: bool = False,
                        seconds: float | None = None) -> Verdict:
    """Only the solver's cheap proof that a `sometimes` property never happens at `players`
    (its negation inductive with the support, one step), without the BMC search for a
    witness that `check_property` goes on to, which can take many seconds: a question
    whose answer is no is decided about as fast as the same question asked as `never`.
    `Unwitnessed` when proved, else `Unknown` (it may happen; nothing was searched).
    With `infer`, the support has inferred invariants too, found within `seconds`."""
    if prop.kind != "sometimes":
        return Unknown(Evidence("k-induction"), f"{prop.kind}: not a `sometimes` property", StopReason.NOT_SEARCHED)
    if players not in prop.players:
        return Unknown(Evidence("k-induction"), f"'{prop.name}' is not stated for {players} players",
                       StopReason.NOT_SEARCHED)
    limits = Limits(time_limit=seconds)
    try:
        backend = backend_for(spec, players, infer, deadline=deadline_of(limits) if infer else None)
    except OutOfTime as stopped:
        return _inference_stopped(stopped, limits)
    start = time.perf_counter()
    proof = _negation_inductive(backend, prop, start)
    if proof is not None:
        return proof
    return Unknown(Evidence("k-induction", depth=1, seconds=time.perf_counter() - start),
                   "its negation is not inductive with the proved strengthening invariants; no witness was searched",
                   StopReason.INDUCTION)


def _negation_inductive(backend: Backend, prop: Property, start: float) -> Verdict | None:
    """`Unwitnessed` when a `sometimes` property's negation holds initially and no step
    from a state satisfying the support breaks it; None when that is not proved."""
    induction = backend.induction
    if prop.state is not None:
        never = Candidate(f"never {prop.name}", "property", prop.text,
                          z3.Not(backend.system.holds(prop.state, induction.before)),
                          z3.Not(backend.system.holds(prop.state, induction.after, successor=True)))
        if induction.initial(never.before) and induction.consecution_of(never).proved:
            return Unwitnessed(Evidence("k-induction", depth=1, seconds=time.perf_counter() - start,
                                        note="its negation is inductive with the proved strengthening invariants"
                                             + inferred_note(backend)))
    elif induction.move_step(Property(prop.name, "never", prop.description, prop.rule_ids, prop.players,
                                      prop.expect, None, prop.move, prop.on, prop.text, prop.where)).proved:
        return Unwitnessed(Evidence("k-induction", depth=1, seconds=time.perf_counter() - start,
                                    note="no step from a state satisfying the proved invariants is such a move"
                                         + inferred_note(backend)))
    return None


def _witness(backend: Backend, prop: Property, limits: Limits) -> Verdict:
    start = time.perf_counter()
    proof = _negation_inductive(backend, prop, start)
    if proof is not None:
        return proof
    target = backend.state_target(prop.state, False) if prop.state is not None else backend.move_target(prop, False)
    deadline = deadline_of(limits)
    searched = None if deadline is None or limits.time_limit is None else \
        deadline - K_INDUCTION_SHARE * limits.time_limit
    found = backend.search(target, limits, searched, guide=prop.name, play=prop)
    seconds = time.perf_counter() - start
    if found.trace is not None:
        return Witnessed(Evidence("bmc", depth=found.depth, seconds=seconds, note=found.note), Played.of(found.trace),
                         found.trace.elections(), found.lower_bound)
    if found.ended is Ended.UNREACHABLE:
        return Unwitnessed(Evidence("bmc", depth=0, seconds=seconds,
                                    note="no path of one step or more ends there, and the initial state does not"))
    covered = searched_below(found)
    k = k_inductive(backend, target, covered, deadline)
    if k is not None:
        return Unwitnessed(Evidence("k-induction", depth=k, seconds=time.perf_counter() - start,
                                    note=f"its negation is {by_k_induction(backend, k, covered)}"))
    return Unknown(Evidence("bmc", depth=found.depth, seconds=time.perf_counter() - start),
                   how_far(found, "witness") + "; its negation is not k-inductive for a k the search covers",
                   found.stop)


def check_players(rules: Rules, players: int, names: tuple[str, ...] | None = None, limits: Limits = Limits(),
                  *_: Any, infer: bool = False, hints: bool = True, **__: Any) -> list[PropertyResult]:
    """The solver's verdicts on the named catalogue properties (all by default) of the
    rules for one player count (the `shrules check --backend smt` entry); `infer` and
    `hints` as for `backend_for`."""
    spec = rules.spec
    catalogue = catalogue_of(spec)
    wanted = [p for p in catalogue if (names is None or p.name in names) and players in p.players]
    # A property over monitored rules (the order of play, spec/order.py) is decided on
    # them: the property names them (data of the catalogue), so they are loaded by it.
    watched = [p for p in wanted if p.rules and p.rules != rules.name]
    wanted = [p for p in wanted if p not in watched]
    on_monitored: list[PropertyResult] = []     # judged, premises included, by the call on their rules
    for monitored in dict.fromkeys(p.rules for p in watched):
        on_monitored += check_players(Rules.named(monitored), players,
                                      tuple(p.name for p in watched if p.rules == monitored), limits,
                                      infer=infer, hints=hints)
    stopped = build_once(spec, players, infer, hints, limits, len(wanted)) if wanted else None
    results = []
    for prop in wanted:
        verdict = stopped or check_property(spec, prop, players, limits, infer, hints)
        results.append((prop, PropertyResult(prop.name, players, prop.kind, prop.rule_ids, prop.expect, verdict,
                                             Facts(prop.description, prop.group, backend="smt"))))
    # Each proof's premise must be reached, or it tests nothing (vacuity.py).
    return on_monitored + judge_premises(spec, players, results,
                                         lambda question: check_property(spec, question, players, limits, infer,
                                                                         hints))


def one_by_one(catalogue: tuple[Property, ...]) -> Callable[..., list[PropertyResult]]:
    """A `check_players` for the portfolio's `SolverBackend` (verify/portfolio.py) deciding
    each named property of `catalogue` on its own (`check_property`) under the request's
    rules: no inference built once for all and no premise judged (`check_players`
    does both), so a caller that asked `check_property` one property at a time (`shrules
    prove`, the mutation analysis's verdicts of the rules) gets the same verdicts through
    the portfolio. The properties are the caller's own (a mutation analysis reads the
    catalogue without a variant's overrides), found by name."""
    by_name = {prop.name: prop for prop in catalogue}

    def check(rules: Rules, players: int, names: tuple[str, ...] | None = None, limits: Limits = Limits(),
              *_: Any, infer: bool = False, hints: bool = True, **__: Any) -> list[PropertyResult]:
        chosen = [by_name[name] for name in names] if names is not None else list(catalogue)
        return [PropertyResult(prop.name, players, prop.kind, prop.rule_ids, prop.expect,
                               check_property(rules.spec, prop, players, limits, infer, hints),
                               Facts(prop.description, prop.group, backend="smt")) for prop in chosen]
    return check


def build_once(spec: Spec, players: int, infer: bool, hints: bool, limits: Limits, properties: int
               ) -> Unknown | None:
    """Build the backend for `properties` properties to be asked at one count, inference
    within their time together; the verdict for every one of them when inference did not
    finish, else None. Left to the first property, inference had only that property's
    time, and when it ran out each next property began it again, mining played games
    anew each time: a variant whose inference needs more than one property's time spent
    hours on one count."""
    if (hints and not infer) or limits.time_limit is None or backend_built(spec, players, infer, hints):
        return None
    within = Limits(time_limit=limits.time_limit * max(1, properties))
    try:
        backend_for(spec, players, infer, hints, deadline_of(within))
    except OutOfTime as stopped:
        return _inference_stopped(stopped, within)
    return None
