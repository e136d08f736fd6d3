"""The mutation analysis as a report: mutation.json, mutation.md, mutation.html.

`shrules mutate --report DIR` hands over the run as plain data, `Run.to_json()` of
verify/diff/mutate.py (this room does not import diff: the run is data here, as a
`PropertyResult` is for report.json), validated against mutation.schema.json before
anything is formatted. Every number the pages show (the tallies per player count, rule ID
and operator, in rulebook and operator order) is in the document already: the pages only
format it, so the JSON and the pages cannot disagree.

Mutant descriptions, reasons and moves are data from the rules being analysed: the HTML
page escapes every one of them, and the Markdown keeps them in code spans and code blocks
or escapes `<`, `>` and `&`, so a description can never turn into markup.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape
from typing import Any

from spec.loader import load_rulebook
from verify.results import MutantStatus

from .html import STYLE
from .markdown import TRACE_LINES, table
from .records import dumps, tool_version
from .schema import validate_mutation

STATUSES = tuple(MutantStatus)
"""The outcomes of verify/diff/mutate.py, in its order (this room does not import diff; the
schema and a test keep the three lists equal)."""
TALLY_HEADER = ("mutants", *STATUSES, "score")
TABLES = (("by_players", "players", "players", "Score per player count"),
          ("by_rule_id", "rule_id", "rule ID", "Per rule ID"),
          ("by_operator", "operator", "operator", "Per operator"))
"""The tallies of the document: its key, the field naming each row, that column's header, the section's title."""

OUTCOME = {0: ("ok", "✅", "Every mutant killed or equivalent"),
           1: ("fail", "❌", "A mutant survived: the catalogue has a gap"),
           3: ("limit", "⚠️", "Not every mutant was decided: some are unknown or were not run")}
SCORE_NOTE = ("The score is killed / (killed + survived): an equivalent mutant cannot be killed, and unknown "
              "and invalid ones are not counted either way.")
RULE_ID_NOTE = ("A mutant touching several rule IDs is counted under each of them; `-` gathers the mutants of "
                "definitions, constants and tables no rule ID names.")
EXTRA_STYLE = ("ol.game{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;margin:6px 0}"
               "td.n{text-align:right}")
"""What the check report's STYLE lacks: numbered moves in a monospace font, numbers aligned right."""


def mutation_texts(document: dict[str, Any]) -> dict[str, str]:
    """Every file of the mutation report (name → text), from a run that matches its schema."""
    validate_mutation(document)
    return {"mutation.json": dumps(document), "mutation.md": mutation_markdown(document),
            "mutation.html": mutation_html(document)}


def score_text(row: dict[str, Any]) -> str:
    """A tally's score as `killed/decided (p%)`, or `-` when no mutant was killed or survived."""
    decided = row["killed"] + row["survived"]
    return f"{row['killed']}/{decided} ({100 * row['killed'] / decided:.1f}%)" if decided else "-"


def _tally_cells(row: dict[str, Any]) -> list[str]:
    return [*(str(row[name]) for name in TALLY_HEADER[:-1]), score_text(row)]


def _rule_ids(outcome: dict[str, Any]) -> str:
    return ", ".join(outcome["rule_ids"]) or "-"


def _headline(document: dict[str, Any]) -> tuple[str, str, str]:
    code = document["exit_status"]
    return OUTCOME.get(code, ("fail", "❌", f"exit status {code}"))


def _run_line(document: dict[str, Any]) -> str:
    """What was run: the checks generated, those run, those a cap left out, the time."""
    players = ", ".join(str(n) for n in document["players"])
    line = (f"{document['total']} mutant checks at {players} players, {len(document['outcomes'])} run in "
            f"{document['seconds']} s")
    if document["not_run"]:
        line += f", {document['not_run']} not run (cap)"
    return line + "; " + ", ".join(f"{name} {document['counts'][name]}" for name in STATUSES) + "."


def _of(document: dict[str, Any], status: MutantStatus) -> list[dict[str, Any]]:
    """The outcomes of `status` in a mutation document (its statuses read as members)."""
    return [outcome for outcome in document["outcomes"] if MutantStatus.parse(outcome["status"]) is status]


