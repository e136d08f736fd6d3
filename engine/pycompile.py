"""Compile the checked spec to Python functions over state tuples.

The input is the typed tree that spec/lang produced, never spec text: every name has
been resolved and every operator type-checked, so the code emitted here is built only
from known, total operations (ints, bit masks and the helpers below). Constants of the
player count are inlined, fields become tuple indexes, and each rule becomes a few
plain functions (guard, first failing requirement, effect, weight) that run at the
speed of hand-written Python. Rules are never written again by hand.
"""

from __future__ import annotations

import itertools
import linecache
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from spec.errors import Location, SpecError
from spec.lang.check import KNOWS_REFUSED
from spec.temporal import KNOWLEDGE_CALLS
from spec.lang import nodes as n
from spec.lang.limits import check_combinatoric, check_domain_size, check_tiles_length
from spec.lang.types import Type
from spec.model import Domain, Rule, Spec


def next_in(mask: int, seat: int, players: int) -> int:
    """The first seat of `mask` clockwise after `seat` (R-E1); `seat` itself if none is."""
    for step in range(1, players + 1):
        candidate = (seat + step) % players
        if mask >> candidate & 1:
            return candidate
    return seat


def choose(total: int, k: int) -> int:
    """Binomial coefficient, 0 outside 0 <= k <= total."""
    return math.comb(total, k) if 0 <= k <= total else 0


def perm(total: int, k: int) -> int:
    """Ordered draws of k from total, 0 outside 0 <= k <= total."""
    return math.perm(total, k) if 0 <= k <= total else 0


def tiles_liberals(code: int) -> int:
    """Liberal tiles in a packed tile sequence."""
    return code.bit_length() - code.bit_count()


def tiles_first(code: int) -> int:
    """The top tile of a packed sequence (0 = liberal when empty)."""
    return code & 1 if code > 1 else 0


def tiles_take(code: int, k: int) -> int:
    """The first k tiles of a packed sequence."""
    length = min(max(k, 0), code.bit_length() - 1)
    return (code & ((1 << length) - 1)) | (1 << length)


def tiles_drop(code: int, k: int) -> int:
    """A packed sequence without its first k tiles."""
    return code >> min(max(k, 0), code.bit_length() - 1)


HELPERS: dict[str, Any] = {
    "_choose": choose, "_perm": perm, "_liberals": tiles_liberals, "_first": tiles_first,
    "_take": tiles_take, "_drop": tiles_drop, "_new": tuple.__new__,
}


_SERIAL = itertools.count(1)


def load_source(source: str, label: str, namespace: dict[str, Any]) -> dict[str, Any]:
    """Run emitted source (built from the checked tree only, never from spec text) into
    `namespace` and return it. The source is registered with `linecache` under a unique
    file name, so a traceback or a profiler shows the generated line, not `<string>`."""
    filename = f"<shrules {label} #{next(_SERIAL)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - our own emitted code
    return namespace


def generated_source(function: Callable[..., Any]) -> str:
    """The emitted source a function made by `load_source` was compiled from (the whole
    unit it came in: a rule, a phase step, a codec function), read back from `linecache`;
    empty for any other function."""
    filename = getattr(getattr(function, "__code__", None), "co_filename", "")
    if not filename.startswith("<shrules "):
        return ""
    return "".join(linecache.getlines(filename))


def bounded_helpers(where: Location | None) -> dict[str, Any]:
    """The helpers for code compiled from one rule (or expression), with the builtins whose
    cost grows with their arguments bounded (spec/lang/limits.py): a value past a bound is
    an `EvaluationLimit` naming `where`, never a hang."""

    def bounded_choose(total: int, k: int) -> int:
        check_combinatoric("choose", total, where)
        return choose(total, k)

    def bounded_perm(total: int, k: int) -> int:
        check_combinatoric("perm", total, where)
        return perm(total, k)

    def range_domain(low: int, high: int) -> range:
        check_domain_size(low, high, where)
        return range(low, high + 1)

    def range_size(low: int, high: int) -> int:
        check_domain_size(low, high, where)
        return max(0, high - low + 1)

    def tiles_length(length: int) -> int:
        check_tiles_length(length, where)
        return length

    helpers = dict(HELPERS)
    helpers.update({"_choose": bounded_choose, "_perm": bounded_perm, "_range": range_domain,
                    "_range_size": range_size, "_tiles_length": tiles_length, "_next_in": next_in,
                    "_submasks": submasks})
    return helpers


