"""Exact reductions of the state graph, each decided on the spec's typed tree.

The explorer never trusts a reduction it has not checked on the rules it is given (a
variant or a mutant may break one). This module decides, from the typed expressions
alone, which reductions are sound for a spec and a set of properties; `model.py`
applies them. Every reduction here is *exact*: the reduced graph has a verdict-preserving
correspondence with the full one, argued below and tested (tests/test_explore_reductions.py
compares reduced and unreduced verdicts on 5 and 6 players).

(a) Rotation symmetry of the seats. Rotating every seat-valued field, every seat set
    and every seat parameter by the same amount r (seat i -> i + r mod n) maps a legal
    move to a legal move and its successor to the rotated successor, provided no
    expression of the rules depends on absolute seat numbers: no seat literal (other
    than the empty set and `all_seats`, which rotation fixes), no ordering or arithmetic
    on seats, no seat used as a table index. `next_in` (clockwise) commutes with rotation,
    membership and equality are preserved, parameter domains (`seat`, `subset(S)`) map
    onto themselves. The transition relation is then equivariant, so the quotient graph
    (one canonical state per orbit) has the same reachable orbits, and BFS distances on it
    equal the shortest distance to any member of the orbit. A property whose expression
    is rotation-invariant by the same test has the same truth value on every member of an
    orbit, so its verdict is unchanged. Canonical form: the first non-optional seat field
    (`hitler`) is rotated to seat 0; every rotation but the identity moves that field,
    so exactly one member of each orbit is canonical. Properties that use seat literals
    are explored without the symmetry.

(b) Vote representatives. A parameter whose domain is `subset(S)` and which the rule
    reads only through `count(p)` (or in the domain test `p <= S` itself) in its
    requirements, lets, weight and effect gives the same guard, weight and successor for
    any two values of equal size: one representative per size (the lowest seats of S)
    yields exactly the same successor states. If the effect and the weight do not read
    it at all, one satisfying value suffices. Move properties that read the parameter
    other than through count disable it for that rule. Only the move label changes, and a
    representative is a legal move, so traces stay replayable. `says` and `why` templates
    are text, not semantics, and are ignored.

(c) Cone of influence. A field that no property, no requirement, no weight, no let, no
    actor, no parameter domain reads, and that no effect assigning a kept field reads, can
    never change which moves are legal or the value of a kept field: holding it at its
    initial value gives a graph whose states are the kept fields' projections, with the
    same moves between them. `reveals` (what an investigation shows) is information for
    a player, not state, and does not keep a field (the ordinary Fascists, `fascists`,
    are read only there). The dropped fields are recomputed when a trace is rebuilt, by
    replaying its moves through the engine. A move property reading `after_X` on rules
    that all assign X reads the value of the assignment, which the engine computes from
    the kept fields the assignment reads before the successor is reduced: those fields are
    kept, X is not (so the deal is checked as dealt without keeping `fascists`). Where one
    of the rules does not assign X, `after_X` is the old value and X is kept.

(d) Fusing forced moves. A move of the game itself (actor `game`) is forced: a state in a
    game phase has no choice. Such states are not stored; each stored transition runs the
    chain of forced moves to the next choice, chance or end. Every intermediate state and
    every forced move is still evaluated against every state and move property, so no
    violation or witness can be skipped; BFS depth counts decisions (moves of a seat, the
    table or chance), so "shortest" means fewest decisions. If two game rules are enabled
    at once the chain branches and every branch is kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from spec.lang import nodes as n
from spec.liveness import rule_nodes
from spec.model import Rule, Spec
from spec.properties import Property


@dataclass(frozen=True, slots=True)
class Reductions:
    """Which exact reductions to apply (each one off can be compared against on)."""

    symmetry: bool = True
    representatives: bool = True
    cone: bool = True
    fuse: bool = True
    deals: bool = False             # (e): only the layered checker enumerates dealt fields

    def label(self) -> str:
        """A short description, e.g. 'symmetry+representatives+cone+fuse' or 'none'."""
        names = [name for name in ("symmetry", "representatives", "cone", "fuse") if getattr(self, name)]
        return "+".join(names) or "none"


# ---------------------------------------------------------------- reading the tree


def fields_read(node: n.Node | None, spec: Spec) -> set[str]:
    """The state fields an expression of `spec` reads (`spec.lang.nodes.fields_read`)."""
    return n.fields_read([node], spec.definitions)


def _inline(node: n.Node, spec: Spec) -> list[n.Node]:
    """Every node of an expression with definitions expanded."""
    out = []
    for item in n.walk(node):
        out.append(item)
        if isinstance(item, n.Name) and item.kind == "definition":
            out.extend(_inline(spec.definitions[item.name], spec))
    return out


def rotation_blockers(node: n.Node | None, spec: Spec) -> list[str]:
    """Why an expression is not rotation-invariant (empty when it is): seat literals,
    ordering or arithmetic on seats, seats as table indexes."""
    if node is None:
        return []
    reasons = []
    for item in _inline(node, spec):
        if isinstance(item, n.Lit) and item.type.kind == "seat" and not (item.type.optional and item.value == -1):
            reasons.append(f"seat literal {item.value}")
        elif isinstance(item, n.Lit) and item.type.kind == "seats" and item.value != 0:
            reasons.append(f"seat set literal {item.value:#x}")
        elif isinstance(item, n.Compare) and item.op in ("<", "<=", ">", ">=") and item.left.type.kind == "seat":
            reasons.append(f"seats compared by order ({item.op})")
        elif isinstance(item, (n.Binary, n.Unary)) and any(
                c.type.kind == "seat" for c in n.children(item)):
            reasons.append("arithmetic on a seat")
        elif isinstance(item, n.Call) and item.function in ("min", "max", "abs") and any(
                a.type.kind == "seat" for a in item.args):
            reasons.append(f"{item.function} of a seat")
        elif isinstance(item, n.Index) and item.index.type.kind == "seat":
            reasons.append("a seat used as an index")
    return reasons


def symmetry_blockers(spec: Spec, properties: tuple[Property, ...] = ()) -> list[str]:
    """Why the rotation symmetry is unsound for these rules and properties (empty: sound)."""
    reasons = []
    seat_fields = [f for f in spec.fields if f.type.kind == "seat" and not f.type.optional]
    if not seat_fields:
        reasons.append("no seat field to put at seat 0")
    for rule in spec.rules:
        for node in rule_nodes(rule):
            reasons += [f"rule '{rule.name}': {why}" for why in rotation_blockers(node, spec)]
    for prop in properties:
        for expression in (prop.state, prop.move):
            reasons += [f"property '{prop.name}': {why}" for why in rotation_blockers(expression, spec)]
    return reasons


def pivot_field(spec: Spec) -> int:
    """Index of the field put at seat 0 by the canonical form: the first non-optional seat field."""
    for index, f in enumerate(spec.fields):
        if f.type.kind == "seat" and not f.type.optional:
            return index
    raise ValueError("no seat field")


# ---------------------------------------------------------------- (b) representatives


def _param_uses(node: n.Node, name: str, domain_of: n.Node | None) -> tuple[int, int]:
    """(uses through count or the domain test, any other use) of parameter `name`."""
    counted = other = 0
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, n.Call) and item.function == "count" and isinstance(item.args[0], n.Name) \
                and item.args[0].kind == "param" and item.args[0].name == name:
            counted += 1
            continue
        if isinstance(item, n.Compare) and item.op == "<=" and isinstance(item.left, n.Name) \
                and item.left.kind == "param" and item.left.name == name and item.right == domain_of:
            counted += 1
            continue
        if isinstance(item, n.Name) and item.kind == "param" and item.name == name:
            other += 1
            continue
        stack.extend(n.children(item))
    return counted, other


@dataclass(frozen=True, slots=True)
class Representative:
    """A subset parameter explored by one value per size (`one` = a single satisfying value)."""

    position: int
    of: n.Node
    one: bool


def representatives(rule: Rule, properties: tuple[Property, ...] = ()) -> dict[int, Representative]:
    """The subset parameters of a rule that need only one value per size, by position."""
    out: dict[int, Representative] = {}
    for position, param in enumerate(rule.params):
        if param.domain.kind != "subset" or param.domain.of is None:
            continue
        other = 0
        in_effect = 0
        for node in rule_nodes(rule):
            counted, extra = _param_uses(node, param.name, param.domain.of)
            other += extra
        for _, node in rule.effect:
            in_effect += sum(_param_uses(node, param.name, param.domain.of))
        for _, node in rule.lets:
            in_effect += sum(_param_uses(node, param.name, param.domain.of))
        if rule.weight is not None:
            in_effect += sum(_param_uses(rule.weight, param.name, param.domain.of))
        for prop in properties:
            if prop.move is not None and rule.name in prop.on:
                counted, extra = _param_uses(prop.move, param.name, param.domain.of)
                other += extra
                in_effect += counted
        if other == 0:
            out[position] = Representative(position, param.domain.of, in_effect == 0)
    return out


# ---------------------------------------------------------------- (c) cone of influence


def cone(spec: Spec, properties: tuple[Property, ...], dealt: frozenset[str] = frozenset(),
         also: frozenset[str] = frozenset()) -> frozenset[str]:
    """The fields that can influence the properties: read by a property or by any
    guard, weight, let, actor or domain, closed under the effects that assign them.
    `dealt`: fields an enumerable property's reads of are not counted ((e) above); `also`:
    fields some other reader needs kept (a strategy's weights, the odds' outcome)."""
    kept = {"phase"} | set(also)
    for prop in properties:
        reads = fields_read(prop.state, spec) | _move_reads(prop, spec)
        kept |= reads - dealt if enumerable(prop) else reads
        if prop.kind == "in_range":
            kept |= {field.name for field in spec.fields if field.low is not None}   # every bounded value
    for rule in spec.rules:
        for node in [req.when for req in rule.requires] + [node for _, node in rule.lets]:
            kept |= fields_read(node, spec)
        for optional in (rule.weight, rule.actor_seat):
            kept |= fields_read(optional, spec)
        for param in rule.params:
            for part in (param.domain.of, param.domain.low, param.domain.high, param.domain.length):
                kept |= fields_read(part, spec)
    changed = True
    while changed:
        changed = False
        for rule in spec.rules:
            lets = {name: fields_read(node, spec) for name, node in rule.lets}
            for target, node in rule.effect:
                if target not in kept:
                    continue
                reads = fields_read(node, spec)
                for item in n.walk(node):
                    if isinstance(item, n.Name) and item.kind == "let":
                        reads |= lets.get(item.name, set())
                if not reads <= kept:
                    kept |= reads
                    changed = True
    return frozenset(kept)


ENUMERABLE = ("always", "never", "sometimes", "shows")
"""The kinds of property whose move expression can be checked for every dealt value
(`PropertyWatch`): one check per move, nothing carried from state to state."""


def enumerable(prop: Property) -> bool:
    """Whether the property's reads of a dealt field may be enumerated, not searched."""
    return prop.kind in ENUMERABLE and prop.state is None and prop.move is not None


