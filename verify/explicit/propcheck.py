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

Nothing here decides a verdict; explore.py does, from the bits that fire.
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


def compile_allowances(game: Game, properties: tuple[Property, ...], open_mask: int | None = None) -> Allowances:
    """The functions for the `allows` and `only` properties whose bit is set in `open_mask`."""
    emitter = Emitter(game.spec, game.players)
    namespace = bounded_helpers(None)
    phases = game.phase_names
    chosen = [(bit, prop) for bit, prop in enumerate(properties)
              if prop.kind in PERMISSIONS and (open_mask is None or open_mask >> bit & 1)]
    wanted: list[Callable[[Any], int] | None] = []
    for phase in range(len(phases)):
        lines = []
        for bit, prop in chosen:
            assert prop.state is not None
            folded = specialise(prop.state, game, phase)
            if isinstance(folded, n.Lit):
                if folded.value:
                    lines.append(f"    r |= {1 << bit}")
                continue
            lines.append(f"    if {emitter.emit(folded)}: r |= {1 << bit}")
        wanted.append(_function(["def f(s):", "    r = 0", *lines, "    return r"], namespace) if lines else None)
    given: list[Callable[..., int] | None] = []
    for compiled in game.rules:
        rule = compiled.rule
        bound = emitter.for_rule(rule)
        lines = []
        for bit, prop in chosen:
            if rule.name not in prop.on:
                continue
            assert prop.move is not None
            folded = specialise(prop.move, game, phases.index(rule.phase))
            if isinstance(folded, n.Lit):
                if folded.value:
                    lines.append(f"    r |= {1 << bit}")
                continue
            lines.append(f"    if {bound.emit(folded)}: r |= {1 << bit}")
        params = ", ".join(["s", "t", *bound.params()])
        given.append(_function([f"def f({params}):", "    r = 0", *lines, "    return r"], namespace)
                     if lines else None)
    only = sum(1 << bit for bit, prop in chosen if prop.kind == "only")
    return Allowances(wanted, given, only)


def compile_checks(game: Game, properties: tuple[Property, ...], open_mask: int | None = None) -> Checks:
    """The check functions for the properties whose bit is set in `open_mask` (all by default)."""
    emitter = Emitter(game.spec, game.players)
    namespace = bounded_helpers(None)
    phases = game.phase_names
    state_functions: list[Callable[[Any], int] | None] = []
    for phase in range(len(phases)):
        lines = []
        for bit, prop in enumerate(properties):
            if prop.state is None or prop.kind in PERMISSIONS or (open_mask is not None and not open_mask >> bit & 1):
                continue
            node, on_true = fires_when(prop)
            folded = specialise(node, game, phase)
            if isinstance(folded, n.Lit):
                if bool(folded.value) == on_true:
                    lines.append(f"    r |= {1 << bit}")
                continue
            test = emitter.emit(folded)
            lines.append(f"    if {'' if on_true else 'not '}{test}: r |= {1 << bit}")
        state_functions.append(_function(["def f(s):", "    r = 0", *lines, "    return r"], namespace)
                               if lines else None)
    move_functions: list[Callable[..., int] | None] = []
    for compiled in game.rules:
        rule = compiled.rule
        bound = emitter.for_rule(rule)
        lines = []
        for bit, prop in enumerate(properties):
            if prop.move is None or prop.kind in PERMISSIONS or rule.name not in prop.on \
                    or (open_mask is not None and not open_mask >> bit & 1):
                continue
            node, on_true = fires_when(prop)
            phase = phases.index(rule.phase)
            folded = specialise(node, game, phase)
            if isinstance(folded, n.Lit):
                if bool(folded.value) == on_true:
                    lines.append(f"    r |= {1 << bit}")
                continue
            lines.append(f"    if {'' if on_true else 'not '}{bound.emit(folded)}: r |= {1 << bit}")
        params = ", ".join(["s", "t", *bound.params()])
        move_functions.append(_function([f"def f({params}):", "    r = 0", *lines, "    return r"], namespace)
                              if lines else None)
    return Checks(properties, state_functions, move_functions)


def _function(lines: list[str], namespace: dict[str, Any]) -> Callable[..., int]:
    function: Callable[..., int] = load_source("\n".join(lines), "property checks", dict(namespace))["f"]
    return function
