"""The explicit-state model checker: codec, search, traces, graph facts, SPIN cross-check.

One complete 5-player exploration (module fixture, about a minute) is shared by the tests
that need the whole graph: the catalogue's verdicts, termination and the longest game,
and the count of states projected onto the SPIN reference abstraction, which must equal
SPIN's 971,147 (shared/bench/spin/README.md). The 6-player count is marked slow.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.game import compiled_game
from spec.properties import load_properties
from verify.explicit.abstraction import PROJECTION_FIELDS, SPIN_STATES, count_projection
from verify.checker import check
from verify.explicit.check import replay
from verify.explicit.codec import Codec, OutOfRange, field_bounds
from verify.explicit.explore import Exploration, Limits, explore
from verify.explicit.graphs import analyse, to_networkx
from verify.explicit.model import Model
from verify.results import Unknown, Witnessed
from verify.rules import Rules

STANDARD_RULES = Rules.named("standard")


def catalogue(players: int) -> tuple[Any, ...]:
    game = compiled_game(players)
    # the properties over these rules' own fields (the order of play has rules of its own)
    return tuple(p for p in load_properties(game.spec) if players in p.players and not p.rules)


@pytest.fixture(scope="module")
def complete5() -> Exploration:
    """The whole 5-player graph with every property, the edges and the projection's fields."""
    game = compiled_game(5)
    props = tuple(p for p in catalogue(5) if p.state is not None or p.move is not None)
    model = Model(game, props, keep=frozenset(PROJECTION_FIELDS))
    result = explore(model, props, record_edges=True)
    assert result.complete, result.limit
    return result


# ---------------------------------------------------------------- codec


def states(players: int) -> st.SearchStrategy[Any]:
    """Arbitrary states within the declared field ranges (reachable or not)."""
    game = compiled_game(players)
    fields = []
    for index, spec_field in enumerate(game.spec.fields):
        low, high = field_bounds(game, index)
        if spec_field.type.kind == "tiles":
            fields.append(st.integers(1, 15))
        else:
            fields.append(st.integers(low, high))
    return st.tuples(*fields).map(game.make_state)


@pytest.mark.parametrize("players", [5, 8, 10])
@pytest.mark.parametrize("symmetric", [False, True])
def test_codec_round_trip(players: int, symmetric: bool) -> None:
    game = compiled_game(players)
    kept = frozenset(f for f in game.field_names if f != "fascists")
    codec = Codec(game, kept, 1 if symmetric else None)

    @settings(max_examples=300, deadline=None)
    @given(states(players), st.integers(0, players - 1))
    def run(state: Any, by: int) -> None:
        assert codec.decode(codec.encode(state)) == codec.canonical(state)
        if symmetric:
            rotated = rotate(codec, state, by)
            assert codec.encode(rotated) == codec.encode(state)
    run()


def rotate(codec: Codec, state: Any, by: int) -> Any:
    values = []
    for layout, value in zip(codec.layouts, state):
        if layout.kind == "seat":
            values.append(codec.rotate_seat(value, by))
        elif layout.kind == "seats":
            values.append(codec.rotate_seats(value, by))
        else:
            values.append(value)
    return type(state)._make(values)


def test_codec_is_injective_on_canonical_states() -> None:
    game = compiled_game(6)
    codec = Codec(game, None, 1)
    seen: dict[int, Any] = {}

    @settings(max_examples=500, deadline=None)
    @given(states(6))
    def run(state: Any) -> None:
        canonical = codec.canonical(state)
        key = codec.encode(state)
        assert seen.setdefault(key, canonical) == canonical
    run()


def test_codec_refuses_a_value_out_of_range() -> None:
    game = compiled_game(5)
    codec = Codec(game)
    start: Any = game.initial_state()
    state = start._replace(draw_fascist=12)
    with pytest.raises(OutOfRange, match="draw_fascist"):
        codec.encode(state)


# ---------------------------------------------------------------- search and traces


def test_witnesses_are_shortest_replayable_games() -> None:
    game = compiled_game(5)
    wins = tuple(p for p in catalogue(5) if p.report == "elections")
    result = explore(Model(game, wins), wins, deadlocks=False)
    assert set(result.hits) == {p.name for p in wins}
    for prop in wins:
        trace = result.trace_to(result.hits[prop.name])
        assert game.is_over(trace.end)
        assert replay(game, tuple((m.rule, m.args) for m, _ in trace.steps)).end == trace.end
        assert trace.steps[0][0].rule == "deal_roles"
    hitler = result.trace_to(result.hits["fascist_hitler_win"])
    assert hitler.elections() == 4            # three Fascist policies need three governments, then Hitler
    assert game.how(hitler.end) == "hitler_chancellor"


