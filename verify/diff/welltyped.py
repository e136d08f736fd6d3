"""Whether a mutated typed tree is still a rule set the language allows.

The operators of small edits (operators.py) replace one node by another of its own type,
so their mutants are well-typed by construction. The operators of the shapes that
escaped them (shapes.py) move an assignment to another field or rule, swap who reads
which seat, widen a parameter's domain: each is built to keep the types, but a moved
expression can read a parameter the other rule lacks, or a seat that may be `none` where
the language wants one. So every such mutant is checked here, with the rules of the type
checker (spec/lang/check.py) over the tree instead of the text, and one that fails is
reported as `invalid` with the reason, never compiled into a crash.
"""

from __future__ import annotations

from spec.lang import nodes as n
from spec.lang.check import BUILTINS
from spec.lang.types import BOOL, INT, NONE, SEATS, Type
from spec.model import Rule, Spec


def accepts(want: Type, got: Type) -> bool:
    """Whether a value of type `got` may stand where `want` is expected (as the checker's
    `expect`: a seat? may stand for a seat, `none` for any optional, an enum for its own)."""
    if got == want or (want.kind == "seat" and got.kind == "seat"):
        return True
    if got == NONE and want.optional:
        return True
    return want.kind == "enum" and got.same_base(want)


def comparable(left: Type, right: Type) -> bool:
    """Whether `==` may compare the two (as the checker's `_comparable`)."""
    if left == NONE:
        return right.optional or right == NONE
    if right == NONE:
        return left.optional
    return left.same_base(right)


class _Scope:
    """The names an expression of one rule (or of the definitions) may read, with their types."""

    def __init__(self, spec: Spec, rule: Rule | None) -> None:
        self.spec = spec
        self.fields = {field.name: field.type for field in spec.fields}
        self.constants: dict[str, Type] = {name: INT for name in spec.constants}
        self.constants.update({"players": INT, "all_seats": SEATS})
        self.constants.update(spec.table_types)
        self.definitions = {name: tree.type for name, tree in spec.definitions.items()}
        self.params = {param.name: param.type for param in rule.params} if rule is not None else {}
        self.lets: dict[str, Type] = {}

    def error(self, node: n.Node) -> str | None:
        """The first type error of the tree `node`, or None."""
        for item in n.walk(node):
            problem = self._own(item)
            if problem is not None:
                return problem
        return None

    def _own(self, node: n.Node) -> str | None:
        if isinstance(node, n.Name):
            declared = {"field": self.fields, "param": self.params, "let": self.lets,
                        "definition": self.definitions, "constant": self.constants}.get(node.kind)
            if declared is None or node.name not in declared:
                return f"{node.kind} {node.name!r} is not in scope"
            if declared[node.name] != node.type:
                return f"{node.name} is {declared[node.name]}, read as {node.type}"
            return None
        if isinstance(node, n.Lit) and node.type.kind == "enum" and node.type.enum in self.spec.enums:
            low = -1 if node.type.optional else 0
            if not low <= int(node.value) < len(self.spec.enums[str(node.type.enum)]):
                return f"{node.value} is no member of {node.type.enum}"
            return None
        if isinstance(node, n.Unary):
            want = BOOL if node.op == "not" else INT
            return None if accepts(want, node.operand.type) else f"operand of {node.op!r} is {node.operand.type}"
        if isinstance(node, n.Binary):
            if node.left.type == SEATS and node.right.type == SEATS and node.op in ("|", "&", "-"):
                return None
            if accepts(INT, node.left.type) and accepts(INT, node.right.type) and node.op not in ("|", "&"):
                return None
            return f"{node.op!r} of {node.left.type} and {node.right.type}"
        if isinstance(node, n.Compare):
            return _compare_error(node)
        if isinstance(node, n.BoolOp):
            bad = [o.type for o in node.operands if not accepts(BOOL, o.type)]
            return f"operand of {node.op!r} is {bad[0]}" if bad else None
        if isinstance(node, n.IfElse):
            if not accepts(BOOL, node.condition.type):
                return f"condition of 'if' is {node.condition.type}"
            if not (comparable(node.then.type, node.otherwise.type) or NONE in (node.then.type, node.otherwise.type)):
                return f"the branches of 'if' are {node.then.type} and {node.otherwise.type}"
            return None
        if isinstance(node, n.Call):
            builtin = BUILTINS.get(node.function)
            if builtin is None:
                return f"{node.function}() is no builtin"
            wanted = tuple(builtin.args[0] for _ in node.args) if builtin.variadic else builtin.args
            if len(wanted) != len(node.args) or not all(accepts(w, a.type) for w, a in zip(wanted, node.args)):
                return f"{node.function}() of {', '.join(str(a.type) for a in node.args)}"
            return None
        if isinstance(node, n.SeatSet):
            bad = [item.type for item in node.items if item.type.kind != "seat"]
            return f"a seat set holds {bad[0]}" if bad else None
        return None


