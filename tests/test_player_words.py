"""What a player, a host or a script meets at the edge of `shrules`: exit statuses that tell
a decided answer from a failure, errors a program can parse, answers that name the rule
that permits a move, sentences that say what a move did, seats counted from 1, German
that reads as German. Every test here is fast (seconds)."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from test_report_browser import BROWSER, browser, png_rows

from engine.game import Game, compiled_game
from engine.play import random_game
from engine.words import UNTRANSLATED, filled, move_name
from spec.errors import SpecError
from spec.loader import load_spec

from spec.disputes import DISPUTES_FILE
from verify.book.draw import FASCIST, LIBERAL, draw_game
from verify.book.rounds import rounds
from verify.cli import main
from verify.cli.check import PARTS, WithinCounts
from verify.cli.options import StatusLine, use_color
from verify.lawyer.answers import YES
from verify.lawyer.ask import Budget, ad_hoc, catalogue, find
from verify.lawyer.grounds import WITNESS
from verify.lawyer.words import render
from verify.results import EXIT_BAD_INPUT, EXIT_OK
from verify.rules import Rules

STANDARD_RULES = Rules.named("standard")

SEVEN = {"setup": {"players": 7, "first_president": 0}}
ROUND: list[dict[str, Any]] = [{"move": "nominate", "by": 0, "chancellor": 4},
                               {"move": "vote", "ja": [0, 1, 2, 3, 4]},
                               {"move": "enact", "by": 4, "tile": "liberal"}]


def shrules(*args: str) -> Any:
    """`shrules ARGS` through click: the exit status, `stdout` and `stderr` apart."""
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _game(tmp_path: Path, *lines: dict[str, Any]) -> str:
    path = tmp_path / "partial.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return str(path)


# ---------------------------------------------------------------------- exit statuses


def test_a_decided_no_to_a_question_asked_on_the_command_line_exits_0() -> None:
    result = shrules("ask", "--players", "5", "--never", "tile == 'fascist'", "--on", "enact")
    assert result.exit_code == EXIT_OK, result.output
    assert result.stdout.startswith("Yes")
    result = shrules("ask", "--players", "5", "--can", "liberal_policies > 5", "--json")
    assert result.exit_code == EXIT_OK, result.output
    assert json.loads(result.stdout)["answer"] == "no"


def test_an_illegal_move_in_a_position_is_a_decided_no_exit_0(tmp_path: Path) -> None:
    game = _game(tmp_path, SEVEN, *ROUND)
    result = shrules("ask", "--game", game, "--move", '{"move": "nominate", "by": 1, "chancellor": 4}')
    assert result.exit_code == EXIT_OK, result.output
    assert result.stdout.startswith("No")


def test_bad_input_with_json_is_json_on_stdout_too() -> None:
    result = shrules("ask", "--players", "5", "--can", "size(alive) > 3", "--json")
    assert result.exit_code == EXIT_BAD_INPUT
    error = json.loads(result.stdout)
    assert error["exit"] == EXIT_BAD_INPUT and error["error"] in result.stderr
    usage = shrules("ask", "--players", "5", "--can", "True", "--never", "False", "--json")
    assert usage.exit_code == EXIT_BAD_INPUT and json.loads(usage.stdout)["error"]
    assert shrules("ask", "--players", "5", "--can", "size(alive) > 3").stdout == ""


def test_every_command_with_json_reports_bad_input_as_json() -> None:
    for command in ("check", "explore", "rules", "words"):
        result = shrules(command, "--json", "--rules", "no-such-rules")
        assert result.exit_code == EXIT_BAD_INPUT, (command, result.output)
        assert json.loads(result.stdout)["exit"] == EXIT_BAD_INPUT, command
    assert shrules("replay", "--json").stdout == ""       # a command without --json: stderr alone


# ---------------------------------------------------------------------- "Rests on" names what permits a yes


def test_the_five_alive_exception_is_cited_for_the_last_president_as_chancellor() -> None:
    entry = find(catalogue(STANDARD_RULES), "five-alive-last-president")
    assert entry.kind == "sometimes" and "R-E4" in entry.rule_ids
    raw = next(d for d in tomllib.loads(DISPUTES_FILE.read_text(encoding="utf-8"))["dispute"] if d["id"] == entry.id)
    answer = ad_hoc(raw["move"], "sometimes", (5,), tuple(raw["on"]), Budget(seconds=60), rules=STANDARD_RULES)
    assert answer.verdict == YES and answer.grounds == WITNESS
    assert answer.rule_ids[0] == "R-E4", answer.rule_ids
    shown = render(answer)
    answering = next(line for line in shown.splitlines() if line.startswith("▶ "))
    assert "R-E4" in answering
    assert "legal only through the exception of R-E4" in shown


def test_a_move_under_the_plain_rule_cites_no_exception() -> None:
    answer = ad_hoc("chancellor != last_president", "sometimes", (5,), ("nominate",), Budget(seconds=60), rules=STANDARD_RULES)
    assert answer.verdict == YES and "R-E4" not in answer.rule_ids


# ---------------------------------------------------------------------- sentences that cannot lie


VETO_KEEPS_TRACKER = """extends = "standard"
name = "veto_keeps_tracker"
description = "An accepted veto leaves the Election Tracker alone"

