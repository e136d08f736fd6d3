"""`shrules sweep` end to end on a few small rule sets: the summary, the exit status, the
atlas (atlas.json and atlas.html, the page in a headless chromium), and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from test_report_browser import BROWSER, browser, png_pixels
from verify.cli import main

ROOT = Path(__file__).resolve().parents[1]
SMALL = ["sweep", "-n", "5", "--set", "start_fascist=4", "--set", "start_liberal=4", "--powers", "none,execution",
         "--sample", "4", "--seed", "3", "--max-states", "50000"]
"""Two boards with an Execution in slot 5 (sound) and two without (no Liberal execution win)."""
BROKEN = (0xD7, 0x30, 0x27)
SOUND_FEWEST = (0x1A, 0x98, 0x50)


def shrules(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "verify", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300, check=False)


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    folder = tmp_path_factory.mktemp("atlas")
    done = shrules(*SMALL, "--cache", str(folder / "cache"), "--report", str(folder / "atlas"))
    return folder, done


def test_the_sweep_summarises_and_exits_zero(swept: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    folder, done = swept
    assert done.returncode == 0, done.stderr
    assert "4 rule sets: 2 sound, 2 broken, 0 unknown" in done.stdout
    assert "broken liberal_execution_win: 2 rule sets" in done.stdout
    again = shrules(*SMALL, "--cache", str(folder / "cache"))
    assert again.returncode == 0 and "0 computed, 4 from the cache" in again.stderr


def test_the_atlas_names_what_breaks_and_why(swept: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    folder, _ = swept
    data = json.loads((folder / "atlas" / "atlas.json").read_text(encoding="utf-8"))
    assert data["counts"] == {"sound": 2, "broken": 2, "unknown": 0}
    [only] = data["classes"]
    assert only["broken"] == ["liberal_execution_win"] and only["per_count"] == {"5": 2}
    assert "no-witness" in only["why"]["liberal_execution_win"]
    sound = [entry for entry in data["rule_sets"] if entry["verdict"] == "sound"]
    assert all(entry["settings"]["powers"].endswith(",execution") for entry in sound)
    assert all(entry["facts"]["longest_moves"] > 0 and entry["fewest_elections"] is not None for entry in sound)
    assert "seconds" not in json.dumps(data)                # the atlas is the same whatever the timing


@pytest.mark.skipif(BROWSER is None, reason="no chromium on PATH")
def test_the_atlas_page_shows_the_board_space(swept: tuple[Path, subprocess.CompletedProcess[str]],
                                              tmp_path: Path) -> None:
    page = swept[0] / "atlas" / "atlas.html"
    dom = browser("--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert 'id="grid-5"' in dom.stdout and dom.stdout.count("<rect") == 32
    assert 'id="count-broken">2<' in dom.stdout
    shot = tmp_path / "atlas.png"
    done = browser(f"--screenshot={shot}", "--window-size=1000,900", page.as_uri())
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
    _, _, colours = png_pixels(shot)
    assert BROKEN in colours and SOUND_FEWEST in colours


@pytest.mark.parametrize("args,message", [
    (["--powers", "bullet,teleport"], "--powers bullet,teleport: powers: 'teleport' is not a power"),
    (["--vary", "deck_fascist=9-x"], "--vary deck_fascist=9-x"),
    (["--vary", "colour=1"], "NAME one of deck_liberal"),
    (["--set", "powers=none,none,none,none,none"], "--set powers: the sweep spans the boards"),
    (["-n", "4"], "4"),
])
def test_bad_input_is_one_line_and_exit_two(args: list[str], message: str) -> None:
    done = CliRunner().invoke(main, ["sweep", *args, "--dry-run"])
    assert done.exit_code == 2 and message in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr


def test_the_dry_run_counts_the_default_space() -> None:
    done = CliRunner().invoke(main, ["sweep", "--dry-run"])
    assert done.exit_code == 0 and "18,750 rule sets in the space" in done.stdout
    done = CliRunner().invoke(main, ["sweep", "--dry-run", "-n", "5", "--vary", "deck_fascist=10-12"])
    assert "9,375 rule sets" in done.stdout


def test_check_reads_a_custom_game_from_the_atlas(swept: tuple[Path, subprocess.CompletedProcess[str]],
                                                  tmp_path: Path) -> None:
    folder = str(swept[0] / "atlas")
    base = ["check", "-n", "5", "--rules", "custom", "--set", "start_fascist=4", "--set", "start_liberal=4",
            "--atlas", folder]
    found = CliRunner().invoke(main, [*base, "--set", "powers=execution,execution,execution,execution,none"])
    assert found.exit_code == 1 and "broken (from the atlas)" in found.stdout and \
        "broken: liberal_execution_win" in found.stdout
    sound = CliRunner().invoke(main, [*base, "--set", "powers=none,execution,execution,execution,execution"])
    assert sound.exit_code == 0 and "sound (from the atlas)" in sound.stdout
    (tmp_path / "atlas.json").write_text('{"atlas": 99}', encoding="utf-8")
    bad = CliRunner().invoke(main, ["check", "-n", "5", "--atlas", str(tmp_path)])
    assert bad.exit_code == 2 and "is not an atlas of this shrules" in bad.stderr


@pytest.mark.parametrize("fewest,sentence", [
    ((1, 1), "Every sound board at 5 players: the slowest win needs at fewest 1 elected governments, so they "
             "share one colour."),
    ((1, 3), "Sound boards at 5 players: the slowest win needs at fewest 1 to 3 elected governments."),
])
def test_the_page_says_when_every_sound_board_shares_a_colour(fewest: tuple[int, int], sentence: str) -> None:
    """A flat colour scale is said in words ("from 1 to 1" told the reader nothing)."""
    from verify.scale.atlas import grids
    boards = ["none,none,none,none,execution", "none,none,none,execution,execution"]
    atlas = {"space": {"powers": ["none", "execution"]},
             "rule_sets": [{"players": 5, "settings": {"powers": board}, "verdict": "sound", "broken": [],
                            "fewest_elections": value} for board, value in zip(boards, fewest)]}
    text = "".join(grids(atlas))
    assert sentence in text
    assert text.count("<p>") == 1
