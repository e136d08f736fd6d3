"""Hostile secrethitler.io game summaries for `judge --format secrethitler-io`.

Every case starts from a real game of the shared data folder (read when the fuzzer runs,
never copied into the project) and corrupts it: a key deleted, a value of the wrong type
or size, seats off the table, a custom game with impossible settings, bytes flipped.
Without the folder there are no cases of this kind, and the reason is reported.
"""

from __future__ import annotations

import random
from typing import Any

from .corpus import Corpus
from .model import Case, Content
from .mutate import RawJSON, corrupt_bytes, dumps_json, giant_int_text, mutate_json

FILE = "game.json"


def _targeted(game: dict[str, Any], rng: random.Random) -> str:
    """A corruption aimed at what the importer reads: seats, votes, hands, settings."""
    logs = game.get("logs") or [{}]
    entry = logs[rng.randrange(len(logs))]
    choice = rng.randrange(9)
    if choice == 0:
        entry[rng.choice(("presidentId", "chancellorId"))] = rng.choice((99, -1, 10**18, "0", None, 1.5,
                                                                          RawJSON(giant_int_text(rng))))
        return "seat"
    if choice == 1:
        entry["votes"] = rng.choice(([], [True] * 1000, [None] * 7, "yes", [1, 0, 1], [[True]] * 7))
        return "votes"
    if choice == 2:
        entry[rng.choice(("presidentHand", "chancellorHand", "deckState", "policyPeek"))] = rng.choice((
            ["liberal"] * 1000, ["__class__"] * 3, "fascist", [None], [], [["fascist"]], ["fascist"] * 1_000_000))
        return "hand"
    if choice == 3:
        entry["enactedPolicy"] = rng.choice(("communist", "", None, 1, ["fascist"]))
        return "enacted"
    if choice == 4:
        settings = game.setdefault("customGameSettings", {})
        settings["enabled"] = True
        key = rng.choice(("powers", "deckState", "trackState", "hitlerZone", "vetoZone", "fascistCount"))
        settings[key] = rng.choice((["__class__"] * 5, [None] * 1000, {"fas": 10**9, "lib": 10**9},
                                    {"fas": -1, "lib": -1}, -1, 10**9, RawJSON(giant_int_text(rng)), "x",
                                    {"fas": RawJSON(giant_int_text(rng))}, ["reverseinv", "peekdrop", "x", None, 1]))
        return f"custom:{key}"
    if choice == 5:
        game["players"] = rng.choice(([], [{}] * 1000, [{"role": "__class__"}] * 7, "x", [{"role": None}] * 7))
        return "players"
    if choice == 6:
        game["gameSetting"] = rng.choice(({"rebalance6p": True, "rebalance7p": True, "rebalance9p": True},
                                          {"noTopdecking": 10**18}, {"avalonSH": {"__class__": 1}}, None, []))
        return "game-setting"
    if choice == 7:
        game["logs"] = logs * rng.choice((20, 300))
        return "logs-repeated"
    game["_id"] = rng.choice(("../../../../etc/passwd", "x" * 100_000, "\x00", "\u202e", 5, None))
    return "id"


def generate(rng: random.Random, ident: str, corpus: Corpus) -> Case:
    """One secrethitler.io case (the corpus must have real games)."""
    index = rng.randrange(len(corpus.shio_files))
    roll = rng.random()
    data: Content
    if roll < 0.2:
        family, data = corrupt_bytes(corpus.shio_files[index].read_bytes(), rng)
        family = f"bytes:{family}"
    else:
        game = corpus.shio(index)
        if roll < 0.6:
            family = f"target:{_targeted(game, rng)}"
        else:
            how, game = mutate_json(game, rng)
            family = f"json:{how}"
        data = dumps_json(game, indent=1).encode("utf-8", "surrogatepass")
    args = ("judge", "--format", "secrethitler-io", FILE) if rng.random() < 0.7 else ("judge", "--json", FILE)
    return Case("shio", ident, family, args, ((FILE, data),), note=corpus.shio_files[index].name)
