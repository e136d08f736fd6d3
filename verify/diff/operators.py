"""Mutation operators over the typed spec tree: every small, plausible mistake in a rule set.

Each operator walks a checked `Spec` (spec/model.py, spec/lang/nodes.py) and yields
mutants: the same frozen `Spec` with one change, each with the operator's name, the rule
(or definition, constant, table) it changes, the rule IDs of RULES.md that change
touches, and the change in one line. Nothing is written to a file and nothing is parsed
again: a mutant is the typed tree with one node replaced, so it is well-typed by
construction (a mutant whose numbers no longer fit the state's declared ranges is refused
when compiled, and reported as such).

The operators (`OPERATORS`, in this order):

- `drop_requirement`: a requirement of a rule left out;
- `negate`: a comparison negated (`==` / `!=`, `<` / `>=`, `in` / `not in`; a subset test
  wrapped in `not`);
- `boundary`: an int comparison weakened or strengthened (`<` / `<=`, `>` / `>=`);
- `constant`: an int literal of an expression, a constant or an int table entry ±1;
- `table_shift`: an enum table row (a board) shifted by one slot, either way;
- `drop_effect`: an effect assignment left out (the field keeps its old value);
- `swap_branches`: the two branches of a conditional swapped;
- `seat`: a seat expression (a field or parameter) replaced by another of its type in scope.

Then the operators of the shapes these small edits miss (shapes.py `ESCAPED`: an
assignment into the wrong field, a skipped, repeated or earlier step, a neighbour read, an
effect moved to the next step, a parameter's domain, President and Chancellor swapped),
numbered after them so that every earlier mutant keeps its number. They are not in
`DEFAULT_OPERATORS`, and so not in the mutation gate, until the catalogue kills them all:
`mutants(spec, ("escaped",))` (`shrules mutate --operator escaped`) asks for them. Their
mutants are checked as the type checker would (welltyped.py); one it refuses carries why
in `Mutant.invalid`, and is reported invalid.

The order is deterministic: operators in the order above, rules in file order, nodes
parents before children. Weights (the odds of chance) are not mutated: the catalogue
decides what is possible, not how likely, so such a mutant could not be killed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

from spec.lang import nodes as n
from spec.lang.types import BOOL, INT
from spec.model import Rule, Spec

from .shapes import ESCAPED, escaped_candidates
from .surgery import Candidate, clip, positions, replace_at, rule_ids_of, show, with_rule
from .welltyped import spec_error

OPERATORS = ("drop_requirement", "negate", "boundary", "constant", "table_shift", "drop_effect",
             "swap_branches", "seat")

ALL_OPERATORS = OPERATORS + ESCAPED
"""Every operator, in numbering order: the small edits, then the shapes that escaped them
(shapes.py), so adding the latter left every earlier mutant's number as it was."""

DEFAULT_OPERATORS = OPERATORS
"""The operators run when none is named, and so by the mutation gate (gate.py `names`):
the shapes of shapes.py are asked for by name (`--operator escaped`) until the catalogue
kills all their mutants; then they belong here, and in the gate's record."""

OPERATOR_SETS: dict[str, tuple[str, ...]] = {"default": DEFAULT_OPERATORS, "escaped": ESCAPED,
                                             "all": ALL_OPERATORS}
"""Names for several operators at once (`shrules mutate --operator escaped`)."""

NEGATION = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">", "in": "not in", "not in": "in"}
BOUNDARY = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
FIXED_CONSTANTS = ("min_players", "max_players")
"""Constants not mutated: they decide which games exist at all (R-S1), not how one is played."""


@dataclass(frozen=True, slots=True)
class Mutant:
    """One mutated rule set."""

    number: int
    operator: str
    rule: str                       # the rule, `definition NAME`, `constant NAME` or `table NAME`
    rule_ids: tuple[str, ...]
    description: str                # the change in one line
    spec: Spec
    counts: tuple[int, ...] | None = None    # the player counts the change can matter for (None: all)
    invalid: str = ""               # why the mutated rules are not ones the language allows (welltyped.py)

    @property
    def label(self) -> str:
        """`#number operator rule: description`."""
        return f"#{self.number} {self.operator} {self.rule}: {self.description}"