def dealt_fields(spec: Spec) -> dict[str, tuple[str, str]]:
    """The fields a deal fixes for the whole game ((e) above): field -> (its rule, the
    parameter it is assigned). The rule is the only one of the phase the game starts in,
    every phase a rule sets is written out and none is that phase, the field is
    assigned by that rule alone, and the rules themselves never read it."""
    phase = next((f for f in spec.fields if f.name == "phase"), None)
    if phase is None or not isinstance(phase.init, n.Lit):
        return {}
    start = spec.enums["phase"][int(phase.init.value)]
    for rule in spec.rules:
        for target, node in rule.effect:
            if target == "phase":
                values = _literals(node)
                if values is None or phase.init.value in values:
                    return {}
    dealing = [rule for rule in spec.rules if rule.phase == start]
    if len(dealing) != 1:
        return {}
    deal = dealing[0]
    assigned = assignments(spec)
    read = cone(spec, ())
    out: dict[str, tuple[str, str]] = {}
    for target, node in deal.effect:
        if (isinstance(node, n.Name) and node.kind == "param" and assigned[target] == 1 and target not in read
                and target != "phase"):
            out[target] = (deal.name, node.name)
    return out


def assignments(spec: Spec) -> dict[str, int]:
    """How many rules assign each field (a field one rule alone sets stays as it set it)."""
    assigned: dict[str, int] = {}
    for rule in spec.rules:
        for target, _ in rule.effect:
            assigned[target] = assigned.get(target, 0) + 1
    return assigned


