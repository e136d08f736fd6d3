"""Verdicts no kept file can forge: the task cache (`check --cache`, `sweep`), the mutation
cache (`mutate --cache`), an atlas (`check --atlas`), a worker's result, and the atlas
page. Each attack is what a hostile neighbour could do to a shared CI cache or a
colleague's atlas; each must leave the verdict what the rules give, or be refused with
one line, and never hang or print a traceback.

A cache the user owns and no one else can write is believed for what no game shows
(proved, no witness, equivalent): those who can forge it can forge the checkout too. So
the forgeries of claims no game shows are planted in a cache made writable by others, as
a shared cache is; a forged game is caught wherever it is kept.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from verify.cli import main

ROOT = Path(__file__).resolve().parents[1]
BROKEN_DECK = "custom[deck_liberal=1; deck_fascist=1]"
"""A broken rule set: a two-tile deck cannot give a President three tiles (R-L1)."""
CHECK = ["check", "-n", "5", "--rules", BROKEN_DECK, "-p", "draw_finds_three", "-p", "fascist_policy_win", "--json"]
"""Two properties at 5 players, decided in about a second: one refuted by a game of five
moves, one with no witness."""
SWEEP = ["sweep", "-n", "5", "--set", "start_fascist=4", "--set", "start_liberal=4", "--powers", "none,execution",
         "--sample", "4", "--seed", "3", "--max-states", "50000"]
"""Four boards, two sound and two broken (tests/test_scale_atlas.py), in a few seconds."""


def verdicts(text: str) -> dict[str, str]:
    return {item["property"]: item["verdict"] for item in json.loads(text)}


def the_entry(folder: Path) -> Path:
    [path] = sorted(folder.rglob("*.json"))
    return path


def shared(path: Path) -> None:
    """Make a kept file writable by the whole group, as in a shared CI cache."""
    path.chmod(0o664)


def forge_raws(path: Path, change: Any) -> None:
    """Rewrite the kept entry at `path`, each raw verdict through `change`."""
    data = json.loads(path.read_text(encoding="utf-8"))
    data["raws"] = [change(dict(raw)) for raw in data["raws"]]
    path.write_text(json.dumps(data), encoding="utf-8")


def shrules(*args: str, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    """`python -m verify ARGS` in a process of its own with its address space capped, so a
    cache read that never ends is a timeout and one that fills memory an error, not a
    machine brought down."""
    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    return subprocess.run([sys.executable, "-m", "verify", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout, check=False, preexec_fn=limits)


# ---------------------------------------------------------------- the task cache


def test_a_forged_proved_in_a_shared_task_cache_is_not_believed(tmp_path: Path) -> None:
    first = CliRunner().invoke(main, [*CHECK, "--cache", str(tmp_path)])
    assert first.exit_code == 1 and verdicts(first.stdout)["draw_finds_three"] == "refuted", first.output
    entry = the_entry(tmp_path)

    def proved(raw: dict[str, Any]) -> dict[str, Any]:
        if raw["property"] == "draw_finds_three":
            raw.update(verdict="proved", moves=None, message="")
        return raw
    forge_raws(entry, proved)
    shared(entry)
    again = CliRunner().invoke(main, [*CHECK, "--cache", str(tmp_path)])
    assert again.exit_code == 1 and verdicts(again.stdout)["draw_finds_three"] == "refuted", again.output
    warnings = [line for line in again.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "writable by other users" in warnings[0]


def test_a_forged_witness_whose_game_shows_nothing_is_not_believed(tmp_path: Path) -> None:
    """Even in the user's own cache: a game is replayed, and it must show what it is kept for."""
    first = CliRunner().invoke(main, [*CHECK, "--cache", str(tmp_path)])
    assert verdicts(first.stdout)["fascist_policy_win"] == "no-witness"
    entry = the_entry(tmp_path)
    moves = next(raw["moves"] for raw in json.loads(entry.read_text(encoding="utf-8"))["raws"]
                 if raw["property"] == "draw_finds_three")

    def witnessed(raw: dict[str, Any]) -> dict[str, Any]:
        if raw["property"] == "fascist_policy_win":
            raw.update(verdict="witness", moves=moves)      # a legal game, but no Fascist policy win in it
        return raw
    forge_raws(entry, witnessed)
    again = CliRunner().invoke(main, [*CHECK, "--cache", str(tmp_path)])
    assert verdicts(again.stdout)["fascist_policy_win"] == "no-witness", again.output
    assert "does not show fascist_policy_win witness" in again.stderr


