"""`shrules view`: what one seat saw of a played game, round by round (engine/view.py)."""

from __future__ import annotations

from pathlib import Path

import click

from engine.view import FORMATS, Unsupported, read_played, seat_history
from engine.words import SEAT_BASE

from ..results import EXIT_LIMIT
from .options import lang_option, refuse, rules_name, rules_option, variant_options


@click.command()
@click.argument("game_file", type=click.Path(exists=True, dir_okay=False, path_type=Path), metavar="GAME")
@click.option("--seat", type=int, required=True,
              help="The seat whose view to show, counted from 1 as at the table.")
@click.option("--format", "fmt", type=click.Choice(list(FORMATS)), default="auto", show_default=True,
              help="The game's format: a transcript (.jsonl, engine/TRANSCRIPT.md), an ITF trace written by "
                   "--traces, or a secrethitler.io summary; auto tells them apart by the extension and, for "
                   ".json, by ITF's states and vars.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the rounds and their observations as one JSON object (docs/reference/view.md).")
@rules_option(default=None, help_text="Replay under these rules (a rules file or variant name), whatever the "
                                      "game names. Default: the rules the game names.")
@variant_options
@lang_option()
def view(game_file: Path, seat: int, fmt: str, as_json: bool, rules: str | None, sets: tuple[str, ...],
         settings_file: str | None, lang: str) -> None:
    """Show what one seat saw of a game: the public moves, and what the rules showed this
    seat alone (its role and teammates, its hand, a peek, an investigation), each line with
    the rule ID that shows it; then the seat's view now and the moves it may make. What the
    log does not record is said to be not recorded, never guessed.

    Exit status: 0 shown; 2 bad input (a malformed file, an illegal game, a trace that does
    not replay, a seat not at the table); 3 a game the rules cannot express (unsupported).
    """
    if rules is not None or sets or settings_file:
        rules = rules_name(rules or "standard", sets, settings_file)
    try:
        played = read_played(game_file, fmt, rules)
    except Unsupported as error:
        refuse(str(error), as_json)
        raise SystemExit(EXIT_LIMIT) from None
    history = seat_history(played, seat - SEAT_BASE, lang)
    click.echo(history.dumps() if as_json else history.text())


COMMANDS = (view,)
