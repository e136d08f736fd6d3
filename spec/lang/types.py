"""Types of the spec language and how each value is encoded in a state.

Every value is a small integer or bool, so a state is a tuple of ints that hashes fast and
maps one-to-one onto bit-vectors for Z3:

- `bool`; `int` (bounded by the field's declared range);
- `seat` (0..n-1) and `seat?` (a seat or `none`, encoded -1);
- `seats` (a set of seats, encoded as a bit mask: bit i set = seat i in the set);
- an enum (encoded as the index of its member; an optional enum `E?` encodes `none` as -1);
- `tiles` (a sequence of at most 3 policy tiles, top first, encoded with a sentinel bit:
  `(1 << length) | bits`, bit i set = tile i is Fascist; the empty sequence is 1);
- `list` of one of these, only as a constant or literal.
"""

from __future__ import annotations

from dataclasses import dataclass

TILE_MEMBERS: tuple[str, ...] = ("liberal", "fascist")
"""The two kinds of policy tile; their order fixes the encoding (Fascist = 1)."""


@dataclass(frozen=True, slots=True)
class Type:
    """A type: its kind, the enum's name for enums, whether `none` is a value."""

    kind: str  # bool | int | seat | seats | enum | tiles | list | string | none
    enum: str | None = None
    optional: bool = False
    elem: "Type | None" = None

    def __str__(self) -> str:
        if self.kind == "enum":
            base = str(self.enum)
        elif self.kind == "list":
            base = f"list of {self.elem}"
        else:
            base = self.kind
        return base + ("?" if self.optional else "")

    def required(self) -> "Type":
        """The same type without `none`."""
        return Type(self.kind, self.enum, False, self.elem)

    def same_base(self, other: "Type") -> bool:
        """Equal but for optionality."""
        return self.kind == other.kind and self.enum == other.enum and self.elem == other.elem


BOOL = Type("bool")
INT = Type("int")
SEAT = Type("seat")
SEATS = Type("seats")
TILE = Type("enum", "tile")
TILES = Type("tiles")
STRING = Type("string")
NONE = Type("none")

BASE_TYPES: dict[str, Type] = {"bool": BOOL, "int": INT, "seat": SEAT, "seats": SEATS, "tiles": TILES}


def parse_type(text: str, enums: dict[str, tuple[str, ...]]) -> Type | None:
    """The type named by `text` (`seat`, `seat?`, `phase`, `tile?` ...), or None if unknown."""
    optional = text.endswith("?")
    name = text[:-1] if optional else text
    if name in BASE_TYPES:
        if optional and name != "seat":
            return None
        return Type(BASE_TYPES[name].kind, optional=optional)
    if name in enums:
        return Type("enum", name, optional)
    return None


def encode_tiles(tiles: list[str] | tuple[str, ...]) -> int:
    """The packed code of a tile sequence, top first."""
    code = 1 << len(tiles)
    for index, tile in enumerate(tiles):
        if tile == "fascist":
            code |= 1 << index
    return code


def decode_tiles(code: int) -> list[str]:
    """The tile sequence, top first, of a packed code."""
    length = code.bit_length() - 1
    return [TILE_MEMBERS[(code >> index) & 1] for index in range(length)]


def decode_seats(mask: int) -> list[int]:
    """The seats in a bit mask, in increasing order."""
    return [seat for seat in range(mask.bit_length()) if mask >> seat & 1]


def encode_seats(seats: list[int] | tuple[int, ...] | set[int] | frozenset[int]) -> int:
    """The bit mask of a collection of seats."""
    mask = 0
    for seat in seats:
        mask |= 1 << seat
    return mask
