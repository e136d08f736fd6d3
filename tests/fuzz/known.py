"""Hand-written cases that every run includes: the holes known when the fuzzer was written.

The first is the reported one: a variant whose parameter name is Python code creates a
file when the variant is played, and a transcript, an ITF trace or a dispute catalogue
that names such a variant does the same through `judge`, `replay`, `ask --game` and
`diff`. The others put the same kind of name in the other naming positions and ask for
the huge and inverted player ranges.
"""

from __future__ import annotations

import json

from .commands import SMALL_ASK, SMALL_CHECK, SMALL_DIFF, SMALL_GRAPH, SMALL_PROVE
from .model import Case
from .payloads import PY_CALL, SHELL

REPORTED = b"""extends = "standard"
name = "x"
[[rule]]
name = "nominate"
params = { chancellor = "seat", "x=__import__('os').system('touch owned')" = "seat" }
"""
"""The variant of the report, byte for byte: it creates `owned` in the working directory."""

HOLE = REPORTED.replace(b"touch owned", SHELL.encode())
"""The same, also touching a canary file named after the case in the canary directory."""

TRANSCRIPT = b'{"setup": {"players": 5, "rules": "v.toml"}}\n{"move": "nominate", "by": 0, "chancellor": 1}\n'
MOVE = '{"move": "nominate", "by": 0, "chancellor": 1}'
ITF = json.dumps({"#meta": {"format": "ITF", "source": "v.toml", "players": 5}, "vars": [], "states": [{}]}).encode()
CATALOGUE = b"""[[dispute]]
id = "fuzz-position"
source = "fuzz"
question = "?"
kind = "position"
game = "p.jsonl"
next_move = '{"move": "nominate", "by": 0, "chancellor": 1}'
rules = ["R-E2"]
answer = "yes"
explanation = "x"
"""

NAME = f"x={PY_CALL}"
TOML_NAME = json.dumps(NAME)   # a TOML basic string and a JSON string quote alike here


def _positioned(where: str) -> bytes:
    """The injected name in one more naming position."""
    head = 'extends = "standard"\nname = "x"\n'
    bodies = {
        "let": f'[[rule]]\nname = "draw_hand"\nlet = {{ seen = "min(hand_size, size(known_top))", '
               f'new_fascist = "fascist_tiles - fascists(take(known_top, hand_size))", '
               f'new_liberal = "hand_size - seen - new_fascist", {TOML_NAME} = "1" }}\n',
        "reveal": f'[[rule]]\nname = "investigate"\nreveals = {{ {TOML_NAME} = "target" }}\n',
        "field": f'[add.state]\n{TOML_NAME} = {{ type = "bool", init = "False", seen = "public" }}\n',
        "enum-member": f'[add.enums]\npower = [{TOML_NAME}]\n',
        "enum": f'[add.enums]\n{TOML_NAME} = ["a"]\n',
        "constant": f'[add.constants]\n{TOML_NAME} = 1\n',
        "table": f'[add.tables.{TOML_NAME}]\n"5-10" = 1\n',
        "definition": f'[add.definitions]\n{TOML_NAME} = "1"\n',
    }
    return (head + bodies[where]).encode()


def cases() -> list[Case]:
    """The known cases, with fixed identifiers."""
    with_hole = (("v.toml", HOLE),)
    out = [
        Case("spec", "known-reported", "known:params", ("play", "--rules", "v.toml", "--players", "5"),
             (("v.toml", REPORTED),), note="the reported variant, byte for byte"),
        Case("spec", "known-play", "known:params", ("play", "--rules", "v.toml", "--players", "5", "-q"), with_hole),
        Case("spec", "known-check", "known:params", ("check", "--rules", "v.toml", "--players", "5", *SMALL_CHECK),
             with_hole),
        Case("spec", "known-graph", "known:params", ("graph", "--rules", "v.toml", "--players", "5", *SMALL_GRAPH),
             with_hole),
        Case("spec", "known-prove", "known:params",
             ("prove", "deck_conservation_liberal", "--rules", "v.toml", "--players", "5", *SMALL_PROVE), with_hole),
        Case("spec", "known-diff", "known:params", ("diff", "standard", "v.toml", "--players", "5", *SMALL_DIFF),
             with_hole),
        Case("transcript", "known-judge", "known:transcript-rules", ("judge", "game.jsonl"),
             (("game.jsonl", TRANSCRIPT), *with_hole)),
        Case("transcript", "known-ask-game", "known:transcript-rules",
             ("ask", "--game", "game.jsonl", "--move", MOVE, *SMALL_ASK), (("game.jsonl", TRANSCRIPT), *with_hole)),
        Case("itf", "known-replay", "known:itf-source", ("replay", "game.itf.json"),
             (("game.itf.json", ITF), *with_hole)),
        Case("expr", "known-catalogue", "known:catalogue-position",
             ("ask", "--catalogue", "c.toml", "fuzz-position", *SMALL_ASK),
             (("c.toml", CATALOGUE), ("p.jsonl", TRANSCRIPT), *with_hole)),
        Case("cli", "known-huge-range", "known:players-range",
             ("check", "--players", "1-1000000000", *SMALL_CHECK)),
        Case("cli", "known-inverted-range", "known:players-range", ("check", "--players", "7-5", *SMALL_CHECK)),
    ]
    for where in ("let", "reveal", "field", "enum-member", "enum", "constant", "table", "definition"):
        out.append(Case("spec", f"known-{where}", f"known:{where}", ("play", "--rules", "v.toml", "--players", "5", "-q"),
                        (("v.toml", _positioned(where)),)))
    return out
