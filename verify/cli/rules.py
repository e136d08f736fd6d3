"""`shrules rules`: the rulebook in the box, every rule ID's full text in English and German.

    shrules rules                      every rule ID with its title
    shrules rules R-E4 R-X4            each rule in full, in English and German, with its sources
    shrules rules R-E4 --lang de       in German only
    shrules rules R-E4 --json          as JSON for tools

Every answer of `ask`, every illegal move and every trace cites rule IDs; this prints what
they say. The texts are data (spec/rulebook/*.toml, read by spec/ruletext.py); this module
only lays them out. An ID the rulebook lacks is bad input: one line with the closest ID,
exit status 2.
"""

from __future__ import annotations

import json
import textwrap

import click

from spec.loader import load_rulebook, rule_text
from spec.ruletext import RuleText

from .options import json_option, langs_option

WIDTH = 92
"""Columns a rule's text is wrapped to."""

HEADINGS = {
    "en": {"sources": "Sources in the seed documents:", "count": "{count} rule IDs; `shrules rules ID` prints one "
           "in full, in English and German."},
    "de": {"sources": "Quellen in den Vorlagen:", "count": "{count} Regel-IDs; `shrules rules ID` zeigt eine "
           "vollständig, auf Englisch und Deutsch."},
}


def rule_lines(text: RuleText, langs: tuple[str, ...]) -> list[str]:
    """One rule: per language its ID and title, then its text wrapped; then its sources."""
    out: list[str] = []
    for lang in langs:
        out.append(f"{text.rule_id} · {load_rulebook(lang)[text.rule_id]}" + (f"  [{lang}]" if len(langs) > 1 else ""))
        for number, paragraph in enumerate(text.paragraphs[lang]):
            if number:
                out.append("")
            out += textwrap.wrap(paragraph, WIDTH, initial_indent="  ", subsequent_indent="  ",
                                 break_on_hyphens=False)
        out.append("")
    out.append(" / ".join(HEADINGS[lang]["sources"] for lang in langs))
    for source in text.sources:
        document = f" [{source.seed.file}]" if source.seed.file else ""
        out.append(f"  {source.seed.key}{document}: {source.at}")
    return out


def rule_json(text: RuleText, langs: tuple[str, ...]) -> dict[str, object]:
    """One rule as JSON: its ID, title, short and full text by language, and its sources."""
    return {"id": text.rule_id,
            "title": {lang: load_rulebook(lang)[text.rule_id] for lang in langs},
            "short": {lang: text.short(lang) for lang in langs},
            "text": {lang: text.full(lang) for lang in langs},
            "sources": [{"seed": s.seed.key, "document": s.seed.title, "file": s.seed.file, "at": s.at}
                        for s in text.sources]}


@click.command()
@click.argument("rule_ids", nargs=-1, metavar="[ID ...]")
@langs_option("The languages to print a rule in; the list of IDs is titled in the first.")
@json_option("Print the rules as JSON.")
def rules(rule_ids: tuple[str, ...], langs: tuple[str, ...], as_json: bool) -> None:
    """Print the rulebook: the rule IDs with their titles, or the rules named in full.

    Every answer, illegal move and trace cites these IDs (R-S1 ... R-W5, D-1 ... D-5). With
    IDs, each rule's full text in English and German and where the seed documents say it.
    Exit status: 0; 2 for an ID the rulebook lacks (with the closest one).
    """
    if not rule_ids:
        titles = load_rulebook(langs[0])
        if as_json:
            click.echo(json.dumps([{"id": rule_id, "title": {lang: load_rulebook(lang)[rule_id] for lang in langs}}
                                   for rule_id in titles], ensure_ascii=False, indent=1))
            return
        width = max(len(rule_id) for rule_id in titles)
        for rule_id, title in titles.items():
            click.echo(f"{rule_id:<{width}}  {title}")
        click.echo("\n" + HEADINGS[langs[0]]["count"].format(count=len(titles)))
        return
    chosen = [rule_text(rule_id) for rule_id in rule_ids]      # every ID checked before anything prints
    if as_json:
        click.echo(json.dumps([rule_json(text, langs) for text in chosen], ensure_ascii=False, indent=1))
        return
    blocks = ["\n".join(rule_lines(text, langs)) for text in chosen]
    click.echo(("\n\n" + "─" * 40 + "\n\n").join(blocks))


COMMANDS = (rules,)
