"""Whether a changed rule changes the game: the mutation analysis's equivalence questions.

A mutant that makes no game different cannot be killed, and counting it unkilled would
lower the score for nothing. Each question here is answered over every state satisfying
the rules' proved support (verify/smt/induction.py), hence every reachable state: a
rule that never fires, a change that makes the same moves, a change that only stops a
forced step one quiet move short; or, for two whole rule sets, a relational inductive
invariant over their product (verify/smt/relational.py). The backends are kept per rules
file (`backend_of_source`), since the mutation analysis loads the rules once per mutant.
"""

from __future__ import annotations

from collections.abc import Sequence

import z3  # type: ignore[import-untyped]

from spec.errors import SpecError
from spec.liveness import live_fields
from spec.model import Rule, Spec

from .backend import backend_of_source, new_backend
from .relational import Relation, equivalent, initial_related


def rules_never_fire(spec: Spec, players: int, rules: Sequence[Rule], hints: bool = True) -> bool:
    """Whether none of `rules` (rules of `spec`, or rule-local changes of them) is enabled
    in any state satisfying its proved strengthening invariants at `players`, hence in any
    reachable state: the mutation analysis's proof that a mutated rule, before and after
    the change, never fires there (say a power no board of that count has). The backend
    is kept per rules file, so the support is proved once however often the rules are
    loaded again. Without `hints`, the invariants are inferred (`backend_for`)."""
    return backend_of_source(spec, players, hints).induction.never_fires(rules)


def rule_makes_the_same_moves(spec: Spec, players: int, base: Rule, mutant: Rule, hints: bool = True,
                              also: Sequence[Rule] = ()) -> bool:
    """Whether rule `base` of `spec` and a change of it (`mutant`, same name and
    parameters) make the same moves, with the same odds and effects, in every state
    satisfying the rules' proved strengthening invariants at `players` (a requirement the
    others imply, a bound no reachable state meets). Effects are compared on the fields
    live where the move goes, for both rule sets (spec/liveness.py; `also`: the other
    rules the same mutant changes, whose reads count too): a change that only leaves a
    different value in stale bookkeeping changes no game. The backend is kept as for
    `rules_never_fire`."""
    return backend_of_source(spec, players, hints).induction.same_moves(
        base, mutant, live_fields(spec, [mutant, *also]))


def rule_stops_a_quiet_step_short(spec: Spec, players: int, base: Rule, mutant: Rule, hints: bool = True) -> bool:
    """Whether a change of a forced rule of `spec` only leaves the game one quiet forced
    move short of where the rule goes, which that move then reaches
    (`Induction.same_moves_but_a_quiet_step`): the same games but for bookkeeping."""
    return backend_of_source(spec, players, hints).induction.same_moves_but_a_quiet_step(
        base, mutant, live_fields(spec, [mutant]))


def rule_sets_play_the_same_games(spec: Spec, other: Spec, players: int, seconds: float = 60.0,
                                  hints: bool = True) -> Relation:
    """Whether two rule sets with the same fields and rules by name (a mutant and the rules
    it changes) play the same games at `players`, proved by a relational inductive
    invariant over their product (verify/smt/relational.py), each side constrained by its
    own proved support (without `hints`, inferred). `relation.proved` only when every step
    is proved."""
    try:
        mine, theirs = backend_of_source(spec, players, hints), new_backend(other, players, hints)
        first, second = mine.system.state("pair_a"), theirs.system.state("pair_b")
        relation = equivalent(mine.system, mine.induction.support_terms(first), theirs.system,
                              theirs.induction.support_terms(second), first, second, seconds)
        if relation.proved and not initial_related(mine.system, theirs.system, first, second, relation):
            relation.proved, relation.reason = False, "the initial states differ"
    except (SpecError, KeyError, ValueError, TypeError, IndexError, z3.Z3Exception) as error:
        relation = Relation(reason=f"not comparable: {str(error)[:80]}")
    return relation
