"""The rules a proof rests on: the requirements in the unsat cores of its induction steps.

`prove_never_happens` (check.py) proves that a `sometimes` question never happens by
induction: the support (the proved invariants) and "not yet" in s, one move, "now" in s'
is unsatisfiable for every rule. Here each rule's step is asked again with every one of its
requirements and every invariant of the support as a tracked assertion; the unsat core
names the requirements that blocked the move and the invariants it needed. Each invariant
so needed is itself inductive, and its steps are asked the same way, until no new
invariant is named. The requirements named along the way are what the proof used: a
requirement left out of every core was not needed for it.

Not followed: the typing candidates (the declared ranges of the fields), and the initial
state (which only says where the game starts, from the state's `init` values). A core is
one sufficient set, not the smallest: z3 does not minimise it, so a rule named may be
replaceable by another; none is named that the proof did not use.
"""

from __future__ import annotations

import time
from typing import Any

import z3  # type: ignore[import-untyped]

from spec.model import Spec
from spec.properties import Property

from .backend import backend_built, backend_for
from .induction import Candidate
from .system import Step

STEP_TIMEOUT_MS = 5_000


def proof_rule_ids(spec: Spec, prop: Property, players: int, seconds: float,
                   infer: bool = False) -> tuple[str, ...] | None:
    """The rule IDs of the requirements the proof that `prop` never happens at `players`
    used, or None when the one-step proof does not go through (or took longer than
    `seconds`: the caller's, verify/lawyer/grounds.py `CORE_SECONDS`). With
    `infer`, the proof whose support has inferred invariants: taken only where that
    support was already built in this process (by the proof itself), since building it
    again costs what inferring did."""
    if infer and not backend_built(spec, players, infer=True):
        return None
    backend = backend_for(spec, players, infer)
    induction = backend.induction
    system = backend.system
    before, after = induction.before, induction.after
    support = list(induction.support().kept)
    deadline = time.perf_counter() + seconds
    requirement_of: dict[str, str] = {}
    invariant_of: dict[str, Candidate] = {}
    parts: dict[str, Any] = {}
    for rule in spec.rules:
        frame, variables, effects, _, required = system.rule_parts_apart(rule, before, "core")
        moved = z3.And([after[name] == effects.get(name, before[name]) for name in system.kinds])
        step = Step(before, after, z3.BitVecVal(system.rule_index[rule.name], system.selector_width),
                    z3.And(frame, moved), {rule.name: variables}, {rule.name: frame}, system.rule_index)
        tracked = []
        for number, (requirement, term) in enumerate(zip(rule.requires, required)):
            label = z3.Bool(f"core.{rule.name}.{number}")
            requirement_of[str(label)] = requirement.rule_id
            tracked.append((label, term))
        parts[rule.name] = (step, tracked)
    for number, candidate in enumerate(support):
        invariant_of[f"core.inv.{number}"] = candidate
    for name, (step, tracked) in list(parts.items()):
        # one solver per rule, the step, its requirements and the support asserted once;
        # each question about it pushed and popped
        solver = z3.SolverFor("QF_BV")
        solver.set("timeout", STEP_TIMEOUT_MS)
        solver.set("core.minimize", True)
        solver.add(step.relation)
        for label, term in tracked:
            solver.assert_and_track(term, label)
        for label_name, candidate in invariant_of.items():
            solver.assert_and_track(candidate.before, z3.Bool(label_name))
        parts[name] = (step, solver)

    def cores(assumed: z3.BoolRef, bad: Any, rules: list[str]) -> set[str] | None:
        """The labels in the cores of every rule's step, or None if a step is satisfiable."""
        named: set[str] = set()
        for name in rules:
            if time.perf_counter() > deadline:
                return None
            step, solver = parts[name]
            solver.push()
            solver.add(assumed, bad(step))
            result = solver.check()
            core = {str(item) for item in solver.unsat_core()} if result == z3.unsat else None
            solver.pop()
            if core is None:
                return None
            named |= core
        return named

    every = [rule.name for rule in spec.rules]
    if prop.state is not None:
        node = prop.state
        found = cores(z3.Not(system.holds(node, before)), lambda step: system.holds(node, after, successor=True),
                      every)
    else:
        assert prop.move is not None
        move = prop.move
        found = cores(z3.BoolVal(True), lambda step: system.holds_on_move(move, step, prop.on),
                      [rule for rule in prop.on if rule in parts])
    if found is None:
        return None
    ids: set[str] = set()
    followed: set[str] = set()
    todo: list[set[str]] = [found]
    while todo:
        named = todo.pop()
        ids |= {requirement_of[label] for label in named if label in requirement_of}
        for label in sorted(named - followed):
            invariant = invariant_of.get(label)
            if invariant is None or invariant.origin == "typing":
                continue
            followed.add(label)
            more = cores(invariant.before, lambda step, c=invariant: z3.Not(c.after), every)
            if more is None:
                return None
            todo.append(more)
    return tuple(sorted(ids))
