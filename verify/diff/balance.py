"""How often each side wins under two rule sets: sampled, or exact under a strategy profile.

`diff --balance N` plays N batched games of uniformly random legal moves under each rule
set and compares the shares with a 95% interval: quick, but random play is a way nobody
plays, and a sample only bounds the answer. `diff --balance exact` computes the odds of
both rule sets under the same strategy profile (verify/explicit/odds.py: the game under
the profile as a Markov chain over the complete state graph) and gives the shift itself:
exact fractions where the odds are computed in fractions, else floats with their proved
error bound, so that "differs" is a fact, not a test at some confidence.

A balance is a matter of degree, not of legality: a shift never changes `diff`'s exit
status. Odds a limit stopped are none: the row says "unknown" and why, and the command
exits 3 if nothing else differs, as for any comparison a limit left undecided.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from engine.batched import BATCH, BatchedGame, share_interval
from engine.game import Game
from spec.model import Spec
from spec.strategies import load_strategy

from ..explicit.odds import Odds
from ..explicit.odds_layers import fast_odds


def sampled(a: Spec, b: Spec, counts: list[int], games: int, seed: int) -> list[dict[str, Any]]:
    """Per player count, `games` batched random games under each rule set: each side's
    share of wins under A and under B, their difference and its 95% interval."""
    rows = []
    for players in counts:
        figures = [BatchedGame(Game(spec, players)).play(games=games, seed=seed, batch=min(games, BATCH))
                   for spec in (a, b)]
        played = [f.games + f.deadlocks + f.unfinished for f in figures]
        sides = sorted({winner for f in figures for winner, _ in f.outcomes if winner is not None})
        for side in sides:
            share = [sum(count for (winner, _), count in f.outcomes.items() if winner == side) / n
                     for f, n in zip(figures, played)]
            half = math.hypot(*(share_interval(p, n) for p, n in zip(share, played)))
            rows.append({"players": players, "side": side, "a": share[0], "b": share[1],
                         "difference": share[1] - share[0], "interval": half,
                         "differs": abs(share[1] - share[0]) > half, "games": games})
    return rows


@dataclass(frozen=True, slots=True)
class ExactBalance:
    """The odds of both rule sets at one player count under one profile."""

    players: int
    a: Odds
    b: Odds

    @property
    def complete(self) -> bool:
        return self.a.complete and self.b.complete

    @property
    def limit(self) -> str:
        return "; ".join(f"{name}: {result.limit}" for name, result in (("A", self.a), ("B", self.b))
                         if not result.complete)

    def sides(self) -> list[str]:
        return sorted(set(self.a.sides()) | set(self.b.sides()))

    def shift(self, side: str) -> Any:
        """B's probability of `side` winning minus A's."""
        return self.b.sides().get(side, 0) - self.a.sides().get(side, 0)

    def bound(self) -> float:
        """How far the shift may be from the exact one: the two error bounds (each relative to
        a probability of at most 1) added; 0 when both are fractions."""
        return self.a.error_bound + self.b.error_bound

    def differs(self, side: str) -> bool:
        """Whether B moves `side`'s odds: beyond the rounding bound in floats, at all in fractions."""
        shift = self.shift(side)
        return shift != 0 if self.a.exact and self.b.exact else abs(float(shift)) > self.bound()


def exact(a: Spec, b: Spec, counts: list[int], strategy: str, *, exact_up_to: int,
          seconds: float | None, memory_mib: int | None = None) -> list[ExactBalance]:
    """The odds under `strategy` of A and of B at each count (fractions up to `exact_up_to`
    players, floats beyond); `seconds` and `memory_mib` (resident MiB) bound each
    computation, a computation stopped by one leaving its row unknown."""
    out = []
    for players in counts:
        results = []
        for spec in (a, b):
            game = Game(spec, players)
            results.append(fast_odds(game, load_strategy(spec, strategy), exact=players <= exact_up_to,
                                     seconds=seconds, memory_mib=memory_mib, within=False))
        out.append(ExactBalance(players, results[0], results[1]))
    return out


def _share(value: Any) -> float:
    return float(value)


def exact_rows(balances: list[ExactBalance]) -> list[dict[str, Any]]:
    """The JSON of an exact balance: a row per count and side (a row per count, with
    `complete` false and the limit, where a limit stopped either computation)."""
    rows: list[dict[str, Any]] = []
    for entry in balances:
        if not entry.complete:
            rows.append({"players": entry.players, "complete": False, "limit": entry.limit,
                         "strategy": entry.a.strategy})
            continue
        for side in entry.sides():
            a, b = entry.a.sides().get(side, 0), entry.b.sides().get(side, 0)
            row: dict[str, Any] = {"players": entry.players, "side": side, "complete": True,
                                   "strategy": entry.a.strategy, "a": _share(a), "b": _share(b),
                                   "difference": _share(entry.shift(side)), "error_bound": entry.bound(),
                                   "differs": entry.differs(side), "exact": entry.a.exact and entry.b.exact}
            if row["exact"]:
                row.update({"fraction_a": str(Fraction(a)), "fraction_b": str(Fraction(b)),
                            "fraction_difference": str(Fraction(entry.shift(side)))})
            rows.append(row)
    return rows


def exact_lines(balances: list[ExactBalance], a: Spec, b: Spec) -> list[str]:
    """The exact balance for a reader: a line per count and side, `*` where B moves the odds."""
    strategy = balances[0].a.strategy if balances else "uniform"
    lines = [f"Balance (exact odds under the strategy profile '{strategy}'; * where B moves them):"]
    for entry in balances:
        if not entry.complete:
            lines.append(f"  {entry.players} players: unknown ({entry.limit})")
            continue
        how = "exact fractions" if entry.a.exact and entry.b.exact else f"floats, each within {entry.bound():.1e}"
        for side in entry.sides():
            a_share, b_share = entry.a.sides().get(side, 0), entry.b.sides().get(side, 0)
            lines.append(f"  {entry.players} players, {side} wins: {a.name} {100 * float(a_share):.3f}%, "
                         f"{b.name} {100 * float(b_share):.3f}% ({100 * float(entry.shift(side)):+.3f} points; "
                         f"{how})" + (" *" if entry.differs(side) else ""))
    return lines


def sampled_lines(rows: list[dict[str, Any]], a: Spec, b: Spec) -> list[str]:
    """The sampled balance: a row per count and side, `*` where the shares differ beyond
    their 95% interval."""
    lines = [f"Balance ({rows[0]['games']:,} random games per rule set and count; * where B differs from A "
             f"beyond the 95% interval):"]
    for row in rows:
        lines.append(f"  {row['players']} players, {row['side']} wins: {a.name} {100 * row['a']:.1f}%, "
                     f"{b.name} {100 * row['b']:.1f}% ({100 * row['difference']:+.1f} ± {100 * row['interval']:.1f})"
                     + (" *" if row["differs"] else ""))
    return lines
