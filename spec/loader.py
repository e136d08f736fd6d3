"""Load a rules file (and the variant overlays it extends) into a checked `Spec`.

TOML is read with the standard library. A variant names what it `extends` and overrides
parts of it: constants and tables by key, state fields and definitions by name, rules by
name (the keys it gives replace the base rule's, `effect` merges key by key), and single
requirements by rule and rule ID (`[[requirement]]`); new things go under `[add]`
(spec/overlay.py merges and checks an overlay; spec/VARIANTS.md is the format). Every
expression is then parsed and type-checked; any mistake is a `SpecError` naming the
file, the line and the field.
"""

from __future__ import annotations

import builtins
import copy
import difflib
import functools
import hashlib
import json
import keyword
import re
from pathlib import Path
from typing import Any

from .errors import Location, SpecError, one_line, read_toml, shown
from . import identity
from .lang.check import Scope, parse
from .lang.limits import MAX_ENTRIES
from .lang.nodes import Binary, Lit, Name, Node
from .lang.types import BOOL, INT, SEATS, TILE_MEMBERS, TILES, Type, parse_type
from .moves import check_word, check_words
from .overlay import Raw, Source, apply_overlay, close as _close
from .ruletext import RuleText, load_texts
from .model import ACTOR_KINDS, ROLES, SINGLE_ROLES, Domain, Field, Param, Requirement, Rule, Spec, Template
from . import observations

MAX_PATH_CHARS = 4096
"""Longest rules name or path accepted (PATH_MAX on Linux)."""
SPEC_DIR = Path(__file__).parent
RULES_DIR = SPEC_DIR / "rules"
VARIANTS_DIR = SPEC_DIR / "variants"
RULE_ID = re.compile(r"^(R-[SELXVW]\d+|D-\d+)$")
HOLE = re.compile(r"\{([^{}]+)\}")
NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")
"""Every name a spec gives (rules, constants, tables, enums and their members, fields,
definitions, parameters, lets, reveals): lower_case_with_underscores, at most 64 characters."""
RESERVED = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | frozenset(dir(builtins))
"""Names a spec may not take although they match NAME: Python's keywords and builtins. The
generated engine code refers to spec names by position only, so this is a second wall,
and it keeps every name a plain word in traces, reports and the Z3 model alike."""
ENDING = (("winner", "team"), ("how", "how"))
"""The fields the engine reads the outcome from (`Game.winner`, `Game.how`), each of an
enum with a member `none` while the game goes on (R-W5)."""


def check_name(name: object, kind: str, where: Location) -> str:
    """`name` if it is a plain spec name (NAME, not RESERVED); a `SpecError` naming the
    `kind` of thing and the place otherwise. Names are data: nothing a spec names is run."""
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise SpecError(f"{kind} name {shown(str(name))} is not lower_case_with_underscores (a letter, then "
                        f"letters, digits or _; at most 64 characters)", where)
    if name in RESERVED:
        raise SpecError(f"{kind} name '{name}' is reserved (a Python keyword or builtin); choose another", where)
    return name


def resolve(name_or_path: str) -> Path:
    """The file of a spec named `standard`, a variant name (`rebalance`, `mistakes/tie_passes`
    or just `tie_passes`), or a path."""
    if len(name_or_path) > MAX_PATH_CHARS or "\0" in name_or_path:
        raise SpecError(f"no such rules file: {shown(name_or_path)}; expected a rules name or a path of at most "
                        f"{MAX_PATH_CHARS:,} characters")
    path = Path(name_or_path)
    if path.suffix == ".toml" or _exists(path):
        if not _is_file(path):
            raise SpecError(f"no such rules file: {shown(name_or_path)}")
        return path
    for folder in (RULES_DIR, VARIANTS_DIR, VARIANTS_DIR / "mistakes"):
        candidate = folder / f"{name_or_path}.toml"
        if _is_file(candidate):
            return candidate
    known = known_specs()
    raise SpecError(f"no rules or variant named {shown(name_or_path)}{_close(name_or_path, known)}; "
                    f"known: {', '.join(known)}")


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:                              # a name too long for the file system
        return False


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


def _line_of(source: Source, needle: str, start: int = 1) -> int | None:
    """The line of `needle`; for `name =`, also of the name quoted (`"name" =`), the form a
    key takes when it is not a bare word."""
    line = source.line_of(needle, start)
    if line is None and needle.endswith(" ="):
        line = source.line_of(f'"{needle[:-2]}"', start) or source.line_of(f"'{needle[:-2]}'", start)
    return line


def known_specs() -> list[str]:
    """The names of the shipped rules and variants (mistakes under `mistakes/`)."""
    names = [p.stem for folder in (RULES_DIR, VARIANTS_DIR) for p in sorted(folder.glob("*.toml"))]
    names += [f"mistakes/{p.stem}" for p in sorted((VARIANTS_DIR / "mistakes").glob("*.toml"))]
    return names


def _read(path: Path) -> tuple[dict[str, Any], Source]:
    data, text = read_toml(path)
    return data, Source(str(path), text.splitlines())


