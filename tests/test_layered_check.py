"""The catalogue decided by the layered search (verify/explicit/layered_check.py) equals
the catalogue decided by the breadth-first search, the reference: the same verdict for
every property, the same length of every shortest witness and counterexample, the same
fewest elections of every win and the same longest game.

The whole catalogue is compared on every shipped rule set (the common mistakes included:
they break properties, so refutations, deadlocks and values out of range are compared,
not only proofs), in games started further along the tracks so that the reference
finishes within the suite; the standard 5-player game, whose reference search takes a
minute or more, is compared in the slow tests. The property checks compiled to arrays
are held to the engine's own compiled checks state by state, and a search cut short
proves nothing.
"""

from __future__ import annotations

from functools import lru_cache
import pickle
import os
from pathlib import Path
from random import Random
from typing import Any

import numpy as np
import pytest

from engine.batchcheck import compile_batch_checks
from engine.batched import Rows
from engine.game import compiled_game
from engine.propcheck import compile_checks
from spec.loader import load_spec
from verify.explicit.check import check_game, select
from verify.explicit.explore import Limits
from helpers import length, message, moves, value
from verify.results import PropertyResult, Refuted, Witnessed
from verify.rules import Rules

STANDARD_RULES = Rules.named("standard")

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted([path.stem for path in (ROOT / "spec" / "variants").glob("*.toml")] +
                 [f"mistakes/{path.stem}" for path in (ROOT / "spec" / "variants" / "mistakes").glob("*.toml")])
ALONG = "[start_liberal=4; start_fascist=3]"
"""Both tracks along (the Liberal one a policy from its win): a game of some 26,000
states at 5 players that still reaches the fascist track's last powers, the veto, and
both sides' wins by policies, execution and Hitler's election. (Three Liberal policies
along make it four times larger and the suite's slowest file: that comparison is in the
slow tests.)"""
FURTHER_BACK = "[start_liberal=3; start_fascist=3]"


def summary(raws: list[PropertyResult]) -> dict[str, tuple[Any, ...]]:
    """What must not depend on the search: verdicts, lengths, fewest elections, facts. A
    game that comes back to a state is the one exception: where the ranking does not fit,
    the layered search's fallback finds one depth-first (verify/explicit/cycles.py), a
    game and not the shortest, so only the verdict is compared."""
    return {raw.property: (raw.verdict.verdict,) if raw.property == "terminates" and "a cycle of" in message(raw) else
            (raw.verdict.verdict, raw.verdict.evidence.depth, length(raw),
             raw.facts.fewest_elections, value(raw), raw.facts.longest_moves,
             raw.facts.longest_elections)
            for raw in raws}


def decide(rules: str, players: int, explorer: str, limits: Limits = Limits(time_limit=600)) -> list[PropertyResult]:
    game = compiled_game(players, rules)
    props = tuple(prop for prop in select(Rules.named(rules)) if players in prop.players)
    return check_game(game, props, limits, explorer=explorer)


@lru_cache(maxsize=None)
def decided(rules: str, explorer: str) -> tuple[PropertyResult, ...]:
    """`decide` at 5 players without limits, once per rule set and search in a run."""
    return tuple(decide(rules, 5, explorer))


def five_player_rules() -> list[str]:
    return [rules for rules in ["standard", *SHIPPED] if 5 in load_spec(rules).player_counts]


QUICK_RULES = frozenset({"standard", "custom", "mistakes/veto_costs_nothing", "mistakes/dead_vote",
                         "mistakes/special_election_noop"})
"""The rule sets compared on every run: the rules, a custom board, games that cycle, a rule
the vote breaks, a power that does nothing. The others (some thirty, a minute of searches in
all) are compared under `-m slow`."""


def compared_rules() -> list[Any]:
    return [rules if rules in QUICK_RULES else pytest.param(rules, marks=pytest.mark.slow)
            for rules in five_player_rules()]


@pytest.mark.parametrize("rules", compared_rules())
def test_the_catalogue_equals_the_reference_in_every_rule_set(rules: str) -> None:
    along = rules + ALONG
    layered, reference = decided(along, "layers"), decided(along, "bfs")
    assert summary(list(layered)) == summary(list(reference))
    for raw in layered:     # every game replays through the engine, as a process receiving it replays it
        for game in (getattr(raw.verdict, "played", None), raw.facts.fewest_elections_game, raw.facts.longest_game):
            if game is not None:
                pickle.loads(pickle.dumps(game)).trace


