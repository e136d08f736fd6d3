"""Parse and type-check spec expressions into the typed tree of `nodes`.

Python's `ast` module parses the text (the language is a small subset of Python's
expression syntax); nothing is ever evaluated here. Everything outside the subset is
refused with the location and what to write instead: unknown names (with a "did you
mean"), attribute and dunder access, calls outside the builtins, lambdas,
comprehensions, imports (which `mode="eval"` cannot even parse), `**`, and integer
literals large enough to make arithmetic slow. The reference is spec/LANGUAGE.md.
"""

from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass, field

from ..errors import Location, SpecError
from . import nodes as n
from .types import BOOL, INT, NONE, SEAT, SEATS, STRING, TILE, TILE_MEMBERS, TILES, Type, encode_tiles

from .limits import MAX_DEPTH, MAX_EXPRESSION_CHARS, MAX_LITERAL, MAX_TILES, check_combinatoric


@dataclass(frozen=True, slots=True)
class Builtin:
    """A builtin function: argument types and result type; `None` means int-or-seat."""

    args: tuple[Type, ...]
    result: Type
    doc: str
    variadic: bool = False


BUILTINS: dict[str, Builtin] = {
    "count": Builtin((SEATS,), INT, "number of seats in a set"),
    "next_in": Builtin((SEATS, SEAT), SEAT, "first seat of the set clockwise after the given seat"),
    "min": Builtin((INT, INT), INT, "smallest of two or more ints", variadic=True),
    "max": Builtin((INT, INT), INT, "largest of two or more ints", variadic=True),
    "abs": Builtin((INT,), INT, "absolute value"),
    "choose": Builtin((INT, INT), INT, "binomial coefficient C(n, k); 0 when k < 0 or k > n"),
    "perm": Builtin((INT, INT), INT, "ordered draws n!/(n-k)!; 0 when k < 0 or k > n"),
    "size": Builtin((TILES,), INT, "number of tiles in a sequence"),
    "liberals": Builtin((TILES,), INT, "Liberal tiles in a sequence"),
    "fascists": Builtin((TILES,), INT, "Fascist tiles in a sequence"),
    "first": Builtin((TILES,), TILE, "the top tile of a sequence (liberal if it is empty)"),
    "take": Builtin((TILES, INT), TILES, "the first k tiles of a sequence"),
    "drop": Builtin((TILES, INT), TILES, "the sequence without its first k tiles"),
}


KNOWS = "knows"
QUANTIFIERS = ("some", "every")
KNOWER = "knower"
"""Inside knows(WHO, WHAT), the seat that knows, e.g. knows(some('fascist'), hitler != knower)."""
ROLE_ENUM = "role"
"""The enum a role in some('liberal') belongs to; a seat's role is its `[view.role]`."""
KNOWS_USAGE = ("knows(WHO, WHAT), WHO a seat (president), some(SEATS) or every(SEATS) (a seat set, or a role: "
               "some('liberal')), WHAT a bool (hitler != nominee) or a value the seat knows (hitler)")
KNOWS_REFUSED = ("knows() asks what a seat knows, which only `shrules ask --can/--never` and the knowledge "
                 "disputes decide, over the seat's beliefs; it has no value in a rule, a property, an "
                 "invariant, a move query or the Z3 backend")


def _instead(name: str, builtin: Builtin, given: Type) -> str:
    """For a one-argument builtin given the wrong type, the builtins of one argument that
    take `given` and give the same type of result ("for seats, use count()"), or ""."""
    if len(builtin.args) != 1:
        return ""
    fits = sorted(other for other, candidate in BUILTINS.items()
                  if other != name and candidate.args == (given,) and candidate.result == builtin.result)
    return f"; for {given}, use {' or '.join(f'{other}()' for other in fits)}" if fits else ""


