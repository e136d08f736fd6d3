"""`shrules words`: the vocabulary a question may use, with what each name means.

    shrules words                     every field, definition, number, move word, parameter and function
    shrules words --lang de           with the meanings in German
    shrules words --rules VARIANT     the names of a variant (a name it adds is listed without a meaning)
    shrules words --json              as JSON for tools

`shrules ask --can EXPR` and `--never EXPR --on MOVE` take expressions in the spec's own
names (`nominee`, `last_chancellor`, `election_tracker`); this lists them. It is a command
of its own rather than a mode of `ask`: it answers nothing, takes none of `ask`'s options,
and is what a player reads before writing a question. The names and their types come from
the loaded rules; the meanings from spec/vocabulary.toml (spec/vocabulary.py).
"""

from __future__ import annotations

import json
import textwrap

import click

from spec.loader import load_spec
from spec.vocabulary import Entry, vocabulary

from .options import json_option, langs_option, rules_option

WIDTH = 92

HEADINGS: dict[str, dict[str, str]] = {
    "en": {
        "intro": "The names a question may use (`shrules ask --can EXPR`, `--never EXPR --on MOVE`), in the "
                 "{rules} rules. Types: int; bool (True, False); seat (a seat number, 0 first in expressions, while answers say seat 1 for it); seat? (a seat or "
                 "none); seats (a set of seats: {{}}, {{1, 3}}, alive - {{hitler}}); tiles (policy tiles, top first); "
                 "an enum (one of the members listed, in quotes: phase == 'vote').",
        "field": "Fields of the state (over moves, after_FIELD is a field's value after the move)",
        "definition": "Definitions (named expressions over the state)",
        "number": "The numbers of the game (constants; tables by player count)",
        "move": "Moves, by the table's words (--on WORD), each with its parameters (usable with --on)",
        "function": "Functions",
        "none": "(no meaning given in spec/vocabulary.toml)",
        "after": "the value of FIELD after the move, e.g. after_election_tracker (over moves only)",
    },
    "de": {
        "intro": "Die Namen, die eine Frage verwenden darf (`shrules ask --can AUSDRUCK`, `--never AUSDRUCK --on "
                 "ZUG`), in den Regeln {rules}. Typen: int; bool (True, False); seat (eine Platznummer, in Ausdrücken 0 zuerst, während Antworten dafür Platz 1 sagen); "
                 "seat? (ein Platz oder none); seats (eine Menge von Plätzen: {{}}, {{1, 3}}, alive - {{hitler}}); "
                 "tiles (Gesetze, das oberste zuerst); eine Aufzählung (einer der genannten Werte, in Anführungs"
                 "zeichen: phase == 'vote').",
        "field": "Felder des Zustands (über Züge ist after_FELD der Wert eines Feldes nach dem Zug)",
        "definition": "Definitionen (benannte Ausdrücke über den Zustand)",
        "number": "Die Zahlen des Spiels (Konstanten; Tabellen nach Spielerzahl)",
        "move": "Züge, mit den Wörtern des Tisches (--on WORT), jeweils mit ihren Parametern (mit --on verwendbar)",
        "function": "Funktionen",
        "none": "(keine Bedeutung in spec/vocabulary.toml)",
        "after": "der Wert von FELD nach dem Zug, z. B. after_election_tracker (nur über Züge)",
    },
}


def _head(entry: Entry) -> list[str]:
    """The entry's name, type and range as the rules give them (a move: the rules it
    names), wrapped."""
    indent = "    " if entry.kind == "parameter" else "  "
    if entry.kind == "function":
        line = f"{indent}{entry.name}({entry.range})" + (f" → {entry.type}" if entry.type else "")
        return textwrap.wrap(line, WIDTH, subsequent_indent=indent + "    ", break_on_hyphens=False)
    range_ = f"rules: {entry.range}" if entry.kind == "move" else entry.range
    parts = [entry.type] if entry.type else []
    if range_ and range_ != entry.type:
        parts.append(range_)
    detail = " · ".join(parts)
    line = f"{indent}{entry.name}" + (f"  ({detail})" if detail else "")
    return textwrap.wrap(line, WIDTH, subsequent_indent=indent + "    ", break_on_hyphens=False)


def _meaning(entry: Entry, lang: str) -> str:
    if entry.name == "after_FIELD":
        return HEADINGS[lang]["after"]
    return entry.means(lang) or HEADINGS[lang]["none"]


def entry_lines(entry: Entry, langs: tuple[str, ...]) -> list[str]:
    """One name: its head line, then its meaning in each language, wrapped and indented."""
    indent = " " * (8 if entry.kind == "parameter" else 6)
    out = _head(entry)
    for lang in langs:
        out += textwrap.wrap(_meaning(entry, lang), WIDTH, initial_indent=indent, subsequent_indent=indent,
                             break_on_hyphens=False)
    return out


@click.command()
@rules_option()
@langs_option("The languages the meanings are given in; the headings are in the first.")
@json_option("Print the vocabulary as JSON.")
def words(rules: str, langs: tuple[str, ...], as_json: bool) -> None:
    """List every name a question may use, with its type, its range and what it means.

    The fields of the state, the definitions, the numbers of the game, the table's words
    for moves with their parameters, and the functions: what `shrules ask --can EXPR`
    and `--never EXPR --on MOVE` are written in. Exit status: 0; 2 for bad input.
    """
    spec = load_spec(rules)
    found = vocabulary(spec)
    if as_json:
        click.echo(json.dumps({kind: [{"kind": e.kind, "name": e.name, "type": e.type, "range": e.range,
                                       "meaning": {lang: _meaning(e, lang) if e.meaning or e.name == "after_FIELD"
                                                   else None for lang in langs}}
                                      for e in entries] for kind, entries in found.items()},
                              ensure_ascii=False, indent=1))
        return
    words = HEADINGS[langs[0]]
    out = textwrap.wrap(words["intro"].format(rules=spec.name), WIDTH, break_on_hyphens=False)
    for kind, entries in found.items():
        out += ["", words[kind] + ":"]
        for entry in entries:
            out += entry_lines(entry, langs)
    click.echo("\n".join(out))


COMMANDS = (words,)
