"""The table's words for moves: what `shrules ask --on` accepts besides the rules' names.

A rule may name the word players use for its move (`word = "vote"` in its `[[rule]]`
entry); several rules can share one word (`vote` is both `elect` and `reject`), and a
variant that adds a rule names its word the same way. The words live with the rules they
name, so no code outside spec/ keeps a list of rule names per word. `any` is every move.

The words are checked on load: a word is lower-case letters in words joined by single
spaces, `any` is reserved, and a word spelled like a rule's name must be the word of that
rule, and no other rule's (so `enact` cannot mean one move as a word and another as a
name).
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from .errors import Location, SpecError, shown

ANY = "any"
"""Every move of the rules."""

WORD = re.compile(r"[a-z]+(?: [a-z]+)*")
MAX_WORD = 40


def check_word(value: Any, where: Location) -> str | None:
    """A rule's `word` as written, or None when it names none; a `SpecError` when malformed."""
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > MAX_WORD or not WORD.fullmatch(value):
        raise SpecError(f"a move's word is lower-case words joined by single spaces, e.g. 'special election'; "
                        f"got {shown(value)}", where)
    if value == ANY:
        raise SpecError(f"'{ANY}' is reserved: it stands for every move", where)
    return value


def check_words(rules: tuple[Any, ...]) -> None:
    """A word spelled like a rule's name belongs to that rule (`SpecError` otherwise)."""
    names = {rule.name: rule for rule in rules}
    for rule in rules:
        other = names.get(rule.word or "")
        if other is not None and other is not rule:
            raise SpecError(f"the word '{rule.word}' of rule '{rule.name}' is the name of rule '{other.name}': "
                            f"as a word and as a name it would mean different moves; choose another word",
                            rule.where)


def table_words(spec: Any) -> dict[str, tuple[str, ...]]:
    """Each word of the table and the rules it names, in the order of the rules."""
    out: dict[str, list[str]] = {}
    for rule in spec.rules:
        if rule.word is not None:
            out.setdefault(rule.word, []).append(rule.name)
    return {word: tuple(names) for word, names in out.items()}


def moves_named(spec: Any, items: tuple[str, ...], option: str = "--on") -> tuple[str, ...]:
    """The rule names `items` stand for: table words, `any`, or rules' names; each item may
    list several, comma-separated. An empty item or an unknown word is a `SpecError` with
    the closest words and the words the rules know."""
    words = table_words(spec)
    names = [rule.name for rule in spec.rules]
    out: dict[str, None] = {}
    for item in items:
        parts = [part.strip() for part in item.split(",")]
        if not item.strip() or not all(parts):
            raise SpecError(f"{option} needs a move, e.g. {option} vote; the moves are "
                            f"{', '.join(sorted(words))} or {ANY}")
        for part in parts:
            word = " ".join(part.lower().replace("_", " ").split()) if part not in names else part
            if part == ANY or word == ANY:
                out.update(dict.fromkeys(names))
            elif word in words:
                out.update(dict.fromkeys(words[word]))
            elif part in names:
                out[part] = None
            else:
                close = difflib.get_close_matches(word, list(words) + [ANY], n=3) or \
                    difflib.get_close_matches(part, names, n=3)
                hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
                raise SpecError(f"{option} {shown(part)} is no move of the {spec.name} rules.{hint} "
                                f"The moves are {', '.join(sorted(words))} or {ANY}")
    return tuple(out)


def moves_in_words(spec: Any, names: tuple[str, ...]) -> str:
    """`names` as the table says them: `any` for every move, a word for all the rules it
    names, a rule's own name for the rest."""
    every = [rule.name for rule in spec.rules]
    if set(names) == set(every):
        return ANY
    left = list(names)
    out: list[str] = []
    for word, rules in table_words(spec).items():
        if set(rules) <= set(left):
            out.append(word)
            left = [name for name in left if name not in rules]
    return ", ".join(out + left)