@dataclass(slots=True)
class Scope:
    """The names an expression may use, each with its kind and type."""

    names: dict[str, tuple[str, Type]] = field(default_factory=dict)
    enums: dict[str, tuple[str, ...]] = field(default_factory=dict)
    definitions: dict[str, n.Node] = field(default_factory=dict)
    synonyms: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    """Everyday words for names of the scope (spec/vocabulary.toml `also`), lower-cased:
    each with the names it stands for and their meaning, so that an unknown name is
    answered by meaning ("the sitting Chancellor is `nominee`"), not only by spelling."""
    knows: bool = False
    """Whether `knows(SEAT, EXPR)` may be used: only in a question, which is decided over
    a seat's beliefs (verify/knowledge); everywhere else it is refused with why."""

    def child(self) -> "Scope":
        """A scope that adds names (params, lets) on top of this one."""
        return Scope(dict(self.names), self.enums, self.definitions, self.synonyms, self.knows)

    def add(self, name: str, kind: str, type_: Type) -> None:
        """Declare a name."""
        self.names[name] = (kind, type_)


CARET_WIDTH = 100
"""Characters of an expression shown above a caret."""


def caret_lines(text: str, column: int) -> str | None:
    """The expression and a caret under `column`: two lines, whatever the text holds (a
    line break or another control character shows as a space, so the columns still match)."""
    shown_text = "".join(char if char.isprintable() else " " for char in text)
    if not shown_text.strip():
        return None                            # nothing visible to point at: the message says it
    if len(shown_text) > CARET_WIDTH:          # a window around the column, marked as cut
        start = max(0, min(column - CARET_WIDTH // 2, len(shown_text) - CARET_WIDTH))
        left = "…" if start else ""
        right = "…" if start + CARET_WIDTH < len(shown_text) else ""
        shown_text = left + shown_text[start:start + CARET_WIDTH] + right
        column = column - start + len(left)
    return f"  {shown_text}\n  {' ' * column}^"


class _Checker:
    def __init__(self, text: str, scope: Scope, where: Location, show_caret: bool) -> None:
        self.text = text
        self.scope = scope
        self.where = where
        self.show_caret = show_caret
        self.inside_knows = False

    def fail(self, message: str, node: ast.AST | None = None) -> SpecError:
        caret = None
        if self.show_caret and node is not None and hasattr(node, "col_offset"):
            caret = caret_lines(self.text, node.col_offset)
        return SpecError(message, self.where, caret=caret)

    # -------------------------------------------------------------- entry

    def check(self, tree: ast.AST, expected: Type | None, depth: int = 0) -> n.Node:
        if depth > MAX_DEPTH:
            raise self.fail("expression nested too deeply", tree)
        node = self._check(tree, expected, depth + 1)
        if node.type == STRING:
            raise self.fail(f"the string {_source(tree)} is not a value here: strings name enum members "
                            "and need a typed context, e.g. phase == 'vote'", tree)
        return node

    def _check(self, tree: ast.AST, expected: Type | None, depth: int) -> n.Node:
        method = getattr(self, "_" + type(tree).__name__, None)
        if method is None:
            raise self.fail(_refusal(tree), tree)
        result: n.Node = method(tree, expected, depth)
        return result

    def _Expression(self, tree: ast.Expression, expected: Type | None, depth: int) -> n.Node:
        return self.check(tree.body, expected, depth)

    # -------------------------------------------------------------- leaves

    def _Constant(self, tree: ast.Constant, expected: Type | None, depth: int) -> n.Node:
        value = tree.value
        if isinstance(value, bool):
            return n.Lit(BOOL, value)
        if isinstance(value, int):
            if abs(value) > MAX_LITERAL:
                raise self.fail(f"integer literal {value} is too large (at most {MAX_LITERAL})", tree)
            if expected is not None and expected.kind == "seat":
                return n.Lit(SEAT, value)
            return n.Lit(INT, value)
        if isinstance(value, str):
            return self._string(value, expected, tree)
        if value is None:
            raise self.fail("write none (lower case) for the absent seat", tree)
        raise self.fail(f"literal {value!r} is not part of the language", tree)

    def _string(self, value: str, expected: Type | None, tree: ast.AST) -> n.Node:
        if expected is None or expected.kind != "enum":
            return n.Name(STRING, value, "string")
        members = TILE_MEMBERS if expected.enum == "tile" else self.scope.enums[str(expected.enum)]
        if value not in members:
            hint = _did_you_mean(value, members)
            raise self.fail(f"'{value}' is not a {expected.enum}; expected one of "
                            f"{', '.join(members)}{hint}", tree)
        return n.Lit(expected, members.index(value))

    def _Name(self, tree: ast.Name, expected: Type | None, depth: int) -> n.Node:
        name = tree.id
        if name.startswith("_"):
            raise self.fail(f"names starting with '_' are not allowed: '{name}'", tree)
        if name == "none":
            return n.Lit(NONE, -1)
        if name in ("True", "False"):
            return n.Lit(BOOL, name == "True")
        if name in self.scope.names:
            kind, type_ = self.scope.names[name]
            return n.Name(type_, name, kind)
        known = list(self.scope.names) + ["none"]
        meant = [(target, meaning) for target, meaning in self.scope.synonyms.get(name.lower(), ())
                 if target in self.scope.names]
        if meant:
            said = "; ".join(f"`{target}` is {meaning}" for target, meaning in meant)
            spelled = difflib.get_close_matches(name, known, n=1)
            also = f". Spelled alike: '{spelled[0]}'" if spelled and spelled[0] not in dict(meant) else ""
            raise self.fail(f"unknown name '{name}': {said}{also}", tree)
        raise self.fail(f"unknown name '{name}'{_did_you_mean(name, known)}", tree)

    # -------------------------------------------------------------- operators

    def _UnaryOp(self, tree: ast.UnaryOp, expected: Type | None, depth: int) -> n.Node:
        if isinstance(tree.op, ast.Not):
            operand = self.check(tree.operand, BOOL, depth)
            self.expect(operand, BOOL, tree.operand, "operand of 'not'")
            return n.Unary(BOOL, "not", operand)
        if isinstance(tree.op, ast.USub):
            operand = self.check(tree.operand, INT, depth)
            self.expect(operand, INT, tree.operand, "operand of '-'")
            if isinstance(operand, n.Lit):
                return n.Lit(INT, -int(operand.value))
            return n.Unary(INT, "-", operand)
        raise self.fail(f"operator {type(tree.op).__name__} is not part of the language", tree)

    def _BinOp(self, tree: ast.BinOp, expected: Type | None, depth: int) -> n.Node:
        op = _BINOPS.get(type(tree.op))
        if op is None:
            if isinstance(tree.op, ast.Pow):
                raise self.fail("'**' is not allowed: an exponent could make evaluation hang; "
                                "write the product out", tree)
            raise self.fail(f"operator {_source(tree)} is not part of the language; use + - * // % "
                            "on ints and | & - on seats", tree)
        left = self.check(tree.left, expected, depth)
        right = self.check(tree.right, left.type, depth)
        if left.type == SEATS and right.type == SEATS and op in ("|", "&", "-"):
            return n.Binary(SEATS, op, left, right)
        if op in ("|", "&"):
            raise self.fail(f"'{op}' needs two seat sets, got {left.type} and {right.type}", tree)
        self.expect(left, INT, tree.left, f"left operand of '{op}'")
        self.expect(right, INT, tree.right, f"right operand of '{op}'")
        if op in ("//", "%") and not (isinstance(right, n.Lit) and right.value != 0):
            raise self.fail(f"the divisor of '{op}' must be a non-zero integer literal", tree.right)
        return n.Binary(INT, op, left, right)

    def _BoolOp(self, tree: ast.BoolOp, expected: Type | None, depth: int) -> n.Node:
        op = "and" if isinstance(tree.op, ast.And) else "or"
        operands = []
        for value in tree.values:
            operand = self.check(value, BOOL, depth)
            self.expect(operand, BOOL, value, f"operand of '{op}'")
            operands.append(operand)
        return n.BoolOp(BOOL, op, tuple(operands))

    def _Compare(self, tree: ast.Compare, expected: Type | None, depth: int) -> n.Node:
        parts: list[n.Node] = []
        left_tree = tree.left
        for op_tree, right_tree in zip(tree.ops, tree.comparators):
            parts.append(self.compare(left_tree, op_tree, right_tree, depth))
            left_tree = right_tree
        return parts[0] if len(parts) == 1 else n.BoolOp(BOOL, "and", tuple(parts))

    def compare(self, left_tree: ast.expr, op_tree: ast.cmpop, right_tree: ast.expr, depth: int) -> n.Node:
        op = _CMPOPS.get(type(op_tree))
        if op is None:
            raise self.fail("'is' is not part of the language; use == and !=", left_tree)
        if op in ("in", "not in"):
            return self.membership(op, left_tree, right_tree, depth)
        left = self.check_loose(left_tree, None, depth)
        right = self.check(right_tree, left.type if left.type != STRING else None, depth)
        if left.type == STRING:
            left = self.check(left_tree, right.type, depth)
        if op in ("==", "!="):
            if not _comparable(left.type, right.type):
                raise self.fail(f"cannot compare {left.type} with {right.type}", op_tree_node(left_tree))
            return n.Compare(BOOL, op, left, right)
        if left.type == SEATS and right.type == SEATS and op in ("<=", "<"):
            return n.Compare(BOOL, op, left, right)
        self.expect(left, INT, left_tree, f"left operand of '{op}'")
        self.expect(right, INT, right_tree, f"right operand of '{op}'")
        return n.Compare(BOOL, op, left, right)

    def check_loose(self, tree: ast.expr, expected: Type | None, depth: int) -> n.Node:
        """Like `check`, but a bare string is allowed (its type comes from the other side)."""
        return self._check(tree, expected, depth + 1)

    def membership(self, op: str, left_tree: ast.expr, right_tree: ast.expr, depth: int) -> n.Node:
        if isinstance(right_tree, ast.List):
            left = self.check_loose(left_tree, None, depth)
            if left.type == STRING:
                raise self.fail("the left side of 'in [...]' must be typed; write the field first", left_tree)
            items = tuple(self.check(item, left.type, depth) for item in right_tree.elts)
            for item, item_tree in zip(items, right_tree.elts):
                if not _comparable(left.type, item.type):
                    raise self.fail(f"cannot compare {left.type} with {item.type}", item_tree)
            return n.Compare(BOOL, op, left, n.ListLit(Type("list", elem=left.type), items))
        right = self.check(right_tree, None, depth)
        if right.type == SEATS:
            left = self.check(left_tree, SEAT, depth)
            if left.type.kind != "seat":
                raise self.fail(f"'{op}' a seat set needs a seat on the left, got {left.type}", left_tree)
            return n.Compare(BOOL, op, left, right)
        if right.type.kind == "list":
            left = self.check(left_tree, right.type.elem, depth)
            return n.Compare(BOOL, op, left, right)
        raise self.fail(f"'{op}' needs a seat set or a list on the right, got {right.type}", right_tree)

    def _IfExp(self, tree: ast.IfExp, expected: Type | None, depth: int) -> n.Node:
        condition = self.check(tree.test, BOOL, depth)
        self.expect(condition, BOOL, tree.test, "condition of 'if'")
        then = self.check_loose(tree.body, expected, depth)
        otherwise = self.check_loose(tree.orelse, then.type if then.type != STRING else expected, depth)
        if then.type == STRING:
            then = self.check(tree.body, otherwise.type, depth)
        joined = _join(then.type, otherwise.type)
        if joined is None:
            raise self.fail(f"the branches of 'if' have different types: {then.type} and {otherwise.type}", tree)
        return n.IfElse(joined, condition, then, otherwise)

    # -------------------------------------------------------------- calls and literals

    def _Call(self, tree: ast.Call, expected: Type | None, depth: int) -> n.Node:
        if not isinstance(tree.func, ast.Name):
            raise self.fail("only the documented builtins can be called "
                            f"({', '.join(sorted(BUILTINS))})", tree)
        name = tree.func.id
        if name == KNOWS:
            return self._knows(tree, depth)
        if name in QUANTIFIERS:
            raise self.fail(f"{name}(...) says who knows, as the first argument of knows(): "
                            f"knows({name}('liberal'), hitler)", tree)
        builtin = BUILTINS.get(name)
        if builtin is None:
            raise self.fail(f"'{name}' is not a builtin{_did_you_mean(name, list(BUILTINS))}; "
                            f"the builtins are {', '.join(sorted(BUILTINS))}", tree)
        if tree.keywords:
            raise self.fail(f"{name}() takes no keyword arguments", tree)
        wanted = builtin.args
        if builtin.variadic:
            if len(tree.args) < 2:
                raise self.fail(f"{name}() takes two or more arguments", tree)
            wanted = tuple(builtin.args[0] for _ in tree.args)
        if len(tree.args) != len(wanted):
            raise self.fail(f"{name}() takes {len(wanted)} argument(s), got {len(tree.args)}", tree)
        args = []
        for arg_tree, want in zip(tree.args, wanted):
            if isinstance(arg_tree, ast.Starred):
                raise self.fail("'*' arguments are not allowed", arg_tree)
            arg = self.check(arg_tree, want, depth)
            self.expect(arg, want, arg_tree, f"argument of {name}()", _instead(name, builtin, arg.type))
            args.append(arg)
        if name in ("choose", "perm") and isinstance(args[0], n.Lit):
            try:
                check_combinatoric(name, int(args[0].value))
            except SpecError as error:
                raise self.fail(error.message, tree) from None
        return n.Call(builtin.result, name, tuple(args))

    def _knows(self, tree: ast.Call, depth: int) -> n.Node:
        """`knows(WHO, WHAT)` (spec/LANGUAGE.md, "Knowledge"): WHO is a seat, or some(...) /
        every(...) of a seat set or a role; WHAT a bool the seat holds true in every state it
        thinks possible, or a value it knows (the same in all of them)."""
        if not self.scope.knows:
            raise self.fail(KNOWS_REFUSED, tree)
        if self.inside_knows:
            raise self.fail("knows() inside knows() is not decided: ask what one seat knows of the game", tree)
        if tree.keywords or len(tree.args) != 2 or any(isinstance(a, ast.Starred) for a in tree.args):
            raise self.fail(f"knows() takes two arguments: {KNOWS_USAGE}", tree)
        who_tree, what_tree = tree.args
        who = self._knower(who_tree, depth)
        inner = self.scope.child()
        inner.add(KNOWER, "param", SEAT)
        checker = _Checker(self.text, inner, self.where, self.show_caret)
        checker.inside_knows = True
        what = checker.check(what_tree, None, depth + 1)
        if what.type.kind in ("none", "list"):
            raise self.fail(f"knows() is about a bool or a value, got {what.type}", what_tree)
        return n.Call(BOOL, KNOWS, (who, what))

    def _knower(self, tree: ast.expr, depth: int) -> n.Node:
        """Who knows: `some(X)` / `every(X)` with X a seat set or a member of the role enum,
        or a seat (`seat?` too: nobody when it is none), kept as some(seat)."""
        if isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and tree.func.id in QUANTIFIERS:
            quantifier = tree.func.id
            if tree.keywords or len(tree.args) != 1:
                raise self.fail(f"{quantifier}() takes one argument: a seat set (fascists, alive - {{president}}) "
                                f"or a role ({', '.join(repr(m) for m in self.scope.enums.get(ROLE_ENUM, ()))})",
                                tree)
            arg_tree = tree.args[0]
            if isinstance(arg_tree, ast.Constant) and isinstance(arg_tree.value, str):
                if ROLE_ENUM not in self.scope.enums:
                    raise self.fail(f"a role in {quantifier}() needs the enum '{ROLE_ENUM}'", arg_tree)
                role = self._string(arg_tree.value, Type("enum", ROLE_ENUM), arg_tree)
                return n.Call(SEATS, quantifier, (role,))
            seats = self.check(arg_tree, SEATS, depth)
            self.expect(seats, SEATS, arg_tree, f"argument of {quantifier}()")
            return n.Call(SEATS, quantifier, (seats,))
        seat = self.check(tree, SEAT, depth)
        if seat.type.kind != "seat":
            raise self.fail(f"who knows is a seat, some(SEATS) or every(SEATS), got {seat.type}: {KNOWS_USAGE}",
                            tree)
        return n.Call(SEATS, "some", (seat,))       # the seat, or nobody when it is none

    def _Set(self, tree: ast.Set, expected: Type | None, depth: int) -> n.Node:
        items = []
        for item_tree in tree.elts:
            item = self.check(item_tree, SEAT, depth)
            if item.type.kind != "seat":
                raise self.fail(f"a set literal holds seats, got {item.type}", item_tree)
            items.append(item)
        return n.SeatSet(SEATS, tuple(items))

    def _Dict(self, tree: ast.Dict, expected: Type | None, depth: int) -> n.Node:
        if tree.keys:
            raise self.fail("dictionaries are not part of the language", tree)
        return n.SeatSet(SEATS, ())

    def _List(self, tree: ast.List, expected: Type | None, depth: int) -> n.Node:
        if expected == TILES:
            tiles = []
            for item_tree in tree.elts:
                if not (isinstance(item_tree, ast.Constant) and item_tree.value in TILE_MEMBERS):
                    raise self.fail("a tile sequence literal lists 'liberal' / 'fascist'", item_tree)
                tiles.append(str(item_tree.value))
            if len(tiles) > MAX_TILES:
                raise self.fail(f"a tile sequence holds at most {MAX_TILES} tiles", tree)
            return n.Lit(TILES, encode_tiles(tiles))
        raise self.fail("a list is allowed only on the right of 'in' or as a tile sequence", tree)

    def _Subscript(self, tree: ast.Subscript, expected: Type | None, depth: int) -> n.Node:
        table = self.check(tree.value, None, depth)
        if table.type.kind != "list" or not (isinstance(table, n.Name) and table.kind == "constant"):
            raise self.fail("only a constant table can be indexed", tree)
        if isinstance(tree.slice, ast.Slice):
            raise self.fail("slices are not part of the language", tree)
        index = self.check(tree.slice, INT, depth)
        self.expect(index, INT, tree.slice, "index")
        assert table.type.elem is not None
        return n.Index(table.type.elem, table, index)

    def _Attribute(self, tree: ast.Attribute, expected: Type | None, depth: int) -> n.Node:
        raise self.fail(f"attribute access ('.{tree.attr}') is not allowed", tree)

    # -------------------------------------------------------------- helpers

    def expect(self, node: n.Node, want: Type, tree: ast.AST, what: str, hint: str = "") -> None:
        """Refuse `node` unless it has type `want` (a seat? may stand where a seat is wanted);
        `hint`, when given, says what to write instead."""
        if node.type == want or (want.kind == "seat" and node.type.kind == "seat"):
            return
        if node.type == NONE and want.optional:
            return
        if want.kind == "enum" and node.type.same_base(want):
            return
        raise self.fail(f"{what} must be {want}, got {node.type}{hint}", tree)


def op_tree_node(tree: ast.AST) -> ast.AST:
    """The node a comparison error points at."""
    return tree


_BINOPS: dict[type, str] = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%",
                            ast.BitOr: "|", ast.BitAnd: "&"}
_CMPOPS: dict[type, str] = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
                            ast.GtE: ">=", ast.In: "in", ast.NotIn: "not in"}