def _load_raw(path: Path, chain: tuple[str, ...] = ()) -> Raw:
    data, source = _read(path)
    if str(path.resolve()) in chain:
        raise SpecError(f"{path}: 'extends' forms a cycle")
    return _raw_from(data, source, path.parent, chain + (str(path.resolve()),), path.stem)


@functools.lru_cache(maxsize=1)
def _shipped() -> frozenset[str]:
    return identity.shipped_names(RULES_DIR, VARIANTS_DIR)


def _check_own_name(spec: Spec) -> None:
    """Refuse a rules file of the user's that takes a shipped rule set's name: reports,
    baselines and caches are filed by the name, so a variant calling itself `standard`
    would be reported and compared as the standard rules (spec/identity.py). Checked once
    the rules are otherwise sound, so a broken file is told its first mistake first."""
    if identity.base_name(spec.name) not in _shipped():
        return
    file = users_file(spec)
    if file is None:
        return                                  # a shipped file, a name with settings, an overlay made here
    data, source = _read(Path(file))
    if "name" in data:
        where = source.at(_line_of(source, "name =") or source.line_of("name"))
        raise SpecError(f"{where}: the rules call themselves {shown(one_line(spec.name))}, the name of a shipped "
                        f"rule set; a rules file of your own needs a name of its own, as reports and baselines "
                        f"are filed by it")
    raise SpecError(f"{source.path}: the file's name gives the rules the name {shown(spec.name)}, that of a "
                    f"shipped rule set; give them a name of their own with name = \"...\", as reports and "
                    f"baselines are filed by it")


def users_file(spec: Spec) -> str | None:
    """The file the rules were read from when it is not a shipped one (a name alone does
    not say what such rules hold: outputs name the file and the content hash), else None."""
    path = Path(spec.source)
    if not _is_file(path) or identity.is_shipped_file(path, RULES_DIR, VARIANTS_DIR):
        return None
    return spec.source


def _raw_from(data: dict[str, Any], source: Source, folder: Path, chain: tuple[str, ...], stem: str) -> Raw:
    base_name = data.get("extends")
    if base_name is None:
        if "settings" in data or "add" in data:
            raise SpecError(f"{source.path}: [settings] and [add] belong to a variant: name the rules it "
                            f"changes with extends = \"standard\"")
        raw = Raw(str(data.get("name", stem)), str(data.get("description", "")), source.path, data)
        for rule in data.get("rule", []):
            raw.rule_sources[str(rule.get("name"))] = [source]
        raw.origin["file"] = source
        return raw
    if not isinstance(base_name, str):
        raise SpecError(f"{source.at(source.line_of('extends'))}: 'extends' must name a rules file or variant")
    beside = folder / base_name   # a path is relative to the variant's own folder
    base_path = beside if (base_name.endswith(".toml") or "/" in base_name) and _is_file(beside) \
        else resolve(base_name)
    base = _load_raw(base_path, chain)
    apply_overlay(base, data, source)
    base.extends.append(base.name)
    base.name = str(data.get("name", stem))
    base.description = str(data.get("description", ""))
    base.source = source.path
    return base


SETTINGS_NAME = re.compile(r"^([A-Za-z0-9_/.-]+)\[(.*)\]$", re.DOTALL)
"""A variant with settings given inline: `custom[deck_fascist=10; powers=none,none,peek,execution,execution]`."""


def load_spec(name_or_path: str = "standard") -> Spec:
    """Load, merge and check a rules file or variant; raise `SpecError` on any mistake.

    `NAME[setting=value; ...]` loads the variant NAME with settings (spec/settings.py),
    the form the command line's `--set` produces and a saved trace names."""
    spec = _Builder(_raw_of(name_or_path), load_rulebook()).build()
    _check_own_name(spec)
    return spec


def _raw_of(name_or_path: str) -> Raw:
    """The merged TOML of a rules name: a registered overlay, a name with settings, a file."""
    registered = _REGISTERED.get(name_or_path)
    if registered is not None:
        base, data = registered
        raw = _raw_of(base)
        apply_overlay(raw, copy.deepcopy(data), Source(f"<{name_or_path}>", []))
        raw.extends.append(raw.name)
        raw.name = raw.source = name_or_path
        return raw
    match = SETTINGS_NAME.match(name_or_path)
    if match:
        from .settings import parse_assignments, settings_name

        values = parse_assignments([part for part in match.group(2).split(";") if part.strip()],
                                   f"{match.group(1)}[...]:")
        name = settings_name(match.group(1), values)
        data = {"extends": match.group(1), "name": name, "settings": values}
        source = Source(name, [])
        return _raw_from(data, source, Path("."), (), name)
    return _load_raw(resolve(name_or_path))


_REGISTERED: dict[str, tuple[str, dict[str, Any]]] = {}
"""Overlays made in this process (a temporal query's monitors, spec/temporal.py), by the
name that loads them: the base rules' name and the overlay's TOML data."""


