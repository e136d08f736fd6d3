"""Merge a variant overlay into the TOML of the rules it extends, checking every override.

An overlay (spec/VARIANTS.md) changes what exists in top-level sections — `[constants]`,
`[tables]`, `[state]`, `[definitions]`, `[enums]`, `[[rule]]`, `[[requirement]]`,
`remove_rules` — and introduces what is new only under `[add]`: `[add.constants]`,
`[add.tables]`, `[add.state]`, `[add.definitions]`, `[add.enums]`, `[[add.rule]]`. So a
misspelt name is never silently a new thing: overriding what does not exist, or adding
what already does, is an error naming the overlay file, the line and the name, with a
"did you mean". `[settings]` (spec/settings.py) are turned into overrides first;
`[expect]` and `[properties]` are checked against the property catalogue and kept for
the checkers. Nothing here parses an expression: the loader's builder does that for the
merged result, and reports its errors at the overlay line that introduced the text.
"""

from __future__ import annotations

import bisect
import difflib
import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import SpecError, read_toml
from .lang.limits import MAX_ENTRIES

SECTIONS = ("constants", "tables", "state", "definitions", "enums", "public", "view")
"""Sections whose entries are overridden by key (top level) or added (under [add])."""

OVERLAY_KEYS = ("extends", "name", "description", "settings", *SECTIONS, "rule", "requirement",
                "remove_rules", "add", "expect", "properties")
FIELD_KEYS = ("type", "init", "range", "seen")
REQUIREMENT_KEYS = ("rule", "id", "when", "why", "why_de", "drop", "add", "index")
EXPECTS = ("holds", "fails")
PROPERTY_KEYS = ("name", "kind", "description", "rules", "players", "expect", "state", "move", "on", "report")
PROPERTIES_FILE = Path(__file__).parent / "properties.toml"


@dataclass(slots=True)
class Source:
    """A file's text, to turn a key or a value back into a line number."""

    path: str
    lines: list[str]
    _text: str | None = None
    _starts: list[int] | None = None

    def line_of(self, needle: str, start: int = 1) -> int | None:
        """The first line at or after `start` that contains `needle`.

        Searched in the joined text (a needle never holds a line break), so that finding
        the line of each of a thousand keys in a large file stays fast."""
        if self._text is None or self._starts is None:
            self._text = "\n".join(self.lines)
            self._starts = list(itertools.accumulate((len(line) + 1 for line in self.lines), initial=0))
        if "\n" in needle or not 1 <= max(start, 1) <= len(self.lines):
            return None
        found = self._text.find(needle, self._starts[max(start, 1) - 1])
        return None if found < 0 else bisect.bisect_right(self._starts, found)

    def line_of_key(self, section: str, key: str) -> int | None:
        """The line that sets `key` of `section` (`key = `, `[section.key]`, or the key quoted)."""
        return (self.line_of(f"[{section}.{key}]") or self.line_of(f"{key} =") or self.line_of(f'"{key}" =')
                or self.line_of(f"{key}=") or self.line_of(key))

    def at(self, line: int | None) -> str:
        """`path:line` (or just the path)."""
        return f"{self.path}:{line}" if line else self.path


@dataclass(slots=True)
class Raw:
    """The merged TOML of a spec and its overlays, with where each piece came from."""

    name: str
    description: str
    source: str
    data: dict[str, Any]
    origin: dict[str, Source] = field(default_factory=dict)        # "state:F", "definitions:D" -> file
    rule_sources: dict[str, list[Source]] = field(default_factory=dict)  # rule name -> files, newest first
    extends: list[str] = field(default_factory=list)
    overlays: list[Source] = field(default_factory=list)            # the overlay files, outermost last
    base_types: dict[str, str] = field(default_factory=dict)         # "definitions:D" -> text before overrides


def _check_sizes(data: dict[str, Any], source: Source, prefix: str) -> None:
    """Refuse a section of more than `MAX_ENTRIES` entries before any is looked at."""
    for section, entries in data.items():
        if isinstance(entries, (dict, list)) and len(entries) > MAX_ENTRIES:
            raise SpecError(f"{source.path}: [{prefix}{section}] has {len(entries):,} entries; a rule set has at most "
                            f"{MAX_ENTRIES:,} in each section")


def close(word: str, options: Any) -> str:
    """`. Did you mean 'x'?` for the closest option, or nothing."""
    found = difflib.get_close_matches(str(word), [str(o) for o in options], n=1)
    return f". Did you mean '{found[0]}'?" if found else ""