@dataclass(frozen=True, slots=True)
class CompiledRule:
    """The Python functions of one rule for one player count."""

    rule: Rule
    index: int
    guard: Callable[..., bool]
    first_failure: Callable[..., int]
    failures: Callable[..., int]                        # bit i set: requirement i does not hold
    effect: Callable[..., tuple[Any, ...]]
    weight: Callable[..., int] | None
    actor: Callable[..., int] | None
    holes: tuple[tuple[Callable[..., Any], ...], ...]   # per requirement, the why-template holes
    reveals: tuple[tuple[str, Callable[..., Any]], ...]
    domains: tuple[Callable[..., Any], ...]             # per param: state -> iterable of values
    says: tuple[Callable[..., Any], ...]                # the holes of the rule's `says`: (before, after, *args)
    sizes: tuple[Callable[..., int], ...] = ()          # per param: state -> size of its domain
    samplers: tuple[Callable[..., int], ...] = ()       # per param: (state, rng) -> uniform value
    outcomes: Callable[..., list[tuple[tuple[int, ...], int]]] | None = None   # chance: (args, weight>0)
    source: str = ""                                    # the Python it compiled to (`shrules compile`)


class Emitter:
    """Turns typed nodes into Python expressions for one spec and one player count.

    No name from the spec ever reaches the emitted text: fields are tuple indexes, the
    parameters and lets of a rule are positional slots (`p0`, `p1`, `l0`, ...), constants
    and enum members are inlined as numbers. So a hostile name in a variant file is only
    ever a dictionary key here, never code (SECURITY.md).
    """

    def __init__(self, spec: Spec, players: int, params: Sequence[str] = (), lets: Sequence[str] = (),
                 param_slots: Sequence[str] | None = None) -> None:
        self.spec = spec
        self.players = players
        self.values = spec.values_for(players)
        self.fields = {field.name: index for index, field in enumerate(spec.fields)}
        slots = param_slots if param_slots is not None else [f"p{i}" for i in range(len(params))]
        self.param_slots = dict(zip(params, slots))
        self.let_slots = {name: f"l{i}" for i, name in enumerate(lets)}

    def for_rule(self, rule: Rule, param_slots: Sequence[str] | None = None) -> "Emitter":
        """An emitter whose parameter and let names are those of `rule`, as positional slots
        (`param_slots` gives the parameters other identifiers of the emitter's own making)."""
        return Emitter(self.spec, self.players, [p.name for p in rule.params], [name for name, _ in rule.lets],
                       param_slots)

    def params(self) -> list[str]:
        """The identifiers of the bound parameters, in order."""
        return list(self.param_slots.values())

    def zero(self, type_: Type) -> str:
        """The value an out-of-range table lookup gives."""
        if type_.kind == "enum" and type_.enum in self.spec.enums and "none" in self.spec.enums[type_.enum]:
            return str(self.spec.enums[type_.enum].index("none"))
        return "0"

    def emit(self, node: n.Node) -> str:
        method: Callable[[Any], str] = getattr(self, "_" + type(node).__name__)
        return method(node)

    def _Lit(self, node: n.Lit) -> str:
        return repr(node.value)

    def _Name(self, node: n.Name) -> str:
        if node.kind == "field":
            return f"s[{self.fields[node.name]}]"
        if node.kind == "param":
            return self.param_slots[node.name]
        if node.kind == "let":
            return self.let_slots[node.name]
        if node.kind == "definition":
            return f"({self.emit(self.spec.definitions[node.name])})"
        if node.kind == "constant":
            return repr(self.values[node.name])
        if node.kind == "after":
            return f"t[{self.fields[node.name[len('after_'):]]}]"
        raise AssertionError(f"unresolved name {node.name}")

    def _Unary(self, node: n.Unary) -> str:
        return f"(not {self.emit(node.operand)})" if node.op == "not" else f"(-{self.emit(node.operand)})"

    def _Binary(self, node: n.Binary) -> str:
        left, right = self.emit(node.left), self.emit(node.right)
        if node.type.kind == "seats" and node.op == "-":
            return f"({left} & ~{right})"
        return f"({left} {node.op} {right})"

    def _Compare(self, node: n.Compare) -> str:
        left, right = self.emit(node.left), self.emit(node.right)
        if node.op in ("in", "not in"):
            if node.right.type.kind == "seats":
                test = f"((({right}) >> ({left})) & 1) == 1"
                if node.left.type.optional:
                    test = f"({left} >= 0 and {test})"
                return f"({test})" if node.op == "in" else f"(not ({test}))"
            return f"({left} {node.op} {right})"
        if node.left.type.kind == "seats" and node.op in ("<=", "<"):
            subset = f"(({left}) & ~({right})) == 0"
            return f"({subset})" if node.op == "<=" else f"({subset} and {left} != {right})"
        return f"({left} {node.op} {right})"

    def _BoolOp(self, node: n.BoolOp) -> str:
        return "(" + f" {node.op} ".join(self.emit(item) for item in node.operands) + ")"

    def _IfElse(self, node: n.IfElse) -> str:
        return f"({self.emit(node.then)} if {self.emit(node.condition)} else {self.emit(node.otherwise)})"

    def _Call(self, node: n.Call) -> str:
        if node.function in KNOWLEDGE_CALLS:
            raise SpecError(KNOWS_REFUSED)        # decided over beliefs (verify/knowledge), not compiled
        args = [self.emit(arg) for arg in node.args]
        simple = {
            "count": f"({args[0]}).bit_count()" if args else "",
            "size": f"(({args[0]}).bit_length() - 1)" if args else "",
            "fascists": f"(({args[0]}).bit_count() - 1)" if args else "",
        }
        if node.function in simple:
            return simple[node.function]
        if node.function == "next_in":
            return f"_next_in({args[0]}, {args[1]}, {self.players})"
        if node.function in ("min", "max", "abs"):
            return f"{node.function}({', '.join(args)})"
        names = {"choose": "_choose", "perm": "_perm", "liberals": "_liberals", "first": "_first",
                 "take": "_take", "drop": "_drop"}
        return f"{names[node.function]}({', '.join(args)})"

    def _SeatSet(self, node: n.SeatSet) -> str:
        if not node.items:
            return "0"
        return "(" + " | ".join(f"(1 << {self.emit(item)})" for item in node.items) + ")"

    def _ListLit(self, node: n.ListLit) -> str:
        return "(" + "".join(f"{self.emit(item)}, " for item in node.items) + ")"

    def _Index(self, node: n.Index) -> str:
        table, index = self.emit(node.table), self.emit(node.index)
        size = len(self.values[node.table.name]) if isinstance(node.table, n.Name) else 0  # type: ignore[arg-type]
        return f"({table}[{index}] if 0 <= {index} < {size} else {self.zero(node.type)})"


