"""Names in a spec are data (SECURITY.md): every name a rule set gives is a plain
lower_case word, checked at load with the file and line, and the generated engine refers
to none of them; a value a rule set gives is checked before a game is built from it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.game import compiled_game
from spec.errors import SpecError
from spec.loader import load_spec
from verify.cli import main

INJECTION = "x=__import__('os').system('touch owned')"


def variant(tmp_path: Path, body: str, name: str = "v.toml") -> Path:
    path = tmp_path / name
    path.write_text('extends = "standard"\nname = "v"\n' + body, encoding="utf-8")
    return path


def refused(path: Path, match: str) -> SpecError:
    with pytest.raises(SpecError, match=match) as caught:
        load_spec(str(path))
    assert caught.value.where is not None and caught.value.where.file == str(path)
    return caught.value


NAMED_PLACES = {
    "parameter": '[[rule]]\nname = "nominate"\nparams = { chancellor = "seat", "%s" = "seat" }\n',
    "let": '[[rule]]\nname = "nominate"\nlet = { "%s" = "1" }\n',
    "constant": '[add.constants]\n"%s" = 1\n',
    "table": '[add.tables."%s"]\n"5-10" = 1\n',
    "state field": '[add.state]\n"%s" = { type = "bool", init = "False", seen = "public" }\n',
    "definition": '[add.definitions]\n"%s" = "1"\n',
    "enum": '[add.enums]\n"%s" = ["a"]\n',
    "member of enum 'how'": '[add.enums]\nhow = ["%s"]\n',
    "rule": '[[add.rule]]\nname = "%s"\nphase = "nominate"\nactor = "president"\nrequires = []\n'
            'effect = {}\n',
}


@pytest.mark.parametrize("kind", sorted(NAMED_PLACES))
def test_a_name_that_is_code_is_refused_where_it_is_written(tmp_path: Path, kind: str) -> None:
    path = variant(tmp_path, NAMED_PLACES[kind] % INJECTION)
    error = refused(path, "is not lower_case_with_underscores")
    assert kind in error.message
    assert error.where is not None and error.where.line is not None and error.where.line >= 3


@pytest.mark.parametrize("name", ["class", "lambda", "None", "match", "len", "print", "", "_private",
                                  "Upper", "a" * 65, "x y", "é"])
def test_keywords_builtins_and_odd_names_are_not_names(tmp_path: Path, name: str) -> None:
    path = variant(tmp_path, NAMED_PLACES["constant"] % name)
    refused(path, "constant name")


def test_a_plain_new_name_is_still_welcome(tmp_path: Path) -> None:
    spec = load_spec(str(variant(tmp_path, NAMED_PLACES["constant"] % "house_rule_bonus")))
    assert spec.constants["house_rule_bonus"] == 1


def test_the_reported_variant_never_runs_its_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The variant of the security report, played: refused with exit 2, nothing created."""
    monkeypatch.chdir(tmp_path)
    path = variant(tmp_path, NAMED_PLACES["parameter"] % INJECTION)
    for command in (["play", "--rules", str(path), "-n", "5"], ["check", "--rules", str(path), "-n", "5"],
                    ["graph", "--rules", str(path), "-n", "5"], ["diff", "standard", str(path), "-n", "5"]):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 2, (command, result.output)
        assert "is not lower_case_with_underscores" in result.stderr
        assert not (tmp_path / "owned").exists()


# ---------------------------------------------------------------------- values checked before a game is built


def test_a_reversed_field_range_is_refused(tmp_path: Path) -> None:
    path = variant(tmp_path, '[add.state]\nscore = { type = "int", range = "0..-5", init = "0", seen = "public" }\n')
    with pytest.raises(SpecError, match=r"field 'score' has the range 0..-5, which is empty"):
        compiled_game(5, str(path))


def test_an_initial_value_outside_the_range_is_refused(tmp_path: Path) -> None:
    path = variant(tmp_path, '[add.state]\nscore = { type = "int", range = "0..3", init = "100", seen = "public" }\n')
    with pytest.raises(SpecError, match=r"field 'score' starts at 100, outside its range 0..3"):
        compiled_game(5, str(path))


def test_a_field_range_too_wide_to_pack_is_refused(tmp_path: Path) -> None:
    path = variant(tmp_path, '[add.state]\nscore = { type = "int", range = "-1000000..0", init = "0", seen = "public" }\n')
    with pytest.raises(SpecError, match=r"a field takes at most 65,536"):
        compiled_game(5, str(path))


@pytest.mark.parametrize("key, match", [("1-1000000000", "is not a player count or a range"),
                                         ("9-5", "reversed range"), ("1" * 5000, "is not a player count")])
def test_a_table_key_is_checked_before_it_is_expanded(tmp_path: Path, key: str, match: str) -> None:
    refused(variant(tmp_path, f'[add.tables.bonus]\n"{key}" = 1\n"5-10" = 1\n'), match)


