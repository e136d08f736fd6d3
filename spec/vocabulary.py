"""The vocabulary of questions: every name an expression may use, with what it means.

A question (`shrules ask --can EXPR`, a property, a dispute) is written in the spec's
names: `nominee`, `last_chancellor`, `election_tracker`. Those names are the rules' own,
but nobody guesses that the sitting Chancellor is `nominee`. spec/vocabulary.toml says
what each name means, in English and German, and which everyday words people use for it
(`also`); this module reads and checks that file and lays the names out with their type
and range for `shrules words`, and gives the type checker (spec/lang/check.py) the words
to recognise, so that `chancellor` is answered "the sitting Chancellor is `nominee`"
rather than only with the name spelled most like it.

The meanings are data; no code here names a field of the game. A name the rules have and
the file lacks is listed without a meaning (a variant's new field), never invented.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import SpecError, read_toml, shown
from .lang.check import BUILTINS
from .model import Spec
from .moves import ANY, table_words

VOCABULARY_FILE = Path(__file__).parent / "vocabulary.toml"
WORD_LANGS = ("en", "de")
SECTIONS = ("names", "params", "words", "functions")
"""The tables of spec/vocabulary.toml: names of the state and the game (fields,
definitions, constants, tables), each rule's parameters (`"rule.param"`), the table's
words for moves, and the functions of the language."""
ALSO = re.compile(r"[^\W\d]\w*")
"""An everyday word for a name: a single identifier, as an expression would write it."""


@dataclass(frozen=True, slots=True)
class Meaning:
    """What one entry of spec/vocabulary.toml says: by language, and the other words for it."""

    key: str
    text: dict[str, str]
    also: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Entry:
    """One name as `shrules words` lists it: its kind (field, definition, constant, table,
    parameter, move, function), its type and range in the spec's terms, and its meaning
    (None where spec/vocabulary.toml has none)."""

    kind: str
    name: str
    type: str
    range: str
    meaning: Meaning | None

    def means(self, lang: str) -> str | None:
        """The meaning in `lang`, or None."""
        return None if self.meaning is None else self.meaning.text[lang]


@functools.lru_cache(maxsize=1)
def load_meanings() -> dict[str, dict[str, Meaning]]:
    """spec/vocabulary.toml by section and key, checked: every entry has a non-empty text in
    each language, `also` is a list of identifiers; a `SpecError` naming the entry otherwise."""
    data = read_toml(VOCABULARY_FILE)[0]
    unknown = sorted(set(data) - set(SECTIONS))
    if unknown:
        raise SpecError(f"spec/vocabulary.toml: unknown table {shown(unknown[0])}; the tables are "
                        f"{', '.join(SECTIONS)}")
    out: dict[str, dict[str, Meaning]] = {}
    for section in SECTIONS:
        table = data.get(section, {})
        if not isinstance(table, dict):
            raise SpecError(f"spec/vocabulary.toml [{section}]: expected a table of entries")
        out[section] = {str(key): _meaning(section, str(key), entry) for key, entry in table.items()}
    return out


def _meaning(section: str, key: str, entry: Any) -> Meaning:
    where = f"spec/vocabulary.toml [{section}.{shown(key)}]"
    if not isinstance(entry, dict):
        raise SpecError(f"{where}: expected {' and '.join(WORD_LANGS)} texts")
    extra = sorted(set(entry) - {*WORD_LANGS, "also"})
    if extra:
        raise SpecError(f"{where}: unknown key {shown(extra[0])}; an entry has {', '.join(WORD_LANGS)} and also")
    texts = {}
    for lang in WORD_LANGS:
        value = entry.get(lang)
        if not isinstance(value, str) or not value.strip():
            raise SpecError(f"{where}: no meaning in '{lang}'; every name is explained in {' and '.join(WORD_LANGS)}")
        texts[lang] = value.strip()
    also = entry.get("also", [])
    if not isinstance(also, list) or not all(isinstance(w, str) and ALSO.fullmatch(w) for w in also):
        raise SpecError(f"{where}: 'also' is a list of single words, e.g. [\"chancellor\", \"kanzler\"]")
    return Meaning(key, texts, tuple(word.lower() for word in also))


def synonyms(names: set[str] | dict[str, Any]) -> dict[str, tuple[tuple[str, str], ...]]:
    """The everyday words for the names in `names` (the names an expression may use): each
    word lower-cased, with the names it stands for and their English meaning. A word that is
    itself one of `names` is left out: it means that name."""
    out: dict[str, list[tuple[str, str]]] = {}
    for key, meaning in load_meanings()["names"].items():
        if key not in names:
            continue
        for word in meaning.also:
            if word not in names:
                out.setdefault(word, []).append((key, meaning.text["en"]))
    return {word: tuple(found) for word, found in out.items()}


# ---------------------------------------------------------------------- the listing


def vocabulary(spec: Spec) -> dict[str, tuple[Entry, ...]]:
    """Every name a question over `spec` may use, by kind, in the spec's order: the state's
    fields, the definitions, the numbers of the game (constants, tables, `players`,
    `all_seats`), the table's words for moves with each move's parameters (and, over
    moves, `after_FIELD` and `actor`), and the functions."""
    meanings = load_meanings()
    names, params, words, functions = (meanings[s] for s in SECTIONS)
    fields = tuple(Entry("field", f.name, str(f.type), _field_range(spec, f), names.get(f.name))
                   for f in spec.fields)
    definitions = tuple(Entry("definition", name, str(node.type), "", names.get(name))
                        for name, node in spec.definitions.items())
    numbers = [Entry("constant", "players", "int", f"{spec.player_counts.start}..{spec.player_counts.stop - 1}",
                     names.get("players")),
               Entry("constant", "all_seats", "seats", "", names.get("all_seats"))]
    numbers += [Entry("constant", name, "int", str(value), names.get(name)) for name, value in spec.constants.items()]
    numbers += [Entry("table", name, str(spec.table_types[name]), _table_range(by_count), names.get(name))
                for name, by_count in spec.tables.items()]
    moves: list[Entry] = []
    for word, rules in table_words(spec).items():
        moves.append(Entry("move", word, "", ", ".join(rules), words.get(word)))
        seen: set[str] = set()
        for rule in (spec.rule(name) for name in rules):
            shown_here = [(p.name, str(p.type), p.domain.text) for p in rule.params]
            shown_here += [(name, str(node.type), "revealed") for name, node in rule.reveals]
            for name, type_, range_ in shown_here:
                if name not in seen:
                    seen.add(name)
                    moves.append(Entry("parameter", name, type_, range_, params.get(f"{rule.name}.{name}")))
    moves.append(Entry("move", ANY, "", "every rule", words.get(ANY)))
    moves.append(Entry("parameter", "after_FIELD", "", "", None))
    from .temporal import FUNCTIONS          # not at the top: temporal imports properties, which imports this
    calls = tuple(Entry("function", name, str(builtin.result), ", ".join(str(a) for a in builtin.args)
                        + (", ..." if builtin.variadic else ""), functions.get(name))
                  for name, builtin in BUILTINS.items())
    calls += tuple(Entry("function", name, "", signature.usage(name)[len(name) + 1:-1], functions.get(name))
                   for name, signature in FUNCTIONS.items())
    return {"field": fields, "definition": definitions, "number": tuple(numbers), "move": tuple(moves),
            "function": calls}


def _field_range(spec: Spec, field: Any) -> str:
    """A field's values: an int's bounds (with their values in the standard numbers), an
    enum's members."""
    if field.type.kind == "enum" and field.type.enum in spec.enums:
        return " | ".join(spec.enums[field.type.enum])
    if field.low is None or field.high is None:
        return ""
    low, high = _bound(spec, field.low), _bound(spec, field.high)
    return f"{low}..{high}"


def _bound(spec: Spec, node: Any) -> str:
    """A bound as written, with its value where it is a named constant: `tracker_limit (3)`."""
    name, value = getattr(node, "name", None), getattr(node, "value", None)
    if isinstance(name, str) and name in spec.constants:
        return f"{name} ({spec.constants[name]})"
    return str(value) if value is not None else "?"


def _table_range(by_count: dict[int, int | tuple[str, ...]]) -> str:
    """A table's values by player count, neighbouring counts of one value together:
    `5-6: 1 · 7-8: 2 · 9-10: 3`."""
    groups: list[tuple[list[int], int | tuple[str, ...]]] = []
    for count, value in sorted(by_count.items()):
        if groups and groups[-1][1] == value and groups[-1][0][-1] == count - 1:
            groups[-1][0].append(count)
        else:
            groups.append(([count], value))
    return " · ".join(f"{counts[0]}{f'-{counts[-1]}' if len(counts) > 1 else ''}: "
                      f"{'/'.join(value) if isinstance(value, tuple) else value}" for counts, value in groups)
