"""The rules as a Z3 transition system: state variables, `init(s)` and `step(s, s')`.

Everything comes from the typed tree of the spec; no rule is written here. A state is one
Z3 constant per field (sorts in verify/smt/translate.py). `step(s, s')` is the
disjunction over the spec's rules, encoded with a rule selector: when the selector names
rule r,

- the phase of s is r's phase;
- r's parameters are fresh variables constrained to their domains (a subset of a seat
  set, a range, an enum, a seat, a tile sequence of a given length);
- r's lets are bound, every requirement holds, and a chance rule's weight is > 0 (the
  engine lists exactly the chance outcomes of positive weight as legal moves);
- every field r assigns equals its effect read in s (effects are simultaneous), every
  other field keeps its value.

The actor is not a guard: the engine's `legal_moves` lists a move whoever makes it, and
only `apply(..., by=seat)` compares the seat with the actor expression.

A model of a step decodes into engine values: `decode_state` gives the engine's state
tuple, `decode_move` the engine's `Move`, so solver answers are re-evaluated by the
engine (the habit mypyvy calls smoke-testing the solver).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import z3  # type: ignore[import-untyped]

from engine.game import Game, Move
from spec.lang import nodes as n
from spec.model import Param, Rule, Spec

from .bounds import Range, Ranges, after_ranges, analyse
from .translate import Env, Term, Translator


@dataclass(frozen=True, slots=True)
class State:
    """The Z3 terms of one state, field by field, in the spec's order."""

    fields: dict[str, Term]

    def __getitem__(self, name: str) -> Term:
        return self.fields[name]


@dataclass(slots=True)
class Step:
    """One transition s -> s': the relation, the rule selector, every rule's parameters."""

    before: State
    after: State
    selector: z3.BitVecRef
    relation: z3.BoolRef
    params: dict[str, dict[str, Term]]          # rule name -> parameter name -> variable
    guards: dict[str, z3.BoolRef] = field(default_factory=dict)
    rule_index: dict[str, int] = field(default_factory=dict)

    def fires(self, rule: str) -> z3.BoolRef:
        """The selector names `rule`."""
        if rule not in self.params:
            return z3.BoolVal(False)
        return self.selector == self.rule_index[rule]

    def fires_any(self, rules: Iterable[str]) -> z3.BoolRef:
        """The selector names one of `rules`."""
        return z3.Or([self.fires(rule) for rule in rules])

    def param(self, name: str, rules: Iterable[str]) -> Term:
        """The parameter `name` of whichever of `rules` fires (the rules share it)."""
        chosen = [rule for rule in rules if rule in self.params]
        result = self.params[chosen[-1]][name]
        for rule in reversed(chosen[:-1]):
            result = z3.If(self.fires(rule), self.params[rule][name], result)
        return result


