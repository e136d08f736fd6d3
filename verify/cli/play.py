"""`shrules play`: a complete game of random legal moves, round by round with rule IDs."""

from __future__ import annotations

from typing import Any

import click

from engine.game import Game, compiled_game
from engine.play import Deadlock, Unfinished, random_game
from engine.words import english, named, word

from ..results import EXIT_FAILED, EXIT_LIMIT
from .options import lang_option, players_option, rules_option
from .outputs import writable


@click.command()
@players_option()
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="Random seed: same seed, same game.")
@rules_option()
@click.option("--trace", "trace_path", type=click.Path(dir_okay=False, writable=True),
              help="Save the game as an ITF JSON trace.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the outcome.")
@click.option("--no-changes", is_flag=True, help="Do not print the fields each move changed.")
@lang_option()
def play(players: int, seed: int, rules: str, trace_path: str | None, quiet: bool, no_changes: bool,
         lang: str) -> None:
    """Play a complete game with uniformly random legal moves and print it round by round.

    Exit status: 0 the game ended; 1 it reached a position with no legal move (a
    deadlock: the phase and the rules that block every move are named); 3 it had not
    ended after the move limit."""
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


def outcome(game: Game, end: Any, lang: str = "en") -> str:
    """`liberal win by policies`, or, for rules whose game can end without a winner, says so."""
    winner = game.winner(end)
    if winner is None:
        return word(lang, "no_winner")
    return word(lang, "outcome", winner=named(lang, "team", winner), how=named(lang, "how", game.how(end) or "the rules"))


COMMANDS = (play,)
