"""Random play: complete games with uniformly random legal moves and exact chance.

Every seat's (and the table's) choice is uniform over the legal moves of the moment;
chance moves are drawn with the spec's exact weights; the game's forced moves run as
they come. The same seed gives the same game, move for move.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from random import Random

from .game import Game, compiled_game
from .trace import Trace


def random_game(game: Game, seed: int | None = None, rng: Random | None = None) -> Trace:
    """Play one complete game from the deal, recording every move."""
    rng = rng or Random(seed)
    state = game.initial_state()
    trace = Trace(game, state)
    move = game.random_move(state, rng)
    while move is not None:
        state = game.apply(state, move)
        trace.append(move, state)
        move = game.random_move(state, rng)
    return trace


@dataclass(frozen=True, slots=True)
class BenchFigure:
    """Random-play throughput for one player count."""

    players: int
    games: int
    seconds: float
    moves_per_game: float
    choices_per_game: float

    @property
    def games_per_second(self) -> float:
        """Complete games per CPU second."""
        return self.games / self.seconds if self.seconds else 0.0


def bench_random_play(players: int, seconds: float = 3.0, seed: int = 0, rules: str = "standard") -> BenchFigure:
    """Play complete random games for about `seconds` of CPU time, without recording
    traces, and count games, moves and seat/table choices."""
    game = compiled_game(players, rules)
    rng = Random(seed)
    random_step = game.random_step
    phase_index = game.phase_index
    choice_phases = [kind == 2 for kind in game.phase_kind]
    games = moves = choices = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        state = game.initial_state()
        while state is not None:
            if choice_phases[state[phase_index]]:
                choices += 1
            state = random_step(state, rng)
            moves += 1
        moves -= 1  # the last call found the game over and made no move
        games += 1
        now = time.process_time()
        if now >= deadline:
            break
    elapsed = time.process_time() - start
    return BenchFigure(players, games, elapsed, moves / games, choices / games)
