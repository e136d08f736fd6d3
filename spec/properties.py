"""Properties of the rules, as data: what the model checkers must prove or find.

A property file (spec/properties.toml, or a variant's `[properties]`) lists entries:

- `always`: an expression over states (`state = "..."`) true in every reachable state, or
  over moves (`move = "..."` with `on = [rule names]`): true for every such move, where
  field names mean the state before the move, `after_FIELD` the state after it, the
  move's parameters are in scope by name, and `actor` is the seat whose move it is;
- `sometimes`: an expression (state or move) true somewhere: it needs a witness, so a
  vacuous property fails; every other kind with a premise (a move filter, a guard, a
  permission's state: spec/premises.py) gets its premise asked as a `sometimes` too, and
  is `vacuous` where the rules never reach it;
- `never`: shorthand for `always not ...` over states or moves, reported with a witness
  when it fails;
- `allows`: a permission of the rules. In every reachable state where `state = "..."`
  holds, some legal move of the rules `on` satisfies `move = "..."` (a move expression as
  above). Safety properties only see what is played; this kind sees what may be played,
  so a rule that forbids a legal move (a term limit too many, a missing veto) is refuted
  by the shortest game reaching a state where the move is wanting. A rule of `on` that a
  variant removes allows nothing;
- `only`: an obligation, the dual of `allows`. In every reachable state where `state`
  holds, every legal move is of a rule in `on` and satisfies `move`: a rule that adds a
  way out (a power declined, a veto by the President alone) is refuted by the shortest
  game that takes it;
- `shows`: what a move shows its actor. `on` names one rule, `shows = { NAME =
  "expression" }` what it reveals by name and the value the rulebook gives it (an empty
  table: the move shows nothing); every such move reveals exactly those names with those
  values. A variant whose rule reveals other names, or values of another type, breaks the
  property at its first such move;
- `terminates`, `deadlock_free`: graph properties (no expression);
- `in_range`: every reachable state has each field inside its declared range (no
  expression; refuted by the shortest game that puts a value outside).

Each entry names the rule IDs it rests on, its player counts and its expected verdict
(`holds` or `fails`), so a changed verdict is a regression. `class` is `conformance` (the
published game: a variant is expected to refute some) or `soundness` (any playable rule
set must satisfy it: deck conservation, no deadlock, termination, values in range).

The file's `[order_of_play]` is the rulebook's order of play as an automaton over the
moves, each step citing its rule ID (spec/order.py): it gives, per stage, an `always`
property `order_after_STAGE` (no move the rulebook does not list comes next) and an
`allows` property `order_goes_on_after_STAGE` (one that it lists may be played), checked
on the rules with the automaton's monitor added, which they name as their `rules`.

A property is written against the rulebook, not against the rules it checks: the numbers
it needs come from the catalogue's own `[facts]`, each citing the rule ID it is read
from, never from the spec's constants, tables or definitions (which a wrong rule would
move together with the property). A fact is an int (`hitler_zone = { rule = "R-E10",
value = 3 }`), an int per player count (`{ rule = "R-S2", "5-6" = 1, ... }`) or a list of
enum members per player count (`{ rule = "R-X7", "5-6" = ["none", ...] }`, used as
`board[i] == x` or `x != board[i]` with x a member or a field; slots from 0, a slot out of
range equal to no member). In a property's
expression a fact's name is replaced by its value before the expression is parsed, so a
fact shadows a name of the rules spelled the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .errors import Location, SpecError, read_toml, shown
from .lang.check import Scope, parse
from .lang import nodes as n
from .lang.nodes import Node
from .lang.types import BOOL, INT, SEAT, SEATS, Type
from .model import Spec
from .vocabulary import synonyms

KINDS = ("always", "sometimes", "never", "allows", "only", "shows", "terminates", "deadlock_free", "in_range")
ACTOR = "actor"
"""The kind of the name `actor` in a move expression (replaced before checking)."""
PERMISSIONS = ("allows", "only")
"""Kinds over all the moves of a state at once: what may be played, what alone may be."""
EXPECTS = ("holds", "fails")
PROPERTIES_FILE = Path(__file__).parent / "properties.toml"


@dataclass(frozen=True, slots=True)
class Property:
    """One property: kind, expression (state or move), rule IDs, player counts, expectation."""

    name: str
    kind: str
    description: str
    rule_ids: tuple[str, ...]
    players: tuple[int, ...]
    expect: str
    state: Node | None
    move: Node | None
    on: tuple[str, ...]
    text: str
    where: Location
    report: str = ""          # what to report besides the verdict, e.g. "elections" for wins
    group: str = "conformance"   # the entry's `class`: conformance | soundness
    rules: str = ""           # the rules to check it under, when not the ones asked about: a temporal
                              # query's monitored rules (spec/temporal.py)


def state_scope(spec: Spec) -> Scope:
    """Names an expression over one state may use: constants, fields, definitions."""
    scope = Scope(enums=spec.enums)
    for name in spec.constants:
        scope.add(name, "constant", INT)
    scope.add("players", "constant", INT)
    scope.add("all_seats", "constant", SEATS)
    for name, type_ in spec.table_types.items():
        scope.add(name, "constant", type_)
    for field in spec.fields:
        scope.add(field.name, "field", field.type)
    for name, node in spec.definitions.items():
        scope.add(name, "definition", node.type)
        scope.definitions[name] = node
    scope.synonyms = synonyms(scope.names)
    return scope


def move_scope(spec: Spec, rules: tuple[str, ...], where: Location, actor: bool = False) -> Scope:
    """Names an expression over a move may use: the state scope, `after_FIELD`, and the
    parameters the listed rules have in common (with the same type); with `actor`, also
    `actor`, the seat whose move it is (`_with_actor`)."""
    scope = state_scope(spec)
    if actor:
        scope.add("actor", ACTOR, SEAT)
    for field in spec.fields:
        scope.add(f"after_{field.name}", "after", field.type)
    common: dict[str, Type] | None = None
    for name in rules:
        try:
            rule = spec.rule(name)
        except KeyError:
            known = ", ".join(r.name for r in spec.rules)
            raise SpecError(f"'on' names no rule '{name}'; rules are {known}", where) from None
        params = {p.name: p.type for p in rule.params}
        common = params if common is None else {k: v for k, v in common.items() if params.get(k) == v}
    for name, type_ in (common or {}).items():
        scope.add(name, "param", type_)
    return scope


def parse_players(text: Any, spec: Spec, where: Location, strict: bool = True) -> tuple[int, ...]:
    """`"5-10"`, `"7"`, `[5, 6]` or absent (every count of the spec) as a tuple of counts;
    not `strict`: the counts outside the spec's are left out instead of refused."""
    counts = list(spec.player_counts)
    if text is None:
        return tuple(counts)
    if isinstance(text, int) and not isinstance(text, bool):
        chosen = [text]
    elif isinstance(text, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in text):
        chosen = list(text)
    else:
        match = re.fullmatch(r"(\d{1,3})(?:-(\d{1,3}))?", str(text))
        if not match:
            raise SpecError(f"players must be a count, a range a-b or a list of counts, got {shown(text)}", where)
        low, high = int(match.group(1)), int(match.group(2) or match.group(1))
        if low > high:
            raise SpecError(f"players '{text}' is a reversed range; expected the smaller count first", where)
        chosen = list(range(low, high + 1))      # at most 1,000 counts: both ends have at most three digits
    bad = [c for c in chosen if c not in counts]
    if bad and not strict:
        return tuple(c for c in chosen if c in counts)
    if bad:
        raise SpecError(f"player counts {bad} are outside {counts[0]}-{counts[-1]}", where)
    return tuple(chosen)


