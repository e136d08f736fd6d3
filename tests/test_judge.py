"""The judge on native transcripts (engine/TRANSCRIPT.md): legal games, each kind of
illegal move caught at its line with its rule ID, incomplete games, hidden roles,
malformed input (exit 2, one line, no traceback), and the CLI's exit codes and JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from engine.game import compiled_game
from engine.judge import ILLEGAL, LEGAL, judge, judge_benchmark, judge_file
from engine.play import random_game
from engine.transcript import dump_transcript, parse_transcript, read_transcript, transcript_of_trace
from spec.errors import SpecError
from verify.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "engine" / "examples"
SETUP = {"setup": {"players": 7, "rules": "standard", "roles": {"hitler": 3, "fascists": [1, 5]},
                   "first_president": 0}}
DECK = ["liberal", "fascist", "fascist", "liberal", "fascist", "fascist", "fascist", "liberal", "fascist",
        "liberal", "fascist", "fascist", "liberal", "fascist", "fascist", "liberal", "fascist"]


def text(*lines: dict[str, Any], setup: dict[str, Any] | None = None) -> str:
    """A native transcript: the setup line (7 players, Hitler seat 3) and the given lines."""
    return "\n".join(json.dumps(line) for line in (setup or SETUP, *lines)) + "\n"


def verdict_of(*lines: dict[str, Any], setup: dict[str, Any] | None = None) -> Any:
    return judge(parse_transcript(text(*lines, setup=setup), "game.jsonl"))


def government(president: int, chancellor: int, ja: list[int], fascist_tiles: int, discard: str,
               enact: str) -> list[dict[str, Any]]:
    """The lines of one elected government that legislates."""
    return [{"move": "nominate", "by": president, "chancellor": chancellor},
            {"move": "vote", "ja": ja},
            {"move": "draw_hand", "fascist_tiles": fascist_tiles},
            {"move": "president_discard", "by": president, "tile": discard},
            {"move": "enact", "by": chancellor, "tile": enact}]


ALL = [0, 1, 2, 3, 4, 5, 6]
FIRST = government(0, 4, ALL, 1, "fascist", "liberal")              # lines 2-6: a Liberal policy
FASCIST = government(0, 4, ALL, 3, "fascist", "fascist")            # lines 2-6: a Fascist policy


# ---------------------------------------------------------------------- the examples


def test_legal_example_is_complete_with_its_winner() -> None:
    result = judge_file(EXAMPLES / "legal_game.jsonl")
    assert (result.verdict, result.complete, result.winner, result.how) == (LEGAL, True, "fascist",
                                                                            "hitler_chancellor")
    assert result.violations == ()


def test_illegal_example_names_the_line_and_the_rule() -> None:
    result = judge_file(EXAMPLES / "illegal_term_limit.jsonl")
    assert result.verdict == ILLEGAL
    [violation] = result.violations
    assert (violation.line, violation.rule_id) == (9, "R-E3")
    assert [step.status for step in result.steps][7:] == ["illegal", "not judged", "not judged", "not judged"]


def test_incomplete_example_has_no_winner() -> None:
    result = judge_file(EXAMPLES / "incomplete_with_deck.jsonl")
    assert (result.verdict, result.complete, result.winner, result.how) == (LEGAL, False, None, None)


def test_hidden_roles_are_not_invented() -> None:
    """Without roles, a game that ends with an election after three Fascist policies is
    over only if the new Chancellor is Hitler: the judge says it cannot tell."""
    result = judge_file(EXAMPLES / "hidden_roles.jsonl")
    assert (result.verdict, result.complete, result.winner) == (LEGAL, False, None)
    assert any("depends on the hidden roles" in note for note in result.notes)


def test_hidden_roles_are_learnt_from_the_transcript() -> None:
    """With the same game's forced moves written in (`hitler_elected`), the deals where
    the new Chancellor is not Hitler are contradicted and the game is decided."""
    full = read_transcript(EXAMPLES / "legal_game.jsonl")
    lines = (EXAMPLES / "legal_game.jsonl").read_text().splitlines()
    lines[0] = json.dumps({"setup": {"players": 7}})
    result = judge(parse_transcript("\n".join(lines), "hidden.jsonl"))
    assert (result.verdict, result.complete, result.winner, result.how) == (LEGAL, True, "fascist",
                                                                            "hitler_chancellor")
    assert full.setup.hitler is not None


# ---------------------------------------------------------------------- engine games are legal


@pytest.mark.parametrize("players", [5, 6, 7, 8, 9, 10])
@pytest.mark.parametrize("forced", [False, True])
def test_random_engine_games_are_legal_with_their_result(players: int, forced: bool) -> None:
    game = compiled_game(players)
    for seed in range(6):
        trace = random_game(game, seed=seed)
        transcript = transcript_of_trace(trace, forced=forced)
        again = parse_transcript(dump_transcript(transcript), "roundtrip.jsonl")
        result = judge(again)
        assert result.verdict == LEGAL, (seed, result.summary())
        assert (result.complete, result.winner, result.how) == (True, game.winner(trace.end), game.how(trace.end))


# ---------------------------------------------------------------------- illegal moves

ILLEGAL_CASES: list[tuple[str, list[dict[str, Any]], int, str]] = [
    # name, lines after the setup, the line of the violation, the rule ID
    ("self nomination", [{"move": "nominate", "by": 0, "chancellor": 0}], 2, "R-E2"),
    ("wrong President", [{"move": "nominate", "by": 1, "chancellor": 4}], 2, "R-E1"),
    ("not more than half", [{"move": "nominate", "by": 0, "chancellor": 4}, {"move": "elect", "ja": [0, 1, 4]}],
     3, "R-E7"),
    ("a tie that still legislates", [{"move": "nominate", "by": 0, "chancellor": 4},
                                     {"move": "vote", "ja": [0, 1, 4]},
                                     {"move": "draw_hand", "fascist_tiles": 1}], 4, "R-L1"),
    ("term-limited Chancellor", FIRST + [{"move": "nominate", "by": 1, "chancellor": 4}], 7, "R-E3"),
    ("term-limited President", FIRST + [{"move": "nominate", "by": 1, "chancellor": 0}], 7, "R-E4"),
    ("wrong next President", FIRST + [{"move": "nominate", "by": 2, "chancellor": 3}], 7, "R-E1"),
    ("discard of a tile not held", government(0, 4, ALL, 3, "liberal", "fascist"), 5, "R-L2"),
    ("passed tiles not in the hand", FIRST[:3] + [{"move": "president_discard", "by": 0, "tile": "fascist",
                                                   "passed": ["fascist", "liberal"]}], 5, "R-L2"),
    ("enacted tile not in the hand", government(0, 4, ALL, 1, "fascist", "fascist"), 6, "R-L3"),
    ("enact by the President", FIRST[:4] + [{"move": "enact", "by": 0, "tile": "liberal"}], 6, "R-L3"),
    ("veto before five Fascist policies", FASCIST[:4] + [{"move": "propose_veto", "by": 4}], 6, "R-V1"),
    ("power after a Liberal policy", FIRST + [{"move": "execute", "by": 0, "target": 2}], 7, "R-X1"),
    ("power on a slot without one", FASCIST + [{"move": "investigate", "by": 0, "target": 2}], 7, "R-X7"),
    ("reshuffle with a full pile", FIRST + [{"move": "reshuffle"}], 7, "R-L5"),
    ("chaos before the third failure", [{"move": "nominate", "by": 0, "chancellor": 4},
                                        {"move": "vote", "ja": []}, {"move": "chaos", "tile": "fascist"}],
     4, "R-E9"),
    ("hand not the top of the pile", [{"deck": DECK}, *FIRST[:2], {"move": "draw_hand", "fascist_tiles": 3}],
     5, "R-L1"),
    ("hand tiles not the top of the pile", [{"deck": DECK}, *FIRST[:2],
                                            {"move": "draw_hand", "tiles": ["liberal", "liberal", "fascist"]}],
     5, "R-L1"),
    ("a pile of the wrong make-up", [{"deck": DECK[1:]}], 2, "R-S3"),
    ("a pile reordered without a reshuffle", [{"deck": DECK}, *FIRST[:2],
                                               {"move": "draw_hand", "fascist_tiles": 2},
                                               {"deck": list(reversed(DECK[3:]))}], 6, "R-L5"),
    ("a wrong party seen", [*government(0, 4, ALL, 3, "fascist", "fascist"),
                            *government(1, 2, ALL, 3, "fascist", "fascist"),
                            {"move": "investigate", "by": 1, "target": 3, "party": "liberal"}], 12, "R-X3"),
    ("self investigation", [*government(0, 4, ALL, 3, "fascist", "fascist"),
                            *government(1, 2, ALL, 3, "fascist", "fascist"),
                            {"move": "investigate", "by": 1, "target": 1}], 12, "R-X3"),
    ("a dead voter", [*government(0, 4, ALL, 2, "liberal", "fascist"),
                      *government(1, 2, ALL, 2, "liberal", "fascist"),
                      {"move": "investigate", "by": 1, "target": 3},
                      *government(2, 5, ALL, 2, "liberal", "fascist"),
                      {"move": "special_election", "by": 2, "candidate": 6},
                      *government(6, 1, ALL, 2, "liberal", "fascist"),
                      {"move": "execute", "by": 6, "target": 4},
                      {"move": "nominate", "by": 3, "chancellor": 0},
                      {"move": "vote", "ja": [0, 3, 4]}], 26, "R-E6"),
    ("play after the end", [*government(0, 3, ALL, 2, "fascist", "liberal"),
                            *government(1, 2, ALL, 2, "fascist", "liberal"),
                            *government(2, 0, ALL, 2, "fascist", "liberal"),
                            *government(3, 1, ALL, 2, "fascist", "liberal"),
                            *government(4, 0, ALL, 2, "fascist", "liberal"),
                            {"move": "nominate", "by": 5, "chancellor": 1}], 27, "R-W5"),
]


@pytest.mark.parametrize("name,lines,line,rule_id", ILLEGAL_CASES, ids=[case[0] for case in ILLEGAL_CASES])
def test_an_illegal_move_is_caught_at_its_line(name: str, lines: list[dict[str, Any]], line: int,
                                                rule_id: str) -> None:
    result = verdict_of(*lines)
    assert result.verdict == ILLEGAL, result.summary()
    [violation] = result.violations
    assert (violation.line, violation.rule_id) == (line, rule_id), violation
    assert violation.message and "{" not in violation.message


def test_setup_roles_of_the_wrong_size_are_illegal() -> None:
    setup = {"setup": {"players": 7, "roles": {"hitler": 3, "fascists": [1]}}}
    result = verdict_of(setup=setup)
    assert (result.verdict, result.violations[0].line, result.violations[0].rule_id) == (ILLEGAL, 1, "R-S2")


def test_a_legal_prefix_is_incomplete() -> None:
    result = verdict_of(*FIRST, *government(1, 2, ALL, 2, "fascist", "fascist"))
    assert (result.verdict, result.complete, result.winner) == (LEGAL, False, None)
    assert [step.status for step in result.steps] == ["legal"] * 10


def test_five_liberal_policies_win() -> None:
    result = verdict_of(*[line for president, chancellor in ((0, 3), (1, 2), (2, 0), (3, 1), (4, 0))
                          for line in government(president, chancellor, ALL, 2, "fascist", "liberal")])
    assert (result.verdict, result.complete, result.winner, result.how) == (LEGAL, True, "liberal", "policies")


def test_forced_moves_may_be_written_in_or_left_out() -> None:
    written = verdict_of(*FIRST, {"move": "no_track_win"}, {"move": "keep_deck"}, {"move": "pass_candidacy"},
                         {"move": "nominate", "by": 1, "chancellor": 2})
    skipped = verdict_of(*FIRST, {"move": "keep_deck"}, {"move": "nominate", "by": 1, "chancellor": 2})
    assert written.verdict == skipped.verdict == LEGAL
    after_deck = verdict_of({"deck": DECK}, *government(0, 4, ALL, 2, "liberal", "fascist"),
                            {"deck": DECK[3:]}, {"move": "keep_deck"}, {"move": "nominate", "by": 1, "chancellor": 2})
    assert after_deck.verdict == LEGAL, after_deck.summary()


def test_a_vote_that_is_a_tie_rejects() -> None:
    setup = {"setup": {"players": 6, "roles": {"hitler": 3, "fascists": [1]}, "first_president": 0}}
    result = verdict_of({"move": "nominate", "by": 0, "chancellor": 4}, {"move": "vote", "ja": [0, 1, 4]},
                        {"move": "nominate", "by": 1, "chancellor": 4}, setup=setup)
    assert result.verdict == LEGAL
    assert result.steps[1].move is not None and result.steps[1].move.rule == "reject"
    tie = verdict_of({"move": "nominate", "by": 0, "chancellor": 4}, {"move": "elect", "ja": [0, 1, 4]},
                     setup=setup)
    assert (tie.verdict, tie.violations[0].rule_id) == (ILLEGAL, "R-E7")


# ---------------------------------------------------------------------- malformed input

MALFORMED = [
    ("", 1, "empty transcript"),
    ("{\"move\": \"nominate\"}\n", 1, "first line must be the setup"),
    ("{\"setup\": {\"players\": 4}}\n", 1, "R-S1"),
    ("{\"setup\": {\"players\": 7, \"rules\": \"nonesuch\"}}\n", 1, "no rules or variant named"),
    ("{\"setup\": {\"players\": 7, \"role\": {}}}\n", 1, "unknown key 'role'"),
    (text({"move": "nominate", "by": 0, "chancellor": 9}), 2, "seats 1..7 at the table"),
    (text({"move": "nominate", "by": 0, "chancelor": 4}), 2, "did you mean 'chancellor'"),
    (text({"move": "nomination", "by": 0, "chancellor": 4}), 2, "no move named 'nomination'"),
    (text({"move": "draw_hand", "fascist_tiles": 4}), 2, "0..3"),
    (text({"move": "draw_hand"}), 2, "missing 'fascist_tiles'"),
    (text({"move": "vote", "ja": [1, 1]}), 2, "lists a seat twice"),
    (text({"move": "vote", "by": 2, "ja": [1]}), 2, "unknown key 'by'"),
    (text({"move": "policy_peek", "top": ["fascist"]}), 2, "3 tiles"),
    (text({"move": "enact", "tile": "red"}), 2, "'liberal', 'fascist'"),
    (text({"move": "deal_roles", "hitler_seat": 1, "fascist_seats": [2, 3]}), 2, "setup line"),
    (text({"deck": ["fascist", "blue"]}), 2, "tiles"),
    (text({"hand": 3}), 2, "expected a move"),
    (text() + "{not json\n", 2, "not valid JSON"),
    (text() + "[1, 2]\n", 2, "expected a JSON object"),
]


@pytest.mark.parametrize("source,line,words", MALFORMED, ids=[case[2] for case in MALFORMED])
def test_malformed_input_names_the_file_and_line(source: str, line: int, words: str) -> None:
    with pytest.raises(SpecError) as caught:
        parse_transcript(source, "game.jsonl")
    message = str(caught.value)
    assert message.startswith(f"game.jsonl:{line}"), message
    assert words in message


def test_the_cli_reports_malformed_input_in_one_line_with_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(text({"move": "nominate", "by": 0, "chancellor": "four"}))
    result = CliRunner().invoke(main, ["judge", str(bad)])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and f"{bad}:2" in result.stderr
    assert "Traceback" not in result.output + result.stderr


# ---------------------------------------------------------------------- the command line


def test_the_cli_exit_codes_and_move_by_move_output(tmp_path: Path) -> None:
    runner = CliRunner()
    legal = runner.invoke(main, ["judge", str(EXAMPLES / "legal_game.jsonl")])
    assert legal.exit_code == 0, legal.output
    assert "verdict: legal, complete: fascist win by hitler_chancellor" in legal.output
    illegal = runner.invoke(main, ["judge", str(EXAMPLES / "illegal_term_limit.jsonl")])
    assert illegal.exit_code == 1
    assert "line 9  ILLEGAL" in illegal.output and "R-E3" in illegal.output


def test_the_cli_judges_a_folder_with_one_line_per_game_and_a_summary() -> None:
    result = CliRunner().invoke(main, ["judge", str(EXAMPLES)])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 5
    assert lines[-1].startswith("judged 4 games: 3 legal, 1 illegal, 0 unsupported in ")


def test_the_cli_json_has_one_object_per_game() -> None:
    result = CliRunner().invoke(main, ["judge", "--json", "--format", "native", str(EXAMPLES)])
    objects = [json.loads(line) for line in result.output.splitlines()]
    assert [o["game"] for o in objects] == ["example-hidden-roles", "example-term-limit", "example-deck",
                                            "example-legal"]
    for obj in objects:
        assert set(obj) >= {"game", "verdict", "complete", "winner", "how", "violations"}
    assert objects[1]["violations"] == [{"log": None, "line": 9, "rule": "R-E3",
                                         "message": "seat 2 was elected Chancellor last and is term-limited"}]
    assert objects[3]["how"] == "hitler_chancellor"


# ---------------------------------------------------------------------- the schema and speed


def test_every_example_line_matches_the_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((EXAMPLES.parent / "transcript.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    game = compiled_game(7)
    lines = [line for path in sorted(EXAMPLES.glob("*.jsonl")) for line in path.read_text().splitlines()]
    lines += dump_transcript(transcript_of_trace(random_game(game, seed=3), forced=True)).splitlines()
    for line in lines:
        errors = list(validator.iter_errors(json.loads(line)))
        assert not errors, (line, errors[0].message)
    named = set(schema["$defs"]["gameMove"]["properties"]["move"]["enum"])
    assert named == {rule.rule.name for rule in game.rules if rule.rule.actor == "game"}


def test_judge_benchmark_counts_games_per_second() -> None:
    assert judge_benchmark(EXAMPLES, "native", seconds=0.05) > 0
