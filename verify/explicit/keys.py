"""States as keys of a few 64-bit words, and the distinct ones of a batch, over numpy.

The layered search (layers.py) removes a layer's duplicates and counts the distinct
states projected onto SPIN's abstraction a batch at a time: a key is a column of
unsigned words, each field in the bits its declared range needs (as the codec packs one
state into one int, codec.py), so that equal states are equal columns.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.int64]
Words = npt.NDArray[np.uint64]

WORD_BITS = 63
"""Bits of a key word (unsigned 64-bit words, one bit spare)."""


def places(widths: list[int]) -> list[tuple[int, int]]:
    """Where `pack` puts values of these bit widths: (word, shift) for each. Fields fill a
    word in order, and one that would not fit starts the next."""
    out: list[tuple[int, int]] = []
    word, used = -1, WORD_BITS
    for bits in widths:
        if bits and used + bits > WORD_BITS:
            word, used = word + 1, 0
        out.append((max(word, 0), used if bits else 0))
        used += bits
    return out


def pack(columns: list[tuple[Array, int]]) -> Words:
    """Values (each ≥ 0 and below 2**bits) packed into key words, a column per state, at
    the `places` of their widths."""
    width = len(columns[0][0]) if columns else 0
    spots = places([bits for _, bits in columns])
    words = np.zeros((max([word for word, _ in spots], default=0) + 1, width), dtype=np.uint64)
    for (values, bits), (word, shift) in zip(columns, spots):
        if bits:
            words[word] |= values.astype(np.uint64) << np.uint64(shift)
    return words


Field = tuple[int, int, int]
"""A stored field of a state array: its row, its lowest value and its bit width."""


def pack_rows(states: Array, fields: list[Field]) -> Words:
    """`pack` of the fields' rows of `states` (a column per state), each less its lowest
    value. Each field is shifted into one scratch row and or-ed into its word in place:
    two passes over a row and no new array per field (`pack` makes four), which halves
    the time of a layer's keys."""
    width = states.shape[1]
    spots = places([bits for _, _, bits in fields])
    words = np.zeros((max([word for word, _ in spots], default=0) + 1, width), dtype=np.int64)
    scratch = np.empty(width, dtype=np.int64)
    for (row, low, bits), (word, shift) in zip(fields, spots):
        if not bits:
            continue
        source = states[row]
        if low:
            source = np.subtract(source, low, out=scratch)
        if shift:
            # value < 2**bits and shift + bits <= WORD_BITS: the shift cannot reach the sign.
            source = np.left_shift(source, shift, out=scratch)
        np.bitwise_or(words[word], source, out=words[word])
    packed: Words = words.view(np.uint64)
    return packed


def unpack_rows(words: Words, fields: list[Field], into: Array) -> None:
    """The inverse of `pack_rows`: each field's values written to its row of `into`."""
    spots = places([bits for _, _, bits in fields])
    scratch = np.empty(words.shape[1], dtype=np.uint64)
    for (row, low, bits), (word, shift) in zip(fields, spots):
        if not bits:
            into[row] = low
            continue
        np.right_shift(words[word], np.uint64(shift), out=scratch)
        np.bitwise_and(scratch, np.uint64((1 << bits) - 1), out=scratch)
        into[row] = scratch.view(np.int64)
        if low:
            into[row] += low


def _mixed(words: Words) -> Words:
    """A 64-bit hash of each column's words, every bit of every word reaching the top
    bits (the ones `distinct` keeps): the words are chained by multiplication, then
    finished as splitmix64 finishes."""
    mixed: Words = words[0].copy()
    for row in range(1, len(words)):
        mixed = mixed * np.uint64(0x9E3779B97F4A7C15) ^ words[row]
    mixed ^= mixed >> np.uint64(30)
    mixed *= np.uint64(0xBF58476D1CE4E5B9)
    mixed ^= mixed >> np.uint64(27)
    mixed *= np.uint64(0x94D049BB133111EB)
    mixed ^= mixed >> np.uint64(31)
    return mixed


def mixed(words: Words) -> Words:
    """The hash `distinct` sorts by, one 64-bit value per column: equal keys hash alike,
    so a tally can split keys by it and count each part apart (tally.py)."""
    return _mixed(words)


