"""Hostile names, values and expressions: the raw material of every generator.

Injections try to make the tool run code. If one succeeds it leaves a file named
`owned` or `PWNED_<case>` in the working directory and in the run's canary directory
(outside every case directory), so the runner sees it whichever way the code ran. The
command only creates empty files: a successful injection does no harm beyond proving
the hole.
"""

from __future__ import annotations

import random

from .model import CANARY, IDENT

SHELL = f"touch owned PWNED_{IDENT} {CANARY}/PWNED_{IDENT}"
"""The shell command an injection runs: canary files in the cwd and the canary dir."""

PY_CALL = f"__import__('os').system('{SHELL}')"
"""The Python call an injection makes."""

PY_OPEN = f"open('{CANARY}/PWNED_{IDENT}', 'w')"
"""An injection that needs no shell: it only opens a canary file for writing."""

INJECTED_NAMES: tuple[str, ...] = (
    f"x={PY_CALL}",                                   # a default argument or a keyword
    f"x={PY_CALL}#",
    f"x=({PY_CALL})",
    f"x, y={PY_CALL}",
    f"x):\n    {PY_CALL}\ndef y(x",
    f"x\n{PY_CALL}\n",
    f"x; {PY_CALL}",
    f"x = {PY_CALL}; y",
    f"x=[{PY_OPEN}]",
    f"{PY_CALL}",
    f"x[{PY_CALL}]",
    f"x if {PY_CALL} else y",
    f"(lambda: {PY_CALL})()",
    f"x}}{{{PY_CALL}}}",                              # breaks out of a format template
    f"x']=0; {PY_CALL}; _['",                         # breaks out of a subscript key
    f"x\"]=0; {PY_CALL}; _[\"",
)
"""Names that become code if pasted into generated Python without a check."""

ODD_NAMES: tuple[str, ...] = (
    "", " ", "_", "__class__", "__init__", "__builtins__", "__import__", "_private", "self", "s",
    "lambda", "None", "True", "def", "class", "import", "return", "yield", "print", "exec", "eval",
    "1x", "x y", "x-y", "x.y", "x'y", "x\"y", "x\\y", "x\ny", "x\ty", "x\x00y", "x\u202ey", "\u200b",
    "ｘ", "ℌ", "é", "x" * 5000, "\ud7ff", "players", "all_seats", "phase", "after_phase", "count", "choose",
    "_choose", "_new", "tuple", "int", "math", "n", "game", "move", "by", "ja", "none", "\x7f", "%s", "{x}",
)
"""Names that are not injections but break a naive emitter, hide a builtin of the
generated code, or stretch a reporter (unicode, bidi, NUL, very long)."""

INJECTED_EXPRESSIONS: tuple[str, ...] = (
    PY_CALL,
    PY_OPEN,
    "__import__('os')",
    "().__class__.__bases__[0].__subclasses__()",
    "phase.__class__",
    "x.y",
    "__builtins__",
    "_new",
    "_choose(1, 1)",
    "eval('1')",
    "exec('1')",
    "getattr(phase, 'x')",
    "(lambda: 1)()",
    "[x for x in range(10)]",
    "{x: 1 for x in all_seats}",
    "(y := 1)",
    "f'{phase}'",
    "*alive",
    "alive[0:1]",
    "(1, 2)",
    "{1: 2}",
    "b'x'",
    "1j",
    "1.5",
    "1e309",
    "...",
    "yield 1",
    "await x",
    "not",
    "1 +",
    "'unterminated",
    "phase == 'vote' ; 1",
    "phase == 'vote'\n1",
)
"""Expressions the language must refuse: each either reaches outside the language or is
not an expression at all."""

COSTLY_EXPRESSIONS: tuple[str, ...] = (
    "2 ** 10 ** 10",
    "9 ** 9 ** 9 > 0",
    "choose(1000000, 500000) > 0",
    "perm(1000000, 500000) > 0",
    "choose(1000 * 1000, 500 * 1000) > 0",
    "perm(1000 * 1000, 1000 * 1000) > 0",
    "choose(1000000 * 1000000, 1000000) > 0",
    "perm(deck_fascist * 1000000, 1000000) > 0",
    "choose(draw_fascist * 100000, draw_fascist * 50000) > 0",
    "999999 * 999999 * 999999 * 999999 * 999999 * 999999 > 0",
    "1000000 * 1000000 * 1000000 * 1000000 * 1000000 * 1000000 * 1000000 * 1000000 * 1000000 > 0",
    "count(all_seats) > 0",
    "next_in(alive, 1000000) == 0",
    "take(known_top, 1000000) == []",
    "drop(known_top, -1000000) == []",
    "board[1000000] == 'none'",
    "board[-1000000] == 'none'",
    "1 // 0 == 0",
    "1 % 0 == 0",
    "1 // (1 - 1) == 0",
    "9" * 5000 + " > 0",
    "1" + "0" * 4400 + " > 0",
    "1000001 > 0",
    "-1000001 < 0",
    "0x7fffffffffffffff > 0",
    "1_000_000_000_000 > 0",
)
"""Expressions whose evaluation could cost unbounded time or memory if not refused or
bounded when loaded."""


def nested(depth: int, rng: random.Random) -> str:
    """A deeply nested expression of one of a few shapes."""
    shape = rng.choice(("paren", "not", "neg", "if", "call", "list"))
    if shape == "paren":
        return "(" * depth + "1" + ")" * depth + " > 0"
    if shape == "not":
        return "not " * depth + "True"
    if shape == "neg":
        return "-" * depth + "1 > 0"
    if shape == "if":
        return "1 if " * depth + "True" + " else 0" * depth + " > 0"
    if shape == "call":
        return "abs(" * depth + "1" + ")" * depth + " > 0"
    return "1 in " + "[" * depth + "1" + "]" * depth


def long_sum(terms: int) -> str:
    """A flat expression with many terms: long, but not deep."""
    return " + ".join(["1"] * terms) + " > 0"


def hostile_string(rng: random.Random) -> str:
    """A hostile string value: unicode, bidi, NUL, very long, escapes, format holes."""
    return rng.choice((
        "", "\x00", "a\x00b", "\u202e" + "gnirts", "\ud7ff\ue000", "\U0001f600" * 100, "x" * 200_000,
        "{" * 1000, "{__import__}", "{0.__class__}", "%s%s%s%n", "\\x00\\u0000", "\r\n\r\n",
        "'\"`$(touch owned)`", f"$(touch {CANARY}/PWNED_{IDENT})", "\u0085\u2028\u2029", "../" * 50 + "etc/passwd",
    ))


def name(rng: random.Random, inject_weight: float = 0.5) -> str:
    """A hostile name: an injection with probability `inject_weight`, otherwise an odd one."""
    return rng.choice(INJECTED_NAMES) if rng.random() < inject_weight else rng.choice(ODD_NAMES)


def expression(rng: random.Random) -> str:
    """A hostile expression: an injection, a costly one, a nested one or a huge one."""
    roll = rng.random()
    if roll < 0.4:
        return rng.choice(INJECTED_EXPRESSIONS)
    if roll < 0.75:
        return rng.choice(COSTLY_EXPRESSIONS)
    if roll < 0.92:
        return nested(rng.choice((61, 100, 1000, 20_000)), rng)
    return rng.choice((long_sum(rng.choice((700, 30_000))), "'" + "x" * 100_000 + "' == phase"))
