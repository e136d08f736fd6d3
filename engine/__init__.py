"""The executable game of Secret Hitler, compiled from the rules in spec/.

The functions here take bare states: a state knows the compiled `Game` it belongs to.

    >>> from engine import new_game, legal_moves, apply
    >>> state = new_game(7, seed=1)
    >>> move = legal_moves(state)[0]
    >>> state = apply(state, move)
"""

from __future__ import annotations

from fractions import Fraction
from random import Random

from .game import Game, IllegalMove, Move, State, compiled_game, game_of

__all__ = ["Game", "IllegalMove", "Move", "apply", "chance_outcomes", "compiled_game", "game_of", "how",
           "is_over", "legal_moves", "new_game", "winner"]


def new_game(players: int, seed: int | None = None, *, hitler: int | None = None,
             fascists: list[int] | None = None, first_president: int | None = None,
             rules: str = "standard") -> State:
    """A game ready for the first nomination: roles dealt and first President chosen
    at random (R-S2, R-S6) from `seed`, or as given."""
    game = compiled_game(players, rules)
    rng = Random(seed)
    state = game.initial_state()
    if hitler is None or fascists is None:
        deal = game.sample_chance(state, rng)
    else:
        deal = game.role_move("deal", hitler_seat=hitler, fascist_seats=fascists)
    state = game.apply(state, deal)
    if first_president is None:
        first = game.sample_chance(state, rng)
    else:
        opening = game.spec.role_rule("opening")
        first = game.move(opening.name, **{opening.params[0].name: first_president})
    state = game.apply(state, first)
    return state


def legal_moves(state: State) -> list[Move]:
    """Every legal move now."""
    return game_of(state).legal_moves(state)


def apply(state: State, move: Move, by: int | None = None) -> State:
    """The state after a move, or `IllegalMove` with the rule ID and the reason."""
    return game_of(state).apply(state, move, by)


def chance_outcomes(state: State) -> list[tuple[Move, Fraction]]:
    """Chance moves possible now, with exact probabilities."""
    return game_of(state).chance_outcomes(state)


def is_over(state: State) -> bool:
    """Whether the game has been won."""
    return game_of(state).is_over(state)


def winner(state: State) -> str | None:
    """'liberal', 'fascist' or None."""
    return game_of(state).winner(state)


def how(state: State) -> str | None:
    """'policies', 'execution', 'hitler_chancellor' or None."""
    return game_of(state).how(state)