# ---------------------------------------------------------------- expression operators


ExprMutation = tuple[str, n.Node, str]          # operator, new tree, what changed
SeatNames = dict[str, n.Node]                   # name -> a Name node of a seat type


def expression_mutations(tree: n.Node, seats: SeatNames) -> Iterator[ExprMutation]:
    """Every single-node mutation of an expression, grouped by operator in OPERATORS order."""
    sites = list(positions(tree))
    for path, node in sites:
        if isinstance(node, n.Compare):
            if node.left.type.kind == "seats" and node.op in ("<=", "<"):
                new: n.Node = n.Unary(BOOL, "not", node)
            else:
                new = replace(node, op=NEGATION[node.op])
            yield "negate", replace_at(tree, path, new), f"{clip(show(node), 50)} negated"
    for path, node in sites:
        if isinstance(node, n.Compare) and node.op in BOUNDARY and node.left.type == INT:
            new = replace(node, op=BOUNDARY[node.op])
            yield "boundary", replace_at(tree, path, new), f"{clip(show(node), 40)} -> {clip(show(new), 40)}"
    for path, node in sites:
        if isinstance(node, n.Lit) and node.type == INT and not isinstance(node.value, bool):
            for delta in (1, -1):
                new = replace(node, value=int(node.value) + delta)
                yield "constant", replace_at(tree, path, new), f"literal {node.value} -> {new.value}"
    for path, node in sites:
        if isinstance(node, n.IfElse):
            new = replace(node, then=node.otherwise, otherwise=node.then)
            yield "swap_branches", replace_at(tree, path, new), f"branches of if {clip(show(node.condition), 50)} swapped"
    for path, node in sites:
        if isinstance(node, n.Name) and node.type.kind == "seat":
            for other_name, other in seats.items():
                if other_name == node.name or other.type.required() != node.type.required():
                    continue
                if other.type.optional and not node.type.optional:
                    continue        # a possibly-none seat cannot stand where a seat is required
                yield "seat", replace_at(tree, path, other), f"{node.name} -> {other_name}"


# ---------------------------------------------------------------- spec sites


def _seat_names(spec: Spec, rule: Rule | None) -> SeatNames:
    out: SeatNames = {}
    for field in spec.fields:
        if field.type.kind == "seat":
            out[field.name] = n.Name(field.type, field.name, "field")
    if rule is not None:
        for param in rule.params:
            if param.type.kind == "seat":
                out[param.name] = n.Name(param.type, param.name, "param")
    return out


def _definition_users(spec: Spec) -> dict[str, tuple[str, ...]]:
    """Per definition, the rule IDs of the requirements and rules that read it."""
    users: dict[str, list[str]] = {name: [] for name in spec.definitions}

    def note(tree: n.Node | None, ids: tuple[str, ...]) -> None:
        if tree is None:
            return
        for item in n.walk(tree):
            if isinstance(item, n.Name) and item.kind == "definition" and item.name in users:
                for rule_id in ids:
                    if rule_id not in users[item.name]:
                        users[item.name].append(rule_id)
    for rule in spec.rules:
        for requirement in rule.requires:
            note(requirement.when, (requirement.rule_id,))
        for _, tree in rule.effect + rule.lets:
            note(tree, rule_ids_of(rule))
    return {name: tuple(ids) for name, ids in users.items()}


def _source_rule_ids(spec: Spec) -> dict[str, str]:
    """The rule ID a constant or table cites in its comment in the rules file (`# R-E10`)."""
    out: dict[str, str] = {}
    try:
        text = Path(spec.source).read_text(encoding="utf-8")
    except OSError:
        return out
    for line in text.splitlines():
        match = re.match(r"^\s*(?:\[tables\.)?([a-z_][a-z0-9_]*)\]?\s*(?:=.*?)?#\s*(R-[A-Z]+\d+)", line)
        if match:
            out.setdefault(match.group(1), match.group(2))
    return out