def catalogue_names() -> list[str]:
    """The names of the properties in spec/properties.toml (read without checking them)."""
    try:
        data, _ = read_toml(PROPERTIES_FILE)
    except SpecError:
        return []
    from .order import entry_names      # order imports the loader, which imports this module

    return [str(entry.get("name")) for entry in data.get("property", [])] + entry_names(data)


def apply_overlay(raw: Raw, data: dict[str, Any], source: Source) -> None:
    """Apply a variant's overrides and additions to the merged TOML of what it extends."""
    _check_sizes(data, source, "")
    if isinstance(data.get("add"), dict):
        _check_sizes(data["add"], source, "add.")
    for key in data:
        if key not in OVERLAY_KEYS:
            raise SpecError(f"{source.at(source.line_of(key))}: unknown section '{key}' in a variant"
                            f"{close(key, OVERLAY_KEYS) or '.'} A variant has {', '.join(OVERLAY_KEYS)}.")
    raw.overlays.append(source)
    if "settings" in data:
        from .settings import settings_overlay

        settings = data["settings"]
        if not isinstance(settings, dict):
            raise SpecError(f"{source.at(source.line_of('settings'))}: [settings] is a table of name = value")
        generated = settings_overlay(settings, lambda key: source.at(source.line_of_key("settings", key)), raw.data)
        _merge_sections(raw, generated, source)
    _merge_sections(raw, data, source)
    additions = data.get("add", {})
    if not isinstance(additions, dict):
        raise SpecError(f"{source.at(source.line_of('add'))}: [add] holds tables: "
                        f"{', '.join(f'add.{s}' for s in SECTIONS)} and [[add.rule]]")
    _add_sections(raw, additions, source)
    _merge_rules(raw, data.get("rule", []), source)
    _add_rules(raw, additions.get("rule", []), source)
    _remove_rules(raw, data.get("remove_rules", []), source)
    for entry in _list_of_tables(data.get("requirement", []), "requirement", source):
        _override_requirement(raw, entry, source)
    _merge_expectations(raw, data, source)


def _list_of_tables(value: Any, what: str, source: Source) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(entry, dict) for entry in value):
        raise SpecError(f"{source.at(source.line_of(what))}: write each {what} as a [[{what}]] table")
    return value


def _table(value: Any, section: str, source: Source) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise SpecError(f"{source.at(source.line_of(section))}: [{section}] must be a table of name = value")
    return value


def _merge_sections(raw: Raw, data: dict[str, Any], source: Source) -> None:
    """Top-level sections: every key must name something the base already has."""
    base = raw.data
    for section in SECTIONS:
        for key, value in _table(data.get(section, {}), section, source).items():
            where = source.at(source.line_of_key(section, key))
            known = base.setdefault(section, {})
            if section == "constants" and key not in known and isinstance(base.get("tables", {}).get(key), dict):
                # A per-player-count table becomes one number for every count.
                del base["tables"][key]
            elif section == "tables" and key not in known and key in base.get("constants", {}):
                # A constant becomes per player count (e.g. a deck size that depends on it).
                del base["constants"][key]
            elif key not in known:
                raise SpecError(f"{where}: {section}.{key}: the rules extended have no {_noun(section)} "
                                f"'{key}' to override{close(key, known) or '.'} To introduce a new one, write it "
                                f"under [add.{section}].")
            if section == "state":
                if not isinstance(value, dict):
                    raise SpecError(f"{where}: state.{key}: a field override is a table of "
                                    f"{', '.join(FIELD_KEYS)}")
                unknown = [k for k in value if k not in FIELD_KEYS]
                if unknown:
                    raise SpecError(f"{where}: state.{key}: unknown key '{unknown[0]}'{close(unknown[0], FIELD_KEYS)}; "
                                    f"a field has {', '.join(FIELD_KEYS)}")
                merged = dict(known[key]) if isinstance(known.get(key), dict) else {}
                merged.update(value)
                value = merged
            if section == "definitions":
                raw.base_types.setdefault(f"definitions:{key}", str(known[key]))
            known[key] = value
            raw.origin[f"{section}:{key}"] = source


