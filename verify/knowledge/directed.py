"""The directed leak search: a pair of games along one shortest game in which a rule whose
stepwise step does not close is taken (R-S5, R-L1-R-L4, R-X3, R-X5).

Why this finds the shortest pair. Take a shortest pair of games that show a seat the same
observations and end in different views of it. Their views are equal one move before the
end (else a shorter pair), both ends are reachable, and the last moves are by one rule
(an observation names its rule): so that rule's stepwise query for that seat is
satisfiable (verify/smt/stepwise.py) — the rule is *open*. Every leak therefore ends with
a move of an open rule, and no pair is shorter than the shortest game in which an open
rule is taken (the solver's shortest path, verify/smt/bmc.py, its length proved least).
When the open rules are all known (every query answered) and a pair as long as that
shortest game is found, it is a shortest pair.

Where to look. The belief search (beliefs.py) follows every history of the seat's
observations, which at 7 players is too many to reach a power granted after two Fascist
policies. Here one history is followed: the observations the seat is shown in the
solver's game G. The states the seat cannot tell from G's, move by move, are one belief
per step (the successors, by every legal move, of the belief before, that show the seat
the same observation as G's move); any state of the last one whose view differs from
G's end is the end of a second game, found again by the predecessor each state was first
reached from. Every seat is tried. Both games are replayed by the engine and their
observations and views compared before the pair is reported; none found is not a proof
(other games as short may leak): the caller says unknown.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.game import Game, Move, State
from engine.observe import observer
from engine.trace import Trace
from spec.model import Spec

from .beliefs import Progress
from ..results import Named
from .certificate import Leak, difference


class Followed(Named):
    """What following one game's observations found (`Along.verdict`): a leak, none, or
    unknown when a limit stopped it."""

    LEAK = "leak"
    NONE = "none"
    UNKNOWN = "unknown"

    @classmethod
    def noun(cls) -> str:
        return "verdict along a game"


@dataclass(slots=True)
class Along:
    """What following one game's observations found: a leak, or none (with the largest
    belief met), or `unknown` when a limit stopped it."""

    verdict: Followed
    leak: Leak | None = None
    largest: int = 0
    reason: str = ""
    figures: dict[str, int] = field(default_factory=dict)


def replayed(game: Game, moves: Sequence[Move]) -> Trace:
    """The engine's game of `moves` from the first state (each move checked legal)."""
    trace = Trace(game, game.initial_state())
    for move in moves:
        trace.append(move, game.apply(trace.end, move))
    return trace


def along(game: Game, witness: Trace, seats: Sequence[int], deadline: float | None = None,
          max_states: int | None = None, progress: Progress | None = None) -> Along:
    """The first of `seats` to which the engine's views leak along the observations of
    `witness` (module docstring), with the pair of games."""
    largest = 0
    for seat in seats:
        found = _along_seat(game, witness, seat, deadline, max_states, progress)
        largest = max(largest, found.largest)
        if found.verdict is not Followed.NONE:
            return found
    return Along(Followed.NONE, None, largest, f"no seat's view differs among the games that show it what the "
                 f"{len(witness.steps)}-move game does (largest belief {largest:,} states)",
                 {"largest belief": largest})


def _along_seat(game: Game, witness: Trace, seat: int, deadline: float | None, max_states: int | None,
                progress: Progress | None) -> Along:
    watch = observer(game)
    effects = {compiled.rule.name: compiled.effect for compiled in game.rules}
    # beliefs[k]: the states seat cannot tell from the witness's k-th, each with the state
    # and move it was first reached from.
    beliefs: list[dict[State, tuple[State, Move] | None]] = [{witness.start: None}]
    largest = 1
    for index, (before, (move, after)) in enumerate(zip(witness.states, witness.steps)):
        seen = watch.observation(before, move, after, seat)
        following: dict[State, tuple[State, Move] | None] = {}
        for state in beliefs[-1]:
            if deadline is not None and time.monotonic() > deadline:
                return Along(Followed.UNKNOWN,
                             None, largest, f"the time limit was hit at seat {seat + 1}, move {index + 1}")
            for other in game.legal_moves(state):
                if other.rule != move.rule:
                    continue
                reached = effects[other.rule](state, *other.args)
                if reached in following or watch.observation(state, other, reached, seat) != seen:
                    continue
                following[reached] = (state, other)
        assert after in following, "the witness's own state is among those its seat cannot tell from it"
        beliefs.append(following)
        largest = max(largest, len(following))
        if max_states is not None and largest > max_states:
            return Along(Followed.UNKNOWN, None, largest, f"the limit of {max_states:,} states in a belief was hit at "
                         f"seat {seat + 1}, move {index + 1}")
        if progress is not None:
            progress(f"{game.players} players: seat {seat + 1}, move {index + 1} ({move.rule}): "
                     f"{len(following):,} states the seat cannot tell apart")
    mine = watch.view(witness.end, seat)
    for state in beliefs[-1]:
        if watch.view(state, seat) != mine:
            return Along(Followed.LEAK, _pair(game, witness, beliefs, state, seat), largest,
                         figures={"largest belief": largest})
    return Along(Followed.NONE, None, largest)


