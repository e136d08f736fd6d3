"""Two rule sets play the same games: a relational inductive invariant over their product.

The product search of `shrules diff` proves two rule sets equivalent by visiting every
pair of states, which stops being possible at 7 players. The solver can prove it for any
count instead, by finding a relation between the states of the two that

- holds between the two initial states,
- is kept by every move both make from related states (the same rule with the same
  parameters: the products move in lockstep), and
- lets the same moves be made from related states: the same rules enabled for the same
  parameters, with the same odds, by the same seat, revealing the same; and, once a
  game is over, the same winner and the same way of winning;
- and never lets the second rule set step outside the declared ranges of its fields
  (a value out of range is a broken rule even in a field no game reads again).

Then, by induction on the moves, every game of one is a game of the other with the same
odds, reveals and ending: the two are equivalent, at every depth, for that count.

The relation searched for is, field by field, "the field is equal in both states, except
in the situations of P(field)", a situation being the phase and the values of the flags
(the bool and enum fields) of the first state, with the phase itself always equal, and
each state also satisfying its own rule set's proved support (verify/smt/induction.py:
the strengthening invariants and catalogue invariants the solver proved inductive for
that rule set). It starts with every P empty (the states equal) and is weakened the
Houdini way: a move that leads from related states to a pair whose field differs in
situation q adds q to P(field), until no move breaks the relation. The situations only
grow, so this ends. A value left in a field that is dead where the move goes
(spec/liveness.py) just widens P there; a value a later move reads shows up as moves that
differ, and the proof fails, as it must. Situations finer than the phase keep apart the
paths through one phase (a session that ended in a veto, one that enacted a policy).

The answer is True only when the solver proves every step; a timeout, a rule set whose
fields or rules do not line up, or any move that may differ gives False (not proved:
nothing is claimed). The one-step comparison of a single changed rule
(`Induction.same_moves`) is the special case where the difference never outlives one move.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import z3  # type: ignore[import-untyped]

from spec.model import Rule, Spec

from .system import State, System
from .translate import Env, Term

PHASE = "phase"
RECHECK_EVERY = 16
"""Widenings between two checks that related states still make the same moves: a relation
too weak for that stays too weak, so a rule set that differs fails early."""


Key = tuple[int, ...]
"""Where a field may differ: the phase, then the values of the flags (every bool and enum
field) in the first state, as a model gave them."""


@dataclass(slots=True)
class Relation:
    """Where each field may differ between the two states (keys), and the outcome."""

    differ: dict[str, set[Key]] = field(default_factory=dict)
    flags: tuple[str, ...] = ()
    proved: bool = False
    reason: str = ""
    queries: int = 0
    seconds: float = 0.0

    def at(self, state: State, key: Key) -> z3.BoolRef:
        """`state` is in the situation `key` names."""
        return z3.And(state[PHASE] == key[0], *[state[name] == (bool(value) if z3.is_bool(state[name]) else value)
                                                for name, value in zip(self.flags, key[1:])])

    def holds(self, first: State, second: State) -> z3.BoolRef:
        """The relation between two states."""
        parts = [first[PHASE] == second[PHASE]]
        for name, keys in self.differ.items():
            equal = first[name] == second[name]
            parts.append(equal if not keys else z3.Or(equal, *[self.at(first, key) for key in sorted(keys)]))
        return z3.And(parts)

    def fields_that_differ(self) -> list[str]:
        """The fields that may differ somewhere, by name."""
        return sorted(name for name, keys in self.differ.items() if keys)


@dataclass(frozen=True, slots=True)
class _Move:
    """One rule's move from a state: its guard, parameters, effects, odds, actor, reveals."""

    guard: z3.BoolRef
    variables: dict[str, Term]
    after: State
    weight: Term | None
    actor: Term | None
    reveals: tuple[Term, ...]


def lined_up(a: Spec, b: Spec) -> str:
    """Why two rule sets cannot be compared move for move (empty when they can): the same
    fields of the same types, the same phases, the same rules by name with the same phase,
    kind of actor and parameters, and the same things revealed."""
    if [(f.name, f.type) for f in a.fields] != [(f.name, f.type) for f in b.fields]:
        return "the state fields differ"
    if a.enums.get("phase") != b.enums.get("phase"):
        return "the phases differ"
    if [r.name for r in a.rules] != [r.name for r in b.rules]:
        return "the rules differ in name or order"
    for first, second in zip(a.rules, b.rules):
        if (first.phase, first.actor) != (second.phase, second.actor):
            return f"rule '{first.name}' changes its phase or kind of actor"
        if [(p.name, p.type) for p in first.params] != [(p.name, p.type) for p in second.params]:
            return f"rule '{first.name}' changes its parameters"
        if [name for name, _ in first.reveals] != [name for name, _ in second.reveals]:
            return f"rule '{first.name}' changes what it reveals"
    return ""


def _move(system: System, rule: Rule, before: State) -> _Move:
    guard, variables, effects, weight = system.rule_parts_weighted(rule, before, "pair")
    after = State({name: effects.get(name, term) for name, term in before.fields.items()})
    env = Env(before.fields, ranges=dict(system.ranges.rule_names(rule)))
    env.local.update(variables)
    for name, node in rule.lets:
        env.local[name] = system.translator.term(node, env)
    actor = system.translator.term(rule.actor_seat, env) if rule.actor_seat is not None else None
    reveals = tuple(system.translator.term(node, env) for _, node in rule.reveals)
    return _Move(guard, variables, after, weight, actor, reveals)


