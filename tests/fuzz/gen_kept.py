"""Kept files from a stranger: a task-cache entry for `check --cache`, an atlas for
`check --atlas`.

A cache or an atlas is a folder someone else may have written first (a shared CI cache, a
colleague's atlas). Each case lays out one such file where the command will read it: the
cache entry under the very key the check looks up (found by the runner's own
`runner_tasks`), the atlas with the stamp and content hash that match the rules checked,
so that what the file says is read and not merely missed. Then the file is damaged:
forged verdicts and games, hostile JSON values, corrupt bytes, nesting and size, a FIFO.
Every case must end with a verdict (a forged or damaged entry is a miss with a warning)
or one error line; never a traceback or a hang.
"""

from __future__ import annotations

import copy
import json
import random
from functools import lru_cache
from typing import Any

from .corpus import Corpus
from .model import Case, Content, Repeat
from .mutate import corrupt_bytes, dumps_json, giant_int_text, hostile_json_value, mutate_json

RULES = "custom[deck_liberal=1; deck_fascist=1]"
"""A broken rule set decided in about a second at 5 players (a two-tile deck)."""
PROPERTIES = ("draw_finds_three", "fascist_policy_win")
CACHE = "cache"
ATLAS = "atlas"
CHECK = ("check", "-n", "5", "--rules", RULES, "-p", PROPERTIES[0], "-p", PROPERTIES[1], "--workers", "1")


@lru_cache(maxsize=1)
def _task_entry() -> tuple[str, dict[str, Any]]:
    """The key `check --cache` looks up for CHECK, and the entry it keeps (computed once)."""
    from verify.explicit.check import DEFAULT_EXPLORER
    from verify.scale.checks import run_raws, runner_tasks
    from verify.rules import Rules
    [task] = runner_tasks(Rules.named(RULES), (5,), PROPERTIES, max_states=None, time_limit=600.0, memory_limit=8_000,
                          explorer=DEFAULT_EXPLORER)
    return task.key, json.loads(json.dumps(run_raws(task)))


def _forged_raws(entry: dict[str, Any], rng: random.Random) -> str:
    """A verdict or a game changed to say what the rules do not."""
    raws = entry["raws"]
    raw = raws[rng.randrange(len(raws))]
    roll = rng.randrange(6)
    if roll == 0:
        raw.update(verdict="proved", moves=None, message="")
        return "forged:proved"
    if roll == 1:
        raw.update(verdict="witness", moves=[["deal_roles", [0, 0]]] * rng.choice((1, 5, 500)))
        return "forged:witness"
    if roll == 2:
        raw["moves"] = [[rng.choice(("nominate", "__class__", "x" * 1000, "")), [rng.choice((0, -1, 10**18, 99))]]
                        for _ in range(rng.choice((1, 3, 50)))]
        return "forged:moves"
    if roll == 3:
        raw["extra"] = {"fewest_elections_moves": [["elect", [10**30]]], "longest_game_moves": "x",
                        "reductions": "\x1b[31mproved\x1b[0m"}
        return "forged:extra"
    if roll == 4:
        raw["message"] = "\x1b[2J\x1b[31mPROVED\x1b[0m"
        return "forged:terminal"
    entry["stamp"] = hostile_json_value(rng, entry["stamp"])
    return "forged:stamp"


def _damaged(value: dict[str, Any], roll: float, rng: random.Random, head: bytes) -> tuple[str, Content]:
    """A kept file's text damaged by the band `roll` (0.35 to 1) falls in: a hostile JSON
    value, corrupt bytes, nesting or size beyond the caps, or ("fifo") a FIFO in its place;
    the family and the bytes to write."""
    if roll < 0.6:
        how, changed = mutate_json(value, rng)
        return f"json:{how}", dumps_json(changed).encode("utf-8", "surrogatepass")
    if roll < 0.8:
        how, data = corrupt_bytes(json.dumps(value).encode(), rng)
        return f"bytes:{how}", data
    if roll < 0.9:
        if rng.random() < 0.5:
            return "big:deep", b"[" * 200_000 + b"]" * 200_000
        return "big:large", Repeat(head, b"x", 40 << 20, b'"}')
    return "fifo", b""


