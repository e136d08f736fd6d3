"""The premise of a property: the situation it speaks of, which the rules must reach.

A property "whenever A, then B" holds trivially where A never happens: a rule set that
makes A unreachable leaves it proved and testing nothing. So each property with a
premise gets a second question, a `sometimes` of its premise, derived here from its typed
tree and its `on` list (never from a list kept by hand), and a rule set under which the
premise is never reached gets the verdict *vacuous* for the property (verify/results.py).

Which syntactic forms count as a premise, and why:

- **a move filter** (`on = [...]`) of an `always`, `never` or `shows` property: it speaks
  only of moves of those rules, so one of them must be played. Not of `allows` and
  `only`: there `on` names the moves asked for, not the moves looked at;
- **the state of a permission** (`allows`, `only`): "in every reachable state where
  `state` holds" looks at the states where it holds, so one must be reachable;
- **a guard** at the top of what an `always` must hold (of a `never X`: of `not X`),
  over states or over the moves of its filter (then joined to the filter: a move of
  those rules where the guard holds):
  - `D1 or D2 or ... or Dn` (n >= 2): where the first disjunct holds, nothing else is
    examined, so the rest is tested only where it fails: the premise is `not D1`. This
    is how the catalogue writes a "when": `phase != 'power' or B`, `not A or B`;
  - `not (C1 and C2 and ...)` (n >= 2), which is `not C1 or not (C2 and ...)`: the
    premise is `C1`; a `never (C1 and C2)` is this form (`chaos_never_grants_power`);
  - `B if A else True`: nothing is tested where A fails: the premise is `A`; and
    `True if A else B`: the premise is `not A`.
  Only the top of the tree is read: a guard inside a guard is part of what is tested
  once the outer premise is reached, and a case split (`B if A else C`, neither a
  constant) tests something on both sides, so it has no premise.

`sometimes` properties have none (they need a witness already), nor `terminates`,
`deadlock_free` and `in_range` (they speak of every state and every game).
"""

from __future__ import annotations

from dataclasses import replace

from .lang import nodes as n
from .lang.nodes import Node
from .lang.types import BOOL
from .properties import PERMISSIONS, Property

PREMISE = ".premise"
"""The suffix naming a property's premise question (no catalogue name holds a dot)."""

FILTERED = ("always", "never", "shows")
"""Kinds whose `on` list filters the moves they look at."""


def _true(node: Node) -> bool:
    return isinstance(node, n.Lit) and node.type == BOOL and node.value is True


def _negated(node: Node) -> Node:
    """`not node`, without a double negation."""
    if isinstance(node, n.Unary) and node.op == "not":
        return node.operand
    return n.Unary(BOOL, "not", node)


def guard(formula: Node) -> Node | None:
    """The premise of a formula that must hold everywhere (see the module docstring), or
    None when its top is not one of the guarded forms."""
    if isinstance(formula, n.BoolOp) and formula.op == "or" and len(formula.operands) >= 2:
        return _negated(formula.operands[0])
    if (isinstance(formula, n.Unary) and formula.op == "not" and isinstance(formula.operand, n.BoolOp)
            and formula.operand.op == "and" and len(formula.operand.operands) >= 2):
        return formula.operand.operands[0]
    if isinstance(formula, n.IfElse):
        if _true(formula.otherwise) and not _true(formula.then):
            return formula.condition
        if _true(formula.then) and not _true(formula.otherwise):
            return _negated(formula.condition)
    return None


def premise(prop: Property) -> Property | None:
    """The `sometimes` question of `prop`'s premise, named `NAME.premise`, or None when
    `prop` has none. Its expression is over states or over the moves of `prop`'s filter,
    like `prop`'s own; its text says what it asks, for people."""
    if prop.kind in PERMISSIONS:
        assert prop.state is not None
        return _question(prop, state=prop.state, text=f"a state where {prop.text}")
    if prop.kind not in FILTERED:
        return None
    body = prop.move if prop.move is not None else prop.state
    condition = None
    if body is not None and prop.kind != "shows":
        condition = guard(_negated(body) if prop.kind == "never" else body)
    moves = f"a move of {', '.join(prop.on)}"
    if prop.on:
        if condition is None:
            return _question(prop, move=n.Lit(BOOL, True), text=moves)
        return _question(prop, move=condition, text=f"{moves} where the guard of {prop.text!r} holds")
    if condition is None:
        return None
    return _question(prop, state=condition, text=f"a state where the guard of {prop.text!r} holds")


def _question(prop: Property, *, state: Node | None = None, move: Node | None = None, text: str) -> Property:
    return replace(prop, name=prop.name + PREMISE, kind="sometimes", state=state, move=move,
                   on=prop.on if move is not None else (), text=text, expect="holds", report="",
                   description=f"the premise of {prop.name}: {text}")


def premises(props: tuple[Property, ...]) -> dict[str, Property]:
    """Each property's premise question by the property's name (those that have one)."""
    out = {}
    for prop in props:
        question = premise(prop)
        if question is not None:
            out[prop.name] = question
    return out
