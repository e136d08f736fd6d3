"""Hostile native transcripts (JSON Lines, engine/TRANSCRIPT.md) for `judge` and `ask --game`.

Mutation corrupts the shipped example games line by line or byte by byte; generation
writes setups whose rules name a hostile variant beside the transcript (the transcript
is then the way the variant gets in), hostile move names and parameters, and very large
or very deep documents.
"""

from __future__ import annotations

import json
import random
from typing import Any

from . import payloads
from .commands import SMALL_ASK
from .corpus import Corpus
from .model import CANARY, Case, Content, Repeat
from .mutate import RawJSON, corrupt_bytes, dumps_json, giant_int_text, hostile_json_value, mutate_json
from .tomlw import dumps

FILE = "game.jsonl"
RULES_FILE = "v.toml"


def injected_variant(rng: random.Random) -> bytes:
    """A variant whose parameter name is an injection (the known hole)."""
    name = rng.choice(payloads.INJECTED_NAMES)
    return dumps({"extends": "standard", "name": "x",
                  "rule": [{"name": "nominate", "params": {"chancellor": "seat", name: "seat"}}]}).encode()


def _lines(data: bytes) -> list[Any]:
    return [json.loads(line) for line in data.decode().splitlines() if line.strip()]


def _join(lines: list[Any]) -> bytes:
    return ("\n".join(dumps_json(line) for line in lines) + "\n").encode("utf-8", "surrogatepass")


def _command(rng: random.Random, file: str = FILE) -> tuple[str, ...]:
    roll = rng.random()
    if roll < 0.6:
        return ("judge", file)
    if roll < 0.75:
        return ("judge", "--json", file)
    move = rng.choice(('{"move": "nominate", "by": 0, "chancellor": 1}', '{"move": "vote", "ja": [0, 1, 2]}',
                       '{"move": "enact", "tile": "fascist"}'))
    return ("ask", "--game", file, "--move", move, *SMALL_ASK)


HOSTILE_RULES = ("/etc/passwd", "../../../../../../etc/passwd", "/dev/zero", "/proc/self/environ", "",
                 "custom[players=1-1000000000]", "standard[deck_fascist=1000000000]", "custom[powers=__class__]",
                 "standard[", "standard[x=" + "[" * 10_000, "x" * 100_000, f"{CANARY}/v.toml", "standard\x00",
                 "custom[deck_fascist=" + giant_int_text(random.Random(0)) + "]", "mistakes/../../../../etc/hosts")


def setup_case(rng: random.Random, corpus: Corpus) -> tuple[str, list[tuple[str, Content]]]:
    """A setup line that is hostile, followed by a real game's moves."""
    base = _lines(corpus.transcripts["legal_game.jsonl"])
    setup = base[0]["setup"]
    choice = rng.randrange(4)
    if choice == 0:
        setup["rules"] = RULES_FILE
        return "setup:injected-rules", [(FILE, _join(base)), (RULES_FILE, injected_variant(rng))]
    if choice == 1:
        setup["rules"] = rng.choice(HOSTILE_RULES)
        return "setup:hostile-rules", [(FILE, _join(base))]
    if choice == 2:
        key = rng.choice(("players", "roles", "first_president", "game", "rules"))
        setup[key] = hostile_json_value(rng, setup.get(key))
        return f"setup:{key}", [(FILE, _join(base))]
    setup["roles"] = rng.choice(({"hitler": 10**9}, {"hitler": -1}, {"fascists": list(range(100_000))},
                                 {"fascists": [1, 1, 1]}, {"hitler": 1, "fascists": [1]}, {"fascists": "all"},
                                 {"hitler": RawJSON(giant_int_text(rng))}, {"__class__": 1}))
    return "setup:roles", [(FILE, _join(base))]


def move_case(rng: random.Random, corpus: Corpus) -> tuple[str, list[tuple[str, Content]]]:
    """A real game with one move line made hostile."""
    name = rng.choice(sorted(corpus.transcripts))
    lines = _lines(corpus.transcripts[name])
    index = rng.randrange(1, len(lines))
    roll = rng.random()
    if roll < 0.3:
        lines[index]["move"] = payloads.name(rng, inject_weight=0.3)
        family = "move:name"
    elif roll < 0.5:
        lines[index][payloads.name(rng, inject_weight=0.3)] = hostile_json_value(rng, 1)
        family = "move:param-name"
    else:
        how, lines[index] = mutate_json(lines[index], rng)
        family = f"move:{how}"
    return family, [(FILE, _join(lines))]


def bytes_case(rng: random.Random, corpus: Corpus) -> tuple[str, list[tuple[str, Content]]]:
    """A real game corrupted byte-wise."""
    how, data = corrupt_bytes(corpus.transcripts[rng.choice(sorted(corpus.transcripts))], rng)
    return f"bytes:{how}", [(FILE, data)]


def big_case(rng: random.Random, corpus: Corpus) -> tuple[str, list[tuple[str, Content]]]:
    """Very large, very long-lined or very deep transcripts."""
    setup = b'{"setup": {"players": 5, "rules": "standard", "roles": {"hitler": 2, "fascists": [4]}, "first_president": 0}}\n'
    shape = rng.randrange(7)
    if shape == 0:
        return "big:many-lines", [(FILE, Repeat(setup, b'{"move": "vote", "ja": [0]}\n{"move": "nominate", "by": 1, "chancellor": 2}\n', 200_000))]
    if shape == 1:
        return "big:blank-lines", [(FILE, Repeat(setup, b"\n", 5_000_000))]
    if shape == 2:
        return "big:long-line", [(FILE, Repeat(setup + b'{"move": "nominate", "comment": "', b"z" * 1024, 20 * 1024, b'"}\n'))]
    if shape == 3:
        return "big:deep", [(FILE, setup + b'{"move": "nominate", "by": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n")]
    if shape == 4:
        return "big:giant-int", [(FILE, setup + b'{"move": "nominate", "by": ' + giant_int_text(rng).encode() + b', "chancellor": 1}\n')]
    if shape == 5:
        return "big:huge-ja", [(FILE, setup + ('{"move": "vote", "ja": [' + ", ".join(map(str, range(1_000_000))) + "]}\n").encode())]
    return "big:deep-setup", [(FILE, b'{"setup": ' + b'{"a": ' * 100_000 + b"1" + b"}" * 100_000 + b"}\n")]


def directory_case(rng: random.Random, corpus: Corpus) -> tuple[str, list[tuple[str, Content]]]:
    """A folder of one hostile game among good ones, judged as a folder."""
    family, files = move_case(rng, corpus)
    out: list[tuple[str, Content]] = [(f"games/{name}", data) for name, data in sorted(corpus.transcripts.items())]
    out += [(f"games/zz-{path}", data) for path, data in files]
    return f"dir:{family}", out


def generate(rng: random.Random, ident: str, corpus: Corpus) -> Case:
    """One transcript case."""
    maker = rng.choices((setup_case, move_case, bytes_case, big_case, directory_case), weights=(4, 6, 3, 2, 1))[0]
    family, files = maker(rng, corpus)
    args = ("judge", "games") if family.startswith("dir:") else _command(rng)
    return Case("transcript", ident, family, args, tuple(files))