def _rows(by_count: dict[int, int | tuple[str, ...]]) -> list[tuple[tuple[int, ...], int | tuple[str, ...]]]:
    """A table's rows: the counts that share one value (as the rules file groups them)."""
    rows: list[tuple[tuple[int, ...], int | tuple[str, ...]]] = []
    for count in sorted(by_count):
        value = by_count[count]
        if rows and rows[-1][1] == value and rows[-1][0][-1] == count - 1:
            rows[-1] = (rows[-1][0] + (count,), value)
        else:
            rows.append(((count,), value))
    return rows


def _counts_text(counts: tuple[int, ...]) -> str:
    return str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"


def _candidates(spec: Spec) -> Iterator[Candidate]:
    """(operator, rule, rule IDs, description, build, counts) for every mutant, unordered by operator."""
    for index, rule in enumerate(spec.rules):
        seats = _seat_names(spec, rule)
        for number, requirement in enumerate(rule.requires):
            kept = rule.requires[:number] + rule.requires[number + 1:]
            yield ("drop_requirement", rule.name, (requirement.rule_id,),
                   f"requirement {clip(requirement.text, 60)!r} dropped",
                   partial(with_rule, spec, index, replace(rule, requires=kept)),
                   None)
            for operator, tree, what in expression_mutations(requirement.when, seats):
                changed = rule.requires[:number] + (replace(requirement, when=tree),) + rule.requires[number + 1:]
                yield (operator, rule.name, (requirement.rule_id,), f"requirement: {what}",
                       partial(with_rule, spec, index, replace(rule, requires=changed)), None)
        for number, (target, tree) in enumerate(rule.effect):
            kept_effect = rule.effect[:number] + rule.effect[number + 1:]
            yield ("drop_effect", rule.name, rule_ids_of(rule), f"effect {target} = {clip(show(tree), 40)} dropped",
                   partial(with_rule, spec, index, replace(rule, effect=kept_effect)), None)
            for operator, new_tree, what in expression_mutations(tree, seats):
                changed_effect = rule.effect[:number] + ((target, new_tree),) + rule.effect[number + 1:]
                yield (operator, rule.name, rule_ids_of(rule), f"effect {target}: {what}",
                       partial(with_rule, spec, index, replace(rule, effect=changed_effect)), None)
        for number, (name, tree) in enumerate(rule.lets):
            for operator, new_tree, what in expression_mutations(tree, seats):
                changed_lets = rule.lets[:number] + ((name, new_tree),) + rule.lets[number + 1:]
                yield (operator, rule.name, rule_ids_of(rule), f"let {name}: {what}",
                       partial(with_rule, spec, index, replace(rule, lets=changed_lets)), None)
        if rule.actor_seat is not None:
            for operator, new_tree, what in expression_mutations(rule.actor_seat, seats):
                yield (operator, rule.name, (rule.actor_rule,), f"actor: {what}",
                       partial(with_rule, spec, index, replace(rule, actor_seat=new_tree)), None)
    users = _definition_users(spec)
    for name, tree in spec.definitions.items():
        for operator, new_tree, what in expression_mutations(tree, _seat_names(spec, None)):
            yield (operator, f"definition {name}", users.get(name, ()), what,
                   partial(_with_definition, spec, name, new_tree), None)
    cited = _source_rule_ids(spec)
    seen_only = _read_only_by_observations(spec)
    for name, value in spec.constants.items():
        if name in FIXED_CONSTANTS or name in seen_only:
            continue
        for delta in (1, -1):
            yield ("constant", f"constant {name}", (cited[name],) if name in cited else (),
                   f"{name} = {value} -> {value + delta}",
                   partial(_with_constant, spec, name, value + delta), None)
    for name, by_count in spec.tables.items():
        ids = (cited[name],) if name in cited else ()
        for counts, entry in _rows(by_count):
            if isinstance(entry, tuple):
                for direction, shifted in (("left", entry[1:] + (entry[0],)), ("right", (entry[-1],) + entry[:-1])):
                    if shifted == entry:
                        continue
                    yield ("table_shift", f"table {name}", ids,
                           f"{name}[{_counts_text(counts)}] shifted {direction}: {', '.join(shifted)}",
                           partial(_with_table, spec, name, counts, shifted),
                           counts)
            else:
                for delta in (1, -1):
                    yield ("constant", f"table {name}", ids,
                           f"{name}[{_counts_text(counts)}] = {entry} -> {int(entry) + delta}",
                           partial(_with_table, spec, name, counts, int(entry) + delta), counts)