def _pair(game: Game, witness: Trace, beliefs: list[dict[State, tuple[State, Move] | None]], end: State,
          seat: int) -> Leak:
    """The witness and the game to `end` found again backwards, both replayed by the engine
    and compared: the same observations for `seat`, different views at the end."""
    moves: list[Move] = []
    state = end
    for belief in reversed(beliefs[1:]):
        parent = belief[state]
        assert parent is not None
        state, move = parent
        moves.append(move)
    assert state == witness.start
    moves.reverse()
    first, second = replayed(game, [move for move, _ in witness.steps]), replayed(game, moves)
    assert second.end == end, "the engine replays the second game to the state found"
    watch = observer(game)
    seen = [[watch.observation(before, move, after, seat) for before, (move, after) in zip(trace.states, trace.steps)]
            for trace in (first, second)]
    assert seen[0] == seen[1], "the engine shows the seat the same moves in both games"
    found = difference(game, watch.view(first.end, seat), watch.view(second.end, seat))
    assert found is not None, "the engine shows the seat different views at the end of the two games"
    return Leak(seat, first, second, found)


@dataclass(slots=True)
class Directed:
    """The directed search's outcome: the pair (or None) and, in words, how short it is
    proved or why none was found."""

    leak: Leak | None
    reason: str
    figures: dict[str, int] = field(default_factory=dict)


def _taking(rule: str) -> Callable[[Any], Any]:
    """The solver's target "the last step is a move of `rule`"."""
    return lambda step: step.fires(rule)


def directed(spec: Spec, game: Game, opened: Sequence[str], complete: bool, time_limit: float | None = None,
             progress: Progress | None = None) -> Directed:
    """A pair of games along the shortest game in which each of the `opened` rules is taken,
    the shortest games first (module docstring); `complete`: `opened` holds every open rule."""
    from verify.results import Limits
    from verify.smt.bmc import Ended, move_target
    from verify.smt.backend import Backend
    from verify.smt.induction import OutOfTime

    started = time.monotonic()
    deadline = None if time_limit is None else started + time_limit

    def left() -> float | None:
        return None if deadline is None else deadline - time.monotonic()

    backend = Backend(spec, game.players)
    remaining = left()
    try:        # the support every search rests on, proved by the deadline (else it is proved unbounded)
        backend.induction.support(None if remaining is None else time.perf_counter() + remaining)
    except OutOfTime as stopped:
        return Directed(None, f"the inductive support was not proved in time ({stopped})")
    best: tuple[int, str, Along] | None = None
    least: dict[str, float] = {}          # rule -> no game takes it in fewer moves (proved)
    tried: list[str] = []
    for rule in opened:
        remaining = left()
        if remaining is not None and remaining <= 0:
            break
        # Once a pair is found, a rule matters only if a shorter game takes it.
        limits = Limits() if best is None else Limits(max_depth=best[0] - 1)
        found = backend.search(move_target(_taking(rule)), limits,
                               None if remaining is None else time.perf_counter() + remaining)
        if found.trace is not None:
            least[rule] = found.depth if found.lower_bound is None else found.lower_bound
        elif found.ended in (Ended.UNREACHABLE, Ended.K_INDUCTIVE):
            least[rule] = float("inf")
        else:
            least[rule] = found.depth + (1 if found.ended in (Ended.TIME, Ended.DEPTH) else 0)
        if progress is not None:
            took = (f"{found.depth} moves" if found.trace is not None else "none: no game takes it"
                    if least[rule] == float("inf") else f"none within {least[rule]:g} moves ({found.stopped})")
            progress(f"{game.players} players: the shortest game taking '{rule}': {took} "
                     f"({time.monotonic() - started:.0f} s)")
        if found.trace is None:
            continue
        tried.append(rule)
        witness = replayed(game, [move for move, _ in found.trace.steps])
        remaining = left()
        seen = along(game, witness, range(game.players), None if remaining is None else time.monotonic() + remaining)
        if seen.verdict is Followed.UNKNOWN:
            if best is None:
                return Directed(None, f"along the shortest game taking '{rule}': {seen.reason}")
            break               # a shorter game takes this rule (the pair found is not called shortest)
        if seen.leak is not None:
            best = (found.depth, rule, seen)
    if best is None:
        return Directed(None, f"no seat's view differs among the games that show it what the shortest game taking "
                        f"{', '.join(repr(r) for r in tried) or 'an open rule'} does")
    length, rule, seen = best
    assert seen.leak is not None
    figures = {"moves": length, "largest belief": seen.largest}
    named = ", ".join(f"'{r}'" for r in opened)
    bound = min(least.values(), default=float("inf"))
    if complete and set(least) == set(opened) and length <= bound:
        moves = f"{length} move{'' if length == 1 else 's'}"
        return Directed(seen.leak, f"shortest: every leak ends with a move of a rule whose step does not close "
                        f"({named}), and no game takes one in fewer than {moves}", figures)
    why = ("not every rule's step was asked" if not complete else
           "the time limit was hit before every open rule was searched" if set(least) != set(opened) else
           f"a rule whose step does not close may be taken in {bound:g} moves")
    return Directed(seen.leak, f"a pair of {length} moves, along the shortest game taking '{rule}'; a shorter pair "
                    f"may exist: {why}", figures)
