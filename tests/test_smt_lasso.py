"""Games that need not end, refuted by the solver alone (verify/smt/lasso.py): where no
ranking is proved, the shortest game to a state that a few moves bring back, random games
that come back to a state leading the search once it stalls; the cycle replayed through
the engine."""

from __future__ import annotations

import pytest

from engine.game import Game
from spec.loader import load_spec
from verify.diff.operators import Mutant, mutants
from verify.results import Limits, Refuted
from verify.smt import check_property
from verify.smt.backend import catalogue_of
from verify.smt.guides import forget_guides
from verify.smt.lasso import CYCLE_MOVES
from verify.smt.playouts import played_guides

pytest.importorskip("z3", reason="the solver backend needs z3-solver")

SPEC = load_spec("standard")
TERMINATES = next(prop for prop in catalogue_of(SPEC) if prop.kind == "terminates")


def mutant(operator: str, rule: str, description: str) -> Mutant:
    """The mutant of the standard rules by `operator` on `rule` described so."""
    (found,) = [m for m in mutants(SPEC, (operator,), (rule,)) if m.description == description]
    return found


REFUSAL_STAYS = mutant("drop_effect", "refuse_veto", "effect phase = 7 dropped")
"""R-V3 mutated: a refused veto leaves the game in the veto phase, where the President may
refuse again, and again."""

WIN_GOES_ON = mutant("drop_effect", "liberal_track_win", "effect phase = 16 dropped")
"""R-W1 mutated: the fifth Liberal policy names the winner but the game is not over, and
the same move may be made again."""


@pytest.mark.slow
@pytest.mark.parametrize("broken", [REFUSAL_STAYS, WIN_GOES_ON], ids=["refusal_stays", "win_goes_on"])
def test_a_game_that_comes_back_to_a_state_refutes_termination(broken: Mutant) -> None:
    """No ranking is proved for the mutant, and the solver alone (no invariant written by
    hand) finds a game that comes back to a state: its last state is the state a few
    moves before it, in the engine's own replay, so the game can go round for ever."""
    forget_guides()
    verdict = check_property(broken.spec, TERMINATES, 5, Limits(time_limit=60), infer=True, hints=False)
    assert isinstance(verdict, Refuted) and verdict.trace is not None, verdict
    assert "need not end" in verdict.message, verdict.message
    states = [tuple(state) for state in verdict.trace.states]
    assert any(states[-1] == states[-1 - back] for back in range(1, CYCLE_MOVES + 1)), verdict.trace.steps[-3:]
    game = Game(broken.spec, 5)
    state = game.initial_state()
    for move, after in verdict.trace.steps:
        state = game.apply(state, move)
        assert tuple(state) == tuple(after)


def test_random_games_stop_where_they_come_back_to_a_state() -> None:
    """A guide for termination is a random game up to the move that brings it back to a
    state it was in at most `CYCLE_MOVES` moves before: the mutant's games get there (the
    winning move made again), the rules' own never do in as many games."""
    guides = played_guides(Game(WIN_GOES_ON.spec, 5), TERMINATES, seconds=30.0, games=300)
    assert guides and all(guide[-2:] == ("liberal_track_win", "liberal_track_win") for guide in guides), guides
    assert played_guides(Game(SPEC, 5), TERMINATES, seconds=30.0, games=300) == []