def _read_only_by_observations(spec: Spec) -> frozenset[str]:
    """The constants only who-sees-what reads (a rule's `shows`, `[view]`, `[public]`): a
    change to one changes no move, so the catalogue of moves cannot tell it apart and the
    product search would only prove it equivalent. What a seat is shown is judged by the
    no-leak certificate (`shrules knows`) and the knowledge disputes instead."""
    def names(roots: Sequence[n.Node | None]) -> set[str]:
        return {item.name for root in roots if root is not None for item in n.walk(root)
                if isinstance(item, n.Name) and item.kind == "constant"}
    observed = names([node for rule in spec.rules for show in rule.shows for node in (show.to, show.what)]
                     + [node for item in spec.view for node in (item.to, item.what)] + list(spec.public.values()))
    played: list[n.Node | None] = [*spec.definitions.values()]
    for field in spec.fields:
        played += [field.low, field.high, field.init]
    for rule in spec.rules:
        played += [req.when for req in rule.requires] + [node for _, node in rule.effect]
        played += [node for _, node in rule.lets] + [node for _, node in rule.reveals]
        played += [rule.weight, rule.actor_seat, rule.draws]
        played += [node for param in rule.params for node in (param.domain.of, param.domain.low,
                                                               param.domain.high, param.domain.length)]
        played += [node for req in rule.requires for _, node in req.why.holes]
        played += [node for _, node in rule.says.holes] if rule.says else []
    return frozenset(observed - names(played))


def _with_definition(spec: Spec, name: str, tree: n.Node) -> Spec:
    return replace(spec, definitions={**spec.definitions, name: tree})


def _with_constant(spec: Spec, name: str, value: int) -> Spec:
    return replace(spec, constants={**spec.constants, name: value})


def _with_table(spec: Spec, name: str, counts: tuple[int, ...], value: int | tuple[str, ...]) -> Spec:
    table = dict(spec.tables[name])
    for count in counts:
        table[count] = value
    return replace(spec, tables={**spec.tables, name: table})


def expand(names: tuple[str, ...]) -> tuple[str, ...]:
    """Operator names with the names of sets (OPERATOR_SETS) replaced by their operators,
    each once, in numbering order; an unknown name is a `ValueError`."""
    wanted: set[str] = set()
    for name in names:
        if name in OPERATOR_SETS:
            wanted.update(OPERATOR_SETS[name])
        elif name in ALL_OPERATORS:
            wanted.add(name)
        else:
            raise ValueError(f"no operator {name!r}; operators are {', '.join(ALL_OPERATORS)}, and the sets "
                             f"{', '.join(OPERATOR_SETS)}")
    return tuple(name for name in ALL_OPERATORS if name in wanted)


def mutants(spec: Spec, operators: tuple[str, ...] | None = None, rules: tuple[str, ...] | None = None
            ) -> list[Mutant]:
    """Every mutant of `spec`, numbered from 1 in a deterministic order (operators as in
    ALL_OPERATORS, then where in the file); `operators` (names or sets, default
    DEFAULT_OPERATORS) and `rules` (rule names, rule IDs or `constant NAME` / `table NAME` /
    `definition NAME`) filter them. The numbering is that of every operator's mutants
    together, so `#12` is the same mutant with or without a filter. A mutant of shapes.py
    that the language would refuse carries why in `invalid`."""
    chosen = expand(operators) if operators else DEFAULT_OPERATORS
    found = list(_candidates(spec)) + list(escaped_candidates(spec, _definition_users(spec)))
    ordered = sorted(range(len(found)), key=lambda i: (ALL_OPERATORS.index(found[i][0]), i))
    out = []
    for number, position in enumerate(ordered, start=1):
        operator, rule, ids, description, build, counts = found[position]
        if operator not in chosen:
            continue
        if rules and not any(wanted in (rule, rule.split(" ", 1)[-1]) or wanted in ids for wanted in rules):
            continue
        mutated = build()
        invalid = (spec_error(mutated) or "") if operator in ESCAPED else ""
        out.append(Mutant(number, operator, rule, ids, description, mutated, counts, invalid))
    return out