@pytest.mark.slow
def test_the_mistakes_compared_break_what_they_should() -> None:
    """The comparison above is not only of proofs: most mistakes refute properties."""
    verdicts = {(rules, raw.verdict.verdict) for rules in SHIPPED if rules.startswith("mistakes/")
                and 5 in load_spec(rules).player_counts for raw in decided(rules + ALONG, "layers")}
    refuting = {rules for rules, verdict in verdicts if verdict == "refuted"}
    assert len(refuting) >= 20, sorted(refuting)


@pytest.mark.slow
@pytest.mark.parametrize("rules", five_player_rules())
def test_the_catalogue_equals_the_reference_further_back(rules: str) -> None:
    back = rules + FURTHER_BACK
    assert summary(decide(back, 5, "layers")) == summary(decide(back, 5, "bfs"))


@pytest.mark.slow
def test_the_standard_five_player_catalogue_equals_the_reference() -> None:
    assert summary(decide("standard", 5, "layers")) == summary(decide("standard", 5, "bfs"))


@pytest.mark.parametrize("rules", ["standard", "mistakes/dead_vote", "mistakes/investigation_shows_role",
                                   "veto_chaos_first"])
def test_array_checks_fire_where_the_engine_checks_fire(rules: str) -> None:
    """Every state property compiled to arrays is true exactly where the engine's
    compiled check is, on the states of random games (a few thousand, every phase)."""
    game = compiled_game(5, rules)
    props = tuple(prop for prop in select(Rules.named(rules)) if 5 in prop.players and prop.state is not None
                  and prop.kind not in ("allows", "only") and not prop.rules)
    engine, arrays = compile_checks(game, props), compile_batch_checks(game, props)
    rng = Random(7)
    states = []
    for _ in range(40):
        state = game.initial_state()
        while not game.is_over(state):
            states.append(state)
            moves = list(game.legal_moves(state))
            if not moves:
                break
            state = game.apply(state, rng.choice(moves))
        states.append(state)
    batch = np.array(states, dtype=np.int64).T
    phases = batch[game.phase_index]
    compared = 0
    for phase in set(phases.tolist()):
        columns = np.flatnonzero(phases == phase)
        check, one = arrays.state[phase], engine.state[phase]
        expected = [one(states[column]) if one is not None else 0 for column in columns]
        got = [0] * len(columns)
        if check is not None:
            numbers, fired = check(Rows(batch, columns))
            for number, where in zip(numbers, fired):
                for position in np.flatnonzero(where):
                    got[position] |= 1 << number
        assert got == expected, game.phase_names[phase]
        compared += len(columns)
    assert compared == len(states) > 1000


def test_a_search_cut_short_proves_nothing() -> None:
    raws = decide("standard", 5, "layers", Limits(max_states=20_000))
    assert {raw.verdict.verdict for raw in raws} <= {"unknown", "witness", "refuted"}
    assert any(raw.verdict.verdict == "unknown" and "20,000 states" in message(raw) for raw in raws)