class System:
    """The transition system of one spec for one player count."""

    def __init__(self, spec: Spec, players: int,
                 extra: Iterable[tuple[n.Node, Mapping[str, Range]]] = ()) -> None:
        self.spec = spec
        self.players = players
        self.game = Game(spec, players)
        self.ranges: Ranges = analyse(spec, players, extra)
        self.after_ranges = after_ranges(spec, self.ranges)
        self.translator = Translator(spec, players, self.ranges)
        self.width = self.translator.width
        self.kinds = {spec_field.name: spec_field.type.kind for spec_field in spec.fields}
        self.rule_names = [rule.name for rule in spec.rules]
        self.rule_index = {name: index for index, name in enumerate(self.rule_names)}
        self.selector_width = max(len(self.rule_names).bit_length(), 1) + 1
        self.phases = spec.enums["phase"]
        self._rule_ranges = {rule.name: self.ranges.rule_names(rule) for rule in spec.rules}
        self._wide: dict[tuple[bool, int], Translator] = {}
        self._memos: dict[tuple[int, int], tuple[Mapping[str, Term], dict[str, Term]]] = {}
        self.successor_ranges = self.ranges.with_fields(
            {name: self.after_ranges[f"after_{name}"] for name in self.kinds})

    # ------------------------------------------------------------------ states

    def state(self, tag: str) -> State:
        """Fresh variables for a state, named `tag.FIELD`."""
        return State({name: self.translator.variable(kind, f"{tag}.{name}") for name, kind in self.kinds.items()})

    def constant(self, values: Any) -> State:
        """The constant terms of an engine state."""
        return State({name: self.translator.constant(kind, value)
                      for (name, kind), value in zip(self.kinds.items(), values)})

    def equals(self, state: State, values: Any) -> z3.BoolRef:
        """`state` is the engine state `values`."""
        constant = self.constant(values)
        return z3.And([state[name] == constant[name] for name in self.kinds])

    def same(self, first: State, second: State) -> z3.BoolRef:
        """Two states are equal field by field."""
        return z3.And([first[name] == second[name] for name in self.kinds])

    def init(self, state: State) -> z3.BoolRef:
        """`state` is the initial state: every field its `init` expression (phase deal)."""
        env = Env({})
        return z3.And([state[f.name] == self.translator.term(f.init, env) for f in self.spec.fields])

    def typing(self, state: State) -> list[tuple[str, z3.BoolRef]]:
        """Per field, `state`'s value is well typed: within its declared range."""
        out = []
        for name, kind in self.kinds.items():
            if kind in ("bool", "seats"):
                continue
            # For tiles: a code (1 << length) | bits, and every value in 1..2^(limit+1)-1 is one.
            low, high = self.ranges.fields[name]
            out.append((name, z3.And(state[name] >= low, state[name] <= high)))
        return out

    def typing_text(self, name: str) -> str:
        """The typing condition of a field in words."""
        low, high = self.ranges.fields[name]
        return f"{name} within {low}..{high}"

    # ------------------------------------------------------------------ expressions

    def translator_for(self, node: n.Node, names: Mapping[str, Range] | None = None,
                       successor: bool = False) -> Translator:
        """The translator for an expression: the state's own width, or a wider one that
        sign-extends the state when the expression's values need more bits (a ranking).
        With `successor`, the expression reads a state one step past a well-typed one, whose
        fields may leave their declared ranges by what one effect can do."""
        ranges = self.successor_ranges if successor else self.ranges
        needed = ranges.needed(node, names or {})
        if needed <= self.width and not successor:
            return self.translator
        key = (successor, max(needed, self.width))
        if key not in self._wide:
            self._wide[key] = Translator(self.spec, self.players, ranges, key[1], self.width)
        return self._wide[key]

    def holds(self, node: n.Node, state: State, successor: bool = False) -> z3.BoolRef:
        """A state expression (a property, an invariant) in `state`; `successor` when the
        state is only known to be one step past a well-typed state."""
        translator = self.translator_for(node, successor=successor)
        term: z3.BoolRef = translator.term(node, self._env(translator, state))
        return term

    def _env(self, translator: Translator, state: State) -> Env:
        """An environment over `state` whose definitions, once translated, are kept for the
        next expression over the same state and translator: thousands of inferred
        invariants read the same few definitions (`pile`, `slot_power`)."""
        key = (id(translator), id(state.fields))
        kept = self._memos.get(key)
        if kept is None or kept[0] is not state.fields:   # the fields held here keep their id unique
            kept = (state.fields, {})
            self._memos[key] = kept
        return Env(state.fields, memo=kept[1])

    def value(self, node: n.Node, state: State, successor: bool = False) -> Term:
        """An int-like state expression (a ranking) in `state`, at the width it needs."""
        return self.translator_for(node, successor=successor).term(node, Env(state.fields))

    def values_across(self, node: n.Node, before: State, after: State) -> tuple[Term, Term]:
        """An int-like expression in a state and in its successor, built alike (the same
        width and tables) so that the solver sees the same circuit on both sides."""
        translator = self.translator_for(node, successor=True)
        return translator.term(node, Env(before.fields)), translator.term(node, Env(after.fields))

    def evaluate(self, node: n.Node, values: Any, after: Any = None, params: Mapping[str, int] | None = None,
                 ranges: Mapping[str, Range] | None = None) -> int | bool:
        """The value of an expression on concrete engine states (and parameter values), as
        the solver computes it: translated with constants, then simplified. For tests
        that hold this translation against the engine's."""
        state = self.constant(values)
        successor = after is not None
        env = Env(state.fields, self.constant(after).fields if successor else None,
                  ranges={**(self.after_ranges if successor else {}), **(ranges or {})})
        kinds = {item.name: item.type.kind for item in n.walk(node)
                 if isinstance(item, n.Name) and item.kind == "param"}
        for name, value in (params or {}).items():
            env.local[name] = self.translator.constant(kinds.get(name, "int"), value)
        term = self.translator_for(node, env.ranges, successor=successor).term(node, env)
        return self.decode_value(node.type.kind, z3.simplify(term))

    def holds_on_move(self, node: n.Node, step: Step, rules: Iterable[str]) -> z3.BoolRef:
        """A move expression over `step` when one of `rules` fires: fields of the state
        before, `after_FIELD` of the state after, the parameters the rules share."""
        chosen = list(rules)
        env = Env(step.before.fields, step.after.fields, ranges=dict(self.after_ranges))
        chosen = [rule for rule in chosen if rule in step.params]
        shared = set.intersection(*(set(step.params[rule]) for rule in chosen)) if chosen else set()
        for name in shared:
            env.local[name] = step.param(name, chosen)
            low = min(self._rule_ranges[rule][name][0] for rule in chosen)
            high = max(self._rule_ranges[rule][name][1] for rule in chosen)
            env.ranges[name] = (low, high)
        term: z3.BoolRef = self.translator_for(node, env.ranges, successor=True).term(node, env)
        return term

    def holds_for_rule(self, node: n.Node, rule: Rule, before: State, variables: Mapping[str, Term],
                       effects: Mapping[str, Term]) -> z3.BoolRef:
        """A move expression for one rule's move from `before` (its parameter `variables`
        and `effects` from `rule_parts`): the permissions of spec/properties.py, which ask
        about a move of a given rule without a step relation around it."""
        after = {name: effects.get(name, term) for name, term in before.fields.items()}
        env = Env(before.fields, after, ranges=dict(self.after_ranges))
        for name, variable in variables.items():
            env.local[name] = variable
            env.ranges[name] = self._rule_ranges[rule.name][name]
        term: z3.BoolRef = self.translator_for(node, env.ranges, successor=True).term(node, env)
        return term

    # ------------------------------------------------------------------ transitions

    def param_range(self, rule: Rule, name: str) -> tuple[int, int]:
        """The least and greatest value parameter `name` of `rule` can take, as encoded."""
        low, high = self._rule_ranges[rule.name][name]
        return int(low), int(high)

    def rule_parts(self, rule: Rule, before: State, tag: str) -> tuple[z3.BoolRef, dict[str, Term], dict[str, Term]]:
        """One rule's guard (phase, domains, requirements, weight > 0), its parameter
        variables and its effects, read in `before`."""
        guard, variables, effects, _ = self.rule_parts_weighted(rule, before, tag)
        return guard, variables, effects

    def rule_parts_weighted(self, rule: Rule, before: State, tag: str
                            ) -> tuple[z3.BoolRef, dict[str, Term], dict[str, Term], Term | None]:
        """`rule_parts` and the rule's weight (the odds of a chance move; None without one)."""
        frame, variables, effects, weight, required = self.rule_parts_apart(rule, before, tag)
        return z3.And([frame, *required]), variables, effects, weight

    def rule_parts_apart(self, rule: Rule, before: State, tag: str
                         ) -> tuple[z3.BoolRef, dict[str, Term], dict[str, Term], Term | None, list[z3.BoolRef]]:
        """A rule's parts with its requirements apart from the rest of its guard (the phase,
        the domains, weight > 0), one term per requirement in the rule's order: what a
        proof's unsat core names by requirement (verify/smt/core.py)."""
        env = Env(before.fields, ranges=dict(self._rule_ranges[rule.name]))
        conditions = [before["phase"] == self.phases.index(rule.phase)]
        variables: dict[str, Term] = {}
        for param in rule.params:
            variable = self.translator.variable(param.type.kind, f"{tag}.{rule.name}.{param.name}")
            variables[param.name] = variable
            conditions.append(self._domain(param, variable, env))
            env.local[param.name] = variable
        for name, node in rule.lets:
            env.local[name] = self.translator.term(node, env)
        required = [self.translator.term(requirement.when, env) for requirement in rule.requires]
        weight = None
        if rule.weight is not None:
            conditions.append(self.translator.positive(rule.weight, env))
            weight = self.translator.term(rule.weight, env)
        effects = {name: self.translator.term(node, env) for name, node in rule.effect}
        return z3.And(conditions), variables, effects, weight, required

    def step(self, before: State, after: State, tag: str) -> Step:
        """The transition relation between `before` and `after` (variables named `tag.`)."""
        selector = z3.BitVec(f"{tag}.rule", self.selector_width)
        params: dict[str, dict[str, Term]] = {}
        guards: dict[str, z3.BoolRef] = {}
        effects: dict[str, list[tuple[int, Term]]] = {name: [] for name in self.kinds}
        for index, rule in enumerate(self.spec.rules):
            guard, variables, assigned = self.rule_parts(rule, before, tag)
            guards[rule.name] = guard
            params[rule.name] = variables
            for name, effect in assigned.items():
                effects[name].append((index, effect))
        fires = [selector == index for index in range(len(self.spec.rules))]
        parts = [z3.ULT(selector, len(self.spec.rules))]
        parts += [z3.Implies(fires[rule_index], guards[rule.name]) for rule_index, rule in enumerate(self.spec.rules)]
        for name in self.kinds:
            value: Term = before[name]
            for index, effect in reversed(effects[name]):
                value = z3.If(fires[index], effect, value)
            parts.append(after[name] == value)
        return Step(before, after, selector, z3.And(parts), params, guards, self.rule_index)

    def rule_step(self, before: State, after: State, rule: Rule, tag: str) -> Step:
        """One disjunct of the transition relation: the step by `rule` alone (its selector
        is fixed to the rule)."""
        guard, variables, assigned = self.rule_parts(rule, before, tag)
        parts = [guard] + [after[name] == assigned.get(name, before[name]) for name in self.kinds]
        selector = z3.BitVecVal(self.rule_index[rule.name], self.selector_width)
        return Step(before, after, selector, z3.And(parts), {rule.name: variables}, {rule.name: guard},
                    self.rule_index)

    def _domain(self, param: Param, variable: Term, env: Env) -> z3.BoolRef:
        domain = param.domain
        term = self.translator.term
        if domain.kind == "seat":
            return z3.And(variable >= 0, variable < self.players)
        if domain.kind == "enum":
            members = self.ranges.members(param.type)
            return z3.And(variable >= 0, variable < len(members))
        if domain.kind == "range":
            assert domain.low is not None and domain.high is not None
            return z3.And(variable >= term(domain.low, env), variable <= term(domain.high, env))
        if domain.kind == "tiles":
            assert domain.length is not None
            length = term(domain.length, env)
            one = self.translator.number(1)
            return z3.And(variable >= (one << length), variable < (one << (length + 1)))
        if domain.kind == "subset":
            assert domain.of is not None
            return (variable & ~term(domain.of, env)) == 0
        raise AssertionError(f"domain {domain.kind}")

    # ------------------------------------------------------------------ models back to the engine

    def decode_state(self, model: z3.ModelRef, state: State) -> Any:
        """The engine state a model gives `state`."""
        values = []
        for name, kind in self.kinds.items():
            value = model.eval(state[name], model_completion=True)
            values.append(self.decode_value(kind, value))
        return self.game.State._make(values)  # type: ignore[attr-defined]

    @staticmethod
    def decode_value(kind: str, value: Any) -> int | bool:
        """An engine value from a Z3 value of the sort of `kind`."""
        if kind == "bool":
            assert z3.is_true(value) or z3.is_false(value), f"not a constant: {value}"
            return bool(z3.is_true(value))
        if kind == "seats":
            return int(value.as_long())
        return int(value.as_signed_long())

    def decode_rule(self, model: z3.ModelRef, step: Step) -> Rule:
        """The rule a model's step fires."""
        index = int(model.eval(step.selector, model_completion=True).as_long())
        rule: Rule = self.spec.rules[index]
        return rule

    def decode_move(self, model: z3.ModelRef, step: Step) -> Move:
        """The engine move a model's step makes."""
        rule = self.decode_rule(model, step)
        args = tuple(self.decode_value(param.type.kind, model.eval(step.params[rule.name][param.name],
                                                                   model_completion=True))
                     for param in rule.params)
        return Move(rule.name, tuple(int(arg) for arg in args))

    def move_is(self, step: Step, move: Move) -> z3.BoolRef:
        """The step makes exactly `move` (rule and parameter values)."""
        rule = self.spec.rule(move.rule)
        parts = [step.fires(move.rule)]
        for param, value in zip(rule.params, move.args):
            parts.append(step.params[move.rule][param.name] == self.translator.constant(param.type.kind, value))
        return z3.And(parts)
