"""Whether every game ends: `terminates` and `deadlock_free` decided by the solver (R-W5).

A game ends when no game goes on for ever and none stops with no legal move before a
win. `deadlock_free` is proved phase by phase in one step from the support, a phase
where that fails by the search for a game stuck there (verify/smt/reach.py: none at any
length proves it, one found refutes); `terminates` adds a ranking every move decreases
(proved with the declared ranges it counts down from, when the support leaves them out)
or, failing one, searches for a game that comes back to a state (verify/smt/lasso.py).
"""

from __future__ import annotations

import dataclasses
import time

import z3  # type: ignore[import-untyped]

from spec.properties import Property

from ..results import Evidence, Limits, Proved, Refuted, StopReason, Unknown, Verdict
from .backend import Backend
from .bmc import Ended
from .deep import out_of_range
from .lasso import CYCLE_MOVES, never_ends
from .reach import (REACHED, by_k_induction, deadline_of, k_seconds, probe_for, reach, refuted_by, stop_of,
                    unproved, unreached)


def terminates(backend: Backend, limits: Limits = Limits(), prop: Property | None = None) -> Verdict:
    """Every maximal game ends in a win (R-W5), as the explicit search reads it: no game
    goes on for ever and none stops with no legal move before a win. Proved by a ranking
    every move decreases together with deadlock freedom (`deadlock_free`); refuted by the
    shortest game to a deadlock, or to a state that a cycle of a few moves brings back
    (verify/smt/lasso.py), random games that come back to a state leading the search when
    it stalls (`prop`, as for `reach`). A finite game that stops short of a win does not
    end: a ranking alone proves only that every game is finite."""
    ranking = backend.strengthening.ranking
    outcome, bound = backend.induction.ranking()
    ranged = ""
    if not outcome.proved and outcome.counterexample is not None and ranking is not None and k_seconds(limits):
        ranges = _ranges_hold(backend, limits)
        if ranges is not None:
            lemmas, ranged = ranges
            outcome, bound = backend.induction.ranking(lemmas)
    stuck = deadlock_free(backend, limits, None if prop is None else dataclasses.replace(prop, kind="deadlock_free"))
    if isinstance(stuck, Refuted):
        return stuck
    if outcome.proved and ranking is not None:
        which = "the ranking found in played games" if ranking.where.file == "<ranking>" else "the ranking"
        finite = (f"{which} {ranking.text} is >= 0 and decreases on every move{ranged}; no game is longer than "
                  f"{bound} moves")
        seconds = outcome.seconds + stuck.evidence.seconds
        if isinstance(stuck, Proved):
            return Proved(Evidence("ranking", depth=1, seconds=seconds,
                                   note=f"{finite}; every state but a won game has a move"))
        assert isinstance(stuck, Unknown)
        return Unknown(Evidence("ranking", seconds=seconds),
                       f"{finite}, but a game may stop with no legal move before a win: {stuck.reason}", stuck.stop)
    lead = "the ranking is not proved"
    cycle = backend.cycle()
    reached = reach(backend, cycle.target(), limits, prop)
    if reached.trace is not None:
        closed = cycle.close(reached.trace, deadline_of(limits))
        if closed is not None:
            reached.trace, length = closed
            return refuted_by(reached, outcome.seconds + reached.seconds, never_ends(reached.depth, length),
                              REACHED)
    cycling = f"a state that starts a cycle of at most {CYCLE_MOVES} moves"
    if reached.ended is Ended.UNREACHABLE:
        lead += f" (no game reaches {cycling}; a longer one is not looked for)"
    else:
        lead += unreached(reached, cycling)
    return Unknown(Evidence("ranking", seconds=outcome.seconds), unproved(outcome, backend.game, lead),
                   stop_of(outcome, reached))


def _ranges_hold(backend: Backend, limits: Limits) -> tuple[list[z3.BoolRef], str] | None:
    """The declared ranges the support leaves out, as terms over the induction's state
    before a step, and how they were proved (no game leaves one: the search for one
    (`reach`) ended by k-induction, `KProbe`); None when they are not proved. A ranking
    counts down from a field's declared bound: under no_topdecking at 5 players the
    support once allowed a sixth Liberal policy, which no game reaches (2-inductive), and
    the ranking was negative there (tests/test_infer.py leaves those bounds out again).
    Asked only when the property's time holds k-induction (`k_seconds`): with less (the
    mutation gate's first pass), the search for a game that comes back to a state, which
    can refute, has the time alone."""
    left_out, outside = out_of_range(backend)
    if outside is None:
        return None
    probe = probe_for(backend, outside, limits, deadline_of(limits))
    found = reach(backend, outside, limits, probe=probe)
    if found.ended is Ended.UNREACHABLE:
        how = "no path of one step or more leaves them"
    elif found.ended is Ended.K_INDUCTIVE and probe is not None and probe.proved is not None:
        how = f"that none leaves them is {by_k_induction(backend, probe.proved, found.depth)}"
    else:
        return None
    system, before = backend.system, backend.induction.before
    lemmas = [term for name, term in system.typing(before) if name in left_out]
    return lemmas, f" within the declared ranges of {', '.join(left_out)} ({how})"


def deadlock_free(backend: Backend, limits: Limits = Limits(), prop: Property | None = None) -> Verdict:
    """Every state a game reaches, but a finished game, has a legal move (R-W5). Proved
    phase by phase from the strengthening invariants in one step; where a phase has a
    counterexample to that, the shortest game to a state stuck there is searched for
    (`reach`): found, it is the refutation; proved that none exists (by the distance
    bound, or by k-induction as the search goes, `KProbe`), the phase is kept on the
    backend (`terminates` asks again) and the next phase is asked. Under
    veto_chaos_first a draw is stuck only with a short pile, which the rules reshuffle
    after a veto's chaos took its top; no invariant found in played games says so, 16
    moves of k-induction do."""
    start = time.perf_counter()
    deadline = deadline_of(limits)
    by_k = backend.stuck_free
    stop = StopReason.INDUCTION
    while True:
        outcome = backend.induction.deadlock_free(proved=by_k)
        if outcome.proved:
            how = "every state satisfying the proved invariants, but a finished game, has a move"
            if by_k:
                how = (f"no game gets stuck in phase {', '.join(by_k)} (k-induction, k = "
                       f"{', '.join(str(k) for k in by_k.values())}); in every other phase {how}")
            return Proved(Evidence("k-induction", depth=max(by_k.values(), default=1),
                                   seconds=time.perf_counter() - start, note=how))
        lead = "a state satisfying the proved invariants has no move"
        if outcome.counterexample is None:
            stop = outcome.stop
            break
        if deadline is not None and time.perf_counter() > deadline:
            lead += " (the property's time ran out)"
            stop = StopReason.TIME
            break
        phase = backend.game.phase(outcome.counterexample.states[0])
        target = backend.stuck_target([phase])
        probe = probe_for(backend, target, limits, deadline)
        reached = reach(backend, target, limits, prop, probe)
        if reached.trace is not None and not backend.game.legal_moves(reached.trace.end):
            return refuted_by(reached, time.perf_counter() - start, f"deadlock: no legal move in phase {phase}",
                              REACHED)
        if reached.ended is Ended.UNREACHABLE:
            by_k[phase] = 1
        elif reached.ended is Ended.K_INDUCTIVE and probe is not None and probe.proved is not None:
            by_k[phase] = probe.proved
        else:
            lead += unreached(reached)
            stop = stop_of(outcome, reached)
            break
    return Unknown(Evidence("k-induction", seconds=time.perf_counter() - start), unproved(outcome, backend.game, lead),
                   stop)