CLASSES = ("conformance", "soundness")


@dataclass(frozen=True, slots=True)
class Fact:
    """A number of the published game, as the catalogue knows it: a value (int) or per
    player count an int or a list of enum members; the rule ID it is read from."""

    name: str
    rule_id: str
    value: int | None
    by_count: dict[int, Any]


def load_facts(data: dict[str, Any], spec: Spec, where: Location) -> dict[str, Fact]:
    """The `[facts]` of a property file, checked: every fact cites a rule ID of RULES.md."""
    out: dict[str, Fact] = {}
    for name, entry in (data.get("facts") or {}).items():
        if not re.fullmatch(r"[a-z][a-z0-9_]*", str(name)) or not isinstance(entry, dict):
            raise SpecError(f"fact {name!r}: a fact is name = {{ rule = \"R-..\", value = N }} "
                            "or per player count", where)
        rule_id = str(entry.get("rule", ""))
        if rule_id not in spec.rulebook:
            raise SpecError(f"fact {name!r}: {rule_id!r} is not a rule ID of RULES.md", where)
        value = entry.get("value")
        by_count: dict[int, Any] = {}
        for key, item in entry.items():
            if key in ("rule", "value"):
                continue
            match = re.fullmatch(r"(\d+)(?:-(\d+))?", str(key))
            if not match:
                raise SpecError(f"fact {name!r}: {key!r} is not a player count or a range a-b", where)
            for count in range(int(match.group(1)), int(match.group(2) or match.group(1)) + 1):
                by_count[count] = item
        if (value is None) == (not by_count):
            raise SpecError(f"fact {name!r}: give either value = N or a value per player count", where)
        for item in [value, *by_count.values()]:
            if item is None:
                continue
            ok = isinstance(item, int) and not isinstance(item, bool) or (
                isinstance(item, list) and all(isinstance(x, str) and re.fullmatch(r"[a-z_]+", x) for x in item))
            if not ok:
                raise SpecError(f"fact {name!r}: a value is an int or a list of enum member names", where)
        out[str(name)] = Fact(str(name), rule_id, value, by_count)
    return out


