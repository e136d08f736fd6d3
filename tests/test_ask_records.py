"""`shrules ask` as a record of a ruling: the moves in the table's words, the game printed
with the move that answers the question marked, and what the answer rests on.

The checks are properties of the output over several questions, not fixed strings: every
printed move line cites a rule ID, the header counts exactly the printed moves, the marked
line is the one where the question is answered, a question about an ending is played to the
end, and "Rests on" holds the rules the evidence used. Each question here is answered at 5
players within seconds.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from click.testing import CliRunner

from engine.game import IllegalMove, compiled_game
from engine.play import random_game
from engine.trace import Trace
from spec.disputes import query
from spec.errors import SpecError
from spec.loader import load_spec
from spec.moves import ANY, moves_named, table_words
from verify.cli import main
from verify.lawyer.record import about_ending, choice_tags, game_record, witness_rule_ids

RULE_ID = re.compile(r"\[(?:R-[SELXVW]\d+|D-\d+)(?:, (?:R-[SELXVW]\d+|D-\d+))*\]")


def run(*args: str) -> Any:
    """`shrules ask ARGS` through click: the exit code, `stdout` and `stderr` apart."""
    return CliRunner().invoke(main, ["ask", *args], catch_exceptions=False)


# ---------------------------------------------------------------------- --on in the table's words


def test_every_word_names_rules_of_the_spec_and_any_names_all() -> None:
    spec = load_spec()
    names = {rule.name for rule in spec.rules}
    words = table_words(spec)
    assert {"nominate", "vote", "draw", "discard", "enact", "veto", "investigate", "peek", "special election",
            "execution", "chaos"} <= set(words)
    for word, rules in words.items():
        assert rules and set(rules) <= names
        assert moves_named(spec, (word,)) == rules
    assert set(moves_named(spec, (ANY,))) == names
    # a rule's own name still works, and words combine
    assert moves_named(spec, ("vote, enact",)) == words["vote"] + words["enact"]
    assert moves_named(spec, ("special_election",)) == words["special election"]


@pytest.mark.parametrize("typo, meant", [("vot", "vote"), ("veot", "veto"), ("special elections", "special election"),
                                         ("executon", "execution"), ("ayn", ANY)])
def test_a_misspelt_move_gets_did_you_mean(typo: str, meant: str) -> None:
    with pytest.raises(SpecError, match="Did you mean") as error:
        moves_named(load_spec(), (typo,))
    assert f"'{meant}'" in str(error.value).split("Did you mean")[1].split("?")[0]
    result = run("--players", "5", "--can", "True", "--on", typo)
    assert result.exit_code == 2 and f"'{meant}'" in result.stderr.split("Did you mean")[1]
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


@pytest.mark.parametrize("empty", ["", " ", ",", "vote,"])
def test_an_empty_move_is_refused_in_one_line(empty: str) -> None:
    result = run("--players", "5", "--can", "liberal_policies == 1", "--on", empty)
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1 and "--on needs a move" in result.stderr
    assert result.stdout == ""


def test_a_word_spelt_like_another_rules_name_is_refused(tmp_path: Any) -> None:
    variant = tmp_path / "bad-word.toml"
    variant.write_text('extends = "standard"\n\n[[rule]]\nname = "reject"\nword = "enact"\n', encoding="utf-8")
    with pytest.raises(SpecError, match="'enact' of rule 'reject' is the name of rule 'enact'"):
        load_spec(str(variant))


def test_a_variants_new_rule_names_its_word(tmp_path: Any) -> None:
    variant = tmp_path / "word.toml"
    variant.write_text('extends = "standard"\n\n[[add.rule]]\nname = "president_vetoes"\nword = "veto"\n'
                       'phase = "veto"\nactor = "president"\nactor_rule = "R-V3"\nsummary = "A test rule"\n'
                       'requires = [ { rule = "R-V3", when = "False", why = "never" } ]\n'
                       'effect = { phase = "\'session_end\'" }\n', encoding="utf-8")
    spec = load_spec(str(variant))
    assert moves_named(spec, ("veto",)) == table_words(load_spec())["veto"] + ("president_vetoes",)


def test_on_vote_and_on_any_answer() -> None:
    for on in ("vote", ANY):
        result = run("--players", "5", "--can", "after_liberal_policies == 1", "--on", on, "--json")
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["answer"] == "yes"


# ---------------------------------------------------------------------- the game record

YES_QUESTIONS = [
    ("--can", "liberal_policies == 1", None),
    ("--can", "president == last_chancellor", "nominate"),
    ("--can", "after_election_tracker == 2", "vote"),
    ("--can", "times(phase == 'chaos') >= 1", None),          # a temporal question
]
HEADER = re.compile(r"The shortest game where it does \((\d+) players, (\d+) moves, ")


def _ask(kind: str, text: str, on: str | None, *more: str) -> Any:
    result = run("--players", "5", kind, text, *(["--on", on] if on else []), *more)
    assert result.exit_code in (0, 1), result.output
    return result


def _game_lines(stdout: str) -> list[str]:
    """The printed game: the lines between the header and the note on the mark."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if HEADER.search(line))
    end = next(i for i, line in enumerate(lines) if line.startswith("▶ marks move"))
    return lines[start + 1:end]


