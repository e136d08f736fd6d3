"""The tally of distinct keys (verify/explicit/tally.py): the same count kept in memory or
split into files on disk, and, in the layered search, SPIN's own count of the 5-player
abstract states with every projection sent to disk."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.game import compiled_game
from verify.explicit import tally
from verify.explicit.abstraction import PROJECTION_FIELDS, SPIN_STATES
from verify.explicit.keys import Words
from verify.explicit.layers import LayeredSearch
from verify.explicit.model import Model
from verify.explicit.tally import Tally
from verify.results import Limits


def keys(seed: int, count: int, rows: int = 2, spread: int = 60) -> np.ndarray:
    """`count` keys of `rows` words drawn from few values, so that many recur."""
    return np.random.default_rng(seed).integers(0, spread, size=(rows, count)).astype(np.uint64)


def truth(parts: list[np.ndarray]) -> int:
    return int(np.unique(np.concatenate(parts, axis=1), axis=1).shape[1])


@pytest.mark.parametrize("in_memory", [None, 0, 1 << 10])
def test_a_tally_counts_the_distinct_keys_in_memory_or_on_disk(tmp_path: Path, in_memory: int | None,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tally, "MERGE_FIRST", 1_000)
    parts = [keys(seed, 700) for seed in range(12)]
    counted = Tally(str(tmp_path), in_memory=in_memory, buckets=7)
    for part in parts:
        counted.add(part)
    spilled = list(tmp_path.glob("tally*.bin"))
    assert bool(spilled) == (in_memory is not None)
    assert len(spilled) <= 7
    assert counted.count() == truth(parts)
    assert not list(tmp_path.glob("tally*.bin"))


def test_two_tallies_share_a_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Searches given one folder (a bench, a sweep's worker) each count their own keys."""
    monkeypatch.setattr(tally, "MERGE_FIRST", 500)
    first, second = Tally(str(tmp_path), in_memory=0, buckets=5), Tally(str(tmp_path), in_memory=0, buckets=5)
    ones, others = [keys(seed, 400) for seed in range(4)], [keys(seed, 400) for seed in range(10, 16)]
    for one, other in zip(ones, others):
        first.add(one)
        second.add(other)
    for other in others[len(ones):]:
        second.add(other)
    assert first.count() == truth(ones) and second.count() == truth(others)


def test_a_tally_without_a_folder_keeps_everything_in_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tally, "MERGE_FIRST", 100)
    parts = [keys(seed, 300, rows=1) for seed in range(5)]
    counted = Tally(None, in_memory=0)
    for part in parts:
        counted.add(part)
    assert counted.count() == truth(parts) and Tally().count() == 0


def test_keys_of_another_width_are_refused() -> None:
    counted = Tally()
    counted.add(keys(0, 10, rows=2))
    with pytest.raises(ValueError, match="1 words added to a tally of 2-word keys"):
        counted.add(keys(1, 10, rows=1))


def test_five_players_projected_on_disk_are_still_spins_abstract_states(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every projection sent to disk as the search goes (as at 9 and 10 players): the
    count is still SPIN's own (shared/bench/spin/README.md)."""
    monkeypatch.setattr(tally, "IN_MEMORY", 1 << 16)
    monkeypatch.setattr(tally, "MERGE_FIRST", 1 << 15)
    spills: list[int] = []
    spill = Tally._spill

    def counted(self: Tally, words: Words) -> None:
        spills.append(words.shape[1])
        spill(self, words)
    monkeypatch.setattr(Tally, "_spill", counted)
    model = Model(compiled_game(5, "standard"), keep=frozenset(PROJECTION_FIELDS))
    found = LayeredSearch(model).run(Limits(time_limit=600), project=True, spill=str(tmp_path))
    assert found.complete and found.projected == SPIN_STATES[5]
    assert len(spills) > 1 and sum(spills) >= SPIN_STATES[5]     # sent to disk, in parts, as it went
    assert not list(tmp_path.glob("tally*.bin"))     # counted, then removed