def _by_players(options: list[tuple[int, str]]) -> str:
    """`(a if players == 5 else b if players == 6 else ...)`; the last count is the default."""
    if len(options) == 1 or len({text for _, text in options}) == 1:
        return options[0][1]
    parts = [f"{text} if players == {count} else" for count, text in options[:-1]]
    return "(" + " ".join(parts) + f" {options[-1][1]})"


def _slot_test(items: list[str], index: str, op: str, other: str) -> str:
    """`items[index] OP other` as a bool expression (a list fact compared with a member or a
    field; a slot out of range equals no member)."""
    if other.startswith("'"):
        member = other.strip("'")
        slots = [number for number, item in enumerate(items) if item == member]
        test = f"(({index}) in [{', '.join(map(str, slots))}])" if slots else "False"
    else:
        parts = [f"{other} == '{item}' if ({index}) == {number} else" for number, item in enumerate(items)]
        test = "(" + " ".join(parts) + " False)"
    return test if op == "==" else f"(not {test})"


def _list_facts(text: str, fact: Fact, wanted: list[int]) -> str:
    """Every `fact[i] == x` / `x != fact[i]` of a list fact as a bool expression per count."""
    token = r"('[^']*'|[a-z_][a-z0-9_]*)"
    index = r"\[([^\[\]]*)\]"

    def per_count(index_text: str, op: str, other: str) -> str:
        return _by_players([(count, _slot_test(fact.by_count[count], index_text, op, other)) for count in wanted])
    text = re.sub(rf"\b{fact.name}{index}\s*(==|!=)\s*{token}",
                  lambda m: per_count(m.group(1), m.group(2), m.group(3)), text)
    text = re.sub(rf"{token}\s*(==|!=)\s*\b{fact.name}{index}",
                  lambda m: per_count(m.group(3), m.group(2), m.group(1)), text)
    if re.search(rf"\b{fact.name}\b", re.sub(r"'[^']*'", "''", text)):
        raise SpecError(f"fact {fact.name!r} is a list: use it as {fact.name}[slot] == x or x != {fact.name}[slot]")
    return text


