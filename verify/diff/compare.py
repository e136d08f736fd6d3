"""Tell two rule sets apart: the shortest game that one allows and the other does not.

The search runs both engines side by side on the same moves, breadth-first over pairs of
states (the product of the two transition systems), one level per decision — a move of a
seat, of the table (the vote) or of chance; the game's forced moves run to the next
decision inside a step. At every pair it compares, in this order of importance:

- **legality**: a move (the same rule name and parameters, by the same seat) legal under
  one rule set and not under the other; the other's `IllegalMove` gives the rule ID;
- **outcome**: one game is over and the other is not, or the winner or how differs;
- **forced**: the game's own visible moves differ (a reshuffle, a win, a power granted);
  quiet bookkeeping moves are not compared;
- **reveal**: the same move shows its actor something different (an investigation);
- **odds**: the same chance outcomes with different probabilities (a deck of another
  composition) — reported only when nothing more important differs at the same depth.

The first level with a difference gives the shortest distinguishing game. Exact
reductions keep the product small, each decided on both specs' typed trees and sound
only when it holds for both (verify/explicit/reductions.py argues each for one rule set;
the same arguments apply to the pair, since both components move together):

- rotation symmetry: both states rotated by the same amount (A's pivot seat to 0), when
  neither rule set reads absolute seat numbers;
- vote representatives: a subset parameter read only through `count` (and the domain
  test) in both rule sets is tried once per size and per class of the two domains;
- hidden fields: a field that no guard, effect, weight, actor or domain of either rule
  set reads, and that only identical reveals read, is not part of the key (the ordinary
  Fascists: two deals with the same Hitler then lead to the same pairs);
- forced moves fused.

When the breadth-first budget (pairs, seconds) runs out, random games are played through
both engines in lockstep until one parts them; such a difference is reported as found,
not as shortest, together with the depth to which the search proved there is none.

`compare_verdicts` compares the rule sets the other way: every property of the catalogue
decided under each (verify/checker.py), verdict beside verdict, the verdicts that change
first (soundness before conformance) and a row a limit left undecided never counted as
the same (`VerdictRow`).
"""

from __future__ import annotations

import builtins
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from random import Random

from engine.game import Game
from spec.model import Spec

from ..clock import Budget as Clock
from ..checker import check
from ..explicit.explore import Limits
from ..results import PropertyResult, Unknown
from ..rules import Rules
from .product import KINDS, Difference, Parting, ProductSearch
from .reductions import semantic_signature


@dataclass(frozen=True, slots=True)
class Budget:
    """How much breadth-first search to spend before random play, and how much random play (seconds
    of work, verify/clock.py)."""

    max_pairs: int = 400_000
    seconds: float = 60.0
    random_games: int = 3_000
    random_seconds: float = 30.0
    seed: int = 0
    first_only: bool = False        # stop random play at the first difference (a yes/no answer)
    odds: bool = True               # report chance outcomes with different probabilities as a difference



@dataclass(slots=True)
class CountResult:
    """The comparison for one player count."""

    players: int
    difference: Difference | None = None
    complete: bool = False          # every pair of states compared: no difference exists
    depth: int = 0                  # decisions searched completely
    pairs: int = 0
    seconds: float = 0.0
    random_games: int = 0
    note: str = ""
    reductions: str = ""
    stopped: str = ""               # why the search of this count ended early: "limit" or "shorter elsewhere"

    @property
    def verdict(self) -> str:
        """differ | same | unknown."""
        if self.difference is not None:
            return "differ"
        return "same" if self.complete else "unknown"



@dataclass(slots=True)
class DiffResult:
    """The comparison of two rule sets over the player counts both support."""

    a: Spec
    b: Spec
    counts: list[CountResult] = field(default_factory=list)

    @property
    def differences(self) -> list[Difference]:
        """The differences found, shortest first (then by player count)."""
        found = [r.difference for r in self.counts if r.difference is not None]
        return sorted(found, key=lambda d: (not d.shortest, d.decisions, KINDS.index(d.parting.kind), d.players))

    @property
    def verdict(self) -> str:
        """differ (a difference was found) | same (proved for every count) | unknown."""
        if self.differences:
            return "differ"
        if all(r.verdict == "same" for r in self.counts):
            return "same"
        return "unknown"


