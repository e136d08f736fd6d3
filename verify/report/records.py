"""The data of a verification report: one record per property × player count.

Everything the report files say is computed here, once, from a list of `PropertyResult`
and the run's `RunInfo`; the writers (JSON, JUnit, Markdown, HTML) only format it.
Two halves are kept apart so that a report diffs cleanly:

- the *verdict* half (`report_document`) holds no timing, no timestamp and no absolute
  path, with sorted keys and entries: the same results give the same bytes;
- the *timing* half (`timings_document`) holds the seconds, which change every run.

`PropertyResult.facts` (verify/results.py `Facts`) is how a checker hands over what the
verdict types do not carry; the fields read here are listed in `FACT_FIELDS` (and in
SCHEMA.md), so a fact is documented before it reaches a report.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from spec.properties import KINDS
from engine.trace import Trace
from verify.results import (EXIT_FAILED, EXIT_LIMIT, EXIT_OK, PropertyResult, Proved, Refuted, Status, Unknown, Vacuous,
                            VerdictKind, Witnessed)

REPORT_SCHEMA = "shrules-report"
TIMINGS_SCHEMA = "shrules-timings"
SCHEMA_VERSION = 1
"""Raised when a field changes meaning or goes away; adding an optional field keeps it."""

VERDICTS = tuple(VerdictKind)

FACT_FIELDS: dict[str, str] = {
    "description": "str: the property's one-line description from spec/properties.toml",
    "group": "str: the property's class, conformance or soundness",
    "reachable_states": "int | None: states of the whole reachable graph for this player count, after the "
                        "exact reductions (the same on every result of that count)",
    "reductions": "tuple[str, ...]: the exact reductions the exploration applied, e.g. symmetry, cone, votes, fused",
    "fewest_elections": "int | None: the fewest elected governments any game needs to reach the witness "
                        "(a search over elections, not moves); None when not searched or that search hit a limit",
    "fewest_elections_game": "Played | None: a game that reaches the witness with the fewest elected governments",
}
"""The `PropertyResult.facts` fields a report reads, with their types and meaning."""



@dataclass(frozen=True, slots=True)
class RunInfo:
    """What was checked: the rules' name and content hash, the player counts, the backend.

    `rules_hash` is the sha256 of the rules' behaviour (spec/identity.py `content_hash`):
    a name alone does not say which rules a report is about, since a file may be edited
    after the run or another file may take the same name.

    `all_properties` is False when the run checked a selection of the catalogue; the
    baseline then leaves the properties that were not run alone. `total_seconds` is the
    wall time of the whole run and goes to timings.json only.
    """

    rules: str
    players: tuple[int, ...]
    backend: str
    all_properties: bool = True
    total_seconds: float | None = None
    rules_hash: str | None = None


def tool_version() -> str:
    """The installed shrules version (part of the verdict half: it changes only on release)."""
    try:
        return metadata.version("shrules")
    except metadata.PackageNotFoundError:
        return "unknown"


def result_key(result: PropertyResult) -> tuple[str, int]:
    """The sort key and identity of a result: (property, player count)."""
    return (result.property, result.players)


def sorted_results(results: Iterable[PropertyResult]) -> list[PropertyResult]:
    """The results sorted by property then player count; a duplicate is a checker bug."""
    ordered = sorted(results, key=result_key)
    for before, after in zip(ordered, ordered[1:]):
        if result_key(before) == result_key(after):
            raise ValueError(f"two results for property '{after.property}' with {after.players} players")
    return ordered


def kind_order(kind: str) -> int:
    """Position of a property kind in the catalogue's order (invariants first, graph last)."""
    return KINDS.index(kind) if kind in KINDS else len(KINDS)


def matrix_rows(results: Sequence[PropertyResult]) -> list[tuple[str, str, dict[int, PropertyResult]]]:
    """(property, kind, {players: result}) per property, grouped by kind, then by name."""
    rows: dict[str, dict[int, PropertyResult]] = {}
    kinds: dict[str, str] = {}
    for result in results:
        rows.setdefault(result.property, {})[result.players] = result
        kinds[result.property] = result.kind
    names = sorted(rows, key=lambda name: (kind_order(kinds[name]), name))
    return [(name, kinds[name], rows[name]) for name in names]


