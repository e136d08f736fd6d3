"""The layered search (verify/explicit/layers.py): the rules over arrays, a layer at a
time, must walk exactly the graph the one-state-at-a-time explorer walks.

Three kinds of evidence: whole graphs equal the breadth-first search's (states,
transitions, states per depth, distinct projections) in games small enough for the
suite, and at 5 players equal SPIN's abstract count; the successors of states sampled
from random games equal `Model.steps` move by move in every shipped rule set, mistakes
included; and what stops a search (a limit, a value out of range, a ranking that does
not decrease, a deadlock) is reported, never a complete graph.
"""

from __future__ import annotations

import json
import pickle
from collections import Counter
from pathlib import Path
from random import Random
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.game import compiled_game
from spec.loader import load_spec
from verify.explicit import keys as keys_module
from verify.explicit.abstraction import PROJECTION_FIELDS, SPIN_STATES, count_projection
from verify.explicit.explore import Limits, explore
from verify.explicit.graphs import analyse
from verify.explicit.keys import distinct, distinct_groups, pack, pack_rows, unpack_rows
from verify.explicit.layers import Layered, LayeredSearch, layered
from verify.explicit.model import Model
from verify.explicit.reductions import Reductions
from verify.explicit.sweep import NOT_DECREASING
from verify.results import StopReason, halted_by

ROOT = Path(__file__).resolve().parents[1]
SMALL = "custom[start_liberal=4; start_fascist=5]"
MEDIUM = "custom[start_liberal=3; start_fascist=4]"
BOARD = "custom[start_liberal=3; start_fascist=2; powers=investigate,special_election,peek,execution,execution]"
SHIPPED = sorted([path.stem for path in (ROOT / "spec" / "variants").glob("*.toml")] +
                 [f"mistakes/{path.stem}" for path in (ROOT / "spec" / "variants" / "mistakes").glob("*.toml")])


def bfs_per_depth(exploration: Any) -> dict[int, int]:
    starts = [*exploration.layers, exploration.states]
    return {depth: stop - start for depth, (start, stop) in enumerate(zip(starts, starts[1:])) if stop > start}


def compare_with_bfs(rules: str, players: int, keep: frozenset[str] = frozenset(),
                     reductions: Reductions = Reductions()) -> Layered:
    model = Model(compiled_game(players, rules), reductions=reductions, keep=keep)
    bfs = explore(model, (), Limits(time_limit=600), deadlocks=False, stop_when_decided=False)
    found = layered(model, Limits(time_limit=600), project=bool(keep))
    assert bfs.complete and found.complete, (bfs.limit, found.limit)
    assert (found.states, found.transitions, found.depth) == (bfs.states, bfs.transitions, bfs.depth)
    assert found.per_depth == bfs_per_depth(bfs)
    if keep:
        assert found.projected == count_projection(bfs)
    return found


# ---------------------------------------------------------------- whole graphs


@pytest.mark.parametrize("rules,players", [(SMALL, 5), (SMALL, 8), (MEDIUM, 5), (BOARD, 5), (SMALL, 10)])
def test_the_layered_search_walks_the_breadth_first_search_graph(rules: str, players: int) -> None:
    found = compare_with_bfs(rules, players)
    assert found.layers > 3 and found.deadlocks == 0


def test_without_reductions_the_graphs_are_still_equal() -> None:
    compare_with_bfs(SMALL, 5, reductions=Reductions(symmetry=False, representatives=False, cone=False, fuse=False))
    compare_with_bfs(SMALL, 6, reductions=Reductions(symmetry=True, representatives=False, cone=True, fuse=True))


def test_the_projection_onto_spins_abstraction_is_the_explorers() -> None:
    compare_with_bfs(MEDIUM, 5, keep=frozenset(PROJECTION_FIELDS))


