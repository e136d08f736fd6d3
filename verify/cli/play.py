"""`shrules play`: a complete game of random legal moves, round by round with rule IDs."""

from __future__ import annotations

import click

from engine.game import compiled_game
from engine.play import random_game

from .options import players_option, rules_option


@click.command()
@players_option()
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="Random seed: same seed, same game.")
@rules_option()
@click.option("--trace", "trace_path", type=click.Path(dir_okay=False, writable=True),
              help="Save the game as an ITF JSON trace.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the outcome.")
@click.option("--no-changes", is_flag=True, help="Do not print the fields each move changed.")
def play(players: int, seed: int, rules: str, trace_path: str | None, quiet: bool, no_changes: bool) -> None:
    """Play a complete game with uniformly random legal moves and print it round by round."""
    game = compiled_game(players, rules)
    trace = random_game(game, seed=seed)
    if not quiet:
        click.echo(f"A game of {players} players under the {game.spec.name} rules, seed {seed}")
        click.echo(trace.text(changes=not no_changes))
    else:
        end = trace.end
        click.echo(f"{game.winner(end)} win by {game.how(end)} after {len(trace.steps)} moves")
    if trace_path:
        trace.save_itf(trace_path, f"random game, {players} players, seed {seed}")
        click.echo(f"trace saved to {trace_path}")


COMMANDS = (play,)
