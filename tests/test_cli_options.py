"""The options the commands share are one declaration each (verify/cli/options.py): the
same name, type and bounds in every command that has them.

A time limit is `--time-limit` everywhere, a finite number of seconds above 0: `nan`
compares false with every clock reading, so a search given it would never stop, and
`inf` or 0 is a typo rather than a limit. `--seconds`, its old name in four commands,
still works (older scripts) but is not listed in `--help`.
"""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from verify.cli import main
from verify.cli.options import MAX_WORKERS, SECONDS, AliasedOption

COMMANDS = sorted(main.commands)


def option(command: str, name: str) -> click.Option | None:
    """The option of `command` that answers to `name`, if any."""
    return next((param for param in main.commands[command].params
                 if isinstance(param, click.Option) and name in param.opts), None)


def having(name: str) -> list[str]:
    return [command for command in COMMANDS if option(command, name) is not None]


TIMED = having("--time-limit")


def test_the_commands_with_a_time_limit() -> None:
    """Every command that stops a search on the clock names its limit --time-limit."""
    assert TIMED == ["ask", "bench", "book", "check", "diff", "explore", "graph", "knows", "mutate", "odds", "prove",
                     "rebalance", "sweep"]


@pytest.mark.parametrize("command", TIMED)
def test_a_time_limit_is_one_declaration(command: str) -> None:
    limit = option(command, "--time-limit")
    assert isinstance(limit, AliasedOption) and limit.type is SECONDS
    assert limit.opts == ["--time-limit", "--seconds"]
    help_text = CliRunner().invoke(main, [command, "--help"]).output
    assert "--time-limit SECONDS" in help_text and "--seconds" not in help_text


def test_no_command_has_a_time_limit_of_its_own_making() -> None:
    """Another option taking seconds is a limit of a part of the run (e.g. diff's
    --random-time), of the same type; none is called --seconds."""
    for command in COMMANDS:
        for param in main.commands[command].params:
            if isinstance(param, click.Option) and "--seconds" in param.opts:
                assert param.opts[0] == "--time-limit", (command, param.opts)


ARGUMENTS = {"ask": ["--can", "True", "-n", "5"], "prove": ["tracks_in_range"], "book": ["site"],
             "diff": ["standard", "standard"]}
"""What a command needs besides its time limit to get as far as reading it."""


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0", "-2", "soon"])
@pytest.mark.parametrize("command", TIMED)
@pytest.mark.parametrize("name", ["--time-limit", "--seconds"])
def test_a_time_limit_that_is_not_a_finite_positive_number_is_refused(command: str, value: str, name: str) -> None:
    result = CliRunner().invoke(main, [command, *ARGUMENTS.get(command, []), f"{name}={value}"])
    assert result.exit_code == 2, (result.output, result.exception)
    assert "Invalid value for '--time-limit'" in result.output and "Traceback" not in result.output


def test_the_old_name_sets_the_same_limit() -> None:
    """`--seconds 0.3` is `--time-limit 0.3`: bench plays for as long either way."""
    context = main.commands["bench"].make_context("bench", ["--seconds", "0.3"])
    assert context.params["seconds"] == 0.3
    context = main.commands["bench"].make_context("bench", ["--time-limit", "0.3"])
    assert context.params["seconds"] == 0.3


@pytest.mark.parametrize("command", having("--workers"))
def test_workers_are_bounded_alike(command: str) -> None:
    workers = option(command, "--workers")
    assert workers is not None and isinstance(workers.type, click.IntRange)
    assert (workers.type.min, workers.type.max) == (1, MAX_WORKERS)


@pytest.mark.parametrize("command", having("--memory-limit"))
def test_memory_limits_are_mib_alike(command: str) -> None:
    limit = option(command, "--memory-limit")
    assert limit is not None and isinstance(limit.type, click.IntRange) and limit.type.min == 64
    assert limit.metavar == "MIB"


def test_a_memory_limit_below_64_mib_is_refused() -> None:
    result = CliRunner().invoke(main, ["explore", "-n", "5", "--memory-limit", "10"])
    assert result.exit_code == 2 and "Invalid value for '--memory-limit'" in result.output


@pytest.mark.parametrize("command", having("--json"))
def test_json_is_a_flag_everywhere(command: str) -> None:
    flag = option(command, "--json")
    assert flag is not None and flag.is_flag


@pytest.mark.parametrize("command", having("--players"))
def test_players_is_also_dash_n(command: str) -> None:
    players = option(command, "--players")
    assert players is not None and "-n" in players.opts


def test_the_mistakes_score_is_a_mutation_analysis_not_a_check_option() -> None:
    """The score over the hand-written mistakes moved from `check --mutants` to `mutate
    --mistakes`: check's help no longer lists it, the old spelling is refused where it
    cannot apply, and `--mistakes` is for the standard rules only."""
    runner = CliRunner()
    check_help = runner.invoke(main, ["check", "--help"]).output
    assert "--mutants" not in check_help and "--quick" not in check_help
    assert "--mistakes" in runner.invoke(main, ["mutate", "--help"]).output
    other = runner.invoke(main, ["mutate", "--mistakes", "--rules", "custom"])
    assert other.exit_code == 2 and "variants of the standard rules" in other.output
    alone = runner.invoke(main, ["mutate", "--quick"])
    assert alone.exit_code == 2 and "--quick is an effort of --mistakes" in alone.output
    assert runner.invoke(main, ["check", "--quick", "-n", "5"]).exit_code == 2
