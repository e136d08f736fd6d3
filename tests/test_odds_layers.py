"""The layered odds (verify/explicit/odds_layers.py) against the per-state pass (odds.py).

Both passes compute the same Markov chain's figures; the per-state one reads the rules
through the one-game engine and the profile through engine/strategy.py `Policy`, the
layered one through their array forms. On games that start late (custom games with tracks
already nearly full: the per-state pass takes a second or a few), the exact figures must
be equal fractions, every one of them: each outcome, each round count, each outcome given
the condition, the expected elections. At 5 players from the start the per-state pass
takes minutes: those comparisons are `slow`."""

from __future__ import annotations

import json
import random
from pathlib import Path
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from engine.game import compiled_game
from spec.strategies import load_strategy
from verify.cli import main
from verify.explicit import layers, limbs
from verify.explicit import odds_layers
from verify.explicit.odds import PER_STATE, Odds, odds
from verify.explicit.layers import _Pending
from verify.explicit.odds_layers import LAYERS, Unbatchable, fast_odds, layered_odds

LATE = "custom[start_liberal=4; start_fascist=4]"
"""A game one policy from either track's win: every phase, power and vote still happens."""

THREE_FASCIST = "phase == 'president_discard' and president_hand == 3"
"""A President draws three Fascist tiles (R-L1), at some point of the game."""


def _same(layered: Odds, per_state: Odds) -> None:
    assert layered.complete and per_state.complete, (layered.limit, per_state.limit)
    assert layered.method == LAYERS and per_state.method == PER_STATE
    assert layered.states == per_state.states and layered.layers == per_state.layers
    assert layered.outcomes == per_state.outcomes
    assert layered.by_rounds == per_state.by_rounds
    assert layered.given_outcomes == per_state.given_outcomes
    assert layered.elections == per_state.elections
    assert layered.nominations == per_state.nominations
    assert layered.total == 1


@pytest.mark.parametrize(("players", "strategy"), [(5, "uniform"), (5, "partisan"), (7, "uniform")])
def test_layered_equals_per_state_exactly(players: int, strategy: str) -> None:
    game = compiled_game(players, LATE)
    profile = load_strategy(game.spec, strategy)
    layered = layered_odds(game, profile, exact=True, given=THREE_FASCIST)
    per_state = odds(game, profile, exact=True, given=THREE_FASCIST)
    _same(layered, per_state)
    assert all(isinstance(share, Fraction) for share in layered.outcomes.values())
    assert 0 < layered.given_probability() < 1


def _rounds_from_split(result: Odds) -> Fraction:
    return sum((rounds * mass for (rounds, _), mass in result.by_rounds.items()), Fraction(0))


@pytest.mark.parametrize("strategy", ["uniform", "partisan"])
def test_without_the_split_by_rounds_the_same_odds(strategy: str) -> None:
    """Without `within` each state keeps one mass, not one per round count: the outcomes,
    the odds given the condition and the elections are the same fractions, and the
    expected rounds, the mass through nominations, equal the mean of the split by rounds,
    in both passes."""
    game = compiled_game(5, LATE)
    profile = load_strategy(game.spec, strategy)
    split = layered_odds(game, profile, exact=True, given=THREE_FASCIST)
    assert split.nominations == _rounds_from_split(split) > 1
    for unsplit in (layered_odds(game, profile, exact=True, given=THREE_FASCIST, within=False),
                    odds(game, profile, exact=True, given=THREE_FASCIST, within=False)):
        assert unsplit.complete and not unsplit.within_rounds and unsplit.by_rounds == {}
        assert unsplit.within() == []
        assert unsplit.outcomes == split.outcomes and unsplit.given_outcomes == split.given_outcomes
        assert unsplit.elections == split.elections
        assert unsplit.expected_rounds() == split.expected_rounds()
        assert unsplit.states == split.states


def test_without_the_split_fewer_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """The point of leaving the split out: at most one row per (state, held) waits, where
    with it a state is met at several round counts."""
    seen: dict[bool, int] = {}
    game = compiled_game(5, LATE)
    profile = load_strategy(game.spec, "uniform")
    merged = odds_layers._Pass._merged

    def counting(self: Any, state: Any, states: int, *rest: Any) -> Any:
        out = merged(self, state, states, *rest)
        seen[self.result.within_rounds] = seen.get(self.result.within_rounds, 0) + len(out[0])
        return out
    monkeypatch.setattr(odds_layers._Pass, "_merged", counting)
    layered_odds(game, profile, exact=False)
    layered_odds(game, profile, exact=False, within=False)
    assert seen[False] < seen[True] / 2, seen