@pytest.fixture(scope="module")
def answered() -> dict[tuple[str, str, str | None], tuple[str, str, dict[str, Any]]]:
    """Each question's text, its text with --changes, and its JSON."""
    out = {}
    for kind, text, on in YES_QUESTIONS:
        out[(kind, text, on)] = (_ask(kind, text, on).stdout, _ask(kind, text, on, "--changes").stdout,
                                 json.loads(_ask(kind, text, on, "--json").stdout))
    return out


def _moves(lines: list[str]) -> list[str]:
    """The move lines of a printed game (not a round's heading, the fields changed, the end
    or the rules' bookkeeping)."""
    out = []
    for line in lines:
        body = line[2:].strip()
        if (body.startswith("Round ") or body.startswith("Game over") or not RULE_ID.search(body)
                or body.startswith("· ")):
            continue
        out.append(line)
    return out


@pytest.mark.parametrize("question", YES_QUESTIONS, ids=lambda q: q[1])
def test_the_answering_move_is_marked_and_counted(answered: Any, question: Any) -> None:
    text, changed, data = answered[question]
    header = HEADER.search(text)
    assert header is not None
    moves = int(header.group(2))
    lines = _game_lines(text)
    marked = [line for line in lines if line.startswith("▶")]
    assert len(marked) == 1, lines
    upto = lines[:lines.index(marked[0]) + 1]
    # the header counts the moves printed up to the mark, every one citing a rule
    assert len(_moves(upto)) == moves
    assert f"▶ marks move {moves}," in text
    # --changes shows the bookkeeping, marked and not counted: the same count
    changed_header = HEADER.search(changed)
    assert changed_header is not None and int(changed_header.group(2)) == moves
    assert any(line.strip().startswith("· ") for line in _game_lines(changed))
    witness = data["witness"]
    assert witness["table_moves"] == witness["answer_move"] == moves
    assert 0 <= witness["answer_step"] < len(witness["itf"]["states"]) - 1 + 1


@pytest.mark.parametrize("question", YES_QUESTIONS, ids=lambda q: q[1])
def test_every_line_of_the_game_cites_a_rule(answered: Any, question: Any) -> None:
    text, changed, data = answered[question]
    for lines in (_game_lines(text), [line for line in _game_lines(changed) if not line.startswith("      ")]):
        for line in lines:
            body = line.lstrip("▶ ").strip()
            if body.startswith("Round ") or body.startswith("after the answer"):
                continue
            assert RULE_ID.search(body), f"no rule ID on: {line}"
    assert all(RULE_ID.search(line) for line in data["witness"]["lines"] if not line.startswith("Round "))


@pytest.mark.parametrize("question", YES_QUESTIONS, ids=lambda q: q[1])
def test_rests_on_comes_from_the_game_with_titles(answered: Any, question: Any) -> None:
    text, changed, data = answered[question]
    book = load_spec().rulebook
    rules = [rule["id"] for rule in data["rules"]]
    assert data["rules_from"] == "witness" and rules
    assert all(rule["title"] == book[rule["id"]] for rule in data["rules"])
    # the rules that permitted the answering move lead (its line cites them); the rest in the rulebook's order
    lead = next(k for k in range(len(rules) + 1) if rules[k:] == sorted(rules[k:], key=list(book).index))
    answering = next(line for line in _game_lines(text) if line.startswith("▶"))
    assert all(rule in answering for rule in rules[:lead])
    # every rule cited is cited by a line of the game (its bookkeeping shown): never more
    # than the game shows
    cited = set(re.findall(r"R-[SELXVW]\d+", "\n".join(_game_lines(changed))))
    assert set(rules) <= cited
    assert "Rests on (the rules of the moves that made it happen in this game):" in text


def test_a_choice_is_tagged_with_the_requirement_at_issue() -> None:
    """A nomination cites the requirements that kept a seat out in its position (the first
    each other seat fails), and of those only the ones reading what the question reads."""
    game = compiled_game(7)
    trace = random_game(game, seed=3)
    nominate = {rule.name for rule in game.spec.with_role("nomination")}
    plain = choice_tags(trace, set())
    about_terms = choice_tags(trace, {"last_chancellor"})
    seen_term_limit = False
    for index, (move, _) in enumerate(trace.steps):
        if move.rule not in nominate:
            continue
        state = trace.states[index]
        kept_out = set()
        for seat in range(game.players):
            try:
                game.check(state, game.move(move.rule, chancellor=seat))
            except IllegalMove as error:
                kept_out.add(error.rule_id)
        assert set(plain[index]) == kept_out or (not kept_out and plain[index])
        if "R-E3" in plain[index]:
            seen_term_limit = True
            assert about_terms[index] == ("R-E3",)
    assert seen_term_limit, "the game should reach a nomination under a term limit"


