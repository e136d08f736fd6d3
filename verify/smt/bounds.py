"""Value ranges of spec expressions, and the bit-width that holds them all exactly.

The Z3 backend puts every int-like value (ints, seats, enum members, tile codes) in a
signed bit-vector of one width W. W must hold every value any expression of the spec can
take in a *well-typed* state (each field within its declared range: an int field within
`low..high`, a seat within 0..players-1, an enum member index, a tile code of at most
`tile_limit` tiles). That typing is itself proved by induction (verify/smt/support.py),
so on every reachable state the bit-vector arithmetic is exact: it means what Python's
unbounded ints mean in engine/pycompile.py.

The same ranges bound the arguments of `choose`, `perm` and `next_in`, whose Z3
translations are finite tables over exactly these ranges.

Nothing here imports z3; it is plain interval arithmetic over the typed tree.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from spec.lang import nodes as n
from spec.lang.limits import MAX_TILES
from spec.lang.types import Type
from spec.model import Domain, Rule, Spec

Range = tuple[int, int]

TILE_LIMIT = MAX_TILES
"""A tile sequence holds at most this many tiles (spec/lang/limits.py, the `tiles` type)."""

MIN_WIDTH = 8
"""Narrowest bit-vector used, whatever the ranges: room to spare costs nothing."""


def tile_codes(length: int) -> Range:
    """Codes of tile sequences of at most `length` tiles: `(1 << len) | bits`."""
    return (1, (2 << length) - 1)


def signed_bits(low: int, high: int) -> int:
    """Bits of a two's complement vector holding every value in low..high."""
    return max(abs(low).bit_length(), abs(high).bit_length()) + 1


