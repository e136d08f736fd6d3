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

ROLES: dict[str, str] = {
    "deal": "the roles are dealt (chance): a log's setup names its outcome",
    "opening": "the first Presidential Candidate is chosen (chance; one seat parameter)",
    "nomination": "a Presidential Candidate nominates a Chancellor: a round begins, and the seat making a "
                  "log's first nomination is the first President",
    "vote": "an outcome of the table's vote (one parameter: the seats voting Ja): a vote given by its Ja "
            "list is the move of the vote rule whose requirements the count meets",
    "election": "counts as an election: a government is elected",
    "draw": "the President's hand is drawn from the top of the pile (chance; `draws` tiles; one int "
            "parameter: the Fascist tiles drawn)",
    "discard": "the President's face-down discard (one tile parameter); the state after it holds the "
               "Chancellor's hand (the field `chancellor_hand`)",
    "top_policy": "the top tile of the pile is enacted without a government, ending the round in chaos "
                  "(chance; `draws` tiles; one tile parameter: the tile)",
    "peek": "the top tiles of the pile are shown in order and stay where they are (chance; one tiles "
            "parameter: the tiles seen, top first)",
}
"""What a rule is for the tools that read games (the judge, the importers, traces, the explicit
search), declared in the rule's `roles` (spec/LANGUAGE.md). Code outside spec/ asks for the
rules with a role instead of naming rules, so a variant may rename or add rules and still be
judged, and no tool carries its own copy of which rule means what. The loader checks each
role's shape (actor, parameters, `draws`) against its meaning here."""

SINGLE_ROLES = ("deal", "opening")
"""Roles the setup of a game needs exactly one rule for (a log's roles and first President
name that rule's outcome)."""


@dataclass(frozen=True, slots=True)
class Field:
    """A state field: its type, bounds for ints, and its value before the deal."""

    name: str
    type: Type
    low: Node | None
    high: Node | None
    init: Node
    where: Location
    seen: str = "public"
    """Who sees the field: "public" (the whole table, at every moment) or "hidden" (nobody,
    unless a rule's `shows` reveals what a move did to it). The rules file says it for every
    field; the loader refuses a field without it."""


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
class Show:
    """What a move shows, and to whom: one entry of a rule's `shows`.

    `to` is a seat set read in the state before the move, with the move's parameters and lets;
    `what` the value shown, which may also read `after_FIELD` (the state after the move) and
    `viewer` (the seat shown it, for a value that differs per seat: each player's own role).
    `of` is what of the move the entry makes known (parameters and hidden fields the rule
    changes): the loader checks that every parameter and every hidden field a rule changes
    is named by some entry's `of` or by the rule's `hidden`, so a rule cannot change hidden
    state without saying who learns of it."""

    rule_id: str
    to: Node
    what: Node
    of: tuple[str, ...]
    where: Location


@dataclass(frozen=True, slots=True)
class ViewItem:
    """One item of what the engine shows a seat at a moment (`[view]`): its name, the rule ID
    that allows it, who is shown it (`to`, a seat set over the state) and its value (`what`,
    over the state and `viewer`). The no-leak certificate proves every item a function of
    what the seat has been shown."""

    name: str
    rule_id: str
    to: Node
    what: Node
    where: Location


@dataclass(frozen=True, slots=True)
class Requirement:
    """One condition of a rule, with the rule ID it encodes and why it fails when false."""

    rule_id: str
    when: Node
    text: str
    why: Template
    where: Location
    why_de: "Template | None" = None
    """The reason in German (`why_de`), whose holes are holes of `why`; None where the spec
    has none, and German output then shows `why` marked as English."""


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
    roles: tuple[str, ...] = ()      # what the rule is for the tools (ROLES)
    draws: Node | None = None        # tiles a `draw` or `top_policy` rule takes from the top of the pile
    word: str | None = None          # the table's word for the move (spec/moves.py), e.g. 'vote'
    says_de: "Template | None" = None  # `says` in German; its holes are holes of `says`
    summary_de: str | None = None      # `summary` in German: the move's name in German output
    shows: tuple[Show, ...] = ()       # what the move shows, and to whom (besides the public fields)
    hidden: tuple[str, ...] = ()       # parameters and hidden fields the move changes that nobody is shown

    @property
    def rule_ids(self) -> tuple[str, ...]:
        """The rule IDs this rule rests on, in order of first citation."""
        seen: dict[str, None] = {}
        for requirement in self.requires:
            seen.setdefault(requirement.rule_id, None)
        return tuple(seen)

    @property
    def cited(self) -> tuple[str, ...]:
        """The rule IDs a line of a game cites for this move: its requirements', or, for a move
        with none (the first President, an accepted veto), the rule of its phase or its actor,
        so that every line of a game names the rule it follows."""
        return self.rule_ids or ((self.phase_rule,) if self.phase_rule else (self.actor_rule,))


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
    rulebook_de: dict[str, str] = _field(default_factory=dict)
    """The rule IDs' titles in German (`[rules_de]` of spec/rulebook.toml), every ID of `rulebook`."""
    values_de: dict[str, str] = _field(default_factory=dict)
    """Enum members and reveal names as a German move sentence shows them (`[values_de]`)."""
    public: dict[str, Node] = _field(default_factory=dict)
    """What the whole table can count at every moment though what is counted is hidden
    (`[public]`: the size of the pile, of the discards): part of every seat's view."""
    view: tuple[ViewItem, ...] = ()
    """What the engine shows a seat beside the public fields and counts (`[view]`)."""

    def seen_fields(self, seen: str) -> tuple[str, ...]:
        """The names of the fields that are `seen` ("public" or "hidden"), in schema order."""
        return tuple(field.name for field in self.fields if field.seen == seen)

    def titles(self, lang: str = "en") -> dict[str, str]:
        """The rule IDs' one-line titles in `lang` (English for a language the rulebook lacks)."""
        return self.rulebook_de if lang == "de" and self.rulebook_de else self.rulebook

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

    def with_role(self, role: str) -> tuple[Rule, ...]:
        """The rules that declare `role` (ROLES), in the order of the rules file."""
        assert role in ROLES, role
        return tuple(rule for rule in self.rules if role in rule.roles)

    def role_rule(self, role: str) -> Rule:
        """The one rule with `role` (the setup's `deal` and `opening`); a `SpecError` if the
        rules have none."""
        found = self.with_role(role)
        if not found:
            raise SpecError(f"rules '{self.name}' have no rule with role '{role}' ({ROLES[role]})")
        return found[0]

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
