"""Rule sequences of random games that reach a `sometimes` target: guides for the solver.

Two uses (verify/smt/check.py `Backend.search`). Before the deep query at a tight lower
bound, games exactly that long: a path along one is a shortest witness for one quick
query. And once that search stalls, as follows.

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

from engine.game import MAX_MOVES, Game
from spec.properties import Property

from engine.propcheck import compile_checks
from .guides import Guide

PLAYOUT_SECONDS = 2.0
"""The most random play may take for one property once the search stalled (about 5,000
complete games at 5 players, each state and move checked)."""

PLAYOUT_FIRST_SECONDS = 2.0
"""The most random play may take before the deep query at a tight lower bound: a game
exactly that long saves the query (at 7 players 4 of the catalogue's 7 witnesses come
this way within 2 s, 3 within 1 s; the policy wins and the veto's chaos not within 4 s),
and a miss costs this."""

PLAYOUT_GAMES = 20_000
"""The most random games played for one property."""

MAX_PLAYOUT_GUIDES = 4
"""The shortest distinct guides kept: tried in turn, shortest first."""


def played_guides(game: Game, prop: Property, seconds: float = PLAYOUT_SECONDS, games: int = PLAYOUT_GAMES,
                  seed: int = 0, at_least: int = 1, exactly: bool = False) -> list[Guide]:
    """The rule sequences, shortest first, of random games up to the first state or move
    where `prop` (a `sometimes` property, state or move) holds, at least `at_least` moves
    long (shorter paths are known not to exist), or exactly that long with `exactly`.
    Seeded: the same rules, seed and number of games give the same guides. Empty when no
    game played within `seconds` or `games` gets there.

    The games are played by the engine's fast random step (`Game.recorded_steps`, every
    move legal, chance with its exact weight), told each move's rule and parameters; a
    game cut short (no legal move, or `MAX_MOVES` played) still counts up to there."""
    checks = compile_checks(game, (prop,))
    state_checks, move_checks = checks.state, checks.move
    phase_index = game.phase_index
    names = [compiled.rule.name for compiled in game.rules]
    made: list[tuple[int, tuple[int, ...]]] = []
    steps = game.recorded_steps(lambda index, args: made.append((index, args)))
    rng = Random(seed)
    found: set[Guide] = set()
    longest = at_least if exactly else MAX_MOVES
    stop = time.perf_counter() + seconds
    for _ in range(games):
        if time.perf_counter() > stop:
            break
        made.clear()
        state = game.initial_state()
        while len(made) < longest:
            step = steps[state[phase_index]]
            if step is None:
                break
            try:
                after = step(state, rng)
            except AssertionError:   # no legal move (a deadlock the rules allow): the game ends here
                break
            if after is None:
                break
            index, args = made[-1]
            check = move_checks[index]
            hit = check is not None and bool(check(state, after, *args))
            if not hit:
                state_check = state_checks[after[phase_index]]
                hit = state_check is not None and bool(state_check(after))
            if hit:
                if len(made) == at_least or (len(made) > at_least and not exactly):
                    found.add(tuple(names[index] for index, _ in made))
                break
            state = after
    return sorted(found, key=lambda guide: (len(guide), guide))[:MAX_PLAYOUT_GUIDES]