def test_a_full_disk_is_a_limit_that_proves_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A search whose paths no longer fit on disk stops as at the memory limit: nothing
    proved, the reason naming the disk, never an error that loses every verdict."""
    import errno

    from verify.explicit import layers

    def full(folder: str, layer: str, name: str, column: Any) -> Any:
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(layers, "SPILL_AFTER", 0)
    monkeypatch.setattr(layers, "_spilled", full)
    raws = decide("standard", 5, "layers")
    assert {raw.verdict.verdict for raw in raws} <= {"unknown", "witness", "refuted"}
    assert any(raw.verdict.verdict == "unknown" and "limit: disk (no space left in" in message(raw) for raw in raws)


def test_a_decisive_hit_stops_the_search_after_its_layer() -> None:
    rules = "mistakes/dead_vote" + ALONG
    game = compiled_game(5, rules)
    props = tuple(prop for prop in select(Rules.named(rules)) if 5 in prop.players)
    full = {raw.property: raw for raw in check_game(game, props, Limits(), explorer="layers")}
    broken = sorted(name for name, raw in full.items() if raw.verdict.verdict == "refuted")
    assert broken
    stopped = check_game(game, props, Limits(), explorer="layers", stop_on=frozenset(broken[:1]))
    first = next(raw for raw in stopped if raw.property == broken[0])
    assert isinstance(first.verdict, Refuted)
    assert all(raw.verdict.verdict != "proved" for raw in stopped if raw.property in broken)


@pytest.mark.parametrize("rules", ["standard", "mistakes/dead_vote"])
def test_a_sweep_stops_once_no_state_left_is_nearer_than_every_hit(rules: str) -> None:
    """Asked for a property that fires, the sweep stops before the end of its graph as
    soon as the hit is as near the start as any state still to search (the layers go by
    the ranking, so a shallow state can wait long: a deep hit may settle only at the
    end). The verdict, the length and the fewest elections are still the reference's,
    which stops at its first hit. With deadlocks or the graph facts asked, nothing
    settles early."""
    from verify.explicit.check import GRAPH_KINDS
    from verify.explicit.layered_check import layered_exploration
    from verify.explicit.layers import SETTLED
    from verify.explicit.model import Model

    along = rules + ALONG
    full = {raw.property: raw for raw in decided(along, "layers")}
    reference = summary(list(decided(along, "bfs")))
    game = compiled_game(5, along)
    early = 0
    for prop in select(Rules.named(along)):
        if 5 not in prop.players or prop.kind in GRAPH_KINDS or not isinstance(full[prop.name].verdict, (Witnessed, Refuted)):
            continue
        model = Model(game, (prop,))
        settled = layered_exploration(model, (prop,), Limits(), deadlocks=False, elections=True)
        assert settled.settled or settled.complete, prop.name
        if settled.settled:
            assert settled.limit == SETTLED and not settled.complete
            whole = layered_exploration(model, (prop,), Limits(), deadlocks=False, graph=True, elections=True)
            assert whole.complete and not whole.settled
            early += settled.states < whole.states
            assert not layered_exploration(model, (prop,), Limits(), deadlocks=True).settled
        raws = check_game(game, (prop,), Limits(), explorer="layers")
        assert summary(raws) == {prop.name: reference[prop.name]}
        assert "not known to be the shortest" not in raws[0].verdict.evidence.note
    assert early, "no search stopped before the end of its graph"


def test_a_hit_farther_than_a_state_still_to_search_settles_nothing() -> None:
    """The stop itself: on the catalogue the first hit in rank order has so far always
    been a shallowest one, so the comparison above cannot tell a stop that waits from
    one that does not. Every property must have fired, none farther than the nearest
    state still to search, nor (for a win reporting elections) with more elections."""
    from verify.explicit.layered_check import PropertyWatch, _Best
    from verify.explicit.model import Model

    game = compiled_game(5, "standard" + ALONG)
    named = {prop.name: prop for prop in select(STANDARD_RULES)}
    props = (named["fascist_hitler_win"], named["the_game_starts_empty"])
    win, empty = 0, 1
    watch = PropertyWatch(Model(game, props), props, deadlocks=False, elections=True)
    assert watch.by_elections == {win}
    watch.best[empty] = _Best(0, 0)
    assert not watch.settled({"depth": 9, "fewest_elections": 3})             # one has not fired
    watch.best[win] = _Best(10, 5)
    assert not watch.settled({"depth": 9, "fewest_elections": 3})             # a state nearer than a hit
    watch.fewest[win] = _Best(4, 5)
    assert not watch.settled({"depth": 10, "fewest_elections": 3})            # one with fewer elections
    assert not watch.settled({"depth": 10})                                   # elections not known
    watch.fewest[win] = _Best(3, 5)
    assert watch.settled({"depth": 10, "fewest_elections": 3})                # a tie cannot be beaten
    for deadlocks, whole in ((True, False), (False, True)):
        other = PropertyWatch(Model(game, props), props, deadlocks=deadlocks, elections=True, whole=whole)
        other.best, other.fewest = watch.best, watch.fewest
        assert not other.settled({"depth": 10, "fewest_elections": 3})


def test_the_keys_read_by_id_are_the_reference_searchs_states() -> None:
    """Read by id, the layered search's keys are every state the breadth-first search
    stores, each once, and as many as it counted."""
    from verify.explicit.explore import explore
    from verify.explicit.layered_check import layered_exploration
    from verify.explicit.model import Model

    model = Model(compiled_game(5, "standard" + ALONG))
    layered = layered_exploration(model, (), Limits(), deadlocks=False)
    reference = explore(model, (), Limits(), deadlocks=False, stop_when_decided=False)
    assert layered.complete and reference.complete
    keys = [layered.keys[number] for number in range(len(layered.keys))]
    assert len(keys) == layered.states == reference.states
    assert sorted(keys) == sorted(reference.keys)


def test_paths_spilled_to_disk_read_back_as_kept_in_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from verify.explicit import layers
    from verify.explicit.layers import LayeredSearch
    from verify.explicit.model import Model

    model = Model(compiled_game(5, "standard" + ALONG))
    kept = LayeredSearch(model).run(paths=True, facts=True, spill=str(tmp_path))
    assert not list(tmp_path.iterdir())      # a small graph's paths stay in memory
    monkeypatch.setattr(layers, "SPILL_AFTER", 0)
    spilled = LayeredSearch(model).run(paths=True, facts=True, spill=str(tmp_path))
    assert kept.complete and spilled.complete
    assert isinstance(spilled.parent[0], np.memmap) and len(list(tmp_path.iterdir())) == 5 * spilled.layers
    for name in ("keys", "parent", "parent_move", "long_via", "elect_via"):
        assert all(np.array_equal(a, b) for a, b in zip(getattr(kept, name), getattr(spilled, name))), name


def test_paths_keep_32_bits_where_the_ids_and_moves_fit() -> None:
    """The parents, moves and predecessors are kept in 32 bits (a 10-player check's paths
    on disk: 32 bytes a state, not 48); a column with a value past 32 bits stays as it is."""
    from verify.explicit.layers import LayeredSearch, _narrowed, _via_ids
    from verify.explicit.model import Model

    model = Model(compiled_game(5, "standard" + ALONG))
    result = LayeredSearch(model).run(paths=True, facts=True)
    assert result.complete
    for name in ("parent", "parent_move", "long_via", "elect_via"):
        columns = getattr(result, name)
        assert all(column.dtype == np.int32 for column in columns), name
    for name in ("parent", "long_via", "elect_via"):
        ids = np.concatenate(getattr(result, name))
        assert ids[0] == -1 and (ids[1:] >= 0).all() and (ids < result.states).all(), name
    wide = np.array([-1, 1 << 31], dtype=np.int64)
    assert _narrowed(wide).dtype == np.int64 and _narrowed(wide[:1]).dtype == np.int32
    assert _via_ids(np.array([-1, 7 << 40 | 12345], dtype=np.int64)).tolist() == [-1, 12345]


@pytest.mark.parametrize("elapsed, rank, cut", [(2.0, 10, False), (5.0, 99, True), (5.0, 50, False),
                                                (100.0, 50, True)])
def test_a_sweep_whose_pace_cannot_meet_the_time_limit_is_cut_early(elapsed: float, rank: int, cut: bool) -> None:
    """At 10 s with a margin of 2, a sweep at 5 s that has swept 1% of the ranking is
    hopeless; one that has swept half is not; nothing is judged in the first seconds."""
    from verify.explicit.layers import PACE_AFTER, PACE_MARGIN, LayeredSearch

    assert PACE_AFTER <= 3.0 and PACE_MARGIN == 2.0
    reason = LayeredSearch._hopeless(Limits(time_limit=10.0), elapsed, rank, 100)
    assert bool(reason) == cut
    if cut:
        assert reason.startswith("limit: time 10 s") and "at its pace" in reason
    assert LayeredSearch._hopeless(Limits(), elapsed, rank, 100) == ""


def test_a_property_reading_a_field_no_other_reads_is_searched_apart() -> None:
    """At 7 players one property reads who the ordinary Fascists are: it gets a search
    of its own, and every other one the smaller graph without that field."""
    from verify.explicit.check import by_cone
    from verify.explicit.reductions import cone

    game = compiled_game(7, "standard")
    props = tuple(prop for prop in select(STANDARD_RULES)     # the order of play joins a search of its own rules
                  if 7 in prop.players and (prop.state is not None or prop.move is not None) and not prop.rules)
    groups = by_cone(game.spec, props)
    assert sorted(prop.name for group in groups for prop in group) == sorted(prop.name for prop in props)
    assert len(groups) == 2 and len(groups[1]) == 1
    assert "fascists" in cone(game.spec, groups[1]) and "fascists" not in cone(game.spec, groups[0])
    assert by_cone(game.spec, ()) == [()]


def test_a_layer_too_large_to_sort_at_once_is_sliced_or_stops_the_search() -> None:
    """Before a layer is sorted: its own bytes twice and the sort's per state, against
    what the memory limit leaves; short of that, as many slices as make each fit beside
    a record read from disk; short of room for a slice, the limit."""
    from verify.explicit.layers import MAX_SLICES, SORT_BYTES, SPILL_BUFFER, LayeredSearch, _Pending

    size = 1 << 24
    layer = _Pending([np.zeros((2, size), dtype=np.uint64)], {"depth": [np.zeros(size, dtype=np.int32)]}, size)
    needed = (2 * (16 + 4) + SORT_BYTES) * size / 2**20
    record = 2 * SPILL_BUFFER / 2**20
    assert LayeredSearch._room(Limits(memory_limit=10_000), layer, 10_000 - needed - 1) == (1, "")
    room = needed / 2 + record + 1
    assert LayeredSearch._room(Limits(memory_limit=10_000), layer, 10_000 - room) == (2, "")
    room = needed / 5 + record + 1
    assert LayeredSearch._room(Limits(memory_limit=10_000), layer, 10_000 - room) == (5, "")
    slices, reason = LayeredSearch._room(Limits(memory_limit=10_000), layer, 10_000 - needed / MAX_SLICES / 2)
    assert slices == 1 and reason.startswith("limit: memory 10,000 MiB (the next layer, 16,777,216 states")
    assert reason.endswith(f"more than {MAX_SLICES} slices of what is left)")
    assert LayeredSearch._room(Limits(), layer, 10**6) == (1, "")


@pytest.mark.parametrize("spilled", [False, True], ids=["in memory", "on disk"])
def test_layers_sorted_in_slices_give_the_graph_sorted_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             spilled: bool) -> None:
    """Every layer taken in three slices by key hash, its waiting successors in memory or
    read back from disk a record at a time: the same states, layers, depths and graph
    facts, and every state's fewest decisions from the start, as the layers sorted whole."""
    from verify.explicit import layers
    from verify.explicit.layers import LayeredSearch
    from verify.explicit.model import Model

    model = Model(compiled_game(5, "standard" + ALONG))
    whole = LayeredSearch(model).run(paths=True, facts=True)
    if spilled:
        monkeypatch.setattr(layers, "PENDING_IN_MEMORY", 0)
        monkeypatch.setattr(layers, "SPILL_BUFFER", 1 << 16)
    slices: list[int] = []

    def room(limits: Limits, layer: layers._Pending, resident: float) -> tuple[int, str]:
        slices.append(3)
        return 3, ""
    monkeypatch.setattr(LayeredSearch, "_room", staticmethod(room))
    sliced = LayeredSearch(model).run(paths=True, facts=True, spill=str(tmp_path) if spilled else None)
    assert slices and sliced.complete
    for name in ("states", "transitions", "layers", "depth", "per_depth", "longest_moves", "longest_elections",
                 "fewest_elections", "deadlocks"):
        assert getattr(sliced, name) == getattr(whole, name), name
    assert len(sliced.keys) == 3 * len(whole.keys)
    assert not [path for path in tmp_path.iterdir() if path.name.startswith("pending-")]