def player_counts(results: Sequence[PropertyResult], run: RunInfo) -> list[int]:
    """Every player count of the run or of a result, ascending."""
    return sorted(set(run.players) | {result.players for result in results})


def trace_name(result: PropertyResult) -> str:
    """The deterministic file name of a result's trace: `<property>-<n>.itf.json`."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", result.property)
    return f"{safe}-{result.players}.itf.json"


def fewest_trace_name(result: PropertyResult) -> str:
    """The file name of a result's fewest-elections game: `<property>-<n>.fewest-elections.itf.json`."""
    return trace_name(result).removesuffix(".itf.json") + ".fewest-elections.itf.json"


def fewest_trace_of(result: PropertyResult) -> Trace | None:
    """The game reaching a witness with the fewest elections (facts.fewest_elections_game), or None."""
    game = result.facts.fewest_elections_game
    return None if game is None else game.trace


def trace_of(result: PropertyResult) -> Trace | None:
    """The trace of a witness or counterexample, or of the standard rules' shortest game to
    the premise a vacuous verdict never reaches; or None."""
    verdict = result.verdict
    if isinstance(verdict, (Refuted, Witnessed, Vacuous)):
        return verdict.trace
    return None


def status(result: PropertyResult) -> Status:
    """`as-expected`, `not-as-expected` or `unknown`."""
    as_expected = result.as_expected
    if as_expected is None:
        return Status.UNKNOWN
    return Status.AS_EXPECTED if as_expected else Status.NOT_AS_EXPECTED


def elections(result: PropertyResult) -> int | None:
    """Elected governments in the witness (Witnessed.elections), or None."""
    return result.verdict.elections if isinstance(result.verdict, Witnessed) else None


def shortest_elections(result: PropertyResult) -> int | None:
    """The elections of the shortest game to a witness: facts.fewest_elections when the
    checker searched for it, else the elections of the witness trace."""
    fewest = result.facts.fewest_elections
    return fewest if fewest is not None else elections(result)


def result_record(result: PropertyResult) -> dict[str, Any]:
    """The verdict record of one result: every key always present, null when it does not apply."""
    verdict, evidence = result.verdict, result.verdict.evidence
    trace = trace_of(result)
    facts = result.facts
    return {
        "property": result.property,
        "players": result.players,
        "kind": result.kind,
        "rule_ids": list(result.rule_ids),
        "description": facts.description,
        "class": facts.group if facts.group in ("conformance", "soundness") else None,
        "expect": result.expect,
        "verdict": verdict.verdict.value,
        "as_expected": result.as_expected,
        "status": status(result).value,
        "reason": verdict.reason if isinstance(verdict, Unknown) else None,
        "message": verdict.message if isinstance(verdict, (Refuted, Vacuous)) else None,
        "method": evidence.method,
        "states": evidence.states,
        "transitions": evidence.transitions,
        "depth": evidence.depth,
        "note": evidence.note,
        "value": verdict.value if isinstance(verdict, Proved) else None,
        "elections": elections(result),
        "fewest_elections": facts.fewest_elections,
        "fewest_elections_trace": f"traces/{fewest_trace_name(result)}" if fewest_trace_of(result) else None,
        "reachable_states": facts.reachable_states,
        "reductions": sorted(facts.reductions),
        "trace": f"traces/{trace_name(result)}" if trace is not None else None,
        "trace_moves": len(trace.steps) if trace is not None else None,
        "shortest_at_least": getattr(verdict, "lower_bound", None),
    }


def reachable_states(results: Sequence[PropertyResult]) -> dict[int, int]:
    """States of the reachable graph per player count: facts.reachable_states where a
    checker gave it, else the most states any explicit check of that count explored."""
    given: dict[int, int] = {}
    explored: dict[int, int] = {}
    for result in results:
        value = result.facts.reachable_states
        if value is not None:
            given[result.players] = max(value, given.get(result.players, 0))
        states = result.verdict.evidence.states
        if states is not None and result.verdict.evidence.method == "explicit":
            explored[result.players] = max(states, explored.get(result.players, 0))
    return {n: given.get(n, explored.get(n, 0)) for n in sorted(set(given) | set(explored))}


