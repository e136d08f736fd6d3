"""`shrules odds`: the exact odds of each way of winning under a strategy profile."""

from __future__ import annotations

import json
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import click

from engine.batched import HandOver
from engine.game import Game, compiled_game
from engine.judge import rules_identity
from spec.strategies import Strategy, load_strategy, shipped
from verify.explicit.odds import EXACT_UP_TO, Odds, prepared
from verify.explicit.odds_layers import LAYERS, Unbatchable, fast_odds
from verify.explicit.odds_played import LEVEL, PLAYED, outcome_intervals, played_odds, side_intervals
from verify.explicit.scratch import scratch

from ..budgets import ODDS_MEMORY_MIB, ODDS_SECONDS
from ..odds.logged import compared, compared_lines, read_logged
from ..odds.sampled import as_data as sampled_data, lines as sampled_lines, require_uniform, sample
from ..results import EXIT_FAILED, EXIT_LIMIT
from .options import (LOG_EVERY, max_states_option, memory_limit_option, players_option, progress_stream,
                      rules_option, time_limit_option)

@click.command()
@players_option(default=5)
@rules_option()
@click.option("--strategy", default="uniform", show_default=True, metavar="NAME|FILE",
              help=f"The strategy profile: {', '.join(shipped())}, or a .toml file (spec/STRATEGIES.md).")
@click.option("--given", metavar="EXPR",
              help="Also the odds given that this state expression holds at some point of the game, e.g. "
                   "\"phase == 'president_discard' and president_hand == 3\" (a draw of three Fascist tiles).")
@click.option("--exact/--float", "exact", default=None,
              help=f"Fractions (exact) or floats with an error bound (default: exact up to {EXACT_UP_TO} players).")
@click.option("--within/--no-within", "within", default=False,
              help="Also the odds of a win within k rounds. They keep a mass per round count of each state: several "
                   "times the time and memory (docs/benchmarks.md). The expected number of rounds is computed "
                   "either way.")
@time_limit_option(ODDS_SECONDS, "Seconds before the computation stops with the odds unknown (exit 3).")
@max_states_option(None)
@memory_limit_option(ODDS_MEMORY_MIB, "Resident MiB at which the computation stops with the odds unknown (exit 3).")
@click.option("--against", "against", multiple=True, type=click.Path(path_type=Path), metavar="PATH",
              help="Logged games (files or folders: secrethitler.io summaries, native transcripts) to set beside "
                   "the odds: each is judged first, and the finished legal games of this count and rules are "
                   "counted, with 95% intervals (repeatable).")
@click.option("--sample", "sample_games", type=click.IntRange(1, 100_000_000), default=None, metavar="N",
              help="Also play N batched random games (the profile 'uniform' only: random play draws every legal "
                   "move alike) and check that each exact probability lies in the 99% interval of its sampled share.")
@click.option("--games", "played_games", type=click.IntRange(1, 100_000_000), default=None, metavar="N",
              help="Estimate the odds from N games played under the profile instead of computing them: for the "
                   "counts and profiles the exact pass cannot reach (partisan at 8-10 players). Each share "
                   "with its 99% interval; not with --given, --exact, --within, --sample or --max-states.")
@click.option("--seed", type=int, default=0, show_default=True, help="The seed of --sample's and --games' games.")
@click.option("--json", "as_json", is_flag=True,
              help="The figures as JSON, with the keys of `shrules play --games N --json` (sides, outcomes with "
                   "winner, how, share).")
