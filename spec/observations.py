"""Who sees what: the observations of a rules file, checked on load.

Secret Hitler is a game of hidden roles, so the rules say, besides what a move does, what
it shows and to whom (RULES.md R-S5, R-L1-R-L4, R-X3, R-X5). A rules file says it in three
places, all data:

- every state field is `seen = "public"` (the whole table sees it at every moment) or
  `seen = "hidden"` (nobody, unless a move shows it);
- `[public]` names what the table can count though what is counted is hidden (the size of
  the pile and of the discards);
- each rule's `shows` lists what its move shows, to whom (`to`, a seat set) and what
  (`what`, which may read `viewer`, the seat shown it, and `after_FIELD`); its `hidden`
  lists what it changes that nobody is shown. A rule's `reveals` (an investigation's
  party) is shown to the rule's actor.

The check that makes the declaration complete: every parameter of a rule and every hidden
field its effect changes must be named by an entry's `of` (by default what the entry's
`what` reads of them) or by `hidden`. A rule that changes hidden state without declaring
who learns of it is refused with its file and line. `[view]` says what the engine shows a
seat at a moment; engine/observe.py compiles all of it, and verify/knowledge proves the
view a function of what the seat was shown.
"""

from __future__ import annotations

from typing import Any, Callable

from .errors import Location, SpecError
from .lang.check import Scope, parse
from .lang.nodes import Name, Node, walk
from .lang.types import SEAT, SEATS, Type, parse_type
from .model import Field, Param, Show, ViewItem

SEEN = ("public", "hidden")
"""What a field's `seen` may say."""
VIEWER = "viewer"
"""The name of the seat a value is shown to, in `what` (each player's own role)."""
SHOW_KEYS = ("rule", "to", "what", "of", "type")
VIEW_KEYS = ("rule", "to", "what", "type")

Where = Callable[[str | None, str], Location]
"""A function giving the location of a needle in the rules file, for a named part."""


def field_seen(name: str, entry: dict[str, Any], where: Location) -> str:
    """A field's `seen`: it must say, since a field nobody declared could leak."""
    seen = entry.get("seen")
    if seen not in SEEN:
        got = "nothing" if seen is None else repr(seen)
        raise SpecError(f"field '{name}' says {got} for seen; write seen = \"public\" (the whole table sees it) "
                        f"or seen = \"hidden\" (nobody, unless a rule's shows reveals it)", where)
    return str(seen)


def _rule_id(value: object, rulebook: dict[str, str], where: Location) -> str:
    if not isinstance(value, str) or value not in rulebook:
        raise SpecError(f"{value!r} is not a rule ID of RULES.md: say which rule lets the seat see it", where)
    return value


def rule_shows(name: str, entry: dict[str, Any], scope: Scope, after: Scope, params: list[Param],
               effect: list[tuple[str, Node]], hidden_fields: frozenset[str], rulebook: dict[str, str],
               where: Where) -> tuple[tuple[Show, ...], tuple[str, ...]]:
    """A rule's `shows` and `hidden`, checked complete (module docstring)."""
    if any(param.name == VIEWER for param in params):
        raise SpecError(f"parameter '{VIEWER}' is reserved: `shows` names the seat shown a value so",
                        where("params", f"rule '{name}' params"))
    param_names = [param.name for param in params]
    changed = [field for field, _ in effect if field in hidden_fields]
    coverable = set(param_names) | set(changed)
    what_scope = after.child()
    what_scope.add(VIEWER, "param", SEAT)
    entries = entry.get("shows", [])
    if not isinstance(entries, list):
        raise SpecError("shows is a list of { rule = \"R-..\", to = SEATS, what = EXPR }",
                        where("shows", f"rule '{name}' shows"))
    shows = []
    for number, item in enumerate(entries):
        label = f"rule '{name}' shows[{number}]"
        text = item.get("what") if isinstance(item, dict) else None
        at = where(str(text) if text else "shows", label)
        rule_id, to, what = _entry(item, "an entry of shows is { rule = \"R-..\", to = SEATS, what = EXPR } "
                                          "(and of = [...])", "an entry of shows", SHOW_KEYS, scope, what_scope,
                                   rulebook, at)
        assert isinstance(item, dict)
        if "of" in item:
            of = _names(item["of"], f"{label} of", at)
        else:
            of = _reads(what, coverable)
        for covered in of:
            if covered not in coverable:
                raise SpecError(f"of names '{covered}', which this move neither chooses nor changes among the hidden "
                                f"fields ({', '.join(sorted(coverable)) or 'it has none'})", at)
        shows.append(Show(rule_id, to, what, tuple(of), at))
    hidden = _names(entry.get("hidden", []), f"rule '{name}' hidden", where("hidden", f"rule '{name}' hidden"))
    for item_name in hidden:
        if item_name not in coverable:
            raise SpecError(f"hidden names '{item_name}', which this move neither chooses nor changes among the hidden "
                            f"fields ({', '.join(sorted(coverable)) or 'it has none'})",
                            where("hidden", f"rule '{name}' hidden"))
    covered_all = {covered for show in shows for covered in show.of} | set(hidden)
    for missing in [*param_names, *changed]:
        if missing not in covered_all:
            kind = "chooses the parameter" if missing in param_names else "changes the hidden field"
            raise SpecError(f"rule '{name}' {kind} '{missing}' but does not say who sees it: name it in a shows "
                            f"entry's `of` (who is shown what) or in `hidden` (nobody is)",
                            where(_needle(entry, missing in changed), f"rule '{name}' shows"))
    return tuple(shows), tuple(hidden)


