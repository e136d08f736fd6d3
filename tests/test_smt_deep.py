"""Violations deep in a game, found along the rules' own games (verify/smt/deep.py).

The rules' own witnesses are found by the explicit search and kept as guides; a path the
solver finds along one (leaving it where it likes, then a few moves of its own) is a real
game, replayed through the engine, whose end the engine's own evaluation must call a
violation. Where the rules hold, nothing is found, and nothing is claimed.
"""

from __future__ import annotations

import time

import pytest
import z3  # type: ignore[import-untyped]  # z3-solver ships no type information

from engine.game import Game
from engine.pycompile import compile_expression
from spec.loader import load_spec
from verify.diff.operators import mutants
from verify.explicit.check import check_game
from verify.results import Limits, Refuted
from verify.smt import backend_for
from verify.smt.backend import catalogue_of
from verify.smt.passes import verdicts_under
from verify.smt.deep import violations_along_the_rules
from verify.smt.guides import forget_guides, keep_guide
from helpers import moves

BASE = load_spec("standard")
CATALOGUE = {prop.name: prop for prop in catalogue_of(BASE)}
PLAYERS = 5


def rules_own_guides() -> dict[str, tuple[str, ...]]:
    """The rules' shortest witnesses at 5 players, by property, kept as guides."""
    forget_guides()
    wanted = tuple(prop for prop in CATALOGUE.values() if prop.kind == "sometimes")
    found = {}
    for raw in check_game(Game(BASE, PLAYERS), wanted, Limits(time_limit=120), fewest_elections=False):
        if raw.verdict.verdict == "witness" and moves(raw):
            found[raw.property] = tuple(rule for rule, _ in moves(raw))
            keep_guide(BASE, raw.property, found[raw.property])
    return found


@pytest.mark.slow
def test_a_path_leaves_a_guide_cut_short_and_reaches_the_target_on_its_own() -> None:
    """Hitler elected after three Fascist policies (R-W4) takes 36 moves at the fewest. Its
    witness cut to 33 moves reaches nothing without moves of its own (no game is shorter),
    and with three of its own the path ends exactly at 36, a game the engine plays and
    whose end it calls a Fascist win by Hitler."""
    guide = rules_own_guides()["fascist_hitler_win"]
    assert len(guide) == 36
    prop = CATALOGUE["fascist_hitler_win"]
    assert prop.state is not None
    backend = backend_for(BASE, PLAYERS)
    unrolling = backend.unrolling()
    target = backend.state_target(prop.state, False)
    assert unrolling.check_departing(guide[:33], 0, target)[0] == z3.unsat
    result, end = unrolling.check_departing(guide[:33], 3, target)
    assert (result, end) == (z3.sat, 36)
    trace = unrolling.trace(end)
    assert len(trace.steps) == 36 and [move.rule for move, _ in trace.steps][:33] == list(guide[:33])
    assert compile_expression(BASE, PLAYERS, prop.state)(trace.end)
    assert unrolling.meets(target, 36) and not unrolling.meets(target, 35)


@pytest.mark.slow
def test_a_reshuffle_that_keeps_the_fascist_discards_is_refuted_deep_in_a_rules_game() -> None:
    """The mutant whose reshuffle leaves the Fascist discards in the discard pile (R-L5)
    breaks deck conservation only at a reshuffle, deep in a game. Through the solver's
    passes with one second each, the plain search leaves it unknown; along the rules' own
    games it is refuted, by a game the engine replays whose last state, and no earlier
    one, breaks the property by the engine's own evaluation. The game is not claimed the
    shortest."""
    rules_own_guides()
    (mutant,) = [m for m in mutants(BASE, ("drop_effect",), ("reshuffle",))
                 if "discard_fascist = 0 dropped" in m.description]
    prop = CATALOGUE["deck_conservation_fascist"]
    assert prop.state is not None
    verdicts = {asked.name: verdict for asked, verdict in
                verdicts_under(mutant.spec, PLAYERS, [prop], 300.0, hints=True, each=(1.0, 1.0), deep=240.0)}
    verdict = verdicts[prop.name]
    assert isinstance(verdict, Refuted), verdict
    assert verdict.lower_bound == 1 and "not proved the shortest" in verdict.message
    assert verdict.trace is not None and verdict.evidence.depth == len(verdict.trace.steps) > 30
    assert "reshuffle" in [move.rule for move, _ in verdict.trace.steps]
    holds = compile_expression(mutant.spec, PLAYERS, prop.state)
    assert not holds(verdict.trace.end)
    assert all(holds(state) for state in verdict.trace.states[:-1])


@pytest.mark.slow
def test_nothing_is_claimed_along_the_rules_games_where_the_rules_hold() -> None:
    """Under the rules themselves deck conservation holds: no path along their own games
    breaks it, and the search says nothing rather than anything proved."""
    rules_own_guides()
    backend = backend_for(BASE, PLAYERS)
    props = [CATALOGUE["deck_conservation_fascist"], CATALOGUE["deck_conservation_liberal"]]
    assert list(violations_along_the_rules(backend, props, time.perf_counter() + 300.0, beyond=(0,))) == []


@pytest.mark.slow
def test_a_deadlock_deep_in_a_game_is_found_along_the_rules_games() -> None:
    """The mutant whose draw needs at least one new Fascist tile (R-L1's `new_fascist >= 0`
    made `>= 1`) sticks at the first draw after a policy peek (R-X5: the three tiles on
    top are known, so none is new), past 30 moves. Along the rules' own games the solver
    finds such a game; the engine replays it and has no move at its end, in a game not
    over (so a path the encoding alone called stuck would not be reported)."""
    rules_own_guides()
    mutant = [m for m in mutants(BASE, ("constant",), ("draw_hand",))
              if m.description == "requirement: literal 0 -> 1"][0]      # the first: new_fascist's
    prop = CATALOGUE["deadlock_free"]
    backend = backend_for(mutant.spec, PLAYERS)
    found = list(violations_along_the_rules(backend, [prop], time.perf_counter() + 300.0, beyond=(0,)))
    assert len(found) == 1, found
    verdict = found[0][1]
    assert verdict.trace is not None and verdict.evidence.depth == len(verdict.trace.steps) > 30
    assert "policy_peek" in [move.rule for move, _ in verdict.trace.steps]
    game = Game(mutant.spec, PLAYERS)
    assert game.phase(verdict.trace.end) == "draw"
    assert not game.legal_moves(verdict.trace.end) and not game.is_over(verdict.trace.end)
