"""The `shrules` command line: one group, one module per command (verify/cli/<command>.py).

Exit codes, the same for every command: 0 every verdict as expected (a legal game, a
replay confirmed); 1 a verdict not as expected (an illegal move, a broken property);
2 bad input (a spec, a variant, a transcript, a command line), reported as one line;
3 a limit was hit where a verdict was expected (the verdict is then "unknown").
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

import click

from spec.errors import SpecError

from ..results import EXIT_BAD_INPUT


class ShrulesGroup(click.Group):
    """A click group that turns bad input into one line on stderr and exit status 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except SpecError as error:
            click.echo(f"shrules: error: {error}", err=True)
            ctx.exit(EXIT_BAD_INPUT)
        except RecursionError:
            click.echo("shrules: error: input nested too deeply", err=True)
            ctx.exit(EXIT_BAD_INPUT)


@click.group(cls=ShrulesGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option("0.1.0", prog_name="shrules")
def main() -> None:
    """shrules: a formally specified rules checker for Secret Hitler.

    One declarative rule spec (spec/) is compiled into an executable engine and into
    Z3 constraints. Rule IDs (R-S1 ... R-W5, D-1 ... D-5) refer to RULES.md.

    Exit status: 0 as expected, 1 a verdict not as expected, 2 bad input, 3 a limit hit.
    """


def _register() -> None:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for command in getattr(module, "COMMANDS", ()):
            main.add_command(command)


_register()
