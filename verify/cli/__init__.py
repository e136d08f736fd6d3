"""The `shrules` command line: one group, one module per command (verify/cli/<command>.py).

Exit codes, the same for every command: 0 every verdict as expected (a legal game, a
replay confirmed); 1 a verdict not as expected (an illegal move, a broken property);
2 bad input (a spec, a variant, a transcript, a command line), reported as one line;
3 a verdict was expected but could not be given: a limit was hit (the verdict is then
"unknown"), or `judge` met a game the rules cannot express (unsupported).
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
import shlex
import sys
from collections.abc import Sequence
from typing import Any

import click

from spec.errors import SHOWN_CHARS, SpecError, one_line, shown

from ..results import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK


class ShrulesGroup(click.Group):
    """A click group that turns bad input into one line on stderr and exit status 2."""

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True, **extra: Any) -> Any:
        """Click's own main, except that a usage mistake prints one line `shrules: error:
        ...` instead of click's three (Usage:, Try, Error:), so that a script or a CI log
        reads every bad input the same way; `--help` and `--version` are untouched."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        argv = list(sys.argv[1:] if args is None else args)
        try:
            status = super().main(argv, prog_name, complete_var, False, **extra)
        except click.exceptions.NoArgsIsHelpError as error:   # bare `shrules`: the help, as before
            error.show()
            sys.exit(error.exit_code)
        except click.ClickException as error:       # UsageError, BadParameter, FileError, ...
            sys.exit(_refuse(usage_line(error)))
        except RecursionError:
            sys.exit(_refuse(too_deep(argv)))
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(EXIT_FAILED)
        sys.exit(status if isinstance(status, int) else EXIT_OK)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except SpecError as error:
            click.echo(f"shrules: error: {error}", err=True)
            ctx.exit(EXIT_BAD_INPUT)
        except BrokenPipeError:
            raise                                   # stdout closed by a pager: click's own handling
        except OSError as error:                    # a write that failed after the paths were checked
            where = f"{error.filename}: " if error.filename else ""
            click.echo(one_line(f"shrules: error: {where}{error.strerror or error}"), err=True)
            ctx.exit(EXIT_BAD_INPUT)


def usage_line(error: click.ClickException) -> str:
    """A click error as one line naming the option and what was expected, with the command
    whose --help tells more."""
    message = "; ".join(line.strip() for line in error.format_message().splitlines() if line.strip())
    message = re.sub(r"'([^']{%d,})'" % (SHOWN_CHARS + 1), lambda match: shown(match.group(1)), message)
    context = getattr(error, "ctx", None)
    if context is not None:
        message = f"{message.rstrip('.')} (see '{context.command_path} --help')"
    return message


def too_deep(argv: list[str]) -> str:
    """The message for input nested past the interpreter's stack that no reader caught:
    it names the files on the command line (the input is one of them) or, with none, the
    command line itself (an expression given as an option)."""
    command = " ".join(shlex.quote(arg if len(arg) <= 40 else arg[:40] + "…") for arg in argv)
    files = [arg for arg in argv if len(arg) < 4096 and os.path.isfile(arg)]
    where = ", ".join(files) if files else "the command line"
    return (f"{where}: input nested too deeply (read by `shrules {command}`); expected files and "
            f"expressions nested a few hundred levels at most")


def _refuse(message: str) -> int:
    click.echo(f"shrules: error: {one_line(message)}", err=True)
    return EXIT_BAD_INPUT


@click.group(cls=ShrulesGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option("0.1.0", prog_name="shrules")
def main() -> None:
    """shrules: a formally specified rules checker for Secret Hitler.

    One declarative rule spec (spec/) is compiled into an executable engine and into
    Z3 constraints. Rule IDs (R-S1 ... R-W5, D-1 ... D-5) refer to RULES.md; `shrules
    rules ID` prints a rule in full, `shrules words` the names a question may use.

    Exit status: 0 as expected, 1 a verdict not as expected, 2 bad input, 3 a limit hit.
    """


def _register() -> None:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for command in getattr(module, "COMMANDS", ()):
            main.add_command(command)


_register()