def generate_task_cache(rng: random.Random, ident: str, corpus: Corpus) -> Case:
    """One task-cache case: `check --cache` over a kept entry a stranger wrote."""
    key, entry = _task_entry()
    entry = copy.deepcopy(entry)
    path = f"{CACHE}/{key[:2]}/{key}.json"
    fifos: tuple[str, ...] = ()
    data: Content
    roll = rng.random()
    if roll < 0.35:
        family = _forged_raws(entry, rng)
        data = dumps_json(entry).encode("utf-8", "surrogatepass")
    else:
        family, data = _damaged(entry, roll, rng, b'{"key": "')
        fifos = (path,) if family == "fifo" else ()
    folder = (f"{CACHE}/{key[:2]}/README", b"the folder of a kept entry\n")    # where a FIFO is made
    files = (folder,) if fifos else ((path, data),)
    return Case("cache", ident, family, (*CHECK, "--cache", CACHE), files, outputs=(f"{CACHE}/**", f"{CACHE}/*"),
                fifos=fifos, note=key[:12])


@lru_cache(maxsize=1)
def _atlas() -> dict[str, Any]:
    """An atlas holding RULES at 5 players, as `sweep --report` writes one, matched by stamp
    and content hash (no sweep is run: the entry is made from the stamp's own parts)."""
    from verify.scale.atlas import ATLAS_VERSION, atlas_stamp
    from verify.rules import Rules
    from verify.scale.sweep import BASE, soundness_properties
    from verify.scale.tasks import content_hash
    entry = {"rules": RULES, "players": 5, "settings": {"deck_liberal": "1", "deck_fascist": "1"},
             "rules_hash": content_hash(RULES, 5), "verdict": "broken", "broken": ["draw_finds_three"],
             "unknown": [], "facts": {"longest_moves": 5, "longest_elections": 1, "fewest_elections": {}},
             "fewest_elections": None, "games": {"draw_finds_three": [["deal_roles", [0, 2]]]},
             "same_rules": 0, "same_behaviour": 0}
    return {"atlas": ATLAS_VERSION, "stamp": atlas_stamp(soundness_properties(), Rules.named(BASE)),
            "space": {"counts": [5], "powers": ["none"], "vary": {}, "fixed": {}, "sample": None, "seed": 1,
                      "size": 1},
            "rule_sets": [entry], "classes": [], "counts": {"sound": 0, "broken": 1, "unknown": 0},
            "groups": {"same_rules": 1, "same_behaviour": 1}}


def generate_atlas(rng: random.Random, ident: str, corpus: Corpus) -> Case:
    """One atlas case: `check --atlas` over an atlas.json a stranger wrote."""
    atlas = copy.deepcopy(_atlas())
    entry = atlas["rule_sets"][0]
    path = f"{ATLAS}/atlas.json"
    fifos: tuple[str, ...] = ()
    data: Content
    roll = rng.random()
    if roll < 0.35:
        choice = rng.randrange(5)
        if choice == 0:
            entry.update(verdict="sound", broken=[])
            family = "forged:sound"
        elif choice == 1:
            entry["games"]["draw_finds_three"] = [["nominate", [rng.choice((0, -1, 10**18))]]] * rng.choice((1, 400))
            family = "forged:game"
        elif choice == 2:
            entry["rules"] = "\x1b[2J\x1b[31mstandard\x1b[0m"
            entry["facts"] = {"longest_moves": "\x1b[31m9\x1b[0m", "fewest_elections": {"<script>": "x" * 10_000}}
            family = "forged:terminal"
        elif choice == 3:
            entry["broken"] = [giant_int_text(rng), None, {"a": 1}]
            family = "forged:broken"
        else:
            atlas["rule_sets"] = [entry] * 50_000
            family = "forged:many"
        data = dumps_json(atlas).encode("utf-8", "surrogatepass")
    else:
        family, data = _damaged(atlas, roll, rng, b'{"atlas": "')
        fifos = (path,) if family == "fifo" else ()
    files = ((f"{ATLAS}/README", b"the folder of an atlas\n"),) if fifos else ((path, data),)
    args = ("check", "-n", "5", "--rules", RULES, "-p", "draw_finds_three", "--workers", "1", "--atlas", ATLAS)
    return Case("atlas", ident, family, args, files, fifos=fifos, note="atlas")