def _numbered(game: Sequence[str], limit: int | None = None) -> list[str]:
    """The moves of a game, numbered from 1, cut at `limit` with a line saying how many more."""
    shown = list(game if limit is None else game[:limit])
    width = len(str(len(shown)))
    lines = [f"{index:>{width}}. {move}" for index, move in enumerate(shown, 1)]
    if len(game) > len(shown):
        lines.append(f"… {len(game) - len(shown)} more moves in mutation.json")
    return lines


# ---------------------------------------------------------------- Markdown


def code(text: str) -> str:
    """`text` as a Markdown code span, whatever backticks it holds: shown verbatim, never markup."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def plain(text: str) -> str:
    """Free text (a reason, a note) with `&`, `<` and `>` escaped: Markdown renders raw HTML."""
    return escape(text, quote=False)


def mutation_markdown(document: dict[str, Any]) -> str:
    """The Markdown text of a mutation analysis."""
    _, mark, headline = _headline(document)
    out = [f"# shrules: mutation analysis of the {plain(document['rules'])} rules", "",
           f"**{mark} {headline}** — score {plain(document['score'])} (exit status {document['exit_status']}).", "",
           plain(_run_line(document)), "", f"Rules content hash (sha256): {code(document['rules_hash'])}.", ""]
    out += [f"- {plain(note)}" for note in document["notes"]] + ([""] if document["notes"] else [])
    out += [SCORE_NOTE, ""]
    for key, column, header, title in TABLES:
        out += [f"## {title}", ""] + ([RULE_ID_NOTE, ""] if key == "by_rule_id" else [])
        out += table([header, *TALLY_HEADER],
                     [[code(str(row[column])) if key == "by_operator" else row[column], *_tally_cells(row)]
                      for row in document[key]]) + [""]
    out += _survivors_markdown(_of(document, MutantStatus.SURVIVED))
    out += _unknown_markdown(_of(document, MutantStatus.UNKNOWN))
    return "\n".join(out).rstrip("\n") + "\n"


def _survivors_markdown(survivors: list[dict[str, Any]]) -> list[str]:
    """Every survivor: the mutation in one line, its rule IDs, and the game telling it apart."""
    out = ["## Survivors", ""]
    if not survivors:
        return out + ["No mutant survived.", ""]
    for outcome in survivors:
        out += [f"### #{outcome['number']} {plain(_rule_ids(outcome))}, {outcome['players']} players", "",
                f"{code(outcome['operator'])} on {code(outcome['rule'])}: {code(outcome['description'])}", "",
                f"Told apart: {plain(outcome['detail'])}", ""]
        if outcome["game"]:
            out += [f"The game ({len(outcome['game'])} moves):", "", "```text",
                    *_numbered(outcome["game"], TRACE_LINES), "```", ""]
    return out


def _unknown_markdown(unknown: list[dict[str, Any]]) -> list[str]:
    """Every unknown mutant with the limit or stage that left it undecided."""
    if not unknown:
        return []
    rows = [[f"#{o['number']}", o["players"], plain(_rule_ids(o)), code(o["operator"]),
             code(f"{o['rule']}: {o['description']}"), plain(o["detail"])] for o in unknown]
    return ["## Unknown", ""] + table(["mutant", "players", "rule IDs", "operator", "mutation", "reason"], rows) + [""]


# ---------------------------------------------------------------- HTML


def mutation_html(document: dict[str, Any]) -> str:
    """The HTML page of a mutation analysis: self-contained, every piece of data escaped."""
    css_class, _, headline = _headline(document)
    rules = escape(document["rules"])
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>shrules: mutation analysis of the {rules} rules</title>",
           f"<style>{STYLE}{EXTRA_STYLE}</style>", "</head><body><main>",
           f"<h1>shrules: mutation analysis of the {rules} rules</h1>",
           f'<p class="meta">{escape(_run_line(document).rstrip("."))} · shrules {escape(tool_version())}</p>',
           f'<p class="meta">rules content hash (sha256) <code>{escape(document["rules_hash"])}</code></p>',
           f'<p class="outcome {css_class}">{escape(headline)} — score {escape(document["score"])} '
           f"(exit status {document['exit_status']})</p>", _nav(document), _tiles(document)]
    if document["notes"]:
        out.append("<ul>" + "".join(f"<li>{escape(note)}</li>" for note in document["notes"]) + "</ul>")
    out.append(f"<p>{escape(SCORE_NOTE)}</p>")
    for key, column, header, title in TABLES:
        out.append(f'<h2 id="{key}">{escape(title)}</h2>')
        if key == "by_rule_id":
            out.append(f"<p>{escape(RULE_ID_NOTE).replace('`-`', '<code>-</code>')}</p>")
        out.append(_tally_table(column, header, document[key]))
    out += _survivors_html(_of(document, MutantStatus.SURVIVED))
    out += _unknown_html(_of(document, MutantStatus.UNKNOWN))
    out += ["<footer>Exit status: 0 every mutant killed or equivalent · 1 a survivor · 2 bad input · 3 a mutant "
            "unknown or not run (cap). The whole run, every game in full: mutation.json.</footer>",
            "</main></body></html>"]
    return "\n".join(out) + "\n"


def _nav(document: dict[str, Any]) -> str:
    links = [(key, header) for key, _, header, _ in TABLES] + [("survivors", "survivors")]
    if _of(document, MutantStatus.UNKNOWN):
        links.append(("unknown", "unknown"))
    return "<nav>" + "".join(f'<a href="#{key}">{escape(label)}</a>' for key, label in links) + "</nav>"


def _tiles(document: dict[str, Any]) -> str:
    tiles = [(name, document["counts"][name]) for name in STATUSES] + [("not run", document["not_run"])]
    return ('<div class="tiles">' + "".join(f'<div class="tile">{escape(name)}<b>{value}</b></div>'
                                             for name, value in tiles) + "</div>")


def _tally_table(column: str, header: str, rows: list[dict[str, Any]]) -> str:
    """One tally table; a rule ID's cell carries the rule's title from the rulebook as its tooltip."""
    titles = load_rulebook() if column == "rule_id" else {}
    head = "".join(f"<th>{escape(name)}</th>" for name in (header, *TALLY_HEADER))
    body = []
    for row in rows:
        key = str(row[column])
        tip = f' title="{escape(titles[key])}"' if key in titles else ""
        cells = "".join(f'<td class="n">{escape(cell)}</td>' for cell in _tally_cells(row))
        name = escape(key) if column == "players" else f"<code>{escape(key)}</code>"
        body.append(f"<tr><td{tip}>{name}</td>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _survivors_html(survivors: list[dict[str, Any]]) -> list[str]:
    """Every survivor, open: the mutation in one line, the rule IDs, the numbered game."""
    out = ['<h2 id="survivors">Survivors</h2>']
    if not survivors:
        return out + ["<p>No mutant survived.</p>"]
    for outcome in survivors:
        moves = "".join(f"<li><code>{escape(move)}</code></li>" for move in outcome["game"])
        out.append(f'<details id="survivor-{outcome["number"]}-{outcome["players"]}" open class="bad"><summary>'
                   f"#{outcome['number']} <b>{escape(_rule_ids(outcome))}</b>, {outcome['players']} players — "
                   f"<code>{escape(outcome['operator'])}</code> on <code>{escape(outcome['rule'])}</code>: "
                   f"<code>{escape(outcome['description'])}</code></summary>"
                   f"<p>Told apart: {escape(outcome['detail'])}</p>"
                   + (f'<ol class="game">{moves}</ol>' if moves else "<p>(no game given)</p>") + "</details>")
    return out


def _unknown_html(unknown: list[dict[str, Any]]) -> list[str]:
    """Every unknown mutant with its reason."""
    if not unknown:
        return []
    rows = "".join(f"<tr><td>#{o['number']}</td><td>{o['players']}</td><td>{escape(_rule_ids(o))}</td>"
                   f"<td><code>{escape(o['operator'])}</code></td>"
                   f"<td><code>{escape(o['rule'])}: {escape(o['description'])}</code></td>"
                   f"<td>{escape(o['detail'])}</td></tr>" for o in unknown)
    return ['<h2 id="unknown">Unknown</h2>',
            "<table><thead><tr><th>mutant</th><th>players</th><th>rule IDs</th><th>operator</th><th>mutation</th>"
            f"<th>reason</th></tr></thead><tbody>{rows}</tbody></table>"]
