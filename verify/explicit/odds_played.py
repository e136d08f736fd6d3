"""Odds estimated from games played under a profile, where the exact pass cannot go.

The exact pass (odds_layers.py) walks every state of the game under the profile. Under a
profile that reads the roles, as `partisan` does, the seats of the ordinary Fascists are
part of every state: each placement of them is a game of its own, C(n - 1, f) of them
(15 at 7 players, 21 at 8, 56 at 9, 84 at 10) where `uniform`, which reads no role, has
one. At 9 and 10 players that is tens of billions of states, out of reach of any pass over
the complete graph on one machine.

Played odds take the other road: N games drawn from the same Markov chain. Each step takes
every unfinished game at once through the exact pass's own pieces (`_Pass._moves`: every
legal move with its probability, from the rules compiled to arrays and the profile read
from the actor's view; `_Pass._successors`: the move made, forced moves fused, the state
put in canonical form), and draws one move per game with those probabilities. So a game
here is a draw of the chain the exact pass sums over: where both run, the exact odds lie
in the played shares' 99% intervals (tests/test_odds_played.py).

Every share comes with its 99% Wilson interval; nothing is exact, and the result says so
(`Odds.method` PLAYED, `Odds.games`). A game that has not ended after `MAX_MOVES` moves,
or that reaches a state with no move, is counted apart, and the odds are then refused
(`complete` False): a share of the finished games alone would be biased.
"""

from __future__ import annotations

import math
import time

import numpy as np
import numpy.typing as npt

from engine.game import MAX_MOVES, Game
from spec.strategies import Strategy

from ..clock import Budget
from .explore import resident_mib
from .odds import Odds, memory_stop, prepared
from .odds_layers import Unbatchable, _Block, _Pass, _Stop

Array = npt.NDArray[np.int64]

PLAYED = "played"
"""The `Odds.method` of odds estimated from played games."""

GAMES_AT_ONCE = 25_000
"""Games taken through the rules together: enough to keep the arrays' work per call large,
few enough that a batch stays small. The legal moves are found over grids of candidates
by states (layers.py), which at 10 players take about 50 KiB a game: 100,000 games at
once peaked at 5.0 GiB resident, 20,000 at 1.0 GiB."""

LEVEL = 0.99
"""The level of the played shares' intervals."""

Z_99 = 2.5758293035489
"""The normal quantile of a two-sided 99% interval (`LEVEL`)."""

ANY_RANK = np.iinfo(np.int64).max
"""The rank handed to `_successors`: a drawn game need not prove the ranking falls."""