def _lines_for_lets(emitter: Emitter, rule: Rule) -> list[str]:
    """The lets of a rule as assignments to their slots (the emitter is bound to the rule)."""
    return [f"    {emitter.let_slots[name]} = {emitter.emit(node)}" for name, node in rule.lets]


def _domain_source(emitter: Emitter, rule: Rule, position: int) -> str:
    param = rule.params[position]
    domain = param.domain
    players = emitter.players
    if domain.kind == "seat":
        return f"def d(s):\n    return range({players})\n"
    if domain.kind == "enum":
        members = emitter.spec.enums[str(domain.enum)]
        return f"def d(s):\n    return range({len(members)})\n"
    if domain.kind == "range":
        assert domain.low is not None and domain.high is not None
        return f"def d(s):\n    return _range({emitter.emit(domain.low)}, {emitter.emit(domain.high)})\n"
    if domain.kind == "tiles":
        assert domain.length is not None
        return (f"def d(s):\n    k = _tiles_length({emitter.emit(domain.length)})\n"
                f"    return range(1 << k, 2 << k)\n")
    if domain.kind == "subset":
        assert domain.of is not None
        return f"def d(s):\n    return _submasks({emitter.emit(domain.of)})\n"
    raise AssertionError(domain.kind)


def _fixed_by_the_numbers(domain: Domain, spec: Spec) -> bool:
    """Whether a bounded domain (a range or a tile sequence's length) reads nothing of a
    game: no field (directly or through a definition, `nodes.fields_read`), parameter or
    let; only constants and tables, fixed for each player count."""
    if domain.kind not in ("range", "tiles"):
        return False
    nodes = [node for node in (domain.low, domain.high, domain.length) if node is not None]
    bound = any(isinstance(item, n.Name) and item.kind in ("param", "let") for node in nodes for item in n.walk(node))
    return not bound and not n.fields_read(nodes, spec.definitions)


