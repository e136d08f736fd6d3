"""A `sometimes` question that never happens, proved by k-induction of its negation.

"Can the last elected President be the Presidential Candidate again?" never happens at 6
players (the complete explicit search agrees: 2,651,567 reachable states up to rotation),
but its negation is not inductive in one step: from a state no game reaches, with the
last President a few seats ahead and the tracker low, rejections bring candidacy back to
him. No game of k steps without an election gets there once k is longer than the rounds
the Election Tracker allows, so the negation is k-inductive for a larger k. Once the
search for a witness finds none, the solver tries k = 2, 4, 8, 16 with the depths the
search covered as the base case (verify/smt/check.py `_negation_k_inductive`).
"""

from __future__ import annotations

import pytest
import z3  # type: ignore[import-untyped]

import verify.smt.check as smt_check
from engine.game import compiled_game
from verify.lawyer.ask import catalogue
from verify.results import Limits, Unwitnessed
from verify.smt import check_property
from verify.smt.check import backend_for
from verify.smt.system import Step

pytest.importorskip("z3", reason="the solver backend needs z3-solver")

LAST_PRESIDENT = next(d.query for d in catalogue() if d.id == "last-president-again")


def test_the_negation_is_k_inductive_only_for_a_large_enough_k() -> None:
    assert LAST_PRESIDENT is not None and LAST_PRESIDENT.move is not None
    spec = compiled_game(6, "standard").spec
    backend = backend_for(spec, 6)
    system, move = backend.system, LAST_PRESIDENT.move

    def bad(step: Step) -> z3.BoolRef:
        return z3.And(step.fires_any(LAST_PRESIDENT.on), system.holds_on_move(move, step, LAST_PRESIDENT.on))
    assert not backend.induction.k_induction_on_moves(bad, 4).proved
    assert backend.induction.k_induction_on_moves(bad, 16).proved


def test_a_question_that_never_happens_is_proved_once_no_witness_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search gets half the time (here) and finds no witness; k-induction proves no."""
    assert LAST_PRESIDENT is not None
    monkeypatch.setattr(smt_check, "K_INDUCTION_SHARE", 0.5)
    spec = compiled_game(6, "standard").spec
    verdict = check_property(spec, LAST_PRESIDENT, 6, Limits(time_limit=60))
    assert isinstance(verdict, Unwitnessed), verdict
    assert verdict.evidence.method == "k-induction" and verdict.evidence.depth is not None
    assert verdict.evidence.depth >= 2
    assert f"its negation is {verdict.evidence.depth}-inductive" in verdict.evidence.note
    assert "no game reaches it in" in verdict.evidence.note
