"""Exact non-negative integers of any size over numpy: a column per number, a row per limb.

The exact odds (odds_layers.py) keep each probability mass as an integer numerator over a
denominator shared by a whole batch of masses. The numerators of a 5-player game reach a
few hundred bits, past any machine word, and there are tens of millions of them: as
Python integers (or rationals) in object arrays each operation is a call through the
interpreter; here each is a few array operations over every number at once, a limb at
a time.

A number is its digits in base 2**31 (`BITS`), least significant first, one limb per row
of an int64 array; after `normalised` every limb is below 2**31. Products of a limb and
a digit stay below 2**62 and so fit the int64 exactly; sums of limbs of up to 2**22
numbers (`MERGE_AT_ONCE`) stay below 2**53, so `numpy.bincount`, which adds in float64,
adds them exactly.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

Limbs = npt.NDArray[np.int64]

BITS = 31
"""Bits per limb."""

MASK = (1 << BITS) - 1

MERGE_AT_ONCE = 1 << 22
"""Most numbers summed into one by `sums`: their limbs' sums stay below 2**53, exact in float64."""


def digits(value: int) -> list[int]:
    """`value` (>= 0) in base 2**BITS, least significant first, at least one digit."""
    out = []
    while True:
        out.append(value & MASK)
        value >>= BITS
        if not value:
            return out


def ones(count: int) -> Limbs:
    """`count` numbers 1."""
    return np.ones((1, count), dtype=np.int64)


def normalised(x: Limbs) -> Limbs:
    """The same numbers with every limb below 2**BITS (the carries moved up, limbs added
    on top as needed, zero limbs on top removed). Each limb must be below 2**62."""
    x = _carried(np.ascontiguousarray(x))
    while len(x) and (x[-1] >> BITS).any():
        carry = x[-1] >> BITS
        x[-1] &= MASK
        x = np.concatenate([x, carry[None, :]])
    return _trimmed(x)


def _carried(x: Limbs) -> Limbs:
    """Every carry moved up, in place, one limb after the other (so a carry added to a
    limb is carried on with it); the top limb keeps its own carry."""
    carry = np.empty(x.shape[1], dtype=np.int64)
    for row in range(len(x) - 1):
        np.right_shift(x[row], BITS, out=carry)
        np.bitwise_and(x[row], MASK, out=x[row])
        np.add(x[row + 1], carry, out=x[row + 1])
    return x


def _trimmed(x: Limbs) -> Limbs:
    """Without the zero limbs on top (one limb at least)."""
    top = len(x)
    while top > 1 and not x[top - 1].any():
        top -= 1
    return x[:top]


def widened(x: Limbs, rows: int) -> Limbs:
    """The numbers with `rows` limbs (zeros added on top)."""
    if len(x) >= rows:
        return x
    return np.concatenate([x, np.zeros((rows - len(x), x.shape[1]), dtype=np.int64)])


def joined(parts: list[Limbs]) -> Limbs:
    """The numbers of several arrays side by side."""
    rows = max(len(part) for part in parts)
    return np.concatenate([widened(part, rows) for part in parts], axis=1)


def times(x: Limbs, by: Limbs) -> Limbs:
    """Each number times its multiplier (`by`: a column of digits per number, or one
    column broadcast to all), exactly. A limb times a digit is below 2**62; the product
    of a number of k limbs and one of j digits has k + j limbs at most."""
    out = np.empty((len(x) + len(by), x.shape[1]), dtype=np.int64)
    np.multiply(x, by[0], out=out[:len(x)])
    out[len(x):] = 0
    if len(by) == 1:
        return _trimmed(_carried(out))
    _carried(out)
    for position in range(1, len(by)):
        digit = by[position]
        if not digit.any():
            continue
        out[position:position + len(x)] += x * digit       # below 2**31 + 2**62
        _carried(out[position:])
    return _trimmed(out)


def scaled(x: Limbs, factor: int) -> Limbs:
    """Every number times `factor`."""
    if factor == 1:
        return x
    return times(x, np.array(digits(factor), dtype=np.int64)[:, None])


def sums(group: npt.NDArray[np.int64], count: int, x: Limbs) -> Limbs:
    """The sum of the numbers of each group (0..count-1), exactly."""
    out = np.empty((len(x) + 1, count), dtype=np.int64)
    out[-1] = 0
    if not x.shape[1]:
        out[:] = 0
        return _trimmed(out)
    if int(np.bincount(group).max()) >= MERGE_AT_ONCE:
        out[:] = 0
        for row in range(len(x)):
            np.add.at(out[row], group, x[row])          # int64: exact, below 2**62 for fewer than 2**31 numbers
    else:
        for row in range(len(x)):
            out[row] = np.bincount(group, weights=x[row], minlength=count)
    return normalised(out)


def divided(x: Limbs, divisor: int) -> tuple[Limbs, bool]:
    """Every number divided by `divisor` (below 2**BITS), and whether every division was exact."""
    quotient = np.empty_like(x)
    remainder = np.zeros(x.shape[1], dtype=np.int64)
    for row in range(len(x) - 1, -1, -1):
        current = (remainder << BITS) | x[row]
        quotient[row] = current // divisor
        remainder = current - quotient[row] * divisor
    return quotient, not remainder.any()


def total(x: Limbs) -> int:
    """The sum of every number, as a Python integer."""
    return sum(int(value) << (BITS * row) for row, value in enumerate(x.sum(axis=1).tolist()))


def reduced(x: Limbs, denominator: int, primes: list[int]) -> tuple[Limbs, int]:
    """The numbers and their shared denominator divided by a common factor: the same
    fractions with smaller numbers. The factor is found on a sample of the numbers (their
    greatest common divisor with the denominator, which every common factor divides) and
    then tried on all of them, a divisor below 2**BITS at a time; a divisor that does not
    divide them all is not applied, so the result is always the same fractions, reduced
    as far as the sample pointed."""
    count = x.shape[1]
    if not count:
        return x, denominator
    sample = x[:, ::max(1, count // SAMPLE)]
    common = math.gcd(denominator, *(sum(int(limb) << (BITS * row) for row, limb in enumerate(column))
                                     for column in sample.T.tolist()))
    for divisor in _divisors(common, primes):
        quotient, exact = divided(x, divisor)
        if not exact:
            break
        x, denominator = quotient, denominator // divisor
    return normalised(x), denominator


SAMPLE = 64
"""Numbers whose common factor with the denominator `reduced` tries on all of them."""


def _divisors(number: int, primes: list[int]) -> list[int]:
    """`number`'s factors over `primes` grouped into divisors below 2**BITS (the part of
    it over other primes is left out)."""
    out, current = [], 1
    for prime in primes:
        while number % prime == 0:
            number //= prime
            if current * prime > MASK:
                out.append(current)
                current = 1
            current *= prime
    if current > 1:
        out.append(current)
    return out