def sampler_expressions(emitter: Emitter, rule: Rule, position: int) -> tuple[str, str]:
    """Python expressions for a parameter's domain size and for a uniform value of it,
    without listing the domain (a vote at 10 players has 1,024 possible Ja sets). They
    read the state `s` and the bound methods `random` and `getrandbits` of a Random."""
    domain = rule.params[position].domain
    players = emitter.players
    if domain.kind == "seat":
        return str(players), f"int(random() * {players})"
    if domain.kind == "enum":
        count = len(emitter.spec.enums[str(domain.enum)])
        return str(count), f"int(random() * {count})"
    if domain.kind == "range":
        assert domain.low is not None and domain.high is not None
        low, high = emitter.emit(domain.low), emitter.emit(domain.high)
        return f"_range_size({low}, {high})", f"{low} + int(random() * _range_size({low}, {high}))"
    if domain.kind == "tiles":
        assert domain.length is not None
        k = f"_tiles_length({emitter.emit(domain.length)})"
        return f"(1 << {k})", f"((1 << {k}) | getrandbits({k}))"
    if domain.kind == "subset":
        assert domain.of is not None
        of = emitter.emit(domain.of)
        # Each seat of the set in or out with probability 1/2: uniform over the subsets.
        return f"(1 << ({of}).bit_count())", f"(getrandbits({players}) & {of})"
    raise AssertionError(domain.kind)


def _sampler_source(emitter: Emitter, rule: Rule, position: int) -> str:
    size, draw = sampler_expressions(emitter, rule, position)
    return (f"def size(s):\n    return {size}\n"
            f"def draw(s, rng):\n    random = rng.random\n    getrandbits = rng.getrandbits\n    return {draw}\n")


Record = Callable[[int, tuple[int, ...]], None]
"""Told each move a recorded step makes: the rule's index in the game and its parameters."""


def compile_phase_step(emitter: Emitter, rules: "tuple[CompiledRule, ...]",
                       record: Record | None = None) -> Callable[..., Any] | None:
    """One function `step(s, rng) -> state after the move random play makes` for a phase,
    with the requirements inlined (the fast path of random play and benchmarks):

    - the game's forced move: the first rule whose requirements hold;
    - a seat's or the table's choice: uniform over the legal moves, by rejection
      sampling over the union of the rules' parameter domains;
    - chance: an outcome with its exact weight (equal weights: rejection sampling).
    None for a phase with no rules (the game is over). With `record`, each move made is
    also told to it (its rule and parameters): random games whose moves are wanted, at
    nearly the fast path's speed."""
    if not rules:
        return None
    actor = rules[0].rule.actor
    lines = ["def step(s, rng):", "    random = rng.random", "    getrandbits = rng.getrandbits"]
    namespace = bounded_helpers(rules[0].rule.where)
    for number, compiled in enumerate(rules):
        namespace[f"_effect{number}"] = (compiled.effect if record is None
                                         else _recorded(compiled.effect, compiled.index, record))
        namespace[f"_outcomes{number}"] = compiled.outcomes
    if actor == "game":
        lines += _forced_step(emitter, rules)
    elif actor == "chance" and len(rules) == 1 and isinstance(rules[0].rule.weight, n.Lit) \
            and rules[0].rule.weight.value == 1 and rules[0].rule.params:
        lines += _uniform_chance_step(emitter, rules[0])
        namespace["_enumerated"] = _enumerated_choice(rules, [namespace["_effect0"]])
    elif actor == "chance":
        lines += _weighted_chance_step(rules)
    else:
        lines += _choice_step(emitter, rules)
        namespace["_enumerated"] = _enumerated_choice(
            rules, [namespace[f"_effect{number}"] for number in range(len(rules))])
    step: Callable[..., Any] = load_source("\n".join(lines), f"phase {rules[0].rule.phase}", namespace)["step"]
    return step


