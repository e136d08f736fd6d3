"""Targets that say no move is legal: the breach of an `allows` permission, and (for
`Backend.stuck_target`) a game stuck before its end.

"No move of these rules is legal" is "for all parameter values, the guard is false";
the unrolled search hands its terms to a bit-blasting solver that takes no quantifier,
so the values are spelled out over each parameter's finite range, as long as they are
few enough (`EXPANSION_LIMIT`). Nothing here is built per spec or count: the functions
read the transition system they are given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import product
from typing import Any

import z3  # type: ignore[import-untyped]

from spec.model import Rule
from spec.properties import Property

from .bmc import Target, state_target
from .system import State, System


def lacking_target(system: System, prop: Property) -> Target | None:
    """The target "an `allows` property's state holds and no move it allows is legal"
    (None when its parameters have too many values to spell out: `no_move`)."""
    assert prop.state is not None and prop.move is not None
    state_node, move_node = prop.state, prop.move
    rules = [system.spec.rule(name) for name in prop.on if name in system.rule_index]
    if not expandable(system, rules):
        return None

    def lacking(state: State) -> z3.BoolRef:
        def allowed(rule: Rule, variables: dict[str, Any], effects: dict[str, Any]) -> z3.BoolRef:
            return system.holds_for_rule(move_node, rule, state, variables, effects)
        none = no_move(system, rules, state, allowed)
        assert none is not None
        return z3.And(system.holds(state_node, state), none)
    return state_target(lacking)


EXPANSION_LIMIT = 1_100
"""The most parameter values of one rule spelled out in `no_move` (a set of seats at 10
players has 1,024)."""


def expandable(system: System, rules: Sequence[Rule]) -> bool:
    """Whether every rule's parameter values are few enough for `no_move`."""
    return all(_combinations(system, rule) <= EXPANSION_LIMIT for rule in rules)


def _combinations(system: System, rule: Rule) -> int:
    count = 1
    for param in rule.params:
        low, high = system.param_range(rule, param.name)
        count *= max(0, high - low + 1)
    return count


def no_move(system: System, rules: Sequence[Rule], state: State,
             also: Callable[[Rule, dict[str, Any], dict[str, Any]], z3.BoolRef] | None = None) -> z3.BoolRef | None:
    """No move of `rules` is legal in `state` (with `also`, none that also satisfies it):
    "for all parameter values" spelled out over each parameter's finite range, since the
    unrolled search hands its terms to a bit-blasting solver that takes no quantifier.
    None when a rule has more than `EXPANSION_LIMIT` parameter values."""
    options: list[z3.BoolRef] = []
    for rule in rules:
        guard, variables, effects = system.rule_parts(rule, state, "reach")
        term = guard if also is None else z3.And(guard, also(rule, variables, effects))
        if _combinations(system, rule) > EXPANSION_LIMIT:
            return None
        names = list(variables)
        ranges = [range(system.param_range(rule, name)[0], system.param_range(rule, name)[1] + 1) for name in names]
        for values in product(*ranges):
            pairs = [(variables[name], _value_like(variables[name], value)) for name, value in zip(names, values)]
            options.append(z3.substitute(term, *pairs) if pairs else term)
    return z3.Not(z3.Or(options)) if options else z3.BoolVal(True)


def _value_like(variable: Any, value: int) -> Any:
    if z3.is_bool(variable):
        return z3.BoolVal(bool(value))
    if z3.is_bv(variable):
        return z3.BitVecVal(value, variable.size())
    return z3.IntVal(value)
