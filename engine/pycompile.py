"""Compile the checked spec to Python functions over state tuples.

The input is the typed tree that spec/lang produced, never spec text: every name has
been resolved and every operator type-checked, so the code emitted here is built only
from known, total operations (ints, bit masks and the helpers below). Constants of the
player count are inlined, fields become tuple indexes, and each rule becomes a few
plain functions (guard, first failing requirement, effect, weight) that run at the
speed of hand-written Python. Rules are never written again by hand.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from spec.lang import nodes as n
from spec.lang.types import Type
from spec.model import Rule, Spec


def next_in(mask: int, seat: int, players: int) -> int:
    """The first seat of `mask` clockwise after `seat` (R-E1); `seat` itself if none is."""
    for step in range(1, players + 1):
        candidate = (seat + step) % players
        if mask >> candidate & 1:
            return candidate
    return seat


def choose(total: int, k: int) -> int:
    """Binomial coefficient, 0 outside 0 <= k <= total."""
    return math.comb(total, k) if 0 <= k <= total else 0


def perm(total: int, k: int) -> int:
    """Ordered draws of k from total, 0 outside 0 <= k <= total."""
    return math.perm(total, k) if 0 <= k <= total else 0


def tiles_liberals(code: int) -> int:
    """Liberal tiles in a packed tile sequence."""
    return code.bit_length() - code.bit_count()


def tiles_first(code: int) -> int:
    """The top tile of a packed sequence (0 = liberal when empty)."""
    return code & 1 if code > 1 else 0


def tiles_take(code: int, k: int) -> int:
    """The first k tiles of a packed sequence."""
    length = min(max(k, 0), code.bit_length() - 1)
    return (code & ((1 << length) - 1)) | (1 << length)


def tiles_drop(code: int, k: int) -> int:
    """A packed sequence without its first k tiles."""
    return code >> min(max(k, 0), code.bit_length() - 1)


HELPERS: dict[str, Any] = {
    "_choose": choose, "_perm": perm, "_liberals": tiles_liberals, "_first": tiles_first,
    "_take": tiles_take, "_drop": tiles_drop, "_new": tuple.__new__,
}


@dataclass(frozen=True, slots=True)
class CompiledRule:
    """The Python functions of one rule for one player count."""

    rule: Rule
    index: int
    guard: Callable[..., bool]
    first_failure: Callable[..., int]
    effect: Callable[..., tuple[Any, ...]]
    weight: Callable[..., int] | None
    actor: Callable[..., int] | None
    holes: tuple[tuple[Callable[..., Any], ...], ...]   # per requirement, the why-template holes
    reveals: tuple[tuple[str, Callable[..., Any]], ...]
    domains: tuple[Callable[..., Any], ...]             # per param: state -> iterable of values
    says: tuple[Callable[..., Any], ...]                # the holes of the rule's `says` template


class Emitter:
    """Turns typed nodes into Python expressions for one spec and one player count."""

    def __init__(self, spec: Spec, players: int) -> None:
        self.spec = spec
        self.players = players
        self.values = spec.values_for(players)
        self.fields = {field.name: index for index, field in enumerate(spec.fields)}
        self.lets: dict[str, str] = {}

    def zero(self, type_: Type) -> str:
        """The value an out-of-range table lookup gives."""
        if type_.kind == "enum" and type_.enum in self.spec.enums and "none" in self.spec.enums[type_.enum]:
            return str(self.spec.enums[type_.enum].index("none"))
        return "0"

    def emit(self, node: n.Node) -> str:
        method: Callable[[Any], str] = getattr(self, "_" + type(node).__name__)
        return method(node)

    def _Lit(self, node: n.Lit) -> str:
        return repr(node.value)

    def _Name(self, node: n.Name) -> str:
        if node.kind == "field":
            return f"s[{self.fields[node.name]}]"
        if node.kind == "param":
            return f"p_{node.name}"
        if node.kind == "let":
            return f"l_{node.name}"
        if node.kind == "definition":
            return f"({self.emit(self.spec.definitions[node.name])})"
        if node.kind == "constant":
            return repr(self.values[node.name])
        if node.kind == "after":
            return f"t[{self.fields[node.name[len('after_'):]]}]"
        raise AssertionError(f"unresolved name {node.name}")

    def _Unary(self, node: n.Unary) -> str:
        return f"(not {self.emit(node.operand)})" if node.op == "not" else f"(-{self.emit(node.operand)})"

    def _Binary(self, node: n.Binary) -> str:
        left, right = self.emit(node.left), self.emit(node.right)
        if node.type.kind == "seats" and node.op == "-":
            return f"({left} & ~{right})"
        return f"({left} {node.op} {right})"

    def _Compare(self, node: n.Compare) -> str:
        left, right = self.emit(node.left), self.emit(node.right)
        if node.op in ("in", "not in"):
            if node.right.type.kind == "seats":
                test = f"((({right}) >> ({left})) & 1) == 1"
                if node.left.type.optional:
                    test = f"({left} >= 0 and {test})"
                return f"({test})" if node.op == "in" else f"(not ({test}))"
            return f"({left} {node.op} {right})"
        if node.left.type.kind == "seats" and node.op in ("<=", "<"):
            subset = f"(({left}) & ~({right})) == 0"
            return f"({subset})" if node.op == "<=" else f"({subset} and {left} != {right})"
        return f"({left} {node.op} {right})"

    def _BoolOp(self, node: n.BoolOp) -> str:
        return "(" + f" {node.op} ".join(self.emit(item) for item in node.operands) + ")"

    def _IfElse(self, node: n.IfElse) -> str:
        return f"({self.emit(node.then)} if {self.emit(node.condition)} else {self.emit(node.otherwise)})"

    def _Call(self, node: n.Call) -> str:
        args = [self.emit(arg) for arg in node.args]
        simple = {
            "count": f"({args[0]}).bit_count()" if args else "",
            "size": f"(({args[0]}).bit_length() - 1)" if args else "",
            "fascists": f"(({args[0]}).bit_count() - 1)" if args else "",
        }
        if node.function in simple:
            return simple[node.function]
        if node.function == "next_in":
            return f"_next_in({args[0]}, {args[1]}, {self.players})"
        if node.function in ("min", "max", "abs"):
            return f"{node.function}({', '.join(args)})"
        names = {"choose": "_choose", "perm": "_perm", "liberals": "_liberals", "first": "_first",
                 "take": "_take", "drop": "_drop"}
        return f"{names[node.function]}({', '.join(args)})"

    def _SeatSet(self, node: n.SeatSet) -> str:
        if not node.items:
            return "0"
        return "(" + " | ".join(f"(1 << {self.emit(item)})" for item in node.items) + ")"

    def _ListLit(self, node: n.ListLit) -> str:
        return "(" + "".join(f"{self.emit(item)}, " for item in node.items) + ")"

    def _Index(self, node: n.Index) -> str:
        table, index = self.emit(node.table), self.emit(node.index)
        size = len(self.values[node.table.name]) if isinstance(node.table, n.Name) else 0  # type: ignore[arg-type]
        return f"({table}[{index}] if 0 <= {index} < {size} else {self.zero(node.type)})"


def _lines_for_lets(emitter: Emitter, rule: Rule) -> list[str]:
    return [f"    l_{name} = {emitter.emit(node)}" for name, node in rule.lets]


def _domain_source(emitter: Emitter, rule: Rule, position: int) -> str:
    param = rule.params[position]
    domain = param.domain
    players = emitter.players
    if domain.kind == "seat":
        return f"def d(s):\n    return range({players})\n"
    if domain.kind == "enum":
        members = emitter.spec.enums[str(domain.enum)]
        return f"def d(s):\n    return range({len(members)})\n"
    if domain.kind == "range":
        assert domain.low is not None and domain.high is not None
        return f"def d(s):\n    return range({emitter.emit(domain.low)}, {emitter.emit(domain.high)} + 1)\n"
    if domain.kind == "tiles":
        assert domain.length is not None
        return (f"def d(s):\n    k = {emitter.emit(domain.length)}\n"
                f"    return range(1 << k, 2 << k)\n")
    if domain.kind == "subset":
        assert domain.of is not None
        return f"def d(s):\n    return _submasks({emitter.emit(domain.of)})\n"
    raise AssertionError(domain.kind)


def submasks(mask: int) -> list[int]:
    """Every subset of a bit mask, the empty one first."""
    out = [0]
    sub = mask
    while sub:
        out.append(sub)
        sub = (sub - 1) & mask
    out.sort()
    return out


def compile_rule(emitter: Emitter, rule: Rule, index: int, state_class: type) -> CompiledRule:
    """Compile one rule's guard, requirements, effect, weight, actor and messages."""
    params = ", ".join(["s"] + [f"p_{p.name}" for p in rule.params])
    lets = _lines_for_lets(emitter, rule)
    conditions = [emitter.emit(req.when) for req in rule.requires] or ["True"]
    values = [f"s[{i}]" for i in range(len(emitter.spec.fields))]
    for field_name, node in rule.effect:
        values[emitter.fields[field_name]] = emitter.emit(node)
    source = [f"def guard({params}):", *lets, f"    return bool({' and '.join(conditions)})", ""]
    source += [f"def first_failure({params}):", *lets]
    for number, condition in enumerate(conditions):
        source.append(f"    if not {condition}: return {number}")
    source += ["    return -1", ""]
    source += [f"def effect({params}):", *lets, f"    return _new(_State, ({', '.join(values)},))", ""]
    if rule.weight is not None:
        source += [f"def weight({params}):", *lets, f"    return {emitter.emit(rule.weight)}", ""]
    if rule.actor_seat is not None:
        source += ["def actor(s):", f"    return {emitter.emit(rule.actor_seat)}", ""]
    namespace: dict[str, Any] = dict(HELPERS)
    namespace["_State"] = state_class
    namespace["_next_in"] = next_in
    namespace["_submasks"] = submasks
    code = compile("\n".join(source), f"<rule {rule.name}>", "exec")
    exec(code, namespace)  # our own emitted code, built from the checked tree only
    holes = tuple(tuple(_function(emitter, rule, node, params, lets) for _, node in req.why.holes)
                  for req in rule.requires)
    reveals = tuple((name, _function(emitter, rule, node, params, lets)) for name, node in rule.reveals)
    says = tuple(_function(emitter, rule, node, params, lets) for _, node in rule.says.holes) if rule.says else ()
    domains = []
    for position in range(len(rule.params)):
        scope: dict[str, Any] = {"_submasks": submasks}
        exec(compile(_domain_source(emitter, rule, position), f"<domain {rule.name}>", "exec"), scope)
        domains.append(scope["d"])
    return CompiledRule(rule, index, namespace["guard"], namespace["first_failure"], namespace["effect"],
                        namespace.get("weight"), namespace.get("actor"), holes, reveals, tuple(domains), says)


def _function(emitter: Emitter, rule: Rule, node: n.Node, params: str, lets: list[str]) -> Callable[..., Any]:
    source = "\n".join([f"def f({params}):", *lets, f"    return {emitter.emit(node)}"])
    namespace: dict[str, Any] = dict(HELPERS)
    namespace["_next_in"] = next_in
    exec(compile(source, f"<rule {rule.name} expression>", "exec"), namespace)
    function: Callable[..., Any] = namespace["f"]
    return function


def compile_expression(spec: Spec, players: int, node: n.Node, extra: tuple[str, ...] = ()) -> Callable[..., Any]:
    """A function `f(s, *extra)` evaluating a state expression (properties, queries, inits)."""
    emitter = Emitter(spec, players)
    params = ", ".join(["s", *extra])
    source = f"def f({params}):\n    return {emitter.emit(node)}\n"
    namespace: dict[str, Any] = dict(HELPERS)
    namespace["_next_in"] = next_in
    exec(compile(source, "<expression>", "exec"), namespace)
    function: Callable[..., Any] = namespace["f"]
    return function
