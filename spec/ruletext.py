"""The full text of every rule ID, in English and German, with where the seeds say it.

`spec/rulebook.toml` gives each rule ID of RULES.md a one-line title; the texts here
(`spec/rulebook/*.toml`, one file per section of the rulebook) say the whole rule in the
project's own words, so that a clone of the repository can read what an answer's
citation means without the rulebook beside it. Each text names its sources in the seed
documents (`spec/rulebook/seeds.toml`) by key and section.

A text is paragraphs split by blank lines. The first paragraph is the rule itself in
short, what `shrules ask` prints under "Rests on"; the rest (a worked example, why a
reading was chosen) is for `shrules rules ID` and the book's rule pages.

Everything is checked when the rulebook is loaded (`spec.loader.load_rulebook` calls
`load_texts`): every ID has a text in each language and at least one source, every
source names a seed document, no text is for an ID the rulebook lacks. Texts are data:
nothing in them is run.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import SpecError, read_toml, shown

TEXT_DIR = Path(__file__).parent / "rulebook"
SEEDS_FILE = TEXT_DIR / "seeds.toml"
TEXT_LANGS = ("en", "de")
"""The languages every rule is written in: the rulebook's English and the refresher's German."""
SOURCE = re.compile(r"^([a-z]+): (\S.*)$")
"""A source: the key of a seed document, a colon, then where in it (a section, a step)."""


@dataclass(frozen=True, slots=True)
class Seed:
    """A document the rules were written from: its key, its title, its file among the seeds
    ("" where there is no file: the published boards)."""

    key: str
    title: str
    file: str


@dataclass(frozen=True, slots=True)
class Source:
    """Where a rule comes from: a seed document and the place in it."""

    seed: Seed
    at: str

    def __str__(self) -> str:
        return f"{self.seed.key}: {self.at}"


@dataclass(frozen=True, slots=True)
class RuleText:
    """One rule ID's full text by language, as paragraphs, and its sources."""

    rule_id: str
    paragraphs: dict[str, tuple[str, ...]]
    sources: tuple[Source, ...]

    def short(self, lang: str = "en") -> str:
        """The rule in short: the first paragraph of its text in `lang`."""
        return self.paragraphs[lang][0]

    def full(self, lang: str = "en") -> str:
        """The whole text in `lang`, paragraphs separated by a blank line."""
        return "\n\n".join(self.paragraphs[lang])


def paragraphs(text: str) -> tuple[str, ...]:
    """`text` as paragraphs: split at blank lines, the lines of each joined by a space."""
    blocks = re.split(r"\n\s*\n", text.strip())
    return tuple(" ".join(line.strip() for line in block.splitlines() if line.strip()) for block in blocks
                 if block.strip())


@functools.lru_cache(maxsize=1)
def load_seeds() -> dict[str, Seed]:
    """The seed documents by key (spec/rulebook/seeds.toml); a `SpecError` naming the key
    whose title is missing."""
    data = read_toml(SEEDS_FILE)[0]
    table = data.get("seeds")
    if not isinstance(table, dict) or not table:
        raise SpecError(f"{_name(SEEDS_FILE)}: expected [seeds.KEY] tables with a title and a file")
    out: dict[str, Seed] = {}
    for key, entry in table.items():
        if not isinstance(entry, dict) or not _text(entry.get("title")) or not isinstance(entry.get("file", ""), str):
            raise SpecError(f"{_name(SEEDS_FILE)} [seeds.{key}]: expected a non-empty title and a file name")
        out[str(key)] = Seed(str(key), str(entry["title"]).strip(), str(entry.get("file", "")))
    return out


def load_texts(rule_ids: tuple[str, ...]) -> dict[str, RuleText]:
    """The full text of each of `rule_ids` (the IDs of spec/rulebook.toml, in their order),
    read from spec/rulebook/*.toml and checked; a `SpecError` naming the file and the ID
    for a text missing, empty, in one language only, without a source, citing no seed, or
    for an ID the rulebook lacks."""
    return _load_texts(rule_ids, TEXT_DIR)


@functools.lru_cache(maxsize=4)
def _load_texts(rule_ids: tuple[str, ...], folder: Path) -> dict[str, RuleText]:
    seeds = load_seeds()
    found: dict[str, RuleText] = {}
    for path in sorted(folder.glob("*.toml")):
        if path.resolve() == SEEDS_FILE.resolve():
            continue
        data = read_toml(path)[0]
        for rule_id, entry in data.items():
            where = f"{_name(path)} [{shown(rule_id)}]"
            if rule_id not in rule_ids:
                raise SpecError(f"{where}: not a rule ID of spec/rulebook.toml")
            if rule_id in found:
                raise SpecError(f"{where}: a second text for {rule_id}")
            found[rule_id] = _rule_text(rule_id, entry, seeds, where)
    missing = [rule_id for rule_id in rule_ids if rule_id not in found]
    if missing:
        raise SpecError(f"{_name(folder)}: no text for {', '.join(missing)}; every rule ID of spec/rulebook.toml "
                        f"has one, in {' and '.join(TEXT_LANGS)}")
    return {rule_id: found[rule_id] for rule_id in rule_ids}


def _rule_text(rule_id: str, entry: Any, seeds: dict[str, Seed], where: str) -> RuleText:
    if not isinstance(entry, dict):
        raise SpecError(f"{where}: expected a table with sources, {', '.join(TEXT_LANGS)}")
    unknown = sorted(set(entry) - {"sources", *TEXT_LANGS})
    if unknown:
        raise SpecError(f"{where}: unknown key {shown(unknown[0])}; a rule's text has sources, "
                        f"{', '.join(TEXT_LANGS)}")
    texts: dict[str, tuple[str, ...]] = {}
    for lang in TEXT_LANGS:
        if not _text(entry.get(lang)):
            raise SpecError(f"{where}: no text in '{lang}'; every rule is written in {' and '.join(TEXT_LANGS)}")
        texts[lang] = paragraphs(str(entry[lang]))
    raw_sources = entry.get("sources")
    if not isinstance(raw_sources, list) or not raw_sources:
        raise SpecError(f"{where}: no sources; name where the seeds say it, e.g. \"rules: Election, step 2\"")
    sources = []
    for item in raw_sources:
        match = SOURCE.match(item) if isinstance(item, str) else None
        if match is None:
            raise SpecError(f"{where}: source {shown(item)} is not \"SEED: where\"")
        seed = seeds.get(match.group(1))
        if seed is None:
            raise SpecError(f"{where}: source {shown(item)} names no seed document; the seeds are "
                            f"{', '.join(seeds)} (spec/rulebook/seeds.toml)")
        sources.append(Source(seed, match.group(2).strip()))
    return RuleText(rule_id, texts, tuple(sources))


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _name(path: Path) -> str:
    """A path as the repository names it (spec/rulebook/x.toml), never the machine's."""
    parts = path.parts
    if "spec" not in parts:
        return path.name
    return "/".join(parts[len(parts) - 1 - parts[::-1].index("spec"):])
