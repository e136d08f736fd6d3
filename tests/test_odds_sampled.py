"""The exact odds against batched random play (verify/odds/sampled.py, `odds --sample`).

On the small custom game of tests/test_odds_by_hand.py (Liberals win with 13/60, Hitler
is elected with 7/40): its exact odds lie within the 99% intervals of random games, odds
moved by a few points do not, and a profile random play does not play is refused."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction

import pytest
from click.testing import CliRunner

from engine.game import compiled_game
from spec.errors import SpecError
from spec.strategies import load_strategy
from verify.cli import main
from verify.explicit.odds import odds
from verify.odds.sampled import sample

SMALL = "custom[start_fascist=5; start_liberal=4; veto_zone=6; deck_liberal=5; deck_fascist=7]"


def test_exact_odds_inside_the_sample_and_moved_odds_outside() -> None:
    game = compiled_game(5, SMALL)
    uniform = load_strategy(game.spec, "uniform")
    result = odds(game, uniform, exact=True)
    assert result.outcomes[("liberal", "policies")] == Fraction(13, 60)
    sampled = sample(result, game, uniform, 20_000, seed=3)
    assert sampled.games == 20_000 and sampled.agrees, sampled.rows
    moved = dataclasses.replace(result, outcomes={("liberal", "policies"): Fraction(13, 60) + Fraction(3, 100),
                                                  ("fascist", "hitler_chancellor"): Fraction(7, 40),
                                                  ("fascist", "policies"): Fraction(73, 120) - Fraction(3, 100)})
    wrong = sample(moved, game, uniform, 20_000, seed=3)
    assert not wrong.agrees
    assert [row["inside"] for row in wrong.rows if row["how"] == "hitler_chancellor"] == [True]


def test_a_profile_that_weighs_moves_is_refused() -> None:
    game = compiled_game(5, SMALL)
    partisan = load_strategy(game.spec, "partisan")
    result = odds(game, partisan, exact=True)
    with pytest.raises(SpecError, match="random play draws every legal move alike"):
        sample(result, game, partisan, 100)


def test_on_the_command_line() -> None:
    result = CliRunner().invoke(main, ["odds", "-n", "5", "--rules", SMALL, "--sample", "5000", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)["sampled"]
    assert data["games"] == 5000 and data["agrees"] is True
    text = CliRunner().invoke(main, ["odds", "-n", "5", "--rules", SMALL, "--sample", "5000"]).stdout
    assert "Random play (5,000 batched games, seed 0" in text and "every exact probability inside" in text
    refused = CliRunner().invoke(main, ["odds", "-n", "5", "--rules", SMALL, "--sample", "50", "--strategy", "partisan"])
    assert refused.exit_code == 2 and "random play draws every legal move alike" in refused.output
