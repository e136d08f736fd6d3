"""Unbounded proofs with Z3: the catalogue's invariants for every player count.

Every `always` / `never` property (states and moves), `terminates` and `deadlock_free` is proved for
5..10 players by induction with the strengthening invariants of spec/invariants.toml,
which are proved with them (none is assumed); the ranking and the distance measure are
proved too. The invariants are also held against random games through the engine, and
an induction that lacks an invariant shows its counterexample to induction in words.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from engine.play import random_game
from engine.pycompile import compile_expression
from spec.invariants import load_invariants
from spec.loader import load_spec
from verify.results import Proved, Refuted, Unknown
from verify.smt import check_property
from verify.results import Limits
from verify.smt.backend import Backend, backend_for, catalogue_of
from verify.smt.induction import Induction
from verify.smt.system import System

SPEC = load_spec("standard")
CATALOGUE = tuple(p for p in catalogue_of(SPEC) if not p.rules)   # the order of play: on its own rules
STRENGTHENING = load_invariants(SPEC)
INVARIANT_KINDS = ("always", "never", "terminates", "deadlock_free")


@pytest.mark.parametrize("players", [pytest.param(count, marks=() if count == min(SPEC.player_counts) else pytest.mark.slow)
                                     for count in SPEC.player_counts])
def test_catalogue_invariants_are_proved(players: int) -> None:
    backend = backend_for(SPEC, players)
    support = backend.induction.support()
    assert not support.dropped, f"not inductive: {sorted(support.dropped)}"
    assert backend.distance().proved
    for prop in CATALOGUE:
        if prop.kind not in INVARIANT_KINDS or players not in prop.players or prop.expect != "holds":
            continue
        # A property the strengthening does not make inductive fails here, within the limit.
        verdict = check_property(SPEC, prop, players, Limits(None, 120.0, None))
        assert isinstance(verdict, Proved), f"{prop.name}: {verdict}"
        assert verdict.evidence.depth == 1


def test_every_invariant_says_what_it_supports() -> None:
    names = {prop.name for prop in CATALOGUE}
    for invariant in STRENGTHENING.invariants:
        assert invariant.rule_ids and invariant.description
        assert set(invariant.supports) <= names, invariant.name


@pytest.mark.parametrize("players", [5, 8, 10])
def test_invariants_and_measures_hold_in_random_games(players: int) -> None:
    """What the solver proves, the engine sees: every invariant on every state of random
    games, the ranking decreasing on every move, the distance at most the move count."""
    spec = STRENGTHENING.spec
    from engine.game import Game

    game = Game(spec, players)
    invariants = [(inv.name, compile_expression(spec, players, inv.state)) for inv in STRENGTHENING.invariants]
    assert STRENGTHENING.ranking is not None and STRENGTHENING.distance is not None
    ranking = compile_expression(spec, players, STRENGTHENING.ranking.measure)
    distance = compile_expression(spec, players, STRENGTHENING.distance.measure)
    for seed in range(40):
        states = random_game(game, seed=seed).states
        start = distance(states[0])
        for index, state in enumerate(states):
            for name, holds in invariants:
                assert holds(state), f"{name} fails in {game.describe(state)}"
            assert ranking(state) >= 0
            assert distance(state) <= start + index
        for before, after in zip(states, states[1:]):
            assert ranking(after) < ranking(before)


def test_a_missing_invariant_shows_the_counterexample_to_induction() -> None:
    """Without `tracks_below_win_in_play`, the tracks' range is not inductive: a state where
    a track is full and a round is played steps past the win slot."""
    weaker = dataclasses.replace(STRENGTHENING, invariants=tuple(
        inv for inv in STRENGTHENING.invariants if inv.name != "tracks_below_win_in_play"))
    backend = Backend(SPEC, 6, strengthening=weaker)
    support = backend.induction.support()
    example = support.dropped["tracks_in_range"]
    assert example is not None
    text = "\n".join(example.lines(backend.game))
    assert "state (satisfies every assumed invariant):" in text
    assert "breaks:" in text and "tracks_in_range" in text
    assert "policies 5 → 6" in text or "policies 6 → 7" in text


def test_a_false_invariant_is_dropped_and_the_rest_still_proved(tmp_path: Path) -> None:
    """The support is the largest inductive subset: a wrong entry is dropped with its
    reason, and everything else is proved as before."""
    text = Path("spec/invariants.toml").read_text(encoding="utf-8")
    text += ('\n[[invariant]]\nname = "few_fascist_policies"\ndescription = "wrong on purpose"\n'
             'rules = ["R-W3"]\nstate = "fascist_policies < 3"\nsupports = []\n')
    path = tmp_path / "invariants.toml"
    path.write_text(text.replace("[ranking]", "[ranking]", 1), encoding="utf-8")
    backend = Backend(SPEC, 5, strengthening=load_invariants(SPEC, path))
    support = backend.induction.support()
    assert list(support.dropped) == ["few_fascist_policies"]
    assert support.dropped["few_fascist_policies"] is not None


def test_a_false_property_is_refuted_with_a_replayed_trace() -> None:
    """A catalogue invariant broken by a variant: the tie-passes mutant elects on a tie,
    so `majority_elects` fails, at the first vote (6 players: three of six Ja)."""
    spec = load_spec("tests/mutants/tie_passes.toml")
    prop = next(p for p in catalogue_of(spec) if p.name == "majority_elects")
    verdict = check_property(spec, prop, 6)
    assert isinstance(verdict, Refuted) and verdict.trace is not None
    last_move = verdict.trace.steps[-1][0]
    assert last_move.rule == "elect"
    assert len(verdict.trace.game.params_of(last_move)["ja"]) == 3
    assert verdict.evidence.depth == 4           # deal, first President, nomination, vote


def test_k_induction_closes_what_one_step_cannot() -> None:
    """`nominee` is none at every nomination, but the invariants do not pin `nominee` before
    the first one: 1- and 2-induction fail, with the gap shown in words; 3-induction holds
    (no path of three steps ends at the first nomination: nothing precedes the deal)."""
    from spec.errors import Location
    from spec.lang.check import parse
    from spec.lang.types import BOOL
    from spec.properties import state_scope

    text = "phase != 'nominate' or nominee == none"
    base = next(p for p in CATALOGUE if p.name == "tracks_in_range")
    prop = dataclasses.replace(base, name="no_nominee_at_nomination", text=text,
                               state=parse(text, state_scope(SPEC), Location("test"), BOOL))
    verdict = check_property(SPEC, prop, 9, Limits(max_depth=4, k=2))
    assert isinstance(verdict, Unknown)
    assert "counterexample to induction" in verdict.reason
    assert "phase = first_president" in verdict.reason and "breaks: no_nominee_at_nomination" in verdict.reason
    verdict = check_property(SPEC, prop, 9, Limits(max_depth=4, k=3))
    assert isinstance(verdict, Proved) and verdict.evidence.depth == 3


def test_induction_queries_split_by_rule_agree_with_the_whole_relation() -> None:
    """The support is found rule by rule; the same support closes under the whole step
    relation in one query (the disjunction of the rules' steps)."""
    import z3  # type: ignore[import-untyped]  # z3-solver ships no type information

    system = System(STRENGTHENING.spec, 7)
    induction = Induction(system, STRENGTHENING, CATALOGUE)
    kept = induction.support().kept
    step = system.step(induction.before, induction.after, "whole")
    solver = z3.SolverFor("QF_BV")
    solver.add(step.relation, *[c.before for c in kept])
    solver.add(z3.Or([z3.Not(c.after) for c in kept]))
    assert solver.check() == z3.unsat