def substitute_facts(text: str, facts: dict[str, Fact], counts: tuple[int, ...]) -> str:
    """The expression with every fact replaced by its value (outside string literals)."""
    for fact in facts.values():
        wanted = [count for count in counts if count in fact.by_count] or sorted(fact.by_count)
        if any(isinstance(fact.by_count.get(count), list) for count in wanted):
            if re.search(rf"\b{fact.name}\b", re.sub(r"'[^']*'", "''", text)):
                text = _list_facts(text, fact, wanted)
    pieces = re.split(r"('[^']*')", text)
    for number in range(0, len(pieces), 2):
        piece = pieces[number]
        for fact in facts.values():
            if fact.value is not None:
                piece = re.sub(rf"\b{fact.name}\b(?!\s*\()", f"({fact.value})", piece)
                continue
            wanted = [count for count in counts if count in fact.by_count] or sorted(fact.by_count)
            if any(isinstance(fact.by_count.get(count), list) for count in wanted):
                continue
            options = [(count, f"({fact.by_count[count]})") for count in wanted]
            piece = re.sub(rf"\b{fact.name}\b", lambda _m, options=options: _by_players(options), piece)
        pieces[number] = piece
    return "".join(pieces)


def load_properties(spec: Spec, path: Path | None = None, overrides: dict[str, Any] | None = None) -> tuple[Property, ...]:
    """The property catalogue checked against `spec`; `overrides` maps a property name to a
    table of keys replacing the catalogue's (a variant's `[properties]`)."""
    path = path or PROPERTIES_FILE
    data, text = read_toml(path)
    facts = load_facts(data, spec, Location(str(path), None, "facts"))
    lines = text.splitlines()
    entries = [dict(entry) for entry in data.get("property", [])]
    by_name = {entry.get("name"): entry for entry in entries}
    from .order import entry_names      # order imports the loader, which imports this module
    ordered = set(entry_names(data))
    for name, changes in (overrides or {}).items():
        if name in by_name:
            by_name[name].update(changes)
        elif name not in ordered:          # an order property's changes go to it (`_order_of_play`)
            entries.append({"name": name, **changes})
    out = []
    for entry in entries:
        name = str(entry.get("name", ""))
        changed = set((overrides or {}).get(name, {}))
        if not _adapt(spec, entry, changed):
            continue
        if changed and spec.overlays:
            where = Location(spec.overlays[-1], _overlay_line(spec.overlays[-1], name), f"properties.{name}")
        else:
            line = next((i + 1 for i, l in enumerate(lines) if f'name = "{name}"' in l), None)
            where = Location(str(path), line, f"property '{name}'")
        out.append(_property(spec, entry, where, facts))
    out += _order_of_play(spec, data, Location(str(path), None, "order_of_play"), facts, overrides or {})
    names = [p.name for p in out]
    for prop in out:
        if names.count(prop.name) > 1:
            raise SpecError(f"two properties are named '{prop.name}'", prop.where)
    return tuple(out)


def _order_of_play(spec: Spec, data: dict[str, Any], where: Location, facts: dict[str, Fact],
                   overrides: dict[str, Any]) -> list[Property]:
    """The order of play's properties (spec/order.py): one per stage of the automaton,
    each over the monitored rules, which it names as its `rules` (unless `spec` already
    carries the monitor: then over `spec` itself)."""
    from . import order                     # it registers overlays through the loader, which imports this module
    from .loader import load_spec

    automaton = order.load_automaton(data, spec, where)
    if automaton is None:
        return []
    entries = [{**entry, **overrides.get(entry["name"], {})} for entry in order.order_entries(automaton, spec)]
    says = [str(entry.pop(order.SAYS)) for entry in entries]
    if order.is_monitored(spec):
        return [replace(_property(spec, entry, where, facts), text=text) for entry, text in zip(entries, says)]
    base = spec.source if spec.source.endswith(".toml") else spec.name
    name = order.monitored_rules(spec, base, automaton, where)
    monitored = load_spec(name)
    return [replace(_property(monitored, entry, where, facts), rules=name, text=text)
            for entry, text in zip(entries, says)]