def test_vote_odds_kept_or_not_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """The vote's odds are kept per tuple of voters' weights; past `VOTE_ODDS_KEPT` they
    are computed again, to the same fractions."""
    game = compiled_game(5, LATE)
    profile = load_strategy(game.spec, "partisan")
    kept = layered_odds(game, profile, exact=True, within=False)
    monkeypatch.setattr(odds_layers, "VOTE_ODDS_KEPT", 1)
    again = layered_odds(game, profile, exact=True, within=False)
    assert again.outcomes == kept.outcomes and again.nominations == kept.nominations


def test_floats_within_their_bound_of_the_fractions() -> None:
    game = compiled_game(6, LATE)
    profile = load_strategy(game.spec, "partisan")
    exact = layered_odds(game, profile, exact=True)
    floats = layered_odds(game, profile, exact=False)
    assert floats.complete and floats.error_bound > 0 and floats.chain > 0
    pairs: list[tuple[dict[Any, Any], dict[Any, Any]]] = [(floats.outcomes, exact.outcomes),
                                                         (floats.by_rounds, exact.by_rounds)]
    for figures, exact_figures in pairs:
        assert set(figures) == set(exact_figures)
        for key, value in exact_figures.items():
            assert abs(figures[key] - float(value)) <= floats.error_bound * float(value) + 1e-300, key
    assert abs(floats.elections - float(exact.elections)) <= floats.error_bound * float(exact.elections)


def test_per_state_floats_within_their_bound_of_the_fractions() -> None:
    """The per-state pass in floats: its figures, each a sum over many finished states,
    within the bound it states (the sums are exact and rounded once)."""
    game = compiled_game(5, LATE)
    profile = load_strategy(game.spec, "uniform")
    exact = layered_odds(game, profile, exact=True)
    floats = odds(game, profile, exact=False)
    assert floats.complete and floats.error_bound > 0
    for key, value in exact.outcomes.items():
        assert abs(floats.outcomes[key] - float(value)) <= floats.error_bound * float(value), key
    assert abs(floats.elections - float(exact.elections)) <= floats.error_bound * float(exact.elections)


def test_a_state_limit_leaves_it_incomplete() -> None:
    game = compiled_game(5)
    result = layered_odds(game, load_strategy(game.spec, "uniform"), exact=True, max_states=20_000)
    assert not result.complete and result.limit.startswith("state limit")
    assert result.method == LAYERS


def test_a_time_limit_leaves_it_incomplete() -> None:
    game = compiled_game(5)
    result = layered_odds(game, load_strategy(game.spec, "uniform"), exact=False, seconds=0.0)
    assert not result.complete and result.limit.startswith("time limit")


