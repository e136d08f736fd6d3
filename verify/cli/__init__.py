"""The `shrules` command line: one group, one module per command (verify/cli/<command>.py).

Exit codes, the same for every command: 0 every verdict as expected (a legal game, a
replay confirmed); 1 a verdict not as expected (an illegal move, a broken property);
2 bad input (a spec, a variant, a transcript, a command line), reported as one line;
3 a verdict was expected but could not be given: a limit was hit (the verdict is then
"unknown"), or `judge` met a game the rules cannot express (unsupported).

A command run with `--json` is read by a program: its errors are then printed on stdout as
one JSON object `{"error": MESSAGE, "exit": 2}` as well as on stderr as the usual line, so
that a caller parsing stdout is never left with nothing to parse.
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

from ..results import EXIT_FAILED, EXIT_OK
from .options import refuse


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
        self.json_errors = wants_json(self, argv)
        try:
            status = super().main(argv, prog_name, complete_var, False, **extra)
        except click.exceptions.NoArgsIsHelpError as error:   # bare `shrules`: the help, as before
            error.show()
            sys.exit(error.exit_code)
        except click.ClickException as error:       # UsageError, BadParameter, FileError, ...
            sys.exit(self.refuse(usage_line(error)))
        except RecursionError:
            sys.exit(self.refuse(too_deep(argv)))
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(EXIT_FAILED)
        sys.exit(status if isinstance(status, int) else EXIT_OK)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except SpecError as error:
            ctx.exit(self.refuse(str(error)))
        except BrokenPipeError:
            raise                                   # stdout closed by a pager: click's own handling
        except OSError as error:                    # a write that failed after the paths were checked
            where = f"{error.filename}: " if error.filename else ""
            ctx.exit(self.refuse(f"{where}{error.strerror or error}"))

    json_errors = False
    """Whether this run's command was asked for `--json`: its errors then go on stdout as JSON too."""

    def refuse(self, message: str) -> int:
        """Bad input reported: one line on stderr, and with `--json` a JSON object on stdout."""
        return refuse(message, self.json_errors)


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


def wants_json(group: click.Group, argv: Sequence[str]) -> bool:
    """Whether the command line asks a command that has `--json` for it (before `--`, so a
    file named `--json` after it is not taken for the flag)."""
    words = list(argv[:argv.index("--")] if "--" in argv else argv)
    command = group.commands.get(next((word for word in words if not word.startswith("-")), ""))
    if command is None or "--json" not in words:
        return False
    return any("--json" in getattr(param, "opts", ()) for param in command.params)




HELP_OPTION_NAMES = ["-h", "--help"]
"""`-h` and `--help`, for the group and for every command."""


@click.group(cls=ShrulesGroup, context_settings={"help_option_names": HELP_OPTION_NAMES})
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
            # Each command's own too, not only inherited from the group's context: click
            # keeps a command's help option from the first context that asks for it, so a
            # command's context made alone (a test's, a tool's) would drop `-h` for good.
            command.context_settings.setdefault("help_option_names", HELP_OPTION_NAMES)
            main.add_command(command)


_register()
