"""State and move properties compiled for on-the-fly checking, specialised per phase.

Every explored state is checked against every open property, so this is on the hot path.
Each property expression is specialised for each value of the phase field: the phase is
substituted, definitions are inlined and constants folded (`phase != 'draw' or ...` is
simply true outside the draw), and what remains is emitted with the engine's own
expression compiler into one function per phase that returns a bit mask of the
properties that *fire*: an `always` that is false, a `never` or `sometimes` that is true.
Phases where a property folds to its harmless constant never evaluate it. Move properties
get one such function per rule, over (before, after, parameters).

`allows` and `only` properties (permissions and obligations) are compiled differently:
per phase, a mask of those whose `state` holds there, and per rule of their `on`, a mask
of those a legal move satisfies (`Allowances`). The explorer sees all the moves of a
state at once: it fires an `allows` wanted and satisfied by no move, and an `only` wanted
and not satisfied by some move.

Nothing here decides a verdict: the explicit checker (verify/explicit/explore.py) does, from
the bits that fire; the Z3 backend's random playouts (verify/smt/playouts.py) read them to
find where a game first meets a `sometimes` property.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.game import Game
from engine.pycompile import Emitter, bounded_helpers, load_source
from spec.lang import nodes as n
from spec.lang.types import BOOL
from spec.properties import PERMISSIONS, Property

_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def specialise(node: n.Node, game: Game, phase: int | None) -> n.Node:
    """The expression with definitions inlined, the phase field replaced by `phase` (when
    given) and constant sub-expressions folded."""
    spec = game.spec
    if isinstance(node, n.Name):
        if node.kind == "definition":
            return specialise(spec.definitions[node.name], game, phase)
        if node.kind == "field" and node.name == "phase" and phase is not None:
            return n.Lit(node.type, phase)
        return node
    if isinstance(node, n.Unary):
        operand = specialise(node.operand, game, phase)
        if isinstance(operand, n.Lit) and node.op == "not":
            return n.Lit(BOOL, not operand.value)
        return n.Unary(node.type, node.op, operand)
    if isinstance(node, n.BoolOp):
        operands = [specialise(item, game, phase) for item in node.operands]
        absorbing = node.op == "or"
        kept = []
        for item in operands:
            if isinstance(item, n.Lit):
                if bool(item.value) == absorbing:
                    return n.Lit(BOOL, absorbing)
                continue
            kept.append(item)
        if not kept:
            return n.Lit(BOOL, not absorbing)
        if len(kept) == 1:
            return kept[0]
        return n.BoolOp(node.type, node.op, tuple(kept))
    if isinstance(node, n.IfElse):
        condition = specialise(node.condition, game, phase)
        if isinstance(condition, n.Lit):
            return specialise(node.then if condition.value else node.otherwise, game, phase)
        return n.IfElse(node.type, condition, specialise(node.then, game, phase),
                        specialise(node.otherwise, game, phase))
    if isinstance(node, n.Compare):
        left, right = specialise(node.left, game, phase), specialise(node.right, game, phase)
        if isinstance(left, n.Lit) and node.op in ("in", "not in") and isinstance(right, n.ListLit) \
                and all(isinstance(item, n.Lit) for item in right.items):
            found = any(left.value == item.value for item in right.items)  # type: ignore[attr-defined]
            return n.Lit(BOOL, found if node.op == "in" else not found)
        if isinstance(left, n.Lit) and isinstance(right, n.Lit) and node.op in _COMPARE \
                and left.type.kind != "seats":
            return n.Lit(BOOL, _COMPARE[node.op](left.value, right.value))
        return n.Compare(node.type, node.op, left, right)
    if isinstance(node, n.Binary):
        return n.Binary(node.type, node.op, specialise(node.left, game, phase), specialise(node.right, game, phase))
    if isinstance(node, n.Call):
        return n.Call(node.type, node.function, tuple(specialise(a, game, phase) for a in node.args))
    if isinstance(node, n.Index):
        return n.Index(node.type, node.table, specialise(node.index, game, phase))
    if isinstance(node, n.SeatSet):
        return n.SeatSet(node.type, tuple(specialise(item, game, phase) for item in node.items))
    return node


def fires_when(prop: Property) -> tuple[n.Node, bool]:
    """The expression of a state/move property and whether it fires when the expression is
    true (`never`, `sometimes`) or false (`always`)."""
    node = prop.state if prop.state is not None else prop.move
    assert node is not None
    return node, prop.kind not in ("always", "shows")   # `shows`: an always over its moves


@dataclass(slots=True)
class Checks:
    """Per-phase and per-rule check functions for a set of open properties.

    `state[phase](s)` and `move[rule_index](s, t, *args)` return bit masks over
    `properties` (bit i = properties[i] fires); None where nothing can fire.
    """

    properties: tuple[Property, ...]
    state: list[Callable[[Any], int] | None]
    move: list[Callable[..., int] | None]


@dataclass(slots=True)
class Allowances:
    """Per-phase and per-rule functions for the open `allows` and `only` properties.

    `wanted[phase](s)`: bits of the permissions whose `state` holds in s; `given[rule_index]
    (s, t, *args)`: bits of those the move satisfies. None where no bit can be set.
    """

    wanted: list[Callable[[Any], int] | None]
    given: list[Callable[..., int] | None]
    only: int = 0       # bits of the `only` properties (the rest are `allows`)


Entry = tuple[int, n.Node, bool, tuple[str, ...]]
"""One bit to compute: its position, the expression, whether the bit is set when the
expression is true (else when false), and the rules it is about (moves only)."""


def compile_allowances(game: Game, properties: tuple[Property, ...], open_mask: int | None = None) -> Allowances:
    """The functions for the `allows` and `only` properties whose bit is set in `open_mask`."""
    chosen = [(bit, prop) for bit, prop in enumerate(properties)
              if prop.kind in PERMISSIONS and (open_mask is None or open_mask >> bit & 1)]
    wanted: list[Entry] = [(bit, prop.state, True, ()) for bit, prop in chosen if prop.state is not None]
    given: list[Entry] = [(bit, prop.move, True, prop.on) for bit, prop in chosen if prop.move is not None]
    only = sum(1 << bit for bit, prop in chosen if prop.kind == "only")
    return Allowances(_phase_functions(game, wanted), _rule_functions(game, given), only)


def compile_checks(game: Game, properties: tuple[Property, ...], open_mask: int | None = None) -> Checks:
    """The check functions for the properties whose bit is set in `open_mask` (all by default)."""
    states: list[Entry] = []
    moves: list[Entry] = []
    for bit, prop in enumerate(properties):
        if prop.kind in PERMISSIONS or (open_mask is not None and not open_mask >> bit & 1):
            continue
        node, on_true = fires_when(prop)
        if prop.state is not None:
            states.append((bit, node, on_true, ()))
        else:
            moves.append((bit, node, on_true, prop.on))
    return Checks(properties, _phase_functions(game, states), _rule_functions(game, moves))


def _phase_functions(game: Game, entries: list[Entry]) -> list[Callable[[Any], int] | None]:
    """One function per phase, state -> bits, with each expression specialised for the
    phase (None where no bit can be set)."""
    emitter = Emitter(game.spec, game.players)
    namespace = bounded_helpers(None)
    out: list[Callable[[Any], int] | None] = []
    for phase in range(len(game.phase_names)):
        lines = [line for bit, node, on_true, _ in entries
                 if (line := _bit_line(bit, specialise(node, game, phase), on_true, emitter.emit))]
        out.append(_function(["def f(s):", "    r = 0", *lines, "    return r"], namespace) if lines else None)
    return out


def _rule_functions(game: Game, entries: list[Entry]) -> list[Callable[..., int] | None]:
    """One function per rule, (before, after, parameters) -> bits, for the entries about
    that rule, specialised for its phase (None where no bit can be set)."""
    emitter = Emitter(game.spec, game.players)
    namespace = bounded_helpers(None)
    phases = game.phase_names
    out: list[Callable[..., int] | None] = []
    for compiled in game.rules:
        rule = compiled.rule
        bound = emitter.for_rule(rule)
        phase = phases.index(rule.phase)
        lines = [line for bit, node, on_true, on in entries if rule.name in on
                 if (line := _bit_line(bit, specialise(node, game, phase), on_true, bound.emit))]
        params = ", ".join(["s", "t", *bound.params()])
        out.append(_function([f"def f({params}):", "    r = 0", *lines, "    return r"], namespace)
                   if lines else None)
    return out


def _bit_line(bit: int, folded: n.Node, on_true: bool, emit: Callable[[n.Node], str]) -> str:
    """The line setting `bit` when the folded expression is `on_true` ('' when it never is)."""
    if isinstance(folded, n.Lit):
        return f"    r |= {1 << bit}" if bool(folded.value) == on_true else ""
    return f"    if {'' if on_true else 'not '}{emit(folded)}: r |= {1 << bit}"


def _function(lines: list[str], namespace: dict[str, Any]) -> Callable[..., int]:
    function: Callable[..., int] = load_source("\n".join(lines), "property checks", dict(namespace))["f"]
    return function
