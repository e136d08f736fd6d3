"""Bad specs are refused with a `SpecError` naming the file, the line and the field; and a
seeded game is the same game every time.

Each case writes a small variant (`extends = "standard"`) into a temporary folder and
overrides one requirement, effect, definition or other entry with a construct the spec
language refuses (spec/lang/check.py): unknown names (with "did you mean"), type errors,
imports, attribute and dunder access, lambdas, comprehensions, calls outside the builtins,
`**`, huge integer literals, f-strings, and the rest of Python that is not the language.
"""

from __future__ import annotations

from pathlib import Path
from random import Random

import pytest

from engine import compiled_game, new_game
from engine.game import Game
from helpers import BAD_VARIANT_HEADER as HEADER, line_of, write_bad_variant as write
from spec.errors import SpecError
from spec.loader import load_spec





def refusal(path: Path) -> SpecError:
    with pytest.raises(SpecError) as caught:
        load_spec(str(path))
    error = caught.value
    assert "\n" not in str(error).split("\n", 1)[0] and str(error).strip(), "a SpecError prints as one line"
    return error


# The R-E3 requirement of `nominate` is the third (index 2) of that rule.
REQUIREMENT_FIELD = "rule 'nominate' requires[2]"

EXPRESSIONS = [
    # unknown names, with a suggestion
    ("chancellor != last_chancelor", "unknown name 'last_chancelor'. Did you mean 'last_chancellor'?"),
    ("chancellor in alvie", "unknown name 'alvie'. Did you mean 'alive'?"),
    ("phase == 'votes'", "'votes' is not a phase; expected one of"),
    # type errors
    ("chancellor + 1 > 2", "left operand of '+' must be int, got seat"),
    ("count(alive) == chancellor", "cannot compare int with seat"),
    ("count(alive)", "the expression must be bool, got int"),
    ("(1 if True else alive) == 1", "the branches of 'if' have different types"),
    ("count(known_top) == 1", "argument of count() must be seats, got tiles"),
    ("'abc'", "the string 'abc' is not a value here"),
    # imports, attributes, dunders
    ("__import__('os') == 1", "'__import__' is not a builtin"),
    ("import os", "syntax error"),
    ("chancellor.real == 1", "attribute access ('.real') is not allowed"),
    ("alive.__class__ == alive", "attribute access ('.__class__') is not allowed"),
    ("__builtins__ == 1", "names starting with '_' are not allowed"),
    # lambdas and comprehensions
    ("lambda: True", "lambdas are not allowed"),
    ("(lambda: True)()", "only the documented builtins can be called"),
    ("[s for s in alive] == []", "comprehensions are not allowed"),
    ("count(s for s in alive) == 1", "comprehensions are not allowed"),
    ("{s for s in alive} == alive", "comprehensions are not allowed"),
    # calls outside the builtins
    ("open('x') == 1", "'open' is not a builtin"),
    ("eval('1') == 1", "'eval' is not a builtin; the builtins are"),
    ("cont(alive) == 1", "'cont' is not a builtin. Did you mean 'count'?"),
    ("alive.bit_count() == 7", "only the documented builtins can be called"),
    ("count(seats=alive) == 1", "count() takes no keyword arguments"),
    # arithmetic that could hang, literals too large
    ("2 ** 10 > count(alive)", "'**' is not allowed"),
    ("count(alive) < 99999999999", "integer literal 99999999999 is too large"),
    ("count(alive) > -10000000", "is too large"),
    ("not " * 100 + "True", "expression nested too deeply"),
    # f-strings and other Python
    ("f'{chancellor}' == 'x'", "f-strings are not allowed"),
    ("(x := 1) == 1", "':=' is not allowed"),
    ("(1, 2) == (1, 2)", "tuples are not part of the language"),
    ("chancellor is none", "'is' is not part of the language"),
    ("chancellor != None", "write none (lower case)"),
    ("board[0:1] == board", "slices are not part of the language"),
    ("1.5 > 1", "literal 1.5 is not part of the language"),
]


@pytest.mark.parametrize("expression, message", EXPRESSIONS, ids=[m.split("'")[0][:30] + str(i) for i, (_, m) in
                                                                   enumerate(EXPRESSIONS)])
def test_a_refused_expression_names_file_line_and_field(tmp_path: Path, expression: str, message: str) -> None:
    path = write(tmp_path, f'[[requirement]]\nrule = "nominate"\nid = "R-E3"\nwhen = """{expression}"""\n')
    error = refusal(path)
    assert message in error.message
    assert error.where is not None
    assert (error.where.file, error.where.line, error.where.field) == (str(path), line_of(path, expression),
                                                                      REQUIREMENT_FIELD)
    assert str(error).startswith(f"{path}:{line_of(path, expression)} {REQUIREMENT_FIELD}: ")


