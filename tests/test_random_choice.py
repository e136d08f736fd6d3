"""The compiled random step's choice (engine/pycompile.py `_choice_step`): uniform over the
legal moves, and a state with none ends the game after a bounded number of draws.

A changed rule can leave a phase with no legal move (an investigation that no longer
ends the power phase, R-X3, leaves the President investigating until nobody is left).
Rejection sampling never finds a move there; it used to draw a million times before
saying so, about a second of every random game that got stuck, and inference plays
hundreds of them. After `REJECTIONS` draws the legal moves are listed instead.
"""

from __future__ import annotations

from collections import Counter
from random import Random
from typing import Any

import pytest

import engine.pycompile as pycompile
from engine.game import Game, Move, State
from spec.loader import load_spec
from verify.diff.operators import mutants

SPEC = load_spec("standard")


class Counting(Random):
    """A seeded generator that counts its draws."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.draws = 0

    def random(self) -> float:
        self.draws += 1
        return super().random()


def stuck_investigation() -> tuple[Game, Any]:
    """The mutant whose investigation keeps the power phase (its `phase` effect dropped),
    at 7 players, and the first state of a random game where no move is legal."""
    broken = [m for m in mutants(SPEC, ("drop_effect",), ("investigate",)) if "phase" in m.description][0]
    game = Game(broken.spec, 7)
    rng = Random(3)
    for _ in range(200):
        state = game.initial_state()
        for _ in range(400):
            if not game.legal_moves(state) and not game.is_over(state):
                return game, state
            following = game.random_next(state, rng)
            if following is None:
                break
            state = following
    raise AssertionError("no random game of the mutant got stuck")


def test_a_state_with_no_legal_move_is_told_after_a_bounded_number_of_draws() -> None:
    """Where the mutant's President has nobody left to investigate, the compiled step and
    the general random move both say there is no legal move, within a few thousand draws
    (a million before), and random play ends the game there."""
    game, state = stuck_investigation()
    assert game.phase(state) == "power"
    rng = Counting(0)
    with pytest.raises(AssertionError, match="no legal move"):
        game.random_step(state, rng)
    assert rng.draws < 10 * pycompile.REJECTIONS       # a draw for the rule, a few for its parameters
    assert game.random_next(state, Counting(0)) is None
    slow = Counting(0)      # the general path of random play (`Game.sample_choice`) alike
    with pytest.raises(AssertionError, match="no legal move found in phase power"):
        game.sample_choice(state, slow)
    assert slow.draws < 10 * pycompile.REJECTIONS


def test_listing_the_legal_moves_draws_uniformly_among_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no rejection draw at all, the choice comes from the listing alone: every legal
    move of a nomination (R-E2, R-E3) turns up, nothing else, each about equally often."""
    monkeypatch.setattr(pycompile, "REJECTIONS", 0)
    game = Game(SPEC, 7)
    rng = Random(5)
    state = game.initial_state()
    while game.phase(state) != "nominate":
        after = game.random_step(state, rng)
        assert after is not None
        state = after
    legal = game.legal_moves(state)
    assert len(legal) > 1
    by_move: dict[State | None, Move] = {game.apply(state, move): move for move in legal}
    seen = Counter(by_move[game.random_step(state, rng)] for _ in range(6_000))
    assert set(seen) == set(legal)
    expected = 6_000 / len(legal)
    assert all(abs(count - expected) < 0.2 * expected for count in seen.values()), seen


def test_chance_of_equal_weights_lists_its_outcomes_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """The deal (R-S2) is chance of equal weights: with no rejection draw, the compiled step
    lists its outcomes and draws one (a single draw per deal; rejection sampling makes
    about seven), always a legal deal, and different deals turn up."""
    monkeypatch.setattr(pycompile, "REJECTIONS", 0)
    game = Game(SPEC, 5)
    start = game.initial_state()
    outcomes = {game.apply(start, move) for move in game.legal_moves(start)}
    rng = Counting(7)
    dealt = [game.random_step(start, rng) for _ in range(200)]
    assert rng.draws == 200
    assert set(dealt) <= outcomes and len(set(dealt)) > 10