def register_overlay(base: str, data: dict[str, Any], label: str) -> str:
    """A name under which `load_spec` (and so every engine, checker and solver that takes a
    rules name) loads the rules `base` with the overlay `data` applied, as a variant file
    would be; the same base and overlay always get the same name. The overlay is checked
    when the rules are loaded, like any variant."""
    digest = hashlib.sha256(json.dumps([base, data], sort_keys=True).encode()).hexdigest()[:12]
    name = f"{Path(base).stem if _is_file(Path(base)) else base}+{label}-{digest}"
    _REGISTERED[name] = (base, copy.deepcopy(data))
    return name



def overlay_of(name: str) -> tuple[str, dict[str, Any]] | None:
    """The base rules' name and the overlay data registered under `name` in this process
    (None for a name that is not a registered overlay): what a process started by `spawn`,
    which has no copy of this registry, needs to load the same rules (`restore_overlay`)."""
    registered = _REGISTERED.get(name)
    return None if registered is None else (registered[0], copy.deepcopy(registered[1]))


def restore_overlay(name: str, base: str, data: dict[str, Any]) -> None:
    """Register in this process the overlay another process registered as `name`
    (`overlay_of` there): the same name loads the same rules here."""
    _REGISTERED[name] = (base, copy.deepcopy(data))

LANGS = ("en", "de")
"""The languages the rule titles, move sentences and reasons are written in: English, the
rulebook's, and German, the refresher's (`[rules_de]`, `says_de`, `why_de`)."""


def load_rulebook(lang: str = "en") -> dict[str, str]:
    """The rule IDs of RULES.md with their one-line titles (spec/rulebook.toml) in `lang`:
    `[rules]` in English, `[rules_de]` in German. Every ID has a title in each language
    (a `SpecError` otherwise), so no page has to fall back to English."""
    if lang not in LANGS:
        raise SpecError(f"unknown language {shown(lang)}; the rules are written in {', '.join(LANGS)}")
    data = _rulebook_data(SPEC_DIR / "rulebook.toml")
    english = _text_table(data, "rules")
    load_texts(tuple(english))          # every ID's full text, both languages, its sources: checked once
    if lang == "en":
        return english
    own = _text_table(data, f"rules_{lang}")
    missing, extra = [i for i in english if i not in own], [i for i in own if i not in english]
    if missing or extra:
        raise SpecError(f"spec/rulebook.toml [rules_{lang}]: " + "; ".join(
            part for part in (f"no title for {', '.join(missing)}" if missing else "",
                              f"{', '.join(extra)} not in [rules]" if extra else "") if part))
    return {rule_id: own[rule_id] for rule_id in english}


def load_rule_texts() -> dict[str, RuleText]:
    """The full text of every rule ID of the rulebook, in its order (spec/ruletext.py):
    what `shrules rules`, `ask` and the book show beside a citation."""
    return load_texts(tuple(load_rulebook()))


def rule_text(rule_id: str) -> RuleText:
    """The full text of `rule_id` (written as RULES.md numbers it, case aside); a one-line
    `SpecError` with the closest IDs for one the rulebook lacks."""
    texts = load_rule_texts()
    wanted = rule_id.strip().upper()
    if wanted in texts:
        return texts[wanted]
    close = difflib.get_close_matches(wanted, list(texts), n=1)
    hint = f". Did you mean '{close[0]}'?" if close else "; `shrules rules` lists them"
    raise SpecError(f"unknown rule ID {shown(rule_id)}{hint}")


def load_values(lang: str) -> dict[str, str]:
    """How a move sentence in `lang` shows a value of the rules (an enum member, the name of
    what a move reveals): `[values_de]` of spec/rulebook.toml; empty for English, which
    shows the rules' own names."""
    if lang == "en":
        return {}
    return _text_table(_rulebook_data(SPEC_DIR / "rulebook.toml"), f"values_{lang}")


@functools.lru_cache(maxsize=4)
def _rulebook_data(path: Path) -> dict[str, Any]:
    """spec/rulebook.toml parsed once per process (every load of a spec reads its titles);
    callers get fresh dicts from `_text_table`, so nothing shared is ever changed."""
    return _read(path)[0]


def _text_table(data: dict[str, Any], section: str) -> dict[str, str]:
    """A `[section]` of plain, non-empty strings by key; a `SpecError` naming the key otherwise."""
    table = data.get(section, {})
    if not isinstance(table, dict):
        raise SpecError(f"spec/rulebook.toml [{section}] is a table of strings")
    for key, value in table.items():
        if not isinstance(value, str) or not value.strip():
            raise SpecError(f"spec/rulebook.toml [{section}] {shown(str(key))}: expected a non-empty string")
    return {str(key): str(value) for key, value in table.items()}