[[rule]]
name = "accept_veto"
effect = { election_tracker = "election_tracker" }
"""


def _accepted_veto(spec_path: str, tracker: int) -> tuple[str, int]:
    """The sentence of an accepted veto with the tracker at `tracker`, and the tracker after it."""
    game = Game(load_spec(spec_path), 7)
    state: Any = game.initial_state()
    state = state._replace(phase=game.phase_names.index("veto"), election_tracker=tracker)
    move = game.move("accept_veto")
    after: Any = game.apply(state, move)
    return game.says(state, move), after.election_tracker


def test_a_sentence_says_what_the_move_did_under_an_overlay(tmp_path: Path) -> None:
    overlay = tmp_path / "veto_keeps_tracker.toml"
    overlay.write_text(VETO_KEEPS_TRACKER, encoding="utf-8")
    for tracker in (0, 1):
        said, after = _accepted_veto(str(overlay), tracker)
        assert after == tracker and said.endswith(f"the Election Tracker stands at {tracker}"), said
        said, after = _accepted_veto("standard", tracker)
        assert after == tracker + 1 and said.endswith(f"the Election Tracker stands at {tracker + 1}"), said


def test_the_loader_refuses_a_sentence_that_works_out_a_new_value(tmp_path: Path) -> None:
    overlay = tmp_path / "veto_says_by_hand.toml"
    overlay.write_text(VETO_KEEPS_TRACKER + 'says = "the veto is accepted; the Election Tracker moves to '
                       '{election_tracker + 1}"\n', encoding="utf-8")
    with pytest.raises(SpecError, match=r"\{after_election_tracker\}") as refused:
        load_spec(str(overlay))
    assert "veto_says_by_hand.toml:" in str(refused.value)


# ---------------------------------------------------------------------- seats from 1


def test_a_game_record_counts_seats_from_1_and_its_itf_from_0(tmp_path: Path) -> None:
    itf = tmp_path / "game.itf.json"
    result = shrules("play", "-n", "5", "--seed", "1", "--trace", str(itf))
    assert result.exit_code == EXIT_OK, result.output
    assert not re.search(r"\b(seat|seats|Seat) 0\b", result.stdout)
    assert re.search(r"\bseat 5\b", result.stdout)           # the fifth seat of five is seat 5
    states = json.loads(itf.read_text(encoding="utf-8"))["states"]
    hitler = states[-1]["hitler"]
    hitler = hitler.get("value", hitler) if isinstance(hitler, dict) else hitler
    assert 0 <= hitler <= 4                                   # the machine format keeps 0..4
    assert f"Hitler is seat {hitler + 1}," in result.stdout


def test_an_illegal_move_and_a_seat_out_of_range_say_seats_from_1(tmp_path: Path) -> None:
    game = _game(tmp_path, SEVEN, *ROUND)
    result = shrules("ask", "--game", game, "--move", '{"move": "nominate", "by": 1, "chancellor": 4}')
    assert "seat 5 was elected Chancellor last" in result.stdout       # "chancellor": 4 is seat 5
    bad = shrules("ask", "--game", game, "--move", '{"move": "nominate", "by": 1, "chancellor": 9}')
    assert bad.exit_code == EXIT_BAD_INPUT and "seats 1..7 at the table" in bad.stderr
    assert "seat 0" not in bad.stderr


# ---------------------------------------------------------------------- how this was decided, after the answer


def test_an_answer_opens_with_the_answer_and_says_how_it_was_decided_last() -> None:
    for lang, how, method in (("en", "How this was decided:", ("Found by", "Proved for", "Formally")),
                              ("de", "Wie das entschieden wurde:", ("Gefunden durch", "Bewiesen für", "Formal"))):
        for kind in ("--can", "--never"):
            text = shrules("ask", "--players", "5", kind, "liberal_policies > 5", "--lang", lang).stdout
            lines = text.splitlines()
            assert how in lines, text
            before = lines[:lines.index(how)]
            assert not any(line.strip().startswith(method) for line in before), text
            assert any(line.strip().startswith(method) for line in lines[lines.index(how):])
            assert "k-induction" not in "\n".join(before) and "k-Induktion" not in "\n".join(before)


def _game_with(power: str) -> Any:
    """A seeded random 7-player game in which the President used `power`."""
    game = compiled_game(7)
    for seed in range(200):
        trace = random_game(game, seed)
        if any(game.describe(state)["power"] == power for state in trace.states):
            return trace
    raise AssertionError(f"no seeded game with {power}")


def test_the_round_card_names_the_target_of_every_power_and_marks_the_answer() -> None:
    trace = _game_with("execution")
    drawn = rounds(trace, "en", answer=len(trace.steps) - 1)
    used = [turn for turn in drawn.rounds if turn.power in ("execution", "investigate", "special_election")]
    assert used and all(turn.target is not None for turn in used)
    executed = next(turn.target for turn in used if turn.power == "execution")
    assert executed is not None
    html = draw_game(drawn, "en")
    assert f"Execution — seat {executed + 1}" in html           # seats from 1 on the card
    assert html.count('class="answer"') == 2 and "▶" in html     # in the folded list and the printed one
    german = draw_game(rounds(trace, "de", answer=len(trace.steps) - 1), "de")
    assert f"Hinrichtung — Platz {executed + 1}" in german


# ---------------------------------------------------------------------- German


def test_german_numbers_group_thousands_with_a_point_and_use_a_decimal_comma() -> None:
    assert filled("{states:,} Zuständen in {seconds:.1f} s", "de", states=143762, seconds=4.4) == \
        "143.762 Zuständen in 4,4 s"
    assert filled("{states:,} states in {seconds:.1f} s", "en", states=143762, seconds=4.4) == \
        "143,762 states in 4.4 s"
    text = shrules("ask", "--players", "5", "--can", "liberal_policies >= 1", "--lang", "de").stdout
    assert re.search(r"nach [\d.]+ Zuständen in \d+,\d s\.", text), text
    assert not re.search(r"\d\.\d s\b", text)


def test_german_names_moves_in_german_and_has_a_german_footer() -> None:
    text = shrules("ask", "veto-by-president", "--lang", "de").stdout
    assert "„der Kanzler schlägt ein Veto vor“" in text and "propose_veto" not in text
    listing = shrules("ask", "--lang", "de").stdout
    assert listing.rstrip().splitlines()[-1].endswith("Fragen; `shrules ask ID` beantwortet eine.")
    for rule in load_spec().rules:              # every move of the rules has its German name
        assert rule.summary_de, rule.name


def test_a_variant_that_renames_a_move_in_english_drops_its_german_name(tmp_path: Path) -> None:
    overlay = tmp_path / "renamed.toml"
    overlay.write_text('extends = "standard"\nname = "renamed"\ndescription = "x"\n\n[[rule]]\n'
                       'name = "propose_veto"\nsummary = "The Chancellor asks to veto"\n', encoding="utf-8")
    rule = load_spec(str(overlay)).rule("propose_veto")
    assert rule.summary_de is None and move_name(rule, "de") == UNTRANSLATED + "the Chancellor asks to veto"


# ---------------------------------------------------------------------- feedback


class _Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_the_status_line_is_drawn_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(StatusLine, "TICK", 0.01)
    terminal = _Terminal()
    with StatusLine("can liberal_policies > 5 happen?", seconds=120, stream=terminal) as status:
        status.update("5 players: searching")
        time.sleep(0.1)
    drawn = terminal.getvalue()
    assert "can liberal_policies > 5 happen? — 5 players: searching" in drawn and " s left" in drawn
    assert drawn.endswith("\r\x1b[K")                         # erased before the answer is printed
    log = io.StringIO()
    with StatusLine("anything", seconds=1, stream=log) as status:
        status.update("searching")
        time.sleep(0.05)
    assert log.getvalue() == ""


def test_colour_only_on_a_terminal_and_never_with_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color(False, _Terminal()) and not use_color(True, _Terminal()) and not use_color(False, io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color(False, _Terminal())
    assert "\x1b[" not in shrules("ask", "--players", "5", "--can", "liberal_policies > 5", "--no-color").stdout


def test_the_check_bar_moves_within_a_count() -> None:
    inside = WithinCounts()
    positions = [inside.heard("5", "exploring for 1 properties"), inside.heard("5", "rank 800, 1 states"),
                 inside.heard("5", "rank 400, 265,952 states"), inside.heard("5", "rank 100, 1,038,532 states")]
    assert positions[0] == positions[1] == 0 and 0 < positions[2] < positions[3] < PARTS
    assert inside.heard("5", "done") == PARTS
    assert inside.heard("6", "rank 900, 1 states") == PARTS            # a second count starts at its beginning


def test_every_abbreviation_of_the_check_table_is_explained_below_it() -> None:
    result = shrules("check", "-n", "5", "-p", "deadlock_free", "-p", "fascist_policy_win", "--no-color")
    assert result.exit_code == EXIT_OK, result.output
    lines = result.stdout.splitlines()
    table = lines[:3]
    assert re.search(r"\d+m/\d+e", "\n".join(table)) and re.search(r"\d\.\dM", "\n".join(table))
    below = lines[4]
    assert "m = moves" in below and "e = elected governments" in below and "M = million states" in below


# ---------------------------------------------------------------------- the book in a browser, and its screenshots


SCREENSHOTS = Path(__file__).parent / "screenshots"
EXECUTION_ENTRY = '''
[[dispute]]
id = "vote-after-execution"
source = "the book's screenshots (tests/test_player_words.py)"
question = "After an execution, do four players vote?"
question_de = "Stimmen nach einer Hinrichtung vier Personen ab?"
kind = "sometimes"
move = "count(alive) == 4"
on = ["elect", "reject"]
rules = ["R-X6", "R-E6"]
answer = "yes"
explanation = "The executed player no longer votes: four players vote at five."
explanation_de = "Wer hingerichtet wurde, stimmt nicht mehr ab: bei fünf stimmen vier."
'''
SHOTS = {"index": ("index.html", 900, 800), "ruling-execution": ("en/vote-after-execution.html", 900, 4000),
         "ruling-execution-phone": ("en/vote-after-execution.html", 375, 6000),
         "rule-page": ("rules/R-X6.html", 900, 900)}
"""Each screenshot of the book: the page and the window it is taken in (a phone's width: 375 px)."""
BADGE_YES, ANSWERED = (0xD7, 0xF0, 0xDC), (0xEE, 0xF3, 0xFC)


def _hex(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def _size(shot: Path) -> tuple[int, int]:
    """A PNG's width and height, from its header alone."""
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", f"{shot.name} is not a PNG"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def _bands(shot: Path, marks: dict[str, tuple[int, int, int]]) -> list[str]:
    """The shot top to bottom as runs of rows by which of `marks`' colours they show: the
    layout a reader sees (which tracks, badges and marks, in which order), not the pixels
    a font's hinting moves."""
    _, _, rows = png_rows(shot)
    bands: list[str] = []
    for colours in rows:
        mark = "".join(name for name, colour in marks.items() if colour in colours) or "-"
        if not bands or bands[-1] != mark:
            bands.append(mark)
    return bands


@pytest.mark.skipif(BROWSER is None, reason="no chromium on PATH: `apt-get install -y chromium` (.ci/run does)")
def test_the_book_in_a_browser_matches_its_screenshots(tmp_path: Path) -> None:
    catalogue_file = tmp_path / "disputes.toml"
    catalogue_file.write_text(DISPUTES_FILE.read_text(encoding="utf-8") + EXECUTION_ENTRY, encoding="utf-8")
    site = tmp_path / "site"
    done = shrules("book", str(site), "--players", "5", "--ids", "vote-after-execution,dead-candidate,veto-by-president",
                   "--seconds", "60", "--catalogue", str(catalogue_file))
    assert done.exit_code == EXIT_OK, done.output
    ruling = (site / "en" / "vote-after-execution.html").read_text(encoding="utf-8")
    assert re.search(r"Execution — seat [1-5]<", ruling) and 'class="round answered"' in ruling
    marks = {"L": _hex(LIBERAL), "F": _hex(FASCIST), "Y": BADGE_YES, "A": ANSWERED}
    update = os.environ.get("SHRULES_UPDATE_GOLDEN") == "1"
    for name, (page, width, height) in SHOTS.items():
        shot = tmp_path / f"{name}.png"
        taken = browser(f"--screenshot={shot}", f"--window-size={width},{height}", (site / page).as_uri())
        assert taken.returncode == 0 and shot.is_file(), taken.stderr[-2000:]
        reference = SCREENSHOTS / f"book-{name}.png"
        if update:
            shutil.copyfile(shot, reference)
        assert reference.is_file(), f"no {reference.name}: take it with SHRULES_UPDATE_GOLDEN=1"
        assert _size(shot) == _size(reference) == (width, height)
        got = _bands(shot, marks)
        assert got == _bands(reference, marks), f"{name}: laid out otherwise than in {reference.name}"
        if name.startswith("ruling"):
            assert "LF" in "".join(got) or ("L" in got and "F" in got), f"{name}: no tracks drawn"
            assert any("A" in band for band in got), f"{name}: the answering move is not marked in the shot"
            assert got[-1] == "-", f"{name}: the page goes on below the shot"
        if name == "index":
            assert any("Y" in band for band in got), "the index shows no yes badge"
