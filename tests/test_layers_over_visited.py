"""Rules whose games can go round, decided by the layered search breadth-first over a set
of every state taken (verify/explicit/layers.py `BREADTH_FIRST`, visited.py).

An accepted veto that leaves the Election Tracker where it was (R-V3 broken:
mistakes/veto_costs_nothing) lets a game come back to a state, so no ranking fits and the
sweep by rank stops. The layered search then takes its layers by the fewest decisions,
dropping every state met before: it finds the reference's graph (the same states and
transitions as explore.py's breadth-first search) and its hits as shallow, `terminates`
is refuted by a game that comes back to a state (cycles.py), and a limit hit proves
nothing. The whole catalogue at every shipped rule set, the cycling ones included, is
compared with the reference in games started further along the tracks by
test_layered_check.py; here the full 5-player game.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from engine.game import compiled_game
from verify.explicit import visited as visited_module
from helpers import length, message
from verify.explicit.check import check_game, select
from verify.explicit.explore import Limits, explore
from verify.explicit.layers import BREADTH_FIRST, LayeredSearch
from verify.explicit.model import Model
from verify.explicit.visited import Visited
from verify.results import PropertyResult, Refuted, Witnessed
from verify.rules import Rules

CYCLING = "mistakes/veto_costs_nothing"
ALSO_CYCLING = "mistakes/election_resets_tracker"       # any election, even a failed one, resets the tracker
ALONG = "[start_liberal=4; start_fascist=3]"


def test_the_set_finds_exactly_the_keys_added(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ids of the keys added, -1 for the others, over runs merged as they grow; with every
    key under one hash too (the words, not the hash, decide)."""
    rng = np.random.default_rng(3)
    keys = np.unique(rng.integers(0, 1 << 20, size=(2, 3000), dtype=np.uint64), axis=1)
    added, other = keys[:, :2000], keys[:, 2000:]
    for collide in (False, True):
        if collide:
            monkeypatch.setattr(visited_module, "mixed", lambda words: np.zeros(words.shape[1], dtype=np.uint64))
        seen = Visited()
        for start in range(0, 2000, 300):      # a layer at a time: several runs, some merged
            seen.add(added[:, start:start + 300], np.arange(start, min(start + 300, 2000), dtype=np.int64))
        assert seen.count == 2000 and len(seen.runs) < 7
        both = np.concatenate([other, added[:, ::-1]], axis=1)
        found = seen.find(both)
        assert found[:other.shape[1]].tolist() == [-1] * other.shape[1]
        assert found[other.shape[1]:].tolist() == list(range(1999, -1, -1))


@pytest.mark.parametrize("rules", ["standard" + ALONG, CYCLING + ALONG, ALSO_CYCLING + ALONG])
def test_the_breadth_first_layers_are_the_reference_graph(rules: str) -> None:
    """The same states, transitions, depth and states per depth as the breadth-first
    search, with games that go round as without."""
    model = Model(compiled_game(5, rules), ())
    layered = LayeredSearch(model).run(breadth_first=True)
    reference = explore(model, (), Limits())
    assert layered.complete and reference.complete
    assert (layered.states, layered.transitions, layered.depth) == (reference.states, reference.transitions,
                                                                    reference.depth)
    starts = [*reference.layers, reference.states]     # where each of its depths begins
    assert layered.per_depth == {depth: stop - start for depth, (start, stop) in enumerate(zip(starts, starts[1:]))}


def test_the_sweep_by_the_ranking_stops_where_a_game_goes_round() -> None:
    model = Model(compiled_game(5, CYCLING + ALONG), ())
    assert "the ranking does not decrease" in LayeredSearch(model).run().limit


SOME = ("terminates", "deadlock_free", "values_in_range", "deck_conservation_liberal", "liberal_policy_win",
        "accepted_veto_advances_the_tracker", "order_goes_on_after_chaos_due")
"""Properties of every sort: the graph's, an invariant, a win by elections, the one the
mistake breaks, and one over the monitored order of play."""


def decided(rules: str, names: tuple[str, ...] | None, limits: Limits = Limits(time_limit=600),
            explorer: str = "layers") -> dict[str, PropertyResult]:
    game = compiled_game(5, rules)
    props = tuple(prop for prop in select(Rules.named(rules), names) if 5 in prop.players)
    return {raw.property: raw for raw in check_game(game, props, limits, explorer=explorer)}


def test_a_cycling_variant_is_decided_by_the_layered_search() -> None:
    """At 5 players, from the start: every property decided, by the breadth-first layers
    (the evidence says so), `terminates` refuted by a game that goes round, the win with
    its fewest elections, every trace replayed through the engine."""
    raws = decided(CYCLING, SOME)
    assert set(raws) == set(SOME)
    assert not [name for name, raw in raws.items() if raw.verdict.verdict == "unknown"]
    # the game that goes round, found depth-first first, spares the sweep by the ranking
    assert all(BREADTH_FIRST in raw.verdict.evidence.note and "no ranking fits" in raw.verdict.evidence.note
               for raw in raws.values())
    assert isinstance(raws["terminates"].verdict, Refuted) and "go round for ever" in message(raws["terminates"])
    assert isinstance(raws["accepted_veto_advances_the_tracker"].verdict, Refuted)
    assert raws["deck_conservation_liberal"].verdict.verdict == "proved"
    assert isinstance(raws["liberal_policy_win"].verdict, Witnessed)
    assert isinstance(raws["liberal_policy_win"].facts.fewest_elections, int)
    for raw in raws.values():       # every game replays through the engine, as a process receiving it does
        for game in (getattr(raw.verdict, "played", None), raw.facts.fewest_elections_game):
            if game is not None:
                pickle.loads(pickle.dumps(game)).trace


def test_a_limit_on_the_breadth_first_layers_proves_nothing() -> None:
    raws = decided(CYCLING, SOME, Limits(max_states=20_000))
    assert {raw.verdict.verdict for raw in raws.values()} <= {"unknown", "witness", "refuted"}
    assert any(raw.verdict.verdict == "unknown" and "20,000 states" in message(raw) for raw in raws.values())


def summary(raws: dict[str, PropertyResult]) -> dict[str, tuple[object, ...]]:
    """Verdicts, lengths and fewest elections; `terminates` by its verdict alone (a game
    that goes round is found depth-first, not the shortest)."""
    return {name: (raw.verdict.verdict,) if name == "terminates" else
            (raw.verdict.verdict, raw.verdict.evidence.depth, length(raw), raw.facts.fewest_elections)
            for name, raw in raws.items()}


@pytest.mark.slow
def test_the_cycling_five_player_catalogue_equals_the_reference() -> None:
    """The whole catalogue at 5 players, by the layers and by the reference (the old
    path: breadth-first one state at a time, fewest elections by a search of their own)."""
    layered = decided(CYCLING, None)
    assert not [name for name, raw in layered.items() if raw.verdict.verdict == "unknown"]
    assert summary(layered) == summary(decided(CYCLING, None, explorer="bfs"))