def _with_actor(spec: Spec, on: tuple[str, ...], node: Node, where: Location) -> Node:
    """A move expression with `actor` replaced by the seat whose move it is: the seat
    expression of the rules' `actor` (the same in every rule of `on`, so one expression
    serves them all). A rule played by the table, by chance or by the game has no seat to
    name (under a variant that makes it so, the expression is false: the seat the
    property names does not move); rules with different seats need a property each."""
    if not any(isinstance(item, n.Name) and item.kind == ACTOR for item in n.walk(node)):
        return node
    seats = {spec.rule(name).actor_seat for name in on}
    if None in seats or len(seats) != 1:
        if spec.overlays:      # a variant gave the move to the table, chance or the game: not that seat
            return n.Lit(BOOL, False)
        raise SpecError(f"'actor' needs rules played by one seat, the same for all of {', '.join(on)}", where)
    (seat,) = seats
    assert seat is not None
    return n.replace_names(node, ACTOR, {"actor": seat})


def _shown(spec: Spec, rule_name: str, shows: dict[str, Any], facts: dict[str, Fact], counts: tuple[int, ...],
           where: Location) -> Node:
    """A `shows` property as a move expression over its rule: each reveal of the rule equal
    to the value the property gives it. Under the rules themselves a difference in the
    names or types is the catalogue's mistake (an error); under a variant it is the
    variant's, and the expression is false (every such move breaks the property)."""
    scope = move_scope(spec, (rule_name,), where)
    rule = spec.rule(rule_name)
    lets = dict(rule.lets)
    reveals = {name: n.replace_names(node, "let", lets) for name, node in rule.reveals}
    broken: Node = n.Lit(BOOL, False)
    if set(reveals) != set(shows):
        if spec.overlays:
            return broken
        raise SpecError(f"rule '{rule_name}' reveals {', '.join(sorted(reveals)) or 'nothing'}; the property "
                        f"expects {', '.join(sorted(shows)) or 'nothing'}", where)
    parts: list[Node] = []
    for name, text in shows.items():
        try:
            expected = parse(substitute_facts(str(text), facts, counts), scope, where, reveals[name].type)
        except SpecError:
            if spec.overlays:
                return broken
            raise
        parts.append(n.Compare(BOOL, "==", reveals[name], expected))
    if not parts:
        return n.Lit(BOOL, True)
    return parts[0] if len(parts) == 1 else n.BoolOp(BOOL, "and", tuple(parts))