def _recorded(effect: Callable[..., Any], index: int, record: Record) -> Callable[..., Any]:
    """The effect, telling `record` of each move before making it."""
    def recorded(s: Any, *args: int) -> Any:
        record(index, args)
        return effect(s, *args)
    return recorded


def _step_condition(emitter: Emitter, compiled: CompiledRule, names: list[str], indent: str) -> list[str]:
    """A rule's lets, then `if <every requirement>:`, its parameters bound to `names`."""
    rule = compiled.rule
    bound = emitter.for_rule(rule, names)
    out = [indent + line.strip() for line in _lines_for_lets(bound, rule)]
    conditions = [bound.emit(req.when) for req in rule.requires] or ["True"]
    out.append(f"{indent}if {' and '.join(conditions)}:")
    return out


def _forced_step(emitter: Emitter, rules: "tuple[CompiledRule, ...]") -> list[str]:
    """The game's move: the effect of the first rule whose requirements hold."""
    lines: list[str] = []
    for number, compiled in enumerate(rules):
        lines += _step_condition(emitter, compiled, [], "    ")
        lines.append(f"        return _effect{number}(s)")
    lines.append("    raise AssertionError('no game rule applies')")
    return lines


def _uniform_chance_step(emitter: Emitter, compiled: CompiledRule) -> list[str]:
    """One chance rule of equal weights: draw its parameters until the requirements hold."""
    count = len(compiled.rule.params)
    names = [f"a{i}" for i in range(count)]
    lines = [f"    for _ in range({REJECTIONS}):"]
    lines += [f"        a{i} = {sampler_expressions(emitter, compiled.rule, i)[1]}" for i in range(count)]
    lines += _step_condition(emitter, compiled, names, "        ")
    lines.append(f"            return _effect0(s, {', '.join(names)})")
    lines.append("    return _enumerated(s, random)")
    return lines


def _weighted_chance_step(rules: "tuple[CompiledRule, ...]") -> list[str]:
    """Chance by weight: every outcome of every rule, one drawn with its exact weight."""
    lines = ["    outcomes = []"]
    for number in range(len(rules)):
        lines.append(f"    outcomes += [(_effect{number}, args, w) for args, w in _outcomes{number}(s)]")
    lines += ["    if not outcomes:",
              "        raise AssertionError('no chance outcome (deadlock)')",
              "    point = random() * sum(w for _, _, w in outcomes)",
              "    for effect, args, w in outcomes:",
              "        if point < w: return effect(s, *args)",
              "        point -= w",
              "    effect, args, w = outcomes[-1]",
              "    return effect(s, *args)"]
    return lines


def _choice_step(emitter: Emitter, rules: "tuple[CompiledRule, ...]") -> list[str]:
    """A seat's or the table's choice, uniform over the legal moves: a (rule, parameters)
    pair drawn uniformly from the union of the domains, kept when its requirements hold."""
    lines: list[str] = []
    # A phase may hold chance rules beside the seats' (the power phase: Policy Peek); when
    # chance has outcomes now, it moves, with their exact weights, not uniformly.
    for number, compiled in enumerate(rules):
        if compiled.rule.actor == "chance":
            lines += [f"    outcomes = _outcomes{number}(s)",
                      "    if outcomes:",
                      "        point = random() * sum(w for _, w in outcomes)",
                      "        for args, w in outcomes:",
                      f"            if point < w: return _effect{number}(s, *args)",
                      "            point -= w",
                      f"        return _effect{number}(s, *outcomes[-1][0])"]
    for number, compiled in enumerate(rules):
        terms = [sampler_expressions(emitter, compiled.rule, i)[0] for i in range(len(compiled.rule.params))]
        lines.append(f"    z{number} = {' * '.join(terms) if terms else '1'}")
    lines.append(f"    total = {' + '.join(f'z{i}' for i in range(len(rules)))}")
    lines.append(f"    for _ in range({REJECTIONS}):")
    lines.append("        point = int(random() * total)")
    bound = ""
    for number, compiled in enumerate(rules):
        bound = f"z{number}" if not bound else f"{bound} + z{number}"
        count = len(compiled.rule.params)
        names = [f"a{i}" for i in range(count)]
        lines.append(f"        {'if' if number == 0 else 'elif'} point < {bound}:")
        lines += [f"            a{i} = {sampler_expressions(emitter, compiled.rule, i)[1]}" for i in range(count)]
        lines += _step_condition(emitter, compiled, names, "            ")
        lines.append(f"                return _effect{number}({', '.join(['s'] + names)})")
    lines.append("    return _enumerated(s, random)")
    return lines


