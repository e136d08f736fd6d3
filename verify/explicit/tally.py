"""The number of distinct keys among many, counted without holding them all.

The layered search projects every state it expands onto SPIN's abstraction
(abstraction.py) and must say how many distinct abstract states there are. The same
abstract state recurs in many layers, so nothing can be forgotten until the end: at 7
players the projections nearly fit in memory (34 M distinct, two words each), at 9 and
10 they do not beside the search (hundreds of millions). Given a folder, a `Tally`
therefore sends what it holds past `IN_MEMORY` bytes to disk, split by a hash of the key
into `BUCKETS` files, so that equal keys always share a file; at the end each file is
read and its distinct keys counted on its own, a `BUCKETS`th of the whole at a time.
"""

from __future__ import annotations

import itertools
import os

import numpy as np

from .keys import Words, distinct, mixed

IN_MEMORY = 512 << 20
"""Bytes of keys a tally keeps in memory (as they came, duplicates included) before they
go to disk, when it has a folder: a tenth of what the 9-player search itself takes."""

BUCKETS = 64
"""Files the keys are split into on disk: at 10 players each holds a few hundred MiB."""

MERGE_FIRST = 1 << 22
"""Keys gathered by a tally without a folder before their duplicates are first removed;
later, whenever the keys held have doubled since."""

_TALLIES = itertools.count()
"""Numbers for the tallies' files: one folder may serve several searches, each with its own
(named with the process id too: forked workers start from the same number)."""


class Tally:
    """Distinct key columns (a column of `Words` per key) counted as they come."""

    def __init__(self, folder: str | None = None, in_memory: int | None = None, buckets: int | None = None) -> None:
        self.folder = folder
        self.in_memory = IN_MEMORY if in_memory is None else in_memory
        self.buckets = BUCKETS if buckets is None else buckets
        self.parts: list[Words] = []
        self.held = 0                   # columns in `parts`
        self.merge_at = MERGE_FIRST
        self.rows: int | None = None    # words per key, fixed by the first part
        self.spilled = 0                # columns written to disk, duplicates among them
        self.name = f"tally{os.getpid()}.{next(_TALLIES)}"

    def add(self, words: Words) -> None:
        """Take these keys in. With a folder, once those held take more than `in_memory`
        bytes they go to disk as they are; without one, the duplicates among them are
        removed now and then (whenever they have doubled) to bound the memory.

        Keys sent to disk are not made distinct first: at 9 players 724 M states project
        onto 571 M abstract states, so removing the few duplicates cost a sort of all
        that was held, again at every doubling (at 7 players five such sorts took 53 of
        the projection's 50-odd seconds, the projecting itself 3), for a fifth fewer
        bytes. Each bucket is made distinct once, when counted."""
        if self.rows is None:
            self.rows = words.shape[0]
        elif words.shape[0] != self.rows:
            raise ValueError(f"keys of {words.shape[0]} words added to a tally of {self.rows}-word keys")
        self.parts.append(words)
        self.held += words.shape[1]
        if self.folder is not None:
            if self.held * self.rows * 8 > self.in_memory:
                self._spill(self._joined())
                self.parts, self.held = [], 0
        elif self.held > self.merge_at:
            merged = self._merged()
            self.parts, self.held = [merged], merged.shape[1]
            self.merge_at = max(self.merge_at, 2 * self.held)

    def count(self) -> int:
        """The distinct keys among all those added. The files on disk are removed as
        they are counted, so this is asked once, at the end."""
        if not self.spilled:
            return int(self._merged().shape[1]) if self.parts else 0
        if self.parts:
            self._spill(self._joined())
            self.parts, self.held = [], 0
        rows = self.rows or 1
        total = 0
        for bucket in range(self.buckets):
            path = self._path(bucket)
            if os.path.exists(path):
                flat = np.fromfile(path, dtype=np.uint64)
                total += len(distinct(np.ascontiguousarray(flat.reshape(-1, rows).T)))
                os.remove(path)         # tens of GiB at 10 players: gone once counted
        self.spilled = 0
        return total

    def _joined(self) -> Words:
        return np.concatenate(self.parts, axis=1) if len(self.parts) > 1 else self.parts[0]

    def _merged(self) -> Words:
        joined = self._joined()
        return joined.take(distinct(joined), axis=1)

    def _spill(self, words: Words) -> None:
        """Append each key to its bucket's file, its words side by side."""
        assert self.folder is not None
        bucket = mixed(words) % np.uint64(self.buckets)
        if self.buckets <= 1 << 16:
            bucket = bucket.astype(np.uint16)       # a stable sort of 16-bit values is a radix sort
        order = np.argsort(bucket, kind="stable")
        ends = np.searchsorted(bucket[order], np.arange(1, self.buckets + 1))
        start = 0
        for number, end in enumerate(ends.tolist()):
            if end > start:
                with open(self._path(number), "ab") as handle:
                    handle.write(np.ascontiguousarray(words.take(order[start:end], axis=1).T).tobytes())
            start = end
        self.spilled += words.shape[1]

    def _path(self, bucket: int) -> str:
        assert self.folder is not None
        return os.path.join(self.folder, f"{self.name}-{bucket}.bin")