def _add_sections(raw: Raw, additions: dict[str, Any], source: Source) -> None:
    """`[add.X]`: every key must be new (an enum that exists gets the members appended)."""
    base = raw.data
    for key in additions:
        if key not in (*SECTIONS, "rule"):
            line = source.line_of(f"[add.{key}") or source.line_of(f"[[add.{key}") or source.line_of_key("add", key)
            raise SpecError(f"{source.at(line)}: unknown section 'add.{key}'"
                            f"{close(key, (*SECTIONS, 'rule')) or '.'} [add] has {', '.join(SECTIONS)} and rule.")
    for section in SECTIONS:
        for key, value in _table(additions.get(section, {}), f"add.{section}", source).items():
            where = source.at(source.line_of_key(f"add.{section}", key))
            known = base.setdefault(section, {})
            other = {"constants": "tables", "tables": "constants"}.get(section)
            if section == "enums" and key in known:
                if not isinstance(value, list):
                    raise SpecError(f"{where}: add.enums.{key}: list the members to add to the enum")
                twice = [member for member in value if member in known[key]]
                if twice:
                    raise SpecError(f"{where}: add.enums.{key}: the enum already has '{twice[0]}'")
                known[key] = list(known[key]) + list(value)
            elif key in known or (other and key in base.get(other, {})):
                raise SpecError(f"{where}: add.{section}.{key}: the rules extended already have a "
                                f"{_noun(section)} '{key}'. To change it, write it under [{section}].")
            else:
                if section == "state" and isinstance(value, dict):
                    unknown = [k for k in value if k not in FIELD_KEYS]
                    if unknown:
                        raise SpecError(f"{where}: add.state.{key}: unknown key '{unknown[0]}'; a field has "
                                        f"{', '.join(FIELD_KEYS)}")
                known[key] = value
            raw.origin[f"{section}:{key}"] = source


def _noun(section: str) -> str:
    return {"constants": "constant", "tables": "table", "state": "state field", "definitions": "definition",
            "enums": "enum", "public": "public count", "view": "view item"}[section]


def _rules_by_name(raw: Raw) -> dict[str, dict[str, Any]]:
    return {str(rule.get("name")): rule for rule in raw.data.setdefault("rule", [])}


def _merge_rules(raw: Raw, entries: Any, source: Source) -> None:
    """`[[rule]]`: keys replace the base rule's, `effect` merges field by field."""
    by_name = _rules_by_name(raw)
    for rule in _list_of_tables(entries, "rule", source):
        name = str(rule.get("name"))
        line = source.line_of(f'name = "{name}"') or source.line_of("[[rule]]")
        if "name" not in rule:
            raise SpecError(f"{source.at(line)}: a [[rule]] override names the rule it changes: name = \"...\"")
        if name not in by_name:
            raise SpecError(f"{source.at(line)}: rule '{name}': the rules extended have no rule of that name to "
                            f"override{close(name, by_name) or '.'} To add a new rule, write it as [[add.rule]].")
        merged = by_name[name]
        # An override that rewrites the English (`says`, a requirement's `why`) without its
        # German drops the base's German, which would say what the rule no longer does;
        # German output then shows the English, marked as such.
        if "says" in rule and "says_de" not in rule:
            merged.pop("says_de", None)
        if "summary" in rule and "summary_de" not in rule:
            merged.pop("summary_de", None)
        for key, value in rule.items():
            if key == "effect" and isinstance(value, dict) and isinstance(merged.get("effect"), dict):
                merged["effect"] = {**merged["effect"], **value}
            else:
                merged[key] = value
        raw.rule_sources.setdefault(name, []).insert(0, source)


def _add_rules(raw: Raw, entries: Any, source: Source) -> None:
    """`[[add.rule]]`: a complete new rule."""
    by_name = _rules_by_name(raw)
    for rule in _list_of_tables(entries, "add.rule", source):
        name = str(rule.get("name"))
        line = source.line_of(f'name = "{name}"') or source.line_of("[[add.rule]]")
        if "name" not in rule:
            raise SpecError(f"{source.at(line)}: a new rule needs a name")
        if name in by_name:
            raise SpecError(f"{source.at(line)}: add.rule '{name}': the rules extended already have a rule of "
                            f"that name. To change it, write it as [[rule]].")
        missing = [key for key in ("phase", "actor", "requires", "effect") if key not in rule]
        if missing:
            raise SpecError(f"{source.at(line)}: add.rule '{name}': a new rule needs {', '.join(missing)}")
        raw.data["rule"].append(dict(rule))
        by_name[name] = raw.data["rule"][-1]
        raw.rule_sources[name] = [source]


def _remove_rules(raw: Raw, names: Any, source: Source) -> None:
    if not isinstance(names, list):
        raise SpecError(f"{source.at(source.line_of('remove_rules'))}: remove_rules is a list of rule names")
    by_name = _rules_by_name(raw)
    for name in names:
        if name not in by_name:
            raise SpecError(f"{source.at(source.line_of(str(name)))}: remove_rules: the rules extended have no "
                            f"rule '{name}' to remove{close(str(name), by_name)}")
        raw.data["rule"].remove(by_name.pop(name))