REJECTIONS = 1_000
"""Draws a choice's rejection sampling makes before it lists the legal moves instead: a
phase with no legal move (a changed rule's deadlock) used to cost a million draws, about
a second of every random game that reached it, and inference plays hundreds of such
games. The listing draws uniformly from the same legal moves, so the choice stays
uniform."""


def _enumerated_choice(rules: "tuple[CompiledRule, ...]",
                       effects: Sequence[Callable[..., Any]]) -> Callable[..., Any]:
    """A seat's or the table's choice by listing every legal move (each rule's parameter
    values, its requirements held) and drawing one uniformly; AssertionError when there
    is none (a deadlock). Chance of equal weights draws the same way."""
    def enumerated(s: Any, random: Callable[[], float]) -> Any:
        legal = [(number, args) for number, compiled in enumerate(rules)
                 for args in itertools.product(*(domain(s) for domain in compiled.domains))
                 if compiled.guard(s, *args)]
        if not legal:
            raise AssertionError("no legal move found (deadlock)")
        number, args = legal[int(random() * len(legal))]
        return effects[number](s, *args)
    return enumerated


def submasks(mask: int) -> list[int]:
    """Every subset of a bit mask, the empty one first."""
    out = [0]
    sub = mask
    while sub:
        out.append(sub)
        sub = (sub - 1) & mask
    out.sort()
    return out


def compile_rule(emitter: Emitter, rule: Rule, index: int, state_class: type) -> CompiledRule:
    """Compile one rule's guard, requirements, effect, weight, actor and messages."""
    emitter = emitter.for_rule(rule)
    params = ", ".join(["s", *emitter.params()])
    lets = _lines_for_lets(emitter, rule)
    conditions = [emitter.emit(req.when) for req in rule.requires] or ["True"]
    values = [f"s[{i}]" for i in range(len(emitter.spec.fields))]
    for field_name, node in rule.effect:
        values[emitter.fields[field_name]] = emitter.emit(node)
    source = [f"def guard({params}):", *lets, f"    return {' and '.join(conditions)}", ""]
    source += [f"def first_failure({params}):", *lets]
    for number, condition in enumerate(conditions):
        source.append(f"    if not {condition}: return {number}")
    source += ["    return -1", ""]
    # Every requirement that fails, not only the first: what blocked a move (verify/explicit/frontier.py)
    source += [f"def failures({params}):", *lets, "    _failed = 0"]
    source += [f"    if not {condition}: _failed |= {1 << number}" for number, condition in enumerate(conditions)]
    source += ["    return _failed", ""]
    source += [f"def effect({params}):", *lets, f"    return _new(_State, ({', '.join(values)},))", ""]
    if rule.weight is not None:
        source += [f"def weight({params}):", *lets, f"    return {emitter.emit(rule.weight)}", ""]
        # All outcomes with their weights in one call: one loop per parameter domain.
        names = emitter.params()
        body = ["def outcomes(s):", "    out = []"]
        indent = "    "
        for position, name in enumerate(names):
            body.append(f"{indent}for {name} in _d{position}(s):")
            indent += "    "
        body += [indent + line.strip() for line in lets]
        body += [f"{indent}if {' and '.join(conditions)}:", f"{indent}    w = {emitter.emit(rule.weight)}",
                 f"{indent}    if w > 0: out.append((({', '.join(names)}{',' if names else ''}), w))", "    return out", ""]
        source += body
    if rule.actor_seat is not None:
        source += ["def actor(s):", f"    return {emitter.emit(rule.actor_seat)}", ""]
    namespace = bounded_helpers(rule.where)
    namespace["_State"] = state_class
    domains: list[Callable[..., Any]] = []
    sizes: list[Callable[..., int]] = []
    samplers: list[Callable[..., int]] = []
    for position in range(len(rule.params)):
        domain_source = _domain_source(emitter, rule, position) + _sampler_source(emitter, rule, position)
        source += [f"# parameter {position}: its domain, the domain's size, a uniform value", domain_source]
        scope = load_source(domain_source, f"rule {rule.name} parameter {position}", bounded_helpers(rule.where))
        if _fixed_by_the_numbers(rule.params[position].domain, emitter.spec):
            # A domain the numbers fix (`tiles(hand_size)`) is checked against the
            # language's bounds now: a rule set past them does not compile, rather than
            # stopping the first game that reaches the rule (both backends refuse it).
            scope["d"](None)
        domains.append(scope["d"])
        namespace[f"_d{position}"] = scope["d"]
        sizes.append(scope["size"])
        samplers.append(scope["draw"])
    load_source("\n".join(source), f"rule {rule.name}", namespace)
    holes = tuple(tuple(_function(emitter, rule, node, params, lets) for _, node in req.why.holes)
                  for req in rule.requires)
    reveals = tuple((name, _function(emitter, rule, node, params, lets)) for name, node in rule.reveals)
    # A sentence reads the state before the move (`s`) and, for `after_FIELD`, after it (`t`).
    says_params = ", ".join(["s", "t", *emitter.params()])
    says = tuple(_function(emitter, rule, node, says_params, lets) for _, node in rule.says.holes) if rule.says else ()
    outcomes = namespace.get("outcomes")
    if outcomes is not None:
        roots = [node for _, node in rule.lets] + [req.when for req in rule.requires]
        roots += [rule.weight] if rule.weight is not None else []
        reads = n.fields_read(roots, emitter.spec.definitions)
        outcomes = _memoized(outcomes, tuple(sorted(emitter.fields[name] for name in reads)))
    return CompiledRule(rule, index, namespace["guard"], namespace["first_failure"], namespace["failures"],
                        namespace["effect"],
                        namespace.get("weight"), namespace.get("actor"), holes, reveals, tuple(domains), says,
                        tuple(sizes), tuple(samplers), outcomes, "\n".join(source))


