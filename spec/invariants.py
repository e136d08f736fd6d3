"""Strengthening invariants and the ranking function, as data (spec/invariants.toml).

The catalogue's invariants (spec/properties.toml) are what the rules guarantee; most are
not inductive on their own: a state that breaks no catalogue property can still step to
one that does, although no game ever reaches it. The invariants here rule such states
out. Each entry says which catalogue properties it `supports`, cites the rule IDs it
rests on, and is itself proved: verify/smt proves the invariants and the catalogue
together by induction, for every player count.

The file holds:

- `[definitions]`: named expressions over a state, added to the spec's own (a name may
  not hide a field, a constant or a definition of the spec);
- `[[invariant]]`: `name`, `description`, `rules`, `state` (an expression true in every
  reachable state), `supports` (catalogue property names), and `monitor` when it reads a
  monitor's field (the order of play's, spec/order.py): it then applies only to rules
  carrying that monitor;
- `[ranking]`: `description`, `rules`, `measure`, an int expression over a state that is
  bounded below by 0 and strictly decreases on every step: every game ends;
- `[distance]`: `description`, `rules`, `measure`, an int expression that grows by at
  most one per step: a state whose measure exceeds the initial state's by d is at least d
  moves into any game. Bounded model checking uses it to dismiss depths too shallow for
  the state it looks for, without changing which paths exist.

Nothing here imports anything but the standard library and spec/.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import Location, SpecError, read_toml
from .lang.check import parse
from .lang.nodes import BoolOp, Compare, Lit, Name, Node
from .lang.types import BOOL, INT
from .model import Spec
from .properties import state_scope

INVARIANTS_FILE = Path(__file__).parent / "invariants.toml"


@dataclass(frozen=True, slots=True)
class Invariant:
    """A strengthening invariant: true in every reachable state, proved with the catalogue."""

    name: str
    description: str
    rule_ids: tuple[str, ...]
    state: Node
    text: str
    supports: tuple[str, ...]
    where: Location
    origin: str = "invariant"        # invariant (written in spec/invariants.toml) | inferred


@dataclass(frozen=True, slots=True)
class Measure:
    """An int measure on states: a ranking (decreases on every step, never below 0) or a
    distance (grows by at most one per step)."""

    description: str
    rule_ids: tuple[str, ...]
    measure: Node
    text: str
    where: Location


@dataclass(frozen=True, slots=True)
class Strengthening:
    """The invariants and ranking for one spec: `spec` is that spec with the file's
    definitions added; `skipped` names entries a variant's schema cannot express."""

    spec: Spec
    invariants: tuple[Invariant, ...]
    ranking: Measure | None
    distance: Measure | None = None
    skipped: tuple[str, ...] = ()


def guard_phase(spec: Spec, node: Node) -> str | None:
    """The one phase an invariant says anything about, or None: p when `phase != 'p'` is
    the expression itself or an operand of its top-level `or` (in any other phase it holds
    whatever the rest says, so only a step into p can break it).

    Read from the expression alone, never from a label kept beside it: a label that named
    the wrong phase would spare the invariant the rules that can break it, and a proof
    resting on it would prove what the rules refute."""
    operands = node.operands if isinstance(node, BoolOp) and node.op == "or" else (node,)
    for operand in operands:
        if not (isinstance(operand, Compare) and operand.op == "!="):
            continue
        for name, value in ((operand.left, operand.right), (operand.right, operand.left)):
            if (isinstance(name, Name) and name.kind == "field" and name.name == "phase"
                    and isinstance(value, Lit) and value.type == name.type and name.type.enum is not None
                    and not isinstance(value.value, bool)):
                members = spec.enums.get(name.type.enum, ())
                if 0 <= value.value < len(members):
                    return members[value.value]
    return None


def load_invariants(spec: Spec, path: Path | None = None) -> Strengthening:
    """The strengthening invariants and ranking of `path` (spec/invariants.toml), checked
    against `spec`. For a variant (a spec that extends another), an entry that does not
    type-check against its schema is skipped and named in `skipped`; for a base rule set
    it is an error."""
    path = path or INVARIANTS_FILE
    data, text = read_toml(path)
    lines = text.splitlines()
    lenient = bool(spec.extends)
    skipped: list[str] = []

    def where(needle: str, label: str) -> Location:
        line = next((i + 1 for i, l in enumerate(lines) if needle in l), None)
        return Location(str(path), line, label)

    for key in data:
        if key not in ("definitions", "invariant", "ranking", "distance"):
            raise SpecError(f"unknown section '{key}'; expected definitions, invariant, ranking or distance",
                            where(key, key))
    scope = state_scope(spec)
    definitions = dict(spec.definitions)
    for name, expression in data.get("definitions", {}).items():
        place = where(f"{name} =", f"definitions.{name}")
        if name in scope.names:
            raise SpecError(f"definition '{name}' hides a name of the spec", place)
        try:
            node = parse(str(expression), scope, place)
        except SpecError:
            if not lenient:
                raise
            skipped.append(f"definition {name}")
            continue
        definitions[name] = node
        scope.add(name, "definition", node.type)
        scope.definitions[name] = node
    extended = dataclasses.replace(spec, definitions=definitions)
    invariants = []
    names: set[str] = set()
    for entry in data.get("invariant", []):
        name = str(entry.get("name", ""))
        place = where(f'name = "{name}"', f"invariant '{name}'")
        _check_keys(entry, {"name", "description", "rules", "state", "supports", "monitor"}, place)
        if not re.fullmatch(r"[a-z][a-z0-9_]*", name) or name in names:
            raise SpecError("an invariant needs a unique lower_case_with_underscores name", place)
        names.add(name)
        if "monitor" in entry and not any(field.name == str(entry["monitor"]) for field in spec.fields):
            continue        # about a monitor these rules do not carry (the order of play: spec/order.py)
        try:
            node = parse(str(entry.get("state", "")), scope, place, BOOL)
        except SpecError:
            if not lenient:
                raise
            skipped.append(name)
            continue
        invariants.append(Invariant(name, str(entry.get("description", "")), _rule_ids(spec, entry, place),
                                    node, str(entry["state"]), tuple(str(s) for s in entry.get("supports", [])),
                                    place))
    measures: dict[str, Measure | None] = {}
    for section in ("ranking", "distance"):
        measures[section] = None
        if section not in data:
            continue
        entry = data[section]
        place = where(f"[{section}]", section)
        _check_keys(entry, {"description", "rules", "measure"}, place)
        try:
            measure = parse(str(entry.get("measure", "")), scope, place, INT)
            measures[section] = Measure(str(entry.get("description", "")), _rule_ids(spec, entry, place), measure,
                                        str(entry["measure"]), place)
        except SpecError:
            if not lenient:
                raise
            skipped.append(section)
    return Strengthening(extended, tuple(invariants), measures["ranking"], measures["distance"], tuple(skipped))


def _check_keys(entry: dict[str, Any], allowed: set[str], place: Location) -> None:
    unknown = set(entry) - allowed
    if unknown:
        raise SpecError(f"unknown key '{sorted(unknown)[0]}'; expected {', '.join(sorted(allowed))}", place)


def _rule_ids(spec: Spec, entry: dict[str, Any], place: Location) -> tuple[str, ...]:
    rule_ids = tuple(str(r) for r in entry.get("rules", []))
    for rule_id in rule_ids:
        if rule_id not in spec.rulebook:
            raise SpecError(f"'{rule_id}' is not a rule ID of RULES.md", place)
    return rule_ids
