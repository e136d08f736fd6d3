"""Witness searches guided by the rules of an earlier witness (verify/smt/guides.py).

A guided witness must be what the unguided search finds: a game of the same length (the
proved lower bound, hence a shortest), replayed through the engine. A guide that does not
fit is one quick unsatisfiable query, and the search goes on unguided.
"""

from __future__ import annotations

import pytest

import verify.smt.backend as smt_backend
from spec.loader import load_spec
from verify.results import Witnessed
from verify.smt import backend_for, check_property
from verify.smt.bmc import Ended, guided
from verify.smt.backend import catalogue_of, clear_cache
from verify.smt.guides import guides_for

pytest.importorskip("z3", reason="the solver backend needs z3-solver")

SPEC = load_spec("standard")
CATALOGUE = {prop.name: prop for prop in catalogue_of(SPEC)}


@pytest.mark.parametrize("name", ["fascist_hitler_win",
                                  pytest.param("liberal_execution_win", marks=pytest.mark.slow)])
def test_a_guided_witness_is_as_long_as_the_unguided_one(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """At 5 players the unguided search finds the witness and keeps its rules; asked
    again, and at 6 players (the same board), the guided search finds one as long, the
    length test_smt_bmc.py's table records for the unguided search. (No random games:
    tests/test_smt_playouts.py has those.)"""
    monkeypatch.setattr(smt_backend, "PLAYOUT_FIRST_SECONDS", 0.0)
    clear_cache()
    prop = CATALOGUE[name]
    unguided = check_property(SPEC, prop, 5)
    assert isinstance(unguided, Witnessed) and unguided.trace is not None
    assert unguided.evidence.note == ""
    rules = tuple(move.rule for move, _ in unguided.trace.steps)
    assert guides_for(SPEC, name, len(rules)) == [rules]
    for players in (5, 6):
        led = check_property(SPEC, prop, players)
        assert isinstance(led, Witnessed) and led.trace is not None
        assert led.evidence.note.startswith("found along the rules of an earlier witness")
        assert led.evidence.depth == len(led.trace.steps) == unguided.evidence.depth
        assert tuple(move.rule for move, _ in led.trace.steps) == rules


def test_a_guide_that_does_not_fit_finds_nothing() -> None:
    """The rules of a 5-player witness do not lead to a Hitler win at 7 players (another
    power on the third Fascist policy): the guided query says so, and claims nothing."""
    clear_cache()
    prop = CATALOGUE["fascist_hitler_win"]
    backend = backend_for(SPEC, 7)
    rules = ["deal_roles", "first_president"] + ["nominate", "elect", "legislate", "draw_hand",
                                                 "president_discard", "enact", "no_track_win", "keep_deck",
                                                 "no_power", "pass_candidacy"] * 2 \
        + ["nominate", "elect", "legislate", "draw_hand", "president_discard", "enact", "no_track_win", "keep_deck",
           "grant_power", "policy_peek", "pass_candidacy", "nominate", "elect", "hitler_elected"]
    assert len(rules) == 36
    assert prop.state is not None
    found = guided(backend.unrolling(), backend.state_target(prop.state, False), rules)
    assert found.trace is None and found.ended is Ended.UNGUIDED


@pytest.mark.slow
def test_without_a_proved_bound_a_witness_is_sought_along_a_guide_of_any_length(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With no invariant written by hand there is no distance to bound a witness, and the
    deep search climbs from one move; `any_guide` (the mutation analysis by the solver
    alone) first follows kept guides, whatever their length. The game found replays
    under the rules, and, longer than any bound proved, carries that it may not be the
    shortest."""
    from verify.smt.passes import verdicts_under
    from verify.smt.guides import forget_guides, keep_guide
    monkeypatch.setattr(smt_backend, "PLAYOUT_FIRST_SECONDS", 0.0)
    clear_cache()
    prop = CATALOGUE["fascist_hitler_win"]
    hinted = check_property(SPEC, prop, 5)
    assert isinstance(hinted, Witnessed) and hinted.trace is not None
    rules = [move.rule for move, _ in hinted.trace.steps]
    forget_guides()
    keep_guide(SPEC, prop.name, rules)
    ((_, found),) = list(verdicts_under(SPEC, 5, [prop], 120.0, hints=False, any_guide=True))
    assert isinstance(found, Witnessed) and found.trace is not None, found
    assert found.evidence.note.startswith("found along the rules of an earlier witness"), found.evidence.note
    assert [move.rule for move, _ in found.trace.steps] == rules
    assert found.lower_bound is not None and "may" in found.evidence.note