def dealt_reads(prop: Property, spec: Spec, dealt: frozenset[str]) -> frozenset[str]:
    """The dealt fields an enumerable property needs enumerated (none for another kind)."""
    if not dealt or not enumerable(prop):
        return frozenset()
    return frozenset((fields_read(prop.state, spec) | _move_reads(prop, spec)) & dealt)


def _literals(node: n.Node) -> set[int | bool] | None:
    """The values an expression can take when it is a literal or a choice between
    literals (`a if c else b`); None for anything else."""
    if isinstance(node, n.Lit):
        return {node.value}
    if isinstance(node, n.IfElse):
        then, otherwise = _literals(node.then), _literals(node.otherwise)
        return None if then is None or otherwise is None else then | otherwise
    return None


def _move_reads(prop: Property, spec: Spec) -> set[str]:
    """The fields a move property needs kept. `after_X` on moves that all assign X is the
    value of the assignment, computed from the fields it reads (the successor is built
    from the whole rule before the state is reduced), so X itself need not be kept: the
    deal's seats are checked as dealt without keeping them for the rest of the game."""
    if prop.move is None:
        return set()
    rules = {rule.name: rule for rule in spec.rules}
    on = [rules[name] for name in prop.on if name in rules]
    out: set[str] = set()
    for item in n.walk(prop.move):
        if not isinstance(item, n.Name):
            continue
        if item.kind == "after":
            target = item.name[len("after_"):]
            assigned = [dict(rule.effect).get(target) for rule in on]
            if not on or len(on) != len(prop.on) or any(node is None for node in assigned):
                out.add(target)
                continue
            for rule, node in zip(on, assigned):
                assert node is not None          # checked above: every rule of `on` assigns it
                lets = dict(rule.lets)
                out |= fields_read(node, spec)
                for inner in n.walk(node):
                    if isinstance(inner, n.Name) and inner.kind == "let" and inner.name in lets:
                        out |= fields_read(lets[inner.name], spec)
        else:
            out |= fields_read(item, spec) if item.kind == "definition" else (
                {item.name} if item.kind == "field" else set())
    return out