def equivalent(a: System, support_a: list[z3.BoolRef], b: System, support_b: list[z3.BoolRef],
               first: State, second: State, seconds: float = 60.0, timeout_ms: int = 20_000) -> Relation:
    """Search the relation between `first` (a state of `a`, constrained by `support_a`)
    and `second` (of `b`, `support_b`); `relation.proved` when one makes the two
    equivalent (see the module docstring)."""
    started = time.monotonic()
    flags = tuple(name for name, kind in a.kinds.items() if kind in ("bool", "enum") and name != PHASE)
    relation = Relation({name: set() for name in first.fields if name != PHASE}, flags)
    why = lined_up(a.spec, b.spec)
    if why:
        relation.reason = why
        return relation
    for name in first.fields:
        if first[name].sort() != second[name].sort():
            relation.reason = f"field {name} is encoded differently"
            return relation
    phase = first[PHASE]
    moves = []
    for rule_a, rule_b in zip(a.spec.rules, b.spec.rules):
        move_a, move_b = _move(a, rule_a, first), _move(b, rule_b, second)
        if any(move_a.variables[p].sort() != move_b.variables[p].sort() for p in move_a.variables):
            relation.reason = f"the parameters of '{rule_a.name}' are encoded differently"
            return relation
        moves.append((rule_a, move_a, move_b))
    assumed = [*support_a, *support_b]

    def ask(*formulas: z3.BoolRef) -> tuple[z3.CheckSatResult, z3.ModelRef | None]:
        relation.queries += 1
        solver = z3.Solver()
        solver.set("timeout", timeout_ms)
        solver.add(*assumed, relation.holds(first, second), *formulas)
        result = solver.check()
        return result, solver.model() if result == z3.sat else None

    def fail(reason: str) -> Relation:
        relation.reason = reason
        relation.seconds = time.monotonic() - started
        return relation

    def same_moves() -> str:
        """Why related states may make different moves (empty when they cannot). The
        relation only grows weaker, so once this fails it fails for good."""
        for rule, move_a, move_b in moves:
            differs = [z3.Xor(move_a.guard, move_b.guard)]
            both = z3.And(move_a.guard, move_b.guard)
            if move_a.weight is not None and move_b.weight is not None:
                differs.append(z3.And(both, move_a.weight != move_b.weight))
            elif (move_a.weight is None) != (move_b.weight is None):
                return f"'{rule.name}' has odds in one rule set only"
            if move_a.actor is not None and move_b.actor is not None:
                differs.append(z3.And(both, move_a.actor != move_b.actor))
            differs += [z3.And(both, x != y) for x, y in zip(move_a.reveals, move_b.reveals)]
            result, _ = ask(z3.Or(differs))
            if result != z3.unsat:
                return f"related states may differ in the moves of '{rule.name}'"
            # A value outside its declared range is a broken rule even where no game reads it.
            out_of_range = [z3.Not(term) for _, term in b.typing(move_b.after)]
            if out_of_range:
                result, _ = ask(move_b.guard, z3.Or(out_of_range))
                if result != z3.unsat:
                    return f"'{rule.name}' may leave a value outside its declared range"
        return ""

    # Weaken the relation until every move keeps it.
    changed, widenings = True, 0
    while changed:
        changed = False
        failed = same_moves()
        if failed:
            return fail(failed)
        for rule, move_a, move_b in moves:
            while True:
                if time.monotonic() - started > seconds:
                    return fail(f"no relation found in {seconds:.0f} s")
                kept = relation.holds(move_a.after, move_b.after)
                result, model = ask(move_a.guard, move_b.guard, z3.Not(kept))
                if result == z3.unsat:
                    break
                if result == z3.unknown or model is None:
                    return fail(f"the solver gave up on '{rule.name}'")
                if not z3.is_true(model.eval(move_a.after[PHASE] == move_b.after[PHASE], model_completion=True)):
                    return fail(f"'{rule.name}' may lead the two to different phases")
                key = tuple(_value(model, move_a.after[name]) for name in (PHASE, *flags))
                widened = False
                for name, keys in relation.differ.items():
                    same = model.eval(move_a.after[name] == move_b.after[name], model_completion=True)
                    if not z3.is_true(same) and key not in keys:
                        keys.add(key)
                        widened = True
                if not widened:
                    return fail(f"'{rule.name}': the relation cannot be weakened further")
                changed = True
                widenings += 1
                if widenings % RECHECK_EVERY == 0:
                    failed = same_moves()
                    if failed:
                        return fail(failed)
    failed = same_moves()
    if failed:
        return fail(failed)
    over = a.phases.index("over") if "over" in a.phases else -1
    if over >= 0:
        ending = z3.And([first[name] == second[name] for name in ("winner", "how") if name in first.fields])
        result, _ = ask(phase == over, z3.Not(ending))
        if result != z3.unsat:
            return fail("related finished games may end differently")
    relation.proved = True
    relation.seconds = time.monotonic() - started
    return relation


def initial_related(a: System, b: System, first: State, second: State, relation: Relation) -> bool:
    """Whether the two initial states are related (they are equal when the two rule sets
    share their fields' initial values and numbers)."""
    solver = z3.Solver()
    solver.add(a.init(first), b.init(second), z3.Not(relation.holds(first, second)))
    return bool(solver.check() == z3.unsat)



def _value(model: z3.ModelRef, term: Term) -> int:
    """A bool or bit-vector term's value in a model, as an int."""
    value = model.eval(term, model_completion=True)
    if z3.is_bool(value):
        return int(z3.is_true(value))
    return int(value.as_long())
