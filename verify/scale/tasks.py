"""A check as a value: the `Task`, its key, and the pure function that decides it.

A task names the rules (by their rules name, settings folded in: spec/settings.py), one
player count, what to decide (the catalogue's property names), the backend and the limits.
Its key is a SHA-256 over all of that and over the digest of the shipped spec and code,
so a result kept under the key is the result the task would compute again: a change of a
rule, a property or the checker gives every task a new key. `run_task` returns plain
JSON data (verdicts, graph facts, the shortest games as readable lines), so results cross
process and machine boundaries and are kept as files; the seconds a task took (wall clock
and CPU) are kept apart (`seconds`, `cpu_seconds`), because they differ from run to run while the verdicts must not.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from engine.game import compiled_game
from spec.loader import load_spec
from spec.model import Spec
from spec.properties import Property

from ..checker import check
from ..explicit.check import DEFAULT_EXPLORER, moves_of, select
from ..explicit.reductions import Reductions
from ..results import Limits, PropertyResult, Refuted, Unknown, Unwitnessed, Witnessed
from ..rules import Rules

ROOT = Path(__file__).resolve().parents[2]
"""The folder holding spec/, engine/ and verify/ (the package as installed or checked out)."""

KEY_VERSION = 3
"""Raised when the shape of a result changes, so results kept by an older shrules are not read."""


@dataclass(frozen=True, slots=True)
class Task:
    """One independent check: these properties of these rules at one player count."""

    rules: str                          # a rules name, e.g. custom[powers=none,none,peek,execution,execution]
    players: int
    properties: tuple[str, ...]         # catalogue names; empty: the whole catalogue
    backend: str = "explicit"
    explorer: str = DEFAULT_EXPLORER
    max_states: int | None = None
    time_limit: float | None = None
    memory_limit: int | None = None
    kind: str = "summary"               # what the result holds: summary (run_task) or raws (checks.run_raws)
    infer: bool = False                 # the solver backend: with invariants found in played games
    hints: bool = True                  # the solver backend: with spec/invariants.toml

    @property
    def limits(self) -> Limits:
        """The limits the checker gives up under."""
        return Limits(self.max_states, self.time_limit, self.memory_limit)

    @property
    def key(self) -> str:
        """The digest of everything that decides the result (see the module docstring)."""
        material = json.dumps([KEY_VERSION, code_digest(), rules_digest(self.rules), asdict(self)], sort_keys=True)
        return hashlib.sha256(material.encode()).hexdigest()

    def label(self) -> str:
        """A short name for progress lines and Dask's dashboard."""
        return f"{self.rules} {self.players}p"


