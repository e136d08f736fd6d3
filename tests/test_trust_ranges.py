"""A game alone shows a field outside its declared range (`values_in_range` refuted),
so a worker's or a cache's kill by it is believed once its game replays and shows it.

Found by `mutate --operator escaped --cache DIR --workers 2` at 5 players: the mutant
whose accepted veto sets the Election Tracker to the count of Fascist Policies (R-V3)
was killed by a random game putting the tracker at 5 (R-E8 says 0..3), and the run then
stopped with "a worker's outcome ... does not check", since the kill could not be
replayed into a verdict the parent believed.
"""

from __future__ import annotations

from random import Random

import pytest

from engine.game import Game
from engine.play import Deadlock, Unfinished, random_game
from engine.trace import Trace
from spec.loader import load_spec
from verify.diff.mutate import catalogue, monitored
from verify.diff.operators import mutants
from verify.explicit.codec import Codec, OutOfRange
from verify.results import VerdictKind
from verify.scale.trust import NotBelieved, can_show, shows


def _played(game: Game, seed: int) -> Trace:
    try:
        return random_game(game, rng=Random(seed), max_moves=400)
    except (Deadlock, Unfinished) as stopped:
        return stopped.trace


def _out_of_range(trace: Trace) -> bool:
    codec = Codec(trace.game)
    for state in [trace.start, *(state for _, state in trace.steps)]:
        try:
            codec.encode(state)
        except OutOfRange:
            return True
    return False


def test_a_game_with_a_field_out_of_range_shows_values_in_range_refuted() -> None:
    base = load_spec("standard")
    [mutant] = [m for m in mutants(base, ("neighbour_read",), ("accept_veto",))
                if m.description.endswith("reads fascist_policies for election_tracker")]
    game = Game(monitored(mutant.spec), 5)
    prop = {p.name: p for p in catalogue(game.spec, 5, ("values_in_range",))}["values_in_range"]
    trace = next(t for t in (_played(game, seed) for seed in range(3000)) if _out_of_range(t))
    assert can_show(prop, VerdictKind.REFUTED)
    assert shows(trace, prop, VerdictKind.REFUTED)


def test_a_game_within_the_ranges_shows_nothing() -> None:
    game = Game(monitored(load_spec("standard")), 5)
    prop = {p.name: p for p in catalogue(game.spec, 5, ("values_in_range",))}["values_in_range"]
    trace = _played(game, 1)
    with pytest.raises(NotBelieved, match="does not show values_in_range refuted"):
        shows(trace, prop, VerdictKind.REFUTED)
