"""The typed syntax tree of spec expressions: what the checker produces and both backends read.

Nodes are frozen and carry their type, so the Python compiler (engine/) and the Z3
translator (verify/) never re-derive types and cannot disagree about them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .types import Type


@dataclass(frozen=True, slots=True)
class Node:
    """Base of every typed node."""

    type: Type


@dataclass(frozen=True, slots=True)
class Lit(Node):
    """A literal, already encoded (ints, bools, enum indexes, seat masks, tile codes)."""

    value: int | bool


@dataclass(frozen=True, slots=True)
class Name(Node):
    """A name: `kind` is field, param, let, definition or constant."""

    name: str
    kind: str


@dataclass(frozen=True, slots=True)
class Unary(Node):
    """`not x` or `-x`."""

    op: str
    operand: Node


@dataclass(frozen=True, slots=True)
class Binary(Node):
    """Arithmetic (+ - * // %) on ints; union, intersection, difference (| & -) on seats."""

    op: str
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Compare(Node):
    """One comparison: == != < <= > >= on values, `in` / `not in` for membership.

    For seats `<=` and `<` are subset and proper subset. A chain `a < b < c` is split into
    a conjunction by the checker.
    """

    op: str
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class BoolOp(Node):
    """`and` / `or` over two or more operands."""

    op: str
    operands: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class IfElse(Node):
    """`a if condition else b`."""

    condition: Node
    then: Node
    otherwise: Node


@dataclass(frozen=True, slots=True)
class Call(Node):
    """A documented builtin applied to arguments."""

    function: str
    args: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class SeatSet(Node):
    """`{a, b, ...}`: the set of the given seats."""

    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class ListLit(Node):
    """`[a, b, ...]`: a list of constants (the right side of `in`)."""

    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Index(Node):
    """`table[i]`: an element of a constant list; out of range gives the element type's
    zero (`none` for an enum that has it, 0 otherwise) instead of wrapping around."""

    table: Node
    index: Node


def walk(node: Node) -> "list[Node]":
    """Every node of the tree, parents before children."""
    out: list[Node] = [node]
    for child in children(node):
        out.extend(walk(child))
    return out


def fields_read(roots: Iterable[Node | None], definitions: Mapping[str, Node]) -> set[str]:
    """The state fields the expressions read, through the definitions they use: the one
    analysis of reads (the cone of influence, the lawyer's relevant fields, the engine's
    memo of chance outcomes). `after_X`, the field after a move, counts as a read of X;
    None (an absent optional expression) reads nothing."""
    out: set[str] = set()
    expanded: set[str] = set()
    stack = [root for root in roots if root is not None]
    while stack:
        for item in walk(stack.pop()):
            if not isinstance(item, Name):
                continue
            if item.kind == "field":
                out.add(item.name)
            elif item.kind == "after":
                out.add(item.name[len("after_"):])
            elif item.kind == "definition" and item.name not in expanded:
                expanded.add(item.name)
                stack.append(definitions[item.name])
    return out


def children(node: Node) -> tuple[Node, ...]:
    """The direct sub-expressions of a node."""
    if isinstance(node, Unary):
        return (node.operand,)
    if isinstance(node, (Binary, Compare)):
        return (node.left, node.right)
    if isinstance(node, BoolOp):
        return node.operands
    if isinstance(node, IfElse):
        return (node.condition, node.then, node.otherwise)
    if isinstance(node, Call):
        return node.args
    if isinstance(node, (SeatSet, ListLit)):
        return node.items
    if isinstance(node, Index):
        return (node.table, node.index)
    return ()


def replace_names(node: Node, kind: str, values: Mapping[str, Node]) -> Node:
    """The expression with every name of `kind` replaced by the expression it stands for
    (what a move reveals in a query, a rule's `let` inside a reveal)."""
    if isinstance(node, Name):
        return values[node.name] if node.kind == kind and node.name in values else node
    changes: dict[str, object] = {}
    for slot in ("operand", "left", "right", "condition", "then", "otherwise", "table", "index"):
        child = getattr(node, slot, None)
        if isinstance(child, Node):
            changes[slot] = replace_names(child, kind, values)
    for slot in ("operands", "args", "items"):
        items = getattr(node, slot, None)
        if isinstance(items, tuple):
            changes[slot] = tuple(replace_names(item, kind, values) for item in items)
    return dataclasses.replace(node, **changes) if changes else node  # type: ignore[arg-type]
