"""report.html: one self-contained page — inline CSS, inline SVG, no script, no network.

The outcome, the counts, what changed since the baseline, the verdict matrix (each cell
links to its trace), three charts (reachable states per player count, the shortest game to
each witness per player count, seconds per property), the reasons of unknown verdicts and
every readable trace, folded with <details> (open where a verdict is not as expected).
The page references nothing outside itself except the trace files beside it in traces/.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from verify.results import PropertyResult, Refuted, Status, Unknown

from . import charts
from .junit import trace_text
from .records import (VERDICTS, RunInfo, counts, exit_status, fewest_trace_of, matrix_rows, player_counts,
                      reachable_states, result_record, searches, shortest_elections, sorted_results, status,
                      tool_version, trace_name, trace_of)

OUTCOME = {0: ("ok", "Every verdict as expected"), 1: ("fail", "Not as expected"),
           3: ("limit", "A limit was hit: some verdicts are unknown")}
TIME_ROWS = 30

STYLE = """
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1b;margin:0;background:#fafafa}
main{max-width:1200px;margin:0 auto;padding:16px 24px 48px}
h1{font-size:24px;margin:8px 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd}
.meta{color:#555;margin:0 0 12px}
.outcome{display:inline-block;padding:6px 12px;border-radius:6px;font-weight:600}
.outcome.ok{background:#d8f0dc;color:#14532d}.outcome.fail{background:#fbd5d5;color:#7f1d1d}
.outcome.limit{background:#fdf0c4;color:#713f12}
nav a{margin-right:14px}
.tiles{display:flex;gap:10px;flex-wrap:wrap;margin:12px 0}
.tile{background:#fff;border:1px solid #ddd;border-radius:6px;padding:6px 14px;min-width:96px}
.tile b{display:block;font-size:20px}
table{border-collapse:collapse;background:#fff}
th,td{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f0f0f0}
table.matrix td.v{text-align:center;min-width:88px}
td.v a{color:inherit;text-decoration:none}td.v small{display:block;color:#444;font-size:11px}
.s-as-expected.v-proved{background:#d8f0dc}.s-as-expected.v-witness{background:#d6e9f8}
.s-as-expected.v-refuted,.s-as-expected.v-no-witness{background:#ece4f4}
.s-not-as-expected{background:#fbd5d5;color:#7f1d1d;font-weight:700;outline:2px solid #b91c1c;outline-offset:-2px}
.s-unknown{background:#fdf0c4;color:#713f12}
.legend span{display:inline-block;padding:1px 8px;margin:2px 6px 2px 0;border:1px solid #ddd}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(520px,1fr));gap:16px}
figure{margin:0;background:#fff;border:1px solid #ddd;border-radius:6px;padding:8px}
figcaption{font-weight:600;margin-bottom:4px}svg.chart{width:100%;height:auto;display:block}
details{background:#fff;border:1px solid #ddd;border-radius:6px;margin:6px 0;padding:4px 10px}
summary{cursor:pointer}details.bad{border-color:#b91c1c}
pre{overflow-x:auto;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;margin:6px 0}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
footer{color:#666;margin-top:32px;font-size:12px}
"""


def _anchor(result: PropertyResult) -> str:
    return "trace-" + trace_name(result).removesuffix(".itf.json")


def _cell(result: PropertyResult | None) -> str:
    if result is None:
        return '<td class="v">·</td>'
    record = result_record(result)
    detail = ""
    fewest = shortest_elections(result)
    if fewest is not None:
        detail = f"{fewest} election{'' if fewest == 1 else 's'}"
    elif record["value"] is not None:
        detail = f"longest game {record['value']} moves" if result.kind == "terminates" else f"value {record['value']}"
    elif record["states"] is not None and not isinstance(result.verdict, Refuted):
        detail = f"{charts.compact(record['states'])} states"
    elif record["depth"] is not None:
        detail = f"depth {record['depth']}"
    tip = [f"{result.property}, {result.players} players: {record['verdict']} (expected: {result.expect})",
           f"method {record['method']}"]
    if record["states"] is not None:
        tip.append(f"{record['states']:,} states")
    if record["reason"]:
        tip.append(f"reason: {record['reason']}")
    mark = {Status.NOT_AS_EXPECTED: "✗ ", Status.UNKNOWN: "? "}.get(status(result), "")
    word = f"{mark}{record['verdict']}"
    if trace_of(result) is not None:
        word = f'<a href="#{_anchor(result)}">{word}</a>'
    small = f"<small>{escape(detail)}</small>" if detail else ""
    return (f'<td class="v v-{record["verdict"]} s-{record["status"]}" title="{escape(" · ".join(tip))}">'
            f"{word}{small}</td>")


def _matrix(ordered: Sequence[PropertyResult], players: Sequence[int]) -> list[str]:
    out = ['<table class="matrix"><thead><tr><th>property</th><th>class</th><th>kind</th><th>rules</th>']
    out += [f"<th>{n} players</th>" for n in players]
    out.append("</tr></thead><tbody>")
    for name, kind, by_count in matrix_rows(ordered):
        first = next(iter(by_count.values()))
        description = first.facts.description
        title = f' title="{escape(description)}"' if description else ""
        group = first.facts.group
        out.append(f"<tr><td{title}><code>{escape(name)}</code></td><td>{escape(group)}</td><td>{escape(kind)}</td>"
                   f"<td>{escape(', '.join(first.rule_ids))}</td>")
        out += [_cell(by_count.get(n)) for n in players]
        out.append("</tr>")
    out.append("</tbody></table>")
    out.append('<p class="legend">'
               '<span class="s-as-expected v-proved">proved: holds everywhere</span>'
               '<span class="s-as-expected v-witness">witness: a game where it happens</span>'
               '<span class="s-as-expected v-refuted">refuted / no-witness, as expected</span>'
               '<span class="s-not-as-expected">✗ not as expected (a vacuous verdict always: its premise is '
               'never reached, so it tests nothing)</span>'
               '<span class="s-unknown">? unknown: a limit was hit</span></p>')
    return out


def _charts(ordered: Sequence[PropertyResult], players: Sequence[int]) -> list[str]:
    states = reachable_states(ordered)
    states_svg = charts.bar_chart("Reachable states per player count",
                                  [(f"{n} players", float(s)) for n, s in states.items()], "states")
    series: list[tuple[str, Sequence[float | None]]] = []
    for name, _, by_count in matrix_rows(ordered):
        points = [shortest_elections(by_count[n]) if n in by_count else None for n in players]
        if any(p is not None for p in points):
            series.append((name, [None if p is None else float(p) for p in points]))
    games_svg = charts.line_chart("Shortest game to each witness", list(players), series,
                                  "players", "elected governments")
    rows: list[tuple[str, list[float]]] = []
    for search in searches(ordered)[:TIME_ROWS]:
        values = [0.0] * len(players)
        values[players.index(search.players)] = search.seconds
        rows.append((f"{search.label} ({search.players})", values))
    time_svg = charts.stacked_bars("Seconds per property", rows, [f"{n} players" for n in players], "seconds")
    return ['<div class="charts">',
            f"<figure><figcaption>Reachable states per player count</figcaption>{states_svg}</figure>",
            f"<figure><figcaption>Shortest game to each witness (elected governments)</figcaption>"
            f"{games_svg}</figure>",
            f"<figure><figcaption>Seconds per property (the slowest {TIME_ROWS}; properties decided by one "
            f"shared search are one bar)</figcaption>{time_svg}</figure>",
            "</div>"]


def _traces(ordered: Sequence[PropertyResult]) -> list[str]:
    with_trace = [r for r in ordered if trace_of(r) is not None]
    with_trace.sort(key=lambda r: (status(r) is not Status.NOT_AS_EXPECTED, not isinstance(r.verdict, Refuted),
                                   r.property, r.players))
    if not with_trace:
        return ["<p>No witness or counterexample in this run.</p>"]
    out = []
    for result in with_trace:
        out.append(_trace_block(result))
        fewest = fewest_trace_of(result)
        if fewest is not None:
            record = result_record(result)
            out.append(f'<details id="{_anchor(result)}-fewest-elections"><summary><code>{escape(result.property)}'
                       f"</code>, {result.players} players — the fewest elections: "
                       f"{record['fewest_elections']} elected government"
                       f"{'' if record['fewest_elections'] == 1 else 's'}, {len(fewest.steps)} moves · "
                       f'<a href="{escape(record["fewest_elections_trace"])}">ITF JSON</a></summary>'
                       f"<pre>{escape(chr(10).join(fewest.lines()))}</pre></details>")
    return out


def _trace_block(result: PropertyResult) -> str:
    """The <details> of a result's witness or counterexample."""
    record = result_record(result)
    bad = status(result) is Status.NOT_AS_EXPECTED
    extra = f", {record['elections']} elected governments" if record["elections"] is not None else ""
    if record["shortest_at_least"] is not None:
        extra += f" (not proved the shortest: none takes fewer than {record['shortest_at_least']} moves)"
    message = getattr(result.verdict, "message", "")
    return (f'<details id="{_anchor(result)}"{" open" if bad else ""} class="{"bad" if bad else ""}">'
            f"<summary><code>{escape(result.property)}</code>, {result.players} players — "
            f"{escape(record['verdict'])}{' ✗ not as expected' if bad else ''}: "
            f"{record['trace_moves']} moves{extra} · "
            f'<a href="{escape(record["trace"])}">ITF JSON</a></summary>'
            + (f"<p>{escape(message)}</p>" if message else "")
            + f"<pre>{escape(trace_text(result))}</pre></details>")


def report_html(results: Sequence[PropertyResult], run: RunInfo, changes: Sequence[Any] = ()) -> str:
    """The HTML page of a run."""
    ordered = sorted_results(results)
    players = player_counts(ordered, run)
    summary = counts(ordered)
    code = exit_status(ordered, changes)
    css_class, headline = OUTCOME.get(code, ("fail", f"exit status {code}"))
    if code == 1 and not summary["not_as_expected"]:
        headline = "Changed since the baseline"
    out = ['<!DOCTYPE html>', '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>shrules: the {escape(run.rules)} rules</title>", f"<style>{STYLE}</style>",
           "</head><body><main>",
           f"<h1>shrules: the {escape(run.rules)} rules</h1>",
           f'<p class="meta">backend {escape(run.backend)} · players {", ".join(str(n) for n in players)} · '
           f"shrules {escape(tool_version())}</p>",
           f'<p class="meta">rules content hash (sha256) <code>{escape(run.rules_hash or "not given")}</code></p>',
           f'<p class="outcome {css_class}">{escape(headline)} — {summary["as_expected"]} of {summary["checks"]} '
           f"checks as expected (exit status {code})</p>",
           '<nav><a href="#verdicts">verdicts</a><a href="#charts">charts</a>'
           + ('<a href="#unknown">unknown</a>' if summary["unknown"] else "")
           + '<a href="#traces">traces</a></nav>',
           '<div class="tiles">']
    out += [f'<div class="tile">{name}<b>{summary["verdicts"][name]}</b></div>' for name in VERDICTS]
    out += [f'<div class="tile">not as expected<b>{summary["not_as_expected"]}</b></div>', "</div>"]
    if changes:
        out.append('<h2 id="changes">Changed since the baseline</h2><table><tr><th>property</th><th>players</th>'
                   "<th>change</th></tr>")
        out += [f"<tr><td><code>{escape(c.property)}</code></td><td>{c.players}</td>"
                f"<td>{escape(str(c).split(': ', 1)[1])}</td></tr>" for c in changes]
        out.append("</table>")
    out.append('<h2 id="verdicts">Verdicts</h2>')
    out += _matrix(ordered, players)
    out.append('<h2 id="charts">Charts</h2>')
    out += _charts(ordered, players)
    unknown = [r for r in ordered if isinstance(r.verdict, Unknown)]
    if unknown:
        out.append('<h2 id="unknown">Unknown verdicts</h2><table><tr><th>property</th><th>players</th>'
                   "<th>method</th><th>reason</th></tr>")
        out += [f"<tr><td><code>{escape(r.property)}</code></td><td>{r.players}</td>"
                f"<td>{escape(r.verdict.evidence.method)}</td><td>{escape(r.verdict.reason)}</td></tr>"
                for r in unknown if isinstance(r.verdict, Unknown)]
        out.append("</table>")
    out.append('<h2 id="traces">Traces</h2>')
    out += _traces(ordered)
    out += ["<footer>Exit status: 0 every verdict as expected · 1 a verdict not as expected or changed since "
            "the baseline · 2 bad input · 3 a limit was hit. Verdict data: report.json; seconds: timings.json; "
            "traces: traces/*.itf.json (ITF).</footer>", "</main></body></html>"]
    return "\n".join(out) + "\n"
