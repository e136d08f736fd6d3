"""Every state a breadth-first layered search has taken, as sorted runs of packed keys.

The layered search sweeps by the ranking of spec/invariants.toml when every move lowers
it: a layer's states can then never come back, and no set of the states seen is needed.
Rules whose games can go round (a veto that leaves the Election Tracker where it was,
R-V3) have no such ranking; their layers are the states of each fewest number of
decisions from the start, breadth-first (layers.py `LayeredSearch.run(breadth_first=
True)`), and a successor already taken in an earlier layer must be dropped, or a cycle
would be searched round for ever. This is that set.

It holds the keys (keys.py: a column of words per state) with their ids, in runs sorted
by the keys' 64-bit hash, the way a log-structured merge keeps them: each layer's new
states are a run of their own, and a run is merged with the one before it while that one
is not more than twice as large, so that a state is merged a logarithmic number of times
and a look-up searches a logarithmic number of runs. A look-up is exact: a hash equal to
a stored one is only a candidate, and the words themselves are compared, every stored key
of that hash in turn (two keys of one hash are rare, but are told apart).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .keys import Words, mixed

Array = npt.NDArray[np.int64]
Bool = npt.NDArray[np.bool_]


@dataclass(slots=True)
class _Run:
    """Keys sorted by their hash, with their ids."""

    hashes: npt.NDArray[np.uint64]
    words: Words
    ids: Array

    @property
    def size(self) -> int:
        return len(self.hashes)


class Visited:
    """The keys taken so far, with their ids (see the module docstring)."""

    def __init__(self) -> None:
        self.runs: list[_Run] = []
        self.count = 0

    @property
    def nbytes(self) -> int:
        """The bytes its runs take."""
        return sum(run.hashes.nbytes + run.words.nbytes + run.ids.nbytes for run in self.runs)

    def find(self, words: Words) -> Array:
        """Each key's id, -1 where it was never added."""
        found = np.full(words.shape[1], -1, dtype=np.int64)
        if not words.shape[1] or not self.runs:
            return found
        # The keys looked up in the order of their hash: a search of sorted values in a
        # sorted run reads it in order (in the order given, a third of the sweep's time).
        hashes = mixed(words)
        order = np.argsort(hashes)
        hashes, words = hashes[order], words.take(order, axis=1)
        ordered = np.full(len(order), -1, dtype=np.int64)
        for run in self.runs:
            _look_up(run, words, hashes, ordered)
        found[order] = ordered
        return found

    def add(self, words: Words, ids: Array) -> None:
        """Keys not yet added, none twice, with their ids."""
        if not words.shape[1]:
            return
        hashes = mixed(words)
        order = np.argsort(hashes, kind="stable")
        self.runs.append(_Run(hashes[order], words.take(order, axis=1), ids[order]))
        self.count += words.shape[1]
        while len(self.runs) > 1 and self.runs[-2].size <= 2 * self.runs[-1].size:
            later = self.runs.pop()
            self.runs.append(_merged(self.runs.pop(), later))


def _merged(earlier: _Run, later: _Run) -> _Run:
    """Two runs as one, in one pass: where each key of one run goes among the other's is a
    search of sorted values (of equal hashes, `earlier`'s first), and the merged run
    gathers both by those places (a sort of the two together took twice as long)."""
    size = earlier.size + later.size
    source = np.empty(size, dtype=np.int64)
    source[np.searchsorted(later.hashes, earlier.hashes, side="left") + np.arange(earlier.size)] = \
        np.arange(earlier.size)
    source[np.searchsorted(earlier.hashes, later.hashes, side="right") + np.arange(later.size)] = \
        np.arange(earlier.size, size)
    return _Run(np.concatenate([earlier.hashes, later.hashes]).take(source),
                np.concatenate([earlier.words, later.words], axis=1).take(source, axis=1),
                np.concatenate([earlier.ids, later.ids]).take(source))


def _look_up(run: _Run, words: Words, hashes: npt.NDArray[np.uint64], found: Array) -> None:
    """The ids in `run` of the keys not yet `found`, written into `found`: each key's hash
    is looked up, then the stored keys of an equal hash compared word by word, the next
    one while the hash is equal and the words differ."""
    pending = np.flatnonzero(found < 0)
    at = np.searchsorted(run.hashes, hashes[pending], side="left")
    while len(pending):
        inside = at < run.size
        pending, at = pending[inside], at[inside]
        same_hash = run.hashes[at] == hashes[pending]
        pending, at = pending[same_hash], at[same_hash]
        if not len(pending):
            return
        equal = np.all(run.words[:, at] == words[:, pending], axis=0)
        found[pending[equal]] = run.ids[at[equal]]
        pending, at = pending[~equal], at[~equal] + 1