@dataclass(frozen=True, slots=True)
class Plan:
    """The reductions that apply to one exploration: what the model is built from."""

    reductions: Reductions
    kept: frozenset[str]
    symmetry: bool
    blockers: tuple[str, ...] = field(default=())
    dealt: frozenset[str] = frozenset()           # (e): dealt fields enumerated, not kept

    def labels(self) -> list[str]:
        """The reductions applied, as short names: symmetry, votes, cone, fused."""
        out = []
        if self.symmetry:
            out.append("symmetry")
        if self.reductions.representatives:
            out.append("votes")
        if self.reductions.cone:
            out.append("cone")
        if self.reductions.fuse:
            out.append("fused")
        if self.dealt:
            out.append("deals")
        return out

    def describe(self, spec: Spec) -> str:
        """One line: which reductions apply and which fields are dropped."""
        dropped = [f.name for f in spec.fields if f.name not in self.kept]
        parts = []
        if self.symmetry:
            parts.append("rotation symmetry")
        if self.reductions.representatives:
            parts.append("vote representatives")
        if dropped:
            parts.append("cone of influence (drops " + ", ".join(dropped) + ")")
        if self.reductions.fuse:
            parts.append("forced moves fused")
        if self.dealt:
            parts.append("dealt " + ", ".join(sorted(self.dealt)) + " enumerated")
        return ", ".join(parts) or "none"


def plan(spec: Spec, properties: tuple[Property, ...], reductions: Reductions,
         keep: frozenset[str] = frozenset()) -> Plan:
    """Decide the reductions for exploring `spec` against `properties`; `keep` forces fields
    to stay (e.g. the fields of a projection)."""
    blockers = tuple(symmetry_blockers(spec, properties)) if reductions.symmetry else ()
    symmetry = reductions.symmetry and not blockers
    dealt: frozenset[str] = frozenset()
    if reductions.cone:
        if reductions.deals:
            dealt = frozenset(dealt_fields(spec)) - keep
        kept = cone(spec, properties, dealt) | keep
        # A dealt field some kept field's effect reads steers the search: it stays.
        while dealt & kept:
            dealt -= kept
            kept = cone(spec, properties, dealt) | keep
        dealt = frozenset().union(*(dealt_reads(prop, spec, dealt) for prop in properties))
    else:
        kept = frozenset(f.name for f in spec.fields)
    return Plan(reductions, frozenset(kept), symmetry, blockers, dealt)
