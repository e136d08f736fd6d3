"""The sweep-line search against the breadth-first explorer it replaces in memory.

Both must find the same graph (states, transitions), the same verdict for every
catalogue property, the same shortest witness and counterexample lengths, the same
longest game; a measure that does not decrease must stop the sweep, incomplete, and a
limit must leave it incomplete with its reason. Custom games that start one or two
policies from either win (thousands of states) keep the quick tests quick; the complete
5-player comparisons are marked slow.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.game import compiled_game
from spec.properties import Property
from verify.explicit import check as explicit_check
from verify.explicit.check import check_game, select
from verify.explicit.explore import Exploration, Limits, explore, resident_mib
from verify.explicit.model import Model
from verify.explicit.sweep import NOT_DECREASING, compiled_measure, measure_failed, sweep
from helpers import length, message, moves
from verify.results import PropertyResult
from verify.rules import Rules

STANDARD_RULES = Rules.named("standard")

SMALL = "custom[start_liberal=4; start_fascist=5]"
"""A game one policy from either win: the whole catalogue decided in seconds."""
MEDIUM = "custom[start_liberal=3; start_fascist=4]"
"""Two policies from either win (some 57,000 states): deep enough that a state is first
reached on a path that is not its shortest, which the sweep must correct."""
RANKING = compiled_measure(compiled_game(5, SMALL))
assert RANKING is not None


def searched_properties(rules: str, players: int) -> tuple[Property, ...]:
    """The catalogue's state and move properties for `rules` at `players`."""
    return tuple(p for p in select(Rules.named(rules)) if players in p.players and (p.state is not None or p.move is not None)
                 and not p.rules)     # the order of play is searched on its own rules


def summary(raws: list[PropertyResult]) -> dict[str, tuple[Any, ...]]:
    """What must not depend on the search: per property its verdict, the length of its
    trace, the fewest elections of a win and the longest game."""
    return {raw.property: (raw.verdict.verdict, length(raw),
                           raw.facts.fewest_elections, raw.facts.longest_moves,
                           raw.facts.longest_elections, raw.facts.reachable_states)
            for raw in raws}


def hit_depths(exploration: Exploration) -> dict[str, int]:
    """Each hit's depth (steps, or elections in a search by elections), deadlock included."""
    depths = {name: hit.depth for name, hit in exploration.hits.items()}
    if exploration.deadlock is not None:
        depths["<deadlock>"] = exploration.deadlock.depth
    return depths


def trace_lengths(exploration: Exploration) -> dict[str, int]:
    """The number of moves of each hit's trace, replayed through the engine."""
    return {name: len(exploration.trace_to(hit).steps) for name, hit in exploration.hits.items()}


def compare_searches(rules: str, players: int) -> None:
    """BFS over the whole graph and the sweep: same graph, same shallowest hits."""
    game = compiled_game(players, rules)
    props = searched_properties(rules, players)
    model = Model(game, props)
    bfs = explore(model, props, stop_when_decided=False)
    swept = sweep(model, props)
    assert bfs.complete and swept.complete, (bfs.limit, swept.limit)
    assert (swept.states, swept.transitions, swept.depth) == (bfs.states, bfs.transitions, bfs.depth)
    assert hit_depths(swept) == hit_depths(bfs)
    assert trace_lengths(swept) == trace_lengths(bfs)
    assert swept.largest_layer < bfs.largest_layer == bfs.states


# ---------------------------------------------------------------- the same findings


def test_sweep_finds_what_the_breadth_first_search_finds_in_a_small_game() -> None:
    compare_searches(MEDIUM, 5)


def test_sweep_decides_the_catalogue_as_the_breadth_first_search_does_in_a_small_game() -> None:
    game = compiled_game(5, SMALL)
    props = tuple(p for p in select(Rules.named(SMALL)) if 5 in p.players)
    bfs = summary(check_game(game, props, Limits()))
    swept = check_game(game, props, Limits(), explorer="sweep")
    assert summary(swept) == bfs
    assert any(verdict[0] == "witness" for verdict in bfs.values()) and any(v[3] for v in bfs.values())
    assert all("sweep-line" in raw.verdict.evidence.note for raw in swept)


def test_sweep_finds_the_shallowest_deadlock(tmp_path: Path) -> None:
    rules = tmp_path / "stuck.toml"
    rules.write_text('extends = "standard"\nname = "stuck"\nremove_rules = ["nominate"]\n', encoding="utf-8")
    game = compiled_game(5, str(rules))
    model = Model(game)
    bfs = explore(model, (), stop_when_decided=False)
    swept = sweep(model, ())
    assert swept.complete and swept.deadlock is not None and bfs.deadlock is not None
    assert swept.deadlock.depth == bfs.deadlock.depth
    assert len(swept.trace_to(swept.deadlock).steps) == len(bfs.trace_to(bfs.deadlock).steps) == 2
    raws = check_game(game, tuple(p for p in select(Rules.named(str(rules))) if p.kind == "terminates"), Limits(),
                      explorer="sweep")
    assert [(raw.verdict.verdict, len(moves(raw))) for raw in raws] == [("refuted", 2)]


