"""Batched random play (engine/batched.py) against the one-game engine: every move it
makes is legal, each move is drawn with the engine's exact probabilities, and whole
games end as often in each way as the engine's."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from random import Random
from typing import Any

import numpy as np
import pytest

from engine.batched import BatchedGame, batched_game
from engine.game import Game, Move, PhaseKind, compiled_game

VARIANTS = ["standard", "no_topdecking", "veto_chaos_first", "special_election_restarts", "rebalance"]


def states_of_random_games(game: Game, games: int, seed: int) -> list[Any]:
    """Every state the one-game engine passes through in a few random games."""
    rng = Random(seed)
    out = []
    for _ in range(games):
        state: Any = game.initial_state()
        while state is not None:
            out.append(state)
            state = game.random_step(state, rng)
    return out


def exact_successors(game: Game, state: Any) -> dict[Any, Fraction]:
    """The one-game engine's distribution of the next state: the forced move; chance by
    its weights; otherwise uniform over the legal (rule, parameters) pairs."""
    phase = state[game.phase_index]
    kind = game.phase_kind[phase]
    if kind is PhaseKind.FORCED:
        move = game.forced_move(state)
        assert move is not None
        return {game.apply(state, move): Fraction(1)}
    outcomes = game.chance_outcomes(state)
    out: dict[Any, Fraction] = {}
    if outcomes and (kind is PhaseKind.CHANCE or game.mixed_phase[phase]):
        for move, chance in outcomes:
            after = game.by_name[move.rule].effect(state, *move.args)
            out[after] = out.get(after, Fraction(0)) + chance
        return out
    legal = [(compiled, args) for compiled in game.by_phase[phase]
             for args in game._arg_tuples(compiled, state) if compiled.guard(state, *args)]
    for compiled, args in legal:
        after = compiled.effect(state, *args)
        out[after] = out.get(after, Fraction(0)) + Fraction(1, len(legal))
    return out


def batched_step(batched: BatchedGame, states: list[Any], seed: int) -> list[tuple[int, ...]]:
    """One batched move from each of the states, in the order of `states`."""
    array = np.array(states, dtype=np.int64).T.copy()
    moved, order = batched.step(array, np.random.default_rng(seed), Random(seed))
    assert sorted(order.tolist()) == list(range(len(states)))
    after: list[tuple[int, ...]] = [()] * len(states)
    for column, source in zip(moved.T.tolist(), order.tolist()):
        after[source] = tuple(column)
    return after


@pytest.mark.parametrize("players", [5, 7, 10])
@pytest.mark.parametrize("rules", VARIANTS)
def test_every_batched_move_is_a_legal_move_of_the_engine(players: int, rules: str) -> None:
    game = compiled_game(players, rules)
    batched = BatchedGame(game)
    states = [s for s in states_of_random_games(game, 4, seed=players) if not game.is_over(s)]
    after = batched_step(batched, states * 2, seed=1)
    for before, moved in zip(states * 2, after):
        support = exact_successors(game, before)
        assert game.make_state(moved) in support, (game.phase(before), game.describe(before))


def _first_state_of_each_kind(game: Game) -> list[Any]:
    """From a few random games, one state per phase (and per power in the power phase)."""
    seen: dict[tuple[int, ...], Any] = {}
    power = game.field_names.index("power")
    for state in states_of_random_games(game, 20, seed=3):
        if not game.is_over(state):
            seen.setdefault((state[game.phase_index], state[power]), state)
    return list(seen.values())


def chi_square(observed: Counter[Any], expected: dict[Any, Fraction], draws: int) -> tuple[float, int]:
    """Pearson's statistic and its degrees of freedom, outcomes expected fewer than 5
    times pooled into one; an outcome the engine never makes counts as infinitely far."""
    if any(outcome not in expected for outcome in observed):
        return math.inf, 1
    small = [outcome for outcome, p in expected.items() if p * draws < 5]
    cells = [([outcome], float(p) * draws) for outcome, p in expected.items() if p * draws >= 5]
    if small:
        cells.append((small, float(sum(expected[o] for o in small)) * draws))
    stat = sum((sum(observed[o] for o in outcomes) - mean) ** 2 / mean for outcomes, mean in cells)
    return stat, max(len(cells) - 1, 1)


def far_past_chance(freedom: int) -> float:
    """The chi-square value a fair draw exceeds with probability about 3e-7 (five
    standard normal deviations, by the Wilson-Hilferty cube-root approximation): seeds
    are fixed, so a fair draw either passes always or fails always."""
    k = float(freedom)
    return k * (1 - 2 / (9 * k) + 5 * math.sqrt(2 / (9 * k))) ** 3


@pytest.mark.parametrize("players", [5, 8, 10])
def test_each_batched_move_has_the_engines_probabilities(players: int) -> None:
    game = compiled_game(players)
    batched = BatchedGame(game)
    draws = 20_000
    for number, state in enumerate(_first_state_of_each_kind(game)):
        expected = exact_successors(game, state)
        if len(expected) == 1:
            continue
        observed = Counter(game.make_state(moved) for moved in batched_step(batched, [state] * draws, seed=number))
        stat, freedom = chi_square(observed, expected, draws)
        assert stat <= far_past_chance(freedom), (game.phase(state), stat, freedom)


def test_a_wrong_probability_is_caught_by_that_measure() -> None:
    """The measure above tells a biased draw from a fair one: the same draws judged
    against the engine's weights with the likeliest outcome's raised by a fifth fail."""
    game = compiled_game(5)
    batched = BatchedGame(game)
    draw = next(s for s in _first_state_of_each_kind(game) if game.phase(s) == "draw")
    expected = exact_successors(game, draw)
    observed = Counter(game.make_state(moved) for moved in batched_step(batched, [draw] * 20_000, seed=0))
    stat, freedom = chi_square(observed, expected, 20_000)
    assert stat <= far_past_chance(freedom)
    top = max(expected, key=lambda outcome: expected[outcome])
    skewed = {o: p * Fraction(6, 5) if o == top else p for o, p in expected.items()}
    total = sum(skewed.values())
    stat, freedom = chi_square(observed, {o: p / total for o, p in skewed.items()}, 20_000)
    assert stat > far_past_chance(freedom)


def test_whole_games_end_as_the_engines_do() -> None:
    """4,000 batched games and 4,000 one-game games at 5 players: each way of winning
    and the mean game length agree within five standard errors."""
    game = compiled_game(5)
    games = 4000
    figure = batched_game(5).play(games=games, seed=7, batch=1024)
    assert figure.games == games and figure.deadlocks == figure.unfinished == 0
    rng = Random(7)
    ends: Counter[tuple[str | None, str | None]] = Counter()
    lengths = []
    for _ in range(games):
        state: Any = game.initial_state()
        moves = 0
        while not game.is_over(state):
            state = game.random_step(state, rng)
            moves += 1
        ends[(game.winner(state), game.how(state))] += 1
        lengths.append(moves)
    for outcome in set(ends) | set(figure.outcomes):
        p, q = ends[outcome] / games, figure.outcomes[outcome] / games
        error = math.sqrt((p * (1 - p) + q * (1 - q)) / games) or 1 / games
        assert abs(p - q) <= 5 * error, (outcome, p, q)
    mean = sum(lengths) / games
    spread = math.sqrt(sum((x - mean) ** 2 for x in lengths) / games)
    assert abs(figure.moves_per_game - mean) <= 5 * spread * math.sqrt(2 / games)


def test_the_same_seed_plays_the_same_games() -> None:
    first, second = (batched_game(6).play(games=200, seed=5, batch=100) for _ in range(2))
    assert first.outcomes == second.outcomes and first.moves == second.moves
    assert batched_game(6).play(games=200, seed=6, batch=100).moves != first.moves
    again = batched_game(6)
    again.play(games=100, seed=9, batch=50)
    assert again.play(games=200, seed=5, batch=100).moves == first.moves      # nothing carried over


def test_final_states_are_games_that_are_over() -> None:
    game = compiled_game(7)
    finals: list[tuple[int, ...]] = []
    figure = batched_game(7).play(games=50, seed=1, batch=16, finals=finals)
    assert len(finals) == figure.games == 50
    assert all(game.is_over(game.make_state(state)) and game.winner(game.make_state(state)) for state in finals)
    assert sum(figure.outcomes.values()) == 50


def test_a_deadlock_is_counted_not_played_on() -> None:
    """Under strict term limits a 5-player game can leave no one to nominate; the
    one-game engine names that state, and batched play counts those games apart."""
    figure = BatchedGame(compiled_game(5, "strict_term_limits")).play(games=400, seed=2, batch=128)
    assert figure.deadlocks > 0 and figure.unfinished == 0
    assert figure.games + figure.deadlocks == 400


def test_a_game_past_the_move_limit_is_cut_and_counted() -> None:
    figure = batched_game(5).play(games=50, seed=0, batch=50, max_moves=20)
    assert figure.unfinished == 50 and figure.games == 0


def test_time_limited_play_counts_only_games_played_out() -> None:
    figure = batched_game(5).play(seconds=0.5, seed=0, batch=256)
    assert figure.games > 0 and figure.seconds >= 0.5
    assert 40 < figure.moves_per_game < 200


def test_bench_prints_one_game_at_a_time_and_batched_side_by_side() -> None:
    import json

    from click.testing import CliRunner

    from verify.cli import main

    result = CliRunner().invoke(main, ["bench", "-n", "5", "--seconds", "0.3", "--json"])
    assert result.exit_code == 0, result.output
    [row] = json.loads(result.stdout)
    assert row["players"] == 5 and row["games_per_second"] > 0 and row["batched_games_per_second"] > 0
    assert 40 < row["batched_moves_per_game"] < 200
    result = CliRunner().invoke(main, ["bench", "-n", "5", "--seconds", "0.3"])
    assert "one game at a time" in result.stdout and "batched" in result.stdout


def test_play_many_games_prints_how_often_each_side_wins() -> None:
    import json

    from click.testing import CliRunner

    from verify.cli import main

    result = CliRunner().invoke(main, ["play", "-n", "7", "--games", "3000", "--seed", "4", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["games"] == 3000 and figures["deadlocks"] == figures["unfinished"] == 0
    assert sum(row["games"] for row in figures["outcomes"]) == 3000
    assert abs(sum(figures["sides"].values()) - 1) < 1e-9 and figures["sides"]["fascist"] > 0.5
    assert all(0 < row["interval"] < 0.05 for row in figures["outcomes"])
    text = CliRunner().invoke(main, ["play", "-n", "7", "--games", "3000", "--seed", "4"]).stdout
    assert text.startswith("3,000 random games of 7 players under the standard rules, seed 4")
    assert "liberal win" in text and "% ±" in text and "moves per game" in text
    german = CliRunner().invoke(main, ["play", "-n", "7", "--games", "300", "--lang", "de"]).stdout
    assert "zufällige Spiele" in german and "die Faschisten gewinnen" in german


def test_play_many_games_exits_1_when_some_game_deadlocks() -> None:
    from click.testing import CliRunner

    from verify.cli import main

    result = CliRunner().invoke(main, ["play", "-n", "5", "--games", "400", "--rules", "strict_term_limits"])
    assert result.exit_code == 1 and "reached a state with no legal move (a deadlock)" in result.stdout
    for args, words in ((["--games", "5", "--trace", "t.json"], "not with --games"), (["--json"], "--json goes with")):
        refused = CliRunner().invoke(main, ["play", *args])
        assert refused.exit_code == 2 and words in refused.stderr


def test_a_bound_of_the_language_is_reported_as_the_one_game_engine_reports_it(tmp_path: Any) -> None:
    """A weight past `choose`'s bound: the arrays hand the games over, and the one-game
    engine names the file, line and rule, exit status 2, as for a single game."""
    from click.testing import CliRunner

    from verify.cli import main

    rules = tmp_path / "huge_weight.toml"
    rules.write_text('extends = "standard"\nname = "huge_weight"\n\n[[rule]]\nname = "draw_hand"\n'
                     'weight = "choose(draw_fascist * 200, new_fascist) * choose(draw_liberal, new_liberal)"\n',
                     encoding="utf-8")
    for extra in ((), ("--games", "40")):
        result = CliRunner().invoke(main, ["play", "--rules", str(rules), "-n", "5", "-q", *extra])
        assert result.exit_code == 2, result.output
        assert result.stderr.count("\n") == 1 and f"{rules}:5 rule 'draw_hand': choose() with n = 2200" in result.stderr


def test_the_fast_random_step_calls_a_draw_with_no_outcome_a_deadlock() -> None:
    """A rule set that reshuffles only when the pile is empty can reach a draw with no
    possible hand. The one-game engine's fast step (which batched play, the playouts and
    the benchmark use) says so as the deadlock it is (AssertionError, which they catch),
    not with an IndexError that would crash them; batched play counts those games."""
    game = compiled_game(8, "mistakes/reshuffle_when_empty")
    phases: Counter[str] = Counter()
    for seed in range(12):
        rng = Random(seed)
        state: Any = game.initial_state()
        try:
            while state is not None:
                state = game.random_step(state, rng)
        except AssertionError:
            phases[game.phase(state)] += 1
    assert phases["draw"] > 0
    assert BatchedGame(game).play(games=200, seed=1, batch=64).deadlocks > 0
