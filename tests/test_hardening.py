"""Bad input of every kind ends in one line on stderr and exit status 2, never a traceback
or a hang (SECURITY.md): oversized, non-UTF-8 and over-nested files, huge numbers, bad
player counts and limits, unwritable output paths, usage mistakes; and a game with no
legal move is a verdict (exit 1), a game that cannot be judged is not a pass (exit 3)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from engine.game import Game
from spec.errors import SpecError, read_text, read_toml, shown
from spec.loader import load_spec
from verify.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "engine" / "examples"
LATIN1 = "# caf\xe9\n".encode("latin-1")


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), prog_name="shrules")


def refused(*args: str) -> str:
    """The one error line of a command that must refuse its input with exit status 2."""
    result = run(*args)
    assert result.exit_code == 2, (result.exit_code, result.output[-2000:], result.exception)
    assert "Traceback" not in result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr[-2000:]
    assert lines[0].startswith("shrules: error: "), lines[0]
    return lines[0]


# ---------------------------------------------------------------------- files: size, encoding, nesting


def test_a_file_over_the_cap_is_refused_without_reading_it_all(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    big.write_bytes(b"#" * 2_000)
    with pytest.raises(SpecError, match=r"big.toml: larger than 1,000 bytes"):
        read_text(big, limit=1_000)


def test_a_non_utf8_toml_names_the_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b'a = 1\n' + LATIN1)
    with pytest.raises(SpecError) as caught:
        read_toml(bad)
    assert str(caught.value).startswith(f"{bad}:2: not UTF-8 text")


def test_a_toml_nested_past_the_stack_names_the_file(tmp_path: Path) -> None:
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    with pytest.raises(SpecError, match="deep.toml: TOML nested too deeply"):
        read_toml(deep)


def test_a_toml_read_twice_is_the_file_as_it_is_now_and_the_caller_s_own(tmp_path: Path) -> None:
    """Parsed texts are kept (a sweep loads the same files thousands of times): an edit
    is read again, and what one caller changes in its data no other caller sees."""
    path = tmp_path / "rules.toml"
    path.write_text("a = [1]\n", encoding="utf-8")
    first, _ = read_toml(path)
    first["a"].append(2)
    assert read_toml(path)[0] == {"a": [1]}
    path.write_text("a = [3]\n", encoding="utf-8")
    assert read_toml(path)[0] == {"a": [3]}


def test_a_non_utf8_catalogue_is_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "disputes.toml"
    bad.write_bytes(LATIN1)
    assert "disputes.toml:1: not UTF-8 text" in refused("ask", "--catalogue", str(bad))


def test_a_non_utf8_settings_file_is_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "settings.toml"
    bad.write_bytes(LATIN1)
    line = refused("diff", "standard", "custom", "--settings", str(bad), "-n", "5")
    assert "settings.toml:1: not UTF-8 text" in line


# ---------------------------------------------------------------------- echoed values


def test_shown_cuts_long_values_and_describes_huge_numbers() -> None:
    assert shown("abc") == "'abc'"
    cut = shown("x" * 50_000_000)
    assert len(cut) < 120 and cut.endswith("(50,000,002 characters)")
    assert shown(10 ** 5000).startswith("a whole number of about 5,000 digits")


def test_a_spec_error_never_prints_a_50_mb_message() -> None:
    assert len(str(SpecError("x" * 50_000_000))) < 1_100


# ---------------------------------------------------------------------- JSON from the user

HUGE = "9" * 5_000


def test_a_huge_number_in_a_transcript_names_the_file_and_line(tmp_path: Path) -> None:
    game = tmp_path / "game.jsonl"
    game.write_text('{"setup": {"players": 5}}\n{"move": "nominate", "by": ' + HUGE + "}\n", encoding="utf-8")
    assert f"{game}:2: a number of more than 4,300 digits" in refused("judge", str(game))


def test_a_huge_number_in_a_secrethitler_io_summary_is_exit_2(tmp_path: Path) -> None:
    summary = tmp_path / "game.json"
    summary.write_text('{"_id": "x",\n "gameSetting": ' + HUGE + "}\n", encoding="utf-8")
    assert f"{summary}:2: a number of more than 4,300 digits" in refused("judge", str(summary))


def test_a_huge_number_in_a_trace_is_exit_2(tmp_path: Path) -> None:
    trace = tmp_path / "t.itf.json"
    trace.write_text('{"#meta": {"players": 5}, "states": [{"phase": ' + HUGE + "}]}", encoding="utf-8")
    assert f"{trace}:1: a number of more than 4,300 digits" in refused("replay", str(trace))


@pytest.mark.parametrize("value", ['{"#bigint": "12x"}', '{"#bigint": "' + HUGE + '"}', "[1, 2]"])
def test_a_malformed_trace_field_is_exit_2(tmp_path: Path, value: str) -> None:
    trace = tmp_path / "t.itf.json"
    trace.write_text('{"#meta": {"players": 5}, "states": [{"president": ' + value + "}]}", encoding="utf-8")
    assert f"{trace}: state 0" in refused("replay", str(trace))


def test_a_huge_number_in_ask_move_is_exit_2() -> None:
    line = refused("ask", "--game", str(EXAMPLES / "legal_game.jsonl"), "--move",
                   '{"move": "nominate", "by": ' + HUGE + "}")
    assert "--move: not JSON: a number of more than 4,300 digits" in line and HUGE not in line


def test_json_nested_past_the_stack_names_the_file(tmp_path: Path) -> None:
    trace = tmp_path / "deep.itf.json"
    trace.write_text('{"states": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    assert f"{trace}: JSON nested too deeply" in refused("replay", str(trace))


def test_an_endless_input_is_refused_at_the_size_cap() -> None:
    assert "/dev/zero: larger than 16,777,216 bytes" in refused("judge", "--format", "native", "/dev/zero")


def test_a_long_value_is_echoed_cut(tmp_path: Path) -> None:
    game = tmp_path / "game.jsonl"
    game.write_text('{"setup": {"players": "' + "x" * 1_000_000 + '"}}\n', encoding="utf-8")
    line = refused("judge", str(game))
    assert "'players' must be a whole number" in line and len(line) < 300


# ---------------------------------------------------------------------- the command line


@pytest.mark.parametrize("args,words", [
    (("play", "--bogus"), "No such option '--bogus' (see 'shrules play --help')"),
    (("play", "-n", "x"), "Invalid value for '--players' / '-n'"),
    (("judge",), "Missing argument 'FILE_OR_DIR...'"),
    (("nosuch",), "No such command 'nosuch'"),
    (("ask", "--can", "True", "--never", "False"), "give --can or --never, not both"),
])
def test_a_usage_mistake_is_one_line(args: tuple[str, ...], words: str) -> None:
    assert words in refused(*args)


def test_help_and_version_still_work() -> None:
    for args in (["--help"], ["play", "--help"], ["--version"]):
        result = run(*args)
        assert result.exit_code == 0 and not result.stderr, args
    assert "Usage: shrules play" in run("play", "-h").output


def test_the_installed_command_prints_one_line_too() -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "verify", "play", "--bogus"], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 2 and done.stderr.splitlines() == [
        "shrules: error: No such option '--bogus' (see 'shrules play --help')"]


# ---------------------------------------------------------------------- player counts


@pytest.mark.parametrize("args,words", [
    (("check", "-n", "7-5"), "--players: the range 7-5 is reversed; expected the smaller count first (5-7)"),
    (("check", "-n", "1-1000000000"), "--players: 1-1000000000 goes outside the player counts of the standard rules"),
    (("check", "-n", "5," + "9" * 5_000), "is not a player count of the standard rules (R-S1: stated for 5-10 players)"),
    (("ask", "-n", "1-1000000000", "--can", "True"), "goes outside the player counts of the standard rules"),
    (("diff", "standard", "custom", "-n", "2-1000000000"), "goes outside the player counts of both rule sets"),
    (("prove", "tracks_in_range", "-n", "5-1000000000"), "goes outside the player counts of this property"),
    (("smt-bench", "-n", "9-6"), "the range 9-6 is reversed"),
    (("bench", "-n", "5,x"), "--players: expected player counts like 5-7 or 5,6,8, got '5,x'"),
    (("bench", "-n", "3"), "3 is not a player count of the standard rules"),
])
def test_player_counts_are_checked_before_they_are_expanded(args: tuple[str, ...], words: str) -> None:
    assert words in refused(*args)


# ---------------------------------------------------------------------- limits


@pytest.mark.parametrize("args,option", [
    (("ask", "--max-states", "0", "--can", "True", "-n", "5"), "--max-states"),
    (("ask", "--time-limit", "0", "--can", "True", "-n", "5"), "--time-limit"),
    (("ask", "--seconds", "0", "--can", "True", "-n", "5"), "--time-limit"),   # the old name of the same option
    (("check", "--time-limit", "-1"), "--time-limit"),
    (("check", "--time-limit", "0"), "--time-limit"),
    (("check", "--time-limit", "nan"), "--time-limit"),
    (("check", "--max-states", "0"), "--max-states"),
    (("check", "--memory-limit", "0"), "--memory-limit"),
    (("bench", "--seconds", "inf"), "--time-limit"),
    (("graph", "-n", "5", "--max-states", "0"), "--max-states"),
    (("graph", "-n", "5", "--time-limit", "0"), "--time-limit"),
    (("diff", "standard", "custom", "--max-pairs", "0"), "--max-pairs"),
    (("diff", "standard", "custom", "--random-time", "0"), "--random-time"),
    (("prove", "tracks_in_range", "--time-limit", "-2"), "--time-limit"),
])
def test_a_limit_must_be_positive(args: tuple[str, ...], option: str) -> None:
    assert f"Invalid value for '{option}'" in refused(*args)


def test_every_float_option_refuses_what_never_stops() -> None:
    """Every command's float option is a `Seconds` (finite, above 0) or a `Share` (finite,
    0 to 1): `nan` compares false with every clock reading, so a search given it as a limit
    never stops. Read from the commands themselves, so a new option cannot slip past as
    `explore --time-limit` once did."""
    import click

    from verify.cli import main as group
    from verify.cli.options import Seconds, Share

    loose = [f"{name} {param.opts[0]}" for name, command in sorted(group.commands.items())
             for param in command.params
             if isinstance(param.type, click.FloatRange) and not isinstance(param.type, (Seconds, Share))]
    assert loose == []
    assert "Invalid value for '--time-limit'" in refused("explore", "-n", "5", "--time-limit", "nan")
    assert "Invalid value for '--target'" in refused("rebalance", "-n", "5", "--target", "nan")


def test_a_huge_option_value_is_echoed_cut() -> None:
    line = refused("ask", "--max-states", "9" * 5_000, "--can", "True")
    assert "(5,002 characters)" in line and len(line) < 300


# ---------------------------------------------------------------------- output paths, before the work


@pytest.mark.parametrize("args,words", [
    (("play", "--trace", "{tmp}/missing/t.json"), "--trace {tmp}/missing/t.json: the folder {tmp}/missing does not exist"),
    (("prove", "tracks_in_range", "-n", "5", "--trace", "{tmp}/missing/t.json"), "--trace {tmp}/missing/t.json:"),
    (("diff", "standard", "custom", "--trace", "{tmp}/missing/t.json"), "--trace {tmp}/missing/t.json:"),
    (("graph", "-n", "5", "-o", "{tmp}/missing/g.dot"), "--output {tmp}/missing/g.dot:"),
    (("check", "-n", "5", "--traces", "{tmp}/file/x"), "--traces {tmp}/file/x: {tmp}/file is not a directory"),
    (("check", "-n", "5", "--report", "{tmp}/file/r"), "--report {tmp}/file/r: {tmp}/file is not a directory"),
    (("check", "-n", "5", "--report", "{tmp}/file"), "Invalid value for '--report'"),
    (("check", "-n", "5", "--baseline", "/proc/shrules", "--update-baseline"), "--baseline /proc/shrules: cannot write"),
])
def test_an_unwritable_output_is_refused_before_the_run(tmp_path: Path, args: tuple[str, ...], words: str) -> None:
    (tmp_path / "file").write_text("", encoding="utf-8")
    started = time.perf_counter()
    line = refused(*(arg.replace("{tmp}", str(tmp_path)) for arg in args))
    assert words.replace("{tmp}", str(tmp_path)) in line
    assert time.perf_counter() - started < 20      # refused before any search


def test_a_failed_write_at_the_end_is_one_line() -> None:
    assert "cannot write /dev/full: No space left on device" in run(
        "play", "-n", "5", "-q", "--trace", "/dev/full").stderr


# ---------------------------------------------------------------------- a game that cannot be judged

DATA = ROOT.parent / "shared" / "data" / "secrethitler-io"
AVALON = DATA / "TameTrueFoamyPantherRemake8.json"          # Avalon roles: unsupported
LEGAL_GAME = DATA / "AbandonedTartEminentWildcatRemake7.json"


@pytest.mark.skipif(not AVALON.is_file(), reason=f"the secrethitler.io games are not at {DATA}")
def test_an_unsupported_game_is_not_a_pass(tmp_path: Path) -> None:
    alone = run("judge", str(AVALON))
    assert alone.exit_code == 3, alone.output
    for game in (AVALON, LEGAL_GAME):
        (tmp_path / game.name).write_bytes(game.read_bytes())
    folder = run("judge", str(tmp_path))
    assert folder.exit_code == 3 and "1 legal, 0 illegal, 1 unsupported" in folder.output
    (tmp_path / "bad.jsonl").write_text("{\n", encoding="utf-8")
    assert run("judge", str(tmp_path)).exit_code == 2                # malformed outranks unsupported
    assert "3 none illegal but a game could not be judged" in " ".join(run("judge", "--help").output.split())


# ---------------------------------------------------------------------- deadlock is a verdict


def test_a_deadlock_in_play_and_replay_names_the_blocking_rules(tmp_path: Path) -> None:
    trace = tmp_path / "stuck.itf.json"
    played = run("play", "--rules", "strict_term_limits", "--players", "5", "--seed", "6", "-q",
                 "--trace", str(trace))
    assert played.exit_code == 1, played.output
    assert "deadlock: no legal move in phase nominate after 79 moves" in played.output
    assert "R-E2 (3), R-E3 (1), R-E4 (1)" in played.output and "None" not in played.output
    replayed = run("replay", str(trace))
    assert replayed.exit_code == 1 and "confirmed: replayed 79 moves" in replayed.output
    assert "deadlock: no legal move in phase nominate after 79 moves" in replayed.output


@pytest.mark.parametrize("change,words", [
    ('remove_rules = ["nominate"]\n', "the rules have no move for this phase"),
    ('[[requirement]]\nrule = "nominate"\nid = "R-E2"\nwhen = "False"\n', "fails a requirement of R-E2 (5)"),
])
def test_rules_without_a_move_end_in_a_deadlock_not_a_winner(tmp_path: Path, change: str, words: str) -> None:
    rules = tmp_path / "stuck.toml"
    rules.write_text('extends = "standard"\nname = "stuck"\n' + change, encoding="utf-8")
    for quiet in ((), ("-q",)):
        result = run("play", "--rules", str(rules), "-n", "5", *quiet)
        assert result.exit_code == 1, result.output
        assert "deadlock: no legal move in phase nominate after 2 moves" in result.output and words in result.output
        assert "None win by None" not in result.output and "Traceback" not in result.output


def test_random_play_raises_deadlock_with_the_game_so_far() -> None:
    from engine.game import compiled_game
    from engine.play import Deadlock, random_game

    with pytest.raises(Deadlock) as caught:
        random_game(compiled_game(5, "strict_term_limits"), seed=6)
    assert caught.value.phase == "nominate" and len(caught.value.trace.steps) == 79
    assert caught.value.blocked == {"R-E2": 3, "R-E3": 1, "R-E4": 1}


# ---------------------------------------------------------------------- nesting names the input


def test_input_nested_too_deeply_names_the_file(tmp_path: Path) -> None:
    rules = tmp_path / "deep.toml"
    rules.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    line = refused("play", "--rules", str(rules))
    assert str(rules) in line and "nested too deeply" in line


def test_the_last_resort_for_deep_nesting_names_the_command_line() -> None:
    from verify.cli import too_deep

    message = too_deep(["ask", "--can", "(" * 5_000])
    assert message.startswith("the command line: input nested too deeply (read by `shrules ask --can")
    assert len(message) < 300


@pytest.mark.parametrize("line", [
    '{"move": "' + "n" * 1_000_000 + '", "by": 0}',
    '{"move": "nominate", "' + "k" * 1_000_000 + '": 1}',
])
def test_a_long_name_in_a_transcript_is_echoed_cut(tmp_path: Path, line: str) -> None:
    game = tmp_path / "game.jsonl"
    game.write_text('{"setup": {"players": 5}}\n' + line + "\n", encoding="utf-8")
    started = time.perf_counter()
    message = refused("judge", str(game))
    assert len(message) < 1_200 and "n" * 100 not in message and time.perf_counter() - started < 20


def test_a_long_property_name_is_echoed_cut() -> None:
    assert len(refused("check", "-n", "5", "-p", "p" * 100_000)) < 1_200


def test_bench_of_an_empty_folder_is_exit_2(tmp_path: Path) -> None:
    assert "no game files in" in refused("bench", "--judge", str(tmp_path))


def test_random_play_that_never_ends_stops_at_the_move_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.play

    monkeypatch.setattr(engine.play, "MAX_MOVES", 10)
    result = run("play", "-n", "5", "-q")
    assert result.exit_code == 3 and "unfinished: the game has not ended after 10 moves" in result.output


def test_a_transcript_longer_than_any_game_is_refused_before_it_is_judged(tmp_path: Path) -> None:
    from engine.game import MAX_MOVES

    game = tmp_path / "long.jsonl"
    setup = '{"setup": {"players": 5, "rules": "standard", "roles": {"hitler": 2, "fascists": [4]}, ' \
            '"first_president": 0}}\n'
    game.write_text(setup + '{"move": "nominate", "by": 0, "chancellor": 1}\n' * (MAX_MOVES + 1), encoding="utf-8")
    started = time.perf_counter()
    line = refused("judge", str(game))
    assert f"a game has at most {MAX_MOVES:,}" in line and f"long.jsonl:{MAX_MOVES + 2}" in line
    assert time.perf_counter() - started < 10


def test_a_section_of_a_hundred_thousand_entries_is_refused_at_once(tmp_path: Path) -> None:
    variant = tmp_path / "huge.toml"
    variant.write_text('extends = "standard"\nname = "huge"\n[add.constants]\n'
                       + "".join(f"c{i} = {i % 100}\n" for i in range(100_000)), encoding="utf-8")
    started = time.perf_counter()
    line = refused("play", "--rules", str(variant), "-n", "5")
    assert "[add.constants] has 100,000 entries; a rule set has at most 1,000" in line
    assert time.perf_counter() - started < 15


def test_a_property_for_a_billion_players_is_refused_not_expanded(tmp_path: Path) -> None:
    variant = tmp_path / "v.toml"
    variant.write_text('extends = "standard"\nname = "v"\n[properties.deadlock_free]\nplayers = "1-1000000000"\n',
                       encoding="utf-8")
    line = refused("check", "--rules", str(variant), "-n", "5", "-p", "deadlock_free", "--time-limit", "3")
    assert "players must be a count, a range a-b or a list of counts" in line


def test_an_itf_move_naming_a_parameter_the_move_lacks_is_bad_input(tmp_path: Path) -> None:
    import json

    path = tmp_path / "t.itf.json"
    assert run("play", "-n", "5", "--seed", "1", "-q", "--trace", str(path)).exit_code == 0
    trace = json.loads(path.read_text(encoding="utf-8"))
    trace["states"][1]["mbt::nondetPicks"]["self"] = {"tag": "Some", "value": 1}
    path.write_text(json.dumps(trace), encoding="utf-8")
    assert "which is no parameter of" in refused("replay", str(path))
    del trace["states"][1]["mbt::nondetPicks"]["self"]
    trace["states"][1]["alive"] = {"#set": 7}
    path.write_text(json.dumps(trace), encoding="utf-8")
    assert "'#set' must hold a list, got 7" in refused("replay", str(path))


def test_an_error_quoting_a_line_break_stays_one_line(tmp_path: Path) -> None:
    variant = tmp_path / "v.toml"
    variant.write_text('extends = "standard"\nname = "v"\n[[rule]]\nname = "nominate"\n'
                       'params = { chancellor = "seat", "x\\ny" = "seat" }\n', encoding="utf-8")
    assert "x\\ny" in refused("play", "--rules", str(variant), "-n", "5")


def test_a_caret_under_a_long_expression_shows_a_window_around_the_column() -> None:
    result = run("ask", "--players", "5", "--can", "phase == 'over' and " + "1+" * 600, "--seconds", "3")
    assert result.exit_code == 2
    head, text, caret = result.stderr.splitlines()
    assert head.startswith("shrules: error: --can expression") and len(text) < 120 and caret.strip() == "^"


def test_a_number_past_a_bound_of_the_language_is_refused_before_any_game(tmp_path: Path) -> None:
    """A hand of four makes the Policy Peek show `tiles(4)`, past the three tiles a
    sequence holds: the rule set does not compile (one line naming the rule and the
    bound), rather than playing until the first peek and stopping there."""
    variant = tmp_path / "four.toml"
    variant.write_text('extends = "standard"\nname = "four"\n[constants]\nhand_size = 4\n', encoding="utf-8")
    line = refused("check", "--rules", str(variant), "-n", "5", "-p", "deadlock_free")
    assert "rule 'policy_peek': tiles(4): a tile sequence holds 0..3 tiles" in line
    with pytest.raises(SpecError, match=r"tiles\(4\)"):      # the game is not even built
        Game(load_spec(str(variant)), 5)


def test_an_expression_error_keeps_its_caret_under_the_expression() -> None:
    """The one error line, then the expression and a caret under the mistake, each on a
    line of its own; a builtin given the wrong type names the one that takes it."""
    result = run("ask", "-n", "5", "--can", "size(alive) == 3")
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert lines[0].startswith("shrules: error: ") and "for seats, use count()" in lines[0], lines
    assert lines[1].strip() == "size(alive) == 3" and lines[2].strip() == "^", lines
