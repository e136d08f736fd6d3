"""Tree surgery for the mutation operators: a typed tree with one node replaced, and a
node shown in the spec language for a mutant's one-line description.

Shared by the operators of small edits (operators.py) and of the shapes that escaped them
(shapes.py); nothing here decides what to change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

from spec.lang import nodes as n
from spec.model import Rule, Spec

Candidate = tuple[str, str, tuple[str, ...], str, Callable[[], Spec], "tuple[int, ...] | None"]
"""(operator, rule, rule IDs, description, build, counts) of one mutant, its spec built on demand."""



def rebuild(node: n.Node, kids: tuple[n.Node, ...]) -> n.Node:
    """`node` with its direct sub-expressions replaced by `kids` (same order as n.children)."""
    if isinstance(node, n.Unary):
        return replace(node, operand=kids[0])
    if isinstance(node, (n.Binary, n.Compare)):
        return replace(node, left=kids[0], right=kids[1])
    if isinstance(node, n.BoolOp):
        return replace(node, operands=kids)
    if isinstance(node, n.IfElse):
        return replace(node, condition=kids[0], then=kids[1], otherwise=kids[2])
    if isinstance(node, n.Call):
        return replace(node, args=kids)
    if isinstance(node, (n.SeatSet, n.ListLit)):
        return replace(node, items=kids)
    if isinstance(node, n.Index):
        return replace(node, table=kids[0], index=kids[1])
    return node


def positions(node: n.Node, path: tuple[int, ...] = ()) -> Iterator[tuple[tuple[int, ...], n.Node]]:
    """Every (path, node) of the tree, parents before children; a path is child indexes."""
    yield path, node
    for number, child in enumerate(n.children(node)):
        yield from positions(child, path + (number,))


def replace_at(node: n.Node, path: tuple[int, ...], new: n.Node) -> n.Node:
    """The tree with the node at `path` replaced by `new`."""
    if not path:
        return new
    kids = list(n.children(node))
    kids[path[0]] = replace_at(kids[path[0]], path[1:], new)
    return rebuild(node, tuple(kids))


def show(node: n.Node) -> str:
    """A node in the spec language, for the one-line description (enum and seat literals
    are shown encoded)."""
    if isinstance(node, n.Lit):
        return str(node.value)
    if isinstance(node, n.Name):
        return node.name
    if isinstance(node, n.Unary):
        return f"not {show(node.operand)}" if node.op == "not" else f"-{show(node.operand)}"
    if isinstance(node, (n.Binary, n.Compare)):
        return f"{show(node.left)} {node.op} {show(node.right)}"
    if isinstance(node, n.BoolOp):
        return f" {node.op} ".join(f"({show(o)})" if isinstance(o, n.BoolOp) else show(o) for o in node.operands)
    if isinstance(node, n.IfElse):
        return f"({show(node.then)} if {show(node.condition)} else {show(node.otherwise)})"
    if isinstance(node, n.Call):
        return f"{node.function}({', '.join(show(a) for a in node.args)})"
    if isinstance(node, n.SeatSet):
        return "{" + ", ".join(show(i) for i in node.items) + "}"
    if isinstance(node, n.ListLit):
        return "[" + ", ".join(show(i) for i in node.items) + "]"
    if isinstance(node, n.Index):
        return f"{show(node.table)}[{show(node.index)}]"
    return type(node).__name__


def clip(text: str, width: int = 70) -> str:
    """`text` cut to `width` characters, an ellipsis marking the cut."""
    return text if len(text) <= width else text[:width - 1] + "…"


def with_rule(spec: Spec, index: int, rule: Rule) -> Spec:
    """`spec` with its rule at `index` replaced by `rule`."""
    rules = list(spec.rules)
    rules[index] = rule
    return replace(spec, rules=tuple(rules))


def with_rules(spec: Spec, changed: dict[int, Rule]) -> Spec:
    """`spec` with several rules replaced at once, by index (a change touching two rules)."""
    rules = list(spec.rules)
    for index, rule in changed.items():
        rules[index] = rule
    return replace(spec, rules=tuple(rules))


def rule_ids_of(rule: Rule) -> tuple[str, ...]:
    """The rule IDs a mutant of `rule` touches: its requirements', or for a rule with none
    the rule of its phase or its actor."""
    ids = list(rule.rule_ids)
    for extra in (rule.phase_rule, rule.actor_rule):
        if extra and extra not in ids and not ids:
            ids.append(extra)
    return tuple(ids)
