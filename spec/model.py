"""The loaded, checked spec: frozen values that the engine and the Z3 backend compile.

A `Spec` is what a rules file says after every expression has been parsed and
type-checked (spec/lang). It holds the numbers of the game once (`constants`,
`tables`), the state schema (`fields`), named expressions (`definitions`) and the rules
as guarded commands. Nothing here runs a game; `engine/` and `verify/` do that.
"""

from __future__ import annotations

from dataclasses import dataclass, field as _field
from typing import Any

from .errors import Location, SpecError
from .lang.nodes import Node
from .lang.types import Type

ACTOR_KINDS = ("chance", "table", "game")
"""Non-seat actors: chance (a random event), table (all living players at once: the vote),
game (a forced bookkeeping step with no choice)."""


@dataclass(frozen=True, slots=True)
class Field:
    """A state field: its type, bounds for ints, and its value before the deal."""

    name: str
    type: Type
    low: Node | None
    high: Node | None
    init: Node
    where: Location


@dataclass(frozen=True, slots=True)
class Domain:
    """What a parameter ranges over.

    kind is `seat`, `subset` (subsets of the seat set `of`), `range` (ints `low..high`),
    `enum` (the members of `enum`; `tile` for policy tiles) or `tiles` (tile sequences of
    exactly `length` tiles).
    """

    kind: str
    text: str
    of: Node | None = None
    low: Node | None = None
    high: Node | None = None
    enum: str | None = None
    length: Node | None = None


@dataclass(frozen=True, slots=True)
class Param:
    """A parameter the actor chooses."""

    name: str
    type: Type
    domain: Domain


@dataclass(frozen=True, slots=True)
class Template:
    """A reason with `{expression}` holes, filled from the state and the move."""

    text: str
    holes: tuple[tuple[str, Node], ...]


@dataclass(frozen=True, slots=True)
class Requirement:
    """One condition of a rule, with the rule ID it encodes and why it fails when false."""

    rule_id: str
    when: Node
    text: str
    why: Template
    where: Location


@dataclass(frozen=True, slots=True)
class Rule:
    """A guarded command of the game."""

    name: str
    phase: str
    actor: str                      # chance | table | game | seat (then `actor_seat` is set)
    actor_seat: Node | None
    actor_text: str
    summary: str
    params: tuple[Param, ...]
    lets: tuple[tuple[str, Node], ...]
    weight: Node | None
    requires: tuple[Requirement, ...]
    effect: tuple[tuple[str, Node], ...]
    reveals: tuple[tuple[str, Node], ...]
    quiet: bool
    where: Location
    actor_rule: str = "R-E1"
    says: "Template | None" = None
    phase_rule: str | None = None    # the rule ID cited when the move is tried at the wrong time

    @property
    def rule_ids(self) -> tuple[str, ...]:
        """The rule IDs this rule rests on, in order of first citation."""
        seen: dict[str, None] = {}
        for requirement in self.requires:
            seen.setdefault(requirement.rule_id, None)
        return tuple(seen)


@dataclass(frozen=True, slots=True)
class Spec:
    """A complete, checked rule set: the base game or a variant of it."""

    name: str
    description: str
    source: str
    constants: dict[str, int]
    tables: dict[str, dict[int, int | tuple[str, ...]]]
    table_types: dict[str, Type]
    enums: dict[str, tuple[str, ...]]
    fields: tuple[Field, ...]
    definitions: dict[str, Node]
    rules: tuple[Rule, ...]
    rulebook: dict[str, str]
    extends: tuple[str, ...] = ()
    properties: dict[str, dict[str, Any]] = _field(default_factory=dict)
    """A variant's `[properties]` and `[expect]`: property name -> keys replacing the
    catalogue's (spec/properties.py `load_properties(spec, overrides=spec.properties)`)."""
    overlays: tuple[str, ...] = ()
    """The overlay files merged into this spec, innermost first (empty for a base rules file)."""

    @property
    def player_counts(self) -> range:
        """The player counts this rule set is defined for (R-S1)."""
        return range(self.constants["min_players"], self.constants["max_players"] + 1)

    def field_index(self, name: str) -> int:
        """Position of a field in the state tuple."""
        for index, field in enumerate(self.fields):
            if field.name == name:
                return index
        raise KeyError(name)

    def rule(self, name: str) -> Rule:
        """The rule called `name`."""
        for rule in self.rules:
            if rule.name == name:
                return rule
        raise KeyError(name)

    def values_for(self, players: int) -> dict[str, int | tuple[int, ...]]:
        """Every constant and table entry for `players`, encoded (enum members as indexes)."""
        if players not in self.player_counts:
            low, high = self.player_counts.start, self.player_counts.stop - 1
            raise SpecError(f"R-S1: Secret Hitler is played by {low} to {high} players, not {players}")
        values: dict[str, int | tuple[int, ...]] = dict(self.constants)
        values["players"] = players
        values["all_seats"] = (1 << players) - 1
        for name, by_count in self.tables.items():
            value = by_count[players]
            if isinstance(value, tuple):
                elem = self.table_types[name].elem
                assert elem is not None and elem.enum is not None
                members = self.enums[elem.enum]
                values[name] = tuple(members.index(item) for item in value)
            else:
                values[name] = value
        return values
