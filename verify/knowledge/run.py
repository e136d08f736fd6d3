"""The no-leak certificate for a rule set and player count, by either backend.

`explicit` is the complete belief search (beliefs.py), meant for 5 and 6 players; `smt`
the Z3 backend's self-composition (verify/smt/selfcompose.py, imported inside the
function: the command line must not load z3), BMC to a depth then the induction step.
A pair of games the solver finds is replayed by the engine, and the engine's own
observations and views decide it before it is reported as a leak.
"""

from __future__ import annotations

import time

from engine.game import Game
from engine.observe import observer
from spec.loader import load_spec

from .beliefs import Progress, roots, rotated_back, search
from .certificate import Certificate, Leak, difference


def certify(rules: str, players: int, backend: str, time_limit: float | None = None, depth: int = 12,
            max_beliefs: int | None = None, progress: Progress | None = None) -> Certificate:
    """The certificate (exit status in `Certificate.exit_status`)."""
    spec = load_spec(rules)
    game = Game(spec, players)
    if backend == "explicit":
        return search(game, spec.name, time_limit, max_beliefs, progress)
    from verify.smt.selfcompose import decide, replay   # z3 is loaded only here

    started = time.monotonic()
    starts, symmetry = roots(game)
    if len(starts) > 1 and starts[0][1] == starts[1][1]:
        return Certificate(spec.name, players, "smt", "unknown", (), symmetry, 0.0, {},
                           "the solver checks seat 0 alone, which the rules' asymmetry does not allow")
    outcome = decide(spec, players, depth, time_limit, progress, tuple(start for _, start in starts))
    figures = {"depth": outcome.depth}
    seconds = time.monotonic() - started
    if outcome.verdict != "leak" or outcome.pair is None:
        return Certificate(spec.name, players, "smt", outcome.verdict, (0,), symmetry, seconds, figures,
                           outcome.reason)
    first, second = replay(spec, players, outcome.pair, outcome.start)
    watch = observer(first.game)
    seen = [[watch.observation(before, move, after, 0) for before, (move, after) in zip(trace.states, trace.steps)]
            for trace in (first, second)]
    assert seen[0] == seen[1], "the engine shows seat 0 the same moves in the solver's two games"
    found = difference(first.game, watch.view(first.end, 0), watch.view(second.end, 0))
    assert found is not None, "the engine shows seat 0 different views at the end of the solver's games"
    first, second, seat = rotated_back(first.game, first, second, 0)
    return Certificate(spec.name, players, "smt", "leak", (0,), symmetry, seconds, figures,
                       f"shortest: no leak within {outcome.depth - 1} moves", Leak(seat, first, second, found))