def test_five_players_project_onto_exactly_spins_abstract_states() -> None:
    """The whole 5-player graph in a few seconds: its projection is SPIN's own count
    (shared/bench/spin/README.md), a model written apart from ours."""
    model = Model(compiled_game(5, "standard"), keep=frozenset(PROJECTION_FIELDS))
    found = layered(model, Limits(time_limit=600), project=True)
    assert found.complete and found.deadlocks == 0
    assert found.projected == SPIN_STATES[5]
    assert found.largest_layer < found.states / 4       # the sweep holds a few layers, not the graph


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["standard", *(rules for rules in SHIPPED if 5 in load_spec(rules).player_counts)])
def test_five_player_graphs_equal_the_breadth_first_search(rules: str) -> None:
    """Every shipped rule set and mistake that has 5 players: the whole graph equals the
    breadth-first search's, or both stop at the same finding (a value out of range, a
    ranking the rules break)."""
    model = Model(compiled_game(5, rules), keep=frozenset(PROJECTION_FIELDS) if rules == "standard" else frozenset())
    bfs = explore(model, (), Limits(time_limit=900), deadlocks=False, stop_when_decided=False)
    found = layered(model, Limits(time_limit=900), project=rules == "standard")
    if not bfs.complete:
        assert bfs.limit.startswith("state out of range") and found.limit.startswith("state out of range"), \
            (bfs.limit, found.limit)
        return
    if not found.complete:
        assert found.limit.startswith(NOT_DECREASING), found.limit   # the breadth-first search needs no ranking
        return
    assert (found.states, found.transitions, found.depth) == (bfs.states, bfs.transitions, bfs.depth)
    assert found.per_depth == bfs_per_depth(bfs)
    if rules == "standard":
        assert found.projected == count_projection(bfs) == SPIN_STATES[5]


@pytest.mark.slow
def test_six_players_project_onto_exactly_spins_abstract_states() -> None:
    model = Model(compiled_game(6, "standard"), keep=frozenset(PROJECTION_FIELDS))
    found = layered(model, Limits(time_limit=900), project=True)
    assert found.complete and found.projected == SPIN_STATES[6]


@pytest.mark.parametrize("rules,players", [(SMALL, 5), (MEDIUM, 5), (BOARD, 5)])
def test_graph_facts_equal_those_of_the_recorded_graph(rules: str, players: int) -> None:
    """The longest game and the fewest elections to each outcome, computed layer by layer,
    equal a dynamic programme over the breadth-first search's recorded graph."""
    game = compiled_game(players, rules)
    model = Model(game, keep=frozenset({"winner", "how"}))
    bfs = explore(model, (), Limits(time_limit=600), stop_when_decided=False, record_edges=True)
    assert bfs.complete and bfs.graph is not None
    facts = analyse(bfs.graph)
    found = layered(model, facts=True)
    assert (found.longest_moves, found.longest_elections) == (facts.longest_moves, facts.longest_elections)
    assert found.deadlocks == facts.deadlocks == 0
    graph, fewest = bfs.graph, [-1] * bfs.states
    fewest[0] = 0
    changed = True          # breadth-first ids are not in topological order: relax to a fixpoint
    while changed:
        changed = False
        for node in range(bfs.states):
            if fewest[node] < 0:
                continue
            for edge in range(graph.offsets[node], graph.offsets[node + 1]):
                target, value = graph.targets[edge], fewest[node] + graph.elections[edge]
                if fewest[target] < 0 or value < fewest[target]:
                    fewest[target] = value
                    changed = True
    winner, how = game.field_names.index("winner"), game.field_names.index("how")
    expected: dict[tuple[int, int], int] = {}
    for node in range(bfs.states):
        if graph.over[node]:
            state = model.codec.decode(bfs.keys[node])
            outcome = (state[winner], state[how])
            expected[outcome] = min(expected.get(outcome, fewest[node]), fewest[node])
    assert found.fewest_elections == expected and len(expected) >= 3


# ---------------------------------------------------------------- step by step, every rule set


def sampled_states(model: Model, games: int, seed: int) -> list[Any]:
    """Stored states along random games of the model (every phase a game passes)."""
    rng = Random(seed)
    found: list[Any] = []
    for _ in range(games):
        state = model.initial()
        for _ in range(400):
            found.append(state)
            steps = list(model.steps(state))
            if not steps:
                break
            state = model.codec.canonical(rng.choice(steps).final)
    return found


