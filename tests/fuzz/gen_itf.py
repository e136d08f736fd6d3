"""Tampered ITF traces for `replay`: made by `shrules play --trace` when the fuzzer runs.

The trace's `#meta.source` names the rules to replay under, so a trace can carry a
hostile variant in (the known hole); its player count, states, actions and picks are
all data from a stranger too.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from . import payloads
from .corpus import Corpus
from .gen_transcript import HOSTILE_RULES, injected_variant
from .model import Case, Content, Repeat
from .mutate import RawJSON, corrupt_bytes, dumps_json, giant_int_text, hostile_json_value, mutate_json

FILE = "game.itf.json"
RULES_FILE = "v.toml"


def _meta(trace: dict[str, Any], rng: random.Random) -> tuple[str, list[tuple[str, Content]]]:
    choice = rng.randrange(3)
    if choice == 0:
        trace["#meta"]["source"] = RULES_FILE
        return "meta:injected-rules", [(RULES_FILE, injected_variant(rng))]
    if choice == 1:
        trace["#meta"]["source"] = rng.choice(HOSTILE_RULES)
        return "meta:hostile-rules", []
    trace["#meta"]["players"] = rng.choice((0, -1, 1, 4, 16, 17, 99, 10**6, 10**18, True, "5", 5.0, None,
                                            RawJSON(giant_int_text(rng)), RawJSON("NaN")))
    return "meta:players", []


def _state(trace: dict[str, Any], rng: random.Random) -> str:
    states = trace["states"]
    record = states[rng.randrange(len(states))]
    roll = rng.randrange(6)
    if roll == 0:
        record["mbt::actionTaken"] = payloads.name(rng, inject_weight=0.3)
        return "state:action"
    if roll == 1:
        picks = record.setdefault("mbt::nondetPicks", {})
        picks[rng.choice(("self", "state", "move", "name", "s", "**", "__class__", "kwargs", "x" * 1000,
                          payloads.name(rng, inject_weight=0.5)))] = {"tag": "Some", "value": 1}
        return "state:pick-name"
    if roll == 2:
        picks = record.get("mbt::nondetPicks") or {"x": 1}
        key = rng.choice(sorted(picks))
        picks[key] = rng.choice(({"tag": "Some", "value": 10**18}, {"tag": "Some", "value": {"#set": list(range(10_000))}},
                                 {"tag": "Some", "value": {"#bigint": giant_int_text(rng)}}, {"tag": "Some"},
                                 {"tag": "None"}, {"tag": "Some", "value": "__class__"}, [], None))
        return "state:pick-value"
    if roll == 3:
        field = rng.choice([k for k in record if not k.startswith(("#", "mbt"))])
        record[field] = rng.choice(({"#bigint": giant_int_text(rng)}, {"#bigint": "-1"}, {"#bigint": "x"},
                                    {"#set": [10**18]}, {"#set": [-1, 99]}, 10**18, -5, "__class__", [[]],
                                    {"tag": "Some", "value": 99}, ["fascist"] * 1000, hostile_json_value(rng, 1)))
        return "state:field"
    if roll == 4:
        del record[rng.choice(sorted(record))]
        return "state:delete"
    trace["states"] = rng.choice((states[:1], states[::-1], states + states[1:] * 10, [states[0]] * 2_000, [], {}))
    return "state:list"


def generate(rng: random.Random, ident: str, corpus: Corpus) -> Case:
    """One ITF case."""
    name = rng.choice(sorted(corpus.traces))
    trace = copy.deepcopy(corpus.traces[name])
    files: list[tuple[str, Content]] = []
    roll = rng.random()
    data: Content
    if roll < 0.3:
        family, files = _meta(trace, rng)
        data = dumps_json(trace, indent=1).encode()
    elif roll < 0.65:
        family = _state(trace, rng)
        data = dumps_json(trace, indent=None if family == "state:list" else 1).encode("utf-8", "surrogatepass")
    elif roll < 0.8:
        how, changed = mutate_json(trace, rng)
        family, data = f"json:{how}", dumps_json(changed).encode("utf-8", "surrogatepass")
    elif roll < 0.93:
        how, data = corrupt_bytes(json.dumps(trace, indent=1).encode(), rng)
        family = f"bytes:{how}"
    else:
        family = "big:deep" if rng.random() < 0.5 else "big:many-states"
        if family == "big:deep":
            data = b'{"#meta": {"players": 5}, "states": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
        else:
            state = json.dumps(trace["states"][0]).encode()
            data = Repeat(b'{"#meta": {"players": 5, "source": "standard"}, "vars": [], "states": [' + state,
                          b", " + state, 20_000, b"]}")
    args = ("replay", FILE) if rng.random() < 0.8 else ("replay", "--print", FILE)
    return Case("itf", ident, family, args, ((FILE, data), *files), note=name)
