"""`shrules compile`: the Python the rules compile to, printed readably; and the generated
code of every kind (rules, parameter domains, phase steps, the codec) is reachable by
its source, so a traceback through it shows the generated line."""

from __future__ import annotations

import traceback

from click.testing import CliRunner

from engine.game import compiled_game
from engine.pycompile import generated_source
from verify.cli import main
from verify.explicit.model import Model


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_the_listing_of_every_rule_is_valid_python() -> None:
    code, output = run("compile", "--players", "5")
    assert code == 0, output
    compile(output, "<shrules compile>", "exec")
    game = compiled_game(5)
    for compiled in game.rules:
        assert f"# rule {compiled.rule.name}: " in output
    assert "# phase vote: the move random play makes" in output
    assert "#   s[0] phase: enum phase" in output


def test_one_rule_names_its_slots() -> None:
    code, output = run("compile", "--rule", "nominate", "-n", "7")
    assert code == 0, output
    compile(output, "<shrules compile>", "exec")
    assert "# rule nominate: " in output and "# rule elect: " not in output
    assert "for 7 players" in output
    assert "#   p0 = chancellor: seat\n" in output
    assert "def guard(s, p0):" in output and "def first_failure(s, p0):" in output


def test_an_unknown_rule_is_one_line_and_exit_2() -> None:
    code, output = run("compile", "--rule", "nominate_twice")
    assert code == 2
    lines = output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("shrules: error: no rule named 'nominate_twice'")


def test_generated_sources_are_reachable() -> None:
    game = compiled_game(5)
    elect = game.by_name["elect"]
    assert "def guard(" in generated_source(elect.guard)
    assert "def d(s):" in generated_source(elect.domains[0])
    vote = game.phase_names.index("vote")
    step = game.steps[vote]
    assert step is not None and "def step(s, rng):" in generated_source(step)
    codec = Model(game).codec
    assert "def encode(s):" in generated_source(codec.encode)
    assert "def decode(x):" in generated_source(codec.decode)
    assert generated_source(len) == "" and generated_source(test_generated_sources_are_reachable) == ""


def test_a_traceback_through_generated_code_shows_its_line() -> None:
    guard = compiled_game(5).by_name["elect"].guard
    try:
        guard((0,), 1)              # a state without the fields the guard reads
    except IndexError:
        text = traceback.format_exc()
    else:
        raise AssertionError("the guard read a field the state does not have")
    assert "<shrules rule elect #" in text and "bit_count()" in text
