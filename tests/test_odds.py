"""Exact odds under a strategy profile (verify/explicit/odds.py, `shrules odds`).

One exact pass at 5 players under `uniform`, with a condition, serves four tests: the
outcomes sum to 1 exactly, they agree with batched random play (which plays the same
uniform choices), the condition moves the odds the way the rulebook says, and the JSON
has `play --games`'s keys. That pass takes about five minutes of CPU (one Python step per
state of the complete 1.24 M-state graph, in fractions), so those four are `slow`; the
fast ones check the profiles' loading, refusals and symmetry, and a limit's exit."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.batched import BatchedGame
from engine.game import compiled_game
from spec.errors import SpecError
from spec.strategies import load_strategy
from verify.cli import main
from verify.cli.odds import as_data
from verify.explicit.odds import Odds, _rotation_blockers, odds

FIRST_DRAW_ALL_FASCIST = ("phase == 'president_discard' and president_hand == 3 "
                          "and liberal_policies + fascist_policies == 0")
"""The first draw of the game (no policy on either track yet) is three Fascist tiles."""

Z_99 = 2.576
"""The normal quantile of a two-sided 99% interval."""


@pytest.fixture(scope="module")
def uniform5() -> Odds:
    game = compiled_game(5)
    result = odds(game, load_strategy(game.spec, "uniform"), exact=True, given=FIRST_DRAW_ALL_FASCIST)
    assert result.complete, result.limit
    return result


@pytest.mark.slow
def test_outcomes_sum_to_one_exactly(uniform5: Odds) -> None:
    assert all(isinstance(share, Fraction) for share in uniform5.outcomes.values())
    assert uniform5.total == 1
    assert sum(uniform5.by_rounds.values()) == 1
    assert uniform5.rotation and not uniform5.rotation_blocked


@pytest.mark.slow
def test_exact_odds_inside_monte_carlo_interval(uniform5: Odds) -> None:
    """Batched random play draws every choice uniformly, as `uniform` weighs it: each
    exact share lies in the 99% interval of the sampled one."""
    games = 60_000
    figure = BatchedGame(compiled_game(5)).play(games=games, seed=11)
    played = figure.games + figure.deadlocks + figure.unfinished
    assert played == games and figure.deadlocks == 0
    for outcome, exact in uniform5.outcomes.items():
        share = figure.outcomes.get(outcome, 0) / played
        half = Z_99 * math.sqrt(float(exact) * (1 - float(exact)) / played)
        assert abs(share - float(exact)) <= half, (outcome, share, float(exact), half)


@pytest.mark.slow
def test_three_fascist_first_draw_favours_the_fascists(uniform5: Odds) -> None:
    """R-L1-R-L3: a hand of three Fascist tiles can only pass Fascist tiles, so the first
    elected government enacts a Fascist policy: given that draw, the Fascists win more
    often. (Not by policies: at 5 players under `uniform` that share falls, from 22.1% to
    21.1%, as the third Fascist policy comes sooner and with it a Hitler Chancellor's
    win, R-E10, which takes most of the gain.)"""
    held = uniform5.given_probability()
    assert 0 < held < 1
    given = uniform5.conditional()
    given_fascist = sum(share for (winner, _), share in given.items() if winner == "fascist")
    assert given_fascist > uniform5.sides()["fascist"]
    assert given[("fascist", "hitler_chancellor")] > uniform5.outcomes[("fascist", "hitler_chancellor")]


@pytest.mark.slow
def test_json_has_the_keys_of_play(uniform5: Odds) -> None:
    data = as_data(uniform5)
    assert set(data["sides"]) == {"liberal", "fascist"}
    assert {"winner", "how", "share"} <= set(data["outcomes"][0])
    assert abs(sum(item["share"] for item in data["outcomes"]) - 1) < 1e-12
    assert data["total_is_one"] is True
    assert data["expected_rounds"] > 0 and data["expected_elections"] > 0
    assert data["within_rounds"][-1]["liberal"] + data["within_rounds"][-1]["fascist"] == pytest.approx(1)
    json.dumps(data)


HIDDEN = """name = "peeker"
description = "reads the pile"

