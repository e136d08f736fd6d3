"""The exact odds checked against play: batched random games beside the odds of `uniform`.

Batched random play (engine/batched.py) draws every legal move alike and every voter's
Ja or Nein alike, which is the `uniform` profile's Markov chain; so N random games are N
independent draws of its outcome, and each exact probability p must lie within the 99%
interval of the sampled share, |share - p| <= z·sqrt(p(1 - p)/N), in 99 runs of 100. An
odds pass that mis-weighed a chance move, a vote or a choice would be found out by a
sample large enough (a million games resolve a tenth of a percentage point). Two
independent computations of the same numbers: the pass walks the graph, play samples it.

Only a profile that weighs nothing is what random play plays: any other is refused here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from engine.batched import BATCH, BatchedGame
from engine.game import Game
from spec.errors import SpecError
from spec.strategies import Strategy

from ..explicit.odds import Odds
from ..explicit.odds_played import Z_99


@dataclass(slots=True)
class Sampled:
    """N random games beside the exact odds, outcome by outcome."""

    games: int
    seed: int
    seconds: float
    deadlocks: int
    unfinished: int
    rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        """Every exact probability inside its 99% interval, and every game finished."""
        return not self.deadlocks and not self.unfinished and all(row["inside"] for row in self.rows)


def plays_uniformly(strategy: Strategy) -> bool:
    """Whether random play plays this profile: no weight on any move or vote."""
    return not list(strategy.expressions()) and strategy.ja is None and strategy.nein is None


def require_uniform(strategy: Strategy) -> None:
    """Refuse (`SpecError`) a profile random play does not play."""
    if not plays_uniformly(strategy):
        raise SpecError(f"--sample: random play draws every legal move alike, which is the profile 'uniform', "
                        f"not '{strategy.name}' (it weighs moves); compare it with --against logged games instead")


def sample(result: Odds, game: Game, strategy: Strategy, games: int, seed: int = 0) -> Sampled:
    """Play `games` batched random games of `game` and set each outcome's share beside the
    exact odds in `result` (complete, under a profile random play plays)."""
    require_uniform(strategy)
    figure = BatchedGame(game).play(games=games, seed=seed, batch=min(games, BATCH))
    played = figure.games + figure.deadlocks + figure.unfinished
    out = Sampled(played, seed, figure.seconds, figure.deadlocks, figure.unfinished)
    for outcome in sorted(set(result.outcomes) | set(figure.outcomes), key=str):
        exact = float(result.outcomes.get(outcome, 0))
        share = figure.outcomes.get(outcome, 0) / played if played else 0.0
        half = Z_99 * math.sqrt(exact * (1 - exact) / played) if played else math.inf
        # An outcome of probability 0 may never be sampled; of probability 1 always.
        inside = abs(share - exact) <= half if 0 < exact < 1 else share == exact
        out.rows.append({"winner": outcome[0], "how": outcome[1], "odds": exact, "share": share,
                         "games": figure.outcomes.get(outcome, 0), "interval": half, "inside": inside})
    return out


def as_data(sampled: Sampled) -> dict[str, Any]:
    return {"games": sampled.games, "seed": sampled.seed, "cpu_seconds": round(sampled.seconds, 2),
            "deadlocks": sampled.deadlocks, "unfinished": sampled.unfinished, "agrees": sampled.agrees,
            "outcomes": sampled.rows}


def lines(sampled: Sampled) -> list[str]:
    """For a reader: each outcome's sampled share, its 99% interval around the odds, `!`
    where the odds fall outside."""
    out = [f"Random play ({sampled.games:,} batched games, seed {sampled.seed}, {sampled.seconds:.1f} s CPU): "
           + ("every exact probability inside its 99% interval" if sampled.agrees else "NOT all inside")]
    if sampled.deadlocks or sampled.unfinished:
        out.append(f"  {sampled.deadlocks} games deadlocked, {sampled.unfinished} unfinished")
    for row in sampled.rows:
        out.append(f"  {row['winner']} win by {row['how']}: sampled {100 * row['share']:.3f}%, odds "
                   f"{100 * row['odds']:.3f}% ± {100 * row['interval']:.3f}" + ("" if row["inside"] else " !"))
    return out
