"""`shrules replay`: a saved ITF trace replayed through the engine, every move and state confirmed."""

from __future__ import annotations

import click

from engine.play import Deadlock, blocked_by, has_legal_move
from engine.trace import replay_itf
from engine.words import english, word

from ..results import EXIT_FAILED
from .options import lang_option


@click.command()
@click.argument("trace_file", type=click.Path(exists=True, dir_okay=False))
@click.option("--print", "show", is_flag=True, help="Print the replayed game.")
@lang_option()
def replay(trace_file: str, show: bool, lang: str) -> None:
    """Replay a saved ITF trace through the engine and confirm every move and state.

    Exit status: 0 confirmed; 1 not confirmed, or the trace ends in a position with no
    legal move that is not the end of the game (a deadlock)."""
    result = replay_itf(trace_file)
    if show:
        click.echo(result.trace.text(lang=lang))
    if result.ok:
        click.echo(word(lang, "confirmed", message=result.said(lang)))
    else:
        click.echo(word(lang, "not_confirmed", message=result.said(lang)))
        raise SystemExit(EXIT_FAILED)
    game, end = result.trace.game, result.trace.end
    if not game.is_over(end) and not has_legal_move(game, end):
        click.echo(english(f"deadlock: {Deadlock(result.trace, blocked_by(game, end))}", lang))
        raise SystemExit(EXIT_FAILED)


COMMANDS = (replay,)
