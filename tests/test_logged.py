"""Logged games beside the odds (verify/odds/logged.py, `shrules odds --against`).

The real games of ../shared are read where present (skipped with the reason where not);
the comparison itself is checked on a small custom game whose odds are worked out by hand
(tests/test_odds_by_hand.py), with tallies made up for the purpose."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.game import compiled_game
from engine.judge import rules_identity
from spec.strategies import load_strategy
from verify.cli import main
from verify.explicit.odds import Odds, odds
from verify.odds.logged import Group, Logged, compared, compared_lines, read_logged, wilson

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "secrethitler-io"
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"the secrethitler.io games are not at {DATA} "
                                "(they are beside the project, not in it)")
SMALL = "custom[start_fascist=5; start_liberal=4; veto_zone=6; deck_liberal=5; deck_fascist=7]"
"""Hitler elected 7/40, Liberals 13/60, Fascists by policies 73/120 under `uniform`."""


def test_wilson_interval() -> None:
    """None in ten: the upper end is z^2 / (n + z^2); half: symmetric around one half."""
    low, high = wilson(0, 10)
    assert low == 0 and high == pytest.approx(3.8415 / 13.8415, abs=1e-4)
    low, high = wilson(5, 10)
    assert low == pytest.approx(1 - high) and 0.2 < low < 0.25
    assert wilson(0, 0) == (0.0, 1.0)


def _small_odds() -> tuple[Odds, str]:
    game = compiled_game(5, SMALL)
    return odds(game, load_strategy(game.spec, "uniform"), exact=True), rules_identity(SMALL, game.spec)[1]


def test_odds_inside_and_outside_the_logged_interval() -> None:
    result, digest = _small_odds()
    group = Group(5, SMALL, digest, Counter({("fascist", "hitler_chancellor"): 7, ("liberal", "policies"): 9,
                                             ("fascist", "policies"): 24}), unfinished=2)
    logged = Logged({(5, digest): group, (7, "other"): Group(7, "standard", "other", Counter({("liberal", "policies"): 3}))})
    data = compared(result, logged, digest)
    assert data["games"] == 40 and data["unfinished"] == 2 and data["other_rules_or_counts"] == 3
    assert data["sides"]["liberal"]["games"] == 9 and data["sides"]["liberal"]["inside"]        # 13/60 vs 9/40
    [line] = [line for line in compared_lines(data, ["logs"]) if line.startswith("  liberal win:")]
    assert "liberal win: logged 22.5% (9 of 40; 95% interval" in line and not line.endswith("!")
    lopsided = Group(5, SMALL, digest, Counter({("liberal", "policies"): 30, ("fascist", "policies"): 10}))
    data = compared(result, Logged({(5, digest): lopsided}), digest)
    assert not data["sides"]["liberal"]["inside"]
    assert [line for line in compared_lines(data, ["logs"]) if line.startswith("  liberal win:")][0].endswith("!")
    hitler = next(item for item in data["outcomes"] if item["how"] == "hitler_chancellor")
    assert hitler["games"] == 0 and hitler["odds"] == pytest.approx(7 / 40) and not hitler["inside"]


def test_no_logged_game_of_this_count() -> None:
    result, digest = _small_odds()
    data = compared(result, Logged(), digest)
    assert data["games"] == 0
    assert compared_lines(data, ["logs"])[-1] == "  no finished game to compare with"


def test_a_missing_path_is_bad_input(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["odds", "-n", "5", "--rules", SMALL, "--against", str(tmp_path / "none")])
    assert result.exit_code == 2 and "no such file or folder of logged games" in result.output


@needs_data
def test_real_games_grouped_by_count_and_rules() -> None:
    """Every file is accounted for once (grouped, illegal or unreadable), and each group
    holds the games of its player count, as the summaries' own list of players says."""
    logged = read_logged([DATA])
    files = sorted(DATA.glob("*.json"))
    grouped = sum(g.finished + g.unfinished for g in logged.groups.values())
    assert grouped + logged.illegal + len(logged.unreadable) == len(files)
    seats = Counter(len(json.loads(path.read_text())["players"]) for path in files)
    by_count: Counter[int] = Counter()
    for (players, _), group in logged.groups.items():
        assert group.players == players
        by_count[players] += group.finished + group.unfinished
    assert all(by_count[count] <= seats[count] for count in by_count)
    standard7 = logged.group(7, rules_identity("standard")[1])
    assert standard7 is not None and standard7.finished > 200


@needs_data
def test_against_the_real_games_on_the_command_line() -> None:
    """The 5-player odds of the small game beside the real games: none of them is of that
    count and rules, so the comparison says so, and counts them all as other."""
    result = CliRunner().invoke(main, ["odds", "-n", "5", "--rules", SMALL, "--against", str(DATA), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)["logged"]
    assert data["games"] == 0 and data["other_rules_or_counts"] > 250
