"""Strategy profiles as data (spec/strategies/*.toml): how each actor weighs its legal moves.

A profile turns the game into a Markov chain: chance moves carry the rules' own odds, and
every choice of a seat (or of the table's vote) gets a probability from the profile. A
profile is read from what its actor may see and nothing else (RULES.md R-S5, R-L1-R-L4),
so its expressions are checked against the rules' observations (spec/observations.py):

- the public fields (`seen = "public"`), the `[public]` counts, the spec's constants and
  its definitions that read only public fields;
- `viewer`, the seat whose choice it is (for the vote: each voter in turn);
- each `[view.NAME]` item by its name (`role`, `hitler`, `fascists`, `hand`), with
  `knows_NAME` saying whether the actor is shown it; an item the actor is not shown reads
  as nothing (`none` for a seat, `{}` for a seat set, 0 for a number, the first member of
  an enum), so an expression should test `knows_NAME` before it relies on it;
- the move's own parameters, the profile's `[parameters]` and its `[definitions]`.

An expression that reads a hidden field (directly or through a definition) is refused
with the profile's file and line: a strategy that peeks at the pile or at a seat's role
it was not shown is not a strategy a player could follow.

File format (spec/STRATEGIES.md): `name`, `description`, `rules` (rule IDs), optional
`[parameters]` (name = whole number), `[definitions]` (name = expression), `[moves.RULE]`
with `weight` (a whole number >= 0 for each legal move of that rule; unlisted rules weigh
every legal move 1), and `[vote]` with `ja` and `nein` (each voter's weights, unlisted: 1
and 1). Nothing here imports anything but the standard library and spec/.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import Location, SpecError, read_toml
from .lang.check import Scope, parse
from .lang.nodes import Name, Node, walk
from .lang.types import BOOL, INT, SEAT, Type
from .model import Spec
from .properties import state_scope

STRATEGIES_DIR = Path(__file__).parent / "strategies"
"""Where the shipped profiles live: `--strategy NAME` reads `NAME.toml` here."""

SECTIONS = ("name", "description", "rules", "parameters", "definitions", "moves", "vote")
VIEWER = "viewer"


@dataclass(frozen=True, slots=True)
class Weight:
    """One weight expression of a profile, typed, with where it was written."""

    node: Node
    text: str
    where: Location


@dataclass(frozen=True, slots=True)
class Strategy:
    """A profile checked against one rule set: `spec` is that rule set with the profile's
    definitions added (so the compiled weights can read them)."""

    name: str
    description: str
    rule_ids: tuple[str, ...]
    parameters: dict[str, int]
    moves: dict[str, Weight]          # rule name -> weight of each legal move of that rule
    ja: Weight | None                 # each voter's weight for Ja (None: 1)
    nein: Weight | None               # ... and for Nein
    spec: Spec
    path: str

    def expressions(self) -> tuple[Weight, ...]:
        """Every weight expression of the profile."""
        return (*self.moves.values(), *(w for w in (self.ja, self.nein) if w is not None))


def strategy_path(name: str) -> Path:
    """The file of a shipped profile, or `name` itself when it names a file."""
    if name.endswith(".toml") or "/" in name:
        return Path(name)
    return STRATEGIES_DIR / f"{name}.toml"


def shipped() -> tuple[str, ...]:
    """The names of the shipped profiles."""
    return tuple(sorted(path.stem for path in STRATEGIES_DIR.glob("*.toml")))


def item_type(spec: Spec, name: str) -> Type:
    """The type a `[view]` item reads as in a profile: a seat item may be `none` (not shown)."""
    item = next(item for item in spec.view if item.name == name)
    kind = item.what.type
    return dataclasses.replace(kind, optional=True) if kind.kind == "seat" else kind


def load_strategy(spec: Spec, name: str) -> Strategy:
    """The profile `name` (a shipped name or a file) checked against `spec`; a `SpecError`
    naming the file and line for anything wrong, a hidden field read above all."""
    path = strategy_path(name)
    if not path.is_file():
        raise SpecError(f"no strategy {name!r}: expected one of {', '.join(shipped())} or a .toml file")
    data, text = read_toml(path)
    lines = text.splitlines()

    def where(needle: str, label: str) -> Location:
        line = next((i + 1 for i, line in enumerate(lines) if needle in line), None)
        return Location(str(path), line, label)

    for key in data:
        if key not in SECTIONS:
            raise SpecError(f"unknown key '{key}'; a strategy has {', '.join(SECTIONS)}", where(key, key))
    for key in ("name", "description"):
        if not isinstance(data.get(key), str):
            raise SpecError(f"a strategy needs {key} = \"...\"", where(key, key))
    rule_ids = data.get("rules", [])
    if not isinstance(rule_ids, list) or any(rule_id not in spec.rulebook for rule_id in rule_ids):
        raise SpecError("rules is a list of rule IDs of RULES.md", where("rules", "rules"))
    parameters: dict[str, int] = {}
    for key, value in _table(data, "parameters", where).items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise SpecError(f"parameter '{key}' is a whole number >= 0 (a weight), got {value!r}",
                            where(f"{key} =", f"parameters.{key}"))
        parameters[key] = value
    scope = _scope(spec, parameters, where)
    definitions = dict(spec.definitions)
    for key, value in _table(data, "definitions", where).items():
        place = where(f"{key} =", f"definitions.{key}")
        if key in scope.names:
            raise SpecError(f"definition '{key}' hides a name the profile already reads", place)
        node = parse(str(value), scope, place, show_caret=True)
        _refuse_hidden(spec, definitions, node, place)
        scope.add(key, "definition", node.type)
        scope.definitions[key] = node
        definitions[key] = node
    extended = dataclasses.replace(spec, definitions=definitions)
    moves: dict[str, Weight] = {}
    for rule_name, entry in _table(data, "moves", where).items():
        place = where(f"[moves.{rule_name}]", f"moves.{rule_name}")
        rules = {rule.name: rule for rule in spec.rules}
        rule = rules.get(rule_name)
        if rule is None or rule.actor != "seat":
            seats = ", ".join(r.name for r in spec.rules if r.actor == "seat")
            raise SpecError(f"'{rule_name}' is not a seat's move of rules '{spec.name}'; they are {seats}", place)
        if not isinstance(entry, dict) or set(entry) != {"weight"}:
            raise SpecError("a [moves.RULE] entry is weight = EXPR", place)
        move_scope = scope.child()
        for param in rule.params:
            move_scope.add(param.name, "param", param.type)
        moves[rule_name] = _weight(spec, definitions, entry["weight"], move_scope,
                                   where(str(entry["weight"]), f"moves.{rule_name}.weight"))
    vote = _table(data, "vote", where)
    unknown = sorted(set(vote) - {"ja", "nein"})
    if unknown:
        raise SpecError(f"unknown key '{unknown[0]}'; [vote] has ja and nein", where(unknown[0], "vote"))
    ja = None if "ja" not in vote else _weight(spec, definitions, vote["ja"], scope, where("ja =", "vote.ja"))
    nein = None if "nein" not in vote else _weight(spec, definitions, vote["nein"], scope,
                                                   where("nein =", "vote.nein"))
    return Strategy(str(data["name"]), str(data["description"]), tuple(rule_ids), parameters, moves, ja, nein,
                    extended, str(path))


def profile_names(spec: Spec) -> tuple[str, ...]:
    """The names a weight reads besides the public fields, in the order the compiled weight
    takes them after the move's parameters: the viewer, the view items and whether each is
    shown, the `[public]` counts (the profile's parameters follow)."""
    return (VIEWER, *(item.name for item in spec.view), *(f"knows_{item.name}" for item in spec.view),
            *spec.public)


def _scope(spec: Spec, parameters: dict[str, int], where: Any) -> Scope:
    """What a profile may read (module docstring): the state scope with the hidden fields
    left in (so a read of one is found and refused by name) and the view items over them."""
    scope = state_scope(spec).child()
    scope.add(VIEWER, "param", SEAT)
    for item in spec.view:
        scope.add(item.name, "param", item_type(spec, item.name))
        scope.add(f"knows_{item.name}", "param", BOOL)
    for name, node in spec.public.items():
        scope.add(name, "param", node.type)
    for name in parameters:
        if name in scope.names:
            raise SpecError(f"parameter '{name}' hides a name of the rules", where(f"{name} =", f"parameters.{name}"))
        scope.add(name, "param", INT)
    return scope


def _weight(spec: Spec, definitions: dict[str, Node], text: object, scope: Scope, place: Location) -> Weight:
    node = parse(str(text), scope, place, INT, show_caret=True)
    _refuse_hidden(spec, definitions, node, place)
    return Weight(node, str(text), place)


def _refuse_hidden(spec: Spec, definitions: dict[str, Node], node: Node, place: Location) -> None:
    """A `SpecError` if the expression reads a hidden field, itself or through a definition."""
    hidden = {field.name for field in spec.fields if field.seen == "hidden"}
    for item in walk(node):
        if isinstance(item, Name) and item.kind == "field" and item.name in hidden:
            raise SpecError(f"reads '{item.name}', a hidden field (seen = \"hidden\"): a strategy may read only "
                            f"what its actor sees: the public fields, the [public] counts "
                            f"({', '.join(spec.public) or 'none'}) and its own view "
                            f"({', '.join(item.name for item in spec.view) or 'none'})", place)
        if isinstance(item, Name) and item.kind == "definition" and item.name in definitions:
            try:
                _refuse_hidden(spec, definitions, definitions[item.name], place)
            except SpecError as error:
                raise SpecError(f"through definition '{item.name}': {error.message}", place) from None


def _table(data: dict[str, Any], key: str, where: Any) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise SpecError(f"[{key}] is a table", where(key, key))
    return value