def test_a_catalogue_decided_on_sliced_layers_is_decided_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checker over layers sorted in slices: the same verdicts, shortest games and
    fewest elections as over layers sorted whole (the games themselves may differ
    where several are shortest, since the states of a layer come in another order)."""
    from verify.explicit.check import check_players
    from verify.explicit.layers import LayeredSearch

    names = ("deck_conservation_liberal", "liberal_policy_win", "fascist_hitler_win", "liberal_execution_win",
             "terminates", "deadlock_free")
    whole = check_players(STANDARD_RULES, 5, names, Limits(time_limit=600))
    monkeypatch.setattr(LayeredSearch, "_room", staticmethod(lambda limits, layer, resident: (2, "")))
    sliced = check_players(STANDARD_RULES, 5, names, Limits(time_limit=600))

    def summary(raws: list[PropertyResult]) -> list[tuple[str, str, int, Any, Any, Any]]:
        return [(raw.property, raw.verdict.verdict, len(moves(raw)), raw.facts.fewest_elections,
                 raw.facts.longest_moves, raw.verdict.evidence.states) for raw in raws]

    assert summary(sliced) == summary(whole)


@pytest.mark.parametrize("buffer", [0, 1 << 16, 1 << 40], ids=["record per part", "records of parts", "buffered"])
def test_successors_waiting_on_disk_give_the_graph_kept_in_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    buffer: int) -> None:
    """With every waiting successor bound for disk (no room in memory), the sweep finds
    the same states, layers, depths and facts, whether the parts are appended one by one,
    several to a record or never flushed, and leaves no file behind but the paths."""
    from verify.explicit import layers
    from verify.explicit.layers import LayeredSearch
    from verify.explicit.model import Model

    model = Model(compiled_game(5, "standard" + ALONG))
    kept = LayeredSearch(model).run(paths=True, facts=True)
    monkeypatch.setattr(layers, "PENDING_IN_MEMORY", 0)
    monkeypatch.setattr(layers, "SPILL_BUFFER", buffer)
    flushes: list[int] = []
    gathered: list[int] = []
    written: list[int] = []
    flush = layers._Pending.flush

    def counted(self: layers._Pending, folder: str) -> None:
        flushes.append(len(self.buffered))
        gathered.append(sum(keys.shape[1] for keys, _ in self.buffered))
        before = sum(self.records)
        flush(self, folder)
        written.append(sum(self.records) - before)
    monkeypatch.setattr(layers._Pending, "flush", counted)
    spilled = LayeredSearch(model).run(paths=True, facts=True, spill=str(tmp_path))
    records = [parts for parts in flushes if parts]
    if buffer == 0:
        assert records and all(parts == 1 for parts in records)
    elif buffer == 1 << 16:
        assert records and max(records) > 1
        # The parts of a record meet the same states: written without their duplicates.
        assert sum(written) < sum(gathered)
    else:
        assert not records
    for name in ("states", "transitions", "layers", "depth", "per_depth", "longest_moves", "longest_elections",
                 "fewest_elections", "largest_layer"):
        assert getattr(spilled, name) == getattr(kept, name), name
    for name in ("keys", "parent", "parent_move", "long_via", "elect_via"):
        assert all(np.array_equal(a, b) for a, b in zip(getattr(kept, name), getattr(spilled, name))), name
    assert not [path for path in tmp_path.iterdir() if path.name.startswith("pending-")]


def test_successors_merged_in_memory_give_the_graph_merged_at_their_layer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The waiting successors held in memory, merged without their duplicates every few
    parts, give the same states, paths and facts as merged only when their layer comes."""
    from verify.explicit import layers
    from verify.explicit.layers import LayeredSearch
    from verify.explicit.model import Model

    model = Model(compiled_game(5, "standard" + ALONG))
    monkeypatch.setattr(layers, "SPILL_BUFFER", 1 << 60)
    whole = LayeredSearch(model).run(paths=True, facts=True)
    monkeypatch.setattr(layers, "SPILL_BUFFER", 1 << 16)
    dropped: list[int] = []
    compact = layers._Pending.compact

    def compacting(self: layers._Pending) -> int:
        freed = compact(self)
        dropped.append(self.dropped)
        return freed
    monkeypatch.setattr(layers._Pending, "compact", compacting)
    merged = LayeredSearch(model).run(paths=True, facts=True)
    assert dropped and max(dropped) > 0
    for name in ("states", "transitions", "layers", "depth", "per_depth", "longest_moves", "longest_elections",
                 "fewest_elections", "largest_layer", "ends"):
        assert getattr(merged, name) == getattr(whole, name), name
    for name in ("keys", "parent", "parent_move", "long_via", "elect_via"):
        assert all(np.array_equal(a, b) for a, b in zip(getattr(whole, name), getattr(merged, name))), name


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts open files in /proc/self/fd (Linux)")
def test_successors_waiting_on_disk_hold_no_file_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A layer's file of waiting parts is opened only to append to it and to read it
    back: a file held open per part or layer (a mapping) ran 10 players out of file
    descriptors."""
    from verify.explicit import layers
    from verify.explicit.layers import LayeredSearch, LayerProgress
    from verify.explicit.model import Model

    monkeypatch.setattr(layers, "PENDING_IN_MEMORY", 0)
    monkeypatch.setattr(layers, "SPILL_BUFFER", 0)
    most = [0]

    def count(_: LayerProgress) -> None:
        most[0] = max(most[0], len(os.listdir("/proc/self/fd")))
    opened = len(os.listdir("/proc/self/fd"))
    found = LayeredSearch(Model(compiled_game(5, "standard" + ALONG))).run(facts=True, spill=str(tmp_path),
                                                                          progress=count)
    assert found.complete and most[0] <= opened + 5
