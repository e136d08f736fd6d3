"""Hostile variant and spec files (TOML), run through every command that loads rules.

Generation puts a hostile name in every naming position a variant has (parameters, lets,
reveals, state fields, enums and members, constants, tables, definitions, rule and
property names) and a hostile expression in every expression position; structural cases
break types, ranges and `extends`; mutation cases corrupt the shipped rules and variants.
"""

from __future__ import annotations

import random
import tomllib
from collections.abc import Callable
from typing import Any

from . import payloads
from .commands import SMALL_CHECK, with_rules
from .model import CANARY, Case, Content, Repeat
from .mutate import RawJSON, corrupt_bytes, giant_int_text, mutate_json
from .tomlw import Verbatim, dumps
from .corpus import Corpus

FILE = "v.toml"
DRAW_LETS = {"seen": "min(hand_size, size(known_top))",
             "new_fascist": "fascist_tiles - fascists(take(known_top, hand_size))",
             "new_liberal": "hand_size - seen - new_fascist"}
NEVER = [{"rule": "R-E2", "when": "False", "why": "never"}]


def variant(**parts: Any) -> dict[str, Any]:
    """A variant of the standard rules with the given top-level parts."""
    return {"extends": "standard", "name": "fuzz", **parts}


def new_rule(**keys: Any) -> dict[str, Any]:
    """A new rule that is compiled but never applies (so random play still ends)."""
    return {"name": "fuzz_rule", "phase": "nominate", "actor": "president", "summary": "fuzz",
            "requires": NEVER, **keys}


# ------------------------------------------------------------------ hostile names

def _name_positions(name: str) -> dict[str, dict[str, Any]]:
    """A variant per naming position, each with `name` in that position."""
    return {
        "params": variant(rule=[{"name": "nominate", "params": {"chancellor": "seat", name: "seat"}}]),
        "params-enum-domain": variant(rule=[{"name": "nominate", "params": {"chancellor": "seat", name: "tile"}}]),
        "let": variant(rule=[{"name": "draw_hand", "let": {**DRAW_LETS, name: "1"}}]),
        "reveals": variant(rule=[{"name": "investigate", "reveals": {
            "party": {"type": "team", "value": "'fascist' if target == hitler or target in fascists else 'liberal'"},
            name: {"type": "bool", "value": "True"}}}]),
        "reveals-plain": variant(rule=[{"name": "investigate", "reveals": {name: "target"}}]),
        "field": variant(add={"state": {name: {"type": "bool", "init": "False"}}}),
        "field-int": variant(add={"state": {name: {"type": "int", "range": "0..3", "init": "0"}}}),
        "enum": variant(add={"enums": {name: ["a", "b"]}, "state": {"fuzz_field": {"type": name, "init": "'a'"}}}),
        "enum-member": variant(add={"enums": {"fuzz_enum": ["a", name]},
                                    "state": {"fuzz_field": {"type": "fuzz_enum", "init": "'a'"}}}),
        "enum-member-existing": variant(add={"enums": {"power": [name]}}),
        "constant": variant(add={"constants": {name: 1}}),
        "table": variant(add={"tables": {name: {"5-10": 1}}}),
        "table-enum": variant(add={"tables": {name: {"5-10": ["none", "peek"]}}}),
        "definition": variant(add={"definitions": {name: "1"}}),
        "definition-used": variant(add={"definitions": {name: "count(alive)"}}),
        "rule-name": variant(add={"rule": [new_rule(name=name)]}),
        "rule-override-name": variant(rule=[{"name": name, "summary": "x"}]),
        "new-rule-param": variant(add={"rule": [new_rule(params={name: "seat"})]}),
        "new-rule-let": variant(add={"rule": [new_rule(let={name: "1"})]}),
        "property": variant(properties={name: {"kind": "always", "state": "True"}}),
        "expect": variant(expect={name: "fails"}),
        "spec-name": {"extends": "standard", "name": name},
        "remove-rule": variant(remove_rules=[name]),
        "requirement-rule": variant(requirement=[{"rule": name, "id": "R-E2", "when": "True"}]),
        "effect-field": variant(rule=[{"name": "nominate", "effect": {name: "1"}}]),
    }


def hostile_name(rng: random.Random) -> tuple[str, dict[str, Any], str]:
    """A hostile name in one naming position: (family, document, name)."""
    name = payloads.name(rng, inject_weight=0.6)
    positions = _name_positions(name)
    position = rng.choice(sorted(positions))
    return f"name:{position}", positions[position], name


# ------------------------------------------------------------------ hostile expressions

