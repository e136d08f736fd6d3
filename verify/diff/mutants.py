"""The mutation score: every deliberately wrong rule set must be told apart from the rules.

The mutants are the variants in spec/variants/mistakes/ — the common mistakes of the
German refresher and the rule bugs of other engines — each an overlay of the standard
rules. A mutant is *caught* when

1. a property it says it breaks (its `[expect]` / `[properties]` with `expect = "fails"`)
   gets the verdict that contradicts the rules' own expectation under the mutant, found
   by the explicit-state checker (verify/checker.py) for the player counts asked; or else
2. `shrules diff` finds a game that tells it apart from the rules (verify/diff/compare.py).

The score is caught / total, with what caught each. A mutant nobody catches is either a
gap in the property catalogue and the diff, or a mutant that changes nothing: both need
looking at, so the test suite requires 100%.

That score leans on each mutant's own `[expect]` and on `diff`, which tells any change
apart. Beside it stands the figure that measures the catalogue: the mutant is caught by
the catalogue alone (`catch_by_catalogue`) when some property the standard rules satisfy
is refuted, or loses its witness in a complete search, under the mutant, with no help
from the mutant file.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engine.game import Game
from spec.errors import SpecError
from spec.loader import VARIANTS_DIR, load_spec
from spec.model import Spec
from spec.properties import load_properties

from ..budgets import (MISTAKES_DIFF_SECONDS, MISTAKES_PROPERTY_SECONDS, MISTAKES_RANDOM_SECONDS, PROBE_SECONDS, QUICK_DIFF_SECONDS,
                       QUICK_PROPERTY_SECONDS, QUICK_RANDOM_SECONDS)
from ..checker import check
from ..explicit.check import check_game, probe_game
from ..results import PropertyResult, Refuted, Unwitnessed, Vacuous, Witnessed
from ..explicit.explore import Limits
from ..results import Refuted, Unwitnessed, Vacuous
from ..rules import Rules
from ..workers import WorkerPool
from .compare import Budget, diff
from .mutate import PROBE_GAMES

MUTANTS_DIR = VARIANTS_DIR / "mistakes"
KINDS = ("always", "never", "sometimes", "terminates", "deadlock_free")

FAST_DIFF = Budget(max_pairs=30_000, seconds=MISTAKES_DIFF_SECONDS, random_games=3_000,
                   random_seconds=MISTAKES_RANDOM_SECONDS, first_only=True)
"""A diff budget that answers yes or no quickly: a small breadth-first search, then random play."""


@dataclass(frozen=True, slots=True)
class Catch:
    """How one mutant was told apart from the rules, or that it was not."""

    mutant: str
    description: str
    catcher: str                # "property" | "diff" | "" (not caught)
    detail: str                 # the property and count, or the diff's game in brief
    seconds: float
    catalogue: str = ""         # the catalogue's own catch, without [expect] or diff ('' none)

    @property
    def caught(self) -> bool:
        """Whether something told the mutant apart."""
        return bool(self.catcher)


def mutant_names(folder: Path = MUTANTS_DIR) -> list[str]:
    """The mutants' rules names (`mistakes/NAME`), sorted."""
    return [f"mistakes/{path.stem}" for path in sorted(folder.glob("*.toml"))]


def declared_failures(spec: Spec, base: Spec) -> list[str]:
    """The properties the mutant says it breaks: expected to fail under it, to hold under the rules."""
    base_expect = {p.name: p.expect for p in load_properties(base)}
    return [name for name, changes in spec.properties.items()
            if changes.get("expect") == "fails" and base_expect.get(name, "holds") == "holds"]


