"""The stepwise no-leak condition in Z3: one step of two copies, under the proved support.

verify/knowledge/stepwise.py proves the view a function of the observation history by
checking, over every reachable transition, that a seat's view after a move is a function
of its view before and what the move shows it. Here the same condition is one relational
query per rule and seat: two states s and t that satisfy the inductive support (the
typing, spec/invariants.toml and the catalogue's invariants that the Houdini fixpoint of
verify/smt/induction.py proves, so they hold in every reachable state), give the seat equal
views, and step by the same rule with equal observations (selfcompose.py's encoding), to
states whose views of the seat differ. The reachable transitions are among those the query
ranges over, so if every query is unsatisfiable the relation is a function over them: proved.
A satisfiable query may pair unreached states, so it is never a leak: unknown, naming the
rule and seat (the belief search, or BMC, is where a real pair of games is found). A
timeout is unknown too.

With `every`, a query that is not unsatisfiable does not end the proof: the rest are asked,
and `open` lists every rule some seat's query did not close (a rule open for one seat is
not asked again for the others). A shortest leak ends with a move of an open rule
(verify/knowledge/directed.py), so the directed search looks only where they are taken;
`complete` says every rule was asked, so the list is all of them.

Every seat is asked for, so no symmetry is assumed. The step by one rule with a weight is
taken without it: the query ranges over more steps than the engine's, never fewer.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import z3  # type: ignore[import-untyped]

from spec.invariants import load_invariants
from spec.model import Rule, Spec

from .backend import catalogue_of
from .induction import Induction, OutOfTime
from .selfcompose import SelfComposition, Unsupported
from ..results import KnowledgeVerdict
from .system import Step


@dataclass(slots=True)
class Outcome:
    """`proved` (every query unsatisfiable), or `unknown` with the first query that was not;
    `open`, the rules whose query was not unsatisfiable for some seat, and `complete`, that
    every rule was asked for (so that no rule outside `open` is open)."""

    verdict: KnowledgeVerdict
    reason: str
    queries: int = 0
    support: int = 0
    seconds: float = 0.0
    open: list[str] = field(default_factory=list)
    complete: bool = False


def _observation_equal(pair: SelfComposition, rule: Rule, a: Step, b: Step) -> z3.BoolRef:
    """The two steps by `rule` show the seat the same observation (selfcompose.py)."""
    return z3.And([pair.public_equal(a.after, b.after), *pair.shown_equal_by(rule, a, b)])


def decide(spec: Spec, players: int, time_limit: float | None = None, progress: object = None,
           every: bool = False) -> Outcome:
    """Every (seat, rule) query (module docstring), within `time_limit` seconds in all; with
    `every`, past the first that is not unsatisfiable, to list every open rule."""
    started = time.monotonic()
    deadline = None if time_limit is None else started + time_limit
    strengthening = load_invariants(spec)      # its spec: the rules with the invariants' definitions
    try:
        pairs = [SelfComposition(strengthening.spec, players, seat) for seat in range(players)]
    except Unsupported as error:
        return Outcome(KnowledgeVerdict.UNKNOWN, str(error))
    system = pairs[0].system
    induction = Induction(system, strengthening, tuple(p for p in catalogue_of(spec) if not p.rules))
    try:
        support = induction.support(None if deadline is None else time.perf_counter() + (deadline - time.monotonic()))
    except OutOfTime as stopped:
        return Outcome(KnowledgeVerdict.UNKNOWN, f"the inductive support was not proved in time ({stopped})",
                       seconds=time.monotonic() - started)
    queries = 0
    opened: list[str] = []
    first = ""
    for seat, pair in enumerate(pairs):
        pair.system = system
        for rule in strengthening.spec.rules:
            if rule.name in opened:
                continue
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                hit = f"the time limit of {time_limit:g} s was hit at seat {seat + 1}, rule '{rule.name}'"
                return Outcome(KnowledgeVerdict.UNKNOWN,
                               f"{first}; {hit}" if first else hit, queries, len(support.kept),
                               time.monotonic() - started, opened)
            tag = f"q{seat}.{rule.name}"
            s, t, s2, t2 = (system.state(f"{tag}.{name}") for name in ("s", "t", "s2", "t2"))
            a, b = system.rule_step(s, s2, rule, f"{tag}.a"), system.rule_step(t, t2, rule, f"{tag}.b")
            solver = z3.Solver()
            if left is not None:
                solver.set("timeout", max(1, int(left * 1000)))
            solver.add(*induction.support_terms(s), *induction.support_terms(t))
            solver.add(pair.view_equal(s, t, f"{tag}.v0"), a.relation, b.relation, _observation_equal(pair, rule, a, b))
            solver.add(z3.Not(pair.view_equal(s2, t2, f"{tag}.v1")))
            answer = solver.check()
            queries += 1
            if answer != z3.unsat:
                why = ("two states the support allows, with one view, step by it with one observation to different "
                       "views (they may be unreached)" if answer == z3.sat else "the solver gave up")
                if not every:
                    return Outcome(KnowledgeVerdict.UNKNOWN, f"seat {seat + 1}, rule '{rule.name}': {why}", queries,
                                   len(support.kept), time.monotonic() - started, [rule.name])
                first = first or f"seat {seat + 1}, rule '{rule.name}': {why}"
                opened.append(rule.name)
                if callable(progress):
                    progress(f"{players} players: seat {seat + 1}, rule '{rule.name}' does not close "
                             f"({time.monotonic() - started:.0f} s)")
                continue
            if callable(progress):
                progress(f"{players} players: seat {seat + 1}, rule '{rule.name}' closes "
                         f"({time.monotonic() - started:.0f} s)")
    if opened:
        return Outcome(KnowledgeVerdict.UNKNOWN,
                       f"{first}; every rule asked, open: {', '.join(opened)}", queries, len(support.kept),
                       time.monotonic() - started, opened, complete=True)
    return Outcome(KnowledgeVerdict.PROVED,
                   f"every seat, every rule: a seat's view after a move is a function of its view before "
                   f"and what the move shows it, in every state the support ({len(support.kept)} invariants) allows",
                   queries, len(support.kept), time.monotonic() - started, complete=True)