def _overlay_line(path: str, name: str) -> int | None:
    """The line of a variant file that changes property `name` (None if not found)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for needle in (f"[properties.{name}]", f"{name} ="):
        for number, text in enumerate(lines, start=1):
            if text.strip().startswith(needle):
                return number
    return None


def _adapt(spec: Spec, entry: dict[str, Any], changed: set[str]) -> bool:
    """Fit a catalogue entry to a variant that plays fewer player counts or has removed a
    rule the entry's `on` names: the counts and rules it lacks are left out, and an entry
    with none left does not apply (False). What the variant itself wrote is not adapted:
    its mistakes are reported; nor is the catalogue under rules without overlays, where a
    rule name `on` does not know is a misspelling, not a removed rule."""
    if "players" not in changed and entry.get("players") is not None:
        try:
            wanted = parse_players(entry["players"], spec, Location(), strict=False)
        except SpecError:
            wanted = ()
        if not wanted:
            return False
        entry["players"] = list(wanted)
    if "on" not in changed and entry.get("on") and spec.overlays:   # the rules themselves: a wrong name is an error
        names = {rule.name for rule in spec.rules}
        kept = [rule for rule in entry["on"] if rule in names]
        if not kept and entry.get("kind") not in PERMISSIONS:   # gone rules allow nothing: refuted
            return False
        entry["on"] = kept
    return True


def _property(spec: Spec, entry: dict[str, Any], where: Location, facts: dict[str, Fact] | None = None) -> Property:
    allowed = {"name", "kind", "description", "rules", "players", "expect", "state", "move", "on", "report", "class",
               "shows"}
    unknown = set(entry) - allowed
    if unknown:
        raise SpecError(f"unknown key '{sorted(unknown)[0]}'; a property has {', '.join(sorted(allowed))}", where)
    name = str(entry.get("name", ""))
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise SpecError("a property name is lower_case_with_underscores", where)
    kind = entry.get("kind")
    if kind not in KINDS:
        raise SpecError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}", where)
    expect = entry.get("expect", "holds")
    if expect not in EXPECTS:
        raise SpecError(f"expect must be holds or fails, got {expect!r}", where)
    rule_ids = tuple(str(r) for r in entry.get("rules", []))
    for rule_id in rule_ids:
        if rule_id not in spec.rulebook:
            raise SpecError(f"'{rule_id}' is not a rule ID of RULES.md", where)
    group = entry.get("class", "conformance")
    if group not in CLASSES:
        raise SpecError(f"class must be conformance or soundness, got {group!r}", where)
    counts = parse_players(entry.get("players"), spec, where)
    if "shows" in entry and kind != "shows":
        raise SpecError(f"shows = {{...}} belongs to a shows property, not to a {kind} one", where)
    state = move = None
    on: tuple[str, ...] = ()
    text = ""
    if kind in ("always", "sometimes", "never"):
        if ("state" in entry) == ("move" in entry):
            raise SpecError(f"a {kind} property has exactly one of state = \"...\" or move = \"...\"", where)
        if "state" in entry:
            text = str(entry["state"])
            state = parse(substitute_facts(text, facts or {}, counts), state_scope(spec), where, BOOL)
        else:
            on = tuple(str(r) for r in entry.get("on", []))
            if not on:
                raise SpecError("a move property needs on = [rule names]", where)
            text = str(entry["move"])
            move = _with_actor(spec, on, parse(substitute_facts(text, facts or {}, counts),
                                               move_scope(spec, on, where, actor=True), where, BOOL), where)
    elif kind in PERMISSIONS:
        if "state" not in entry or "move" not in entry:
            raise SpecError(f"an {kind} property has state = \"...\" (where) and move = \"...\" (which moves)",
                            where)
        text = str(entry["state"])
        state = parse(substitute_facts(text, facts or {}, counts), state_scope(spec), where, BOOL)
        on = tuple(str(r) for r in entry.get("on", []))
        if "on" not in entry:
            raise SpecError(f"an {kind} property needs on = [rule names]", where)
        # No rule left (a variant removed them all): nothing is allowed, whatever the move says.
        move = (parse(substitute_facts(str(entry["move"]), facts or {}, counts), move_scope(spec, on, where), where,
                      BOOL) if on else parse("False", state_scope(spec), where, BOOL))
    elif kind == "shows":
        on = tuple(str(r) for r in entry.get("on", []))
        shows = entry.get("shows")
        if len(on) != 1 or not isinstance(shows, dict) or "state" in entry or "move" in entry:
            raise SpecError('a shows property has on = ["rule"] (one rule) and shows = { NAME = "expression" } '
                            '(an empty table: the move shows nothing)', where)
        text = ", ".join(f"{key} = {value}" for key, value in shows.items()) or "nothing"
        move = _shown(spec, on[0], {str(k): v for k, v in shows.items()}, facts or {}, counts, where)
    elif "state" in entry or "move" in entry:
        raise SpecError(f"a {kind} property takes no expression", where)
    return Property(name, str(kind), str(entry.get("description", "")), rule_ids,
                    counts, str(expect), state, move, on, text, where,
                    str(entry.get("report", "")), str(group))
