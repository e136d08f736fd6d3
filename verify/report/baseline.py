"""The regression gate: verdicts compared with the committed baseline in `reports/`.

A baseline is one file per rules, `reports/<rules>/verdicts.json`, holding only verdict
data — for each property × player count its kind, its expectation and its verdict — one
entry per line, sorted, so that `git diff reports/` shows exactly what a change of the
rules (or of the checker) changed. No evidence sizes, no timings: an exploration that gets
faster or a reduction that shrinks the graph does not touch it.

The comparison covers what the run covered: an entry of the baseline whose player count
was not run, or whose property was not selected (`RunInfo.all_properties` False), is left
alone; one whose count was run in a full run but which the run no longer has is reported
as removed. `update` rewrites the entries the run covered and keeps the rest.

API: `baseline_path`, `load_baseline` (None when absent; `SpecError` when malformed),
`entries_of(results)`, `compare(...)` → list of `Change`, `render`, `update`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.safe_json import read_json
from spec.errors import SpecError, shown
from spec.files import write_atomic
from verify.results import PropertyResult, VerdictKind

from .records import SCHEMA_VERSION, VERDICTS, RunInfo

BASELINE_FILE = "verdicts.json"
BASELINE_SCHEMA = "shrules-verdicts"
ENTRY_KEYS = ("expect", "kind", "players", "property", "verdict")

Key = tuple[str, int]


@dataclass(frozen=True, slots=True, order=True)
class Entry:
    """One line of a baseline: the verdict of a property for a player count."""

    property: str
    players: int
    kind: str
    expect: str
    verdict: VerdictKind

    def as_dict(self) -> dict[str, Any]:
        """The entry as the JSON object of its line."""
        return {"expect": self.expect, "kind": self.kind, "players": self.players,
                "property": self.property, "verdict": self.verdict.value}


@dataclass(frozen=True, slots=True, order=True)
class Change:
    """A difference from the baseline. `old` is None for a new entry, `new` for a removed one."""

    property: str
    players: int
    field: str              # verdict | expect | added | removed
    old: str | None
    new: str | None

    def __str__(self) -> str:
        old = self.old if self.old is not None else "(not in the baseline)"
        new = self.new if self.new is not None else "(not checked any more)"
        label = "expect " if self.field == "expect" else ""
        return f"{self.property}, {self.players} players: {label}{old} → {new}"

    def as_dict(self) -> dict[str, Any]:
        """The change as a JSON object (report.json's `baseline_changes`)."""
        return {"property": self.property, "players": self.players, "field": self.field,
                "old": self.old, "new": self.new}


REPOSITORY_BASELINES = Path(__file__).resolve().parents[2] / "reports"
"""The repository's baselines: the standard rules' verdicts, kept in step by CI."""


def baseline_path(directory: str | Path, rules: str) -> Path:
    """Where the baseline of the rules named `rules` lives under a baseline directory (a
    name is one folder: a separator or anything unusual in it becomes `_`)."""
    folder = re.sub(r"[^A-Za-z0-9_.=,;\[\]-]", "_", rules).lstrip(".") or "_"
    return Path(directory) / folder / BASELINE_FILE


def entries_of(results: Iterable[PropertyResult]) -> dict[Key, Entry]:
    """The baseline entries of a run's results."""
    out: dict[Key, Entry] = {}
    for result in results:
        key = (result.property, result.players)
        if key in out:
            raise ValueError(f"two results for property '{result.property}' with {result.players} players")
        out[key] = Entry(result.property, result.players, result.kind, result.expect, result.verdict.verdict)
    return out


def load_baseline(path: str | Path) -> dict[Key, Entry] | None:
    """The entries of a baseline file, None when there is none, `SpecError` when malformed."""
    path = Path(path)
    if not path.exists():
        return None
    try:
        data = read_json(path)
    except SpecError as error:
        raise SpecError(f"the baseline is not JSON: {error.message}", error.where) from None
    if not isinstance(data, dict) or data.get("schema") != BASELINE_SCHEMA:
        raise SpecError(f"{path}: not a shrules baseline (expected \"schema\": \"{BASELINE_SCHEMA}\")")
    if data.get("version") != SCHEMA_VERSION:
        raise SpecError(f"{path}: baseline version {shown(data.get('version'))}; this shrules reads version "
                        f"{SCHEMA_VERSION}: rewrite it with --update-baseline")
    items = data.get("verdicts")
    if not isinstance(items, list):
        raise SpecError(f"{path}: \"verdicts\" must be a list of entries")
    out: dict[Key, Entry] = {}
    for index, item in enumerate(items):
        out_entry = _entry(item, f"{path}: verdicts[{index}]")
        key = (out_entry.property, out_entry.players)
        if key in out:
            raise SpecError(f"{path}: verdicts[{index}]: a second entry for {key[0]} with {key[1]} players")
        out[key] = out_entry
    return out


def _entry(item: Any, where: str) -> Entry:
    if not isinstance(item, dict) or sorted(item) != sorted(ENTRY_KEYS):
        raise SpecError(f"{where}: an entry has exactly the keys {', '.join(ENTRY_KEYS)}")
    if not isinstance(item["players"], int) or isinstance(item["players"], bool):
        raise SpecError(f"{where}: players must be an integer, got {shown(item['players'])}")
    for key in ("property", "kind", "expect", "verdict"):
        if not isinstance(item[key], str):
            raise SpecError(f"{where}: {key} must be a string, got {shown(item[key])}")
    try:
        verdict = VerdictKind.parse(item["verdict"])
    except ValueError:
        raise SpecError(f"{where}: verdict must be one of {', '.join(VERDICTS)}, "
                        f"got {shown(item['verdict'])}") from None
    return Entry(item["property"], item["players"], item["kind"], item["expect"], verdict)


def in_scope(key: Key, run: RunInfo, ran: Mapping[Key, Entry]) -> bool:
    """Whether the run covered a baseline entry: its count was run, and its property was
    run or the run checked the whole catalogue."""
    name, players = key
    if players not in run.players:
        return False
    return run.all_properties or any(other == name for other, _ in ran)


def compare(baseline: Mapping[Key, Entry], results: Iterable[PropertyResult], run: RunInfo) -> list[Change]:
    """Every difference between a run and the baseline, sorted by property and count."""
    ran = entries_of(results)
    changes: list[Change] = []
    for key, entry in ran.items():
        old = baseline.get(key)
        if old is None:
            changes.append(Change(entry.property, entry.players, "added", None, entry.verdict))
            continue
        if old.verdict != entry.verdict:
            changes.append(Change(entry.property, entry.players, "verdict", old.verdict, entry.verdict))
        if old.expect != entry.expect:
            changes.append(Change(entry.property, entry.players, "expect", old.expect, entry.expect))
    for key, old in baseline.items():
        if key not in ran and in_scope(key, run, ran):
            changes.append(Change(old.property, old.players, "removed", old.verdict, None))
    return sorted(changes)


def render(rules: str, entries: Mapping[Key, Entry]) -> str:
    """The baseline file's text: sorted, one entry per line, byte-stable."""
    lines = [json.dumps(entries[key].as_dict(), sort_keys=True, ensure_ascii=False) for key in sorted(entries)]
    body = ",\n".join(f"    {line}" for line in lines)
    return (
        "{\n"
        f"  \"rules\": {json.dumps(rules, ensure_ascii=False)},\n"
        f"  \"schema\": \"{BASELINE_SCHEMA}\",\n"
        f"  \"version\": {SCHEMA_VERSION},\n"
        "  \"verdicts\": [\n"
        f"{body}{chr(10) if body else ''}"
        "  ]\n"
        "}\n"
    )


def update(directory: str | Path, results: Iterable[PropertyResult], run: RunInfo) -> tuple[Path, list[Change]]:
    """Rewrite the baseline of `run.rules` with the run's verdicts (entries the run did not
    cover are kept); returns the file and what changed in it."""
    results = list(results)
    path = baseline_path(directory, run.rules)
    old = load_baseline(path) or {}
    ran = entries_of(results)
    changes = compare(old, results, run)
    merged = {key: entry for key, entry in old.items() if key not in ran and not in_scope(key, run, ran)}
    merged.update(ran)
    write_atomic(path, render(run.rules, merged), root=Path(directory))   # no link in the folder followed
    return path, changes