def _override_requirement(raw: Raw, entry: dict[str, Any], source: Source) -> None:
    """`[[requirement]]`: change, drop or add one requirement of a rule, by rule ID."""
    rules = _rules_by_name(raw)
    name, rule_id = str(entry.get("rule")), str(entry.get("id"))
    line = source.line_of(f'"{rule_id}"') or source.line_of(f'"{name}"')
    where = f"{source.at(line)}: requirement {rule_id} of rule '{name}'"
    unknown = [key for key in entry if key not in REQUIREMENT_KEYS]
    if unknown:
        raise SpecError(f"{where}: unknown key '{unknown[0]}'{close(unknown[0], REQUIREMENT_KEYS)}; "
                        f"a [[requirement]] has {', '.join(REQUIREMENT_KEYS)}")
    if "rule" not in entry or "id" not in entry:
        raise SpecError(f"{where}: a [[requirement]] names the rule (rule = \"...\") and the rule ID (id = \"R-..\")")
    if name not in rules:
        raise SpecError(f"{where}: the rules extended have no rule '{name}' to change{close(name, rules)}")
    requires: list[dict[str, Any]] = [dict(req) for req in rules[name].setdefault("requires", [])]
    rules[name]["requires"] = requires
    raw.rule_sources.setdefault(name, []).insert(0, source)
    if entry.get("add"):
        if "when" not in entry or "why" not in entry:
            raise SpecError(f"{where}: a new requirement (add = true) needs when and why")
        requires.append({key: entry[key] for key in ("when", "why", "why_de") if key in entry} | {"rule": rule_id})
        return
    matching = [index for index, req in enumerate(requires) if req.get("rule") == rule_id]
    if not matching:
        cited = sorted({str(req.get("rule")) for req in requires})
        raise SpecError(f"{where}: rule '{name}' has no requirement citing {rule_id} to change; it cites "
                        f"{', '.join(cited) or 'nothing'} (to add one, write add = true)")
    index = entry.get("index", 0)
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(matching):
        raise SpecError(f"{where}: rule '{name}' has {len(matching)} requirement(s) citing {rule_id}; "
                        f"index must be 0..{len(matching) - 1}")
    target = matching[index]
    if entry.get("drop"):
        del requires[target]
        return
    if "when" not in entry and "why" not in entry and "why_de" not in entry:
        raise SpecError(f"{where}: say what changes: when, why, why_de, or drop = true")
    if "why" in entry and "why_de" not in entry:
        requires[target].pop("why_de", None)
    for key in ("when", "why", "why_de"):
        if key in entry:
            requires[target][key] = entry[key]


def _merge_expectations(raw: Raw, data: dict[str, Any], source: Source) -> None:
    """`[properties]` (key overrides or new properties) and `[expect]` (name = holds | fails)."""
    base = raw.data
    known = set(catalogue_names()) | set(base.get("properties", {}))
    merged: dict[str, dict[str, Any]] = base.setdefault("properties", {})
    for name, changes in _table(data.get("properties", {}), "properties", source).items():
        where = source.at(source.line_of_key("properties", name))
        if not isinstance(changes, dict):
            raise SpecError(f"{where}: properties.{name}: write the keys to change as a table "
                            f"[properties.{name}]")
        unknown = [key for key in changes if key not in PROPERTY_KEYS or key == "name"]
        if unknown:
            raise SpecError(f"{where}: properties.{name}: unknown key '{unknown[0]}'"
                            f"{close(unknown[0], PROPERTY_KEYS)}; a property has {', '.join(PROPERTY_KEYS[1:])}")
        if name not in known and "kind" not in changes:
            raise SpecError(f"{where}: properties.{name}: no property '{name}' in the catalogue to override"
                            f"{close(name, known)}; a new property needs at least kind")
        if "expect" in changes and changes["expect"] not in EXPECTS:
            raise SpecError(f"{where}: properties.{name}.expect must be holds or fails, got {changes['expect']!r}")
        merged[name] = {**merged.get(name, {}), **changes}
        known.add(name)
        raw.origin[f"properties:{name}"] = source
    for name, verdict in _table(data.get("expect", {}), "expect", source).items():
        where = source.at(source.line_of_key("expect", name))
        if name not in known:
            raise SpecError(f"{where}: expect.{name}: no property '{name}' in the catalogue or this variant"
                            f"{close(name, known)}")
        if verdict not in EXPECTS:
            raise SpecError(f"{where}: expect.{name} must be \"holds\" or \"fails\", got {verdict!r}")
        merged[name] = {**merged.get(name, {}), "expect": verdict}
        raw.origin[f"properties:{name}"] = source