def odds(players: int, rules: str, strategy: str, given: str | None, exact: bool | None, within: bool,
         time_limit: float,
         max_states: int | None, against: tuple[Path, ...], sample_games: int | None, seed: int,
         as_json: bool, memory_limit: int | None = ODDS_MEMORY_MIB, played_games: int | None = None) -> None:
    """The probability of each way of winning when every seat plays by a strategy profile.

    The game under the profile is a Markov chain: chance moves have the rules' own odds,
    choices the profile's. Its probability mass is pushed through the complete state graph
    in the order of the proved ranking, so every figure is exact (fractions), or, in
    floats, within the stated bound. Also: the expected number of rounds and of elected
    governments, the odds of a win within k rounds (--within), and with --given the odds given a
    condition. With --against, the win rates of logged games of the same count and
    rules beside the odds (counted, never fitted).

    Exit status: 0 the odds were computed; 1 with --sample, an exact probability outside
    the 99% interval of its sampled share (by chance for about one outcome in a hundred:
    try another --seed); 2 bad input (a profile reading a hidden field, a --given that
    does not type-check); 3 a limit stopped the computation."""
    if played_games is not None:
        clash = [name for name, asked in (("--given", given is not None), ("--exact", exact is not None),
                                          ("--within", within), ("--sample", sample_games is not None),
                                          ("--max-states", max_states is not None)) if asked]
        if clash:
            raise click.UsageError(f"--games plays games instead of computing the odds: not with {clash[0]}")
    game = compiled_game(players, rules)
    profile = load_strategy(game.spec, strategy)
    logged = read_logged(list(against)) if against else None
    if sample_games is not None:
        require_uniform(profile)        # before the odds are computed, not after
    # Rows waiting for their layer go to disk past PENDING_IN_MEMORY (floats, 8 players
    # and up); the folder is under $TMPDIR and gone when the odds are done.
    with scratch("shrules-odds-") as spill, click.progressbar(length=1000, label=f"{players} players",
                                                             file=progress_stream(),
                                                             item_show_func=lambda text: text) as bar:
        started, shown, told = time.monotonic(), [0], [0.0]

        def progress(swept: float, states: int, mib: float) -> None:
            done = int(swept * 1000)
            words = f"{states:,} states, peak {mib:,.0f} MiB"
            bar.update(done - shown[0], words)
            shown[0] = done
            spent = time.monotonic() - started
            if not sys.stderr.isatty() and spent - told[0] >= LOG_EVERY:
                # No terminal, no bar: a line now and then, so a long run is seen to move.
                click.echo(f"… {players} players: {swept:.0%} of the ranking swept, {words}, {spent:.0f} s",
                           err=True)
                told[0] = spent
        if played_games is not None:
            result = _played(game, profile, played_games, seed, time_limit, memory_limit)
        else:
            result = fast_odds(game, profile, exact=players <= EXACT_UP_TO if exact is None else exact,
                               given=given, seconds=time_limit, max_states=max_states, spill=spill,
                               memory_mib=memory_limit, within=within,
                               progress=progress)
    beside = None if logged is None else compared(result, logged, rules_identity(rules, game.spec)[1])
    played = sample(result, game, profile, sample_games, seed) if sample_games and result.complete else None
    if as_json:
        data = as_data(result)
        if beside is not None:
            data["logged"] = beside
        if played is not None:
            data["sampled"] = sampled_data(played)
        click.echo(json.dumps(data))
    else:
        click.echo(text(result))
        if beside is not None:
            click.echo("\n".join(compared_lines(beside, [str(path) for path in against])))
        if played is not None:
            click.echo("\n".join(sampled_lines(played)))
    if not result.complete:
        raise SystemExit(EXIT_LIMIT)
    if played is not None and not played.agrees:
        raise SystemExit(EXIT_FAILED)


def _share(value: Any) -> float:
    return float(value)


def _played(game: Game, profile: Strategy, games: int, seed: int, seconds: float, memory_mib: int | None) -> Odds:
    """`--games`: the odds from played games; where the arrays cannot play the rules or
    the profile, no odds (the limit says why: exit 3)."""
    try:
        return played_odds(game, profile, games, seed=seed, seconds=seconds, memory_mib=memory_mib)
    except (Unbatchable, HandOver) as why:
        result, _ = prepared(game, profile, False, None, True, within=False)
        result.method, result.games = PLAYED, games
        result.limit = f"these rules or this profile cannot be played over arrays: {why or type(why).__name__}"
        return result


def as_data(result: Odds) -> dict[str, Any]:
    """The figures as plain data (`--json`)."""
    data: dict[str, Any] = {"players": result.players, "rules": result.rules, "strategy": result.strategy,
                            "exact": result.exact, "complete": result.complete, "method": result.method}
    if result.method == PLAYED:
        return _played_data(result, data)
    if result.fallback:
        data["fallback"] = result.fallback
    if not result.complete:
        data["limit"] = result.limit
    else:
        data["outcomes"] = [_outcome(winner, how, share) for (winner, how), share in _sorted(result.outcomes)]
        data["sides"] = {side: _share(share) for side, share in sorted(result.sides().items())}
        data["total"] = _share(result.total)
        if result.exact:
            data["total_is_one"] = result.total == 1
        data["expected_rounds"] = _share(result.expected_rounds())
        data["expected_elections"] = _share(result.elections)
        data["within_rounds"] = [{"rounds": rounds, **{side: _share(share) for side, share in sides.items()}}
                                 for rounds, sides in result.within()] if result.within_rounds else None
        if result.given is not None:
            data["given"] = {"expression": result.given, "probability": _share(result.given_probability()),
                             "outcomes": [_outcome(winner, how, share)
                                          for (winner, how), share in _sorted(result.conditional())]}
    data.update({"error_bound": result.error_bound, "states": result.states, "layers": result.layers,
                 "seconds": round(result.seconds, 2), "cpu_seconds": round(result.cpu_seconds, 2),
                 "peak_mib": round(result.peak_mib, 1),
                 "rotation": result.rotation, "rotation_blocked": list(result.rotation_blocked)})
    return data


