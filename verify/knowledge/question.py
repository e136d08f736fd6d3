"""A question with knows(), compiled for one game and evaluated on one seat's belief.

The question is asked of one seat at a time, the *knower* (spec/knowledge.py says why
that decides it): it holds at a belief B of seat S when some state t of B (the game as it
really is, which S cannot tell from the others of B) makes it true, each `knows(WHO, WHAT)`
read as

- WHO: S is among the seats WHO names in t (a seat; a seat set; a role, by `[view.role]`);
- WHAT, a bool: true in every state of B; a value: the same in every state of B;
- `some`: S is among them and knows; `every`: S is not among them, or knows.

The parts of the question without knows() are read in t. Everything is compiled by the
engine from the typed tree (engine/pycompile.py); nothing here restates a rule.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from engine.game import Game
from engine.observe import observer
from engine.pycompile import compile_expression
from spec.knowledge import atoms
from spec.lang import nodes as n
from spec.lang.check import KNOWER
from spec.errors import SpecError
from spec.lang.types import BOOL
from spec.model import Spec

from ..explicit.reductions import rotation_blockers, symmetry_blockers


@dataclass(frozen=True, slots=True)
class Atom:
    """One knows() of the question, compiled."""

    quantifier: str                              # some | every
    members: Callable[[Any, int], bool]          # (t, seat): the seat is among WHO in t
    what: Callable[[Any, int], Any]              # (u, seat): WHAT in u
    is_bool: bool


class Question:
    """A question with knows(), for one compiled game."""

    def __init__(self, game: Game, node: n.Node) -> None:
        self.game = game
        self.node = node
        spec, players = game.spec, game.players
        found = atoms(node)
        self.atoms = tuple(self._atom(spec, players, atom) for atom in found)
        slots = [f"known_{index}" for index in range(len(found))]
        plain = _replace_atoms(node, slots)
        self.rest = compile_expression(spec, players, plain, slots)
        self.reads = n.fields_read([node], spec.definitions)
        if any(atom.args[0].args[0].type.kind == "enum" for atom in found if isinstance(atom.args[0], n.Call)):
            self.reads |= _role_fields(spec)
        blockers = symmetry_blockers(spec) + rotation_blockers(node, spec)
        for rule in spec.rules:
            for show in rule.shows:
                blockers += rotation_blockers(show.to, spec) + rotation_blockers(show.what, spec)
        self.rotation_invariant = not blockers
        self.role = self._role_subject(found)
        self.phases = self._phases()
        self.ceilings = self._ceilings(spec)

    def _atom(self, spec: Spec, players: int, atom: n.Call) -> Atom:
        who, what = atom.args
        assert isinstance(who, n.Call)
        (target,) = who.args
        if target.type.kind == "enum":
            role = _role_view(self.game)
            wanted = target
            assert isinstance(wanted, n.Lit)
            value = wanted.value

            def members(state: Any, seat: int) -> bool:
                return bool(role(state, seat) == value)
        elif target.type.kind == "seat":
            single = compile_expression(spec, players, target)

            def members(state: Any, seat: int) -> bool:
                return bool(single(state) == seat)
        else:
            mask = compile_expression(spec, players, target)

            def members(state: Any, seat: int) -> bool:
                return bool(mask(state) >> seat & 1)
        inner = compile_expression(spec, players, what, [KNOWER])
        return Atom(who.function, members, inner, what.type == BOOL)

    def _role_subject(self, found: list[n.Call]) -> int | None:
        """The role every knower of the question must have, when WHO is a role and the
        question needs the knower among WHO (knows() is one of its top-level conjuncts)."""
        if not found:
            return None
        who = found[0].args[0]
        assert isinstance(who, n.Call)
        target = who.args[0]
        if target.type.kind != "enum" or not isinstance(target, n.Lit):
            return None
        conjuncts = self.node.operands if isinstance(self.node, n.BoolOp) and self.node.op == "and" else (self.node,)
        for conjunct in conjuncts:
            if conjunct in found or (isinstance(conjunct, n.Unary) and conjunct.op == "not" and conjunct.operand in found):
                return int(target.value)
        return None

    def _phases(self) -> frozenset[int] | None:
        """The phases the question can hold in, when a top-level conjunct names them
        (`phase == 'x'`, `phase in ['x', 'y']`); None: any."""
        conjuncts = self.node.operands if isinstance(self.node, n.BoolOp) and self.node.op == "and" else (self.node,)
        allowed: frozenset[int] | None = None
        for conjunct in conjuncts:
            if not isinstance(conjunct, n.Compare) or not isinstance(conjunct.left, n.Name) \
                    or conjunct.left.kind != "field" or conjunct.left.name != "phase":
                continue
            if conjunct.op == "==" and isinstance(conjunct.right, n.Lit):
                values = frozenset({int(conjunct.right.value)})
            elif conjunct.op == "in" and isinstance(conjunct.right, n.ListLit) \
                    and all(isinstance(item, n.Lit) for item in conjunct.right.items):
                values = frozenset(int(item.value) for item in conjunct.right.items if isinstance(item, n.Lit))
            else:
                continue
            allowed = values if allowed is None else allowed & values
        return allowed

    def _ceilings(self, spec: Spec) -> dict[str, int]:
        """Int fields no rule ever lowers, each with the largest value the question allows
        (a top-level conjunct `FIELD == k`, `FIELD <= k` or `FIELD < k`, k a literal)."""
        conjuncts = self.node.operands if isinstance(self.node, n.BoolOp) and self.node.op == "and" else (self.node,)
        out: dict[str, int] = {}
        for conjunct in conjuncts:
            if not isinstance(conjunct, n.Compare) or conjunct.op not in ("==", "<=", "<") \
                    or not isinstance(conjunct.left, n.Name) or conjunct.left.kind != "field" \
                    or not isinstance(conjunct.right, n.Lit) or conjunct.left.type.kind != "int":
                continue
            name = conjunct.left.name
            if not _never_lowered(spec, name):
                continue
            bound = int(conjunct.right.value) - (1 if conjunct.op == "<" else 0)
            out[name] = min(bound, out.get(name, bound))
        return out

    # ------------------------------------------------------------------ evaluation

    def knowledge(self, states: list[Any], seat: int) -> tuple[bool, ...]:
        """For each knows(), whether `seat` knows WHAT in a belief of these states."""
        out = []
        for atom in self.atoms:
            if atom.is_bool:
                out.append(all(atom.what(u, seat) for u in states))
            else:
                first = atom.what(states[0], seat)
                out.append(all(atom.what(u, seat) == first for u in states))
        return tuple(out)

    def holds_in(self, states: list[Any], seat: int) -> Any:
        """A state of the belief in which the question holds for `seat`, or None."""
        known = self.knowledge(states, seat)
        for state in states:
            values = []
            for atom, knows in zip(self.atoms, known):
                among = atom.members(state, seat)
                values.append(among and knows if atom.quantifier == "some" else (not among) or knows)
            if self.rest(state, *values):
                return state
        return None

    def seats(self) -> tuple[int, ...]:
        """The knowers to search: one seat stands for all when the rules, what they show and
        the question look the same from every seat (rotation, verify/explicit/reductions.py)."""
        return (0,) if self.rotation_invariant else tuple(range(self.game.players))

    def role_of(self, state: Any, seat: int) -> int:
        """The seat's role in a state (`[view.role]`)."""
        return int(_role_view(self.game)(state, seat))