class _Builder:
    """Checks a merged TOML document and builds the `Spec` from it."""

    def __init__(self, raw: Raw, rulebook: dict[str, str]) -> None:
        self.raw = raw
        self.data = raw.data
        self.rulebook = rulebook
        self.file = raw.origin.get("file") or Source(raw.source, [])

    def where(self, key: str, needle: str | None = None, field: str | None = None) -> Location:
        if key.startswith("rule:"):
            return self.rule_where(key[5:], needle, field)
        source = self.raw.origin.get(key, self.file)
        line = _line_of(source, needle) if needle else None
        return Location(source.path, line, field)

    def rule_where(self, name: str, needle: str | None, field: str | None) -> Location:
        """The line of `needle` in the newest file that changed rule `name` and contains it."""
        sources = self.raw.rule_sources.get(name) or [self.file]
        first = None
        for source in sources:
            start = source.line_of(f'name = "{name}"') or source.line_of(f'rule = "{name}"') or 1
            if first is None:
                first = Location(source.path, start, field)
            line = _line_of(source, needle, start) if needle else None
            if line is not None:
                return Location(source.path, line, field)
        assert first is not None
        return first

    def build(self) -> Spec:
        """The checked spec; an error in a part of the base rules that an overlay broke says so."""
        try:
            return self._build()
        except SpecError as error:
            overlays = [source.path for source in self.raw.overlays]
            if overlays and error.where is not None and error.where.file not in overlays:
                error.message += f" (the base rules no longer check after the changes in {', '.join(overlays)})"
                error.args = (error.message,)
            raise

    def _build(self) -> Spec:
        for section in ("constants", "tables", "enums", "state", "definitions", "rule"):
            entries = self.data.get(section, {})
            if isinstance(entries, (dict, list)) and len(entries) > MAX_ENTRIES:
                raise SpecError(f"[{section}] has {len(entries):,} entries; a rule set has at most {MAX_ENTRIES:,} "
                                f"in each section", Location(self.raw.source, None, section))
        constants = self.constants()
        enums = self.enums()
        tables, table_types = self.tables(constants, enums)
        scope = Scope(enums=enums)
        for name in constants:
            scope.add(name, "constant", INT)
        scope.add("players", "constant", INT)
        scope.add("all_seats", "constant", SEATS)
        for name, type_ in table_types.items():
            scope.add(name, "constant", type_)
        fields = self.fields(scope, enums)
        for item in fields:
            scope.add(item.name, "field", item.type)
        definitions = self.definitions(scope)
        self.hidden_fields = observations.hidden_names(fields)
        public = observations.public_counts(self.data, scope, lambda needle, label: self.where("public", needle, label))
        view = observations.view_items(self.data, scope, self.rulebook,
                                       lambda needle, label: self.where("view", needle, label))
        rules = tuple(self.rule(index, entry, scope, enums) for index, entry in enumerate(self.data.get("rule", [])))
        self.check_rules(rules, enums)
        check_words(rules)
        properties = {str(name): dict(changes) for name, changes in self.data.get("properties", {}).items()}
        return Spec(self.raw.name, self.raw.description, self.raw.source, constants, tables, table_types,
                    enums, fields, definitions, rules, self.rulebook, tuple(self.raw.extends), properties,
                    tuple(source.path for source in self.raw.overlays), load_rulebook("de"), load_values("de"),
                    public, view)

    # -------------------------------------------------------------- numbers of the game

    def constants(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for key, value in self.data.get("constants", {}).items():
            check_name(key, "constant", self.where(f"constants:{key}", key, f"constants.{key}"))
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 1000:
                raise SpecError(f"constant must be a whole number 0..1000, got {value!r}",
                                self.where(f"constants:{key}", key, f"constants.{key}"))
            out[key] = value
        tables = self.data.get("tables", {})
        for required in ("min_players", "max_players", "deck_liberal", "deck_fascist", "hand_size"):
            if required not in out and (required in ("min_players", "max_players") or required not in tables):
                raise SpecError(f"missing constant '{required}'", Location(self.raw.source, None, "constants"))
        if not 1 <= out["min_players"] <= out["max_players"] <= 16:
            raise SpecError("player counts must satisfy 1 <= min_players <= max_players <= 16",
                            self.where("constants:max_players", "max_players", "constants"))
        return out

    def enums(self) -> dict[str, tuple[str, ...]]:
        out: dict[str, tuple[str, ...]] = {"tile": TILE_MEMBERS}
        for key, members in self.data.get("enums", {}).items():
            where = self.where(f"enums:{key}", key, f"enums.{key}")
            check_name(key, "enum", where)
            if not (isinstance(members, list) and members and all(isinstance(m, str) for m in members)):
                raise SpecError("an enum is a non-empty list of names", where)
            if len(members) > MAX_ENTRIES:
                raise SpecError(f"the enum has {len(members):,} members; at most {MAX_ENTRIES:,}", where)
            for member in members:
                check_name(member, f"member of enum '{key}'", where)
            if len(set(members)) != len(members):
                raise SpecError("an enum lists each member once", self.where(f"enums:{key}", key, f"enums.{key}"))
            out[key] = tuple(members)
        for needed in ("phase",):
            if needed not in out:
                raise SpecError(f"missing enum '{needed}'", Location(self.raw.source, None, "enums"))
        return out

    def tables(self, constants: dict[str, int], enums: dict[str, tuple[str, ...]]
               ) -> tuple[dict[str, dict[int, int | tuple[str, ...]]], dict[str, Type]]:
        counts = range(constants["min_players"], constants["max_players"] + 1)
        tables: dict[str, dict[int, int | tuple[str, ...]]] = {}
        types: dict[str, Type] = {}
        for name, entries in self.data.get("tables", {}).items():
            where = self.where(f"tables:{name}", name, f"tables.{name}")
            check_name(name, "table", where)
            if not isinstance(entries, dict):
                raise SpecError("a table maps player counts ('7' or '7-8') to values", where)
            by_count: dict[int, int | tuple[str, ...]] = {}
            for key, value in entries.items():
                match = re.fullmatch(r"(\d{1,3})(?:-(\d{1,3}))?", str(key))
                if not match:
                    raise SpecError(f"table key {shown(str(key))} is not a player count or a range a-b", where)
                low = int(match.group(1))
                high = int(match.group(2) or low)
                if low > high:
                    raise SpecError(f"table key '{key}' is a reversed range; expected the smaller count first", where)
                for count in range(low, high + 1):
                    if count in by_count:
                        raise SpecError(f"player count {count} appears twice", where)
                    by_count[count] = tuple(value) if isinstance(value, list) else value
            missing = [c for c in counts if c not in by_count]
            if missing:
                raise SpecError(f"no entry for {', '.join(map(str, missing))} players", where)
            sample = by_count[counts.start]
            if isinstance(sample, tuple):
                enum = next((e for e, members in enums.items()
                             if all(v in members for vals in by_count.values() for v in vals)), None)  # type: ignore[union-attr]
                if enum is None:
                    raise SpecError("table values are not all members of one enum", where)
                types[name] = Type("list", elem=Type("enum", enum))
            elif all(isinstance(v, int) and not isinstance(v, bool) for v in by_count.values()):
                types[name] = INT
            else:
                raise SpecError("a table holds whole numbers or lists of enum members", where)
            tables[name] = by_count
        return tables, types

    # -------------------------------------------------------------- state

    def fields(self, scope: Scope, enums: dict[str, tuple[str, ...]]) -> tuple[Field, ...]:
        out = []
        state = self.data.get("state", {})
        if not state:
            raise SpecError("the spec declares no [state] fields", Location(self.raw.source))
        for name, entry in state.items():
            where = self.where(f"state:{name}", f"{name} =", f"state.{name}")
            check_name(name, "state field", where)
            if not isinstance(entry, dict) or "type" not in entry or "init" not in entry:
                raise SpecError("a field is { type = ..., init = ... } (and range for int)", where)
            type_ = parse_type(str(entry["type"]), enums)
            if type_ is None:
                raise SpecError(f"unknown type '{entry['type']}'; expected bool, int, seat, seat?, seats, "
                                f"tiles or an enum ({', '.join(enums)}), optionally with '?'", where)
            low = high = None
            if type_ == INT:
                text = entry.get("range")
                if not isinstance(text, str) or ".." not in text:
                    raise SpecError("an int field needs range = \"low..high\"", where)
                low_text, high_text = text.split("..", 1)
                low = parse(low_text, scope, where, INT)
                high = parse(high_text, scope, where, INT)
            init = parse(str(entry["init"]), scope, where, type_)
            seen = observations.field_seen(name, entry, where)
            out.append(Field(name, type_, low, high, init, where, seen))
        if "phase" not in state:
            raise SpecError("the state needs a 'phase' field", Location(self.raw.source, None, "state"))
        by_name = {item.name: item for item in out}
        for name, enum in ENDING:
            item = by_name.get(name)
            if item is None or item.type.kind != "enum" or item.type.enum != enum or "none" not in enums[enum]:
                raise SpecError(f"the state needs a field '{name}' of an enum '{enum}' with a member 'none': the "
                                f"game's outcome is read from it (R-W5)", Location(self.raw.source, None, "state"))
        return tuple(out)

    def definitions(self, scope: Scope) -> dict[str, Node]:
        out: dict[str, Node] = {}
        for name, text in self.data.get("definitions", {}).items():
            where = self.where(f"definitions:{name}", f"{name} =", f"definitions.{name}")
            check_name(name, "definition", where)
            if name in scope.names:
                raise SpecError(f"definition '{name}' hides a field or constant of that name", where)
            node = parse(str(text), scope, where)
            before = self.raw.base_types.get(f"definitions:{name}")
            if before is not None:
                try:
                    old = parse(before, scope, where)
                except SpecError:
                    old = None
                if old is not None and not old.type.same_base(node.type):
                    raise SpecError(f"the override of definition '{name}' is {node.type}; the rules extended "
                                    f"define it as {old.type}, and their rules use it as such", where)
            out[name] = node
            scope.add(name, "definition", node.type)
            scope.definitions[name] = node
        return out

    # -------------------------------------------------------------- rules

    def rule(self, index: int, entry: dict[str, Any], base: Scope, enums: dict[str, tuple[str, ...]]) -> Rule:
        """One rule entry checked and typed, its parts in the order a reader meets them (so
        the first mistake of an entry is the one reported)."""
        name = str(entry.get("name", f"#{index + 1}"))
        key = f"rule:{name}"
        header = self.where(key, None, f"rule '{name}'")
        allowed = {"name", "phase", "actor", "summary", "summary_de", "params", "let", "weight", "requires", "effect",
                   "reveals", "quiet", "actor_rule", "says", "says_de", "phase_rule", "roles", "draws", "word",
                   "shows", "hidden"}
        for unknown in set(entry) - allowed:
            raise SpecError(f"unknown key '{unknown}'; a rule has {', '.join(sorted(allowed))}",
                            self.where(key, unknown, f"rule '{name}'"))
        check_name(name, "rule", header)
        phase = entry.get("phase")
        if phase not in enums["phase"]:
            raise SpecError(f"phase '{phase}' is not a member of the phase enum", self.where(key, "phase", f"rule '{name}' phase"))
        scope = base.child()
        params = self._rule_params(name, entry, base, scope, enums)
        scope_of_params = scope.child()
        lets = self._rule_lets(name, entry, scope)
        actor, actor_seat, actor_text = self._rule_actor(name, entry, base)
        actor_rule = str(entry.get("actor_rule", "R-E1"))
        if actor_rule not in self.rulebook:
            raise SpecError(f"actor_rule '{actor_rule}' is not a rule ID of RULES.md",
                            self.where(key, "actor_rule", f"rule '{name}' actor_rule"))
        phase_rule = entry.get("phase_rule")
        if phase_rule is not None and phase_rule not in self.rulebook:
            raise SpecError(f"phase_rule '{phase_rule}' is not a rule ID of RULES.md",
                            self.where(key, "phase_rule", f"rule '{name}' phase_rule"))
        weight = None
        if actor == "chance":
            where = self.where(key, "weight", f"rule '{name}' weight")
            if "weight" not in entry:
                raise SpecError("a chance rule needs a weight expression", where)
            weight = parse(str(entry["weight"]), scope, where, INT)
        elif "weight" in entry:
            raise SpecError("only chance rules have a weight", self.where(key, "weight", f"rule '{name}' weight"))
        requires = self._rule_requires(name, entry, scope)
        effect = self._rule_effect(name, entry, base, scope)
        says = says_de = None
        says_scope = after_scope(scope)
        if "says" in entry:
            where = self.where(key, "says", f"rule '{name}' says")
            says = self.template(str(entry["says"]), says_scope, where)
            check_no_new_value(says, where)
        if "says_de" in entry:
            where = self.where(key, "says_de", f"rule '{name}' says_de")
            if says is None:
                raise SpecError("says_de is the German of says; the rule has no says", where)
            says_de = self.translation(entry["says_de"], says, says_scope, where)
        reveals = self._rule_reveals(name, entry, scope, enums)
        shows, hidden = observations.rule_shows(
            name, entry, scope, says_scope, params, effect, self.hidden_fields, self.rulebook,
            lambda needle, label: self.where(key, needle, label))
        roles, draws = self.roles(entry, key, name, actor, params, scope_of_params)
        word = check_word(entry.get("word"), self.where(key, "word", f"rule '{name}' word"))
        return Rule(name, str(phase), actor, actor_seat, actor_text, str(entry.get("summary", name)),
                    tuple(params), tuple(lets), weight, tuple(requires), tuple(effect), tuple(reveals),
                    bool(entry.get("quiet", False)), header, actor_rule, says, phase_rule, roles, draws, word,
                    says_de, self._summary_de(entry, key, name), shows, hidden)

    def _summary_de(self, entry: dict[str, Any], key: str, name: str) -> str | None:
        """The German of a rule's `summary`, the move's name in German output (None: none)."""
        if "summary_de" not in entry:
            return None
        value = entry["summary_de"]
        if not isinstance(value, str) or not value.strip():
            raise SpecError("summary_de is the German of summary: a non-empty string",
                            self.where(key, "summary_de", f"rule '{name}' summary_de"))
        return value

    def _rule_params(self, name: str, entry: dict[str, Any], base: Scope, scope: Scope,
                     enums: dict[str, tuple[str, ...]]) -> list[Param]:
        """A rule's parameters with their domains, each added to the rule's scope."""
        params = []
        for param_name, text in entry.get("params", {}).items():
            where = self.where(f"rule:{name}", f"{param_name} =", f"rule '{name}' params.{param_name}")
            check_name(param_name, "parameter", where)
            if param_name in base.names:
                raise SpecError(f"parameter '{param_name}' hides a field, constant or definition", where)
            domain, type_ = self.domain(str(text), base, enums, where)
            params.append(Param(param_name, type_, domain))
            scope.add(param_name, "param", type_)
        return params

    def _rule_lets(self, name: str, entry: dict[str, Any], scope: Scope) -> list[tuple[str, Node]]:
        """A rule's lets in order, each in scope for the ones after it."""
        lets = []
        for let_name, text in entry.get("let", {}).items():
            where = self.where(f"rule:{name}", f"{let_name} =", f"rule '{name}' let.{let_name}")
            check_name(let_name, "let", where)
            if let_name in scope.names:
                raise SpecError(f"let '{let_name}' hides a name already in scope", where)
            node = parse(str(text), scope, where)
            lets.append((let_name, node))
            scope.add(let_name, "let", node.type)
        return lets

    def _rule_actor(self, name: str, entry: dict[str, Any], base: Scope) -> tuple[str, Node | None, str]:
        """Who moves: (chance | table | game | seat, the seat expression of a seat, the text)."""
        actor_text = str(entry.get("actor", ""))
        if actor_text in ACTOR_KINDS:
            return actor_text, None, actor_text
        where = self.where(f"rule:{name}", "actor", f"rule '{name}' actor")
        actor_seat = parse(actor_text, base, where, None)
        if actor_seat.type.kind != "seat":
            raise SpecError(f"actor must be chance, table, game or a seat expression, got {actor_seat.type}", where)
        return "seat", actor_seat, actor_text

    def _rule_requires(self, name: str, entry: dict[str, Any], scope: Scope) -> list[Requirement]:
        """A rule's requirements: each a rule ID of RULES.md, a condition and its reason."""
        requires = []
        for number, req in enumerate(entry.get("requires", [])):
            field_name = f"rule '{name}' requires[{number}]"
            text = req.get("when", "") if isinstance(req, dict) else ""
            where = self.where(f"rule:{name}", str(text) if text else None, field_name)
            if not isinstance(req, dict) or "rule" not in req or "when" not in req or "why" not in req:
                raise SpecError("a requirement is { rule = \"R-..\", when = \"...\", why = \"...\" }", where)
            rule_id = str(req["rule"])
            if not RULE_ID.match(rule_id) or rule_id not in self.rulebook:
                raise SpecError(f"'{rule_id}' is not a rule ID of RULES.md{_close(rule_id, self.rulebook)}", where)
            when = parse(str(req["when"]), scope, where, BOOL)
            unknown = sorted(set(req) - {"rule", "when", "why", "why_de"})
            if unknown:
                raise SpecError(f"unknown key '{unknown[0]}'; a requirement has rule, when, why and why_de", where)
            why = self.template(str(req["why"]), scope, where)
            why_de = self.translation(req["why_de"], why, scope, where) if "why_de" in req else None
            requires.append(Requirement(rule_id, when, str(req["when"]), why, where, why_de))
        return requires

    def _rule_effect(self, name: str, entry: dict[str, Any], base: Scope, scope: Scope) -> list[tuple[str, Node]]:
        """A rule's effect: state fields and the expressions they are assigned."""
        field_types = {f: t for f, (kind, t) in base.names.items() if kind == "field"}
        effect = []
        for field_name, text in entry.get("effect", {}).items():
            where = self.where(f"rule:{name}", f"{field_name} =", f"rule '{name}' effect.{field_name}")
            if field_name not in field_types:
                raise SpecError(f"effect assigns '{field_name}', which is not a state field"
                                f"{_close(field_name, list(field_types))}", where)
            effect.append((field_name, parse(str(text), scope, where, field_types[field_name])))
        return effect

    def _rule_reveals(self, name: str, entry: dict[str, Any], scope: Scope,
                      enums: dict[str, tuple[str, ...]]) -> list[tuple[str, Node]]:
        """What a rule's move shows its actor, by name, each with an optional declared type."""
        reveals = []
        for reveal_name, text in entry.get("reveals", {}).items():
            where = self.where(f"rule:{name}", f"{reveal_name} =", f"rule '{name}' reveals.{reveal_name}")
            check_name(reveal_name, "reveal", where)
            expected = None
            if isinstance(text, dict):
                expected = parse_type(str(text.get("type")), enums)
                if expected is None:
                    raise SpecError(f"unknown type '{text.get('type')}'", where)
                text = text.get("value", "")
            reveals.append((reveal_name, parse(str(text), scope, where, expected)))
        return reveals

    def roles(self, entry: dict[str, Any], key: str, name: str, actor: str, params: list[Param],
              scope: Scope) -> tuple[tuple[str, ...], Node | None]:
        """The rule's `roles` (spec.model.ROLES), each checked against the rule's shape, since
        the tools rely on it (a vote's one parameter is its Ja list), and its `draws`."""
        value = entry.get("roles", [])
        where = self.where(key, "roles", f"rule '{name}' roles")
        if not isinstance(value, list) or not all(isinstance(role, str) for role in value):
            raise SpecError(f"roles is a list of role names: {', '.join(ROLES)}", where)
        for role in value:
            if role not in ROLES:
                raise SpecError(f"unknown role {shown(role)}{_close(role, list(ROLES))}; the roles are "
                                f"{', '.join(ROLES)}", where)
        if len(set(value)) != len(value):
            raise SpecError("roles lists each role once", where)
        kinds = tuple(param.type.kind for param in params)
        shapes = {"deal": ("chance", None), "opening": ("chance", ("seat",)), "nomination": ("seat", None),
                  "vote": ("table", ("seats",)), "draw": ("chance", ("int",)), "discard": ("seat", ("enum",)),
                  "top_policy": ("chance", ("enum",)), "peek": ("chance", ("tiles",))}
        for role in value:
            want_actor, want_params = shapes.get(role, (None, None))
            tile = all(param.type.enum == "tile" for param in params) if role in ("discard", "top_policy") else True
            if (want_actor is not None and actor != want_actor) or \
                    (want_params is not None and (kinds != want_params or not tile)):
                shape = f"actor {want_actor}" if want_actor else ""
                if want_params is not None:
                    shape += f", one {'tile' if want_params == ('enum',) else want_params[0]} parameter"
                raise SpecError(f"role '{role}' ({ROLES[role]}) needs {shape}", where)
        draws = None
        pile = [role for role in value if role in ("draw", "top_policy")]
        if pile:
            if "draws" not in entry:
                raise SpecError(f"role '{pile[0]}' needs draws = \"N\": the tiles it takes from the top of the pile",
                                where)
            draws = parse(str(entry["draws"]), scope, self.where(key, "draws", f"rule '{name}' draws"), INT)
        elif "draws" in entry:
            raise SpecError("only a rule with role 'draw' or 'top_policy' takes tiles from the pile (draws)",
                            self.where(key, "draws", f"rule '{name}' draws"))
        return tuple(value), draws

    def domain(self, text: str, scope: Scope, enums: dict[str, tuple[str, ...]], where: Location) -> tuple[Domain, Type]:
        text = text.strip()
        if text == "seat":
            return Domain("seat", text), Type("seat")
        if text in enums:
            return Domain("enum", text, enum=text), Type("enum", text)
        match = re.fullmatch(r"subset\((.+)\)", text)
        if match:
            return Domain("subset", text, of=parse(match.group(1), scope, where, SEATS)), SEATS
        match = re.fullmatch(r"tiles\((.+)\)", text)
        if match:
            return Domain("tiles", text, length=parse(match.group(1), scope, where, INT)), TILES
        if ".." in text:
            low, high = text.split("..", 1)
            return Domain("range", text, low=parse(low, scope, where, INT), high=parse(high, scope, where, INT)), INT
        raise SpecError(f"unknown domain '{text}'; expected seat, subset(SEATS), LOW..HIGH, tiles(N) or an enum", where)

    def template(self, text: str, scope: Scope, where: Location) -> Template:
        holes = tuple((hole, parse(hole, scope, where)) for hole in HOLE.findall(text))
        return Template(text, holes)

    def translation(self, text: object, english: Template, scope: Scope, where: Location) -> Template:
        """A German template (`says_de`, `why_de`) of the English `english`: checked like it, and
        each hole must be one of the English template's holes, written the same way, so the
        two sentences show the same values and a translation adds no expression of its own."""
        if not isinstance(text, str) or not text.strip():
            raise SpecError("a German template is a non-empty string", where)
        template = self.template(text, scope, where)
        own = {hole for hole, _ in english.holes}
        for hole, _ in template.holes:
            if hole not in own:
                raise SpecError(f"the German template shows {{{hole}}}, which the English one does not; it may "
                                f"show {', '.join('{' + h + '}' for h in sorted(own)) or 'no value'}", where)
        return template

    def check_rules(self, rules: tuple[Rule, ...], enums: dict[str, tuple[str, ...]]) -> None:
        names = [rule.name for rule in rules]
        for rule in rules:
            if names.count(rule.name) > 1:
                raise SpecError(f"two rules are named '{rule.name}'", rule.where)
        if not rules:
            raise SpecError("the rules declare no [[rule]]: no game could start", Location(self.raw.source))
        if not any(name == "winner" for rule in rules for name, _ in rule.effect):
            raise SpecError("no rule's effect sets the winner: no game could ever end (R-W1-R-W4 say how one "
                            "does)", Location(self.raw.source))
        for role in SINGLE_ROLES:
            holders = [rule for rule in rules if role in rule.roles]
            if len(holders) > 1:
                raise SpecError(f"rules '{holders[0].name}' and '{holders[1].name}' both have role '{role}' "
                                f"({ROLES[role]}); a game has one", holders[1].where)


def after_scope(scope: Scope) -> Scope:
    """The names a move's sentence (`says`) may show: the rule's, and `after_FIELD`, the
    field in the state after the move, so that a sentence tells what the move did by
    reading it rather than by working it out again."""
    out = scope.child()
    for name, (kind, type_) in scope.names.items():
        if kind == "field":
            out.add(f"after_{name}", "after", type_)
    return out


def check_no_new_value(template: Template, where: Location) -> None:
    """Refuse a sentence hole that works out a field's next value by itself (`{FIELD + 1}`,
    `{FIELD - 1}`): it says what the move does only while the rule's effect does it, and an
    overlay that changes the effect would leave the sentence saying what no longer
    happens (an accepted veto that leaves the Election Tracker alone still "moves it to
    1"). `{after_FIELD}` reads the value from the state after the move instead."""
    for hole, node in template.holes:
        if isinstance(node, Binary) and node.op in ("+", "-"):
            for side, other in ((node.left, node.right), (node.right, node.left)):
                if (isinstance(side, Name) and side.kind == "field"
                        and (isinstance(other, Lit) or isinstance(other, Name) and other.kind == "constant")):
                    raise SpecError(f"the sentence shows {{{hole}}}, which works out {side.name} after the move by "
                                    f"itself and says so even where the effect no longer changes it; show "
                                    f"{{after_{side.name}}}, read from the state after the move", where)
