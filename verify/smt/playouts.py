"""Rule sequences of random games that reach a `sometimes` target: guides when BMC stalls.

The shortest witness of a `sometimes` property is searched for depth by depth from a
proved lower bound, and every depth below the shortest one is an unsatisfiable query.
Without the written hints the bound is looser (the found distance: 59 moves where the
shortest Fascist policy win at 5 players takes 64), and at 7 players or under a variant
those queries can outlast the property's time limit. The search then knows that no game
shorter than the depth it reached gets there, but it holds no game that does, so the
verdict used to be unknown, although the thing happens in nearly every other random
game.

Here the engine plays random games, and the rules of the moves of each game up to the
first state (or move) where the property holds become a guide: the solver is asked for a
path of exactly those rules (verify/smt/bmc.py `guided`), which it answers quickly since
it only chooses parameters. A path found is a real one, replayed through the engine like
every BMC path. It decides the property; it is a shortest one only when its length equals
the depth the plain search reached, and otherwise the verdict says how far apart the
two are (`Witnessed.lower_bound`).

Nothing here decides a verdict on its own: a guide that leads nowhere costs one query.
"""

from __future__ import annotations

import time
from random import Random

from engine.game import Game
from engine.play import Deadlock, Unfinished, random_game
from spec.properties import Property

from engine.propcheck import compile_checks
from .guides import Guide

PLAYOUT_SECONDS = 2.0
"""The most random play may take for one property (about 10,000 games at 5 players)."""

PLAYOUT_FIRST_SECONDS = 1.0
"""The most random play may take before the deep query at a tight lower bound: a game
exactly that long saves the query (at 7 players about half of the catalogue's witnesses
come this way), and a miss costs this."""

PLAYOUT_GAMES = 20_000
"""The most random games played for one property."""

MAX_PLAYOUT_GUIDES = 4
"""The shortest distinct guides kept: tried in turn, shortest first."""


def played_guides(game: Game, prop: Property, seconds: float = PLAYOUT_SECONDS, games: int = PLAYOUT_GAMES,
                  seed: int = 0, at_least: int = 1, exactly: bool = False) -> list[Guide]:
    """The rule sequences, shortest first, of random games up to the first state or move
    where `prop` (a `sometimes` property, state or move) holds, at least `at_least` moves
    long (shorter paths are known not to exist), or exactly that long with `exactly`. Seeded: the same rules and seed give the
    same guides. Empty when no game played within `seconds` or `games` gets there."""
    checks = compile_checks(game, (prop,))
    state_checks, move_checks = checks.state, checks.move
    phase_index = game.phase_index
    index_of = {compiled.rule.name: compiled.index for compiled in game.rules}
    rng = Random(seed)
    found: set[Guide] = set()
    stop = time.perf_counter() + seconds
    for _ in range(games):
        if time.perf_counter() > stop:
            break
        try:
            trace = random_game(game, rng=rng)
        except (Deadlock, Unfinished) as error:   # a game cut short still reached what it reached
            trace = error.trace
        before = trace.start
        for position, (move, after) in enumerate(trace.steps):
            check = move_checks[index_of[move.rule]]
            hit = check is not None and bool(check(before, after, *move.args))
            if not hit:
                state_check = state_checks[after[phase_index]]
                hit = state_check is not None and bool(state_check(after))
            if hit:
                if position + 1 == at_least or (position + 1 > at_least and not exactly):
                    found.add(tuple(move.rule for move, _ in trace.steps[:position + 1]))
                break
            before = after
    return sorted(found, key=lambda guide: (len(guide), guide))[:MAX_PLAYOUT_GUIDES]
