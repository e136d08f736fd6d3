"""What kept a question from happening, read off a complete search: the blocked moves into it.

A complete search that never meets the question proves "no" over every reachable state,
but the proof itself names no rule. The rules it rests on are found on the question's
frontier: in every reachable state, every move of that state's phase that some
requirement forbids is made anyway (its effect applied, then the game's forced moves),
and where the question would then hold (the state after it, or the move itself for a
question about moves), the requirements that failed are what stood in the way.

Each such blocked move gives the set of requirements that failed for it; the answer rests
on a set of rule IDs that meets every one of them: first those that were the only
obstacle to some move (without them the question happens in one move from a reachable
state), then, for the moves several requirements blocked at once, the rule that blocks
most of those still open, until each is met. So a rule is listed because a move needed
it, never only because the question reads a field it writes.

A question that needs two or more forbidden moves in a row to happen has no such
frontier: `blocked_into` returns an empty tuple, and the caller takes the solver's cores or
says the list was not taken from a proof. The scan is bounded by `seconds`; cut short, it
returns None, never a partial list.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from itertools import product
from typing import Any

from engine.pycompile import CompiledRule
from spec.lang.nodes import IfElse, Lit, Node
from spec.properties import Property

from .reductions import fields_read

from .explore import Exploration
from engine.propcheck import compile_checks

CHECK_EVERY = 512
"""States scanned between two looks at the clock."""


def blocked_into(exploration: Exploration, prop: Property, seconds: float = 30.0) -> tuple[str, ...] | None:
    """The rule IDs of the requirements that kept `prop` from happening in the complete
    search `exploration` (sorted as the rulebook numbers them by the caller), () when no
    single forbidden move reaches it, None when the scan ran out of `seconds` or the
    search was not complete or did not keep every state it reached."""
    if not exploration.complete or prop.name in exploration.hits or prop.kind not in ("sometimes", "never"):
        return None
    if len(exploration.keys) != exploration.states:   # a sweep lets expanded states go: not all are here
        return None
    model = exploration.model
    game = model.game
    checks = compile_checks(game, (prop,))
    phase_index = game.phase_index
    decode = model.codec.decode
    relevant = _relevant(model, checks, fields_read(prop.state if prop.state is not None else prop.move, game.spec))
    by_phase = [[compiled for compiled in rules if relevant[compiled.index]] for rules in game.by_phase]
    layout = model.codec.layouts[phase_index]
    shift, mask, low = layout.shift, (1 << layout.bits) - 1, layout.low
    named: dict[int, dict[int, frozenset[str]]] = {compiled.index: {} for compiled in game.rules}
    started = time.perf_counter()
    blockers: set[frozenset[str]] = set()
    for scanned, key in enumerate(exploration.keys):
        if scanned % CHECK_EVERY == 0 and time.perf_counter() - started > seconds:
            return None
        if not by_phase[(key >> shift & mask) + low]:   # the phase read off the packed key
            continue
        state = decode(key)
        reached: dict[Any, bool] = {}   # a state reached by a forbidden move: whether the question holds there
        for compiled in by_phase[state[phase_index]]:
            names = named[compiled.index]
            on_move = checks.move[compiled.index]
            for args in _arguments(compiled, state):
                failed = _failed(compiled, state, args, names)
                if not failed:
                    continue
                try:
                    after = compiled.effect(state, *args)
                except Exception:  # the rules give no value to a move they forbid: it reaches nothing
                    continue
                if on_move is not None and _holds(lambda: on_move(state, after, *args)):
                    blockers.add(failed)
                    continue
                holds = reached.get(after)
                if holds is None:
                    holds = reached[after] = _holds_after(model, checks, after)
                if holds:
                    blockers.add(failed)
    return hitting_set(blockers)


def _relevant(model: Any, checks: Any, read: set[str]) -> list[bool]:
    """Per rule, whether a forbidden move of it could make the question hold: it has a
    check of its own (a question about moves), or it or the game's forced moves after it
    write a field the question reads and can end in a phase where the question can hold.
    A move that writes nothing the question reads leaves it as false as it was before."""
    game = model.game
    everywhere = frozenset(range(len(game.phase_names)))

    def phases_of(value: Node) -> frozenset[int]:
        if isinstance(value, Lit):
            return frozenset((value.value,))
        if isinstance(value, IfElse):
            return phases_of(value.then) | phases_of(value.otherwise)
        return everywhere

    def targets(compiled: CompiledRule) -> frozenset[int]:
        value = dict(compiled.rule.effect).get("phase")
        if value is None:
            return frozenset((game.phase_names.index(compiled.rule.phase),))
        return phases_of(value)

    out = []
    for compiled in game.rules:
        writes = {name for name, _ in compiled.rule.effect}
        reached = set(targets(compiled))
        pending = [phase for phase in reached if model.game_phase[phase]]
        while pending:   # the forced moves that may follow, and where they lead
            for forced in game.by_phase[pending.pop()]:
                writes |= {name for name, _ in forced.rule.effect}
                for phase in targets(forced) - reached:
                    reached.add(phase)
                    if model.game_phase[phase]:
                        pending.append(phase)
        holds_somewhere = any(checks.state[phase] is not None for phase in reached)
        out.append(checks.move[compiled.index] is not None or (bool(writes & read) and holds_somewhere))
    return out


def _arguments(compiled: CompiledRule, state: Any) -> Iterable[tuple[int, ...]]:
    """Every value of the move's parameters, allowed or not (the domains' own bounds)."""
    if not compiled.domains:
        return ((),)
    return product(*(tuple(domain(state)) for domain in compiled.domains))


def _failed(compiled: CompiledRule, state: Any, args: tuple[int, ...], named: dict[int, frozenset[str]]
            ) -> frozenset[str]:
    """The rule IDs of the move's requirements that do not hold (empty: the move is allowed,
    or it is forbidden by something other than a requirement, e.g. an impossible draw);
    `named` keeps the IDs of each combination of failures met so far."""
    try:
        bits = compiled.failures(state, *args)
    except Exception:  # a later requirement may not be defined where an earlier one fails
        first = compiled.first_failure(state, *args)
        bits = 0 if first < 0 else 1 << first
    found = named.get(bits)
    if found is None:
        requires = compiled.rule.requires
        found = named[bits] = frozenset(requires[i].rule_id for i in range(len(requires)) if bits >> i & 1)
    return found


def _holds(check: Callable[[], int]) -> bool:
    """A check of the question on a move the rules forbid: false where it has no value."""
    try:
        return bool(check())
    except Exception:
        return False


def _holds_after(model: Any, checks: Any, after: Any) -> bool:
    """Whether the question holds in the state a forbidden move reached, or after the
    game's forced moves that follow it."""
    on_state = checks.state
    phase_index = model.phase_index
    check = on_state[after[phase_index]]
    if check is not None and _holds(lambda: check(after)):
        return True
    try:
        chains = model.chains(after)
    except Exception:
        return False
    for chain in chains:
        for _, reached in chain:
            check = on_state[reached[phase_index]]
            if check is not None and _holds(lambda: check(reached)):
                return True
    return False


def hitting_set(blockers: set[frozenset[str]]) -> tuple[str, ...]:
    """Rule IDs meeting every set in `blockers`: the sole obstacles first, then greedily the
    rule meeting most of the sets still open (ties by name, so the answer is stable)."""
    chosen = {next(iter(group)) for group in blockers if len(group) == 1}
    open_sets = [group for group in blockers if not group & chosen]
    while open_sets:
        counts: dict[str, int] = {}
        for group in open_sets:
            for rule_id in group:
                counts[rule_id] = counts.get(rule_id, 0) + 1
        best = min(counts, key=lambda rule_id: (-counts[rule_id], rule_id))
        chosen.add(best)
        open_sets = [group for group in open_sets if best not in group]
    return tuple(sorted(chosen))
