"""Traces: readable printing, ITF round trip, replay that confirms or catches a change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.game import compiled_game
from engine.play import random_game
from engine.trace import replay_itf
from verify.cli import main


@pytest.mark.parametrize("players", [5, 6, 7, 8, 9, 10])
def test_itf_round_trip_replays(players: int, tmp_path: Path) -> None:
    trace = random_game(compiled_game(players), seed=players)
    path = tmp_path / "game.itf.json"
    trace.save_itf(path)
    result = replay_itf(path)
    assert result.ok, result.message
    assert result.trace.states == trace.states


def test_itf_has_quint_action_variables(tmp_path: Path) -> None:
    trace = random_game(compiled_game(5), seed=3)
    data = trace.to_itf()
    assert data["#meta"]["format"] == "ITF"
    assert "mbt::actionTaken" in data["vars"]
    assert data["states"][1]["mbt::actionTaken"] == "deal_roles"
    assert data["states"][0]["alive"] == {"#set": [0, 1, 2, 3, 4]}


def test_replay_catches_a_tampered_state(tmp_path: Path) -> None:
    trace = random_game(compiled_game(5), seed=4)
    data = trace.to_itf()
    data["states"][8]["election_tracker"] = (data["states"][8]["election_tracker"] + 1) % 3
    path = tmp_path / "bad.itf.json"
    path.write_text(json.dumps(data))
    result = replay_itf(path)
    assert not result.ok
    assert result.index == 8


def test_replay_catches_an_illegal_move(tmp_path: Path) -> None:
    game = compiled_game(5)
    trace = random_game(game, seed=5)
    data = trace.to_itf()
    # The first nomination: make the President nominate himself (R-E2).
    index = next(i for i, s in enumerate(data["states"]) if s["mbt::actionTaken"] == "nominate")
    president = data["states"][index - 1]["president"]
    data["states"][index]["mbt::nondetPicks"]["chancellor"]["value"] = president
    path = tmp_path / "illegal.itf.json"
    path.write_text(json.dumps(data))
    result = replay_itf(path)
    assert not result.ok and "R-E2" in result.message


def test_readable_trace_names_rule_ids_and_changes() -> None:
    text = random_game(compiled_game(7), seed=2).text()
    assert "Round 1" in text and "[R-E2" in text and "→" in text
    assert text.rstrip().splitlines()[-1].startswith("Game over: the ")


def test_play_is_byte_identical_for_a_seed(tmp_path: Path) -> None:
    runner = CliRunner()
    first = runner.invoke(main, ["play", "-n", "8", "-s", "11", "--trace", str(tmp_path / "a.json")])
    second = runner.invoke(main, ["play", "-n", "8", "-s", "11", "--trace", str(tmp_path / "b.json")])
    assert first.exit_code == 0, first.output
    assert first.output.replace("a.json", "") == second.output.replace("b.json", "")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    other = runner.invoke(main, ["play", "-n", "8", "-s", "12"])
    assert other.output != first.output


def test_cli_replay_and_bad_input(tmp_path: Path) -> None:
    runner = CliRunner()
    path = tmp_path / "g.itf.json"
    assert runner.invoke(main, ["play", "-n", "6", "-s", "1", "-q", "--trace", str(path)]).exit_code == 0
    ok = runner.invoke(main, ["replay", str(path)])
    assert ok.exit_code == 0 and "confirmed" in ok.output
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    bad = runner.invoke(main, ["replay", str(broken)])
    assert bad.exit_code == 2 and "broken.json:1: not valid JSON" in bad.output
    assert runner.invoke(main, ["play", "-n", "4"]).exit_code == 2
    assert runner.invoke(main, ["play", "--bogus"]).exit_code == 2
