"""Verdicts keep what they claim across processes.

A local worker process returns its typed verdicts pickled, each game as its moves
(verify/results.py `Played`), replayed when read; a Dask task keeps them as JSON data
(verify/scale/checks.py `as_data`, read back by `from_data`). A counterexample the solver
found but did not prove the shortest carries `lower_bound`; if either trip dropped it, the
report would call that game "the shortest", a claim nobody proved.
"""

from __future__ import annotations

import json
import pickle
from random import Random

from engine.game import compiled_game
from engine.trace import Trace
from spec.loader import load_spec
from spec.properties import Property, load_properties
from verify.cli.check import cell
from verify.report.records import result_record
from verify.results import Evidence, Played, PropertyResult, Refuted, Witnessed
from verify.scale.checks import as_data, from_data
from verify.workers import WorkerPool


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
    """The result as a worker process hands it back: pickled, its games as moves."""
    again: PropertyResult = pickle.loads(pickle.dumps(result))
    return again


def _kept(result: PropertyResult) -> PropertyResult:
    """The result as a Dask task keeps it: JSON data, read back typed."""
    return from_data(json.loads(json.dumps(as_data(result))), "standard", _catalogue())


def _refuted_in_a_worker(moves: int, bound: int) -> PropertyResult:
    """A worker's counterexample of `moves` moves, not proved the shortest (none shorter than `bound`)."""
    prop = _catalogue()["tracker_in_range"]
    verdict = Refuted(Evidence("smt", depth=moves), Played.of(_game_of(moves)), "found along a random game",
                      lower_bound=bound)
    return PropertyResult(prop.name, 5, prop.kind, prop.rule_ids, prop.expect, verdict)


def test_a_workers_counterexample_not_proved_the_shortest_is_reported_as_such() -> None:
    with WorkerPool(1) as pool:
        result = pool.submit(_refuted_in_a_worker, 12, 4).result()
    assert isinstance(result.verdict, Refuted) and result.verdict.lower_bound == 4
    assert result.verdict.trace is not None and len(result.verdict.trace.steps) == 12
    assert result_record(result)["shortest_at_least"] == 4
    assert cell(result).endswith("4-12m")


def test_a_game_crosses_as_its_moves_and_is_replayed_when_read() -> None:
    game = Played.of(_game_of(30))
    text = pickle.dumps(game)
    assert b"Trace" not in text and len(text) < 2_000
    again: Played = pickle.loads(text)
    assert again == game and not again._replayed
    assert [move.rule for move, _ in again.trace.steps] == [rule for rule, _ in game.moves]
    assert again._replayed and again.trace is again.trace          # replayed once


def test_a_counterexample_not_proved_the_shortest_stays_so() -> None:
    props = _catalogue()
    prop = props["tracker_in_range"]
    trace = _game_of(12)
    verdict = Refuted(Evidence("smt", depth=12), Played.of(trace), "found along a random game", lower_bound=4)
    result = PropertyResult(prop.name, 5, prop.kind, prop.rule_ids, prop.expect, verdict)
    for again in (_round_trip(result), _kept(result)):
        assert isinstance(again.verdict, Refuted)
        assert again.verdict.lower_bound == 4
        assert again.verdict.trace is not None and len(again.verdict.trace.steps) == 12
        assert result_record(again)["shortest_at_least"] == 4
        assert cell(again).endswith("4-12m")


def test_a_shortest_counterexample_stays_the_shortest() -> None:
    props = _catalogue()
    prop = props["tracker_in_range"]
    verdict = Refuted(Evidence("explicit", depth=6), Played.of(_game_of(6)), "shortest")
    result = PropertyResult(prop.name, 5, prop.kind, prop.rule_ids, prop.expect, verdict)
    for again in (_round_trip(result), _kept(result)):
        assert isinstance(again.verdict, Refuted) and again.verdict.lower_bound is None


def test_a_witness_keeps_its_bound_too() -> None:
    props = _catalogue()
    prop = props["fascist_policy_win"]
    verdict = Witnessed(Evidence("smt", depth=9), Played.of(_game_of(9)), None, lower_bound=3)
    result = PropertyResult(prop.name, 5, prop.kind, prop.rule_ids, prop.expect, verdict)
    for again in (_round_trip(result), _kept(result)):
        assert isinstance(again.verdict, Witnessed) and again.verdict.lower_bound == 3