def test_a_huge_integer_in_a_rules_file_is_one_error(tmp_path: Path) -> None:
    path = variant(tmp_path, "[add.constants]\nbonus = " + "9" * 5000 + "\n")
    with pytest.raises(SpecError, match="not valid TOML for shrules"):
        load_spec(str(path))


def test_rules_without_a_way_to_end_are_refused_on_load(tmp_path: Path) -> None:
    path = variant(tmp_path, '[state]\nwinner = { type = "bool", init = "False" }\n')
    with pytest.raises(SpecError, match=r"needs a field 'winner' of an enum 'team'"):
        load_spec(str(path))


# ---------------------------------------------------------------------- the generated code holds no spec name


GENERATED_WORDS = {"s", "k", "w", "d", "rng", "out", "random", "getrandbits", "guard", "first_failure", "failures",
                   "effect", "actor", "size", "draw", "weight", "outcomes", "int", "min", "max", "range", "len", "sum"}
"""The fixed vocabulary of engine/pycompile.py's output, besides `_helpers` and the slots."""


def test_generated_code_is_made_of_slots_and_fixed_words() -> None:
    import ast
    import re

    game = compiled_game(5, "standard")
    for compiled in game.rules:
        for node in ast.walk(ast.parse(compiled.source)):
            word = node.id if isinstance(node, ast.Name) else node.arg if isinstance(node, ast.arg) else \
                node.name if isinstance(node, ast.FunctionDef) else None
            if word is not None:
                assert re.fullmatch(r"_\w+|[pl]\d+", word) or word in GENERATED_WORDS, (compiled.rule.name, word)


BATCHED_WORDS = {"s", "allowed", "ready", "effect", "weight", "low0", "high0", "length0", "of0", "low1", "high1",
                 "length1", "of1", "bool"}
"""The fixed vocabulary of engine/batched.py's output, besides `_helpers` and the slots."""


def test_batched_code_is_made_of_slots_and_fixed_words() -> None:
    import ast
    import re

    from engine.batched import BatchedGame

    for rules in ("standard", "no_topdecking", "veto_chaos_first"):
        for compiled in BatchedGame(compiled_game(10, rules)).rules:
            for node in ast.walk(ast.parse(compiled.source)):
                word = node.id if isinstance(node, ast.Name) else node.arg if isinstance(node, ast.arg) else \
                    node.name if isinstance(node, ast.FunctionDef) else None
                if word is not None:
                    assert re.fullmatch(r"_\w+|[pl]\d+", word) or word in BATCHED_WORDS, (compiled.rule.name, word)


def test_names_that_match_the_generated_words_change_nothing(tmp_path: Path) -> None:
    """Constants, lets and definitions named like the slots and the generated functions'
    own variables: if a name reached the code it would shadow them and change the game."""
    from engine.play import random_game

    path = variant(tmp_path, '[add.constants]\ns = 3\np0 = 4\nl0 = 1\n[add.definitions]\nguard = "0"\n'
                             'effect = "1"\n[[rule]]\nname = "nominate"\nlet = { rng = "2", out = "3" }\n')
    for seed in range(3):
        plain = random_game(compiled_game(5, "standard"), seed=seed)
        named = random_game(compiled_game(5, str(path)), seed=seed)
        assert [step[0] for step in plain.steps] == [step[0] for step in named.steps]
    from engine.batched import BatchedGame

    plain_batch = BatchedGame(compiled_game(5, "standard")).play(games=60, seed=1, batch=30)
    named_batch = BatchedGame(compiled_game(5, str(path))).play(games=60, seed=1, batch=30)
    assert (plain_batch.moves, plain_batch.outcomes) == (named_batch.moves, named_batch.outcomes)


def test_rules_where_no_game_can_start_are_refused(tmp_path: Path) -> None:
    path = variant(tmp_path, '[add.enums]\nphase = ["limbo"]\n[state]\nphase = { type = "phase", init = "\'limbo\'" }\n')
    with pytest.raises(SpecError, match=r"no rule moves in the phase 'limbo' the game starts in"):
        compiled_game(5, str(path))


def test_rules_where_no_game_can_end_are_refused_on_load(tmp_path: Path) -> None:
    import tomllib

    from fuzz.tomlw import dumps
    from spec.loader import RULES_DIR

    data = tomllib.loads((RULES_DIR / "standard.toml").read_text(encoding="utf-8"))
    for rule in data["rule"]:
        rule.get("effect", {}).pop("winner", None)
    path = tmp_path / "endless.toml"
    path.write_text(dumps(data), encoding="utf-8")
    with pytest.raises(SpecError, match=r"no rule's effect sets the winner: no game could ever end"):
        load_spec(str(path))
