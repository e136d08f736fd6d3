"""Short violations before inference (verify/smt/shallow.py): a mutant that breaks a
state or move invariant within a few moves is refuted on the bare rules, by a shortest
game that the engine replays, and nothing is claimed of what the pass does not reach."""

from __future__ import annotations

import time

import pytest

from engine.game import Game
from spec.loader import load_spec
from spec.model import Spec
from spec.properties import Property, load_properties
from verify.diff.operators import mutants
from verify.explicit.check import check_game
from verify.explicit.explore import Limits
from verify.results import Refuted

pytest.importorskip("z3", reason="the solver backend needs z3-solver")

from verify.smt import check as smt_check  # noqa: E402  (after the skip: it imports z3)
from verify.smt.shallow import SHALLOW_KINDS, violations_within  # noqa: E402


def _mutant(rule: str, description: str) -> Spec:
    base = load_spec("standard")
    (found,) = [m for m in mutants(base, ("drop_requirement",), (rule,)) if m.description == description]
    return found.spec


def _asked(spec: Spec, players: int) -> list[Property]:
    return [p for p in load_properties(spec) if players in p.players]


def _no_inference(*args: object, **kwargs: object) -> None:
    raise AssertionError("the pass must not infer invariants")


@pytest.mark.parametrize("rule, description", [
    ("nominate", "requirement 'chancellor != president' dropped"),             # R-E3, three moves in
    ("reshuffle", "requirement 'pile < hand_size' dropped"),                   # R-L5, ten moves in
])
def test_an_early_break_is_refuted_by_a_shortest_game_without_inference(
        monkeypatch: pytest.MonkeyPatch, rule: str, description: str) -> None:
    """The game found is as long as the explicit search's shortest violation of the same
    property (breadth first, so shortest), and each move is legal in the engine."""
    monkeypatch.setattr(smt_check, "strengthen", _no_inference)
    spec = _mutant(rule, description)
    found = violations_within(spec, 5, _asked(spec, 5), time.perf_counter() + 120.0)
    prop, refuted = next(found)          # the rest, not drawn, would go on deeper until the deadline
    assert isinstance(refuted, Refuted) and refuted.trace is not None and refuted.lower_bound is None
    assert prop.kind in SHALLOW_KINDS
    game = Game(spec, 5)
    state = game.initial_state()
    for move, after in refuted.trace.steps:
        state = game.apply(state, move)
        assert tuple(state) == tuple(after)
    (raw,) = check_game(game, (prop,), Limits(None, 300.0, None), stop_on=frozenset({prop.name}),
                        fewest_elections=False)
    assert raw.verdict == "refuted" and raw.moves is not None
    assert refuted.evidence.depth == len(refuted.trace.steps) == len(raw.moves), (prop.name, raw.moves)


def test_the_rules_themselves_break_nothing_the_pass_reaches() -> None:
    """Every state and move invariant of the catalogue holds in the standard rules: a pass
    over them, however deep it gets in its time, refutes none."""
    spec = load_spec("standard")
    assert list(violations_within(spec, 5, _asked(spec, 5), time.perf_counter() + 5.0)) == []


def test_a_depth_not_reached_claims_nothing() -> None:
    """The reshuffle mutant breaks its property ten moves in: a pass stopped before that
    yields nothing, rather than a verdict for the depths it did not ask."""
    spec = _mutant("reshuffle", "requirement 'pile < hand_size' dropped")
    assert list(violations_within(spec, 5, _asked(spec, 5), time.perf_counter() + 0.01)) == []


def test_the_mutants_first_verdict_comes_before_its_invariants_are_inferred(monkeypatch: pytest.MonkeyPatch) -> None:
    """`verdicts_under` with a shallow share yields the pass's refutation first; inference,
    which would fail here, is not reached before it."""
    monkeypatch.setattr(smt_check, "strengthen", _no_inference)
    spec = _mutant("nominate", "requirement 'chancellor != president' dropped")
    verdicts = smt_check.verdicts_under(spec, 5, _asked(spec, 5), 60.0, hints=False, shallow=30.0)
    prop, verdict = next(verdicts)
    assert prop.name == "nominee_eligible" and isinstance(verdict, Refuted), (prop.name, verdict)
    assert verdict.evidence.depth == 3 and "before any invariant was inferred" in verdict.evidence.note
