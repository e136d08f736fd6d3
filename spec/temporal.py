"""Temporal queries: questions about the game so far, answered by monitors the rules carry.

A state holds the present, not the history, so "the same President three rounds in a
row" cannot be read from one state. A query may use four temporal functions
(spec/LANGUAGE.md, "Temporal queries"):

- `previous(X)`: X at the start of the round before the current one;
- `times(C)`: how many times C has begun to hold (or `at=E`: at how many starts of E it held);
- `in_a_row(C)`: for how many round starts in a row, up to the current round, C held;
- `then(A, B)`: B holds now and A held in an earlier state (`without=C`: C held in no
  state strictly between).

Each call is compiled into monitor fields and one assignment per field added to the
effect of every rule, an overlay on the rules (spec/overlay.py) registered under a name
of its own (`spec.loader.register_overlay`). The engine plays it, the explicit search
explores it and the solver encodes it like any variant, so every backend answers the
same question. A monitor reads the state *before* each move and writes only its own
fields: no requirement changes, so it changes no legal move. Its fields record the
strict past; the value at the current state is a definition that adds the current state
(`monitorN_value`), which is what the query reads.

Every monitor field is declared with a bounded type: counters saturate at one above the
number they are compared with (a counter must be compared with a number, so saturation
never changes the answer), at most `MAX_TEMPORAL_COUNT`. The overlay is type-checked by
the loader like a variant file; a mistake in the query is found before, with a caret.
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .errors import Location, SpecError
from .lang import nodes as n
from .lang.check import BUILTINS, KNOWS, QUANTIFIERS, Scope, caret_lines, check_tree
from .lang.limits import MAX_EXPRESSION_CHARS, MAX_TEMPORAL_CALLS, MAX_TEMPORAL_COUNT
from .lang.types import BOOL, INT, Type
from .loader import RESERVED, register_overlay
from .model import Spec
from .properties import state_scope


@dataclass(frozen=True, slots=True)
class Signature:
    """A temporal function: its positional arguments and the keywords it accepts."""

    args: tuple[str, ...]
    keywords: tuple[str, ...]

    def usage(self, name: str) -> str:
        """How it is called, e.g. `then(A, B, without=C)`."""
        return f"{name}({', '.join(self.args + tuple(f'{k}=...' for k in self.keywords))})"


FUNCTIONS: dict[str, Signature] = {
    "previous": Signature(("X",), ("at",)),
    "times": Signature(("C",), ("at",)),
    "in_a_row": Signature(("C",), ("at",)),
    "then": Signature(("A", "B"), ("without",)),
}
COUNTERS = ("times", "in_a_row")
"""Functions whose value is a count: saturated, so each must be compared with a number."""
PREFIX = "monitor"
KNOWLEDGE_CALLS = (KNOWS, *QUANTIFIERS)
"""Calls of the knowledge questions (spec/knowledge.py), which are not temporal."""


def calls(text: str, names: tuple[str, ...]) -> bool:
    """Whether an expression calls one of `names` (a syntax error is left to the parser)."""
    if not isinstance(text, str) or len(text) > MAX_EXPRESSION_CHARS:
        return False
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names
               for node in ast.walk(tree))


def uses_temporal(text: str) -> bool:
    """Whether an expression calls a temporal function, or a function that is neither one
    nor a builtin (whose error should list both); a syntax error is left to the parser."""
    if not isinstance(text, str) or len(text) > MAX_EXPRESSION_CHARS:
        return False
    try:
        tree = ast.parse(text.strip(), mode="eval")
        return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id not in BUILTINS
                   and node.func.id not in KNOWLEDGE_CALLS for node in ast.walk(tree))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


@dataclass(frozen=True, slots=True)
class Monitored:
    """A temporal query compiled: the rules with its monitors, the query over them."""

    rules: str                    # the name `load_spec` loads the monitored rules by
    text: str                     # the query, each temporal call replaced by its value's definition
    reads: frozenset[str]         # the fields of the plain rules the query reads (for its rule IDs)
    monitors: tuple[str, ...]     # the fields the monitors add


def monitor(spec: Spec, base: str, text: str, where: Location, show_caret: bool = False,
            over_moves: bool = False) -> Monitored:
    """Compile the temporal functions of `text` (an expression over the states of `spec`,
    loaded as `base`) into monitors; a mistake is a `SpecError` naming the expression.
    Over moves (`over_moves`) the temporal values are those of the state before the move,
    and the rest of the expression is left to the move query's own check."""
    compiler = _Compiler(spec, text.strip(), where, show_caret)
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise SpecError("expression cannot be parsed", where) from None
    try:
        body = compiler.visit(tree.body)
        if not over_moves:
            node = check_tree(body, text, compiler.scope, where, BOOL, show_caret)
            compiler.reads |= n.fields_read([node], compiler.scope.definitions)
    except RecursionError:
        raise SpecError("expression nested too deeply", where) from None
    compiler.check_shadowing()
    overlay: dict[str, Any] = {
        "add": {"state": compiler.fields, "definitions": compiler.definitions},
        "rule": [{"name": rule.name, "effect": dict(compiler.updates)} for rule in spec.rules],
    }
    plain = {f.name for f in spec.fields}
    return Monitored(register_overlay(base, overlay, "temporal"), ast.unparse(body),
                     frozenset(compiler.reads & plain), tuple(compiler.fields))