def _compare_error(node: n.Compare) -> str | None:
    left, right = node.left.type, node.right.type
    if node.op in ("==", "!="):
        return None if comparable(left, right) else f"cannot compare {left} with {right}"
    if node.op in ("in", "not in"):
        if right == SEATS and left.kind == "seat":
            return None
        if right.kind == "list" and right.elem is not None and comparable(left, right.elem):
            return None
        return f"{left} {node.op} {right}"
    if left == SEATS and right == SEATS and node.op in ("<=", "<"):
        return None
    return None if accepts(INT, left) and accepts(INT, right) else f"{left} {node.op} {right}"


def rule_error(spec: Spec, rule: Rule) -> str | None:
    """The first reason `rule` is not a rule the language allows in `spec`, or None."""
    scope = _Scope(spec, rule)
    if rule.phase not in spec.enums.get("phase", ()):
        return f"phase {rule.phase!r} is no member of the phase enum"
    for param in rule.params:
        domain = param.domain
        for part, want in ((domain.of, SEATS), (domain.low, INT), (domain.high, INT), (domain.length, INT)):
            if part is not None and (scope.error(part) or not accepts(want, part.type)):
                return f"the domain of {param.name} ({domain.text}): {scope.error(part) or part.type}"
    for name, tree in rule.lets:
        problem = scope.error(tree)
        if problem:
            return f"let {name}: {problem}"
        scope.lets[name] = tree.type
    if rule.actor_seat is not None and (scope.error(rule.actor_seat) or rule.actor_seat.type.kind != "seat"):
        return f"actor: {scope.error(rule.actor_seat) or rule.actor_seat.type}"
    for requirement in rule.requires:
        problem = scope.error(requirement.when) or (None if accepts(BOOL, requirement.when.type)
                                                    else f"a requirement of type {requirement.when.type}")
        if problem:
            return f"requirement {requirement.text!r}: {problem}"
    targets = [target for target, _ in rule.effect]
    for target, tree in rule.effect:
        if targets.count(target) > 1:
            return f"the effect assigns {target} twice"
        if target not in scope.fields:
            return f"the effect assigns {target!r}, which is not a state field"
        problem = scope.error(tree) or (None if accepts(scope.fields[target], tree.type)
                                        else f"{tree.type} assigned to a field of type {scope.fields[target]}")
        if problem:
            return f"effect {target}: {problem}"
    for counted in (rule.weight, rule.draws):
        if counted is not None and (scope.error(counted) or not accepts(INT, counted.type)):
            return f"weight or draws: {scope.error(counted) or counted.type}"
    for name, tree in rule.reveals:
        problem = scope.error(tree)
        if problem:
            return f"reveals {name}: {problem}"
    return None


def spec_error(spec: Spec) -> str | None:
    """The first reason `spec` is not a rule set the language allows (a rule or definition
    ill-typed, a definition that reads itself), or None."""
    scope = _Scope(spec, None)
    for name, tree in spec.definitions.items():
        problem = scope.error(tree)
        if problem:
            return f"definition {name}: {problem}"
    for name in spec.definitions:
        if name in _definitions_read(spec, name):
            return f"definition {name} reads itself"
    for rule in spec.rules:
        problem = rule_error(spec, rule)
        if problem:
            return f"rule {rule.name}: {problem}"
    return None


def _definitions_read(spec: Spec, name: str) -> set[str]:
    """The definitions `name`'s definition reads, directly or through others."""
    seen: set[str] = set()
    stack = [spec.definitions[name]]
    while stack:
        for item in n.walk(stack.pop()):
            if isinstance(item, n.Name) and item.kind == "definition" and item.name not in seen:
                seen.add(item.name)
                if item.name in spec.definitions:
                    stack.append(spec.definitions[item.name])
    return seen

