"""Compact state storage: a state tuple packed into one int, behind `encode`/`decode`.

Every field of a state is a bounded integer (spec/lang/types.py), so a state is a
mixed-width bit string: each kept field gets the bits its declared range needs, stored as
`value - low` (so `none` = -1 becomes 0). A Python int of ~90 bits is 40 bytes against
~270 for the tuple, and hashes in one step. The codec also applies the two reductions that
act on single states (reductions.py): the rotation that puts the pivot seat field at
seat 0, and the cone of influence (dropped fields are not stored and decode to their
initial value). `encode` and `decode` are generated Python source, one expression each:
a loop over fields costs several times more.

Round trip (tested with Hypothesis): `decode(encode(s)) == canonical(s)`, and `encode` is
injective on canonical states within the declared ranges. A value outside its declared
range is refused (`OutOfRange`), never silently masked into a neighbouring field.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from engine.game import Game
from engine.pycompile import compile_expression, load_source

CHUNK_BITS = 62
"""Bits packed with small-int arithmetic before joining into one big int."""
TILES_BITS = 4
"""Bits of a tile sequence code: at most three tiles plus the sentinel bit (types.py)."""


class OutOfRange(Exception):
    """A state field outside its declared range: the rules produced an impossible value."""

    def __init__(self, state: Any, field: str, value: int, low: int, high: int) -> None:
        super().__init__(f"field '{field}' = {value} is outside its declared range {low}..{high}")
        self.state = state
        self.field = field
        self.value = value


@dataclass(frozen=True, slots=True)
class FieldLayout:
    """Where one field lives in the packed int."""

    name: str
    index: int
    kind: str          # seat | seats | other
    low: int
    high: int
    shift: int
    bits: int
    default: int       # the value of a dropped field


def field_bounds(game: Game, index: int) -> tuple[int, int]:
    """The declared (low, high) of a field for this player count."""
    spec_field = game.spec.fields[index]
    type_ = spec_field.type
    players = game.players
    optional = -1 if type_.optional else 0
    if type_.kind == "bool":
        return 0, 1
    if type_.kind == "int":
        assert spec_field.low is not None and spec_field.high is not None
        low = compile_expression(game.spec, players, spec_field.low)(None)
        high = compile_expression(game.spec, players, spec_field.high)(None)
        return int(low), int(high)
    if type_.kind == "seat":
        return optional, players - 1
    if type_.kind == "seats":
        return 0, (1 << players) - 1
    if type_.kind == "enum":
        return optional, len(game.spec.enums[str(type_.enum)]) - 1
    if type_.kind == "tiles":
        return 1, (1 << TILES_BITS) - 1
    raise AssertionError(type_.kind)


class Codec:
    """Pack and unpack the states of one game under the given symmetry and kept fields."""

    def __init__(self, game: Game, kept: frozenset[str] | None = None, pivot: int | None = None) -> None:
        self.game = game
        self.players = game.players
        self.pivot = pivot
        kept = frozenset(game.field_names) if kept is None else kept
        initial = game.initial_state()
        layouts = []
        shift = 0
        for index, spec_field in enumerate(game.spec.fields):
            low, high = field_bounds(game, index)
            kind = spec_field.type.kind if spec_field.type.kind in ("seat", "seats") else "other"
            stored = spec_field.name in kept and index != pivot
            bits = (high - low).bit_length() if stored else 0
            layouts.append(FieldLayout(spec_field.name, index, kind, low, high, shift, bits, initial[index]))
            shift += bits
        self.layouts = tuple(layouts)
        self.bits = shift
        self.kept = kept
        self.encode: Callable[[Any], int] = self._compile_encode()
        self.decode: Callable[[int], Any] = self._compile_decode()
        self.canonical: Callable[[Any], Any] = self._compile_canonical()

    # ------------------------------------------------------------------ generated code

    def _rotated(self, layout: FieldLayout) -> str:
        """The expression of a field's value rotated by -r (r = the pivot's seat)."""
        value = f"s[{layout.index}]"
        players = self.players
        full = (1 << players) - 1
        if layout.kind == "seat":
            if layout.low < 0:
                return f"(({value} - r) % {players} if {value} >= 0 else -1)"
            return f"(({value} - r) % {players})"
        if layout.kind == "seats":
            return f"((({value} >> r) | ({value} << ({players} - r))) & {full})"
        return value

    def _chunks(self) -> list[list[FieldLayout]]:
        """Stored fields grouped into runs of at most CHUNK_BITS bits: each run is packed
        with machine-word arithmetic, and only the runs are joined as a big int."""
        chunks: list[list[FieldLayout]] = [[]]
        used = 0
        for layout in self.layouts:
            if layout.bits == 0:
                continue
            if used + layout.bits > CHUNK_BITS and chunks[-1]:
                chunks.append([])
                used = 0
            chunks[-1].append(layout)
            used += layout.bits
        return [chunk for chunk in chunks if chunk]

    def _compile_encode(self) -> Callable[[Any], int]:
        checks = []
        for layout in self.layouts:
            # Seats, seat sets, enums and bools are in range by their types (no arithmetic
            # is allowed on them); ints and tile codes come from arithmetic: check them.
            if layout.bits and self.game.spec.fields[layout.index].type.kind in ("int", "tiles"):
                checks.append(f"{layout.low} <= s[{layout.index}] <= {layout.high}")

        def packed(rotated: bool) -> str:
            words = []
            for chunk in self._chunks():
                base = chunk[0].shift
                parts = []
                for layout in chunk:
                    value = self._rotated(layout) if rotated else f"s[{layout.index}]"
                    offset = f" - {layout.low}" if layout.low else ""
                    shift = layout.shift - base
                    parts.append(f"(({value}{offset}) << {shift})" if shift else f"({value}{offset})")
                word = " | ".join(parts)
                words.append(f"(({word}) << {base})" if base else f"({word})")
            return " | ".join(words) or "0"

        check = " and ".join(checks) or "True"
        lines = ["def encode(s):", f"    if not ({check}):", "        _range_error(s)"]
        if self.pivot is not None:
            lines += [f"    r = s[{self.pivot}]", "    if r:", f"        return {packed(True)}"]
        lines += [f"    return {packed(False)}"]
        namespace: dict[str, Any] = {"_range_error": self._range_error}
        load_source("\n".join(lines), "codec encode", namespace)
        function: Callable[[Any], int] = namespace["encode"]
        return function

    def _compile_decode(self) -> Callable[[int], Any]:
        chunks = self._chunks()
        lines = ["def decode(x):"]
        where: dict[int, tuple[int, int]] = {}
        for number, chunk in enumerate(chunks):
            base = chunk[0].shift
            width = chunk[-1].shift + chunk[-1].bits - base
            lines.append(f"    w{number} = (x >> {base}) & {(1 << width) - 1}" if base
                         else f"    w{number} = x & {(1 << width) - 1}")
            for layout in chunk:
                where[layout.index] = (number, layout.shift - base)
        values = []
        for layout in self.layouts:
            if layout.bits == 0:
                values.append(repr(0 if layout.index == self.pivot else layout.default))
                continue
            number, shift = where[layout.index]
            mask = (1 << layout.bits) - 1
            offset = f" + {layout.low}" if layout.low else ""
            values.append(f"((w{number} >> {shift}) & {mask}){offset}" if shift else f"(w{number} & {mask}){offset}")
        lines.append(f"    return _new(_State, ({', '.join(values)},))")
        namespace: dict[str, Any] = {"_new": tuple.__new__, "_State": self.game.State}
        load_source("\n".join(lines), "codec decode", namespace)
        function: Callable[[int], Any] = namespace["decode"]
        return function

    def _compile_canonical(self) -> Callable[[Any], Any]:
        values = []
        for layout in self.layouts:
            if layout.bits == 0:
                values.append(repr(0 if layout.index == self.pivot else layout.default))
            elif self.pivot is not None:
                values.append(self._rotated(layout))
            else:
                values.append(f"s[{layout.index}]")
        lines = ["def canonical(s):"]
        if self.pivot is not None:
            lines.append(f"    r = s[{self.pivot}]")
        lines.append(f"    return _new(_State, ({', '.join(values)},))")
        namespace: dict[str, Any] = {"_new": tuple.__new__, "_State": self.game.State}
        load_source("\n".join(lines), "codec canonical", namespace)
        function: Callable[[Any], Any] = namespace["canonical"]
        return function

    def _range_error(self, state: Any) -> None:
        for layout in self.layouts:
            value = state[layout.index]
            if layout.bits and not layout.low <= value <= layout.high:
                raise OutOfRange(state, layout.name, int(value), layout.low, layout.high)

    # ------------------------------------------------------------------ rotation

    def rotation(self, state: Any) -> int:
        """The seat the pivot field holds: `canonical` rotates by minus this."""
        return 0 if self.pivot is None else int(state[self.pivot])

    def rotate_seat(self, seat: int, by: int) -> int:
        """A seat moved `by` places clockwise (`none` stays `none`)."""
        return seat if seat < 0 else (seat + by) % self.players

    def rotate_seats(self, mask: int, by: int) -> int:
        """A seat set moved `by` places clockwise."""
        players = self.players
        by %= players
        return ((mask << by) | (mask >> (players - by))) & ((1 << players) - 1)


class PackedKeys:
    """Stored keys as fixed-width bytes in one buffer: an id's key without a Python int per
    state (about 48 bytes each in a list, here the codec's bits rounded up to bytes). The
    sweep keeps every key this way for traces while its index holds only a few layers."""

    __slots__ = ("width", "data")

    def __init__(self, bits: int) -> None:
        self.width = max(1, (bits + 7) // 8)
        self.data = bytearray()

    def append(self, key: int) -> None:
        """Store `key` under the next id."""
        self.data += key.to_bytes(self.width, "little")

    def __getitem__(self, index: int) -> int:
        width = self.width
        if not 0 <= index < len(self.data) // width:
            raise IndexError(index)
        return int.from_bytes(self.data[index * width:(index + 1) * width], "little")

    def __len__(self) -> int:
        return len(self.data) // self.width

    def __iter__(self) -> Iterator[int]:
        width, data = self.width, self.data
        for start in range(0, len(data), width):
            yield int.from_bytes(data[start:start + width], "little")
