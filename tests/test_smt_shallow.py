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

from verify.smt import backend as smt_backend  # noqa: E402  (after the skip: it imports z3)
from verify.smt.passes import verdicts_under  # noqa: E402
from verify.smt.lasso import CYCLE_MOVES  # noqa: E402
from verify.smt.playouts import played_breaches  # noqa: E402
from verify.smt.shallow import SHALLOW_KINDS, violations_within  # noqa: E402
from helpers import length, moves


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
    monkeypatch.setattr(smt_backend, "strengthen", _no_inference)
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
    assert raw.verdict.verdict == "refuted" and length(raw) is not None
    assert refuted.evidence.depth == len(refuted.trace.steps) == len(moves(raw)), (prop.name, moves(raw))


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
    monkeypatch.setattr(smt_backend, "strengthen", _no_inference)
    spec = _mutant("nominate", "requirement 'chancellor != president' dropped")
    verdicts = verdicts_under(spec, 5, _asked(spec, 5), 60.0, hints=False, shallow=30.0)
    prop, verdict = next(verdicts)
    assert prop.name == "nominee_eligible" and isinstance(verdict, Refuted), (prop.name, verdict)
    assert verdict.evidence.depth == 3 and "before any invariant was inferred" in verdict.evidence.note


def _by_description(operator: str, rule: str, description: str) -> Spec:
    base = load_spec("standard")
    (found,) = [m for m in mutants(base, (operator,), (rule,)) if m.description == description]
    return found.spec


def _replayed(spec: Spec, players: int, refuted: Refuted) -> Game:
    """The refutation's game, every move legal in the engine and every state the engine's."""
    game = Game(spec, players)
    state = game.initial_state()
    assert refuted.trace is not None
    for move, after in refuted.trace.steps:
        assert move in game.legal_moves(state), move
        state = game.apply(state, move)
        assert tuple(state) == tuple(after)
    return game


def test_random_play_breaks_what_the_mutant_breaks_and_nothing_of_the_rules() -> None:
    """One set of random games checks every property at once: the early reshuffle (R-L5)
    breaks its property no sooner than the ten moves its shortest game takes; 200 games of
    the rules themselves break nothing."""
    spec = _mutant("reshuffle", "requirement 'pile < hand_size' dropped")
    guides = played_breaches(Game(spec, 5), _asked(spec, 5), seconds=600.0, games=200)
    assert "reshuffle_only_when_short" in guides and len(guides["reshuffle_only_when_short"]) >= 10
    standard = load_spec("standard")
    assert played_breaches(Game(standard, 5), _asked(standard, 5), seconds=600.0, games=200) == {}


def test_a_break_past_the_depths_asked_is_found_along_a_random_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chaos that leaves the peeked tiles on the pile (R-E9, `known_top` not dropped)
    breaks deck conservation only some 40 moves in, past every depth asked in a second:
    the game found along a random game's rules is the engine's, breaks the property there,
    and carries the depths asked as its lower bound; no invariant is inferred for it."""
    monkeypatch.setattr(smt_backend, "strengthen", _no_inference)
    spec = _by_description("drop_effect", "chaos", "effect known_top = drop(known_top, 1) dropped")
    now = time.perf_counter()
    prop, refuted = next(violations_within(spec, 5, _asked(spec, 5), now + 1.0, now + 120.0))
    depth = refuted.evidence.depth
    assert prop.name.startswith("deck_conservation") and refuted.trace is not None and depth is not None
    assert refuted.lower_bound is not None and 1 <= refuted.lower_bound < depth
    assert "random game" in refuted.evidence.note
    game = _replayed(spec, 5, refuted)
    (raw,) = check_game(game, (prop,), Limits(None, 300.0, None), stop_on=frozenset({prop.name}),
                        fewest_elections=False)
    assert raw.verdict.verdict == "refuted" and length(raw) is not None
    assert len(moves(raw)) <= depth, "the breadth-first search's game is a shortest one"


def test_a_game_that_need_not_end_is_found_along_a_random_game() -> None:
    """A track win that no longer ends the game (R-W5) lets it go round for ever: with no
    depth asked, the lasso is found along a random game and its cycle replayed, the last
    state one the game was in a few moves before."""
    spec = _by_description("drop_effect", "no_track_win", "effect phase = 11 dropped")
    now = time.perf_counter()
    found = dict(violations_within(spec, 5, _asked(spec, 5), now, now + 120.0))
    (refuted,) = [verdict for prop, verdict in found.items() if prop.kind == "terminates"]
    assert refuted.lower_bound == 0 and refuted.trace is not None
    _replayed(spec, 5, refuted)
    states = [tuple(state) for state in refuted.trace.states]
    assert states[-1] in states[-1 - CYCLE_MOVES:-1]


def test_a_deadlock_is_found_along_a_random_game_and_confirmed_by_the_engine() -> None:
    """An execution that no longer moves the game on (R-X6) leaves it with no move: the
    state the path found ends in has no legal move in the engine and the game is not over."""
    spec = _by_description("drop_effect", "execute", "effect phase = 14 dropped")
    now = time.perf_counter()
    found = dict(violations_within(spec, 6, _asked(spec, 6), now, now + 120.0))
    (refuted,) = [verdict for prop, verdict in found.items() if prop.kind == "deadlock_free"]
    game = _replayed(spec, 6, refuted)
    assert refuted.trace is not None and not game.legal_moves(refuted.trace.end) and not game.is_over(refuted.trace.end)
    assert refuted.lower_bound == 0, "the depths did not ask for a deadlock: no shortest is claimed"


def test_verdicts_under_follows_random_games_before_inference(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a `played` share, `verdicts_under` yields the refutation along a random game
    once the depths stop, before inference, which would fail here."""
    monkeypatch.setattr(smt_backend, "strengthen", _no_inference)
    spec = _by_description("drop_effect", "chaos", "effect known_top = drop(known_top, 1) dropped")
    verdicts = verdicts_under(spec, 5, _asked(spec, 5), 120.0, hints=False, shallow=1.0, played=60.0)
    prop, verdict = next(verdicts)
    assert isinstance(verdict, Refuted) and "random game" in verdict.evidence.note, (prop.name, verdict)


def test_a_permission_broken_deep_is_found_along_a_random_game() -> None:
    """An execution no longer needing the power (R-X6) is legal where the Policy Peek is
    granted, so the peek no longer obliges (R-X1, an `only`): the path found ends with the
    move the property does not allow, legal in the engine where the peek is due."""
    spec = _mutant("execute", "requirement \"power == 'execution'\" dropped")
    now = time.perf_counter()
    found = {prop.name: verdict for prop, verdict in violations_within(spec, 5, _asked(spec, 5), now, now + 120.0)}
    refuted = found["the_peek_granted_is_used"]
    game = _replayed(spec, 5, refuted)
    assert refuted.trace is not None and refuted.trace.steps[-1][0].rule == "execute"
    before = refuted.trace.states[-2]
    assert any(move.rule == "policy_peek" for move in game.legal_moves(before)), "the peek is due there"


def test_random_play_tries_each_game_rule_that_may_fire() -> None:
    """With R-E10's requirement dropped, the session may go on after Hitler is elected
    with three Fascist policies: the game then has two rules it may fire, where the engine
    makes the first. Random play picks among them, so it breaks the property that the
    rules' random games never would."""
    spec = _mutant("legislate", "requirement 'fascist_policies < hitler_zone or nominee != hitler' dropped")
    guides = played_breaches(Game(spec, 5), _asked(spec, 5), seconds=600.0, games=2000)
    assert guides.get("hitler_zone_decides", ())[-1:] == ("legislate",)
