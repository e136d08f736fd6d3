"""Translate the typed expression tree of the spec into Z3 terms.

The same tree engine/pycompile.py compiles to Python is compiled here to Z3, node kind by
node kind and builtin by builtin, and must mean exactly the same on well-typed values
(tests/test_smt_agreement.py checks it against the engine on random reachable states).

Sorts (see spec/lang/types.py for the encodings both backends share):

- `bool` is a Z3 Bool;
- a seat set is a bit-vector of width `players` (bit i = seat i);
- everything else that is int-like — ints, seats (`none` = -1), enum member indexes
  (`none` = -1), tile codes `(1 << length) | bits` — is a signed bit-vector of the one
  width W that verify/smt/bounds.py computed to hold every value exactly.

Builtins over bounded arguments whose arithmetic would be costly or non-linear in Z3
(`choose`, `perm`, `next_in`, table lookups) become finite if-then-else tables over the
ranges the interval analysis gives; tile sequences are taken apart bit by bit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import z3  # type: ignore[import-untyped]

from spec.errors import SpecError
from spec.lang import nodes as n
from spec.lang.check import KNOWS_REFUSED
from spec.temporal import KNOWLEDGE_CALLS
from spec.model import Spec

from .bounds import Range, Ranges, positivity_operand, table_values

Term = Any
"""A Z3 term (BoolRef or BitVecRef), or a tuple of ints for a constant table."""


@dataclass(slots=True)
class Env:
    """What names mean while translating: the state before (`fields`), the state after
    (`after`, for move expressions), parameters and lets (`local`) with their ranges."""

    fields: Mapping[str, Term]
    after: Mapping[str, Term] | None = None
    local: dict[str, Term] = field(default_factory=dict)
    ranges: dict[str, Range] = field(default_factory=dict)
    memo: dict[str, Term] = field(default_factory=dict)   # definitions over `fields`

    def child(self) -> "Env":
        """An environment adding locals on top of this one (the same states)."""
        return Env(self.fields, self.after, dict(self.local), dict(self.ranges), self.memo)


class Translator:
    """Z3 terms of spec expressions for one spec and one player count."""

    def __init__(self, spec: Spec, players: int, ranges: Ranges, width: int | None = None,
                 base: int | None = None) -> None:
        self.spec = spec
        self.players = players
        self.ranges = ranges
        self.values = spec.values_for(players)
        self.width = width or ranges.width()
        self.base = base or self.width
        """Width of the state variables and parameters this translator reads; narrower than
        `width` for a translator of wide expressions (a ranking), which sign-extends them."""
        self._methods: dict[type, Callable[[Any, Env], Term]] = {
            n.Lit: self._lit, n.Name: self._name, n.Unary: self._unary, n.Binary: self._binary,
            n.Compare: self._compare, n.BoolOp: self._boolop, n.IfElse: self._ifelse, n.Call: self._call,
            n.SeatSet: self._seatset, n.Index: self._index,
        }

    # ------------------------------------------------------------------ values

    def number(self, value: int) -> z3.BitVecRef:
        """A constant of the int-like sort."""
        return z3.BitVecVal(value, self.width)

    def mask(self, value: int) -> z3.BitVecRef:
        """A constant seat set."""
        return z3.BitVecVal(value, self.players)

    def constant(self, kind: str, value: int | bool) -> Term:
        """A constant of a field's sort from its engine encoding."""
        if kind == "bool":
            return z3.BoolVal(bool(value))
        if kind == "seats":
            return self.mask(int(value))
        return self.number(int(value))

    def variable(self, kind: str, name: str) -> Term:
        """A fresh Z3 constant of a field's sort."""
        if kind == "bool":
            return z3.Bool(name)
        if kind == "seats":
            return z3.BitVec(name, self.players)
        return z3.BitVec(name, self.width)

    # ------------------------------------------------------------------ entry

    def term(self, node: n.Node, env: Env) -> Term:
        """The Z3 term of a node in an environment."""
        return self._methods[type(node)](node, env)

    def range_of(self, node: n.Node, env: Env) -> Range:
        """The range of an int-like node, given the locals' ranges in `env`."""
        return self.ranges.of(node, env.ranges)

    # ------------------------------------------------------------------ leaves

    def _lit(self, node: n.Lit, env: Env) -> Term:
        if node.type.kind == "bool":
            return z3.BoolVal(bool(node.value))
        if node.type.kind == "seats":
            return self.mask(int(node.value))
        return self.number(int(node.value))

    def widen(self, term: Term, node: n.Node) -> Term:
        """A variable's term at this translator's width (int-like values only)."""
        if self.width > self.base and node.type.kind not in ("bool", "seats") and term.size() < self.width:
            return z3.SignExt(self.width - term.size(), term)
        return term

    def _name(self, node: n.Name, env: Env) -> Term:
        if node.kind == "field":
            return self.widen(env.fields[node.name], node)
        if node.kind in ("param", "let"):
            return self.widen(env.local[node.name], node)
        if node.kind == "after":
            assert env.after is not None, f"'{node.name}' outside a move expression"
            return self.widen(env.after[node.name[len("after_"):]], node)
        if node.kind == "definition":
            key = f"{node.name}/{self.width}"
            if key not in env.memo:
                env.memo[key] = self.term(self.spec.definitions[node.name], Env(env.fields, memo=env.memo))
            return env.memo[key]
        if node.kind == "constant":
            value = self.values[node.name]
            if isinstance(value, tuple):
                return value
            if node.type.kind == "seats":
                return self.mask(value)
            return self.number(value)
        raise AssertionError(f"unresolved name {node.name}")

    # ------------------------------------------------------------------ operators

    def _unary(self, node: n.Unary, env: Env) -> Term:
        operand = self.term(node.operand, env)
        return z3.Not(operand) if node.op == "not" else -operand

    def _binary(self, node: n.Binary, env: Env) -> Term:
        left, right = self.term(node.left, env), self.term(node.right, env)
        if node.type.kind == "seats":
            return {"|": lambda: left | right, "&": lambda: left & right, "-": lambda: left & ~right}[node.op]()
        if node.op == "+":
            return left + right
        if node.op == "-":
            return left - right
        if node.op == "*":
            return left * right
        if node.op == "%":
            return left % right            # bvsmod: the sign of the divisor, as Python's %
        if node.op == "//":
            return (left - left % right) / right   # exact division after removing the floor remainder
        raise AssertionError(f"operator {node.op}")

    def positive(self, node: n.Node, env: Env) -> Term:
        """`node > 0` without building the value of products, `choose` and `perm`, which
        could be wide: for integers a*b > 0 iff both are positive or both negative, and
        C(n, k) > 0 and n!/(n-k)! > 0 iff 0 <= k <= n (spec/lang/check.py BUILTINS)."""
        if isinstance(node, n.Lit):
            return z3.BoolVal(int(node.value) > 0)
        if isinstance(node, n.Binary) and node.op == "*":
            left, right = self.positive(node.left, env), self.positive(node.right, env)
            negative = [self.term(side, env) < 0 for side in (node.left, node.right)
                        if self.ranges.quiet(side, env.ranges)[0] < 0]
            if len(negative) < 2:
                return z3.And(left, right)
            return z3.Or(z3.And(left, right), z3.And(negative))
        if isinstance(node, n.Call) and node.function in ("choose", "perm"):
            total, pick = self.term(node.args[0], env), self.term(node.args[1], env)
            return z3.And(pick >= 0, pick <= total)
        if isinstance(node, n.IfElse):
            return z3.If(self.term(node.condition, env), self.positive(node.then, env),
                         self.positive(node.otherwise, env))
        return self.term(node, env) > 0

    def _compare(self, node: n.Compare, env: Env) -> Term:
        operand = positivity_operand(node)
        if operand is not None:
            return self.positive(operand, env)
        op = node.op
        if op in ("in", "not in"):
            test = self._member(node, env)
            return test if op == "in" else z3.Not(test)
        left, right = self.term(node.left, env), self.term(node.right, env)
        if node.left.type.kind == "seats" and op in ("<=", "<"):
            subset = (left & ~right) == 0
            return subset if op == "<=" else z3.And(subset, left != right)
        if op == "==":
            return left == right
        if op == "!=":
            return left != right
        return {"<": lambda: left < right, "<=": lambda: left <= right,
                ">": lambda: left > right, ">=": lambda: left >= right}[op]()

    def _member(self, node: n.Compare, env: Env) -> Term:
        left = self.term(node.left, env)
        if isinstance(node.right, n.ListLit):
            return z3.Or([left == self.term(item, env) for item in node.right.items] or [z3.BoolVal(False)])
        right = self.term(node.right, env)
        if isinstance(right, tuple):
            return z3.Or([left == self.number(value) for value in right] or [z3.BoolVal(False)])
        test = self.has_seat(right, left)
        if node.left.type.optional:
            test = z3.And(left >= 0, test)
        return test

    def has_seat(self, mask: Term, seat: Term) -> Term:
        """Whether bit `seat` of a seat set is set: Python's `(mask >> seat) & 1 == 1`."""
        size = max(self.width, self.players)
        wide_mask = z3.ZeroExt(size - self.players, mask)
        wide_seat = z3.SignExt(size - self.width, seat)
        return z3.Extract(0, 0, z3.LShR(wide_mask, wide_seat)) == 1

    def singleton(self, seat: Term) -> Term:
        """The seat set `{seat}`: Python's `1 << seat`, cut to the seats of the game."""
        size = max(self.width, self.players)
        one = z3.BitVecVal(1, size) << z3.SignExt(size - self.width, seat)
        return z3.Extract(self.players - 1, 0, one)

    def _boolop(self, node: n.BoolOp, env: Env) -> Term:
        operands = [self.term(operand, env) for operand in node.operands]
        return z3.And(operands) if node.op == "and" else z3.Or(operands)

    def _ifelse(self, node: n.IfElse, env: Env) -> Term:
        return z3.If(self.term(node.condition, env), self.term(node.then, env), self.term(node.otherwise, env))

    def _seatset(self, node: n.SeatSet, env: Env) -> Term:
        result: Term = self.mask(0)
        for item in node.items:
            result = result | self.singleton(self.term(item, env))
        return result

    def _index(self, node: n.Index, env: Env) -> Term:
        table = self.term(node.table, env)
        assert isinstance(table, tuple), "only constant tables are indexed"
        index = self.term(node.index, env)
        result: Term = self.number(self.ranges.zero(node.type))
        if z3.is_bv_value(index):   # a fixed entry (a ledger's `board[2]`): no chain of choices
            position = index.as_signed_long()
            return self.number(table[position]) if 0 <= position < len(table) else result
        for position in reversed(range(len(table))):
            result = z3.If(index == position, self.number(table[position]), result)
        return result

    # ------------------------------------------------------------------ builtins

    def _call(self, node: n.Call, env: Env) -> Term:
        function = node.function
        if function in KNOWLEDGE_CALLS:
            raise SpecError(f"the Z3 backend does not decide knows(): {KNOWS_REFUSED}")
        if function in ("choose", "perm"):
            return self._table(function, node, env)
        if function == "next_in":
            return self.next_in(self.term(node.args[0], env), self.term(node.args[1], env),
                                self.range_of(node.args[1], env))
        args = [self.term(arg, env) for arg in node.args]
        if function == "count":
            return self.popcount(args[0], self.players)
        if function == "min" or function == "max":
            result = args[0]
            for arg in args[1:]:
                result = z3.If(arg < result, arg, result) if function == "min" else z3.If(arg > result, arg, result)
            return result
        if function == "abs":
            return z3.If(args[0] < 0, -args[0], args[0])
        limit = self.range_of(node.args[0], env)[1].bit_length() if node.args else 0
        if function == "size":
            return self.bit_length(args[0], limit) - 1
        if function == "fascists":
            return self.popcount(args[0], limit) - 1
        if function == "liberals":
            return self.bit_length(args[0], limit) - self.popcount(args[0], limit)
        if function == "first":
            return z3.If(args[0] > 1, args[0] & 1, self.number(0))
        if function in ("take", "drop"):
            code, k = args
            length = self.bit_length(code, limit) - 1
            clamped = z3.If(k < 0, self.number(0), k)
            cut = z3.If(clamped < length, clamped, length)
            if function == "drop":
                return z3.LShR(code, cut)
            one = self.number(1)
            return (code & ((one << cut) - 1)) | (one << cut)
        raise AssertionError(f"unknown builtin {function}")

    def popcount(self, vector: Term, bits: int) -> Term:
        """The number of set bits among the lowest `bits`, as an int-like term."""
        total: Term = self.number(0)
        for position in range(min(bits, vector.size())):
            total = total + z3.ZeroExt(self.width - 1, z3.Extract(position, position, vector))
        return total

    def bit_length(self, vector: Term, bits: int) -> Term:
        """Python's `int.bit_length` of a non-negative value below `1 << bits`."""
        result: Term = self.number(0)
        for position in range(min(bits, vector.size())):
            result = z3.If(z3.Extract(position, position, vector) == 1, self.number(position + 1), result)
        return result

    def next_in(self, mask: Term, seat: Term, seats: Range) -> Term:
        """engine/pycompile.next_in as a table: for each seat value in range, the first seat of
        the set clockwise after it ((seat + step) % players for step 1..players), or the seat
        itself when the set is empty."""
        players = self.players
        result: Term = seat
        for value in reversed(range(seats[0], seats[1] + 1)):
            found: Term = self.number(value)
            for step in reversed(range(1, players + 1)):
                candidate = (value + step) % players
                found = z3.If(z3.Extract(candidate, candidate, mask) == 1, self.number(candidate), found)
            result = z3.If(seat == value, found, result)
        return result

    def _table(self, function: str, node: n.Call, env: Env) -> Term:
        totals, picks = self.range_of(node.args[0], env), self.range_of(node.args[1], env)
        total, pick = self.term(node.args[0], env), self.term(node.args[1], env)
        result: Term = self.number(0)
        for (value, chosen), entry in sorted(table_values(function, totals, picks).items(), reverse=True):
            if entry:
                result = z3.If(z3.And(total == value, pick == chosen), self.number(entry), result)
        return result