def catch_by_property(name: str, spec: Spec, base: Spec, counts: tuple[int, ...], seconds: float,
                      kinds: tuple[str, ...] = KINDS) -> str:
    """The first declared property whose verdict under the mutant contradicts the rules
    ('' when none does within the limit). Invariants go first: a counterexample ends the
    search early, while a `sometimes` without a witness needs the whole graph."""
    wanted = declared_failures(spec, base)
    if not wanted:
        return ""
    props = {p.name: p for p in load_properties(spec, overrides=spec.properties)}
    ordered = sorted((props[n] for n in wanted if n in props and props[n].kind in kinds),
                     key=lambda p: (p.kind in ("sometimes", "terminates", "deadlock_free"), p.name))
    for prop in ordered:
        prop_name = prop.name
        usable = tuple(count for count in counts if count in prop.players)
        if not usable:
            continue
        results = check(Rules.loaded(name, spec), usable, (prop_name,), Limits(None, seconds, 8_000), workers=1)
        for result in results:
            verdict = result.verdict
            if isinstance(verdict, (Refuted, Unwitnessed, Vacuous)):
                size = f", {len(verdict.trace.steps)} moves" if isinstance(verdict, Refuted) and verdict.trace else ""
                return f"property {prop_name} ({result.players} players: {verdict.verdict}{size})"
    return ""


CATALOGUE_COUNTS = (5, 7, 9)
"""The player counts of the three boards (R-X7): a rule bug shows on at least one of them."""

BROKEN = (Refuted, Unwitnessed, Vacuous)
"""Verdicts that contradict a property the rules satisfy: a refutation, a complete
search that finds no witness of something the rules make possible, or a premise the
rules reach and the mutant never does (the property then tests nothing)."""

def catch_by_catalogue(spec: Spec, base: Spec, counts: tuple[int, ...] = CATALOGUE_COUNTS,
                       seconds: float = 20.0) -> str:
    """The first property of the standard catalogue that the base rules satisfy and the
    mutant breaks ('' when none does within the limits). The mutant file's `[expect]` and
    `[properties]` are not read: this measures the catalogue itself. Random games come
    first at every count (seconds each); then a search of `seconds` per count, stopping
    at the first refutation; a `sometimes` property counts only when that search is
    complete and finds no witness."""
    games = []
    for count in counts:
        try:
            game = Game(spec, count)
        except (SpecError, ValueError, KeyError, IndexError):
            continue
        kept = {p.name for p in load_properties(base) if count in p.players and p.expect == "holds"}
        props = tuple(p for p in load_properties(spec) if p.name in kept and count in p.players)
        games.append((game, props, frozenset(p.name for p in props if p.kind != "sometimes")))
    for game, props, stop_on in games:
        found = _broken(probe_game(game, props, PROBE_GAMES, PROBE_SECONDS, stop_on=stop_on), "a random game")
        if found:
            return found
    for game, props, stop_on in games:
        found = _broken(check_game(game, props, Limits(None, seconds, 8_000), stop_on=stop_on,
                                   fewest_elections=False), "the shortest game")
        if found:
            return found
    return ""


def _broken(results: list[PropertyResult], found_by: str) -> str:
    for result in results:
        verdict = result.verdict
        if isinstance(verdict, BROKEN):
            game = verdict.played if isinstance(verdict, (Refuted, Witnessed, Vacuous)) else None
            size = f", {len(game.moves)} moves" if game is not None and game.moves else ""
            return f"property {result.property} ({result.players} players: {verdict.verdict}, {found_by}{size})"
    return ""


@dataclass(frozen=True, slots=True)
class Effort:
    """How hard to try: the property counts, kinds and seconds, and the diff budget."""

    property_counts: tuple[int, ...] = (5, 6)
    property_seconds: float = MISTAKES_PROPERTY_SECONDS
    property_kinds: tuple[str, ...] = KINDS
    budget: Budget = FAST_DIFF
    catalogue_counts: tuple[int, ...] = CATALOGUE_COUNTS
    catalogue_seconds: float = MISTAKES_PROPERTY_SECONDS

    @classmethod
    def quick(cls) -> "Effort":
        """Invariants on 5 players only (their counterexamples come early), then a small diff."""
        return cls((5,), QUICK_PROPERTY_SECONDS, ("always", "never"),
                   Budget(max_pairs=12_000, seconds=QUICK_DIFF_SECONDS, random_games=2_000,
                          random_seconds=QUICK_RANDOM_SECONDS, first_only=True),
                   CATALOGUE_COUNTS, QUICK_DIFF_SECONDS)


