"""junit.xml: one test case per property × player count, for CI test dashboards.

A case fails when its verdict is not as expected, with the readable trace of the
counterexample or witness as the failure text; a case whose verdict is unknown (a limit
was hit) is skipped with the reason, never passed. A case as expected passes; where it has
a trace (a witness, or a refutation that was expected), the trace goes to system-out.
Cases are sorted by property and player count; the only run-dependent attribute is `time`.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from verify.results import PropertyResult, Status

from .records import RunInfo, counts, sorted_results, status, trace_name, trace_of

TRACE_LINES = 2000
"""Readable trace lines kept in a failure; the full trace is in traces/ as ITF JSON."""


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def trace_text(result: PropertyResult, limit: int = TRACE_LINES) -> str:
    """The readable trace of a result (cut at `limit` lines), or '' when it has none."""
    trace = trace_of(result)
    if trace is None:
        return ""
    lines = trace.lines()
    if len(lines) > limit:
        lines = lines[:limit] + [f"… {len(lines) - limit} more lines: see traces/{trace_name(result)}"]
    return "\n".join(lines)


def _summary(result: PropertyResult) -> str:
    verdict, evidence = result.verdict, result.verdict.evidence
    parts = [f"{verdict.verdict} (expected: {result.expect})", f"method {evidence.method}"]
    if evidence.states is not None:
        parts.append(f"{evidence.states} states")
    if evidence.depth is not None:
        parts.append(f"depth {evidence.depth}")
    if result.rule_ids:
        parts.append("rules " + ", ".join(result.rule_ids))
    return "; ".join(parts)


def junit_xml(results: Sequence[PropertyResult], run: RunInfo) -> str:
    """The JUnit XML text of a run: one suite for the rules, one case per result."""
    ordered = sorted_results(results)
    summary = counts(ordered)
    total = run.total_seconds if run.total_seconds is not None else sum(r.verdict.evidence.seconds for r in ordered)
    attributes = {"name": f"shrules.{run.rules}", "tests": str(summary["checks"]),
                  "failures": str(summary["not_as_expected"]), "errors": "0",
                  "skipped": str(summary["unknown"]), "time": _seconds(total)}
    root = ET.Element("testsuites", attributes)
    suite = ET.SubElement(root, "testsuite", attributes)
    properties = ET.SubElement(suite, "properties")
    for name, value in (("rules", run.rules), ("rules_hash", run.rules_hash or "not given"), ("backend", run.backend),
                        ("players", ",".join(str(n) for n in run.players))):
        ET.SubElement(properties, "property", {"name": name, "value": value})
    for result in ordered:
        case = ET.SubElement(suite, "testcase", {
            "classname": f"shrules.{run.rules}.{result.property}",
            "name": f"{result.property}[{result.players} players]",
            "time": _seconds(result.verdict.evidence.seconds)})
        state = status(result)
        text = trace_text(result)
        if state is Status.UNKNOWN:
            reason = getattr(result.verdict, "reason", "")
            ET.SubElement(case, "skipped", {"message": f"unknown: {reason}"})
        elif state is Status.NOT_AS_EXPECTED:
            message = f"{result.verdict.verdict}, expected {result.expect}: {_summary(result)}"
            failure = ET.SubElement(case, "failure", {"message": message, "type": result.verdict.verdict})
            note = getattr(result.verdict, "message", "")
            failure.text = "\n".join(part for part in (note, text or "(no trace)") if part)
        else:
            out = ET.SubElement(case, "system-out")
            out.text = _summary(result) + (f"\n{text}" if text else "")
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
