"""report.md: the run in Markdown, fit for a CI job summary ($GITHUB_STEP_SUMMARY).

The outcome in one line, the counts, what changed since the baseline, the verdict matrix
(property × player count), the reasons of unknown verdicts, the slowest checks (shared searches counted once), and the
readable trace of everything refuted (folded with <details>, which GitHub renders).
Traces are cut at `TRACE_LINES` lines (the step summary is limited to 1 MiB); the full
trace is always in traces/ as ITF JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from verify.results import PropertyResult, Refuted, Status, Unknown

from .junit import trace_text
from .records import (VERDICTS, RunInfo, counts, exit_status, matrix_rows, player_counts, shortest_elections,
                      slowest, sorted_results, status, trace_name)

TRACE_LINES = 300
OUTCOME = {0: "✅ every verdict as expected", 1: "❌ not as expected", 3: "⚠️ a limit was hit"}


def cell(result: PropertyResult | None) -> str:
    """A matrix cell: the verdict in a word, marked when not as expected or unknown."""
    if result is None:
        return "·"
    word = str(result.verdict.verdict)
    count = shortest_elections(result)
    if count is not None:
        word += f" ({count} el.)"
    state = status(result)
    if state is Status.NOT_AS_EXPECTED:
        return f"❌ **{word}**"
    if state is Status.UNKNOWN:
        return f"⚠️ {word}"
    return word


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    """A Markdown table, each cell on one line with its pipes escaped, so data never splits a row."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_escape(str(value)) for value in row) + " |" for row in rows]
    return lines


def _outcome_line(code: int, summary: dict[str, Any], changed: int) -> str:
    parts = [f"{summary['as_expected']} of {summary['checks']} checks as expected"]
    if summary["not_as_expected"]:
        parts.append(f"{summary['not_as_expected']} not as expected")
    if summary["unknown"]:
        parts.append(f"{summary['unknown']} unknown")
    if changed:
        parts.append(f"{changed} changed since the baseline")
    headline = OUTCOME.get(code, str(code))
    if code == 1 and not summary["not_as_expected"]:
        headline = "❌ changed since the baseline"
    return f"**{headline}** — " + ", ".join(parts) + f" (exit status {code})."


def report_markdown(results: Sequence[PropertyResult], run: RunInfo, changes: Sequence[Any] = ()) -> str:
    """The Markdown text of a run."""
    ordered = sorted_results(results)
    summary = counts(ordered)
    code = exit_status(ordered, changes)
    counts_of_players = player_counts(ordered, run)
    out = [f"# shrules: the {run.rules} rules", "",
           f"Backend **{run.backend}**, player counts {', '.join(str(n) for n in counts_of_players)}.", "",
           f"Rules content hash (sha256): `{run.rules_hash or 'not given'}`.", "",
           _outcome_line(code, summary, len(changes)), ""]
    out += table(["verdict", *VERDICTS], [["checks", *(summary["verdicts"][v] for v in VERDICTS)]]) + [""]
    if changes:
        out += ["## Changed since the baseline", ""]
        out += table(["property", "players", "change"],
                     [[c.property, c.players, str(c).split(": ", 1)[1]] for c in changes]) + [""]
    out += ["## Verdicts", ""]
    rows = [[f"`{name}`", next(iter(by_count.values())).facts.group, kind,
             *(cell(by_count.get(n)) for n in counts_of_players)]
            for name, kind, by_count in matrix_rows(ordered)]
    out += table(["property", "class", "kind", *(f"{n} players" for n in counts_of_players)], rows)
    out += ["", "*proved* an invariant holds · *witness* a game where it happens (elections to reach it) · "
            "*refuted* a counterexample · *no-witness* it never happens · *vacuous* holds only because its premise is "
            "never reached: it tests nothing, never a pass · *unknown* a limit was hit", ""]
    unknown = [r for r in ordered if isinstance(r.verdict, Unknown)]
    if unknown:
        out += ["## Unknown verdicts", ""]
        out += table(["property", "players", "method", "reason"],
                     [[r.property, r.players, r.verdict.evidence.method, r.verdict.reason]
                      for r in unknown if isinstance(r.verdict, Unknown)]) + [""]
    out += ["## Slowest checks", "",
            "Checks of one player count with the same evidence were decided by one shared search.", ""]
    out += table(["property", "players", "method", "states", "seconds"],
                 [[search.label, search.players, search.method,
                   "" if search.states is None else f"{search.states:,}",
                   f"{search.seconds:.2f}"] for search in slowest(ordered)]) + [""]
    refuted = [r for r in ordered if isinstance(r.verdict, Refuted)]
    if refuted:
        out += ["## Counterexamples", ""]
        for result in refuted:
            out += _trace_section(result)
    return "\n".join(out).rstrip("\n") + "\n"


def _trace_section(result: PropertyResult) -> list[str]:
    expected = status(result) is Status.AS_EXPECTED
    head = (f"<details{'' if expected else ' open'}><summary><code>{result.property}</code>, "
            f"{result.players} players: refuted{' (as expected)' if expected else ', expected to hold'}"
            "</summary>")
    verdict = result.verdict
    lines = [head, ""]
    if isinstance(verdict, Refuted) and verdict.message:
        lines += [verdict.message, ""]
    text = trace_text(result, TRACE_LINES)
    if text:
        lines += [f"Trace `traces/{trace_name(result)}`:", "", "```text", text, "```"]
    else:
        lines += ["(the checker gave no trace)"]
    return lines + ["", "</details>", ""]
