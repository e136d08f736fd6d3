"""Invariant cache files someone else wrote first, for `prove --infer`.

The solver keeps the invariants it inferred in `$SHRULES_CACHE/invariants/<key>.json`
(verify/smt/infer.py); a shared cache can hold anything by the time it is read. Each case
plants one file (or a link, a FIFO, a folder) at the key the command will look up, in a
cache inside the case's directory, and runs the proof: whatever the file holds, the run
ends in a verdict (a forged invariant is proved again or dropped; a damaged file is a
miss with a warning line) or one error line. The rules are the standard ones or a mutant
whose property the planted text claims, so forged "proofs" are tried where they would
matter.
"""

from __future__ import annotations

import functools
import json
import random
from dataclasses import dataclass

from .commands import SMALL_PROVE
from .corpus import ROOT, Corpus
from .model import CANARY, IDENT, Case, Content, Repeat
from .mutate import corrupt_bytes, dumps_json, mutate_json

CACHE = "cache"
"""$SHRULES_CACHE of every case, relative to its working directory."""

TARGETS = (("standard", "tracks_in_range"),
           (str(ROOT / "tests" / "mutants" / "reshuffle_loses_tile.toml"), "deck_conservation_fascist"))
"""(rules, property): the standard rules, and a mutant that refutes the property."""

PLAYERS = 5
MINING = 60.0
"""Seconds a case may take: a miss mines the candidates again, seconds of random games
that the proof's `--seconds` does not cut short (a busy machine doubles them)."""


@dataclass(frozen=True, slots=True)
class Target:
    """What a case needs of its rules, computed once: the cache version and the key that
    `prove --infer` looks up at 5 players (with the hints of spec/invariants.toml), the
    text of the property proved, and the texts of the catalogue's state properties."""

    version: str
    key: str
    claimed: str
    catalogue: tuple[str, ...]


@functools.lru_cache(maxsize=None)
def target(rules: str, prop: str) -> Target:
    from spec.invariants import load_invariants
    from spec.loader import load_spec
    from spec.properties import load_properties
    from verify.smt.infer import CACHE_VERSION, cache_key
    spec = load_spec(rules)
    texts = {p.name: p.text for p in load_properties(spec) if p.state is not None}
    return Target(CACHE_VERSION, cache_key(load_invariants(spec), PLAYERS), texts[prop], tuple(sorted(texts.values())))


FORGED = ("True", "phase != 'deal'", "phase == 'deal'", "False", "election_tracker >= 0", "1 == 1",
          "phase != 'deal' or (liberal_policies == 0)", "hitler in alive", "__import__('os').system('x')",
          "phase != 'vote' or " * 50 + "True", "(" * 200 + "True" + ")" * 200, "x" * 5000, "")


def _texts(rng: random.Random, aim: Target) -> tuple[str, list[str]]:
    """Forged but well-formed entries: the property itself (with and without a guard),
    the catalogue, odd and hostile texts, many copies."""
    claimed, properties = aim.claimed, list(aim.catalogue)
    roll = rng.randrange(5)
    if roll == 0:
        return "forged:property", [claimed]
    if roll == 1:
        return "forged:guarded", [f"phase != '{rng.choice(('deal', 'over', 'vote'))}' or ({claimed})"]
    if roll == 2:
        return "forged:catalogue", rng.sample(properties, min(len(properties), rng.randrange(1, 12)))
    if roll == 3:
        return "forged:odd", rng.sample(FORGED, rng.randrange(1, 4))
    return "forged:many", [rng.choice((claimed, "True"))] * rng.choice((100, 5000))


PLANTED = (("file:fifo", "fifo"), ("file:link-to-zero", "zero"), ("file:link-outside", "outside"),
           ("folder:link-outside", "folder-link"), ("file:a-folder", "folder"), ("folder:a-file", "cache-file"),
           ("file:too-large", "big"), ("file:nested", "deep"))


def generate(rng: random.Random, ident: str, corpus: Corpus) -> Case:
    """One invariant cache case."""
    rules, prop = TARGETS[rng.randrange(len(TARGETS))]
    aim = target(rules, prop)
    version = aim.version
    folder = f"{CACHE}/invariants"
    path = f"{folder}/{aim.key}.json"
    family, texts = _texts(rng, aim)
    body: dict[str, object] = {"version": version, "invariants": texts}
    files: list[tuple[str, Content]] = []
    links: list[tuple[str, str]] = []
    fifos: list[str] = []
    roll = rng.random()
    if roll < 0.35:
        files.append((path, dumps_json(body, indent=0).encode()))
    elif roll < 0.55:
        how, changed = mutate_json(body, rng)
        family = f"json:{how}"
        files.append((path, dumps_json(changed).encode("utf-8", "surrogatepass")))
    elif roll < 0.7:
        how, data = corrupt_bytes(json.dumps(body).encode(), rng)
        family = f"bytes:{how}"
        files.append((path, data))
    else:
        family, planted = rng.choice(PLANTED)
        if planted == "fifo":
            fifos.append(path)
        elif planted == "zero":
            links.append((path, "/dev/zero"))
        elif planted == "outside":
            links.append((path, f"{CANARY}/PWNED_{IDENT}"))
        elif planted == "folder-link":
            links.append((folder, f"{CANARY}/PWNED_{IDENT}"))
        elif planted == "folder":
            files.append((f"{path}/keep", b""))
        elif planted == "cache-file":
            files.append((folder, b"not a folder\n"))
        elif planted == "big":
            files.append((path, Repeat(b'{"version": "' + version.encode() + b'", "invariants": [', b'"True", ',
                                       3_000_000, b'"True"]}')))
        elif planted == "deep":
            files.append((path, b"[" * 100_000 + b"]" * 100_000))
    args = ("prove", prop, "--rules", rules, "-n", str(PLAYERS), "--infer", *SMALL_PROVE)
    return Case("invariants", ident, family, args, tuple(files), outputs=(f"{CACHE}/*",), fifos=tuple(fifos),
                note=f"{rules} {prop}", links=tuple(links), env=(("SHRULES_CACHE", CACHE),), timeout=MINING)