def _comparable(a: Type, b: Type) -> bool:
    if a == NONE:
        return b.optional or b == NONE
    if b == NONE:
        return a.optional
    return a.same_base(b)


def _join(a: Type, b: Type) -> Type | None:
    """The type of `x if c else y` with branches of types a and b."""
    if a == NONE and b.kind in ("seat", "enum"):
        return Type(b.kind, b.enum, True, b.elem)
    if b == NONE and a.kind in ("seat", "enum"):
        return Type(a.kind, a.enum, True, a.elem)
    if a.same_base(b):
        return Type(a.kind, a.enum, a.optional or b.optional, a.elem)
    return None


def _did_you_mean(word: str, options: list[str] | tuple[str, ...]) -> str:
    close = difflib.get_close_matches(word, list(options), n=1)
    return f". Did you mean '{close[0]}'?" if close else ""


def _source(tree: ast.AST) -> str:
    try:
        return ast.unparse(tree)
    except Exception:  # unparse of a malformed tree: the type name is enough
        return type(tree).__name__


def _refusal(tree: ast.AST) -> str:
    """Why a syntax form is refused, and what to write instead."""
    kind = type(tree).__name__
    reasons = {
        "Lambda": "lambdas are not allowed",
        "ListComp": "comprehensions are not allowed",
        "SetComp": "comprehensions are not allowed",
        "DictComp": "comprehensions are not allowed",
        "GeneratorExp": "comprehensions are not allowed",
        "NamedExpr": "':=' is not allowed",
        "Await": "'await' is not allowed",
        "Yield": "'yield' is not allowed",
        "YieldFrom": "'yield' is not allowed",
        "JoinedStr": "f-strings are not allowed",
        "Tuple": "tuples are not part of the language",
        "Starred": "'*' is not allowed",
        "Slice": "slices are not allowed",
    }
    return reasons.get(kind, f"{kind} is not part of the language")


