"""`shrules play`: a complete game of random legal moves, round by round with rule IDs;
with `--games N`, N games played at once (batched) and how often each side wins."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click

from engine.batched import BATCH, BatchedGame, share_interval
from engine.game import MAX_MOVES, Game, compiled_game
from engine.play import Deadlock, Unfinished, random_game
from engine.words import english, named, word

from ..results import EXIT_FAILED, EXIT_LIMIT
from .options import json_option, lang_option, players_option, rules_option
from .outputs import writable


@click.command()
@players_option()
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="Random seed: same seed, same game.")
@rules_option()
@click.option("--trace", "trace_path", type=click.Path(dir_okay=False, writable=True),
              help="Save the game as an ITF JSON trace.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the outcome.")
@click.option("--no-changes", is_flag=True, help="Do not print the fields each move changed.")
@click.option("--games", type=click.IntRange(1, 10_000_000), metavar="N",
              help="Play N games at once (batched, the same moves and chances as one at a time) and print how "
                   "often each side wins and how, with 95% intervals, instead of one game.")
@json_option("With --games: the figures as JSON.")
@lang_option()
def play(players: int, seed: int, rules: str, trace_path: str | None, quiet: bool, no_changes: bool,
         lang: str, games: int | None = None, as_json: bool = False) -> None:
    """Play a complete game with uniformly random legal moves and print it round by round.

    With --games N, play N games and print the share of each way of winning: a quick
    look at a variant's balance.

    Exit status: 0 the game ended (with --games: every game did); 1 it reached a
    position with no legal move (a deadlock: the phase and the rules that block every
    move are named); 3 it had not ended after the move limit."""
    if games is None and as_json:
        raise click.UsageError("--json goes with --games")
    if games is not None:
        if trace_path:
            raise click.UsageError("--trace saves one game: not with --games")
        many(compiled_game(players, rules), games, seed, as_json, lang)
        return
    writable(trace_path, "--trace")
    game = compiled_game(players, rules)
    stuck: Deadlock | None = None
    try:
        trace = random_game(game, seed=seed)
    except Deadlock as deadlock:
        stuck, trace = deadlock, deadlock.trace
    except Unfinished as unfinished:
        click.echo(english(f"unfinished: {unfinished}", lang))
        raise SystemExit(EXIT_LIMIT) from None
    if not quiet:
        click.echo(word(lang, "play_header", players=players, rules=game.spec.name, seed=seed))
        click.echo(trace.text(changes=not no_changes, lang=lang))
    if stuck is not None:
        click.echo(english(f"deadlock: {stuck}", lang))
    elif quiet:
        click.echo(word(lang, "after_moves", outcome=outcome(game, trace.end, lang), moves=len(trace.steps)))
    if trace_path:
        trace.save_itf(trace_path, f"random game, {players} players, seed {seed}"
                       + (f", ending in a deadlock in phase {stuck.phase}" if stuck else ""))
        click.echo(word(lang, "saved", path=trace_path))
    if stuck is not None:
        raise SystemExit(EXIT_FAILED)


def many(game: Game, games: int, seed: int, as_json: bool, lang: str) -> None:
    """`play --games N`: N batched games, the share of each outcome and of each side."""
    figure = BatchedGame(game).play(games=games, seed=seed, batch=min(games, BATCH))
    played = figure.games + figure.deadlocks + figure.unfinished        # the shares are of every game played
    rows = [(winner, how, count, count / played, share_interval(count / played, played))
            for (winner, how), count in sorted(figure.outcomes.items(), key=lambda item: -item[1])]
    sides: dict[str, int] = {}
    for (winner, _), count in figure.outcomes.items():
        if winner is not None:
            sides[winner] = sides.get(winner, 0) + count
    if as_json:
        click.echo(json.dumps({"players": game.players, "rules": game.spec.name, "seed": seed, "games": played,
                               "outcomes": [{"winner": winner, "how": how, "games": count, "share": share,
                                             "interval": half} for winner, how, count, share, half in rows],
                               "sides": {side: count / played for side, count in sides.items()},
                               "moves_per_game": round(figure.moves_per_game, 2), "deadlocks": figure.deadlocks,
                               "unfinished": figure.unfinished, "cpu_seconds": round(figure.seconds, 2)}))
    else:
        show = _number(lang)
        click.echo(word(lang, "many_header", games=_whole(lang, played), players=game.players, rules=game.spec.name,
                        seed=seed, seconds=show(figure.seconds)))
        for winner, how, _, share, half in rows:
            text = (word(lang, "outcome", winner=named(lang, "team", winner), how=named(lang, "how", how or "the rules"))
                    if winner is not None else word(lang, "no_winner"))
            click.echo("  " + word(lang, "many_share", outcome=text, share=show(100 * share), interval=show(100 * half)))
        for side, count in sorted(sides.items()):
            share = count / played
            click.echo("  " + word(lang, "many_sides", side=named(lang, "team", side), share=show(100 * share),
                                   interval=show(100 * share_interval(share, played))))
        if figure.games:
            click.echo("  " + word(lang, "many_length", moves=show(figure.moves_per_game)))
        if figure.deadlocks:
            click.echo(word(lang, "many_deadlocks", count=_whole(lang, figure.deadlocks)))
        if figure.unfinished:
            click.echo(word(lang, "many_unfinished", count=_whole(lang, figure.unfinished),
                            limit=_whole(lang, MAX_MOVES)))
    if figure.deadlocks:
        raise SystemExit(EXIT_FAILED)
    if figure.unfinished:
        raise SystemExit(EXIT_LIMIT)


def _number(lang: str) -> Callable[[float], str]:
    """One decimal, with the language's decimal sign."""
    return (lambda value: f"{value:.1f}") if lang == "en" else (lambda value: f"{value:.1f}".replace(".", ","))


def _whole(lang: str, value: int) -> str:
    """A count with the language's thousands separator (3,000; 3.000)."""
    return f"{value:,}" if lang == "en" else f"{value:,}".replace(",", ".")


def outcome(game: Game, end: Any, lang: str = "en") -> str:
    """`liberal win by policies`, or, for rules whose game can end without a winner, says so."""
    winner = game.winner(end)
    if winner is None:
        return word(lang, "no_winner")
    return word(lang, "outcome", winner=named(lang, "team", winner), how=named(lang, "how", game.how(end) or "the rules"))


COMMANDS = (play,)