def counts(results: Sequence[PropertyResult]) -> dict[str, Any]:
    """How many checks there were, how many as expected, and how many of each verdict."""
    statuses = [status(result) for result in results]
    return {
        "checks": len(results),
        "as_expected": statuses.count(Status.AS_EXPECTED),
        "not_as_expected": statuses.count(Status.NOT_AS_EXPECTED),
        "unknown": statuses.count(Status.UNKNOWN),
        "verdicts": {name: sum(1 for r in results if r.verdict.verdict is name) for name in VERDICTS},
    }


def exit_status(results: Sequence[PropertyResult], changes: Sequence[object] = ()) -> int:
    """0 every verdict as expected; 1 one not as expected or a change from the baseline;
    3 otherwise when a limit was hit (an unknown verdict)."""
    statuses = {status(result) for result in results}
    if Status.NOT_AS_EXPECTED in statuses or changes:
        return EXIT_FAILED
    if Status.UNKNOWN in statuses:
        return EXIT_LIMIT
    return EXIT_OK


def report_document(results: Sequence[PropertyResult], run: RunInfo,
                    changes: Sequence[Any] = ()) -> dict[str, Any]:
    """The verdict half of the report (report.json): byte-stable for the same results."""
    ordered = sorted_results(results)
    return {
        "schema": REPORT_SCHEMA,
        "version": SCHEMA_VERSION,
        "tool": {"name": "shrules", "version": tool_version()},
        "rules": run.rules,
        "rules_hash": run.rules_hash,
        "backend": run.backend,
        "players": player_counts(ordered, run),
        "all_properties": run.all_properties,
        "exit_status": exit_status(ordered, changes),
        "summary": counts(ordered),
        "reachable_states": [{"players": n, "states": s} for n, s in reachable_states(ordered).items()],
        "baseline_changes": [change.as_dict() for change in changes],
        "results": [result_record(result) for result in ordered],
    }


def timings_document(results: Sequence[PropertyResult], run: RunInfo) -> dict[str, Any]:
    """The timing half (timings.json): seconds per check and for the run; changes every run.

    Checks decided by one shared search each carry that search's seconds, so
    `summed_seconds` counts shared work more than once; `run_seconds` is the wall time."""
    ordered = sorted_results(results)
    total = sum(result.verdict.evidence.seconds for result in ordered)
    return {
        "schema": TIMINGS_SCHEMA,
        "version": SCHEMA_VERSION,
        "rules": run.rules,
        "backend": run.backend,
        "summed_seconds": round(total, 3),
        "run_seconds": None if run.total_seconds is None else round(run.total_seconds, 3),
        "results": [{"property": r.property, "players": r.players,
                     "seconds": round(r.verdict.evidence.seconds, 3)} for r in ordered],
    }


@dataclass(frozen=True, slots=True)
class Search:
    """The work behind one or more verdicts: checks of one player count whose evidence is
    the same (method, states, transitions, seconds) were decided by one shared search."""

    players: int
    method: str
    states: int | None
    seconds: float
    properties: tuple[str, ...]

    @property
    def label(self) -> str:
        """The property's name, or how many properties the search decided."""
        if len(self.properties) == 1:
            return self.properties[0]
        return f"{len(self.properties)} properties, one search"


def searches(results: Sequence[PropertyResult]) -> list[Search]:
    """The searches behind the results, slowest first (ties by player count and label)."""
    groups: dict[tuple[Any, ...], list[str]] = {}
    for result in results:
        evidence = result.verdict.evidence
        key = (result.players, evidence.method, evidence.states, evidence.transitions, evidence.seconds)
        groups.setdefault(key, []).append(result.property)
    found = [Search(key[0], key[1], key[2], key[4], tuple(sorted(names))) for key, names in groups.items()]
    return sorted(found, key=lambda s: (-s.seconds, s.players, s.label))


def slowest(results: Sequence[PropertyResult], limit: int = 10) -> list[Search]:
    """The `limit` slowest searches, slowest first."""
    return searches(results)[:limit]


def dumps(document: Any) -> str:
    """Stable JSON text: sorted keys, two-space indent, UTF-8 as is, newline at the end."""
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
