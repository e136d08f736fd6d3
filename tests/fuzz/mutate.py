"""Mutations of valid inputs: corrupt bytes, or corrupt a JSON document's structure.

Mutation finds what generation does not think of: the parser's corners. Every mutation
is a pure function of a `random.Random`, so a seed gives the same corruption again.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

from .tomlw import Verbatim

GIANT_DIGITS = 5000
"""More digits than Python converts by default (4,300): int(text) raises ValueError."""


def giant_int_text(rng: random.Random, negative: bool = False) -> str:
    """A decimal integer of more than 4,300 digits, as text."""
    return ("-" if negative else "") + str(rng.randint(1, 9)) + "7" * GIANT_DIGITS


def flip_bytes(data: bytes, rng: random.Random) -> bytes:
    """A few random bytes replaced, inserted or deleted: what a bad disk or a bad editor does."""
    buffer = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if not buffer:
            break
        where = rng.randrange(len(buffer))
        action = rng.random()
        if action < 0.5:
            buffer[where] = rng.randrange(256)
        elif action < 0.75:
            buffer.insert(where, rng.choice((0x00, 0xFF, 0xC3, 0x80, ord("{"), ord('"'), ord("\n"), ord("["))))
        else:
            del buffer[where]
    return bytes(buffer)


def corrupt_bytes(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    """One byte-level corruption and its name."""
    choice = rng.randrange(9)
    if choice == 0:
        return "flip-bytes", flip_bytes(data, rng)
    if choice == 1:
        return "truncate", data[: rng.randrange(max(1, len(data)))]
    if choice == 2:
        return "non-utf8", data[: len(data) // 2] + b"\xff\xfe\xc3\x28\xa0\xa1" + data[len(data) // 2:]
    if choice == 3:
        return "bom", b"\xef\xbb\xbf" + data
    if choice == 4:
        return "utf16", data.decode("utf-8", "replace").encode("utf-16")
    if choice == 5:
        return "nul-bytes", data.replace(b"\n", b"\x00\n", rng.randint(1, 5))
    if choice == 6:
        return "crlf-cr", data.replace(b"\n", rng.choice((b"\r\n", b"\r")))
    if choice == 7:
        return "empty", b""
    return "line-shuffle", b"\n".join(rng.sample(data.split(b"\n"), len(data.split(b"\n"))))


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value in a JSON document (keys and indexes)."""
    out: list[tuple[Any, ...]] = [prefix]
    if isinstance(node, dict):
        for key, item in node.items():
            out += _paths(item, prefix + (key,))
    elif isinstance(node, list):
        for index, item in enumerate(node[:40]):
            out += _paths(item, prefix + (index,))
    return out


def _get(node: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        node = node[step]
    return node


class RawJSON:
    """JSON text spliced in where a value stands (a giant number, NaN, deep nesting)."""

    def __init__(self, text: str) -> None:
        self.text = text


def hostile_json_value(rng: random.Random, like: Any) -> Any:
    """A value of the wrong type, range or size, somewhat related to `like`. The options
    are made only when drawn: some are large."""
    options: list[Callable[[], Any]] = [
        lambda: None, lambda: True, lambda: False, lambda: -1, lambda: 0, lambda: 10**18, lambda: -(10**18),
        lambda: 2**63, lambda: 1.5, lambda: "", lambda: "x" * 100_000, lambda: [], lambda: {}, lambda: [None],
        lambda: {"#set": []}, lambda: RawJSON("NaN"), lambda: RawJSON("Infinity"), lambda: RawJSON("-Infinity"),
        lambda: RawJSON(giant_int_text(rng)), lambda: RawJSON("1e400"),
        lambda: RawJSON("[" * 100_000 + "]" * 100_000), lambda: RawJSON('{"a":' * 50_000 + "1" + "}" * 50_000),
        lambda: "__class__", lambda: "__init__", lambda: "\x00", lambda: "\u202e", lambda: list(range(100_000)),
        lambda: {"__proto__": 1}, lambda: {"#bigint": giant_int_text(rng)}, lambda: {"#bigint": "1e9"},
        lambda: {"tag": "Some"}, lambda: {"#tup": [1, 2, 3]}, lambda: {"#map": [[1, 2]]},
    ]
    if isinstance(like, int) and not isinstance(like, bool):
        options += [lambda: like + 1000, lambda: -like - 1, lambda: str(like), lambda: float(like),
                    lambda: like * 10**12]
    if isinstance(like, str):
        options += [lambda: like.upper(), lambda: like + "\x00", lambda: like * 1000, lambda: [like], lambda: 0]
    if isinstance(like, list):
        options += [lambda: like * 1000, lambda: like[::-1], lambda: like + like, lambda: [like],
                    lambda: dict(enumerate(like))]
    if isinstance(like, dict):
        options += [lambda: list(like), lambda: [like], lambda: {**like, "extra": 1}]
    return rng.choice(options)()


def mutate_json(document: Any, rng: random.Random) -> tuple[str, Any]:
    """One structural corruption of a JSON document: a key deleted, a value replaced by a
    hostile one, a key renamed, a list blown up. Returns the corruption's name."""
    doc = copy.deepcopy(document)
    paths = [p for p in _paths(doc) if p]
    if not paths:
        return "replace-root", hostile_json_value(rng, doc)
    path = rng.choice(paths)
    parent = _get(doc, path[:-1])
    last = path[-1]
    action = rng.randrange(5)
    if action == 0 and isinstance(parent, dict):
        del parent[last]
        return "delete-key", doc
    if action == 1 and isinstance(parent, dict):
        parent[rng.choice(("__class__", "", "x" * 1000, "\x00", "extra", str(last).upper()))] = parent.pop(last)
        return "rename-key", doc
    if action == 2 and isinstance(parent, list):
        parent.extend([parent[last]] * rng.choice((2, 1000, 100_000)))
        return "repeat-item", doc
    parent[last] = hostile_json_value(rng, parent[last])
    return "replace-value", doc


def dumps_json(document: Any, indent: int | None = None) -> str:
    """JSON text of a document that may hold `RawJSON` pieces."""
    pieces: dict[str, str] = {}

    def swap(node: Any) -> Any:
        if isinstance(node, RawJSON):
            token = f"@@RAW{len(pieces)}@@"
            pieces[token] = node.text
            return token
        if isinstance(node, dict):
            return {str(k): swap(v) for k, v in node.items()}
        if isinstance(node, list):
            return [swap(v) for v in node]
        if isinstance(node, Verbatim):
            return swap(RawJSON(node.text))
        return node

    text = json.dumps(swap(document), indent=indent, ensure_ascii=False)
    for token, raw in pieces.items():
        text = text.replace(json.dumps(token), raw)
    return text
