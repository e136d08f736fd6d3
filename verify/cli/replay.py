"""`shrules replay`: a saved ITF trace replayed through the engine, every move and state confirmed."""

from __future__ import annotations

import click

from engine.trace import replay_itf

from ..results import EXIT_FAILED


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


COMMANDS = (replay,)