@lru_cache(maxsize=1)
def code_digest() -> str:
    """The digest of every file of spec/, engine/ and verify/ that can change a verdict:
    the rules, properties and variants (TOML) and the code that reads them."""
    digest = hashlib.sha256()
    for folder in ("spec", "engine", "verify"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".py", ".toml") and path.is_file():
                digest.update(str(path.relative_to(ROOT)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


@lru_cache(maxsize=256)
def rules_digest(rules: str) -> str:
    """What the rules name stands for in a task's key: a shipped variant (with or without
    settings) is its name, which `code_digest` already covers; a file of the user's is the
    rules loaded from it. The key only finds an entry, cheaply (a sweep computes thousands);
    what an entry is for is its `stamp`, the rules' content hash among it, checked again
    when the entry is read (trust.py), so no name stands for a rules file's content."""
    base = rules.split("[", 1)[0]
    path = Path(base)
    if path.suffix == ".toml" or path.is_file():
        return hashlib.sha256(repr(_behaviour(load_spec(rules), None)).encode()).hexdigest()
    return rules


def content_hash(rules: str, players: int | None = None) -> str:
    """The SHA-256 of what the loaded rules do (`_behaviour`), at one count when `players`
    is given: not their name, descriptions or file, and loaded afresh each time (a rules
    file edited meanwhile is a new hash). What a kept verdict is matched by."""
    return hashlib.sha256(repr(_behaviour(load_spec(rules), players)).encode()).hexdigest()


def properties_digest(props: tuple[Property, ...]) -> str:
    """The SHA-256 of the properties as written (name, kind, text, expectation, counts,
    rules), in the order given: a kept verdict is for these texts, not for their names."""
    material = [(p.name, p.kind, p.text, p.expect, list(p.players), list(p.on), list(p.rule_ids), p.report,
                 p.group, p.rules) for p in props]
    return hashlib.sha256(json.dumps(material).encode()).hexdigest()


def code_version() -> str:
    """The version of the code that decides a verdict: the shape of kept results and the
    digest of spec/, engine/ and verify/."""
    return f"{KEY_VERSION}:{code_digest()}"


def stamp(rules: str, players: int, props: tuple[Property, ...]) -> dict[str, Any]:
    """What a kept verdict is for: the rules' content hash at the count, the count, the
    properties' text and the code version. A kept entry with another stamp is a miss."""
    return {"rules_hash": content_hash(rules, players), "players": players,
            "properties": properties_digest(props), "code": code_version()}


def _behaviour(spec: Spec, players: int | None) -> tuple[Any, ...]:
    """The parts of the rules that decide their games, at one count when `players` is
    given (a table's rows for other counts dropped): not names, descriptions or files."""
    constants = {name: value for name, value in spec.constants.items() if name not in ("min_players", "max_players")}
    tables = {name: (rows.get(players) if players is not None else rows) for name, rows in spec.tables.items()}
    return (sorted(constants.items()), sorted(tables.items(), key=lambda item: item[0]), spec.enums, spec.fields,
            spec.definitions, spec.rules)


def canonical_form(rules: str, players: int) -> str:
    """A digest of the rules as they play at `players`: two rule sets with the same digest
    make the same moves from the same start (the settings may differ only where they do
    not apply at that count, or name the standard value)."""
    return hashlib.sha256(repr(_behaviour(load_spec(rules), players)).encode()).hexdigest()[:16]


def run_task(task: Task) -> dict[str, Any]:
    """The task decided: plain JSON data (module docstring). A pure function of the task."""
    started, cpu = time.perf_counter(), time.process_time()
    rules = Rules.named(task.rules)     # a task names its rules (its key, its cache entry): loaded here once
    results = check(rules, (task.players,), task.properties or None, task.limits,
                    reductions=Reductions(), backend=task.backend, workers=1, explorer=task.explorer)
    form = canonical_form(task.rules, task.players)
    forget_games()
    return {"key": task.key, "rules": task.rules, "players": task.players, "form": form,
            "stamp": stamp(task.rules, task.players, select(rules, task.properties or None)),
            "results": [summarise(result) for result in results],
            "seconds": round(time.perf_counter() - started, 3), "cpu_seconds": round(time.process_time() - cpu, 3)}


KEPT_GAMES = 16
"""Compiled games a worker keeps between tasks: a sweep's rule sets are each used once, so
a worker that kept every one would grow by a compiled game per task."""


def forget_games() -> None:
    """Drop the engine's compiled games when a worker holds more than KEPT_GAMES."""
    if compiled_game.cache_info().currsize > KEPT_GAMES:
        compiled_game.cache_clear()


def summarise(result: PropertyResult) -> dict[str, Any]:
    """One verdict as plain data: the verdict, whether as expected, its class, the size of
    its evidence, the graph facts, and the shortest game when it is not as expected."""
    verdict = result.verdict
    item: dict[str, Any] = {"property": result.property, "verdict": verdict.verdict.value,
                            "as_expected": result.as_expected, "class": result.facts.group or None,
                            "rules": list(result.rule_ids), "states": verdict.evidence.states}
    given = result.facts.given()
    for name in ("fewest_elections", "longest_moves", "longest_elections"):
        if name in given:
            item[name] = given[name]
    trace = getattr(verdict, "trace", None)
    if isinstance(verdict, (Refuted, Witnessed)) and trace is not None:
        item["moves"] = len(trace.steps)
        item["elections"] = trace.elections()
        item["played"] = [[rule, list(args)] for rule, args in moves_of(trace)]   # replayed when read back
        if result.as_expected is False:
            item["game"] = trace.lines(changes=False)
    if isinstance(verdict, Refuted):
        item["message"] = verdict.message
    elif isinstance(verdict, Unknown):
        item["message"] = verdict.reason
    elif isinstance(verdict, Unwitnessed):
        item["message"] = "a complete search found no game where it happens"
    return item