INT_COSTLY = ("choose(1000 * 1000, 500 * 1000)", "perm(1000 * 1000, 1000 * 1000)", "choose(1000000, 500000)",
              "perm(1000000, 999999)", "1000000 * 1000000 * 1000000 * 1000000 * 1000000 * 1000000",
              "choose(1000000 * 1000000, 1000000)", "perm(deck_fascist * 1000000, 1000000)", "2 ** 100000",
              "9" * 5000, "1000000 * 1000000", "-1000000 * 1000000", "deck_fascist // 0")
DOMAINS = ("0..1000000", "0..1000 * 1000", "0..1000000 * 1000000", "tiles(1000000)", "tiles(1000 * 1000)",
           "tiles(hand_size * 1000)", "tiles(64)", "tiles(-1)", "0..-5", "5..0", "-1000000..1000000",
           "subset(all_seats | all_seats)", "subset(1)", "tiles()", "0..", "..", "seat?", "x" * 10000)


def _expression_positions(expr: str, int_expr: str, domain: str) -> dict[str, dict[str, Any]]:
    return {
        "requires": variant(rule=[{"name": "nominate", "requires": [{"rule": "R-E2", "when": expr, "why": "x"}]}]),
        "effect": variant(rule=[{"name": "nominate", "effect": {"election_tracker": int_expr}}]),
        "effect-bool": variant(rule=[{"name": "nominate", "effect": {"veto_refused": expr}}]),
        "let": variant(rule=[{"name": "draw_hand", "let": {**DRAW_LETS, "fuzz": int_expr}}]),
        "weight": variant(rule=[{"name": "draw_hand", "weight": int_expr}]),
        "weight-deal": variant(rule=[{"name": "deal_roles", "weight": int_expr}]),
        "init": variant(add={"state": {"fuzz_field": {"type": "int", "range": "0..3", "init": int_expr}}}),
        "range": variant(add={"state": {"fuzz_field": {"type": "int", "range": f"0..{int_expr}", "init": "0"}}}),
        "definition": variant(add={"definitions": {"fuzz_def": expr}}),
        "definition-override": variant(definitions={"alive_count": int_expr}),
        "says": variant(rule=[{"name": "nominate", "says": "seat {" + expr + "} nominates"}]),
        "why": variant(rule=[{"name": "nominate", "requires": [{"rule": "R-E2", "when": "chancellor != president",
                                                                "why": "{" + int_expr + "} is {" + expr + "}"}]}]),
        "actor": variant(rule=[{"name": "nominate", "actor": expr}]),
        "domain": variant(rule=[{"name": "nominate", "params": {"chancellor": "seat", "fuzz": domain}}]),
        "domain-chance": variant(rule=[{"name": "draw_hand", "params": {"fascist_tiles": domain}}]),
        "domain-peek": variant(rule=[{"name": "policy_peek", "params": {"top": domain}}]),
        "property": variant(properties={"fuzz_property": {"kind": "always", "state": expr}}),
        "requirement": variant(requirement=[{"rule": "nominate", "id": "R-E2", "when": expr}]),
        "reveals": variant(rule=[{"name": "investigate", "reveals": {"party": {"type": "team", "value": expr}}}]),
    }


def hostile_expression(rng: random.Random) -> tuple[str, dict[str, Any], str]:
    """A hostile expression in one expression position."""
    expr = payloads.expression(rng)
    int_expr = rng.choice(INT_COSTLY) if rng.random() < 0.6 else expr
    domain = rng.choice(DOMAINS)
    positions = _expression_positions(expr, int_expr, domain)
    position = rng.choice(sorted(positions))
    return f"expr:{position}", positions[position], expr


# ------------------------------------------------------------------ broken structure

def _giant(rng: random.Random) -> Verbatim:
    return Verbatim(giant_int_text(rng))


def _bad_values(rng: random.Random) -> list[Any]:
    return [-1, 1001, 10**18, "5", 5.5, True, float("nan"), float("inf"), _giant(rng), Verbatim("1979-05-27"),
            [1], {"a": 1}, "", Verbatim("-" + giant_int_text(rng))]