def diff(a: Spec, b: Spec, players: list[int] | None = None, budget: Budget = Budget(),
         progress: Callable[[str], None] | None = None, reductions: bool = True) -> DiffResult:
    """Compare two rule sets for the given player counts (default: every count both allow):
    breadth-first over all counts together, one level at a time, so that the first level
    with a difference gives the shortest game over all counts; then random play where the
    budget ran out. Stops at the first level that shows a difference."""
    result = DiffResult(a, b)
    both = [count for count in a.player_counts if count in b.player_counts]
    counts = both if players is None else players
    searches: dict[int, ProductSearch] = {}
    started = time.monotonic()
    for count in counts:
        entry = CountResult(count)
        result.counts.append(entry)
        if count not in both:
            entry.note = (f"{a.name} is for {_counts(a)} players and {b.name} for {_counts(b)}: "
                          f"{count} players is not a game of both")
            entry.difference = None
            continue
        if reductions and semantic_signature(a, count) == semantic_signature(b, count):
            entry.complete = True
            entry.note = "the same rules and numbers for this player count"
            continue
        searches[count] = ProductSearch(Game(a, count), Game(b, count), reductions, budget.odds)
        entry.reductions = searches[count].reductions
    entries = {entry.players: entry for entry in result.counts}
    active = dict(searches)
    clock = Clock.started(budget.seconds)
    per_count = max(1, budget.max_pairs // max(1, len(searches)))
    found_any = False
    out_of_budget: set[int] = set()
    while active and not found_any:
        odds_candidates: dict[int, tuple[int, Parting]] = {}
        for count, search in list(active.items()):
            begun = time.monotonic()
            found, odds, stopped = search.level(per_count, clock)
            entry = entries[count]
            entry.seconds += time.monotonic() - begun
            entry.pairs = len(search.parent)
            entry.depth = search.depth
            if found is not None:
                node, parting = found
                entry.difference = search.replay(search.path(node), parting, search.depth, True, search.depth)
                found_any = True
            elif stopped:
                out_of_budget.add(count)
                del active[count]
            else:
                if odds is not None:
                    odds_candidates[count] = odds
                if search.exhausted:
                    entry.complete = True
                    del active[count]
            if progress:
                progress(f"{count} players: depth {search.depth}, {len(search.parent):,} pairs")
        if not found_any and odds_candidates:
            for count, (node, parting) in odds_candidates.items():
                search = searches[count]
                entries[count].difference = search.replay(search.path(node), parting, search.depth - 1, True,
                                                          search.depth - 1)
            found_any = True
    for count in active:
        entries[count].stopped = "shorter elsewhere"
    for count in out_of_budget:
        entries[count].stopped = "limit"
    if not found_any and (out_of_budget or active):
        _random_phase([searches[count] for count in sorted(out_of_budget | set(active))], entries, budget)
    return result


def _random_phase(searches: list[ProductSearch], entries: dict[int, CountResult], budget: Budget) -> None:
    """Random lockstep games, round-robin over the player counts whose breadth-first search
    ran out of budget (the depth it searched completely stays in the result). After the
    first difference of a count it plays on a little to find a shorter one, unless the
    budget asks for the first only."""
    begun = time.monotonic()
    clock = Clock.started(budget.random_seconds)
    rngs = {search.players: Random(budget.seed * 1000 + search.players) for search in searches}
    best: dict[int, Difference] = {}
    first_found: dict[int, int] = {}
    active = list(searches)
    for played in range(1, budget.random_games + 1):
        for search in list(active):
            entry = entries[search.players]
            entry.random_games = played
            found = search.random_game(rngs[search.players])
            if found is not None:
                choices, parting = found
                current = best.get(search.players)
                if current is None or len(choices) < current.decisions:
                    best[search.players] = search.replay(choices, parting, len(choices), False, search.depth,
                                                         canonical_frames=False)
                first_found.setdefault(search.players, played)
            if search.players in first_found and (budget.first_only or played >= 4 * first_found[search.players] + 20):
                active.remove(search)
        if not active or clock.spent() or (budget.first_only and best):
            break
    spent = time.monotonic() - begun
    for search in searches:
        entry = entries[search.players]
        entry.seconds += spent / len(searches)
        entry.difference = best.get(search.players)


def _counts(spec: Spec) -> str:
    low, high = spec.player_counts.start, spec.player_counts.stop - 1
    return str(low) if low == high else f"{low}-{high}"


SOUNDNESS = "soundness"
"""The class of the properties any playable rule set must satisfy (spec/properties.py)."""


@dataclass(frozen=True, slots=True)
class VerdictRow:
    """One property for one player count, decided under A and under B (None: the rule
    set has no such property)."""

    property: str
    players: int
    a: PropertyResult | None
    b: PropertyResult | None

    @staticmethod
    def _word(result: PropertyResult | None) -> str:
        return "-" if result is None else result.verdict.verdict

    @builtins.property  # the field `property` shadows the builtin inside this class
    def under_a(self) -> str:
        """The verdict under A (`-`: A has no such property)."""
        return self._word(self.a)

    @builtins.property
    def under_b(self) -> str:
        """The verdict under B (`-`: B has no such property)."""
        return self._word(self.b)

    @builtins.property
    def group(self) -> str:
        """soundness | conformance (the entry's `class`)."""
        result = self.a or self.b
        return (result.facts.group or "conformance") if result is not None else "conformance"

    @builtins.property
    def undecided(self) -> bool:
        """A limit left the verdict unknown under A or under B: the row decides nothing."""
        return any(isinstance(r.verdict, Unknown) for r in (self.a, self.b) if r is not None)

    @builtins.property
    def changed(self) -> bool:
        """Both sides decided (or one has no such property) and the verdicts differ."""
        return not self.undecided and self.under_a != self.under_b

    @builtins.property
    def evidence(self) -> PropertyResult | None:
        """The side whose verdict comes with a game (a counterexample, a witness, the game
        of the rules that reaches a premise), B's first: what a designer reads."""
        for result in (self.b, self.a):
            if result is not None and getattr(result.verdict, "trace", None) is not None:
                return result
        return None


def order_rows(rows: list[VerdictRow]) -> list[VerdictRow]:
    """The rows in the order a designer reads them: the properties whose verdict changes
    at some count first (soundness before conformance: a rule set that cannot end or
    deal is broken before it is merely different), then those a limit left undecided,
    then the rest, each in the catalogue's order."""
    first_seen = list(dict.fromkeys(row.property for row in rows))
    by_name: dict[str, list[VerdictRow]] = {}
    for row in rows:
        by_name.setdefault(row.property, []).append(row)

    def rank(name: str) -> tuple[int, int, int]:
        entries = by_name[name]
        state = 0 if any(r.changed for r in entries) else 1 if any(r.undecided for r in entries) else 2
        return state, 0 if entries[0].group == SOUNDNESS else 1, first_seen.index(name)
    return [row for name in sorted(by_name, key=rank) for row in sorted(by_name[name], key=lambda r: r.players)]


def compare_verdicts(a_name: str, b_name: str, counts: list[int], seconds: float, workers: int,
                     names: tuple[str, ...] | None = None) -> list[VerdictRow]:
    """Every property of the catalogue (or those `names`) under A and under B
    (verify/checker.py), one row per property and count, in `order_rows`' order: what
    changes first. A property only one rule set has shows `-` for the other."""
    limits = Limits(None, seconds, 12_000)
    # Loaded here, by the names `shrules diff` passes (verify/cli/diff.py), once each.
    under_a = check(Rules.named(a_name), tuple(counts), names, limits, workers=workers)
    under_b = check(Rules.named(b_name), tuple(counts), names, limits, workers=workers)
    by_a = {(r.property, r.players): r for r in under_a}
    by_b = {(r.property, r.players): r for r in under_b}
    keys = list(dict.fromkeys(list(by_a) + list(by_b)))
    return order_rows([VerdictRow(name, players, by_a.get((name, players)), by_b.get((name, players)))
                       for name, players in keys])
