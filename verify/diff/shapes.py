"""Mutation operators of the shapes that escaped the small edits: misreadings of the order
of play and of the bookkeeping.

The operators of operators.py change one node: a requirement, a comparison, a literal.
Rule bugs written as a table or another engine really gets the rules wrong touch two
rules or the structure of a round instead, and passed a catalogue that killed every
small edit (issue 58). Each operator here models one such misreading (its docstring says
which):

- `redirect_effect`: an assignment written into another field of the same type;
- `skip_phase`: a move leads past the step that should follow it;
- `earlier_phase`: a move leads back to a step before it;
- `repeat_step`: a branch of a move leaves the phase where it was, so the step repeats;
- `neighbour_read`: a field or definition read for its neighbour of the same type (the
  players for the living, one seat set for another);
- `move_effect`: an assignment made by the step before or after the right one;
- `param_domain`: a parameter's domain widened or narrowed;
- `swap_roles`: the President and the Chancellor swapped in who moves or what is read.

Which fields, phases and seats are "neighbours" comes from the spec itself: the order the
state declares its fields in, the steps the rules lead to (the phase graph: a rule of phase
p whose effect sets the phase to q is an edge p -> q), and the seats that act in some rule.
Nothing here names a rule, a field or a number of the game.

Each operator yields at most `PER_RULE` mutants of one rule (or definition), taken in turn
from each place it can change, nearest neighbour first, so a rule with many fields of one
type does not swamp the run; the order is deterministic (rules in file order, then places
in the rule, then neighbours by distance). Every mutant is built to keep the types, and is
checked again (welltyped.py) before it is run: a moved expression may read a name the
other rule lacks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from functools import partial

from spec.lang import nodes as n
from spec.lang.types import INT, SEATS
from spec.model import Domain, Param, Requirement, Rule, Spec

from .surgery import Candidate, clip, positions, replace_at, rule_ids_of, show, with_rule, with_rules

ESCAPED = ("redirect_effect", "skip_phase", "earlier_phase", "repeat_step", "neighbour_read", "move_effect",
           "param_domain", "swap_roles")
"""The operators of this module, in the order their mutants are numbered (after operators.py's)."""

PER_RULE = 6
"""At most this many mutants of one operator per rule or definition: the nearest
neighbours of each place first, in turn. At 5 players the standard rules' fields of one
type would otherwise give `redirect_effect` 8 targets for each of the 9 assignments of
`enact` alone."""

PHASE_ENUM = "phase"
"""The enum of the steps of a game (the language's own: a rule's `phase` is a member of it)."""


# ---------------------------------------------------------------- what the spec says is near


def _phase_field(spec: Spec) -> str | None:
    """The state field holding the step of the game (the one of the phase enum's type)."""
    for field in spec.fields:
        if field.type.kind == "enum" and field.type.enum == PHASE_ENUM and not field.type.optional:
            return field.name
    return None


def _phase_tree(spec: Spec, rule: Rule) -> tuple[int, n.Node] | None:
    """The position in `rule.effect` of its assignment of the phase, and the expression."""
    name = _phase_field(spec)
    for number, (target, tree) in enumerate(rule.effect):
        if target == name:
            return number, tree
    return None


def _phase_literals(tree: n.Node) -> list[tuple[tuple[int, ...], n.Lit]]:
    """Every phase literal of a phase expression, with its path."""
    return [(path, node) for path, node in positions(tree)
            if isinstance(node, n.Lit) and node.type.kind == "enum" and node.type.enum == PHASE_ENUM]


def _leads_to(spec: Spec, rule: Rule) -> set[str]:
    """The phases a move of `rule` can leave the game in."""
    found = _phase_tree(spec, rule)
    members = spec.enums[PHASE_ENUM]
    if found is None:
        return {rule.phase}
    return {members[int(lit.value)] for _, lit in _phase_literals(found[1]) if 0 <= int(lit.value) < len(members)}


def _graph(spec: Spec) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """The phase graph: the phases each phase's moves lead to, and those leading to it."""
    following: dict[str, set[str]] = {phase: set() for phase in spec.enums[PHASE_ENUM]}
    preceding: dict[str, set[str]] = {phase: set() for phase in spec.enums[PHASE_ENUM]}
    for rule in spec.rules:
        for target in _leads_to(spec, rule):
            following[rule.phase].add(target)
            preceding[target].add(rule.phase)
    return following, preceding


def _by_distance(names: list[str], centre: str) -> list[str]:
    """`names` (a declared order holding `centre`) other than `centre`, nearest first, the
    earlier of two equally near first."""
    at = names.index(centre)
    return sorted((name for name in names if name != centre), key=lambda name: (abs(names.index(name) - at),
                                                                               names.index(name)))


def _in_turn(places: list[list[Candidate]], cap: int = PER_RULE) -> Iterator[Candidate]:
    """The first of each place's candidates, then the second of each, ..., at most `cap`."""
    taken = 0
    depth = 0
    while taken < cap and any(depth < len(place) for place in places):
        for place in places:
            if depth < len(place) and taken < cap:
                taken += 1
                yield place[depth]
        depth += 1


def _member(spec: Spec, value: int) -> str:
    return spec.enums[PHASE_ENUM][value]


# ---------------------------------------------------------------- the operators


def redirect_effect(spec: Spec, index: int, rule: Rule) -> Iterator[Candidate]:
    """An assignment `x := e` written into another field `y` of x's type that the move does
    not write (x keeps its value): the right count into the wrong place, e.g. a discard
    counted on the Liberal pile for the Fascist, or the Chancellor recorded as the last
    President. The fields nearest x in the state's declared order first."""
    order = [field.name for field in spec.fields]
    types = {field.name: field.type for field in spec.fields}
    written = {target for target, _ in rule.effect}
    places: list[list[Candidate]] = []
    for number, (target, tree) in enumerate(rule.effect):
        if target == _phase_field(spec):
            continue
        place: list[Candidate] = []
        for other in _by_distance(order, target):
            if other in written or not types[other].same_base(types[target]) or \
                    (isinstance(tree, n.Name) and tree.kind == "field" and tree.name == other):
                continue        # `y := y` would only drop `x := e`: drop_effect's mutant
            effect = rule.effect[:number] + ((other, tree),) + rule.effect[number + 1:]
            place.append(("redirect_effect", rule.name, rule_ids_of(rule),
                          f"effect {target} = {clip(show(tree), 40)} written to {other}",
                          partial(with_rule, spec, index, replace(rule, effect=effect)), None))
        places.append(place)
    yield from _in_turn(places)


def _phase_places(spec: Spec, index: int, rule: Rule, operator: str, choices: dict[int, list[str]],
                  says: str) -> Iterator[Candidate]:
    """A mutant for each phase literal of the rule's phase assignment and each phase
    `choices` gives for it (by member index)."""
    found = _phase_tree(spec, rule)
    if found is None:
        return
    number, tree = found
    target = rule.effect[number][0]
    places: list[list[Candidate]] = []
    for path, lit in _phase_literals(tree):
        value = int(lit.value)
        place: list[Candidate] = []
        for other in choices.get(value, []):
            new = replace_at(tree, path, replace(lit, value=spec.enums[PHASE_ENUM].index(other)))
            effect = rule.effect[:number] + ((target, new),) + rule.effect[number + 1:]
            place.append((operator, rule.name, rule_ids_of(rule),
                          f"effect {target}: '{_member(spec, value)}' -> '{other}' ({says})",
                          partial(with_rule, spec, index, replace(rule, effect=effect)), None))
        places.append(place)
    yield from _in_turn(places)


def skip_phase(spec: Spec, index: int, rule: Rule) -> Iterator[Candidate]:
    """A move that leads past the step that should follow it, to a step that step leads
    to: the vote left out (a nomination straight to the elected government), a session
    that ends without its enactment, a power that is never used."""
    following, _ = _graph(spec)
    members = spec.enums[PHASE_ENUM]
    choices = {value: sorted(following[members[value]] - {members[value], rule.phase}, key=members.index)
               for value in range(len(members))}
    yield from _phase_places(spec, index, rule, "skip_phase", choices, "skips a step")


def earlier_phase(spec: Spec, index: int, rule: Rule) -> Iterator[Candidate]:
    """A move that leads back to a step before its own (a step that leads to it), so that
    step is played again: a second draw after the discard, a new nomination after the
    vote elected a government."""
    following, preceding = _graph(spec)
    members = spec.enums[PHASE_ENUM]
    back = sorted(preceding[rule.phase] - {rule.phase}, key=members.index)
    choices = {value: [phase for phase in back if phase != members[value] and phase not in following[members[value]]]
               for value in range(len(members))}     # a phase the skipped step leads to is `skip_phase`'s
    yield from _phase_places(spec, index, rule, "earlier_phase", choices, "goes back")


def repeat_step(spec: Spec, index: int, rule: Rule) -> Iterator[Candidate]:
    """One branch of a move that leaves the phase where it was, so the same step is made
    again: a rejected government whose vote is held again instead of passing candidacy
    on. Only for a phase expression with branches: where it is one literal, leaving the
    phase where it was is `drop_effect`'s mutant of the phase assignment, already made."""
    found = _phase_tree(spec, rule)
    if found is None or isinstance(found[1], n.Lit):
        return
    members = spec.enums[PHASE_ENUM]
    choices = {value: [rule.phase] for value in range(len(members)) if members[value] != rule.phase}
    yield from _phase_places(spec, index, rule, "repeat_step", choices, "the step repeats")


def _neighbours_of(spec: Spec, node: n.Name, reading: str | None) -> list[n.Node]:
    """What a name may be misread as: the fields of its type declared next to it (one on
    each side) and, for a set of seats, all the seats; the definitions of its type next
    to it and, for a count of a set of seats, the number of players. `reading`: the
    definition being changed, which its neighbours must not read (a definition may not
    read itself)."""
    out: list[n.Node] = []
    if node.kind == "field":
        fields = [field for field in spec.fields if field.type == node.type]
        names = [field.name for field in fields]
        if node.name in names:
            near = _by_distance(names, node.name)
            at = names.index(node.name)
            sides = [name for name in near if names.index(name) < at][:1] + \
                [name for name in near if names.index(name) > at][:1]
            out += [n.Name(node.type, name, "field") for name in sides]
        if node.type == SEATS:
            out.append(n.Name(SEATS, "all_seats", "constant"))
    elif node.kind == "definition":
        names = [name for name, tree in spec.definitions.items() if tree.type == node.type
                 and (reading is None or (name != reading and reading not in _reads(spec, name)))]
        if node.name in names:
            at = names.index(node.name)
            out += [n.Name(node.type, name, "definition") for name in
                    names[max(0, at - 1):at] + names[at + 1:at + 2]]
        tree = spec.definitions.get(node.name)
        if isinstance(tree, n.Call) and tree.function == "count" and node.type == INT:
            out.append(n.Name(INT, "players", "constant"))
    return out


def _reads(spec: Spec, name: str) -> set[str]:
    """The definitions `name`'s definition reads, directly or through others, and itself."""
    seen = {name}
    stack = [spec.definitions[name]]
    while stack:
        for item in n.walk(stack.pop()):
            if isinstance(item, n.Name) and item.kind == "definition" and item.name not in seen:
                seen.add(item.name)
                stack.append(spec.definitions[item.name])
    return seen


def _misread(spec: Spec, tree: n.Node, reading: str | None = None) -> Iterator[tuple[n.Node, str]]:
    """Every tree with one name read as a neighbour, nearest first for each name."""
    seen: Counter[str] = Counter()
    for path, node in positions(tree):
        if isinstance(node, n.Name) and node.kind in ("field", "definition") and node.type.kind != "seat":
            seen[node.name] += 1
            which = f" (its read {seen[node.name]})" if seen[node.name] > 1 else ""
            for other in _neighbours_of(spec, node, reading):
                assert isinstance(other, n.Name)
                yield replace_at(tree, path, other), f"reads {other.name} for {node.name}{which}"


def neighbour_read(spec: Spec, index: int, rule: Rule) -> Iterator[Candidate]:
    """A field or definition read for its neighbour of the same type: the number of players
    for the number of the living, the living for all seats or for the investigated, the
    Liberal pile for the Fascist. (A seat read for another seat is operators.py's `seat`.)"""
    places: list[list[Candidate]] = []
    for number, requirement in enumerate(rule.requires):
        place: list[Candidate] = []
        for tree, what in _misread(spec, requirement.when):
            changed = rule.requires[:number] + (replace(requirement, when=tree),) + rule.requires[number + 1:]
            place.append(("neighbour_read", rule.name, (requirement.rule_id,), f"requirement: {what}",
                          partial(with_rule, spec, index, replace(rule, requires=changed)), None))
        places.append(place)
    for number, (target, tree) in enumerate(rule.effect):
        place = []
        for new, what in _misread(spec, tree):
            effect = rule.effect[:number] + ((target, new),) + rule.effect[number + 1:]
            place.append(("neighbour_read", rule.name, rule_ids_of(rule), f"effect {target}: {what}",
                          partial(with_rule, spec, index, replace(rule, effect=effect)), None))
        places.append(place)
    for number, (name, tree) in enumerate(rule.lets):
        place = []
        for new, what in _misread(spec, tree):
            lets = rule.lets[:number] + ((name, new),) + rule.lets[number + 1:]
            place.append(("neighbour_read", rule.name, rule_ids_of(rule), f"let {name}: {what}",
                          partial(with_rule, spec, index, replace(rule, lets=lets)), None))
        places.append(place)
    yield from _in_turn(places)


def neighbour_read_definitions(spec: Spec, users: dict[str, tuple[str, ...]]) -> Iterator[Candidate]:
    """`neighbour_read` in the definitions: each read for a neighbour, in every use at once."""
    for name, tree in spec.definitions.items():
        place: list[Candidate] = [("neighbour_read", f"definition {name}", users.get(name, ()), what,
                  partial(_with_definition, spec, name, new), None)
                 for new, what in _misread(spec, tree, name)]
        yield from _in_turn([place])


def _with_definition(spec: Spec, name: str, tree: n.Node) -> Spec:
    return replace(spec, definitions={**spec.definitions, name: tree})


def move_effect(spec: Spec, index: int, rule: Rule) -> Iterator[Candidate]:
    """An assignment made by the step before or after the right one: dropped from this
    move and made by a rule of the step it leads to (or of a step leading to it) that
    writes no such field, e.g. the flags of a session reset when the next candidate
    nominates instead of when candidacy passes, or the tracker reset by the draw instead
    of the enactment. Only an expression the other rule can read (its parameters by name)
    is moved."""
    phase_name = _phase_field(spec)
    after = _leads_to(spec, rule)
    nearby = [other for other in range(len(spec.rules)) if other != index and spec.rules[other].phase in after]
    nearby += [other for other in range(len(spec.rules)) if other != index and other not in nearby
               and rule.phase in _leads_to(spec, spec.rules[other])]
    places: list[list[Candidate]] = []
    for number, (target, tree) in enumerate(rule.effect):
        if target == phase_name:
            continue
        wanted = {(item.name, item.kind) for item in n.walk(tree)
                  if isinstance(item, n.Name) and item.kind in ("param", "let")}
        place: list[Candidate] = []
        for other in nearby:
            receiver = spec.rules[other]
            if target in {written for written, _ in receiver.effect}:
                continue
            has = {(param.name, "param") for param in receiver.params} | {(name, "let") for name, _ in receiver.lets}
            if not wanted <= has:
                continue
            kept = rule.effect[:number] + rule.effect[number + 1:]
            changed = {index: replace(rule, effect=kept),
                       other: replace(receiver, effect=receiver.effect + ((target, tree),))}
            place.append(("move_effect", rule.name, _both_ids(rule, receiver),
                          f"effect {target} = {clip(show(tree), 40)} moved to {receiver.name}",
                          partial(with_rules, spec, changed), None))
        places.append(place)
    yield from _in_turn(places)


def _both_ids(first: Rule, second: Rule) -> tuple[str, ...]:
    ids = list(rule_ids_of(first))
    ids += [rule_id for rule_id in rule_ids_of(second) if rule_id not in ids]
    return tuple(ids)


def _domains(spec: Spec, param: Param) -> Iterator[tuple[Domain, str]]:
    """A parameter's domain widened and narrowed: a subset of another set of seats (all of
    them, or a field's); a range one longer or shorter at either end; a tile sequence one
    tile longer or shorter."""
    domain = param.domain
    one = n.Lit(INT, 1)
    if domain.kind == "subset" and domain.of is not None:
        sets = [n.Name(field.type, field.name, "field") for field in spec.fields if field.type == SEATS]
        for other in sets + [n.Name(SEATS, "all_seats", "constant")]:
            if other != domain.of:
                yield replace(domain, of=other, text=f"subset({other.name})"), f"subset({other.name})"
    elif domain.kind == "range" and domain.low is not None and domain.high is not None:
        low, high = domain.low, domain.high
        for new_low, new_high, how in ((low, n.Binary(INT, "+", high, one), "widened"),
                                       (n.Binary(INT, "-", low, one), high, "widened"),
                                       (low, n.Binary(INT, "-", high, one), "narrowed"),
                                       (n.Binary(INT, "+", low, one), high, "narrowed")):
            text = f"{show(new_low)}..{show(new_high)}"
            yield replace(domain, low=new_low, high=new_high, text=text), f"{text} ({how})"
    elif domain.kind == "tiles" and domain.length is not None:
        for op, how in (("+", "widened"), ("-", "narrowed")):
            length = n.Binary(INT, op, domain.length, one)
            yield replace(domain, length=length, text=f"tiles({show(length)})"), f"tiles({show(length)}) ({how})"


def param_domain(spec: Spec, index: int, rule: Rule) -> Iterator[Candidate]:
    """A parameter chosen from a wider or narrower domain than the rulebook's: the dead
    voting (a Ja list from all seats, not the living), a draw that can never hold three
    Fascist tiles, a peek at two tiles or four."""
    places: list[list[Candidate]] = []
    for number, param in enumerate(rule.params):
        place: list[Candidate] = []
        for domain, text in _domains(spec, param):
            params = rule.params[:number] + (replace(param, domain=domain),) + rule.params[number + 1:]
            place.append(("param_domain", rule.name, rule_ids_of(rule),
                          f"parameter {param.name}: {param.domain.text} -> {text}",
                          partial(with_rule, spec, index, replace(rule, params=params)), None))
        places.append(place)
    yield from _in_turn(places)


def _acting(spec: Spec) -> list[n.Name]:
    """The seats that act in some rule (the President, the Chancellor), in the order the
    rules first name them."""
    out: list[n.Name] = []
    for rule in spec.rules:
        seat = rule.actor_seat
        if isinstance(seat, n.Name) and seat.kind == "field" and all(seat.name != o.name for o in out):
            out.append(seat)
    return out


def _swapped(tree: n.Node, first: n.Name, second: n.Name) -> n.Node:
    """`tree` with every read of the one seat made a read of the other, both ways at once."""
    swap = {first.name: second, second.name: first}
    for path, node in positions(tree):
        if isinstance(node, n.Name) and node.kind == "field" and node.name in swap:
            tree = replace_at(tree, path, swap[node.name])
    return tree


def _one_seat_read(parts: tuple[Requirement, ...] | tuple[tuple[str, n.Node], ...], first: n.Name,
                   second: n.Name) -> bool:
    """Whether the requirements or effect read the two seats once in all, as a seat that
    may stand for the other (`seat` of operators.py already makes that one change)."""
    trees = [part.when if isinstance(part, Requirement) else part[1] for part in parts]
    reads = [item for tree in trees for item in n.walk(tree) if isinstance(item, n.Name) and item.kind == "field"
             and item.name in (first.name, second.name)]
    if len(reads) != 1:
        return False
    other = second if reads[0].name == first.name else first
    return not (other.type.optional and not reads[0].type.optional)


def swap_roles(spec: Spec, index: int, rule: Rule) -> Iterator[Candidate]:
    """The President and the Chancellor swapped: in who makes this move alone (where
    `seat` does not already make that change), in who makes this move and the one after
    it (the Chancellor discards and the President enacts; the President proposes the veto
    and the Chancellor agrees), in what this move's requirements or its effect read (the
    Chancellor recorded as the last President and the President as the last Chancellor)."""
    acting = _acting(spec)
    out: list[Candidate] = []
    ids = rule_ids_of(rule)
    for number, first in enumerate(acting):
        for second in acting[number + 1:]:
            pair = f"{first.name} <-> {second.name}"
            seat = rule.actor_seat
            if isinstance(seat, n.Name) and seat.name in (first.name, second.name):
                other = second if seat.name == first.name else first
                if other.type.optional and not seat.type.optional:
                    out.append(("swap_roles", rule.name, (rule.actor_rule,), f"actor: {seat.name} -> {other.name}",
                                partial(with_rule, spec, index, replace(rule, actor_seat=other,
                                                                        actor_text=other.name)), None))
                for later, receiver in enumerate(spec.rules):
                    theirs = receiver.actor_seat
                    if later == index or receiver.phase not in _leads_to(spec, rule) or not isinstance(theirs, n.Name) \
                            or theirs.name != other.name:
                        continue
                    if later < index and rule.phase in _leads_to(spec, receiver):
                        continue        # the same pair, made when `receiver` was the first of the two
                    changed = {index: replace(rule, actor_seat=other, actor_text=other.name),
                               later: replace(receiver, actor_seat=seat, actor_text=seat.name)}
                    out.append(("swap_roles", rule.name, _both_ids(rule, receiver),
                                f"actors of {rule.name} and {receiver.name} swapped ({pair})",
                                partial(with_rules, spec, changed), None))
            requires = tuple(replace(r, when=_swapped(r.when, first, second)) for r in rule.requires)
            if requires != rule.requires and not _one_seat_read(rule.requires, first, second):
                out.append(("swap_roles", rule.name, ids, f"requirements read {pair} swapped",
                            partial(with_rule, spec, index, replace(rule, requires=requires)), None))
            effect = tuple((target, _swapped(tree, first, second)) for target, tree in rule.effect)
            if effect != rule.effect and not _one_seat_read(rule.effect, first, second):
                out.append(("swap_roles", rule.name, ids, f"effect reads {pair} swapped",
                            partial(with_rule, spec, index, replace(rule, effect=effect)), None))
    yield from _in_turn([out])


RULE_OPERATORS = (redirect_effect, skip_phase, earlier_phase, repeat_step, neighbour_read, move_effect,
                  param_domain, swap_roles)


def escaped_candidates(spec: Spec, users: dict[str, tuple[str, ...]]) -> Iterator[Candidate]:
    """Every mutant of the operators of this module, unordered by operator (operators.py
    numbers them): per rule in file order, then the definitions (`users`: the rule IDs
    reading each)."""
    if PHASE_ENUM not in spec.enums:
        return
    for index, rule in enumerate(spec.rules):
        for operator in RULE_OPERATORS:
            yield from operator(spec, index, rule)
    yield from neighbour_read_definitions(spec, users)