def steps_of_model(model: Model, state: Any) -> Counter[tuple[int, tuple[int, ...]]]:
    return Counter((model.encode_move(step.rule, step.args), tuple(model.codec.canonical(step.final)))
                   for step in model.steps(state))


def steps_of_layers(search: LayeredSearch, states: list[Any]) -> list[Counter[tuple[int, tuple[int, ...]]]]:
    matrix = np.array(states, dtype=np.int64).T
    after, origin, move, _, _ = search.successors(matrix)
    search.canonical(after)
    out: list[Counter[tuple[int, tuple[int, ...]]]] = [Counter() for _ in states]
    for column, (source, code) in enumerate(zip(origin.tolist(), move.tolist())):
        out[source][(code, tuple(after[:, column].tolist()))] += 1
    return out


def counts_of(rules: str) -> list[int]:
    """5 and 8 players where the rules are for them, else their own lowest and highest."""
    counts = load_spec(rules).player_counts
    wanted = [players for players in (5, 8) if players in counts]
    return wanted or sorted({counts.start, counts.stop - 1})


@pytest.mark.parametrize("rules,players", [(rules, players) for rules in SHIPPED for players in counts_of(rules)])
def test_every_rule_set_steps_as_the_model_steps(rules: str, players: int) -> None:
    game = compiled_game(players, rules)
    for keep in (frozenset(), frozenset(PROJECTION_FIELDS) & frozenset(game.field_names)):
        model = Model(game, keep=keep)
        states = sampled_states(model, 3, seed=players)
        search = LayeredSearch(model)
        assert steps_of_layers(search, states) == [steps_of_model(model, state) for state in states]


# ---------------------------------------------------------------- what stops a search


@pytest.mark.parametrize("limits,reason,stop", [
    (Limits(time_limit=0.0), "limit: time", StopReason.TIME), (Limits(max_states=50), "limit: 50 states", StopReason.STATES),
    (Limits(memory_limit=1), "limit: memory 1 MiB", StopReason.MEMORY)])
def test_a_limit_leaves_the_search_incomplete_with_its_reason(limits: Limits, reason: str, stop: StopReason) -> None:
    found = layered(Model(compiled_game(5, MEDIUM), keep=frozenset(PROJECTION_FIELDS)), limits, project=True)
    assert not found.complete and found.limit.startswith(reason) and found.projected is None
    assert halted_by(found.limit) is stop
    again = pickle.loads(pickle.dumps(found.limit))     # the reason crosses to another process with its words
    assert again == found.limit and halted_by(again) is stop


def test_a_ranking_that_does_not_decrease_stops_the_search() -> None:
    search = LayeredSearch(Model(compiled_game(5, SMALL)))
    search.rank = lambda rows: np.full(rows.width, 7)
    found = search.run()
    assert not found.complete and found.limit.startswith(NOT_DECREASING) and found.states == 1
    assert halted_by(found.limit) is StopReason.NO_RANKING


def test_a_value_outside_its_declared_range_stops_the_search() -> None:
    search = LayeredSearch(Model(compiled_game(5, SMALL)))
    tracker = [item for item in search.checked if item[3] == "election_tracker"]
    assert tracker, "the Election Tracker is a checked int"
    search.checked = [(index, low, 0, name) if name == "election_tracker" else (index, low, high, name)
                      for index, low, high, name in search.checked]
    found = search.run()
    assert not found.complete and "field 'election_tracker' = 1 is outside its declared range 0..0" in found.limit
    assert halted_by(found.limit) is StopReason.OUT_OF_RANGE


def test_deadlocks_are_counted(tmp_path: Path) -> None:
    rules = tmp_path / "stuck.toml"
    rules.write_text('extends = "standard"\nname = "stuck"\nremove_rules = ["nominate"]\n', encoding="utf-8")
    found = layered(Model(compiled_game(5, str(rules))))
    assert found.complete and found.deadlocks > 0 and found.depth == 2


