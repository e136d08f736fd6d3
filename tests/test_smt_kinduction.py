"""Things that never happen, proved by k-induction: a `sometimes` question's negation and
a permission's breach.

"Can the last elected President be the Presidential Candidate again?" never happens at 6
players (the complete explicit search agrees: 2,651,567 reachable states up to rotation),
but its negation is not inductive in one step: from a state no game reaches, with the
last President a few seats ahead and the tracker low, rejections bring candidacy back to
him. No game of k steps without an election gets there once k is longer than the rounds
the Election Tracker allows, so the negation is k-inductive for a larger k. Once the
search for a witness finds none, the solver tries k = 2, 4, 8, 16 with the depths the
search covered as the base case (verify/smt/reach.py `KProbe`). A permission
(`allows`, `only`), a state invariant and deadlock freedom whose one-step proof fails are
tried as the search for a breaking game goes (`KProbe`): each time it has ruled out every
game of k moves or fewer, k-induction with that base case.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import verify.smt.check as smt_check
import verify.smt.reach as smt_reach
from engine.game import compiled_game
from verify.lawyer.ask import catalogue
from verify.results import Limits, Unwitnessed
from verify.smt import check_property
from verify.smt.backend import backend_for
from verify.rules import Rules

STANDARD_RULES = Rules.named("standard")

pytest.importorskip("z3", reason="the solver backend needs z3-solver")

LAST_PRESIDENT = next(d.query for d in catalogue(STANDARD_RULES) if d.id == "last-president-again")


@pytest.mark.slow
def test_the_negation_is_k_inductive_only_for_a_large_enough_k() -> None:
    assert LAST_PRESIDENT is not None
    spec = compiled_game(6, "standard").spec
    backend = backend_for(spec, 6)
    target = backend.move_target(LAST_PRESIDENT, False)
    assert not backend.induction.k_induction_of(target, 4).proved
    assert backend.induction.k_induction_of(target, 16).proved


@pytest.mark.slow
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


@pytest.mark.slow
def test_a_permission_no_game_breaks_is_proved_by_k_induction(monkeypatch: pytest.MonkeyPatch) -> None:
    """strict_term_limits at 7 players: a Presidential Candidate whose next living player
    is the last President, with five alive, would break "the next player may be nominated"
    (the rulebook's five-alive exception, which the variant drops). No game gets there —
    the complete explicit search agrees, over 40.0 M states — since two executions come
    only with the fifth Fascist policy and going round to the last President then takes
    more rejections than the Election Tracker allows; one step of induction cannot see
    that, k-induction with the searched depths as base case does."""
    from spec.loader import load_spec
    from spec.properties import load_properties
    monkeypatch.setattr(smt_reach, "CTI_SECONDS", 5.0)
    spec = load_spec("strict_term_limits")
    prop = next(p for p in load_properties(spec) if p.name == "the_next_player_may_be_nominated")
    verdict = check_property(spec, prop, 7, Limits(time_limit=240))
    assert verdict.verdict == "proved", verdict
    assert verdict.evidence.method == "k-induction" and verdict.evidence.depth is not None
    assert verdict.evidence.depth >= 2 and "-inductive" in verdict.evidence.note


@pytest.mark.slow
def test_a_state_invariant_and_deadlock_freedom_are_proved_by_k_induction(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """veto_chaos_first at 5 players, no hints: chaos after a veto takes the top of a
    short pile before any reshuffle, and the pile is reshuffled after. No invariant
    inferred from played games (which rarely get there) says that a draw then finds three
    tiles, nor that a draw is never stuck; 16 moves of k-induction, with a search of as
    many moves as its base case, prove both (the explicit search agrees:
    reports/veto_chaos_first)."""
    from spec.invariants import Strengthening
    from spec.loader import load_spec
    from spec.properties import load_properties
    from verify.smt.backend import Backend
    from verify.smt.check import decide
    monkeypatch.setenv("SHRULES_CACHE", str(tmp_path))
    spec = load_spec("veto_chaos_first")
    props = {p.name: p for p in load_properties(spec)}
    backend = Backend(spec, 5, strengthening=Strengthening(spec, (), None, None), infer=True)
    draw = decide(backend, props["draw_finds_three"], Limits(time_limit=300))
    assert draw.verdict == "proved", draw
    assert draw.evidence.method == "k-induction" and draw.evidence.depth is not None
    assert draw.evidence.depth >= 2 and "-inductive" in draw.evidence.note
    stuck = decide(backend, props["deadlock_free"], Limits(time_limit=300))
    assert stuck.verdict == "proved", stuck
    assert "no game gets stuck in phase" in stuck.evidence.note and "draw" in backend.stuck_free


def test_a_random_game_breaking_the_property_comes_before_k_induction(monkeypatch: pytest.MonkeyPatch) -> None:
    """president_breaks_ties at 5 players: a tie needs an even electorate, so an execution
    first, and the distance bound puts every breaking game at 47 moves or more. A random
    game of that length breaks majority_elects; k-induction for any k below it can only
    fail, so it is not asked before that game is tried (it was: k = 2 to 32, 32 s of
    the property's 39)."""
    from spec.loader import load_spec
    from spec.properties import load_properties
    from verify.smt.induction import Induction
    asked: list[int] = []
    k_induction_of = Induction.k_induction_of

    def recorded(self: Induction, target: object, k: int, *args: object, **kwargs: object) -> object:
        asked.append(k)
        return k_induction_of(self, target, k, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Induction, "k_induction_of", recorded)
    spec = load_spec("president_breaks_ties")
    prop = next(p for p in load_properties(spec) if p.name == "majority_elects")
    verdict = check_property(spec, prop, 5, Limits(time_limit=300, first_game=True))
    assert verdict.verdict == "refuted", verdict
    assert "random game" in (verdict.evidence.note or "")
    assert asked == []