def wilson(successes: int, trials: int, z: float = Z_99) -> tuple[float, float]:
    """The Wilson score interval of a share (0, 1 when there are no trials)."""
    if trials == 0:
        return 0.0, 1.0
    share = successes / trials
    z2 = z * z
    centre = (share + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z * math.sqrt(share * (1 - share) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


def played_odds(game: Game, strategy: Strategy, games: int, *, seed: int = 0, seconds: float | None = None,
                memory_mib: int | None = None) -> Odds:
    """The odds of `game` under `strategy` estimated from `games` games drawn from its
    Markov chain (module docstring). `seconds` (of work) and `memory_mib` bound it: a
    bound hit leaves the result incomplete, never a share of the games so far. Raises
    `Unbatchable` (or engine/batched.py `HandOver`) where the arrays cannot represent the
    rules or the profile."""
    started, cpu = time.perf_counter(), time.process_time()
    result, _ = prepared(game, strategy, False, None, True, within=False)
    result.method, result.games = PLAYED, games
    budget = Budget.started(seconds)
    rng = np.random.default_rng(seed)
    play = _Pass(game, strategy, result, None, False)
    counts: dict[tuple[int, int], int] = {}
    tally = [0, 0]          # nominations (rounds begun), elections
    left = games
    try:
        while left:
            batch = min(left, GAMES_AT_ONCE)
            try:
                stuck = _play(play, batch, rng, counts, tally, budget, memory_mib)
            except _Stop as stop:       # a state out of its declared range
                stuck = stop.limit
            if stuck:
                result.limit = stuck
                return result
            left -= batch
    finally:
        result.seconds = time.perf_counter() - started
        result.cpu_seconds = time.process_time() - cpu
        result.peak_mib = max(result.peak_mib, resident_mib())
    for (winner, how), count in sorted(counts.items()):
        outcome = game.outcome_named(winner, how)
        result.outcomes[outcome] = count / games
        result.counts[outcome] = count
    result.nominations, result.elections = tally[0] / games, tally[1] / games
    result.complete = True
    return result


def _play(play: _Pass, games: int, rng: np.random.Generator, counts: dict[tuple[int, int], int], tally: list[int],
          budget: Budget, memory_mib: int | None) -> str:
    """Play `games` games to their end, adding their outcomes to `counts` and their
    nominations and elections to `tally`. Returns why it stopped short ('' when every game
    ended)."""
    game, result = play.game, play.result
    winner_row, how_row = game.field_names.index("winner"), game.field_names.index("how")
    states: Array = np.repeat(play.search.initial, games, axis=1)
    for moves in range(MAX_MOVES + 1):
        over = states[play.phase] == play.over
        if over.any():
            codes = states[winner_row, over] * (1 << 16) + states[how_row, over]
            values, numbers = np.unique(codes, return_counts=True)
            for code, number in zip(values.tolist(), numbers.tolist()):
                key = (code >> 16, code & 0xFFFF)
                counts[key] = counts.get(key, 0) + number
            states = states[:, ~over]
        width = states.shape[1]
        if not width:
            return ""
        if moves == MAX_MOVES:
            return f"unfinished: {width:,} games had not ended after {MAX_MOVES} moves"
        result.states += width
        result.peak_mib = max(result.peak_mib, resident_mib())
        if budget.spent():
            return f"time limit: {budget.seconds:g} s reached after {result.states:,} moves of games"
        if memory_mib is not None and result.peak_mib > memory_mib:
            return memory_stop(memory_mib, result.states)
        blocks = play._moves(states)
        origin = np.concatenate([block.origin for block in blocks]) if blocks else np.zeros(0, dtype=np.int64)
        if len(np.unique(origin)) != width:
            phase = int(states[play.phase, int(np.argmin(np.bincount(origin, minlength=width)))])
            return f"deadlock: a game reached phase {game.phase_names[phase]} with no move"
        chosen = _drawn(origin, play.odds.values()[np.concatenate([block.odds for block in blocks])], width, rng)
        picked, at = [], 0
        for block in blocks:
            mine = chosen[at:at + len(block.origin)]
            at += len(block.origin)
            if mine.any():
                picked.append(_Block(block.rule, block.origin[mine], [arg[mine] for arg in block.args],
                                     block.odds[mine]))
        after_origin = np.concatenate([block.origin for block in picked])
        _, nominates, elects, _, keys, _ = play._successors(states, picked, after_origin, ANY_RANK)
        tally[0] += int(np.count_nonzero(nominates))
        tally[1] += int(np.count_nonzero(elects))
        states = play.search.unpacked(keys)
    return ""


def _drawn(origin: Array, probability: npt.NDArray[np.float64], width: int, rng: np.random.Generator
           ) -> npt.NDArray[np.bool_]:
    """One move per game, each drawn with its probability among its game's moves: the
    moves sorted by game, their probabilities summed along, and each game's uniform draw
    scaled to its total and looked up in its own stretch of the sums."""
    order = np.argsort(origin, kind="stable")
    sums = np.cumsum(probability[order])
    ends = np.cumsum(np.bincount(origin, minlength=width))
    starts = ends - np.bincount(origin, minlength=width)
    before = np.where(starts > 0, sums[np.maximum(starts - 1, 0)], 0.0)
    totals = sums[ends - 1] - before
    drawn = np.searchsorted(sums, before + rng.random(width) * totals, side="right")
    drawn = np.clip(drawn, starts, ends - 1)          # a draw at the very top of a game's stretch
    chosen = np.zeros(len(origin), dtype=bool)
    chosen[order[drawn]] = True
    return chosen


def side_intervals(result: Odds) -> dict[str, tuple[float, float]]:
    """Played odds: each side's 99% interval, from the games it won."""
    won: dict[str, int] = {}
    for (winner, _), count in result.counts.items():
        if winner is not None:
            won[winner] = won.get(winner, 0) + count
    return {side: wilson(count, result.games) for side, count in sorted(won.items())}


def outcome_intervals(result: Odds) -> dict[tuple[str | None, str | None], tuple[float, float]]:
    """Played odds: each outcome's 99% interval."""
    return {outcome: wilson(count, result.games) for outcome, count in result.counts.items()}


__all__ = ["LEVEL", "PLAYED", "Unbatchable", "outcome_intervals", "played_odds", "side_intervals", "wilson"]
