"""The files of the rulings book, from answers already given by verify/lawyer.

`write_book` does no answering: `shrules book` (verify/cli/book.py) answers the entries
and hands the answers here, and a test can hand it answers it made itself. Every page is
written through `write_atomic` below the book's folder (spec/files.py): a link planted in
the folder is replaced, never written through, and a folder link inside it is refused."""

from __future__ import annotations

from pathlib import Path

from spec.files import folder_within, write_atomic
from spec.loader import load_rulebook

from ..lawyer.answers import Answer
from .pages import Layout, entry_page, index_page, rule_page

LANGS = ("en", "de")


def cited_by(answers: list[Answer]) -> dict[str, list[str]]:
    """Each rule ID with the ids of the entries that rest on it, in the book's order."""
    out: dict[str, list[str]] = {}
    for answer in answers:
        assert answer.dispute is not None
        for rule_id in answer.rule_ids:
            out.setdefault(rule_id, []).append(answer.dispute.id)
    return out


def book_names(langs: tuple[str, ...] = LANGS) -> tuple[str, ...]:
    """The names `write_book` writes directly in its folder: the indexes, and (ending in
    `/`) the folders of the entries and the rule pages."""
    layout = Layout(langs)
    folders = {str(Path(layout.rule("R-S1", lang)).parent) for lang in langs}
    folders |= {str(Path(layout.entry("x", lang)).parent) for lang in langs}
    return tuple(layout.index(lang) for lang in langs) + tuple(f"{name}/" for name in sorted(folders))


def write_book(answers: list[Answer], folder: Path, langs: tuple[str, ...] = LANGS) -> list[Path]:
    """Write the book into `folder` (made if missing): per language an index, a page per
    entry and a page per rule ID of the rulebook; the paths written, in order."""
    titles = load_rulebook()
    for answer in answers:
        for rule_id in answer.rule_ids:
            titles.setdefault(rule_id, "")
    layout = Layout(langs)
    cited = cited_by(answers)
    by_id = {a.dispute.id: a for a in answers if a.dispute is not None}
    pages: dict[str, str] = {}
    for lang in langs:
        pages[layout.index(lang)] = index_page(answers, lang, layout, cited, titles)
        for answer in answers:
            assert answer.dispute is not None
            pages[layout.entry(answer.dispute.id, lang)] = entry_page(answer, lang, layout, titles)
        for rule_id in titles:
            pages[layout.rule(rule_id, lang)] = rule_page(rule_id, [by_id[i] for i in cited.get(rule_id, [])], lang,
                                                          layout, titles)
    for parent in sorted({(folder / name).parent for name in pages}):
        folder_within(folder, parent)    # every folder checked before the first page is written
    written = []
    for name, text in pages.items():
        path = folder / name
        write_atomic(path, text, root=folder)
        written.append(path)
    return written
