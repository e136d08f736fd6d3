"""Hostile dispute and property expressions: `ask --can/--never`, `--on`, and catalogues.

An expression on the command line or in a dispute catalogue is a stranger's text like a
spec: it must be parsed and type-checked, never evaluated as Python, and evaluating it
must stay bounded. A catalogue's `position` entry also names a partial game file, which
must not lead outside where catalogues may look, nor carry a hostile variant in.
"""

from __future__ import annotations

import random
from typing import Any

from . import payloads
from .commands import SMALL_ASK, SMALL_CHECK
from .corpus import Corpus
from .gen_transcript import injected_variant
from .model import CANARY, Case, Content
from .tomlw import dumps

CATALOGUE = "c.toml"


def _argv_safe(text: str) -> str:
    """Command-line arguments cannot hold NUL: spell it instead."""
    return text.replace("\x00", "\\x00")


def _expression(rng: random.Random) -> str:
    text = payloads.expression(rng) if rng.random() < 0.8 else payloads.name(rng, inject_weight=0.5)
    if len(text) > 100_000:          # one argument may hold at most 128 KiB
        text = text[:100_000]
    return _argv_safe(text)


def ad_hoc(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    """`ask --can/--never EXPR`, over states or over moves of (hostile) rules."""
    flag = rng.choice(("--can", "--never"))
    expr = _expression(rng)
    args: tuple[str, ...] = ("ask", "--players", rng.choice(("5", "5", "5-6")), flag, expr, *SMALL_ASK)
    if rng.random() < 0.35:
        on = _argv_safe(rng.choice(("nominate", "execute", "investigate", payloads.name(rng, inject_weight=0.5))))
        args += ("--on", on)
        return "ask:on", args
    return f"ask:{flag[2:]}", args


def _dispute(rng: random.Random, expr: str) -> dict[str, Any]:
    kind = rng.choice(("sometimes", "never", "position"))
    entry: dict[str, Any] = {"id": "fuzz-entry", "source": "fuzz", "question": "?", "rules": ["R-E2"],
                             "answer": "yes", "explanation": "x", "kind": kind, "players": "5"}
    if kind == "position":
        entry["game"] = rng.choice(("p.jsonl", "/etc/passwd", "../../../../../../etc/passwd", f"{CANARY}/p.jsonl",
                                    "/dev/zero", "/proc/self/environ", "", "positions/../../../../etc/hosts"))
        entry["next_move"] = rng.choice(('{"move": "nominate", "by": 0, "chancellor": 1}', expr,
                                         "[" * 100_000 + "]" * 100_000, '{"move": "__class__"}'))
    elif rng.random() < 0.5:
        entry["move"] = expr
        entry["on"] = [rng.choice(("nominate", payloads.name(rng, inject_weight=0.5)))]
    else:
        entry["state"] = expr
    if rng.random() < 0.3:
        entry[rng.choice(("id", "players", "decides", "rules", "answer", "kind"))] = rng.choice((
            payloads.name(rng), "1-1000000000", 10**18, [], {"a": 1}, "", payloads.hostile_string(rng)))
    return entry


def catalogue(rng: random.Random) -> tuple[str, tuple[str, ...], list[tuple[str, Content]]]:
    """A dispute catalogue with one hostile entry, listed or answered."""
    entry = _dispute(rng, payloads.expression(rng))
    files: list[tuple[str, Content]] = [(CATALOGUE, dumps({"dispute": [entry]}).encode("utf-8", "surrogatepass"))]
    if entry.get("game") == "p.jsonl":
        files.append(("p.jsonl", b'{"setup": {"players": 5, "rules": "v.toml"}}\n'))
        files.append(("v.toml", injected_variant(rng)))
    ident = entry.get("id")
    if rng.random() < 0.3 or not isinstance(ident, str) or not ident or "\x00" in ident:
        return "catalogue:list", ("ask", "--catalogue", CATALOGUE), files
    return f"catalogue:{entry['kind']}", ("ask", "--catalogue", CATALOGUE, ident, *SMALL_ASK), files


def variant_property(rng: random.Random) -> tuple[str, tuple[str, ...], list[tuple[str, Content]]]:
    """A property a variant adds, with a hostile expression, checked by `check`."""
    kind = rng.choice(("always", "sometimes", "never", "__class__", ""))
    document = {"extends": "standard", "name": "fuzz",
                "properties": {"fuzz_property": {"kind": kind, "state": payloads.expression(rng),
                                                 "rules": ["R-E2"], "description": "fuzz"}}}
    args = ("check", "--rules", "v.toml", "--players", "5", *SMALL_CHECK[2:], "-p", "fuzz_property")
    return "property:variant", args, [("v.toml", dumps(document).encode("utf-8", "surrogatepass"))]


def generate(rng: random.Random, ident: str, corpus: Corpus) -> Case:
    """One expression case."""
    roll = rng.random()
    if roll < 0.6:
        family, args = ad_hoc(rng)
        return Case("expr", ident, family, args)
    maker = catalogue if roll < 0.85 else variant_property
    family, args, files = maker(rng)
    return Case("expr", ident, family, args, tuple(files))