def _structures(rng: random.Random) -> dict[str, dict[str, Any]]:
    bad = rng.choice(_bad_values(rng))
    table_key = rng.choice(("10-5", "0-1000000000", "1-100000000000000000000", "5-6-7", "", "-5", "5-", "٥", "0x5",
                            giant_int_text(rng), "1-" + giant_int_text(rng)))
    table_value: Any = rng.choice(([], [[]], "x", [1, "a"], ["none"] * 100_000, _giant(rng), {"a": 1}, ["__class__"],
                              [True], 1.5))
    return {
        "constant-value": variant(constants={rng.choice(("deck_fascist", "hand_size", "min_players", "max_players",
                                                          "tracker_limit", "few_alive")): bad}),
        "new-constant-value": variant(add={"constants": {"fuzz_constant": bad}}),
        "players-range": variant(constants={"min_players": rng.choice((0, 1, 5, 16, 17, 10)),
                                            "max_players": rng.choice((0, 4, 16, 17, 1000, 5))}),
        "table-key": variant(tables={"board": {table_key: ["none", "none", "peek", "execution", "execution"],
                                               "5-10": ["none", "none", "peek", "execution", "execution"]}}),
        "new-table-key": variant(add={"tables": {"fuzz_table": {table_key: 1}}}),
        "table-value": variant(tables={"board": {"5-10": table_value}}),
        "table-not-dict": variant(tables={"board": bad}),
        "enum-bad": variant(enums={rng.choice(("phase", "power", "team", "how")):
                                   rng.choice(([], [1], ["a", "a"], "x", ["deal"], [f"m{i}" for i in range(100_000)],
                                               [""], ["x" * 100_000]))}),
        "range-bad": variant(state={rng.choice(("election_tracker", "draw_fascist", "liberal_policies")): {
            "range": rng.choice(("0..-5", "5..0", "0", "..", "0..", "..3", "0..3..5", "0..1000000", "0..1000000 * 1000",
                                 "-1000000..0", "0..1000000000000", "a..b", ""))}}),
        "init-outside-range": variant(state={"election_tracker": {"init": rng.choice(("100", "-1", "1000000",
                                                                                         "tracker_limit + 1"))}}),
        "field-type": variant(state={"election_tracker": {"type": rng.choice(("boolean", "int?", "seats?", "tiles?",
                                                                              "", "phase??", "list", "seat?" * 1000))}}),
        "field-not-table": variant(add={"state": {"fuzz_field": bad}}),
        "rule-shape": variant(rule=[{"name": "nominate",
                                     rng.choice(("params", "requires", "effect", "let", "reveals", "quiet", "phase",
                                                 "actor", "says", "weight", "summary")): bad}]),
        "requires-shape": variant(rule=[{"name": "nominate", "requires": rng.choice(([1], [{}], ["x"], [[]],
                                        [{"rule": "R-E2", "when": "True"}], [{"rule": "R-Z9", "when": "True", "why": ""}],
                                        [{"rule": "R-E2", "when": "True", "why": "{"}]))}]),
        "remove-rules": variant(remove_rules=rng.choice((["nominate"], "nominate", [1], [], ["deal_roles", "nominate",
                                                        "elect", "reject"], ["nominate"] * 1000))),
        "requirement-index": variant(requirement=[{"rule": "nominate", "id": "R-E2",
                                                   "index": rng.choice((-1, 10**18, "0", 2, _giant(rng))), "drop": True}]),
        "settings": {"extends": "custom", "name": "fuzz", "settings": {
            rng.choice(("powers", "deck_fascist", "deck_liberal", "players", "fascists", "hitler_zone", "tracker_limit",
                        "few_alive", "start_fascist", "__class__", "")): rng.choice((
                bad, ["__class__"] * 5, ["none"] * 1000, "1-1000000000", "7-5", "0", "5-10", 40, 41, [])), }},
        "expect": variant(expect={"deadlock_free": bad}),
        "property-players": variant(properties={"deadlock_free": {"players": rng.choice(("1-1000000000", "7-5", "0",
                                                                                         "", "5,,6", bad))}}),
        "top-level-types": {"extends": "standard", "name": bad, "description": bad},
        "unknown-section": variant(**{rng.choice(("add", "rule", "state", "constants")): bad}),
    }


def broken_structure(rng: random.Random) -> tuple[str, dict[str, Any], str]:
    """A variant whose structure, types or ranges are wrong."""
    documents = _structures(rng)
    which = rng.choice(sorted(documents))
    return f"structure:{which}", documents[which], ""


# ------------------------------------------------------------------ extends

def extends_case(rng: random.Random) -> tuple[str, list[tuple[str, Content]], str]:
    """Cycles, absolute paths, `..` and long chains in `extends`."""
    shape = rng.randrange(6)
    if shape == 0:
        return "extends:self", [(FILE, dumps(variant(extends=FILE)).encode())], ""
    if shape == 1:
        return "extends:cycle", [(FILE, dumps(variant(extends="w.toml")).encode()),
                                 ("w.toml", dumps(variant(extends="./v.toml")).encode())], ""
    if shape == 2:
        target = rng.choice(("/etc/passwd", "/etc/hostname", "/dev/zero", "/dev/urandom", "/proc/self/environ",
                             "/proc/self/mem", "../../../../../../../../etc/passwd", "sub/../../../../../etc/shadow",
                             f"{CANARY}/x.toml", "/", ".", "..", "~/.bashrc", "/etc", "standard\x00.toml",
                             "standard/../../pyproject.toml", "mistakes/../../../loader.py", "x" * 5000 + ".toml"))
        return "extends:path", [(FILE, dumps(variant(extends=target)).encode())], target
    if shape == 3:
        length = rng.choice((50, 400, 3000))
        files: list[tuple[str, Content]] = [(FILE, dumps(variant(extends="c1.toml")).encode())]
        files += [(f"c{i}.toml", dumps(variant(extends=f"c{i + 1}.toml")).encode()) for i in range(1, length)]
        files.append((f"c{length}.toml", dumps(variant()).encode()))
        return f"extends:chain-{length}", files, ""
    if shape == 4:
        return "extends:type", [(FILE, dumps(variant(extends=rng.choice((5, ["standard"], {"a": 1}, "", True,
                                                                          _giant(rng))))).encode())], ""
    return "extends:fifo", [(FILE, dumps(variant(extends="pipe.toml")).encode())], "pipe.toml"


