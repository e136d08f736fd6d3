"""Verdicts keep what they claim across processes.

A worker (a local process or a Dask worker) returns its verdicts as plain data, and
`materialise` makes them typed again, replaying every game. A counterexample the solver
found but did not prove the shortest carries `lower_bound`; if the trip dropped it, the
report would call that game "the shortest", a claim nobody proved.
"""

from __future__ import annotations

import pickle
from random import Random

from engine.game import compiled_game
from engine.trace import Trace
from spec.loader import load_spec
from spec.properties import Property, load_properties
from verify.cli.check import cell
from verify.explicit.check import materialise, plain
from verify.report.records import result_record
from verify.results import Evidence, PropertyResult, Refuted, Witnessed


def _game_of(moves: int) -> Trace:
    """A random game of the standard rules at 5 players, `moves` moves long."""
    game = compiled_game(5, "standard")
    state = game.initial_state()
    trace = Trace(game, state)
    rng = Random(7)
    for _ in range(moves):
        move = game.random_move(state, rng)
        assert move is not None
        state = game.apply(state, move)
        trace.append(move, state)
    return trace


def _catalogue() -> dict[str, Property]:
    """The standard rules' catalogue by name."""
    return {prop.name: prop for prop in load_properties(load_spec("standard"))}


def _round_trip(result: PropertyResult) -> PropertyResult:
    """The result as a worker hands it back: plain data, pickled, made typed again."""
    props = _catalogue()
    return materialise(pickle.loads(pickle.dumps(plain(result))), "standard", props)


def test_a_counterexample_not_proved_the_shortest_stays_so() -> None:
    props = _catalogue()
    prop = props["tracker_in_range"]
    trace = _game_of(12)
    verdict = Refuted(Evidence("smt", depth=12), trace, "found along a random game", lower_bound=4)
    result = PropertyResult(prop.name, 5, prop.kind, prop.rule_ids, prop.expect, verdict, {})
    again = _round_trip(result)
    assert isinstance(again.verdict, Refuted)
    assert again.verdict.lower_bound == 4
    assert again.verdict.trace is not None and len(again.verdict.trace.steps) == 12
    assert result_record(again)["shortest_at_least"] == 4
    assert cell(again).endswith("4-12m")


def test_a_shortest_counterexample_stays_the_shortest() -> None:
    props = _catalogue()
    prop = props["tracker_in_range"]
    verdict = Refuted(Evidence("explicit", depth=6), _game_of(6), "shortest")
    again = _round_trip(PropertyResult(prop.name, 5, prop.kind, prop.rule_ids, prop.expect, verdict, {}))
    assert isinstance(again.verdict, Refuted) and again.verdict.lower_bound is None


def test_a_witness_keeps_its_bound_too() -> None:
    props = _catalogue()
    prop = props["fascist_policy_win"]
    verdict = Witnessed(Evidence("smt", depth=9), _game_of(9), None, lower_bound=3)
    again = _round_trip(PropertyResult(prop.name, 5, prop.kind, prop.rule_ids, prop.expect, verdict, {}))
    assert isinstance(again.verdict, Witnessed) and again.verdict.lower_bound == 3