[moves.enact]
weight = "draw_fascist + 1"
"""


def test_profile_reading_a_hidden_field_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "peeker.toml"
    path.write_text(HIDDEN)
    with pytest.raises(SpecError) as error:
        load_strategy(compiled_game(5).spec, str(path))
    assert f"{path}:5" in str(error.value) and "'draw_fascist'" in str(error.value)
    result = CliRunner().invoke(main, ["odds", "-n", "5", "--strategy", str(path)])
    assert result.exit_code == 2
    assert f"{path}:5" in result.output + (result.stderr if result.stderr_bytes is not None else "")


def test_hidden_field_through_a_definition_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "counts.toml"
    path.write_text('name = "counts"\ndescription = "x"\n\n[vote]\nja = "2 if pile > 5 else 1"\n')
    with pytest.raises(SpecError, match="through definition 'pile'") as error:
        load_strategy(compiled_game(5).spec, str(path))
    assert f"{path}:5" in str(error.value)


def test_public_counts_and_own_view_are_readable(tmp_path: Path) -> None:
    path = tmp_path / "fine.toml"
    path.write_text('name = "fine"\ndescription = "x"\n\n[moves.president_discard]\n'
                    'weight = "hand + pile_size if knows_hand and role == \'liberal\' else 1"\n')
    assert load_strategy(compiled_game(5).spec, str(path)).moves


def test_shipped_profiles_are_rotation_symmetric_and_a_seat_literal_is_not(tmp_path: Path) -> None:
    game = compiled_game(5)
    for name in ("uniform", "partisan"):
        assert _rotation_blockers(game, load_strategy(game.spec, name), None) == []
    path = tmp_path / "seat0.toml"
    path.write_text('name = "seat0"\ndescription = "x"\n\n[moves.nominate]\nweight = "5 if chancellor == 0 else 1"\n')
    assert _rotation_blockers(game, load_strategy(game.spec, str(path)), None)


def test_a_limit_is_unknown_with_exit_3() -> None:
    result = CliRunner().invoke(main, ["odds", "-n", "5", "--max-states", "5000", "--json"])
    assert result.exit_code == 3
    data = json.loads(result.output)
    assert data["complete"] is False and data["limit"].startswith("state limit")


@pytest.mark.slow
def test_partisan_liberals_enact_more_liberal_policies_at_5() -> None:
    """Under `partisan` a Liberal President discards a Fascist tile and a Liberal
    Chancellor enacts a Liberal one nine times in ten (R-L2, R-L3), where `uniform` picks
    either alike: the Liberals win by policies more often than under `uniform`."""
    game = compiled_game(5)
    partisan = odds(game, load_strategy(game.spec, "partisan"), exact=False)
    uniform = odds(game, load_strategy(game.spec, "uniform"), exact=False)
    assert partisan.complete and uniform.complete
    assert not partisan.rotation_blocked
    assert abs(partisan.total - 1) <= 2 * partisan.error_bound + 1e-12
    assert partisan.outcomes[("liberal", "policies")] > uniform.outcomes[("liberal", "policies")]


@pytest.mark.slow
def test_floats_within_their_bound_of_the_fractions(uniform5: Odds) -> None:
    game = compiled_game(5)
    floats = odds(game, load_strategy(game.spec, "uniform"), exact=False)
    assert floats.complete and floats.error_bound > 0
    for outcome, exact in uniform5.outcomes.items():
        assert abs(floats.outcomes[outcome] - float(exact)) <= floats.error_bound * float(exact) + 1e-300


@pytest.mark.slow
def test_six_players_in_floats() -> None:
    game = compiled_game(6)
    result = odds(game, load_strategy(game.spec, "uniform"), exact=False)
    assert result.complete and abs(result.total - 1) <= 2 * result.error_bound