def test_a_question_about_an_ending_is_played_to_the_end() -> None:
    """A witness that stops before the game is over is played on, the answer still marked,
    the moves after it counted apart; one that is not about an ending stops at the answer."""
    spec = load_spec()
    game = compiled_game(5)
    whole = random_game(game, seed=1)
    cut = Trace(game, whole.start, whole.steps[:12])
    ending = query(spec, "q", "sometimes", "winner == 'fascist' or fascist_policies >= 0")
    other = query(spec, "q", "sometimes", "fascist_policies >= 0")
    assert about_ending(ending, game) and not about_ending(other, game)
    record = game_record(cut, ending, False)
    assert record.answer == 11 and record.played_on > 0 and record.rows[-1].kind == "over"
    assert [row.step for row in record.rows if row.kind == "move"].count(11) == 1
    short = game_record(cut, other, False)
    assert short.played_on == 0 and short.rows[-1].kind != "over"
    assert short.table_moves == record.table_moves == len([r for r in short.rows if r.kind == "move"])


def _first_game_of_each_ending(players: int, seeds: int = 400) -> dict[str, Trace]:
    """A random game for each move that ends one (the first seed that ends so)."""
    game = compiled_game(players)
    out: dict[str, Trace] = {}
    for seed in range(seeds):
        trace = random_game(game, seed=seed)
        out.setdefault(trace.steps[-1][0].rule, trace)
    return out


def test_a_yes_about_an_ending_rests_on_the_win() -> None:
    """Over random games ending each way: "it ended so" rests on the rule of the winning
    move (R-W1 for the fifth Liberal policy, with the enactments, R-L3), and on no rule no
    move of the game cites."""
    spec = load_spec()
    games = _first_game_of_each_ending(5)
    assert "liberal_track_win" in games, sorted(games)
    for name, trace in games.items():
        game = trace.game
        end = game.describe(trace.end)
        prop = query(spec, "q", "sometimes", f"phase == 'over' and how == '{game.how(trace.end)}' and "
                     f"liberal_policies == {end['liberal_policies']}")
        rules = witness_rule_ids(trace, prop, len(trace.steps) - 1, choice_tags(trace, set()))
        assert set(game.by_name[name].rule.cited) <= set(rules), name
        if name == "liberal_track_win":
            assert {"R-W1", "R-L3"} <= set(rules)
        cited = {rule_id for move, _ in trace.steps for rule_id in game.by_name[move.rule].rule.cited}
        assert set(rules) <= cited, name


@pytest.mark.parametrize("text, on, needed", [
    # the proof needs that play stops at a win (R-W5), not which win it was
    ("liberal_policies == 5 and fascist_policies == 6", None, {"R-W5"}),
    ("fascist_policies < veto_zone", "veto", {"R-V1"}),
])
def test_a_no_rests_on_the_requirements_its_proof_needed(text: str, on: str | None, needed: set[str]) -> None:
    # asked as --never, proved in this process: the solver's support for 5 players is built once
    result = _ask("--never", text, on, "--json")
    data = json.loads(result.stdout)
    assert data["answer"] == "no"
    rules = {rule["id"] for rule in data["rules"]}
    assert data["rules_from"] == "proof" and needed <= rules, rules
    requirements = {req.rule_id for rule in load_spec().rules for req in rule.requires}
    assert rules <= requirements


def test_a_temporal_question_about_an_ending_is_seen_as_one() -> None:
    spec = load_spec()
    prop = query(spec, "q", "sometimes", "then(vetoed, winner == 'fascist')")
    other = query(spec, "q", "sometimes", "then(vetoed, phase == 'chaos')")
    game = compiled_game(5, prop.rules)
    assert about_ending(prop, game) and not about_ending(other, compiled_game(5, other.rules))


def test_a_question_true_at_the_start_marks_no_move() -> None:
    result = _ask("--can", "liberal_policies == 0", None)
    assert "It holds before the first move." in result.stdout and "▶" not in result.stdout
    header = HEADER.search(result.stdout)
    assert header is not None and header.group(2) == "0"


def test_list_shows_the_catalogue() -> None:
    listed = run("--list")
    assert listed.exit_code == 0 and listed.stdout == run().stdout
    assert run("--list", "--all").exit_code == 2