def test_a_sweep_result_from_a_shared_cache_is_computed_again(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """`sweep` reads the default cache even without --cache: a forged "as expected" there
    does not make a broken board sound."""
    from verify.scale.cache import Cache
    from verify.scale.run import run_all
    from verify.scale.sweep import soundness_properties
    from verify.scale.tasks import Task
    task = Task(BROKEN_DECK, 5, soundness_properties(), max_states=20_000)
    cache = Cache(tmp_path)
    [result] = run_all([task], cache, workers=1)
    assert any(item["as_expected"] is False for item in result["results"])
    path = cache.path(task.key)
    data = json.loads(path.read_text(encoding="utf-8"))
    for item in data["results"]:
        item.update(verdict="proved" if item["verdict"] != "no-witness" else "witness", as_expected=True)
        item.pop("game", None)
    path.write_text(json.dumps(data), encoding="utf-8")
    shared(path)
    capsys.readouterr()
    [again] = run_all([task], Cache(tmp_path), workers=1)
    assert [item["verdict"] for item in again["results"]] == [item["verdict"] for item in result["results"]]
    warnings = capsys.readouterr().err.splitlines()
    assert len(warnings) == 1 and "writable by other users" in warnings[0]


def test_a_workers_result_whose_game_shows_nothing_is_refused(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker's result is data from elsewhere: its games are replayed as a kept one's."""
    from verify.scale import checks
    run_raws = checks.run_raws

    def forging(task: Any) -> dict[str, Any]:
        result = run_raws(task)
        for raw in result["raws"]:
            if raw["verdict"] == "refuted":
                raw["moves"] = raw["moves"][:1]             # the deal alone: nothing broken yet
        return result
    monkeypatch.setattr(checks, "run_raws", forging)
    done = CliRunner().invoke(main, [*CHECK, "--cache", str(tmp_path), "--workers", "1"])   # in this process
    assert done.exit_code == 2 and "does not check" in done.stderr, done.output
    assert not list(tmp_path.rglob("*.json"))


# ---------------------------------------------------------------- damaged cache files


@pytest.mark.parametrize("damage", ["fifo", "endless", "garbage", "nested"])
def test_a_damaged_cache_entry_is_a_miss_and_one_warning(tmp_path: Path, damage: str) -> None:
    cache = tmp_path / "cache"
    first = CliRunner().invoke(main, [*CHECK, "--cache", str(cache)])
    assert first.exit_code == 1
    entry = the_entry(cache)
    entry.unlink()
    if damage == "fifo":
        os.mkfifo(entry)
    elif damage == "endless":
        entry.symlink_to("/dev/zero")
    elif damage == "garbage":
        entry.write_bytes(b"\x00\xff\xfe not json \x1b[31m")
    else:
        entry.write_text("[" * 200_000, encoding="utf-8")
    done = shrules(*CHECK, "--cache", str(cache), timeout=90)
    assert done.returncode == 1 and verdicts(done.stdout)["draw_finds_three"] == "refuted", done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1, done.stderr


# ---------------------------------------------------------------- the mutation cache

MUTATE = ["mutate", "-n", "5", "--random-only", "--mutant", "3", "--json", "--workers", "1"]
"""Mutant 3 drops `chancellor != president` (R-E2): random games kill it in seconds."""


def test_a_forged_killed_is_not_believed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from verify.diff import mutate
    first = CliRunner().invoke(main, [*MUTATE, "--cache", str(tmp_path)])
    assert first.exit_code == 0, first.stderr
    entry = the_entry(tmp_path)
    data = json.loads(entry.read_text(encoding="utf-8"))
    data["outcome"]["detail"] = "FORGED: killed with no game"
    data["outcome"]["game"] = []
    if isinstance(data.get("kill"), dict):
        data["kill"]["moves"] = data["kill"]["moves"][:2]      # the deal and the first President: nothing broken
    entry.write_text(json.dumps(data), encoding="utf-8")
    calls: list[int] = []
    decide = mutate.decide

    def counted(*args: Any) -> Any:
        calls.append(1)
        return decide(*args)
    monkeypatch.setattr(mutate, "decide", counted)
    again = CliRunner().invoke(main, [*MUTATE, "--cache", str(tmp_path)])
    assert again.exit_code == 0, again.stderr
    [outcome] = json.loads(again.stdout)["outcomes"]
    assert outcome["status"] == "killed" and "FORGED" not in outcome["detail"] and calls == [1]
    assert "does not show nominee_eligible refuted" in again.stderr


def test_a_forged_equivalent_in_a_shared_cache_is_not_believed(tmp_path: Path) -> None:
    first = CliRunner().invoke(main, [*MUTATE, "--cache", str(tmp_path)])
    assert first.exit_code == 0, first.stderr
    entry = the_entry(tmp_path)
    data = json.loads(entry.read_text(encoding="utf-8"))
    data["outcome"].update(status="equivalent", detail="FORGED", game=[])
    entry.write_text(json.dumps(data), encoding="utf-8")
    shared(entry)
    again = CliRunner().invoke(main, [*MUTATE, "--cache", str(tmp_path)])
    [outcome] = json.loads(again.stdout)["outcomes"]
    assert outcome["status"] == "killed" and "writable by other users" in again.stderr


# ---------------------------------------------------------------- the atlas


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("swept")
    done = CliRunner().invoke(main, [*SWEEP, "--cache", str(folder / "cache"), "--report", str(folder / "atlas")])
    assert done.exit_code == 0, done.output
    return folder / "atlas" / "atlas.json"


def atlas_copy(swept: Path, folder: Path, change: Any) -> Path:
    data = json.loads(swept.read_text(encoding="utf-8"))
    change(data)
    folder.mkdir(exist_ok=True)
    (folder / "atlas.json").write_text(json.dumps(data), encoding="utf-8")
    return folder / "atlas.json"


BROKEN_BOARD = "execution,execution,execution,execution,none"
"""Broken in the sweep: with no Execution at the end of the track, no Liberal execution win."""


def test_a_forged_sound_in_a_shared_atlas_is_not_believed(swept: Path, tmp_path: Path) -> None:
    def sound(data: dict[str, Any]) -> None:
        for entry in data["rule_sets"]:
            entry.update(verdict="sound", broken=[])
    shared(atlas_copy(swept, tmp_path / "atlas", sound))
    args = ["check", "-n", "5", "--rules", "custom", "--set", "start_fascist=4", "--set", "start_liberal=4",
            "--set", f"powers={BROKEN_BOARD}", "-p", "liberal_execution_win", "--atlas", str(tmp_path / "atlas")]
    done = CliRunner().invoke(main, args)
    assert "(from the atlas)" not in done.stdout
    assert done.exit_code == 1 and "writable by other users" in done.stderr, done.output


def test_an_atlas_made_before_the_rules_file_was_edited_is_not_used(swept: Path, tmp_path: Path) -> None:
    sound_board = "none,execution,execution,execution,execution"
    rules = tmp_path / "board.toml"

    def board(powers: str) -> str:
        listed = ", ".join(f'"{power}"' for power in powers.split(","))
        return (f'extends = "custom"\nname = "board"\n\n[settings]\npowers = [{listed}]\nstart_fascist = 4\n'
                f'start_liberal = 4\n')
    rules.write_text(board(sound_board), encoding="utf-8")

    def named(data: dict[str, Any]) -> None:
        for entry in data["rule_sets"]:
            if entry["settings"].get("powers") == sound_board:
                entry["rules"] = str(rules)             # the atlas was made for the file as it was
    atlas_copy(swept, tmp_path / "atlas", named)
    args = ["check", "-n", "5", "--rules", str(rules), "-p", "liberal_execution_win", "--atlas",
            str(tmp_path / "atlas")]
    before = CliRunner().invoke(main, args)
    assert before.exit_code == 0 and "sound (from the atlas)" in before.stdout, before.output
    rules.write_text(board("none,none,none,none,none"), encoding="utf-8")   # not among the atlas's boards
    after = CliRunner().invoke(main, args)
    assert "(from the atlas)" not in after.stdout and "checking" in after.stderr, after.output
    assert "liberal_execution_win" in after.stdout          # checked: the matrix of the check itself


def test_the_atlas_page_escapes_what_the_results_say(swept: Path) -> None:
    from verify.scale.atlas import page
    data = json.loads(swept.read_text(encoding="utf-8"))
    script = "<script>alert(1)</script>"
    data["counts"]["sound"] = script
    data["groups"]["same_rules"] = script
    for entry in data["rule_sets"]:
        entry["players"] = "5'><img src=x onerror=alert(1)>"
    data["rule_sets"][0]["broken"] = [script]
    for item in data["classes"]:
        item["rule_sets"] = script
        item["shortest"] = {script: {"rules": script, "players": script, "moves": script, "game": [script]}}
    html = page(data)
    assert "<script" not in html and "<img" not in html and "onerror=alert(1)>" not in html
    assert "&lt;script&gt;" in html


def test_a_broken_board_in_a_shared_atlas_is_believed_only_by_its_replayed_game(tmp_path: Path) -> None:
    """What a game shows needs no one's word: a broken entry whose game replays is read even
    from an atlas others can write (without the facts no game shows); a game cut short is
    refused with one line, and the rules are checked instead."""
    sets = ["--set", "deck_liberal=1", "--set", "deck_fascist=1"]
    done = CliRunner().invoke(main, ["sweep", "-n", "5", *sets, "--powers", "none", "--max-states", "20000",
                                     "--cache", str(tmp_path / "cache"), "--report", str(tmp_path / "atlas")])
    assert done.exit_code == 0, done.output
    atlas = tmp_path / "atlas" / "atlas.json"
    shared(atlas)
    args = ["check", "-n", "5", "--rules", "custom", *sets, "--set", "powers=none,none,none,none,none",
            "-p", "draw_finds_three", "--atlas", str(tmp_path / "atlas")]
    believed = CliRunner().invoke(main, args)
    assert believed.exit_code == 1 and "broken (from the atlas)" in believed.stdout, believed.output
    assert "broken: draw_finds_three" in believed.stdout and "longest possible game" not in believed.stdout
    data = json.loads(atlas.read_text(encoding="utf-8"))
    [entry] = data["rule_sets"]
    entry["games"]["draw_finds_three"] = entry["games"]["draw_finds_three"][:1]
    atlas.write_text(json.dumps(data), encoding="utf-8")
    refused = CliRunner().invoke(main, args)
    assert "(from the atlas)" not in refused.stdout and refused.exit_code == 1, refused.output
    assert "does not show draw_finds_three refuted" in refused.stderr