def base_name(spec: Spec) -> str:
    """The name to load `spec` by again: its file, or its name (a variant with settings)."""
    return spec.source if spec.source.endswith(".toml") else spec.name


@dataclass
class _Compiler(ast.NodeTransformer):
    """Replaces each temporal call by the name of a definition of its value, collecting
    the monitor fields, their updates and the definitions of the overlay."""

    spec: Spec
    text: str
    where: Location
    show_caret: bool
    scope: Scope = field(init=False)
    taken: set[str] = field(init=False)
    fields: dict[str, dict[str, str]] = field(default_factory=dict)
    definitions: dict[str, str] = field(default_factory=dict)
    updates: dict[str, str] = field(default_factory=dict)
    moments: dict[str, str] = field(default_factory=dict)
    reads: set[str] = field(default_factory=set)
    calls: int = 0
    caps: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.scope = state_scope(self.spec)
        spec = self.spec
        self.taken = (set(self.scope.names) | set(spec.enums) | {m for ms in spec.enums.values() for m in ms}
                      | {r.name for r in spec.rules} | set(BUILTINS) | set(FUNCTIONS) | set(RESERVED)
                      | {name for r in spec.rules for name in (*(p.name for p in r.params), *(k for k, _ in r.lets))})

    # ------------------------------------------------------------------ errors and names

    def fail(self, message: str, node: ast.AST | None) -> SpecError:
        caret = None
        if self.show_caret and node is not None and hasattr(node, "col_offset"):
            caret = caret_lines(self.text, node.col_offset)
        return SpecError(message, self.where, caret=caret)

    def fresh(self, role: str) -> str:
        """A name for a monitor's field or definition that the rules do not use."""
        while True:
            name = f"{PREFIX}{self.calls}_{role}"
            if name not in self.taken:
                self.taken.add(name)
                return name
            self.calls += 1

    def add_field(self, role: str, type_text: str, type_: Type, init: str, update: str,
                  bound: str | None = None) -> str:
        name = self.fresh(role)
        # A monitor records what the checker watches, not a part of the game a seat is shown.
        declared = {"type": type_text, "init": init, "seen": "public"}
        if bound is not None:
            declared["range"] = bound
        self.fields[name] = declared
        self.updates[name] = update
        self.scope.add(name, "field", type_)
        return name

    def define(self, role: str, text: str, node: ast.AST) -> str:
        """A definition of the overlay, checked now so a mistake points into the query."""
        name = self.fresh(role)
        try:
            tree = ast.parse(text, mode="eval").body
        except SyntaxError:  # pragma: no cover - built from parsed trees
            raise self.fail("temporal function cannot be compiled", node) from None
        value = check_tree(tree, text, self.scope, self.where)
        self.definitions[name] = text
        self.scope.add(name, "definition", value.type)
        self.scope.definitions[name] = value
        return name

    # ------------------------------------------------------------------ the tree

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        """A counter compared with a number: the number sets the counter's cap."""
        sides = [node.left, *node.comparators]
        counters = [i for i, side in enumerate(sides) if _is_call(side, COUNTERS)]
        if not counters:
            return self.generic_visit(node)
        if len(sides) != 2 or len(counters) != 1:
            raise self.fail(f"compare {_name(sides[counters[0]])}(...) with one number, e.g. "
                            f"{_name(sides[counters[0]])}(...) >= 2", sides[counters[0]])
        index = counters[0]
        other = sides[1 - index]
        bound = self.number(other)
        if bound is None:
            raise self.fail(f"{_name(sides[index])}(...) counts up to one above the number it is compared with: "
                            f"compare it with a whole number or a constant of the rules", other)
        cap = max(bound, 0) + 1
        if cap > MAX_TEMPORAL_COUNT:
            raise self.fail(f"{_name(sides[index])}(...) is compared with {bound}; a temporal counter counts to at "
                            f"most {MAX_TEMPORAL_COUNT} (compare with at most {MAX_TEMPORAL_COUNT - 1})", other)
        self.caps[id(sides[index])] = cap
        left = self.visit(node.left)
        comparators = [self.visit(c) for c in node.comparators]
        return ast.copy_location(ast.Compare(left=left, ops=node.ops, comparators=comparators), node)

    def number(self, node: ast.AST) -> int | None:
        """The value of a whole-number literal or a constant of the rules, else None."""
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = self.number(node.operand)
            return None if inner is None else -inner
        if isinstance(node, ast.Name) and node.id in self.spec.constants:
            return self.spec.constants[node.id]
        return None

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if not isinstance(node.func, ast.Name):
            return self.generic_visit(node)
        name = node.func.id
        if name in BUILTINS:
            return self.generic_visit(node)
        if name not in FUNCTIONS:
            close = difflib.get_close_matches(name, [*FUNCTIONS, *BUILTINS], n=1)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            raise self.fail(f"'{name}' is not a temporal function or a builtin.{hint} The temporal functions are "
                            f"{', '.join(s.usage(f) for f, s in FUNCTIONS.items())}", node)
        signature = FUNCTIONS[name]
        if len(node.args) != len(signature.args) or any(isinstance(a, ast.Starred) for a in node.args):
            raise self.fail(f"{name}() takes {len(signature.args)} argument{'s' if len(signature.args) > 1 else ''}: "
                            f"{signature.usage(name)}; got {len(node.args)}", node)
        keywords: dict[str, ast.expr] = {}
        for keyword in node.keywords:
            if keyword.arg not in signature.keywords or keyword.arg in keywords:
                accepted = " or ".join(f"{k}=" for k in signature.keywords) or "no keyword"
                what = "**" if keyword.arg is None else f"{keyword.arg}="
                raise self.fail(f"{name}() takes {accepted}, not {what}: {signature.usage(name)}", keyword.value)
            keywords[keyword.arg] = keyword.value
        if name in COUNTERS and id(node) not in self.caps:
            raise self.fail(f"{name}(...) must be compared with a number, e.g. {name}(...) >= 2: it counts only "
                            f"up to one above that number", node)
        self.calls += 1
        if self.calls > MAX_TEMPORAL_CALLS:
            raise self.fail(f"a query uses at most {MAX_TEMPORAL_CALLS} temporal functions", node)
        args = [self.visit(arg) for arg in node.args]
        given = {key: self.visit(value) for key, value in keywords.items()}
        method = getattr(self, f"_{name}")
        value: str = method(node, args, given)
        return ast.copy_location(ast.Name(id=value, ctx=ast.Load()), node)

    def argument(self, tree: ast.expr, expected: Type | None) -> tuple[str, n.Node]:
        """An argument's text (inner temporal calls already replaced) and its checked tree."""
        checked = check_tree(tree, self.text, self.scope, self.where, expected, self.show_caret)
        self.reads |= n.fields_read([checked], self.scope.definitions)
        return f"({ast.unparse(tree)})", checked

    def moment(self, tree: ast.expr | None, call: ast.Call) -> str:
        """The definition of "E begins in this state" (E holds, and did not in the state
        before): for `at=E`, or by default the start of a round, the first state of the
        phase of the nomination (its rules have the role `nomination`)."""
        if tree is None:
            phases = sorted({rule.phase for rule in self.spec.with_role("nomination")})
            if len(phases) != 1:
                raise self.fail(f"{_name(call)}(...) counts rounds from the phase of the nomination, and these rules "
                                f"have {len(phases)} such phases: say when with at=...", call)
            text = f"(phase == {phases[0]!r})"
        else:
            text, _ = self.argument(tree, BOOL)
        if text not in self.moments:
            held = self.add_field("held", "bool", BOOL, "False", text)
            self.moments[text] = self.define("begins", f"{text} and not {held}", call)
        return self.moments[text]

    # ------------------------------------------------------------------ the functions

    def _previous(self, call: ast.Call, args: list[ast.expr], given: dict[str, ast.expr]) -> str:
        text, checked = self.argument(args[0], None)
        if checked.type.kind not in ("seat", "enum"):
            raise self.fail(f"previous() takes a seat or a value of an enum (a phase, a tile, ...), whose type has "
                            f"'none' for the first round; this is {checked.type}", call.args[0])
        optional = Type(checked.type.kind, checked.type.enum, True)
        begins = self.moment(given.get("at"), call)
        last = self.add_field("last", str(optional), optional, "none", "")
        before = self.add_field("before", str(optional), optional, "none", "")
        self.updates[last] = f"{text} if {begins} else {last}"
        value = self.define("value", f"{last} if {begins} else {before}", call)
        self.updates[before] = value
        return value

    def _times(self, call: ast.Call, args: list[ast.expr], given: dict[str, ast.expr]) -> str:
        text, _ = self.argument(args[0], BOOL)
        at = given.get("at")
        counted = self.moment(args[0], call) if at is None else f"{self.moment(at, call)} and {text}"
        return self._counter(call, "count", lambda count, cap: f"min({count} + 1, {cap}) if {counted} else {count}")

    def _in_a_row(self, call: ast.Call, args: list[ast.expr], given: dict[str, ast.expr]) -> str:
        text, _ = self.argument(args[0], BOOL)
        begins = self.moment(given.get("at"), call)
        return self._counter(call, "run", lambda run, cap: f"(min({run} + 1, {cap}) if {text} else 0) if {begins} "
                                                           f"else {run}")

    def _counter(self, call: ast.Call, name: str, step: Callable[[str, int], str]) -> str:
        """A monitor counter saturating at the call's cap: its field, and the value that
        `step(field, cap)` gives it at the current state (what the query reads)."""
        cap = self.caps[id(call)]
        field_name = self.add_field(name, "int", INT, "0", "", f"0..{cap}")
        value = self.define("value", step(field_name, cap), call)
        self.updates[field_name] = value
        return value

    def _then(self, call: ast.Call, args: list[ast.expr], given: dict[str, ast.expr]) -> str:
        first, _ = self.argument(args[0], BOOL)
        second, _ = self.argument(args[1], BOOL)
        seen = self.add_field("seen", "bool", BOOL, "False", "")
        if "without" in given:
            without, _ = self.argument(given["without"], BOOL)
            self.updates[seen] = f"{first} or ({seen} and not {without})"
        else:
            self.updates[seen] = f"{first} or {seen}"
        return self.define("value", f"{seen} and {second}", call)

    # ------------------------------------------------------------------ soundness

    def check_shadowing(self) -> None:
        """The monitors' assignments are added to every rule, where a parameter or a `let`
        of the same name as a field the query reads would be read instead: refused."""
        read = set()
        for text in (*self.updates.values(), *self.definitions.values()):
            read |= {node.id for node in ast.walk(ast.parse(text, mode="eval")) if isinstance(node, ast.Name)}
        for rule in self.spec.rules:
            local = {p.name for p in rule.params} | {k for k, _ in rule.lets}
            clash = sorted(read & local)
            if clash:
                raise SpecError(f"the query reads '{clash[0]}', which rule '{rule.name}' also names a parameter or "
                                f"let: a monitor added to that rule would read the wrong value", self.where)


def _is_call(node: ast.AST, names: tuple[str, ...]) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names


def _name(node: ast.AST) -> str:
    return node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) else "it"
