"""The permissions `allows` and `only` decided by the solver.

An `allows` property says a move is legal wherever its state holds; an `only` property
that no other move is. Each is proved in one step from the support, or, where that
fails, by the search for a game to a breach (verify/smt/reach.py): none at any length
proves it, one found refutes it.
"""

from __future__ import annotations

import time

from spec.properties import Property

from ..results import Evidence, Limits, Proved, Unknown, Verdict
from .backend import Backend
from .bmc import Ended, move_target
from .reach import (REACHED, deadline_of, k_proved, kept_invariants, probe_for, reach, refuted_by, stop_of, unproved,
                    unreached)
from .targets import lacking_target


def permission(backend: Backend, prop: Property, limits: Limits = Limits()) -> Verdict:
    """`allows` and `only`: proved from the strengthening invariants in one step; where
    that fails, the shortest game to a state breaking it is searched for (`reach`):
    found, it is the refutation; proved that none exists (by the distance bound, or by
    k-induction as the search goes, `KProbe`), the permission is proved; else the verdict
    stays unknown with the counterexample to induction. The k-induction is needed
    for strict_term_limits at 7 players: its Presidential Candidate
    cannot have the last President next with five alive, but only because every way
    round to him takes more rejections than the Election Tracker allows (16-inductive)."""
    start = time.perf_counter()
    deadline = deadline_of(limits)
    induction = backend.induction
    outcome = induction.allowed(prop) if prop.kind == "allows" else induction.obliged(prop)
    note = f"in every state satisfying the {kept_invariants(backend)}"
    if outcome.proved:
        return Proved(Evidence("k-induction", depth=1, seconds=outcome.seconds, note=note))
    what = "no such move is legal" if prop.kind == "allows" else "another move is legal"
    lead = f"a state satisfying the proved invariants where {what}"
    stop = outcome.stop
    if outcome.counterexample is not None:
        target = (lacking_target(backend.system, prop) if prop.kind == "allows"
                  else move_target(induction.breaks_only(prop)))
        probe = probe_for(backend, target, limits, deadline)
        reached = reach(backend, target, limits, prop, probe)
        if reached.trace is not None:
            moves = reached.depth if prop.kind == "allows" else reached.depth - 1
            return refuted_by(reached, outcome.seconds + reached.seconds, f"{prop.name}: after {moves} moves {what}",
                              REACHED)
        if reached.ended is Ended.UNREACHABLE:
            return Proved(Evidence("k-induction", depth=1, seconds=time.perf_counter() - start,
                                   note=f"no move from a state satisfying the {kept_invariants(backend)} leads to a "
                                        f"breach ({what}), and the game does not start in one"))
        proved = k_proved(reached, probe, backend, time.perf_counter() - start, f"no breach ({what})")
        if proved is not None:
            return proved
        lead += unreached(reached)
        stop = stop_of(outcome, reached)
    return Unknown(Evidence("k-induction", seconds=outcome.seconds), unproved(outcome, backend.game, lead), stop)
