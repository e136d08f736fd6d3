"""What a run found: a table of cases per kind and outcome, and each distinct failure once.

Failures group by (kind, outcome, signature): the same exception at the same place, the
same command hanging on the same family of input. Each group shows its smallest case,
which is the quickest to reproduce (`python -m tests.fuzz --only IDENT --keep DIR`).
"""

from __future__ import annotations

import json
import shlex
from collections import Counter, defaultdict
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .model import BAD_OUTCOMES, KINDS, OUTCOMES, Result


def table(results: list[Result]) -> str:
    """Cases per input kind (rows) and outcome (columns)."""
    counts = Counter((r.kind, r.outcome) for r in results)
    kinds = [k for k in KINDS if any(r.kind == k for r in results)]
    width = max([len(k) for k in kinds] + [len("total")])
    head = f"{'kind':<{width}} " + " ".join(f"{o:>9}" for o in OUTCOMES) + f" {'total':>7}"
    rows = [head, "-" * len(head)]
    for kind in kinds + ["total"]:
        cells = [sum(v for (k, o), v in counts.items() if o == outcome and kind in (k, "total")) for outcome in OUTCOMES]
        rows.append(f"{kind:<{width}} " + " ".join(f"{c:>9}" for c in cells) + f" {sum(cells):>7}")
    return "\n".join(rows)


def groups(results: list[Result]) -> list[list[Result]]:
    """The bad results grouped by distinct failure, most frequent first."""
    by_key: dict[tuple[str, str, str], list[Result]] = defaultdict(list)
    for result in results:
        if result.bad:
            by_key[(result.kind, result.outcome, result.signature)].append(result)
    return sorted(by_key.values(), key=lambda g: (BAD_OUTCOMES.index(g[0].outcome), -len(g), g[0].kind))


def command(result: Result) -> str:
    """The command line of a case, quoted for a shell, shortened where an argument is huge."""
    args = [a if len(a) <= 120 else a[:100] + f"…[{len(a)} chars]" for a in result.args]
    return "shrules " + " ".join(shlex.quote(a) for a in args)


def describe(group: list[Result]) -> str:
    """One distinct failure: where, how often, and the smallest example."""
    example = min(group, key=lambda r: (r.size, r.ident))
    families = Counter(r.family for r in group)
    lines = [f"[{example.outcome}] {example.kind}: {example.signature}",
             f"  {len(group)} case(s); families: " + ", ".join(f"{f} ×{n}" for f, n in families.most_common(6)),
             f"  example {example.ident}: {command(example)}"]
    if example.files:
        lines.append(f"  files: {', '.join(example.files)}")
    if example.note:
        lines.append(f"  input: {example.note[:160]}")
    if example.detail:
        lines.append(f"  detail: {example.detail[:300]}")
    lines += [f"  | {line[:200]}" for line in example.stderr_head[:4]]
    return "\n".join(lines)


def failures(results: list[Result]) -> str:
    """Every distinct failure, or a line saying there is none."""
    found = groups(results)
    if not found:
        return "no failures"
    return f"{len(found)} distinct failure(s):\n\n" + "\n\n".join(describe(g) for g in found)


def load(path: Path) -> tuple[list[Result], dict[str, Any]]:
    """The results and run facts of a JSON report, multi-line signatures worked out again
    from the kept stderr lines (so a report reads the same after the grouping improves)."""
    from .runner import multiline_shape

    document = json.loads(path.read_text(encoding="utf-8"))
    results = []
    for entry in document["results"]:
        entry["args"] = tuple(entry["args"])
        result = Result(**entry)
        if result.outcome == "multiline":
            result.signature = f"{result.args[0] if result.args else ''}: {multiline_shape(result.stderr_head)}"
        elif result.outcome == "traceback":
            result.signature = result.signature.split(": ", 1)[0]
        results.append(result)
    return results, document.get("run", {})


def summary(results: list[Result]) -> dict[str, int]:
    return dict(Counter(r.outcome for r in results))


def write_json(path: Path, results: list[Result], info: dict[str, Any]) -> None:
    """Every result, the table's counts and the distinct failures, as one JSON document."""
    document = {
        "run": info,
        "counts": {kind: dict(Counter(r.outcome for r in results if r.kind == kind)) for kind in KINDS},
        "distinct_failures": [
            {"kind": g[0].kind, "outcome": g[0].outcome, "signature": g[0].signature, "cases": len(g),
             "idents": [r.ident for r in g], "example": asdict(min(g, key=lambda r: (r.size, r.ident)))}
            for g in groups(results)],
        "results": [asdict(r) for r in results],
    }
    path.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
