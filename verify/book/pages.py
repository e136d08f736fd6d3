"""The HTML of the book's pages: the index, an entry in one language, a rule ID's page.

Every page stands alone: inline CSS, no script, no image, no font or anything else to
fetch, so it reads from a folder, a USB stick or paper. Every text from the catalogue,
the spec or an answer is escaped. A German page is German throughout: the catalogue's
German text, the rule titles of `[rules_de]` (spec/rulebook.toml), each rule's text
(spec/rulebook/: all of it on its rule page, the short text beside a citation) and the
moves of the game in the spec's `says_de`. Where an entry or a variant's move has no
German, the page says so in German next to it and marks the English as such (lang="en").
The seed documents a rule cites are English or German by their own titles: their names
and sections are marked lang="en"."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from html import escape

from spec.loader import load_rule_texts, load_rulebook

from ..lawyer.answers import NO, YES, Answer, FormalAnswer, as_expected
from ..lawyer.words import WORDS, render
from .draw import STYLE as DRAW_STYLE
from .draw import draw_game
from .frame import LANG_NAMES, say
from .rounds import rounds

STYLE = """
*{box-sizing:border-box}
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1a1a1a;background:#f6f6f4}
main{max-width:860px;margin:0 auto;padding:12px 14px 40px}
h1{font-size:1.45em;line-height:1.25;margin:.4em 0}h2{font-size:1.15em;margin:1.2em 0 .4em}
a{color:#1848a0}nav{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:.9em;margin:6px 0}
p,li,dd{overflow-wrap:anywhere}
code,pre{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#fff;border:1px solid #ddd;padding:6px 8px;margin:6px 0}
.badge{display:inline-block;min-width:3.2em;text-align:center;border-radius:10px;padding:0 8px;font-size:.85em;
font-weight:600;border:1px solid #888;background:#fff}
.badge.yes{background:#d7f0dc;border-color:#2e7d32}.badge.no{background:#fde0dc;border-color:#b3261e}
.badge.unknown,.badge.depends{background:#fff3c4;border-color:#a07800}
.badge.bad{outline:2px solid #b3261e}
ul.entries{list-style:none;padding:0;margin:0}
ul.entries li{background:#fff;border:1px solid #ddd;border-radius:6px;padding:6px 10px;margin:6px 0}
ul.entries .id{font-family:ui-monospace,monospace;font-size:.85em;color:#555}
ul.rules{display:flex;flex-wrap:wrap;gap:6px;list-style:none;padding:0}
ul.rules li{background:#fff;border:1px solid #ddd;border-radius:4px;padding:2px 8px}
.rests li{margin:2px 0}.note{color:#5a4a00;background:#fff8dc;border-left:4px solid #a07800;padding:4px 8px}
.answer{font-size:1.05em;background:#fff;border:1px solid #ddd;border-radius:6px;padding:2px 10px}
.answer p{margin:.5em 0}
footer{color:#666;font-size:.8em;margin-top:30px}
@media print{nav,.langs{display:none}body{background:#fff}main{max-width:none}a{color:inherit}}
"""


@dataclass(frozen=True, slots=True)
class Layout:
    """Where the book's files are, per language: the first language has the plain names
    (index.html, rules/R-E3.html), the others a suffix (index.de.html); entries are
    LANG/ID.html."""

    langs: tuple[str, ...]

    def index(self, lang: str) -> str:
        return "index.html" if lang == self.langs[0] else f"index.{lang}.html"

    def rule(self, rule_id: str, lang: str) -> str:
        return f"rules/{rule_id}.html" if lang == self.langs[0] else f"rules/{rule_id}.{lang}.html"

    def entry(self, ident: str, lang: str) -> str:
        return f"{lang}/{ident}.html"


def shell(lang: str, title: str, body: list[str], depth: int) -> str:
    """A whole page: the document, its inline style, the body."""
    up = "../" * depth
    return "\n".join(['<!DOCTYPE html>', f'<html lang="{escape(lang)}"><head><meta charset="utf-8">',
                      '<meta name="viewport" content="width=device-width, initial-scale=1">',
                      f"<title>{escape(title)}</title>", f"<style>{STYLE}{DRAW_STYLE}</style>",
                      f'</head><body><main data-root="{escape(up)}">', *body, "</main></body></html>"]) + "\n"


def badge(answer: Answer, lang: str) -> str:
    """The answer as a coloured word; a ring when it is not the expected one."""
    verdict = answer.verdict if answer.verdict in (YES, NO, "depends") else "unknown"
    bad = " bad" if as_expected(answer) is False else ""
    return f'<span class="badge {verdict}{bad}">{escape(say(lang, "badge_" + verdict))}</span>'


@cache
def _titles(lang: str) -> dict[str, str]:
    """The rulebook's titles in `lang`, read once (the loader checks every ID has one)."""
    return load_rulebook(lang)


def _title(rule_id: str, lang: str, titles: dict[str, str]) -> tuple[str, bool]:
    """A rule ID's title in `lang`, and whether it had to fall back to English (an ID the
    rulebook lacks: `titles` holds it with the English the book was given)."""
    own = _titles(lang).get(rule_id) if lang != "en" else None
    if own:
        return own, False
    return titles.get(rule_id, ""), lang != "en"


def _title_html(rule_id: str, lang: str, titles: dict[str, str]) -> str:
    title, fallback = _title(rule_id, lang, titles)
    return f'<span lang="en">{escape(title)}</span>' if fallback else f"<span>{escape(title)}</span>"


def _text(answer: Answer, name: str, lang: str) -> tuple[str, bool]:
    """A catalogue text in `lang`, and whether it had to fall back to English."""
    dispute = answer.dispute
    assert dispute is not None
    own = dispute.text(name, lang)
    if own:
        return own, False
    english = dispute.text(name, "en")
    return english or "", bool(english) and lang != "en"


def _said(text: str, fallback: bool, tag: str = "p") -> str:
    return f'<{tag} lang="en">{escape(text)}</{tag}>' if fallback else f"<{tag}>{escape(text)}</{tag}>"


def _body_lines(answer: Answer, lang: str) -> list[str]:
    """The answer's own words from verify/lawyer/words.py, without what the page shows
    otherwise: the question, the game (drawn), the rule IDs and the catalogue's texts."""
    lines = render(answer, lang).splitlines()
    if answer.dispute is not None:     # the head: the question (as words.py picks it) and the id
        question = answer.dispute.text("question", lang) or answer.dispute.question
        lines = lines[question.count("\n") + 1:]
    kept: list[str] = []
    drawn = isinstance(answer, FormalAnswer) and answer.game is not None
    # the game's lines, its mark ▶ and the note on moves played on: the page draws the game
    played_on = WORDS.get(lang, WORDS["en"]).get("played_on", WORDS["en"]["played_on"]).split("{")[0]
    for line in lines:
        if line.startswith(WORDS.get(lang, WORDS["en"])["rests"]) or line == _how_head(lang):
            break
        if drawn and (line.startswith(("  ", "▶")) or line.startswith(played_on)):
            continue
        kept.append(line)
    return kept


def _how_head(lang: str) -> str:
    return WORDS.get(lang, WORDS["en"]).get("how", WORDS["en"]["how"])


def _how_lines(answer: Answer, lang: str) -> list[str]:
    """The lines under "How this was decided" of the answer's words: the method, its
    figures and the formal query, which the page shows last, after the answer and game."""
    lines = render(answer, lang).splitlines()
    head = _how_head(lang)
    return [line.strip() for line in lines[lines.index(head) + 1:]] if head in lines else []


def entry_page(answer: Answer, lang: str, layout: Layout, titles: dict[str, str]) -> str:
    """One catalogue entry in `lang`: question, answer, what it rests on, proof or game."""
    dispute = answer.dispute
    assert dispute is not None
    question, fallback = _text(answer, "question", lang)
    root = "../"
    other = [f'<a href="{root}{layout.entry(dispute.id, o)}" hreflang="{o}" lang="{o}">{escape(LANG_NAMES.get(o, o))}'
             f"</a>" for o in layout.langs if o != lang]
    out = [f'<nav><a href="{root}{layout.index(lang)}">{escape(say(lang, "back"))}</a>'
           f'<span class="langs">{" ".join(other)}</span></nav>',
           f'<p class="id"><code>{escape(dispute.id)}</code> · {escape(say(lang, "source"))}: '
           f'<span lang="en">{escape(dispute.source)}</span></p>']
    lang_attr = ' lang="en"' if fallback else ""
    out.append(f"<h1{lang_attr}>{escape(question)}</h1>")
    missing = lang != "en" and any(_text(answer, name, lang)[1] for name in ("question", "explanation", "mistake"))
    if missing:
        out.append(f'<p class="note">{escape(say(lang, "no_german"))}</p>')
    out.append(f'<h2>{escape(say(lang, "answer"))} {badge(answer, lang)}</h2>')
    result = {True: "as_expected", False: "not_expected", None: "undecided"}[as_expected(answer)]
    out.append('<div class="answer">' + "".join(f"<p>{escape(line.strip())}</p>" for line in _body_lines(answer, lang))
               + f'<p>{escape(say(lang, "expected", expected=say(lang, "badge_" + dispute.answer), result=say(lang, result)))}'
               "</p></div>")
    explanation, fell = _text(answer, "explanation", lang)
    out.append(f'<h2>{escape(say(lang, "why"))}</h2>' + _said(explanation, fell))
    mistake, fell = _text(answer, "mistake", lang)
    if mistake:
        out.append(f'<h2>{escape(say(lang, "mistake"))}</h2>' + _said(mistake, fell))
    out.append(f'<h2>{escape(say(lang, "rests"))}</h2><ul class="rests">')
    texts = load_rule_texts()
    for rule_id in answer.rule_ids:
        short = f"<br><small>{escape(texts[rule_id].short(lang))}</small>" if rule_id in texts else ""
        out.append(f'<li><a href="{root}{layout.rule(rule_id, lang)}">{escape(rule_id)}</a> '
                   f"{_title_html(rule_id, lang, titles)}{short}</li>")
    out.append("</ul>")
    out.append(f'<p>{escape(say(lang, "kind"))}: {escape(say(lang, "kind_" + dispute.kind))}</p>')
    if isinstance(answer, FormalAnswer) and answer.game is not None:
        out.append(f'<h2>{escape(say(lang, "game"))}</h2>')
        out.append(draw_game(rounds(answer.game, lang, len(answer.game.steps) - 1), lang))
    how = _how_lines(answer, lang)
    if how:
        out.append(f'<h2>{escape(say(lang, "evidence"))}</h2>'
                   + "".join(f"<p>{escape(line)}</p>" for line in how))
    return shell(lang, f"{dispute.id if fallback else question} — {say(lang, 'book')}", out, 1)


def _entry_item(answer: Answer, lang: str, layout: Layout, root: str) -> str:
    dispute = answer.dispute
    assert dispute is not None
    question, fallback = _text(answer, "question", lang)
    rules = ", ".join(f'<a href="{root}{layout.rule(r, lang)}">{escape(r)}</a>' for r in answer.rule_ids)
    tag = ' lang="en"' if fallback else ""
    mark = f' <small>{escape(say(lang, "english_only"))}</small>' if fallback else ""
    return (f'<li id="{escape(dispute.id)}">{badge(answer, lang)} <a href="{root}{layout.entry(dispute.id, lang)}"{tag}>'
            f'{escape(question)}</a>{mark}<br><span class="id">{escape(dispute.id)}</span> · {rules}</li>')


def _summary(answers: list[Answer], lang: str) -> str:
    verdicts = [as_expected(answer) for answer in answers]
    return say(lang, "summary", ok=verdicts.count(True), count=len(answers), wrong=verdicts.count(False),
               unknown=verdicts.count(None))


def index_page(answers: list[Answer], lang: str, layout: Layout, cited: dict[str, list[str]],
               titles: dict[str, str]) -> str:
    """Every entry (badge, question, id, rule IDs) and every rule ID with its count."""
    other = [f'<a href="{layout.index(o)}" hreflang="{o}" lang="{o}">{escape(LANG_NAMES.get(o, o))}</a>'
             for o in layout.langs if o != lang]
    out = [f'<nav class="langs">{" ".join(other)}</nav>' if other else "",
           f"<h1>{escape(say(lang, 'book'))}</h1>", f"<p>{escape(say(lang, 'intro'))}</p>",
           f"<p><strong>{escape(_summary(answers, lang))}</strong></p>",
           f'<nav><a href="#by-rule">{escape(say(lang, "by_rule"))}</a><a href="#all">{escape(say(lang, "index"))}</a>'
           "</nav>",
           f'<h2 id="by-rule">{escape(say(lang, "by_rule"))}</h2><ul class="rules">']
    for rule_id in titles:
        count = len(cited.get(rule_id, []))
        if count:
            out.append(f'<li><a href="{layout.rule(rule_id, lang)}" title="{escape(_title(rule_id, lang, titles)[0])}">'
                       f"{escape(rule_id)}</a> ({count})</li>")
    out.append("</ul>")
    out.append(f'<h2 id="all">{escape(say(lang, "index"))} ({escape(say(lang, "entries", count=len(answers)))})</h2>')
    out.append('<ul class="entries">' + "".join(_entry_item(a, lang, layout, "") for a in answers) + "</ul>")
    return shell(lang, say(lang, "book"), out, 0)


def rule_page(rule_id: str, answers: list[Answer], lang: str, layout: Layout, titles: dict[str, str]) -> str:
    """A rule ID, its title, its full text in `lang` with where the seeds say it, and every
    entry of the book that rests on it."""
    out = [f'<nav><a href="../{layout.index(lang)}">{escape(say(lang, "back"))}</a></nav>',
           f"<h1>{escape(rule_id)} · {_title_html(rule_id, lang, titles)}</h1>"]
    text = load_rule_texts().get(rule_id)
    if text is not None:        # the whole rule in the page's language, and where the seeds say it
        out.append(f'<h2>{escape(say(lang, "the_rule"))}</h2><div class="answer rule-text">'
                   + "".join(f"<p>{escape(paragraph)}</p>" for paragraph in text.paragraphs[lang]) + "</div>")
        out.append(f'<h2>{escape(say(lang, "seed_sources"))}</h2><ul class="rests">'
                   + "".join(f'<li><span lang="en">{escape(source.seed.title)}</span>: <span lang="en">'
                             f"{escape(source.at)}</span></li>" for source in text.sources) + "</ul>")
    out.append(f"<h2>{escape(say(lang, 'rule_page', rule=rule_id))}</h2>")
    if answers:
        out.append('<ul class="entries">' + "".join(_entry_item(a, lang, layout, "../") for a in answers) + "</ul>")
    else:
        out.append(f"<p>{escape(say(lang, 'no_entries'))}</p>")
    return shell(lang, f"{rule_id} — {say(lang, 'book')}", out, 1)
