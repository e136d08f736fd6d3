"""Exact reductions for the product search of `shrules diff`, decided on both rule sets.

Each is sound only when it holds for both rule sets at once (verify/explicit/reductions.py
argues each for one rule set; the same arguments apply to a pair whose components move
together): equal typed trees and numbers mean the same game (no search at all); a field
that neither rule set lets matter is left out of the key; both states are rotated by the
same amount; a subset parameter read only through its size is tried once per size and
per class of the two domains.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from engine.game import Game
from engine.pycompile import CompiledRule, load_source
from spec.lang import nodes as n
from spec.liveness import OUTCOME_FIELDS, dead_fields, rule_nodes
from spec.model import Spec

from ..explicit.reductions import fields_read



def semantic_signature(spec: Spec, players: int) -> tuple[Any, ...]:
    """What decides the game for `players`: the typed trees and the numbers they read.
    Equal signatures mean the same game, so no search is needed."""
    names: set[str] = set()
    nodes: list[n.Node] = []
    rules = []
    for rule in spec.rules:
        parts = rule_nodes(rule) + [node for _, node in rule.reveals]
        nodes += parts
        rules.append((rule.name, rule.phase, rule.actor, rule.actor_seat, rule.quiet,
                      tuple((p.name, p.type, p.domain.kind, p.domain.enum, p.domain.of, p.domain.low, p.domain.high,
                             p.domain.length) for p in rule.params),
                      rule.lets, rule.weight, tuple((r.rule_id, r.when) for r in rule.requires), rule.effect,
                      rule.reveals))
    fields = []
    for spec_field in spec.fields:
        fields.append((spec_field.name, spec_field.type, spec_field.init, spec_field.low, spec_field.high))
        nodes += [node for node in (spec_field.init, spec_field.low, spec_field.high) if node is not None]
    nodes += list(spec.definitions.values())
    for node in nodes:
        for item in n.walk(node):
            if isinstance(item, n.Name) and item.kind == "constant":
                names.add(item.name)
    values = spec.values_for(players)
    numbers = tuple(sorted((name, values.get(name)) for name in names))
    return (tuple(rules), tuple(fields), tuple(sorted(spec.definitions.items(), key=lambda kv: kv[0])),
            tuple(sorted(spec.enums.items())), numbers)


def hidden_fields(a: Spec, b: Spec) -> frozenset[str]:
    """Fields neither rule set lets matter: read by no guard, effect, weight, let, actor or
    domain of either, and only by reveals that are identical in both and read nothing but
    fields set once, from parameters alone, by the same assignment in both."""
    if [f.name for f in a.fields] != [f.name for f in b.fields]:
        common = {f.name for f in a.fields} & {f.name for f in b.fields}
    else:
        common = {f.name for f in a.fields}
    read: set[str] = set()
    for spec in (a, b):
        for rule in spec.rules:
            for node in rule_nodes(rule):
                read |= fields_read(node, spec)
    reveals_a = {rule.name: rule.reveals for rule in a.rules if rule.reveals}
    reveals_b = {rule.name: rule.reveals for rule in b.rules if rule.reveals}
    out = set()
    for name in sorted(common - read - set(OUTCOME_FIELDS)):
        readers_a = {r: v for r, v in reveals_a.items() if any(name in fields_read(node, a) for _, node in v)}
        readers_b = {r: v for r, v in reveals_b.items() if any(name in fields_read(node, b) for _, node in v)}
        if readers_a != readers_b:
            continue
        inputs: set[str] = set()
        for reveal in readers_a.values():
            for _, node in reveal:
                inputs |= fields_read(node, a)
        if all(_set_once_alike(a, b, field_name) for field_name in inputs):
            out.add(name)
    return frozenset(out)


def _set_once_alike(a: Spec, b: Spec, name: str) -> bool:
    """Whether both rule sets assign the field only from parameters, by the same rules and expressions."""
    def assignments(spec: Spec) -> dict[str, n.Node]:
        found = {}
        for rule in spec.rules:
            for target, node in rule.effect:
                if target == name:
                    found[rule.name] = node
        return found
    found_a, found_b = assignments(a), assignments(b)
    if found_a != found_b:
        return False
    return all(not fields_read(node, a) for node in found_a.values())


def dead_masker(game: Game) -> Callable[[Any], Any] | None:
    """A function state -> the state with every field dead at its phase (spec/liveness.py)
    set to its initial value, or None when no phase has a dead field. Two states of a
    phase with the same mask have the same games from there on, so a pair keyed by its
    masks stands for every pair that differs only in stale bookkeeping."""
    dead = dead_fields(game.spec)
    start = game.initial_state()
    index = {name: position for position, name in enumerate(game.field_names)}
    phases = game.spec.enums["phase"]
    resets = [tuple(sorted((index[name], start[index[name]]) for name in dead[phase])) for phase in phases]
    if not any(resets):
        return None
    phase_index = game.phase_index

    def mask(state: Any) -> Any:
        reset = resets[state[phase_index]]
        if not reset:
            return state
        values = list(state)
        for position, value in reset:
            values[position] = value
        return tuple(values)
    return mask


def rotator(game: Game) -> Callable[[Any, int], Any]:
    """A function (state, r) -> the state with every seat moved r places counter-clockwise."""
    players = game.players
    full = (1 << players) - 1
    values = []
    for index, spec_field in enumerate(game.spec.fields):
        value = f"s[{index}]"
        if spec_field.type.kind == "seat":
            values.append(f"(({value} - r) % {players} if {value} >= 0 else -1)")
        elif spec_field.type.kind == "seats":
            values.append(f"((({value} >> r) | ({value} << ({players} - r))) & {full})")
        else:
            values.append(value)
    source = f"def rotate(s, r):\n    return _new(_State, ({', '.join(values)},))\n"
    namespace: dict[str, Any] = {"_new": tuple.__new__, "_State": game.State}
    load_source(source, "diff rotate", namespace)  # generated from the field types only
    function: Callable[[Any, int], Any] = namespace["rotate"]
    return function


def rotate_args(compiled: CompiledRule, args: tuple[int, ...], by: int, players: int) -> tuple[int, ...]:
    """Parameter values moved `by` seats clockwise (seats and seat sets only)."""
    if not by:
        return args
    out = []
    full = (1 << players) - 1
    for param, value in zip(compiled.rule.params, args):
        if param.type.kind == "seat":
            out.append(value if value < 0 else (value + by) % players)
        elif param.type.kind == "seats":
            out.append(((value << by) | (value >> (players - by))) & full)
        else:
            out.append(value)
    return tuple(out)


def _lowest(mask: int, k: int) -> int | None:
    """The k lowest seats of a set, or None if it has fewer."""
    out = 0
    seat = 0
    while k and mask >> seat:
        if mask >> seat & 1:
            out |= 1 << seat
            k -= 1
        seat += 1
    return None if k else out


@lru_cache(maxsize=4096)
def subset_representatives(first: int, second: int | None) -> list[int]:
    """One subset per size and per class of membership in the two domains (a subset of
    both, of the first only, of the second only): a rule that reads its parameter only
    through its size and the domain test treats the members of a class alike."""
    if second is None or second == first:
        return [value for k in range(first.bit_count() + 1) if (value := _lowest(first, k)) is not None]
    out = set()
    both = first & second
    for k in range((first | second).bit_count() + 1):
        value = _lowest(both, k)
        if value is not None:
            out.add(value)
        for own, other in ((first, second), (second, first)):
            outside = own & ~other
            if k and outside:
                seat = outside & -outside
                rest = _lowest(own & ~seat, k - 1)
                if rest is not None:
                    out.add(rest | seat)
    return sorted(out)
