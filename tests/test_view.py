"""`shrules view`: what one seat saw, in each of the three formats the project reads.

The view comes from the rules' `shows` entries alone (engine/view.py), so these tests hold
it to what the rules let a seat see: a Liberal is shown no other seat's role (R-S5), the
Chancellor the two tiles passed (R-L2), Hitler his Fascists at 5-6 players and not at 7+
(R-S5); a log that leaves the roles out gives "not recorded", never a guess; German output
has no English sentence; bad input is one line and exit 2."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from engine.game import Game, compiled_game
from engine.play import random_game
from engine.trace import Trace
from engine.transcript import dump_transcript, transcript_of_trace
from engine.words import UNTRANSLATED
from test_german import english_in
from verify.cli import main

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("SHRULES_SECRETHITLER_IO", ROOT.parent / "shared" / "data" / "secrethitler-io"))
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"the secrethitler.io games are not at {DATA} "
                                                          "(a checkout beside ../shared is needed, or "
                                                          "SHRULES_SECRETHITLER_IO naming the folder)")
ROLE_ENTRIES = {"hitler_seat", "fascist_seats"}
"""The deal's entries that show a seat other seats' roles (spec/rules/standard.toml)."""


def run(*args: str) -> Any:
    return CliRunner().invoke(main, ["view", *args])


def view_json(path: Path, seat: int, *more: str) -> dict[str, Any]:
    """`shrules view PATH --seat SEAT --json`, `seat` from 0."""
    result = run(str(path), "--seat", str(seat + 1), "--json", *more)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.output)
    return data


def observations(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [seen for round_ in data["rounds"] for seen in round_["observations"]]


def first_move(data: dict[str, Any], rule: str) -> list[dict[str, Any]]:
    """The observations of the first move of `rule`: its line, then what it showed."""
    group: list[dict[str, Any]] = []
    for seen in observations(data):
        if group and seen["what"] == "move":
            break
        if seen["rule"] == rule and (group or seen["what"] == "move"):
            group.append(seen)
    return group


def roles_of(trace: Trace) -> tuple[int, tuple[int, ...]]:
    params = trace.game.params_of(trace.steps[0][0])
    return params["hitler_seat"], tuple(params["fascist_seats"])


def game_with_a_discard(players: int) -> Trace:
    """A seeded random game that has a legislative session."""
    game: Game = compiled_game(players)
    for seed in range(50):
        trace = random_game(game, seed=seed)
        if any(move.rule == "president_discard" for move, _ in trace.steps):
            return trace
    raise AssertionError("no seeded game with a legislative session")


def written(trace: Trace, tmp_path: Path, fmt: str) -> Path:
    """The game as a transcript (.jsonl) or an ITF trace (.json)."""
    if fmt == "transcript":
        path = tmp_path / "game.jsonl"
        path.write_text(dump_transcript(transcript_of_trace(trace, game_id="seeded")), encoding="utf-8")
    else:
        path = tmp_path / "game.json"
        trace.save_itf(path)
    return path


@pytest.fixture(scope="module")
def seven() -> Trace:
    return game_with_a_discard(7)


# ---------------------------------------------------------------------- a seat sees only what it is shown


@pytest.mark.parametrize("fmt", ["transcript", "trace"])
def test_a_liberal_is_shown_no_other_seats_role(seven: Trace, tmp_path: Path, fmt: str) -> None:
    path = written(seven, tmp_path, fmt)
    hitler, fascists = roles_of(seven)
    liberal = next(seat for seat in range(7) if seat != hitler and seat not in fascists)
    data = view_json(path, liberal)
    seen = observations(data)
    assert [s["value"] for s in seen if s["what"] == "role"] == ["liberal"]
    assert not [s for s in seen if s["what"] in ROLE_ENTRIES]
    assert {item["name"] for item in data["view"]["items"]} <= {"role", "hand"}
    text = run(str(path), "--seat", str(liberal + 1)).output
    deal = text.split("Round 1")[0]
    assert "you see your role: Liberal [R-S5]" in deal
    assert "Hitler" not in deal and "ordinary Fascist" not in deal


@pytest.mark.parametrize("fmt", ["transcript", "trace"])
def test_the_chancellor_is_shown_the_two_tiles_passed_and_not_the_discard(seven: Trace, tmp_path: Path,
                                                                         fmt: str) -> None:
    path = written(seven, tmp_path, fmt)
    game = seven.game
    before = seven.start
    for move, after in seven.steps:
        if move.rule == "president_discard":
            break
        before = after
    chancellor, president = before.nominee, before.president
    passed = after.chancellor_hand
    data = view_json(path, chancellor)
    shown = first_move(data, "president_discard")
    assert shown[0]["value"] is None and shown[0]["what"] == "move"
    assert {"rule": "president_discard", "rule_id": "R-L2", "what": "chancellor_hand", "value": passed,
            "public": False, "recorded": True} == {k: v for k, v in shown[1].items() if k != "text"}
    assert not [s for s in shown if s["what"] == "tile"]            # the discard stays face down (R-L4)
    size = game.values["chancellor_hand_size"]
    assert shown[1]["text"] == (f"you see the two tiles passed to you: {passed} Fascist, "
                                f"{size - passed} Liberal [R-L2]")
    others = view_json(path, next(s for s in range(7) if s not in (chancellor, president)))
    assert [s["what"] for s in first_move(others, "president_discard")] == ["move"]
    told = first_move(view_json(path, president), "president_discard")
    assert [s["what"] for s in told] == ["move", "tile"] and told[1]["public"] is False


@pytest.mark.parametrize("players, shown", [(5, True), (6, True), (7, False), (10, False)])
def test_hitler_is_shown_his_fascists_at_five_and_six_players_only(players: int, shown: bool,
                                                                   tmp_path: Path) -> None:
    trace = random_game(compiled_game(players), seed=3)
    hitler, fascists = roles_of(trace)
    data = view_json(written(trace, tmp_path, "trace"), hitler)
    seen = observations(data)
    assert [s["value"] for s in seen if s["what"] == "role"] == ["hitler"]
    teammates = [s["value"] for s in seen if s["what"] == "fascist_seats"]
    assert teammates == ([list(fascists)] if shown else [])
    items = {item["name"]: item["value"] for item in data["view"]["items"]}
    assert ("fascists" in items) is shown and "hitler" not in items
    fascist = view_json(written(trace, tmp_path, "trace"), fascists[0])
    assert [s["value"] for s in observations(fascist) if s["what"] == "hitler_seat"] == [hitler]


def test_trace_and_transcript_give_the_same_view(seven: Trace, tmp_path: Path) -> None:
    """The same game read two ways is the same seat's view (the transcript's forced moves are
    the judge's, the trace's are recorded)."""
    for seat in range(7):
        a = view_json(written(seven, tmp_path, "trace"), seat)
        b = view_json(written(seven, tmp_path, "transcript"), seat)
        assert a["rounds"] == b["rounds"] and a["view"] == b["view"]


# ---------------------------------------------------------------------- what a log leaves out


def test_roles_left_out_are_not_recorded_never_guessed() -> None:
    path = ROOT / "engine" / "examples" / "hidden_roles.jsonl"
    data = view_json(path, 4)           # seat 5 investigates seat 4; the transcript gives no party
    assert data["roles_recorded"] is False
    seen = observations(data)
    role = [s for s in seen if s["what"] == "role"]
    assert role and all(s["value"] is None and s["recorded"] is False for s in role)
    party = [s for s in seen if s["what"] == "party"]
    assert party == [{**party[0], "value": None, "recorded": False}]
    assert all(item["recorded"] is False for item in data["view"]["items"] if item["name"] != "hand")
    assert data["stopped"] is True and data["view"]["moves"] == []
    text = run(str(path), "--seat", "5").output
    assert "you see your role: not recorded [R-S5]" in text and "you see the party: not recorded [R-X3]" in text


def test_a_party_the_log_records_is_shown_when_the_roles_are_not(tmp_path: Path) -> None:
    lines = (ROOT / "engine" / "examples" / "hidden_roles.jsonl").read_text(encoding="utf-8").splitlines()
    lines = [line.replace('"target": 3}', '"target": 3, "party": "fascist"}') for line in lines]
    path = tmp_path / "party.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    party = [s for s in observations(view_json(path, 4)) if s["what"] == "party"]
    assert [(s["value"], s["recorded"]) for s in party] == [("fascist", True)]


@needs_data
def test_a_secrethitler_io_log() -> None:
    path = DATA / "AbandonedTartEminentWildcatRemake7.json"
    summary = json.loads(path.read_text(encoding="utf-8"))
    roles = [player["role"] for player in summary["players"]]
    liberal = roles.index("liberal")
    data = view_json(path, liberal)
    seen = observations(data)
    assert [s["value"] for s in seen if s["what"] == "role"] == ["liberal"]
    assert not [s for s in seen if s["what"] in ROLE_ENTRIES]
    assert data["over"] is True
    fascist = roles.index("fascist")
    told = [s["value"] for s in observations(view_json(path, fascist)) if s["what"] == "hitler_seat"]
    assert told == [roles.index("hitler")]
    german = run(str(path), "--seat", str(liberal + 1), "--lang", "de").output
    assert UNTRANSLATED not in german and not english_in(german)


# ---------------------------------------------------------------------- German, bad input


@pytest.mark.parametrize("fmt", ["transcript", "trace"])
def test_german_output_has_no_english_left_over(seven: Trace, tmp_path: Path, fmt: str) -> None:
    path = written(seven, tmp_path, fmt)
    for seat in range(7):
        text = run(str(path), "--seat", str(seat + 1), "--lang", "de").output
        assert UNTRANSLATED not in text, text
        assert not english_in(text), (english_in(text), text)
    hidden = run(str(ROOT / "engine" / "examples" / "hidden_roles.jsonl"), "--seat", "2", "--lang", "de").output
    assert "nicht aufgezeichnet" in hidden and not english_in(hidden) and UNTRANSLATED not in hidden


@pytest.mark.parametrize("content, name, expected", [
    ('{"setup": {"players": 7}}\n{"move": "nominate", "by": 0, "chancellor": "four"}\n', "bad.jsonl", "bad.jsonl:2"),
    ('{"setup": {"players": 7, "roles": {"hitler": 3, "fascists": [1, 5]}, "first_president": 0}}\n'
     '{"move": "nominate", "by": 0, "chancellor": 0}\n', "illegal.jsonl", "R-E2"),
    ('{"states": [], "vars": []}', "trace.json", "states"),
    ("not a game", "game.txt", "cannot tell the format"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, content: str, name: str, expected: str) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    result = run(str(path), "--seat", "1")
    assert result.exit_code == 2, result.output
    assert expected in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_seat_not_at_the_table_is_refused(seven: Trace, tmp_path: Path) -> None:
    result = run(str(written(seven, tmp_path, "trace")), "--seat", "8")
    assert result.exit_code == 2 and "1 to 7" in result.output