@dataclass(slots=True)
class Ranges:
    """Interval analysis of one spec for one player count.

    `of(node, names)` is the range of an int-like node, where `names` gives the ranges of
    parameters, lets and `after_` fields in scope; fields, constants and definitions are
    known to the instance. Every range computed is remembered in `widest`, so the width
    needed by everything analysed so far is `width()`.
    """

    spec: Spec
    players: int
    values: Mapping[str, int | tuple[int, ...]]
    tile_limit: int = TILE_LIMIT
    widest: int = MIN_WIDTH
    fields: dict[str, Range] = field(default_factory=dict)
    _definitions: dict[str, Range] = field(default_factory=dict)

    @classmethod
    def build(cls, spec: Spec, players: int) -> "Ranges":
        """The ranges of every field of `spec` (tile limit raised to the longest tile domain)."""
        ranges = cls(spec, players, spec.values_for(players))
        for rule in spec.rules:
            for param in rule.params:
                if param.domain.kind == "tiles" and param.domain.length is not None:
                    ranges.tile_limit = max(ranges.tile_limit, ranges.of(param.domain.length, {})[1])
        for spec_field in spec.fields:
            ranges.fields[spec_field.name] = ranges.declared(spec_field.type, spec_field.low, spec_field.high)
        return ranges

    def with_fields(self, fields: Mapping[str, Range]) -> "Ranges":
        """The same analysis for states whose fields range over `fields` (a successor of a
        well-typed state: each field's declared range joined with its effects' values)."""
        return Ranges(self.spec, self.players, self.values, self.tile_limit, MIN_WIDTH, dict(fields))

    def width(self) -> int:
        """The signed width holding every range seen so far."""
        return self.widest

    def needed(self, node: n.Node, names: Mapping[str, Range]) -> int:
        """The signed width the translation of `node` needs (the running width unchanged)."""
        widest = self.widest
        self.widest = MIN_WIDTH
        try:
            self.any(node, names)
            return self.widest
        finally:
            self.widest = widest

    def _note(self, low: int, high: int) -> Range:
        self.widest = max(self.widest, signed_bits(low, high))
        return (low, high)

    def declared(self, type_: Type, low: n.Node | None = None, high: n.Node | None = None) -> Range:
        """The values a well-typed field or parameter of this type takes."""
        kind = type_.kind
        bottom = -1 if type_.optional else 0
        if kind == "int":
            assert low is not None and high is not None, "an int field has a range"
            return self._note(self.of(low, {})[0], self.of(high, {})[1])
        if kind == "seat":
            return self._note(bottom, self.players - 1)
        if kind == "enum":
            return self._note(bottom, len(self.members(type_)) - 1)
        if kind == "tiles":
            return self._note(*tile_codes(self.tile_limit))
        if kind == "bool":
            return (0, 1)
        if kind == "seats":
            return (0, (1 << self.players) - 1)
        if kind == "none":
            return (-1, -1)
        raise AssertionError(f"no range for type {type_}")

    def members(self, type_: Type) -> tuple[str, ...]:
        """The members of an enum type (policy tiles included)."""
        if type_.enum == "tile":
            return ("liberal", "fascist")
        return self.spec.enums[str(type_.enum)]

    def domain(self, domain: Domain, type_: Type, names: Mapping[str, Range]) -> Range:
        """The values a parameter with this domain takes."""
        if domain.kind == "range":
            assert domain.low is not None and domain.high is not None
            return self._note(self.of(domain.low, names)[0], self.of(domain.high, names)[1])
        if domain.kind == "tiles":
            assert domain.length is not None
            low, high = self.of(domain.length, names)
            return self._note(1 << max(low, 0), (2 << max(high, 0)) - 1)
        return self.declared(type_)

    def rule_names(self, rule: Rule) -> dict[str, Range]:
        """Ranges of a rule's parameters and lets."""
        names: dict[str, Range] = {}
        for param in rule.params:
            names[param.name] = self.domain(param.domain, param.type, names)
        for name, node in rule.lets:
            names[name] = self.any(node, names)
        return names

    def any(self, node: n.Node, names: Mapping[str, Range]) -> Range:
        """The range of any node: (0, 1) for bools, the mask range for seat sets."""
        if node.type.kind in ("bool", "seats", "list"):
            self.visit(node, names)
            return self.declared(node.type) if node.type.kind != "list" else (0, 0)
        return self.of(node, names)

    def visit(self, node: n.Node, names: Mapping[str, Range]) -> None:
        """Analyse every int-like sub-expression of a node (bool or seat-set valued too)."""
        operand = positivity_operand(node)
        if operand is not None:
            self.positive(operand, names)
            return
        if node.type.kind in ("bool", "seats", "list") or isinstance(node, (n.Compare, n.BoolOp)):
            for child in n.children(node):
                if isinstance(child, n.ListLit) or (isinstance(child, n.Name) and child.type.kind == "list"):
                    continue
                self.visit(child, names)
            return
        self.of(node, names)

    def positive(self, node: n.Node, names: Mapping[str, Range]) -> None:
        """Analyse what the translation of `node > 0` builds (Translator.positive): the
        operands of products, choose and perm, never their possibly wide values."""
        if isinstance(node, n.Lit):
            return
        if isinstance(node, n.Binary) and node.op == "*":
            for side in (node.left, node.right):
                self.positive(side, names)
                if self.quiet(side, names)[0] < 0:
                    self.of(side, names)
            return
        if isinstance(node, n.Call) and node.function in ("choose", "perm"):
            for arg in node.args:
                self.of(arg, names)
            return
        if isinstance(node, n.IfElse):
            self.visit(node.condition, names)
            self.positive(node.then, names)
            self.positive(node.otherwise, names)
            return
        self.of(node, names)

    def quiet(self, node: n.Node, names: Mapping[str, Range]) -> Range:
        """The range of a node without widening the width (the value is never built)."""
        widest = self.widest
        try:
            return self.of(node, names)
        finally:
            self.widest = widest

    def of(self, node: n.Node, names: Mapping[str, Range]) -> Range:
        """The range of an int-like node (int, seat, enum, tile code)."""
        low, high = self._of(node, names)
        return self._note(low, high)

    def _of(self, node: n.Node, names: Mapping[str, Range]) -> Range:
        if isinstance(node, n.Lit):
            return (int(node.value), int(node.value))
        if isinstance(node, n.Name):
            return self._name(node, names)
        if isinstance(node, n.Unary):
            low, high = self.of(node.operand, names)
            return (-high, -low)
        if isinstance(node, n.Binary):
            return self._binary(node, names)
        if isinstance(node, n.IfElse):
            self.visit(node.condition, names)
            a, b = self.of(node.then, names), self.of(node.otherwise, names)
            return (min(a[0], b[0]), max(a[1], b[1]))
        if isinstance(node, n.Call):
            return self._call(node, names)
        if isinstance(node, n.Index):
            low, high = self.of(node.index, names)
            table = self.values[node.table.name] if isinstance(node.table, n.Name) else ()
            assert isinstance(table, tuple)
            zero = self.zero(node.type)
            items = list(table[max(low, 0):max(high + 1, 0)]) + [zero]
            return (min(items), max(items))
        raise AssertionError(f"{type(node).__name__} is not int-valued")

    def zero(self, type_: Type) -> int:
        """What an out-of-range table lookup gives (nodes.Index): `none` if the enum has it."""
        if type_.kind == "enum" and type_.enum in self.spec.enums and "none" in self.spec.enums[str(type_.enum)]:
            return self.spec.enums[str(type_.enum)].index("none")
        return 0

    def _name(self, node: n.Name, names: Mapping[str, Range]) -> Range:
        if node.kind == "field":
            return self.fields[node.name]
        if node.kind in ("param", "let", "after"):
            if node.name in names:
                return names[node.name]
            if node.kind == "after":
                return self.fields[node.name[len("after_"):]]
            raise AssertionError(f"no range known for {node.kind} '{node.name}'")
        if node.kind == "constant":
            value = self.values[node.name]
            assert isinstance(value, int), f"constant {node.name} is a table"
            return (value, value)
        if node.kind == "definition":
            if node.name not in self._definitions:
                self._definitions[node.name] = self.of(self.spec.definitions[node.name], {})
            return self._definitions[node.name]
        raise AssertionError(f"unresolved name {node.name}")

    def _binary(self, node: n.Binary, names: Mapping[str, Range]) -> Range:
        (a, b), (c, d) = self.of(node.left, names), self.of(node.right, names)
        if node.op == "+":
            return (a + c, b + d)
        if node.op == "-":
            return (a - d, b - c)
        if node.op == "*":
            products = (a * c, a * d, b * c, b * d)
            return (min(products), max(products))
        assert isinstance(node.right, n.Lit), "the checker allows only literal divisors"
        divisor = int(node.right.value)
        if node.op == "//":
            quotients = (a // divisor, b // divisor)
            return (min(quotients), max(quotients))
        # Python's % takes the sign of the divisor.
        return (0, divisor - 1) if divisor > 0 else (divisor + 1, 0)

    def _call(self, node: n.Call, names: Mapping[str, Range]) -> Range:
        function = node.function
        if function == "count":
            self.visit(node.args[0], names)
            return (0, self.players)
        if function == "next_in":
            self.visit(node.args[0], names)
            low, high = self.of(node.args[1], names)
            return (min(low, 0), max(high, self.players - 1))
        args = [self.of(arg, names) for arg in node.args]
        if function == "min":
            return (min(a[0] for a in args), min(a[1] for a in args))
        if function == "max":
            return (max(a[0] for a in args), max(a[1] for a in args))
        if function == "abs":
            (low, high), = args
            candidates = [abs(low), abs(high)] + ([0] if low <= 0 <= high else [])
            return (min(candidates), max(candidates))
        if function in ("choose", "perm"):
            table = table_values(function, args[0], args[1])
            return (min(table.values(), default=0), max(list(table.values()) + [0]))
        if function in ("size", "liberals", "fascists"):
            longest = max(args[0][1].bit_length() - 1, 0)
            return (0, longest)
        if function == "first":
            return (0, 1)
        if function in ("take", "drop"):
            return (1, max(args[0][1], 1))
        raise AssertionError(f"unknown builtin {function}")


def positivity_operand(node: n.Node) -> n.Node | None:
    """`x` when the node is `x > 0` or `0 < x` (translated without building x's value)."""
    if isinstance(node, n.Compare) and node.left.type.kind == "int":
        if node.op == ">" and isinstance(node.right, n.Lit) and node.right.value == 0:
            return node.left
        if node.op == "<" and isinstance(node.left, n.Lit) and node.left.value == 0:
            return node.right
    return None


def table_values(function: str, totals: Range, picks: Range) -> dict[tuple[int, int], int]:
    """`choose` / `perm` for every (n, k) in the given ranges (spec/lang/check.py BUILTINS:
    the binomial coefficient and the ordered draws n!/(n-k)!, 0 when k < 0 or k > n)."""
    out: dict[tuple[int, int], int] = {}
    for total in range(totals[0], totals[1] + 1):
        for pick in range(picks[0], picks[1] + 1):
            if 0 <= pick <= total:
                out[(total, pick)] = math.comb(total, pick) if function == "choose" else math.perm(total, pick)
            else:
                out[(total, pick)] = 0
    return out


def analyse(spec: Spec, players: int, extra: Iterable[tuple[n.Node, Mapping[str, Range]]] = ()) -> Ranges:
    """Ranges of every expression of the spec (rules, inits, definitions) and of `extra`
    (properties, invariants, a ranking), so that `width()` covers them all."""
    ranges = Ranges.build(spec, players)
    for spec_field in spec.fields:
        ranges.any(spec_field.init, {})
    for node in spec.definitions.values():
        ranges.any(node, {})
    for rule in spec.rules:
        names = ranges.rule_names(rule)
        for requirement in rule.requires:
            ranges.any(requirement.when, names)
        for _, node in rule.effect:
            ranges.any(node, names)
        if rule.weight is not None:
            ranges.positive(rule.weight, names)
        if rule.actor_seat is not None:
            ranges.any(rule.actor_seat, names)
    for node, extra_names in extra:
        ranges.any(node, extra_names)
    return ranges


def after_ranges(spec: Spec, ranges: Ranges) -> dict[str, Range]:
    """Ranges of `after_FIELD` in a move expression: the field's declared range joined
    with every value an effect can give it from a well-typed state."""
    out = {f"after_{name}": rng for name, rng in ranges.fields.items()}
    for rule in spec.rules:
        names = ranges.rule_names(rule)
        for name, node in rule.effect:
            if node.type.kind in ("bool", "seats"):
                continue
            low, high = ranges.of(node, names)
            old = out[f"after_{name}"]
            out[f"after_{name}"] = (min(old[0], low), max(old[1], high))
    return out