# ------------------------------------------------------------------ mutation and size

def _tomlable(node: Any) -> Any:
    """A mutated JSON-like document in values TOML can write."""
    if isinstance(node, RawJSON):
        text = {"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}.get(node.text, node.text)
        if text.startswith('{"a":'):
            text = "{a=" * 20_000 + "1" + "}" * 20_000
        return Verbatim(text)
    if node is None:
        return 0
    if isinstance(node, dict):
        return {str(k): _tomlable(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_tomlable(v) for v in node]
    return node


def mutated(rng: random.Random, corpus: Corpus) -> tuple[str, Content]:
    """A shipped rules or variant file corrupted byte-wise or structurally."""
    name = rng.choice(sorted(corpus.variants))
    text = corpus.variants[name]
    if rng.random() < 0.5:
        how, data = corrupt_bytes(text, rng)
        return f"mutate-bytes:{how}", data
    document = tomllib.loads(text.decode())
    how, changed = mutate_json(document, rng)
    if not isinstance(changed, dict):
        changed = {"value": changed}
    try:
        return f"mutate-toml:{how}", dumps(_tomlable(changed)).encode()
    except TypeError:
        return f"mutate-toml:{how}", text


def huge(rng: random.Random, corpus: Corpus) -> tuple[str, Content]:
    """A very large variant: a long comment, a long string, or very many entries."""
    shape = rng.randrange(5)
    base = dumps(variant()).encode()
    if shape == 0:
        return "huge:comment", Repeat(base + b"# ", b"x" * 1024, 20 * 1024, b"\n")
    if shape == 1:
        return "huge:string", Repeat(base + b'description = "', b"y" * 1024, 8 * 1024, b'"\n')
    if shape == 2:
        return "huge:constants", Repeat(base + b"[add.constants]\n", b"", 0,
                                        b"".join(b"c%d = %d\n" % (i, i % 1000) for i in range(200_000)))
    if shape == 3:
        return "huge:definitions", Repeat(base + b"[add.definitions]\n", b"", 0,
                                          b"".join(b'd%d = "count(alive) + %d"\n' % (i, i) for i in range(30_000)))
    return "huge:rules", Repeat(base, b"", 0, b"".join(
        b'[[add.rule]]\nname = "r%d"\nphase = "nominate"\nactor = "president"\nrequires = '
        b'[{ rule = "R-E2", when = "False", why = "never" }]\n' % i for i in range(5_000)))


FAMILIES: tuple[Callable[[random.Random], tuple[str, dict[str, Any], str]], ...] = (
    hostile_name, hostile_name, hostile_name, hostile_expression, hostile_expression, broken_structure)


def _command(rng: random.Random, family: str, name: str) -> tuple[str, ...]:
    args, _ = with_rules(FILE, rng)
    if family == "name:property" and "\x00" not in name and name:
        return ("check", "--rules", FILE, "--players", "5", *SMALL_CHECK[2:], "-p", name)
    return args


def generate(rng: random.Random, ident: str, corpus: Corpus) -> Case:
    """One spec case."""
    roll = rng.random()
    files: list[tuple[str, Content]]
    fifos: tuple[str, ...] = ()
    if roll < 0.72:
        family, document, name = rng.choice(FAMILIES)(rng)
        files = [(FILE, dumps(document).encode("utf-8", "surrogatepass"))]
        note = repr(name[:200])
    elif roll < 0.82:
        family, files, note = extends_case(rng)
        if family == "extends:fifo":
            files, fifos = files, ("pipe.toml",)
        name = ""
    elif roll < 0.96:
        family, content = mutated(rng, corpus)
        files, note, name = [(FILE, content)], "", ""
    else:
        family, content = huge(rng, corpus)
        files, note, name = [(FILE, content)], "", ""
    return Case("spec", ident, family, _command(rng, family, name), tuple(files), fifos=fifos, note=note)