@pytest.mark.slow
def test_sweep_equals_the_breadth_first_search_at_5_players() -> None:
    compare_searches("standard", 5)


@pytest.mark.slow
def test_sweep_decides_the_5_player_catalogue_as_the_breadth_first_search_does() -> None:
    assert summary(explicit_check.check_players(STANDARD_RULES, 5, None, Limits(), explorer="sweep")) == \
        summary(explicit_check.check_players(STANDARD_RULES, 5, None, Limits()))


@pytest.mark.slow
def test_sweep_equals_the_breadth_first_search_in_a_variant_with_deadlocks() -> None:
    compare_searches("strict_term_limits", 5)


# ---------------------------------------------------------------- a measure that does not decrease


@pytest.mark.parametrize("measure", [lambda state: 7, lambda state: -RANKING(state)], ids=["constant", "increasing"])
def test_a_measure_that_does_not_decrease_stops_the_sweep(measure: Any) -> None:
    model = Model(compiled_game(5, SMALL))
    swept = sweep(model, searched_properties(SMALL, 5), measure=measure)
    assert not swept.complete and swept.facts is None
    assert swept.limit.startswith(NOT_DECREASING) and measure_failed(swept)
    assert swept.states < 10


def test_the_spec_ranking_decreases_and_a_variant_that_breaks_it_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    game = compiled_game(5, SMALL)
    props = tuple(p for p in select(Rules.named(SMALL)) if 5 in p.players)
    bfs = summary(check_game(game, props, Limits()))
    monkeypatch.setattr(explicit_check, "compiled_measure", lambda game: lambda state: 0)
    fallen = check_game(game, props, Limits(), explorer="sweep")
    assert summary(fallen) == bfs
    assert all("the sweep stopped (the ranking does not decrease" in raw.verdict.evidence.note for raw in fallen)


# ---------------------------------------------------------------- limits


@pytest.mark.parametrize("limits,reason", [(Limits(max_states=100), "limit: 100 states"),
                                           (Limits(memory_limit=1), "limit: memory 1 MiB"),
                                           (Limits(time_limit=0.0), "limit: time 0 s of work")])
def test_a_limit_leaves_the_sweep_incomplete_with_its_reason(limits: Limits, reason: str) -> None:
    model = Model(compiled_game(5, SMALL))
    swept = sweep(model, (), limits)
    assert not swept.complete and swept.limit == reason
    if limits.max_states is not None:
        assert 100 < swept.states <= 200


def test_a_limit_leaves_the_catalogue_unknown_never_proved() -> None:
    game = compiled_game(5, SMALL)
    props = tuple(p for p in select(Rules.named(SMALL)) if 5 in p.players)
    raws = check_game(game, props, Limits(max_states=50), explorer="sweep")
    assert not any(raw.verdict.verdict in ("proved", "no-witness") for raw in raws)
    assert any(raw.verdict.verdict == "unknown" and "50 states" in message(raw) for raw in raws)


def test_the_sweep_reports_its_memory_and_layers() -> None:
    model = Model(compiled_game(5, SMALL))
    swept = sweep(model, ())
    assert swept.complete and 0 < swept.largest_layer < swept.states
    assert 0 < swept.peak_mib <= resident_mib() * 2 + 1
    seen: list[tuple[int, int]] = []
    sweep(model, (), progress=lambda states, rank: seen.append((states, rank)))
    assert seen and all(later[1] <= earlier[1] for earlier, later in zip(seen, seen[1:]))


def test_a_depth_limit_expands_nothing_deeper_and_says_so() -> None:
    model = Model(compiled_game(5, SMALL))
    swept = sweep(model, (), Limits(max_depth=4))
    assert not swept.complete and swept.limit == "limit: depth 4" and swept.depth == 4
    assert swept.states == explore(model, (), Limits(max_depth=4), stop_when_decided=False).states


def test_a_ranking_found_in_played_games_sweeps_the_same_graph_or_stops() -> None:
    from verify.smt.rank import find_ranking
    from spec.invariants import load_invariants

    game = compiled_game(5, SMALL)
    found = find_ranking(load_invariants(game.spec).spec, 5)
    assert found is not None
    measure = compiled_measure(game, found)
    model = Model(game)
    swept = sweep(model, (), measure=measure)
    if swept.complete:
        assert swept.states == explore(model, (), stop_when_decided=False).states
    else:
        assert measure_failed(swept), swept.limit