def _entry(item: object, shape: str, kind: str, keys: tuple[str, ...], scope: Scope, what_scope: Scope,
           rulebook: dict[str, str], at: Location) -> tuple[str, Node, Node]:
    """An entry of `shows` or `[view]` checked: its rule ID, `to` (a seat set) and `what`."""
    if not isinstance(item, dict) or not {"rule", "to", "what"} <= set(item):
        raise SpecError(shape, at)
    unknown = sorted(set(item) - set(keys))
    if unknown:
        raise SpecError(f"unknown key '{unknown[0]}'; {kind} has {', '.join(keys)}", at)
    rule_id = _rule_id(item["rule"], rulebook, at)
    to = parse(str(item["to"]), scope, at, SEATS)
    what = parse(str(item["what"]), what_scope, at, _type(item, scope, at))
    return rule_id, to, what


def _type(item: dict[str, Any], scope: Scope, where: Location) -> Type | None:
    """An entry's declared `type` (a value that is an enum member, such as a role, needs one)."""
    if "type" not in item:
        return None
    found = parse_type(str(item["type"]), scope.enums)
    if found is None:
        raise SpecError(f"unknown type {item['type']!r}; expected bool, int, seat, seats, tiles or an enum "
                        f"({', '.join(scope.enums)})", where)
    return found


def _needle(entry: dict[str, Any], changed: bool) -> str:
    """Where a missing declaration is reported: at the rule's `hidden` or `shows` where it
    has them (the file that last wrote them), else at what needs declaring."""
    for key in ("hidden", "shows"):
        if key in entry:
            return key
    return "effect" if changed else "params"


def _names(value: object, label: str, where: Location) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise SpecError(f"{label} is a list of names", where)
    return tuple(value)


def _reads(node: Node, coverable: set[str]) -> tuple[str, ...]:
    """What of the move an entry's `what` reads: its parameters and `after_FIELD` of the
    hidden fields the rule changes (an entry's default `of`)."""
    out: dict[str, None] = {}
    for item in walk(node):
        if isinstance(item, Name):
            name = item.name[len("after_"):] if item.kind == "after" else item.name
            if item.kind in ("param", "after") and name in coverable:
                out.setdefault(name, None)
    return tuple(out)


def public_counts(data: dict[str, Any], scope: Scope, where: Where) -> dict[str, Node]:
    """`[public]`: name -> an expression over the state the table can count at every moment."""
    table = data.get("public", {})
    if not isinstance(table, dict):
        raise SpecError("[public] is a table of name = expression", where("[public]", "public"))
    out: dict[str, Node] = {}
    for name, text in table.items():
        out[str(name)] = parse(str(text), scope, where(f"{name} =", f"public.{name}"))
    return out


def view_items(data: dict[str, Any], scope: Scope, rulebook: dict[str, str], where: Where) -> tuple[ViewItem, ...]:
    """`[view]`: what the engine shows a seat, item by item."""
    table = data.get("view", {})
    if not isinstance(table, dict):
        raise SpecError("[view] is a table of [view.NAME] entries", where("[view", "view"))
    what_scope = scope.child()
    what_scope.add(VIEWER, "param", SEAT)
    items = []
    for name, item in table.items():
        at = where(f"[view.{name}]", f"view.{name}")
        rule_id, to, what = _entry(item, "a [view.NAME] entry is rule = \"R-..\", to = SEATS, what = EXPR",
                                   "a [view.NAME] entry", VIEW_KEYS, scope, what_scope, rulebook, at)
        items.append(ViewItem(str(name), rule_id, to, what, at))
    return tuple(items)


def hidden_names(fields: tuple[Field, ...]) -> frozenset[str]:
    """The names of the hidden fields."""
    return frozenset(field.name for field in fields if field.seen == "hidden")