def test_paths_keep_a_key_parent_and_move_per_state() -> None:
    model = Model(compiled_game(5, SMALL))
    found = layered(model, paths=True)
    assert sum(keys.shape[1] for keys in found.keys) == found.states
    parents = np.concatenate(found.parent)
    assert parents[0] == -1 and (parents[1:] >= 0).all() and (parents[1:] < np.arange(1, found.states)).all()


# ---------------------------------------------------------------- keys


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 7), st.integers(0, 3), st.integers(0, 4)), min_size=1, max_size=80),
       st.integers(1, 3), st.booleans())
def test_distinct_keeps_one_column_per_key_the_one_of_lowest_priority(
        rows: list[tuple[int, int, int]], words: int, weak_hash: bool) -> None:
    matrix = np.array([[row[0], row[1], row[0] ^ row[1]][:words] for row in rows], dtype=np.uint64).T
    priority = np.array([row[2] for row in rows], dtype=np.int64)
    expected: dict[tuple[int, ...], int] = {}
    for column in range(len(rows)):
        key = tuple(matrix[:, column].tolist())
        if key not in expected or priority[column] < priority[expected[key]]:
            expected[key] = column
    original = keys_module._mixed
    if weak_hash:       # every key under a handful of hashes: the exact fallback must sort it out
        keys_module._mixed = lambda words: (words[0] % np.uint64(2)) << np.uint64(62)
    try:
        assert distinct(matrix, priority).tolist() == sorted(expected.values())
        # Each column's group is the position of its key's kept column (with or without collisions).
        chosen, group = distinct_groups(matrix, priority)
        assert (matrix[:, chosen[group]] == matrix).all()
    finally:
        keys_module._mixed = original


def test_pack_puts_each_value_in_its_own_bits_and_starts_a_word_when_full() -> None:
    values = [(np.array([5, 0]), 3), (np.array([1, 1]), 1), (np.array([(1 << 62) - 1, 0]), 62)]
    words = pack(values)
    assert words.shape == (2, 2)
    assert words[:, 0].tolist() == [5 | 1 << 3, (1 << 62) - 1] and words[:, 1].tolist() == [1 << 3, 0]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(0, 62)), min_size=1, max_size=8), st.integers(0, 5),
       st.randoms(use_true_random=False))
def test_pack_rows_equals_pack_and_unpack_rows_inverts_it(
        fields: list[tuple[int, int]], width: int, rng: Any) -> None:
    # Each field a row of values from its lowest value up to its width's top (a zero width holds `low`).
    rows = [np.array([low + (rng.getrandbits(bits) if bits else 0) for _ in range(width)], dtype=np.int64)
            for low, bits in fields]
    states = np.array(rows, dtype=np.int64).reshape(len(fields), width)
    stored = [(row, low, bits) for row, (low, bits) in enumerate(fields)]
    words = pack_rows(states, stored)
    assert (words == pack([(states[row] - low, bits) for row, low, bits in stored])).all()
    back = np.full_like(states, 99)
    unpack_rows(words, stored, back)
    assert (back == states).all()


# ---------------------------------------------------------------- shrules explore


def explore_cli(*args: str) -> Any:
    from click.testing import CliRunner

    from verify.cli import main

    return CliRunner().invoke(main, ["explore", *args])


def test_explore_prints_each_count_with_its_facts() -> None:
    result = explore_cli("-n", "5,7", "--rules", "custom", "--set", "start_liberal=4", "--set", "start_fascist=5")
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "5 players, custom[" in text and "7 players, custom[" in text and text.count(": complete") == 2
    assert "every game ends: no deadlock" in text and "longest game:" in text
    # One policy from either win: chaos (three failed votes, R-E9) enacts it with no government at all.
    assert "fewest elected governments to each outcome: liberal by policies 0; fascist by policies 0; " \
        "fascist by hitler_chancellor 1" in text
    result = explore_cli("-n", "5", "--rules", SMALL, "--json")
    figures = json.loads(result.stdout)
    assert figures["complete"] and figures["every_game_ends"] and figures["deadlocks"] == 0
    assert figures["fewest_elections"]["liberal by policies"] == 0
    assert figures["fewest_elections"]["fascist by hitler_chancellor"] == 1
    assert figures["longest_game_moves"] > figures["longest_game_elections"] > 0
    assert sum(figures["finished_states"].values()) > 0 and figures["states"] > figures["most_pending"]