def _played_data(result: Odds, data: dict[str, Any]) -> dict[str, Any]:
    """Played odds as plain data: each share with its 99% interval and the games behind it."""
    data["games"] = result.games
    if not result.complete:
        data["limit"] = result.limit
    else:
        intervals, sides = outcome_intervals(result), side_intervals(result)
        data["outcomes"] = [{**_outcome(winner, how, share), "games": result.counts[winner, how],
                             "interval": list(intervals[winner, how])}
                            for (winner, how), share in _sorted(result.outcomes)]
        data["sides"] = {side: _share(share) for side, share in sorted(result.sides().items())}
        data["side_intervals"] = {side: list(interval) for side, interval in sides.items()}
        data["interval_level"] = LEVEL
        data["mean_rounds"] = _share(result.nominations)
        data["mean_elections"] = _share(result.elections)
    data.update({"moves": result.states, "seconds": round(result.seconds, 2),
                 "cpu_seconds": round(result.cpu_seconds, 2), "peak_mib": round(result.peak_mib, 1)})
    return data


def _played_text(result: Odds) -> str:
    """Played odds for a reader: each share with its 99% interval."""
    lines = [f"Odds at {result.players} players, rules {result.rules}, strategy {result.strategy} "
             f"(from {result.games:,} games played under the profile, each share with its 99% interval)"]
    if not result.complete:
        lines.append(f"  unknown: {result.limit}")
    else:
        intervals, sides = outcome_intervals(result), side_intervals(result)
        for (winner, how), share in _sorted(result.outcomes):
            low, high = intervals[winner, how]
            lines.append(f"  {winner} win by {how}: {100 * share:.3f}% ({100 * low:.3f}-{100 * high:.3f}%)")
        for side, share in sorted(result.sides().items()):
            low, high = sides[side]
            lines.append(f"  {side} win: {100 * share:.3f}% ({100 * low:.3f}-{100 * high:.3f}%)")
        lines.append(f"  mean rounds: {result.nominations:.3f}; mean elected governments: {result.elections:.3f}")
    lines.append(f"  {result.states:,} moves of games, {result.seconds:.1f} s ({result.cpu_seconds:.1f} s CPU), "
                 f"peak {result.peak_mib:.0f} MiB; not exact: played, not computed")
    return "\n".join(lines)


def _outcome(winner: str | None, how: str | None, share: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"winner": winner, "how": how, "share": _share(share)}
    if isinstance(share, Fraction) and len(str(share)) <= 200:
        out["fraction"] = str(share)
    return out


def _sorted(outcomes: dict[tuple[str | None, str | None], Any]) -> list[tuple[tuple[str | None, str | None], Any]]:
    return sorted(outcomes.items(), key=lambda item: (-item[1], str(item[0])))


def text(result: Odds) -> str:
    """The figures for a reader."""
    if result.method == PLAYED:
        return _played_text(result)
    kind = "exact fractions" if result.exact else f"floats, each within {result.error_bound:.1e}"
    lines = [f"Odds at {result.players} players, rules {result.rules}, strategy {result.strategy} ({kind})"]
    if not result.complete:
        lines.append(f"  unknown: {result.limit}")
    else:
        for (winner, how), share in _sorted(result.outcomes):
            lines.append(f"  {winner} win by {how}: {100 * _share(share):.3f}%")
        for side, share in sorted(result.sides().items()):
            lines.append(f"  {side} win: {100 * _share(share):.3f}%")
        if result.exact:
            lines.append(f"  the outcomes sum to {'exactly 1' if result.total == 1 else result.total}")
        lines.append(f"  expected rounds: {_share(result.expected_rounds()):.3f}; "
                     f"expected elected governments: {_share(result.elections):.3f}")
        if result.within_rounds:
            within = ", ".join(f"{rounds}: {100 * sum(_share(v) for v in sides.values()):.1f}%"
                               for rounds, sides in result.within() if rounds and rounds % 2 == 0)
            lines.append(f"  over within k rounds (k: %): {within}")
        else:
            lines.append("  over within k rounds: not computed (--within)")
        if result.given is not None:
            held = result.given_probability()
            lines.append(f"  given {result.given} (at some point; probability {100 * _share(held):.3f}%):")
            if not held:
                lines.append("    it never holds")
            for (winner, how), share in _sorted(result.conditional()):
                lines.append(f"    {winner} win by {how}: {100 * _share(share):.3f}%")
    merged = "merged by seat rotation" if result.rotation else \
        f"not merged by rotation ({'; '.join(result.rotation_blocked[:2])})"
    lines.append(f"  {result.states:,} states in {result.layers:,} layers, {result.seconds:.1f} s "
                 f"({result.cpu_seconds:.1f} s CPU), peak {result.peak_mib:.0f} MiB; {merged}")
    how = "a layer at a time over arrays" if result.method == LAYERS else "a state at a time"
    lines.append(f"  computed {how} ({result.method} pass)"
                 + (f"; the arrays could not: {result.fallback}" if result.fallback else ""))
    return "\n".join(lines)


COMMANDS = (odds,)