def catch_mutant(name: str, base_name: str = "standard", effort: Effort = Effort()) -> Catch:
    """Try to tell one mutant apart from the base rules: its declared properties first, then diff."""
    started = time.monotonic()
    spec, base = load_spec(name), load_spec(base_name)
    budget = effort.budget
    alone = (catch_by_catalogue(spec, base, effort.catalogue_counts, effort.catalogue_seconds)
             if effort.catalogue_counts else "")
    if effort.property_counts and effort.property_kinds:
        found = catch_by_property(name, spec, base, effort.property_counts, effort.property_seconds,
                                  effort.property_kinds)
        if found:
            return Catch(name, spec.description, "property", found, time.monotonic() - started, alone)
    result = diff(base, spec, None, budget)
    if result.differences:
        difference = result.differences[0]
        parting = difference.parting
        shortest = "shortest" if difference.shortest else "found by random play"
        detail = (f"diff ({difference.players} players, {parting.kind} after {difference.decisions} decisions, "
                  f"{shortest}; {', '.join(parting.rule_ids)})")
        return Catch(name, spec.description, "diff", detail, time.monotonic() - started, alone)
    return Catch(name, spec.description, "", f"not told apart ({result.verdict})", time.monotonic() - started,
                 alone)


def mutation_score(names: list[str] | None = None, base_name: str = "standard", effort: Effort = Effort(),
                   progress: Callable[[Catch], None] | None = None, workers: int = 1) -> list[Catch]:
    """Every mutant's catch, in name order (`workers` processes try mutants in parallel)."""
    names = names or mutant_names()
    out: list[Catch] = []
    if workers <= 1:
        for name in names:
            catch = catch_mutant(name, base_name, effort)
            out.append(catch)
            if progress:
                progress(catch)
        return out
    with WorkerPool(workers) as pool:
        futures = [pool.submit(catch_mutant, name, base_name, effort) for name in names]
        for future in futures:
            catch = future.result()
            out.append(catch)
            if progress:
                progress(catch)
    return out


def score_lines(catches: list[Catch]) -> list[str]:
    """The score and, per mutant, what caught it."""
    caught = sum(1 for c in catches if c.caught)
    total = len(catches)
    width = max([len(c.mutant) for c in catches] + [6])
    alone = sum(1 for c in catches if c.catalogue)
    lines = [f"mutation score: {caught}/{total} ({100 * caught // max(total, 1)}%)",
             f"the catalogue alone, without [expect] or diff: {alone}/{total} ({100 * alone // max(total, 1)}%)"]
    for c in catches:
        mark = "caught" if c.caught else "MISSED"
        lines.append(f"  {c.mutant.ljust(width)}  {mark}  {c.detail}  [{c.seconds:.1f} s]")
        lines.append(f"  {''.ljust(width)}  catalogue alone: {c.catalogue or 'not caught'}")
    return lines


def run_mutants(counts: tuple[int, ...] | None, workers: int, quick: bool, echo: Callable[[str], None]) -> int:
    """`shrules mutate --mistakes`: print the score and what caught each mutant; the exit
    status is 0 at 100%, 1 otherwise. `counts` are the player counts for the properties."""
    effort = Effort.quick() if quick else Effort()
    if counts:
        effort = Effort(counts, effort.property_seconds, effort.property_kinds, effort.budget)
    catches = mutation_score(effort=effort, workers=workers)
    for line in score_lines(catches):
        echo(line)
    return 0 if all(c.caught for c in catches) else 1