@pytest.mark.parametrize(("rules", "strategy"), [("standard", "uniform"), (LATE, "partisan")])
def test_rows_spilled_to_disk_give_the_same_figures(rules: str, strategy: str, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Every row waiting for its layer sent to disk (no bytes kept in memory, a record
    appended at every part): read back in the order they came, the layers merge the
    same rows, so the floats are the same numbers, each one, as kept in memory."""
    game = compiled_game(5, rules)
    profile = load_strategy(game.spec, strategy)
    kept = layered_odds(game, profile, exact=False, given=THREE_FASCIST)
    records: list[int] = []
    flush = _Pending.flush

    def counted(self: _Pending, folder: str) -> None:
        records.append(len(self.buffered))
        flush(self, folder)
        assert self.file is None or Path(self.file).parent == tmp_path
    monkeypatch.setattr(_Pending, "flush", counted)
    monkeypatch.setattr(odds_layers, "SPILL_BUFFER", 1)
    spilled = layered_odds(game, profile, exact=False, given=THREE_FASCIST, spill=str(tmp_path), in_memory=0)
    assert kept.complete and spilled.complete, spilled.limit
    assert sum(records) > spilled.layers > 1                 # written to disk, part by part
    assert not list(tmp_path.iterdir())                      # every layer's file read back and removed
    assert spilled.states == kept.states and spilled.layers == kept.layers
    for name in ("outcomes", "by_rounds", "given_outcomes", "elections", "chain"):
        assert getattr(spilled, name) == getattr(kept, name), name
    assert abs(spilled.total - 1) <= spilled.error_bound


def test_a_spilled_layer_read_a_slice_at_a_time_gives_the_same_figures(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Layers past LAYER_ROWS rows merged in slices, their rows on disk read a slice at
    a time (`_Pending.slice`): the same rows in the same order as the slices of rows
    kept in memory, so the same floats."""
    game = compiled_game(5, LATE)
    profile = load_strategy(game.spec, "partisan")
    monkeypatch.setattr(odds_layers, "LAYER_ROWS", 2000)
    kept = layered_odds(game, profile, exact=False, given=THREE_FASCIST)
    monkeypatch.setattr(odds_layers, "SPILL_BUFFER", 1)
    read: list[int] = []
    slice_of = _Pending.slice

    def counted(self: _Pending, number: int, slices: int) -> tuple[list[Any], dict[str, list[Any]]]:
        read.append(len(self.records))
        return slice_of(self, number, slices)
    monkeypatch.setattr(_Pending, "slice", counted)
    sliced = layered_odds(game, profile, exact=False, given=THREE_FASCIST, spill=str(tmp_path), in_memory=0)
    assert sum(read) > 0 and not list(tmp_path.iterdir())          # records read back a slice at a time
    _same_figures(sliced, kept)
    assert sliced.chain == kept.chain


def test_a_layer_merged_in_slices_gives_the_same_fractions(monkeypatch: pytest.MonkeyPatch) -> None:
    """A layer of more than LAYER_ROWS rows is merged and expanded in slices by its
    states' keys: a state's rows all in one slice, so the fractions are the same."""
    game = compiled_game(5, LATE)
    profile = load_strategy(game.spec, "partisan")
    whole = layered_odds(game, profile, exact=True, given=THREE_FASCIST)
    sliced: list[int] = []
    merge = odds_layers._Pass._merge_and_expand

    def counted(self: Any, *args: Any) -> None:
        sliced.append(1)
        merge(self, *args)
    monkeypatch.setattr(odds_layers._Pass, "_merge_and_expand", counted)
    monkeypatch.setattr(odds_layers, "LAYER_ROWS", 2000)
    parts = layered_odds(game, profile, exact=True, given=THREE_FASCIST)
    assert len(sliced) > parts.layers                  # some layers were taken in several slices
    _same_figures(parts, whole)


def _same_figures(one: Odds, other: Odds) -> None:
    assert one.complete and other.complete, (one.limit, other.limit)
    assert one.states == other.states and one.layers == other.layers
    for name in ("outcomes", "by_rounds", "given_outcomes", "elections"):
        assert getattr(one, name) == getattr(other, name), name


def test_exact_rows_stay_in_memory_with_a_folder(tmp_path: Path) -> None:
    """Limbs of a part's own denominator are not spilled: exact odds keep their rows in
    memory, and are the same fractions with a folder given."""
    game = compiled_game(5, LATE)
    profile = load_strategy(game.spec, "uniform")
    spilled = layered_odds(game, profile, exact=True, spill=str(tmp_path), in_memory=0)
    assert spilled.complete and spilled.total == 1
    assert spilled.outcomes == layered_odds(game, profile, exact=True).outcomes


def test_a_pass_that_cannot_end_in_time_stops_at_its_pace(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pace of layers.py's sweep: judged at once and with no margin, a pass stops
    after its first layer, its odds unknown (exit 3), not figures of part of the graph."""
    monkeypatch.setattr(layers, "PACE_AFTER", 0.0)
    monkeypatch.setattr(layers, "PACE_MARGIN", 0.0)
    game = compiled_game(5)
    result = layered_odds(game, load_strategy(game.spec, "uniform"), exact=False, seconds=600)
    assert not result.complete and result.layers == 1 and "at its pace so far" in result.limit
    assert not result.outcomes
    cli = CliRunner().invoke(main, ["odds", "-n", "5", "--float", "--json"])
    assert cli.exit_code == 3
    data = json.loads(cli.output)
    assert data["complete"] is False and "pace" in data["limit"] and "outcomes" not in data


def test_what_the_arrays_cannot_do_falls_back_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> Odds:
        raise Unbatchable("a feature the arrays lack")
    monkeypatch.setattr(odds_layers, "layered_odds", refuse)
    game = compiled_game(5, LATE)
    result = fast_odds(game, load_strategy(game.spec, "uniform"), exact=True)
    assert result.complete and result.method == PER_STATE and result.fallback == "a feature the arrays lack"
    assert result.total == 1


def test_cli_says_which_pass_ran() -> None:
    result = CliRunner().invoke(main, ["odds", "-n", "5", "--rules", LATE, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["method"] == LAYERS and "fallback" not in data and data["total_is_one"] is True
    text = CliRunner().invoke(main, ["odds", "-n", "5", "--rules", LATE])
    assert "layers pass" in text.output


def test_cli_within_on_request() -> None:
    """The odds by round are there with --within, and left out by default (the JSON's
    `within_rounds` null, the text saying how to ask), the expected rounds the same
    either way."""
    split = json.loads(CliRunner().invoke(main, ["odds", "-n", "5", "--rules", LATE, "--within", "--json"]).output)
    assert split["within_rounds"] and split["within_rounds"][-1]["liberal"] > 0
    result = CliRunner().invoke(main, ["odds", "-n", "5", "--rules", LATE, "--json"])
    assert result.exit_code == 0, result.output
    unsplit = json.loads(result.output)
    assert unsplit["within_rounds"] is None
    assert unsplit["expected_rounds"] == split["expected_rounds"] and unsplit["sides"] == split["sides"]
    text = CliRunner().invoke(main, ["odds", "-n", "5", "--rules", LATE]).output
    assert "not computed (--within)" in text


def test_cli_tells_a_log_how_far_it_swept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a terminal there is no bar: a line on stderr now and then (every layer
    here), the share of the ranking swept rising to 100%; stdout holds only the odds."""
    from verify.cli import odds as odds_command
    monkeypatch.setattr(odds_command, "LOG_EVERY", 0.0)
    result = CliRunner().invoke(main, ["odds", "-n", "5", "--rules", LATE, "--no-within", "--json"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if "of the ranking swept" in line]
    assert lines and lines[-1].startswith("… 5 players: 100% of the ranking swept, 14,740 states")
    assert json.loads(result.stdout)["complete"] is True


def test_cli_limit_exits_3() -> None:
    result = CliRunner().invoke(main, ["odds", "-n", "5", "--max-states", "5000", "--json"])
    assert result.exit_code == 3
    data = json.loads(result.output)
    assert data["complete"] is False and data["method"] == LAYERS and data["limit"].startswith("state limit")


def test_limbs_against_python_integers() -> None:
    rng = random.Random(7)
    values = [rng.getrandbits(rng.randint(1, 400)) for _ in range(300)]
    factors = [rng.getrandbits(rng.randint(1, 80)) for _ in range(300)]

    def of(numbers: list[int]) -> limbs.Limbs:
        columns = [limbs.digits(number) for number in numbers]
        rows = max(len(column) for column in columns)
        return np.array([[column[row] if row < len(column) else 0 for column in columns] for row in range(rows)],
                        dtype=np.int64)

    def back(x: limbs.Limbs) -> list[int]:
        return [sum(int(x[row, column]) << (limbs.BITS * row) for row in range(len(x))) for column in range(x.shape[1])]

    x = of(values)
    assert back(limbs.times(x, of(factors))) == [a * b for a, b in zip(values, factors)]
    assert back(limbs.scaled(x, 3 ** 70)) == [a * 3 ** 70 for a in values]
    group = np.array([rng.randrange(40) for _ in values], dtype=np.int64)
    expected = [0] * 40
    for value, number in zip(values, group.tolist()):
        expected[number] += value
    assert back(limbs.sums(group, 40, x)) == expected
    quotient, exact = limbs.divided(limbs.scaled(x, 11), 11)
    assert exact and back(quotient) == values
    assert limbs.divided(of([22, 23]), 11)[1] is False
    assert limbs.total(x) == sum(values)
    denominator = 2 ** 50 * 3 ** 9 * 7
    reduced, smaller = limbs.reduced(limbs.scaled(x, 2 ** 30 * 3 ** 4), denominator, [2, 3, 7])
    assert smaller < denominator
    assert [Fraction(a, smaller) for a in back(reduced)] == [Fraction(a * 2 ** 30 * 3 ** 4, denominator)
                                                             for a in values]


@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["uniform", "partisan"])
def test_layered_equals_per_state_at_5_players(strategy: str) -> None:
    """The whole 5-player game (1.24 M states under `uniform`): minutes in the per-state pass."""
    game = compiled_game(5)
    profile = load_strategy(game.spec, strategy)
    _same(layered_odds(game, profile, exact=True, given=THREE_FASCIST),
          odds(game, profile, exact=True, given=THREE_FASCIST))


@pytest.mark.slow
def test_layered_equals_per_state_at_10_players_late() -> None:
    """Ten seats under `partisan` one policy from either win (1.87 M states): the deal's
    10 × 1,024 candidates, votes of ten voters with odds of their own, the veto that five
    Fascist policies unlock; about three minutes in the per-state pass."""
    game = compiled_game(10, "custom[start_liberal=4; start_fascist=5]")
    profile = load_strategy(game.spec, "partisan")
    _same(layered_odds(game, profile, exact=True, given=THREE_FASCIST),
          odds(game, profile, exact=True, given=THREE_FASCIST))


@pytest.mark.parametrize("compute", [layered_odds, odds])
def test_a_pass_past_its_memory_bound_stops_unknown(compute: Any) -> None:
    """A computation that outgrows its memory bound stops with its odds unknown and says
    so, in both passes, instead of growing until the system ends it with nothing said."""
    game = compiled_game(5)
    result: Odds = compute(game, load_strategy(game.spec, "uniform"), exact=False, memory_mib=1)
    assert not result.complete and result.limit.startswith("memory limit: 1 MiB resident reached"), result.limit
    assert not result.sides()


def test_the_command_s_memory_limit_is_a_limit_exit_3() -> None:
    result = CliRunner().invoke(main, ["odds", "-n", "5", "--float", "--memory-limit", "64", "--json"])
    assert result.exit_code == 3, result.output