def test_fewest_elections_is_a_search_over_elections() -> None:
    game = compiled_game(5)
    wins = tuple(p for p in catalogue(5) if p.report == "elections")
    result = explore(Model(game, wins), wins, deadlocks=False, by_elections=True)
    fewest = {name: result.trace_to(hit).elections() for name, hit in result.hits.items()}
    # chaos alone can fill either track (R-E9); Hitler needs his own election (R-E10) and an
    # execution needs a government's Fascist policy on the execution slot (R-X1).
    assert fewest == {"liberal_policy_win": 0, "fascist_policy_win": 0, "fascist_hitler_win": 1,
                      "liberal_execution_win": 1}


def test_limits_give_unknown_never_proved() -> None:
    results = check(STANDARD_RULES, (5,), ("deck_conservation_liberal", "terminates", "liberal_policy_win"),
                    Limits(max_states=2_000), workers=1)
    by_name = {r.property: r for r in results}
    assert isinstance(by_name["deck_conservation_liberal"].verdict, Unknown)
    assert by_name["deck_conservation_liberal"].verdict.reason.startswith("limit")
    assert isinstance(by_name["terminates"].verdict, Unknown)
    assert by_name["deck_conservation_liberal"].as_expected is None


def test_time_limit_gives_unknown() -> None:
    results = check(STANDARD_RULES, (7,), ("deck_conservation_fascist",), Limits(time_limit=2.0), workers=1)
    assert isinstance(results[0].verdict, Unknown)
    assert "time" in results[0].verdict.reason


def test_sometimes_witnessed_on_seven_players_within_limits() -> None:
    results = check(STANDARD_RULES, (7,), ("fascist_hitler_win",), Limits(max_states=600_000), workers=1)
    for result in results:
        assert isinstance(result.verdict, Witnessed), result
        assert result.verdict.trace is not None and result.verdict.elections == result.verdict.trace.elections()


# ---------------------------------------------------------------- the complete 5-player graph


def test_catalogue_on_five_players(complete5: Exploration) -> None:
    names = {p.name for p in complete5.properties}
    expected_hits = {p.name for p in complete5.properties if p.kind == "sometimes"}
    assert set(complete5.hits) == expected_hits, "only the sometimes properties fire; every invariant holds"
    assert names >= expected_hits
    assert complete5.deadlock is None


def test_graph_facts_on_five_players(complete5: Exploration) -> None:
    assert complete5.graph is not None
    facts = analyse(complete5.graph)
    assert facts.acyclic and facts.deadlocks == 0 and facts.terminates
    assert facts.stuck == 0, "every state can still reach a finished game"
    assert facts.states == complete5.states
    assert facts.longest_moves is not None and facts.longest_elections is not None
    assert facts.longest_moves > facts.longest_elections > 5


def test_projection_equals_spin_on_five_players(complete5: Exploration) -> None:
    assert count_projection(complete5) == SPIN_STATES[5]


@pytest.mark.slow
def test_projection_equals_spin_on_six_players() -> None:
    game = compiled_game(6)
    result = explore(Model(game, keep=frozenset(PROJECTION_FIELDS)), stop_when_decided=False)
    assert result.complete
    assert count_projection(result) == SPIN_STATES[6]


def test_networkx_agrees_on_a_quotient(complete5: Exploration) -> None:
    import networkx as nx

    quotient = to_networkx(complete5, ("phase", "liberal_policies", "fascist_policies"))
    assert quotient.number_of_nodes() < 1000
    over = [node for node, data in quotient.nodes(data=True) if data["phase"] == "over"]
    assert over
    # the quotient of an acyclic graph by a projection may have cycles (the projection
    # forgets the tracker); every node still reaches a finished game there too
    reaches = set()
    for node in over:
        reaches |= nx.ancestors(quotient, node) | {node}
    assert reaches == set(quotient.nodes)


def test_check_api_reports_fewest_elections_and_longest_game() -> None:
    results = check(STANDARD_RULES, (5,), ("fascist_hitler_win",), workers=1)
    (result,) = results
    assert isinstance(result.verdict, Witnessed)
    assert result.facts.fewest_elections == 1
    assert result.facts.fewest_elections_game is not None
    assert result.facts.fewest_elections_game.trace.elections() == 1
    assert result.as_expected is True

