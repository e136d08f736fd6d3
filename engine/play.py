"""Random play: complete games with uniformly random legal moves and exact chance.

Every seat's (and the table's) choice is uniform over the legal moves of the moment;
chance moves are drawn with the spec's exact weights; the game's forced moves run as
they come. The same seed gives the same game, move for move.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import product
from random import Random

from .game import MAX_MOVES, Game, IllegalMove, Move, PhaseKind, State, compiled_game
from .pycompile import CompiledRule
from .trace import Trace


class Deadlock(Exception):
    """A state that is not over and allows no move: a verdict about the rules (a house
    rule that leaves nobody to nominate), not a crash. It carries the game up to there
    and, for each rule ID, how many of the phase's candidate moves its requirement
    blocks first, so the report names the rules that stop the game."""

    def __init__(self, trace: Trace, blocked: dict[str, int]) -> None:
        self.trace = trace
        self.phase = trace.game.phase(trace.end)
        self.blocked = blocked
        super().__init__(str(self))

    def __str__(self) -> str:
        head = f"no legal move in phase {self.phase} after {len(self.trace.steps)} moves"
        if not self.blocked:
            return f"{head}: the rules have no move for this phase, and the game is not over"
        total = sum(self.blocked.values())
        ids = ", ".join(f"{rule_id} ({count})" for rule_id, count in
                        sorted(self.blocked.items(), key=lambda item: (-item[1], item[0])))
        return f"{head}: each of the {total} candidate moves fails a requirement of {ids}"


class Unfinished(Exception):
    """Random play that reached `MAX_MOVES` without the game ending: rules (a variant, a
    spec from anyone) whose game can go on forever must not make `play` hang."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        super().__init__(f"the game has not ended after {len(trace.steps):,} moves (in phase "
                         f"{trace.game.phase(trace.end)}); the rules may let a game go on forever")




def _candidates(game: Game, state: State) -> Iterator[Move]:
    """Every move of the phase's rules with parameters from their domains, legal or not."""
    for compiled in game.by_phase[state[game.phase_index]]:
        for args in product(*(domain(state) for domain in compiled.domains)):
            yield Move(compiled.rule.name, tuple(args))


PROBES = 8
"""Random candidates tried per rule before the candidates are listed: in random play a
legal move is nearly always among them, and listing a vote's 1,024 Ja sets is not."""
_probe = Random(0)  # its own generator: probing never changes the game a seed gives


def has_legal_move(game: Game, state: State) -> bool:
    """Whether the rules allow any move now. It runs before every move of random play, so
    it first tries a few random candidates per rule (the engine's uniform samplers), and
    lists every candidate only when none of them is legal."""
    rules = game.by_phase[state[game.phase_index]]
    for compiled in rules:
        if any(size(state) <= 0 for size in compiled.sizes):
            continue                                # an empty domain: the rule has no move
        for _ in range(PROBES if compiled.samplers else 1):
            args = tuple(draw(state, _probe) for draw in compiled.samplers)
            if _allowed(compiled, state, args):
                return True
    return any(_allowed(game.by_name[move.rule], state, move.args) for move in _candidates(game, state))


def _allowed(compiled: CompiledRule, state: State, args: tuple[int, ...]) -> bool:
    return bool(compiled.guard(state, *args)) and (compiled.weight is None or compiled.weight(state, *args) > 0)


def blocked_by(game: Game, state: State) -> dict[str, int]:
    """For each rule ID, how many candidate moves its requirement forbids first (the
    engine's own `check`, so the IDs are the ones `judge` would cite)."""
    found: Counter[str] = Counter()
    for move in _candidates(game, state):
        try:
            game.check(state, move)
        except IllegalMove as error:
            found[error.rule_id] += 1
    return dict(found)


def random_game(game: Game, seed: int | None = None, rng: Random | None = None,
                max_moves: int | None = None) -> Trace:
    """Play one complete game from the deal, recording every move; `Deadlock` when the
    rules leave no legal move before the game is over, `Unfinished` after `max_moves`
    (default `MAX_MOVES`)."""
    limit = MAX_MOVES if max_moves is None else max_moves
    rng = rng or Random(seed)
    state = game.initial_state()
    trace = Trace(game, state)
    while not game.is_over(state):
        if len(trace.steps) >= limit:
            raise Unfinished(trace)
        if not has_legal_move(game, state):
            raise Deadlock(trace, blocked_by(game, state))
        move = game.random_move(state, rng)
        assert move is not None, "a legal move exists, so random play finds one"
        state = game.apply(state, move)
        trace.append(move, state)
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
    choice_phases = [kind is PhaseKind.CHOICE for kind in game.phase_kind]
    games = moves = choices = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        state: State | None = game.initial_state()
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
