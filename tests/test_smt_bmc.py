"""Bounded model checking: shortest witnesses, decoded into engine moves and replayed.

A `sometimes` property is witnessed by the shortest path BMC finds (depths tried in
increasing order from a proved lower bound); the path is decoded into `Move`s and
replayed through the engine, whose states must be the solver's. The engine also
re-evaluates the property on the witness's end.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from engine.pycompile import compile_expression
from spec.errors import Location
from spec.lang.check import parse
from spec.lang.types import BOOL
from spec.loader import load_spec
from spec.properties import Property, move_scope, state_scope
from verify.results import Witnessed
from verify.smt import BackendDisagreement, backend_for, check_property
from verify.smt.bmc import replay
from verify.smt.backend import catalogue_of

SPEC = load_spec("standard")
CATALOGUE = {prop.name: prop for prop in catalogue_of(SPEC)}


def ad_hoc(name: str, text: str, on: tuple[str, ...] = ()) -> Property:
    """A `sometimes` property written here, over states or (with `on`) over moves."""
    base = CATALOGUE["liberal_policy_win"]
    if on:
        node = parse(text, move_scope(SPEC, on, Location("test")), Location("test"), BOOL)
        return dataclasses.replace(base, name=name, text=text, state=None, move=node, on=on, report="")
    node = parse(text, state_scope(SPEC), Location("test"), BOOL)
    return dataclasses.replace(base, name=name, text=text, state=node, report="")


def ends_as_claimed(prop: Property, verdict: Any, players: int) -> bool:
    """The engine's own evaluation of the property on the witness's last state or move."""
    trace = verdict.trace
    if prop.state is not None:
        return bool(compile_expression(SPEC, players, prop.state)(trace.end))
    assert prop.move is not None    # a property is over a state or over a move
    move, after = trace.steps[-1]
    before = trace.states[-2]
    names = [p.name for p in trace.game.by_name[move.rule].rule.params]
    shared = [name for name, (kind, _) in move_scope(SPEC, prop.on, Location("test")).names.items() if kind == "param"]
    evaluate = compile_expression(SPEC, players, prop.move, shared, after=True)
    args = dict(zip(names, move.args))
    return move.rule in prop.on and bool(evaluate(before, after, *[args[n] for n in shared]))


def test_shortest_witness_of_a_second_failed_vote() -> None:
    """Deal, first President, nominate, reject, pass candidacy, nominate, reject: seven moves."""
    prop = ad_hoc("tracker_at_two", "election_tracker == 2")
    verdict = check_property(SPEC, prop, 5)
    assert isinstance(verdict, Witnessed) and verdict.trace is not None
    assert verdict.evidence.depth == 7 == len(verdict.trace.steps)
    assert [move.rule for move, _ in verdict.trace.steps].count("reject") == 2
    assert ends_as_claimed(prop, verdict, 5)


def test_shortest_witness_of_a_move() -> None:
    """A unanimous election, over the `elect` move: the fourth move of the game."""
    prop = ad_hoc("unanimous", "count(ja) == alive_count", ("elect",))
    verdict = check_property(SPEC, prop, 8)
    assert isinstance(verdict, Witnessed) and verdict.trace is not None
    assert verdict.evidence.depth == 4
    assert ends_as_claimed(prop, verdict, 8)


@pytest.mark.slow
def test_catalogue_witness_same_president_twice() -> None:
    """D-2 for seven players: a Special Election (Fascist slot 3) on the next player in turn."""
    prop = CATALOGUE["same_president_twice"]
    verdict = check_property(SPEC, prop, 7)
    assert isinstance(verdict, Witnessed) and verdict.trace is not None
    assert ends_as_claimed(prop, verdict, 7)
    rules = [move.rule for move, _ in verdict.trace.steps]
    assert rules[-1] == "special_election" and rules.count("enact") == 3
    assert verdict.evidence.depth == 33


def test_a_disagreement_with_the_engine_is_an_error() -> None:
    """Replaying a solver path whose claimed states differ from the engine's raises."""
    backend = backend_for(SPEC, 5)
    game = backend.game
    state = game.initial_state()
    moves = [game.move("deal_roles", hitler_seat=1, fascist_seats=[2]), game.move("first_president", candidate=0)]
    states = [state]
    for move in moves:
        states.append(game.apply(states[-1], move))
    assert replay(backend.system, states, moves).end == states[-1]
    wrong = states[-1]._replace(president=3)
    with pytest.raises(BackendDisagreement, match="another state"):
        replay(backend.system, states[:-1] + [wrong], moves)
    with pytest.raises(BackendDisagreement, match="illegal"):
        replay(backend.system, states, [moves[1], moves[0]])


# The shortest witnesses of the standard rules, in moves (every move counts: chance, the
# table, the game's own bookkeeping). Nine and ten players investigate on slot 1 first.
SHORTEST = {
    "liberal_policy_win": {5: 49, 6: 49, 7: 49, 8: 49, 9: 49, 10: 49},
    "liberal_execution_win": {5: 44, 6: 44, 7: 44, 8: 44, 9: 45, 10: 45},
    "fascist_policy_win": {5: 64, 6: 64, 7: 64, 8: 64, 9: 65, 10: 65},
    "fascist_hitler_win": {5: 36, 6: 36, 7: 36, 8: 36, 9: 37, 10: 37},
    "veto_sets_off_chaos": {5: 71, 6: 71, 7: 71, 8: 71, 9: 72, 10: 72},
    "same_president_twice": {7: 33, 8: 33, 9: 34, 10: 34},
    "five_alive_exception_used": {7: 58},
}


@pytest.mark.slow
@pytest.mark.parametrize("players", list(SPEC.player_counts))
def test_every_sometimes_property_is_witnessed(players: int) -> None:
    for prop in CATALOGUE.values():
        if prop.kind != "sometimes" or players not in prop.players:
            continue
        verdict = check_property(SPEC, prop, players)
        assert isinstance(verdict, Witnessed), f"{prop.name}: {verdict}"
        assert ends_as_claimed(prop, verdict, players)
        expected = SHORTEST.get(prop.name, {}).get(players)
        assert expected is None or verdict.evidence.depth == expected, prop.name
