"""Odds from games played under a profile (verify/explicit/odds_played.py, `odds --games`).

Played odds are draws of the Markov chain the exact pass sums over, so where both run the
exact odds must lie in the played shares' 99% intervals. The games are seeded: each test
here is deterministic, and a seed whose games fell outside an interval by chance (one
outcome in a hundred) would fail every run, not now and then."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from engine.game import compiled_game
from spec.strategies import load_strategy
from verify.cli import main
from verify.explicit import odds_played
from verify.explicit.layers import LayeredSearch
from verify.explicit.odds_layers import layered_odds
from verify.explicit.odds_played import PLAYED, outcome_intervals, played_odds, side_intervals, wilson

LATE = "custom[start_liberal=4; start_fascist=4]"
"""A game one policy from either track's win: every phase, power and vote still happens."""


@pytest.mark.parametrize(("players", "strategy"), [(5, "partisan"), (7, "partisan"), (6, "uniform")])
def test_the_exact_odds_lie_in_the_played_intervals(players: int, strategy: str) -> None:
    game = compiled_game(players, LATE)
    profile = load_strategy(game.spec, strategy)
    exact = layered_odds(game, profile, exact=True, within=False)
    played = played_odds(game, profile, 20_000, seed=3)
    assert played.complete and played.method == PLAYED and played.games == 20_000
    assert set(played.outcomes) == set(exact.outcomes)
    assert sum(played.counts.values()) == 20_000
    for outcome, (low, high) in outcome_intervals(played).items():
        assert low <= float(exact.outcomes[outcome]) <= high, (outcome, low, high, float(exact.outcomes[outcome]))
    for side, (low, high) in side_intervals(played).items():
        assert low <= float(exact.sides()[side]) <= high, side
    # The means of the games against the expectations: within 3% here.
    assert played.nominations == pytest.approx(float(exact.expected_rounds()), rel=0.03)
    assert played.elections == pytest.approx(float(exact.elections), rel=0.03)


def test_a_move_is_drawn_from_its_own_game_with_its_probability() -> None:
    """Three games: one with moves of 1/4 and 3/4, one with a single move, one with three
    of 1/2, 1/4, 1/4 (listed out of order). Each game gets exactly one of its own moves,
    and over many draws each move comes up with its probability."""
    origin = np.array([2, 0, 2, 1, 0, 2])
    probability = np.array([0.5, 0.25, 0.25, 1.0, 0.75, 0.25])
    rng = np.random.default_rng(7)
    times = np.zeros(len(origin))
    draws = 40_000
    for _ in range(draws):
        chosen = odds_played._drawn(origin, probability, 3, rng)
        assert sorted(origin[chosen].tolist()) == [0, 1, 2]
        times += chosen
    assert times / draws == pytest.approx(probability, abs=0.01)


def test_wilson_interval() -> None:
    low, high = wilson(50, 100)
    # 99%, z = 2.5758: half-width z·sqrt(1/400 + z²/40000) / (1 + z²/100) = 0.12472
    assert low < 0.5 < high and high - low == pytest.approx(2 * 0.12472, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0


def test_a_game_that_does_not_end_leaves_no_odds(monkeypatch: pytest.MonkeyPatch) -> None:
    """The finished games alone would be a biased share: no odds at all."""
    monkeypatch.setattr(odds_played, "MAX_MOVES", 3)
    game = compiled_game(5, LATE)
    result = played_odds(game, load_strategy(game.spec, "uniform"), 100)
    assert not result.complete and result.limit.startswith("unfinished: ") and not result.outcomes


def test_a_state_out_of_range_leaves_no_odds(monkeypatch: pytest.MonkeyPatch) -> None:
    """A game that reaches a value outside its declared range stops the play, and the
    odds are refused with why: never a traceback, never the shares of the other games."""
    monkeypatch.setattr(LayeredSearch, "out_of_range", lambda self, after, written: "draw_liberal 41 outside 0..40")
    game = compiled_game(5, LATE)
    result = played_odds(game, load_strategy(game.spec, "uniform"), 100)
    assert not result.complete and result.limit == "state out of range: draw_liberal 41 outside 0..40"
    assert not result.outcomes


def test_cli_games() -> None:
    result = CliRunner().invoke(main, ["odds", "-n", "5", "--rules", LATE, "--strategy", "partisan",
                                       "--games", "2000", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["method"] == PLAYED and data["games"] == 2000 and data["interval_level"] == 0.99
    assert sum(item["games"] for item in data["outcomes"]) == 2000
    assert all(item["interval"][0] <= item["share"] <= item["interval"][1] for item in data["outcomes"])
    assert set(data["sides"]) == set(data["side_intervals"]) == {"liberal", "fascist"}
    text = CliRunner().invoke(main, ["odds", "-n", "5", "--rules", LATE, "--games", "500"]).output
    assert "from 500 games played under the profile" in text and "not exact" in text


@pytest.mark.parametrize("clash", [["--given", "liberal_policies == 5"], ["--exact"], ["--within"],
                                   ["--sample", "10"], ["--max-states", "10"]])
def test_cli_games_is_not_the_exact_pass(clash: list[str]) -> None:
    result = CliRunner().invoke(main, ["odds", "-n", "5", "--games", "10", *clash])
    assert result.exit_code == 2 and "--games plays games instead of computing the odds" in result.output


def test_cli_games_time_limit_exits_3() -> None:
    result = CliRunner().invoke(main, ["odds", "-n", "5", "--games", "100000", "--time-limit", "0.05", "--json"])
    assert result.exit_code == 3, result.output
    data = json.loads(result.stdout)
    assert data["complete"] is False and data["limit"].startswith("time limit") and "outcomes" not in data