@pytest.mark.parametrize("body, needle, field, message", [
    ('[[rule]]\nname = "nominate"\neffect = { nominee = "chancellor + 1" }\n', "nominee =",
     "rule 'nominate' effect.nominee", "left operand of '+' must be int, got seat"),
    ('[[rule]]\nname = "nominate"\neffect = { nominee = "chancellor.real" }\n', "nominee =",
     "rule 'nominate' effect.nominee", "attribute access"),
    ('[[rule]]\nname = "nominate"\neffect = { nomine = "chancellor" }\n', "nomine =",
     "rule 'nominate' effect.nomine", "not a state field. Did you mean 'nominee'?"),
    ('[[rule]]\nname = "nominate"\nactor = "presidnet"\n', "actor", "rule 'nominate' actor",
     "unknown name 'presidnet'. Did you mean 'president'?"),
    ('[[rule]]\nname = "chaos"\nweight = "draw_fascist ** 2"\n', "weight", "rule 'chaos' weight", "'**' is not allowed"),
    ('[definitions]\npile = "known_top + 1"\n', "pile =", "definitions.pile", "must be int, got tiles"),
    ('[definitions]\nalive_count = "count(alvie)"\n', "alive_count =", "definitions.alive_count",
     "unknown name 'alvie'. Did you mean 'alive'?"),
    ('[state]\nelection_tracker = { type = "int", range = "0..10 ** 2", init = "0" }\n', "election_tracker =",
     "state.election_tracker", "'**' is not allowed"),
    ('[[requirement]]\nrule = "nominate"\nid = "R-E99"\nadd = true\nwhen = "True"\nwhy = "no reason"\n', "True",
     "rule 'nominate' requires[4]", "'R-E99' is not a rule ID of RULES.md. Did you mean 'R-E9'?"),
    ('[[rule]]\nname = "nominate"\nrequires = [ { rule = "R-E2", when = "lambda: 1", why = "no" } ]\n', "lambda",
     "rule 'nominate' requires[0]", "lambdas are not allowed"),
])
def test_a_refused_entry_names_file_line_and_field(tmp_path: Path, body: str, needle: str, field: str,
                                                   message: str) -> None:
    path = write(tmp_path, body)
    error = refusal(path)
    assert message in error.message
    assert error.where is not None
    assert (error.where.file, error.where.line, error.where.field) == (str(path), line_of(path, needle), field)


@pytest.mark.parametrize("body, needle, words", [
    ('[[requirement]]\nrule = "nominat"\nid = "R-E3"\nwhen = "True"\n', "R-E3",
     ["requirement", "no rule 'nominat'", "Did you mean 'nominate'?"]),
    ('[[requirement]]\nrule = "nominate"\nid = "R-E33"\nwhen = "True"\n', "R-E33",
     ["requirement", "no requirement citing R-E33", "it cites R-E2, R-E3, R-E4"]),
    ('[constants]\ntracker_limt = 4\n', "tracker_limt",
     ["constants.tracker_limt", "no constant 'tracker_limt' to override", "Did you mean 'tracker_limit'?"]),
    ('[rules]\nx = 1\n', "[rules]", ["unknown section 'rules' in a variant"]),
    ('remove_rules = ["chaoss"]\n', "chaoss", ["remove_rules", "no rule 'chaoss'", "Did you mean 'chaos'?"]),
])
def test_a_refused_overlay_names_file_line_and_field(tmp_path: Path, body: str, needle: str,
                                                     words: list[str]) -> None:
    path = write(tmp_path, body)
    text = str(refusal(path))
    assert text.startswith(f"{path}:{line_of(path, needle)}: "), text
    for word in words:
        assert word in text, f"{word!r} not in {text!r}"


def test_a_bad_template_hole_in_a_reason_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, '[[requirement]]\nrule = "nominate"\nid = "R-E3"\nwhen = "chancellor != last_chancellor"\n'
                           'why = "seat {chancelor} is term-limited"\n')
    error = refusal(path)
    assert "unknown name 'chancelor'. Did you mean 'chancellor'?" in error.message
    assert error.where is not None and error.where.field == REQUIREMENT_FIELD and error.where.line is not None
    assert str(path) in str(error), "the error names the variant that made the mistake"


def test_a_good_variant_loads_and_changes_the_rule(tmp_path: Path) -> None:
    """The negative cases above are not refusals of every variant: a correct one loads."""
    path = write(tmp_path, '[[requirement]]\nrule = "nominate"\nid = "R-E4"\nwhen = "chancellor != last_president"\n')
    spec = load_spec(str(path))
    assert spec.extends == ("standard",)
    assert [r.text for r in spec.rule("nominate").requires if r.rule_id == "R-E4"] == ["chancellor != last_president"]


# ============================================================== determinism


def _play(game: Game, seed: int) -> list[tuple[str, tuple[int, ...]]]:
    rng = Random(seed)
    state = game.initial_state()        # the deal and the first President are chance moves too
    moves = []
    while not game.is_over(state):
        actor = game.actor(state)
        if actor == "game":
            move = game.forced_move(state)
            assert move is not None
        elif actor == "chance":
            move = game.sample_chance(state, rng)
        else:
            move = game.sample_choice(state, rng)
        state = game.apply(state, move)
        moves.append((move.rule, move.args))
    moves.append(("end", tuple(state)))
    return moves


@pytest.mark.parametrize("players", range(5, 11))
def test_the_same_seed_plays_the_same_game(players: int) -> None:
    game = compiled_game(players)
    assert new_game(players, seed=42) == new_game(players, seed=42)
    games = {seed: _play(game, seed) for seed in (1, 2, 3)}
    assert all(_play(game, seed) == moves for seed, moves in games.items())
    assert len({tuple(moves) for moves in games.values()}) > 1, "different seeds should give different games"


def test_a_fresh_compile_plays_the_same_game() -> None:
    """Nothing depends on the cached compile or on hash order: a new Game is the same game."""
    fresh = Game(load_spec("standard"), 7)
    assert _play(fresh, 5) == _play(compiled_game(7), 5)