def distinct(words: Words, priority: Array | None = None) -> Array:
    """One column per distinct key, in column order: of equal keys, the one of lowest
    `priority` (the fewest moves from the start), the first of those on a tie."""
    return distinct_groups(words, priority)[0]


def distinct_groups(words: Words, priority: Array | None = None) -> tuple[Array, Array]:
    """`distinct`, and for every column the position of its key's column among them
    (so that values of equal keys can be reduced together: `np.maximum.at`).

    The words are hashed into one, and the hash's top bits, the priority and the column
    are packed into one 64-bit value per column: numpy sorts plain values several times
    faster than it sorts indexes (argsort), and the column comes out of the low bits.
    Equal keys end up side by side, their best first. Every column is then checked
    against the first of its group; the rare group whose hashes agree but keys do not is
    sorted again by its words."""
    width = words.shape[1]
    if not width:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    rank = np.zeros(width, dtype=np.int64) if priority is None else priority.astype(np.int64)
    column_bits = max(1, (width - 1).bit_length())
    low = column_bits + max(1, int(rank.max()).bit_length())
    if low > 40 or int(rank.min()) < 0:
        return _distinct_exactly(words, rank)
    hashed = _mixed(words)
    packed = (hashed >> np.uint64(low) << np.uint64(low)) | (rank.astype(np.uint64) << np.uint64(column_bits)) \
        | np.arange(width, dtype=np.uint64)
    packed.sort()
    column = (packed & np.uint64((1 << column_bits) - 1)).astype(np.int64)
    top = packed >> np.uint64(low)
    leads = np.concatenate(([True], top[1:] != top[:-1]))
    group = np.cumsum(leads) - 1
    leader = column[leads]
    # A group holds one key when each column's words equal its neighbour's in the group
    # (equality is transitive): one gather per word, read in order.
    wrong = np.zeros(width - 1, dtype=bool)
    for row in words:
        ordered = row.take(column)
        wrong |= ordered[1:] != ordered[:-1]
    wrong &= ~leads[1:]
    if not wrong.any():
        # No collision (the rule): the leaders in column order are a mask's set bits, and
        # each column's place among them a running count, with no sort.
        chosen_mask = np.zeros(width, dtype=bool)
        chosen_mask[leader] = True
        place_of = np.cumsum(chosen_mask) - 1
        inverse = np.empty(width, dtype=np.int64)
        inverse[column] = place_of[leader][group]
        return np.flatnonzero(chosen_mask), inverse
    bad = np.zeros(len(leader), dtype=bool)
    bad[group[1:][wrong]] = True
    # Different keys under one hash prefix (rare): those groups again, exactly.
    again = column[bad[group]]
    exact, exact_group = _distinct_exactly(words.take(again, axis=1), rank[again]) if len(again) else (again, again)
    good = ~bad
    chosen = np.concatenate([leader[good], again[exact]])
    order = np.argsort(chosen)
    place = np.empty(len(chosen), dtype=np.int64)
    place[order] = np.arange(len(chosen))
    inverse = np.empty(width, dtype=np.int64)
    in_good = good[group]
    inverse[column[in_good]] = place[(np.cumsum(good) - 1)[group[in_good]]]
    inverse[again] = place[int(np.count_nonzero(good)) + exact_group]
    return chosen[order], inverse


def _distinct_exactly(words: Words, rank: Array) -> tuple[Array, Array]:
    """`distinct_groups` by sorting the words themselves (after a collision of the hash)."""
    order = np.lexsort((np.arange(words.shape[1]), rank, *words[::-1]))
    ordered = words.take(order, axis=1)
    first = np.concatenate(([True], np.any(ordered[:, 1:] != ordered[:, :-1], axis=0)))
    group = np.cumsum(first) - 1
    chosen = order[first]
    by_column = np.argsort(chosen)
    place = np.empty(len(chosen), dtype=np.int64)
    place[by_column] = np.arange(len(chosen))
    inverse = np.empty(words.shape[1], dtype=np.int64)
    inverse[order] = place[group]
    return chosen[by_column], inverse