def compile_in_rule(spec: Spec, players: int, rule: Rule, node: n.Node) -> Callable[..., Any]:
    """A function `f(s, *args)` evaluating `node` as the rule's requirements are evaluated:
    over the state before a move of `rule`, its parameters and lets in scope (what a
    requirement's parts mean where only the whole was compiled: verify/lawyer/record.py)."""
    emitter = Emitter(spec, players).for_rule(rule)
    return _function(emitter, rule, node, ", ".join(["s", *emitter.params()]), _lines_for_lets(emitter, rule))


def _function(emitter: Emitter, rule: Rule, node: n.Node, params: str, lets: list[str]) -> Callable[..., Any]:
    source = "\n".join([f"def f({params}):", *lets, f"    return {emitter.emit(node)}"])
    function: Callable[..., Any] = load_source(source, f"rule {rule.name} text", bounded_helpers(rule.where))["f"]
    return function


def _memoized(outcomes: Callable[..., Any], reads: tuple[int, ...]) -> Callable[..., Any]:
    """Chance outcomes depend only on the fields their rule reads: compute them once per
    distinct value of those fields (a draw reads the pile, not the seats)."""
    cache: dict[tuple[int, ...], Any] = {}

    def cached(s: tuple[int, ...]) -> Any:
        key = tuple([s[i] for i in reads])
        found = cache.get(key)
        if found is None:
            found = cache[key] = outcomes(s)
        return found

    return cached


def compile_expression(spec: Spec, players: int, node: n.Node, params: Sequence[str] = (),
                       after: bool = False) -> Callable[..., Any]:
    """A function evaluating a state expression (properties, queries, inits): `f(s)`, or
    `f(s, t, *args)` for an expression over a move (`after`: the state after it, `t`; the
    move's arguments in the order of `params`, the parameter names the expression uses)."""
    emitter = Emitter(spec, players, params)
    arguments = ", ".join(["s", *(["t"] if after else []), *emitter.params()])
    source = f"def f({arguments}):\n    return {emitter.emit(node)}\n"
    function: Callable[..., Any] = load_source(source, "expression", bounded_helpers(None))["f"]
    return function
