"""`shrules play`, `shrules replay` and `shrules bench`: random games, saved traces, speed."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

import click

from engine.game import Game, compiled_game
from engine.play import Deadlock, Unfinished, bench_random_play, blocked_by, has_legal_move, random_game
from engine.trace import replay_itf

from spec.loader import load_spec

from .cli import EXIT_FAILED, EXIT_LIMIT, SECONDS
from .cmd_check import parse_counts
from .outputs import writable

FC = TypeVar("FC", bound=Callable[..., object])


def _players_option(default: int | None = 7) -> Callable[[FC], FC]:
    return click.option("--players", "-n", type=click.IntRange(1, 99), default=default, show_default=True,
                        help="Number of players (R-S1: 5-10 in the standard rules).")


@click.command()
@_players_option()
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="Random seed: same seed, same game.")
@click.option("--rules", default="standard", show_default=True, help="Rules file or variant name.")
@click.option("--trace", "trace_path", type=click.Path(dir_okay=False, writable=True),
              help="Save the game as an ITF JSON trace.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the outcome.")
@click.option("--no-changes", is_flag=True, help="Do not print the fields each move changed.")
def play(players: int, seed: int, rules: str, trace_path: str | None, quiet: bool, no_changes: bool) -> None:
    """Play a complete game with uniformly random legal moves and print it round by round."""
    writable(trace_path, "--trace")
    game = compiled_game(players, rules)
    stuck: Deadlock | None = None
    try:
        trace = random_game(game, seed=seed)
    except Deadlock as deadlock:
        stuck, trace = deadlock, deadlock.trace
    except Unfinished as unfinished:
        click.echo(f"unfinished: {unfinished}")
        raise SystemExit(EXIT_LIMIT) from None
    if not quiet:
        click.echo(f"A game of {players} players under the {game.spec.name} rules, seed {seed}")
        click.echo(trace.text(changes=not no_changes))
    if stuck is not None:
        click.echo(f"deadlock: {stuck}")
    elif quiet:
        click.echo(f"{outcome(game, trace.end)} after {len(trace.steps)} moves")
    if trace_path:
        trace.save_itf(trace_path, f"random game, {players} players, seed {seed}"
                       + (f", ending in a deadlock in phase {stuck.phase}" if stuck else ""))
        click.echo(f"trace saved to {trace_path}")
    if stuck is not None:
        raise SystemExit(EXIT_FAILED)


def outcome(game: Game, end: Any) -> str:
    """`liberal win by policies`, or, for rules whose game can end without a winner, says so."""
    winner = game.winner(end)
    return "no winner" if winner is None else f"{winner} win by {game.how(end) or 'the rules'}"


@click.command()
@click.argument("trace_file", type=click.Path(exists=True, dir_okay=False))
@click.option("--print", "show", is_flag=True, help="Print the replayed game.")
def replay(trace_file: str, show: bool) -> None:
    """Replay a saved ITF trace through the engine and confirm every move and state."""
    result = replay_itf(trace_file)
    if show:
        click.echo(result.trace.text())
    if result.ok:
        click.echo(f"confirmed: {result.message}")
    else:
        click.echo(f"NOT confirmed: {result.message}")
        raise SystemExit(EXIT_FAILED)
    game, end = result.trace.game, result.trace.end
    if not game.is_over(end) and not has_legal_move(game, end):
        click.echo(f"deadlock: {Deadlock(result.trace, blocked_by(game, end))}")
        raise SystemExit(EXIT_FAILED)


@click.command()
@click.option("--players", "-n", "counts", default="5,7,10", show_default=True,
              help="Comma-separated player counts.")
@click.option("--seconds", type=SECONDS, default=3.0, show_default=True, help="CPU seconds per player count.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option("--explore", is_flag=True,
              help="Measure the model checker instead: the complete state graph and the whole catalogue "
                   "per player count, against SPIN (--seconds is then the time limit per count).")
@click.option("--judge", "judge_dir", type=click.Path(exists=True, file_okay=False),
              help="Measure judging instead: secrethitler.io games per CPU second over this folder.")
def bench(counts: str, seconds: float, as_json: bool, explore: bool, judge_dir: str | None) -> None:
    """Measure random play: complete games per CPU second and moves per game.

    With --explore, the model checker; with --judge DIR, the judge of logged games."""
    numbers = parse_counts(counts, load_spec("standard").player_counts, of="the standard rules") or ()
    if judge_dir:
        from engine.judge import judge_benchmark

        rate = judge_benchmark(judge_dir, seconds=seconds)
        click.echo(json.dumps({"judge_games_per_second": round(rate, 1)}) if as_json
                   else f"judging secrethitler.io games: {rate:,.0f} games/s on one core")
        return
    if explore:
        from .bench_explore import bench_explore, describe

        for explored in (bench_explore(players, seconds) for players in numbers):
            click.echo(json.dumps(explored.as_dict()) if as_json else describe(explored))
        return
    figures = []
    for players in numbers:
        figure = bench_random_play(players, seconds)
        figures.append(figure)
        if not as_json:
            click.echo(f"random play, {players} players: {figure.games_per_second:,.0f} games/s "
                       f"({figure.games} games in {figure.seconds:.1f} s CPU), "
                       f"{figure.moves_per_game:.1f} moves/game, {figure.choices_per_game:.1f} seat/table choices/game")
    if as_json:
        click.echo(json.dumps([{"players": f.players, "games_per_second": round(f.games_per_second, 1),
                                "moves_per_game": round(f.moves_per_game, 2),
                                "choices_per_game": round(f.choices_per_game, 2)} for f in figures]))


COMMANDS = (play, replay, bench)
