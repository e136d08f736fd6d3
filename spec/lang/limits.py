"""The bounds of the spec language: what a file from a stranger can at most cost.

A spec, a variant or a question is data (SECURITY.md). Parsing refuses what could be
expensive before anything runs (long text, deep nesting, huge literals, `**`); the few
builtins whose cost grows with their arguments (`choose`, `perm`, tile sequences) and the
parameter domains a move ranges over are bounded here, checked at load time where the
argument is a literal and at evaluation time otherwise. Every bound is far above any
quantity of the game (a deck of 17 tiles, at most 16 seats, a hand of 3), so no playable
rule set meets one; a rule set that does is refused with an `EvaluationLimit`, a
`SpecError` naming the rule, which the command line reports as bad input.
"""

from __future__ import annotations

from ..errors import Location, SpecError

MAX_LITERAL = 1_000_000
"""Largest integer literal; every quantity of the game is far below it."""

MAX_DEPTH = 60
"""Deepest expression accepted; deeper text is refused rather than risking the stack."""

MAX_EXPRESSION_CHARS = 2000
"""Longest expression text accepted."""

MAX_TILES = 3
"""Longest tile sequence a `tiles` value holds (R-L1: a hand is three tiles; a Policy Peek
shows three, R-X3). The encoding of spec/lang/types.py and the Z3 bit widths rest on it."""

MAX_COMBINATORIC = 1000
"""Largest first argument of `choose` and `perm`: C(1000, 500) is a number of 300 digits,
computed in microseconds; the deck is 17 tiles."""

MAX_DOMAIN = 4096
"""Most values one parameter of a move may range over (a `LOW..HIGH` domain); a vote's Ja
sets (`subset`) are bounded by the 16 seats instead."""

MAX_FIELD_VALUES = 1 << 16
"""Most values an int state field may take (its `range`): the deck has 17 tiles, the
tracks 5 and 6 spaces; the explicit checker packs every field into a few bits."""

MAX_ENTRIES = 1_000
"""Most entries one section of a rule set may hold (constants, tables, enums, state
fields, definitions, rules; the members of one enum): the published game needs a few
dozen of each, and every entry costs load and compile time."""


class EvaluationLimit(SpecError):
    """An expression needed a value beyond one of the bounds above."""


def check_combinatoric(function: str, total: int, where: Location | None = None) -> None:
    """Refuse `choose(total, k)` / `perm(total, k)` with `total` above the bound."""
    if total > MAX_COMBINATORIC:
        raise EvaluationLimit(f"{function}() with n = {total} exceeds the language's bound of "
                              f"{MAX_COMBINATORIC} (spec/LANGUAGE.md)", where)


def check_tiles_length(length: int, where: Location | None = None) -> None:
    """Refuse a tile sequence domain longer than `MAX_TILES` (or negative)."""
    if not 0 <= length <= MAX_TILES:
        raise EvaluationLimit(f"tiles({length}): a tile sequence holds 0..{MAX_TILES} tiles", where)


def check_domain_size(low: int, high: int, where: Location | None = None) -> None:
    """Refuse a `LOW..HIGH` parameter domain of more than `MAX_DOMAIN` values."""
    if high - low + 1 > MAX_DOMAIN:
        raise EvaluationLimit(f"the domain {low}..{high} has {high - low + 1:,} values; a parameter "
                              f"ranges over at most {MAX_DOMAIN:,}", where)


def check_field_range(name: str, low: int, high: int, init: int, where: Location | None = None) -> None:
    """Refuse an int field whose range is reversed, too wide, or does not hold its `init`."""
    if low > high:
        raise EvaluationLimit(f"field '{name}' has the range {low}..{high}, which is empty; expected low..high "
                              f"with low <= high", where)
    if high - low + 1 > MAX_FIELD_VALUES:
        raise EvaluationLimit(f"field '{name}' has the range {low}..{high} of {high - low + 1:,} values; a field "
                              f"takes at most {MAX_FIELD_VALUES:,}", where)
    if not low <= init <= high:
        raise EvaluationLimit(f"field '{name}' starts at {init}, outside its range {low}..{high}", where)

MAX_TEMPORAL_COUNT = 64
"""Largest cap of a temporal counter (`times`, `in_a_row`, spec/temporal.py): a counter
saturates one above the number it is compared with, and a game of the published rules
has a few dozen rounds at most, so a larger cap only widens the state for nothing."""

MAX_TEMPORAL_CALLS = 16
"""Most temporal functions one query may use: each adds monitor fields to every state."""