def _replace_atoms(node: n.Node, slots: Iterable[str]) -> n.Node:
    """The question with its knows() calls replaced by bool parameters, in reading order."""
    names = iter(slots)
    mapping: dict[int, n.Node] = {}
    for atom in atoms(node):
        mapping[id(atom)] = n.Name(BOOL, next(names), "param")
    return _rewrite(node, mapping)


def _rewrite(node: n.Node, mapping: dict[int, n.Node]) -> n.Node:
    if id(node) in mapping:
        return mapping[id(node)]
    changes: dict[str, Any] = {}
    for name in getattr(node, "__slots__", ()):
        value = getattr(node, name)
        if isinstance(value, n.Node):
            changes[name] = _rewrite(value, mapping)
        elif isinstance(value, tuple) and value and all(isinstance(item, n.Node) for item in value):
            changes[name] = tuple(_rewrite(item, mapping) for item in value)
    return replace(node, **changes) if changes else node


def _never_lowered(spec: Spec, name: str) -> bool:
    """Whether every rule leaves the int field `name` as it is or adds to it something
    made of non-negative literals, `if`s and sums: `FIELD + (1 if tile == 'liberal' else 0)`."""
    for rule in spec.rules:
        for field, node in rule.effect:
            if field != name:
                continue
            if not (isinstance(node, n.Binary) and node.op == "+" and isinstance(node.left, n.Name)
                    and node.left.kind == "field" and node.left.name == name and _non_negative(node.right)):
                return False
    return True


def _non_negative(node: n.Node) -> bool:
    """Whether an int expression is built only of non-negative literals, `if` and `+`."""
    if isinstance(node, n.Lit):
        return int(node.value) >= 0
    if isinstance(node, n.IfElse):
        return _non_negative(node.then) and _non_negative(node.otherwise)
    if isinstance(node, n.Binary) and node.op == "+":
        return _non_negative(node.left) and _non_negative(node.right)
    return False


def _role_fields(spec: Spec) -> set[str]:
    """The fields a seat's role is read from (`[view.role]`)."""
    return n.fields_read([item.what for item in spec.view
                          if item.what.type.kind == "enum" and item.what.type.enum == "role"], spec.definitions)


def _role_view(game: Game) -> Callable[[Any, int], Any]:
    """A seat's role in a state: the `[view]` item whose value is of the role enum."""
    for item, _, what in observer(game).view_items:
        if item.what.type.kind == "enum" and item.what.type.enum == "role":
            return what
    raise SpecError("a role in some(...) or every(...) needs a [view] item whose value is of the role enum "
                    "(the role each seat is shown, R-S5)")