def test_explore_exits_1_where_a_game_can_get_stuck_and_3_at_a_limit() -> None:
    stuck = explore_cli("-n", "5", "--rules", "strict_term_limits", "--json")
    assert stuck.exit_code == 1, stuck.output
    figures = json.loads(stuck.stdout)
    assert figures["complete"] and figures["deadlocks"] > 0 and figures["every_game_ends"] is False
    cut = explore_cli("-n", "5", "--time-limit", "0.001")
    assert cut.exit_code == 3 and "INCOMPLETE (limit: time" in cut.stdout and "longest game" not in cut.stdout
    bad = explore_cli("-n", "4")
    assert bad.exit_code == 2 and "R-S1" in bad.stderr


def test_explore_exits_1_where_a_value_leaves_its_declared_range(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(LayeredSearch, "out_of_range",
                        lambda self, states, written=None: "field 'election_tracker' = 4 is outside its declared range 0..3")
    result = explore_cli("-n", "5", "--rules", SMALL)
    assert result.exit_code == 1, result.output
    assert "a value leaves its declared range (field 'election_tracker' = 4" in result.stdout
    assert "INCOMPLETE" not in result.stdout and "longest game" not in result.stdout


# ---------------------------------------------------------------- one search, run again


def figures(found: Layered) -> dict[str, Any]:
    """What a complete search found, the arrays of its paths as lists."""
    return {"states": found.states, "transitions": found.transitions, "depth": found.depth,
            "complete": found.complete, "limit": found.limit, "deadlocks": found.deadlocks,
            "per_depth": found.per_depth, "longest": (found.longest_moves, found.longest_elections),
            "fewest_elections": found.fewest_elections, "ends": found.ends,
            "keys": [keys.tolist() for keys in found.keys], "parent": [column.tolist() for column in found.parent],
            "move": [column.tolist() for column in found.parent_move],
            "vias": [column.tolist() for column in (*found.long_via, *found.elect_via)]}


class Counting:
    """A watch that counts what it is shown (`Watch`)."""

    stopped = False

    def __init__(self) -> None:
        self.calls = 0

    def part(self, states: Any, first_id: int, values: dict[str, Any]) -> None:
        self.calls += 1

    def moved(self, rule: Any, before: Any, after: Any, args: list[Any], origin: Any, move: Any) -> None:
        self.calls += 1

    def forced(self, rule: Any, before: Any, after: Any, origin: Any, move: Any) -> None:
        self.calls += 1

    def expanded(self) -> None:
        self.calls += 1

    def stuck(self, columns: Any) -> None:
        self.calls += 1

    def unstorable(self, after: Any, origin: Any, move: Any, problem: Any) -> None:
        self.calls += 1

    def settled(self, least: dict[str, int]) -> bool:
        return False


def test_one_search_run_twice_finds_the_same_as_two_searches(tmp_path: Path) -> None:
    """A second `run` of the same search starts clean: whatever the first was asked for
    (facts, paths, a watch, a folder to spill to, the breadth-first order) is not left
    for the next, nor for `successors` asked between runs."""
    model = Model(compiled_game(5, MEDIUM))
    fresh = figures(LayeredSearch(model).run(paths=True, facts=True))
    assert fresh["complete"] and fresh["states"] > 1000 and fresh["longest"][0] is not None
    search = LayeredSearch(model)
    watch = Counting()
    assert search.run(breadth_first=True, by_elections=True, watch=watch, spill=str(tmp_path)).complete
    shown = watch.calls
    assert shown > 0
    states = sampled_states(model, 3, seed=5)
    assert steps_of_layers(search, states) == [steps_of_model(model, state) for state in states]
    assert watch.calls == shown, "a run's watch was shown moves made after the run"
    assert figures(search.run(paths=True, facts=True)) == fresh
    assert figures(search.run(paths=True, facts=True)) == fresh
    plain = search.run()
    assert (plain.states, plain.transitions, plain.longest_moves, plain.keys) == (
        fresh["states"], fresh["transitions"], None, [])