def parse(text: str, scope: Scope, where: Location, expected: Type | None = None,
          show_caret: bool = False) -> n.Node:
    """Parse and type-check one expression; with `expected`, its type must match."""
    if not isinstance(text, str):
        raise SpecError(f"expected an expression as a string, got {type(text).__name__}", where)
    if len(text) > MAX_EXPRESSION_CHARS:
        raise SpecError(f"expression longer than {MAX_EXPRESSION_CHARS} characters", where)
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as error:
        caret = None
        message = error.msg
        # Python reports an expression cut short (`a +`, `phase ==`) at offset 0: point at its end.
        at_end = not error.offset
        if at_end and message == "invalid syntax":
            message = "the expression ends too early: expected an operand at the end"
        if show_caret and error.offset is not None:
            column = len(text.strip()) if at_end else max(0, error.offset - 1)
            caret = caret_lines(text.strip(), column)
        raise SpecError(f"syntax error: {message}", where, caret=caret) from None
    except (ValueError, RecursionError, MemoryError):
        raise SpecError("expression cannot be parsed", where) from None
    return check_tree(tree.body, text, scope, where, expected, show_caret)


def check_tree(tree: ast.expr, text: str, scope: Scope, where: Location, expected: Type | None = None,
               show_caret: bool = False) -> n.Node:
    """Type-check a parsed expression of `text` (or a part of it, or a tree rewritten from
    it that keeps its column offsets), a caret pointing into `text`: the temporal queries
    (spec/temporal.py) check each argument of a temporal function this way."""
    checker = _Checker(text.strip(), scope, where, show_caret)
    try:
        node = checker.check(tree, expected)
    except RecursionError:
        raise SpecError("expression nested too deeply", where) from None
    if expected is not None:
        checker.expect(node, expected, tree, "the expression")
    return node
