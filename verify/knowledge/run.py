"""The no-leak certificate for a rule set and player count: a stepwise proof, else the
search for the shortest leak.

The proof is stepwise (stepwise.py): over every reachable transition, a seat's view after
a move is a function of its view before and what the move shows it; by induction on the
history, the view is then a function of the observation history. Two ways to check it:

- `auto` (the default) and `smt`: one Z3 query per seat and rule over two copies of one
  step, under the inductive support (verify/smt/stepwise.py) — proved only if every
  query is unsatisfiable;
- `explicit`: one pass over the explicit state graph (stepwise.py), complete or unknown.

When the proof does not close, that is not yet a leak. `auto` asks every query, to list
every rule whose step does not close, and runs the directed search (directed.py): the
shortest game in which such a rule is taken, found by the solver, and along its
observations the games each seat cannot tell from it; a pair there with different views
is a leak, the shortest when that game is as short as any taking an open rule. Where it
finds none, `auto` and `explicit` run the belief search (beliefs.py) with the time left,
which finds the shortest pair of games with the same observations and different views, or
says unknown; `smt` runs the solver's
self-composition (verify/smt/selfcompose.py: BMC to a depth), whose pair is replayed by
the engine, and its observations and views compared by the engine, before it is reported.
Nothing is called a leak without its pair, nor proved without a complete check.
"""

from __future__ import annotations

import time

from engine.game import Game
from engine.observe import observer
from spec.model import Spec

from .beliefs import Progress, roots, rotated_back, search
from ..results import KnowledgeVerdict
from ..rules import Rules
from .certificate import Certificate, Leak, difference
from .directed import directed
from .stepwise import PassVerdict, stepwise

BACKENDS = ("auto", "explicit", "smt")


def certify(rules: Rules, players: int, backend: str, time_limit: float | None = None, depth: int = 12,
            max_beliefs: int | None = None, progress: Progress | None = None) -> Certificate:
    """The certificate of the rules at `players` (exit status in `Certificate.exit_status`)."""
    started = time.monotonic()
    spec = rules.spec
    game = Game(spec, players)
    _, symmetry = roots(game)
    if backend == "explicit":
        found = stepwise(game, time_limit, progress=progress)
        figures = {"states": found.states, "transitions": found.transitions, "keys": found.keys,
                   "views": found.views, "observations": found.observations}
        if found.verdict is PassVerdict.PROVED:
            return Certificate(spec.name, players, "explicit stepwise pass", KnowledgeVerdict.PROVED,
                               tuple(range(players)), _pass_seats(symmetry), found.seconds, figures, found.reason)
        return _search(game, spec.name, started, time_limit, max_beliefs, progress,
                       f"the stepwise pass: {found.reason}")
    from verify.smt.stepwise import decide as decide_stepwise   # z3 is loaded only here

    proof = decide_stepwise(spec, players, time_limit, progress, every=backend == "auto")
    figures = {"queries": proof.queries, "support invariants": proof.support}
    if proof.verdict is KnowledgeVerdict.PROVED:
        return Certificate(spec.name, players, "smt stepwise", KnowledgeVerdict.PROVED, tuple(range(players)),
                           "every seat checked", time.monotonic() - started, figures, proof.reason)
    left = None if time_limit is None else max(1.0, time_limit - (time.monotonic() - started))
    why = f"the stepwise proof does not close: {proof.reason}"
    if backend == "auto":
        if proof.open:
            aimed = directed(spec, game, proof.open, proof.complete, left, progress)
            if aimed.leak is not None:
                return Certificate(spec.name, players, "smt stepwise, directed search", KnowledgeVerdict.LEAK,
                                   (aimed.leak.seat,), "every seat tried along the game", time.monotonic() - started,
                                   {**figures, **aimed.figures}, f"{why}; {aimed.reason}", aimed.leak)
            why = f"{why}; the directed search: {aimed.reason}"
            left = None if time_limit is None else max(1.0, time_limit - (time.monotonic() - started))
        return _search(game, spec.name, started, left, max_beliefs, progress, why)
    return _self_composition(spec, game, started, left, depth, progress, why)


def _pass_seats(symmetry: str) -> str:
    if "rotation" in symmetry:
        return "every seat of each canonical state, keyed relative to the seat (rotation symmetry)"
    return "every seat checked"


def _search(game: Game, rules: str, started: float, time_limit: float | None, max_beliefs: int | None,
            progress: Progress | None, why: str) -> Certificate:
    """The belief search for the shortest leak, after a proof that did not close: a leak
    (with its pair), or unknown — never proved here unless the search itself is complete."""
    left = None if time_limit is None else max(1.0, time_limit - (time.monotonic() - started))
    found = search(game, rules, left, max_beliefs, progress)
    found.seconds = time.monotonic() - started
    if found.verdict is KnowledgeVerdict.UNKNOWN:
        found.reason = f"{why}; the belief search: {found.reason}"
    elif found.verdict is KnowledgeVerdict.PROVED:
        found.reason = f"{why}; the belief search is complete: {found.reason}"
    return found


def _self_composition(spec: Spec, game: Game, started: float, time_limit: float | None, depth: int,
                      progress: Progress | None, why: str) -> Certificate:
    from verify.smt.selfcompose import decide, replay

    starts, symmetry = roots(game)
    players = game.players
    if len(starts) > 1 and starts[0][1] == starts[1][1]:
        return Certificate(spec.name, players, "smt", KnowledgeVerdict.UNKNOWN,
                           (), symmetry, time.monotonic() - started, {},
                           f"{why}; the solver checks seat 0 alone, which the rules' asymmetry does not allow")
    outcome = decide(spec, players, depth, time_limit, progress, tuple(start for _, start in starts))
    figures = {"depth": outcome.depth}
    seconds = time.monotonic() - started
    if outcome.verdict is not KnowledgeVerdict.LEAK or outcome.pair is None:
        return Certificate(spec.name, players, "smt", outcome.verdict, (0,), symmetry, seconds, figures,
                           f"{why}; {outcome.reason}")
    first, second = replay(spec, players, outcome.pair, outcome.start)
    watch = observer(first.game)
    seen = [[watch.observation(before, move, after, 0) for before, (move, after) in zip(trace.states, trace.steps)]
            for trace in (first, second)]
    assert seen[0] == seen[1], "the engine shows seat 0 the same moves in the solver's two games"
    found = difference(first.game, watch.view(first.end, 0), watch.view(second.end, 0))
    assert found is not None, "the engine shows seat 0 different views at the end of the solver's games"
    first, second, seat = rotated_back(first.game, first, second, 0)
    return Certificate(spec.name, players, "smt", KnowledgeVerdict.LEAK, (0,), symmetry, seconds, figures,
                       f"shortest: no leak within {outcome.depth - 1} moves", Leak(seat, first, second, found))
