"""The game record of a ruling: the witness game as the table would write it down.

A "yes" answer comes with the shortest game where the thing happens. Its record says:

- which move answers the question (`answer`): the last move of the witness, where the
  queried state is first reached or the queried move is made; its line is marked;
- how long the game is in moves at the table (`table_moves`): the printed move lines up to
  the answer. The quiet bookkeeping moves of the rules (spec/LANGUAGE.md, `quiet`) are not
  counted; they are printed only with `--changes`, marked as bookkeeping;
- for a question about an ending (it reads the fields only a win writes, or the phase the
  game ends in), the game to its end: when the witness stops before, the engine plays on
  with seeded random moves (the same every time), and the record says how many moves were
  played on after the answer, which are not part of it;
- for every move a player chooses, the requirement at issue (`choice_tags`);
- the rules the answer rests on, from the game itself (`witness_rule_ids`), first those
  whose exception the answering move was made under (`permitting_rule_ids`).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from random import Random
from typing import Any

from engine.game import MAX_MOVES, Game
from engine.pycompile import compile_in_rule
from engine.play import has_legal_move
from engine.trace import Row, Trace
from spec.loader import load_rulebook
from spec.lang.nodes import BoolOp, Lit, Name, Node, walk
from spec.model import Rule, Spec
from spec.properties import Property

from ..explicit.reductions import fields_read

PLAY_ON_SEED = 0
"""The seed of the moves played on after the answer of a question about an ending."""


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A witness game ready to print: its rows, the answering move and the counts."""

    rows: tuple[Row, ...]
    answer: int                 # the step of the move that answers the question
    answer_move: int            # its number among the moves at the table (1-based)
    table_moves: int            # moves at the table up to the answer, bookkeeping left out
    played_on: int              # moves at the table played on after the answer to the end
    elections: int
    permitted_by: tuple[str, ...] = ()   # the rules whose exception made the answering move legal


def query_fields(prop: Property, spec: Spec) -> set[str]:
    """The state fields the query reads, `after_X` as X (the phase included)."""
    return fields_read(prop.state if prop.state is not None else prop.move, spec)


def about_ending(prop: Property, game: Game) -> bool:
    """Whether the question is about how a game ends: it reads a field that only the moves
    ending the game write (the winner, how), or it names the phase the game ends in."""
    spec = game.spec
    ending = [rule for rule in spec.rules if _sets_phase(rule, game.over_phase)]
    only_at_end = {name for rule in ending for name, _ in rule.effect} - {"phase"}
    for rule in spec.rules:
        if rule not in ending:
            only_at_end -= {name for name, _ in rule.effect}
    nodes = _with_monitors(prop, spec)
    read: set[str] = set()
    for node in nodes:
        read |= fields_read(node, spec)
    if read & only_at_end:
        return True
    return any(isinstance(item, Lit) and item.type.enum == "phase" and item.value == game.over_phase
               for item in inlined(list(nodes), spec))


def _with_monitors(prop: Property, spec: Spec) -> list[Node]:
    """The query's expression and, for a temporal query, the updates of the monitor fields
    it reads (spec/temporal.py: fields every rule assigns), through the monitors they read."""
    node = prop.state if prop.state is not None else prop.move
    if node is None:
        return []
    monitors = set.intersection(*({name for name, _ in rule.effect} for rule in spec.rules)) - {"phase"} \
        if spec.rules else set()
    updates = dict(spec.rules[0].effect) if spec.rules else {}
    nodes = [node]
    followed: set[str] = set()
    waiting = fields_read(node, spec) & monitors
    while waiting:
        name = waiting.pop()
        followed.add(name)
        nodes.append(updates[name])
        waiting |= (fields_read(updates[name], spec) & monitors) - followed
    return nodes


def _sets_phase(rule: Rule, phase: int) -> bool:
    """Whether the rule's move puts the game in the phase numbered `phase`."""
    value = dict(rule.effect).get("phase")
    return isinstance(value, Lit) and value.type.enum == "phase" and value.value == phase


def inlined(nodes: list[Node | None], spec: Spec) -> list[Node]:
    """Every node of the expressions, the definitions they use expanded (None reads nothing)."""
    out: list[Node] = []
    stack = [item for item in nodes if item is not None]
    while stack:
        for item in walk(stack.pop()):
            out.append(item)
            if isinstance(item, Name) and item.kind == "definition":
                stack.append(spec.definitions[item.name])
    return out


def played_on(trace: Trace) -> Trace:
    """The trace played on to the end of the game by seeded random moves (a copy); the
    trace itself when no end comes within the engine's `MAX_MOVES` (rules that need not
    end), so a record never says it was played to an end it did not reach."""
    game = trace.game
    out = Trace(game, trace.start, list(trace.steps))
    rng = Random(PLAY_ON_SEED)
    state = out.end
    while not game.is_over(state) and has_legal_move(game, state) and len(out.steps) < MAX_MOVES:
        move = game.random_move(state, rng)
        if move is None:
            break
        state = game.apply(state, move)
        out.append(move, state)
    return out if game.is_over(state) else trace


def choice_tags(trace: Trace, read: set[str]) -> dict[int, tuple[str, ...]]:
    """For each move a seat chooses (a nomination, a discard, a target), the requirement at
    issue: of the requirements that ruled out another choice in that position (the first
    each other choice fails), those reading a field the query reads, else all of them; a
    move whose every other choice was legal cites the rule of its phase. A nomination is so
    tagged with the term limit only where a term limit kept a seat out, and with it alone
    when the question is about term limits."""
    game = trace.game
    out: dict[int, tuple[str, ...]] = {}
    before = trace.start
    for index, (move, after) in enumerate(trace.steps):
        compiled = game.by_name[move.rule]
        rule = compiled.rule
        if rule.actor not in ("chance", "game", "table") and rule.params:
            failing: dict[int, None] = {}
            for args in _choices(game, compiled, before):
                number = compiled.first_failure(before, *args)
                if number >= 0:
                    failing.setdefault(number, None)
            requirements = [rule.requires[number] for number in sorted(failing)]
            at_issue = [req for req in requirements if fields_read(req.when, game.spec) & read]
            chosen = at_issue or requirements
            ids = tuple(dict.fromkeys(req.rule_id for req in chosen))
            out[index] = ids or ((rule.phase_rule,) if rule.phase_rule else rule.cited)
        before = after
    return out


def answer_tags(trace: Trace, read: set[str], answer: int) -> dict[int, tuple[str, ...]]:
    """`choice_tags`, the answering move's led by the rules whose exception permitted it
    (`permitting_rule_ids`), so that its line cites what made it legal."""
    tags = choice_tags(trace, read)
    permitting = permitting_rule_ids(trace, answer)
    if permitting:
        move = trace.steps[answer][0]
        own = tags.get(answer) or trace.game.by_name[move.rule].rule.cited
        tags[answer] = tuple(dict.fromkeys((*permitting, *own)))
    return tags


def _choices(game: Game, compiled: Any, state: Any) -> list[tuple[int, ...]]:
    """Every choice of the move's parameters in `state`, legal or not."""
    return list(product(*(domain(state) for domain in compiled.domains)))


def rule_reads(rule: Rule, spec: Spec, written: set[str]) -> set[str]:
    """The fields a move of `rule` depends on for the fields `written`: its requirements and
    lets (whether it could be made), and the effects that computed those fields."""
    nodes: list[Node] = [req.when for req in rule.requires] + [node for _, node in rule.lets]
    nodes += [node for name, node in rule.effect if name in written]
    out: set[str] = set()
    for node in nodes:
        out |= fields_read(node, spec)
    return out


def witness_rule_ids(trace: Trace, prop: Property, answer: int, tags: dict[int, tuple[str, ...]]) -> tuple[str, ...]:
    """The rule IDs a "yes" rests on: a dependency slice of the witness backwards from the
    answering move. The answering move's rule is in; before it, a move is in when it changed
    a field still relevant, and then what it read to make that change and to be legal
    becomes relevant in place of what it wrote. Relevant at first: the fields the query
    reads and those the answering move read. A move "changed" a field it assigned, even to
    the value it had (the deal may make seat 0 Hitler, as before it); of the fields every
    move assigns (a temporal query's monitors), only those whose value changed.

    The phase is not followed: every move sets it, and following it would cite every rule
    of every move before the answer. So the slice says which rules made the values the
    question is about, not which rules let play reach that point; it never names a rule
    whose move the witness does not contain."""
    game = trace.game
    spec = game.spec
    names = [field.name for field in spec.fields]
    states = trace.states
    ids: dict[str, None] = {}
    relevant = query_fields(prop, spec) - {"phase"}
    every = set.intersection(*({name for name, _ in rule.effect} for rule in spec.rules)) if spec.rules else set()
    for index in range(answer, -1, -1):
        move, after = trace.steps[index]
        rule = game.by_name[move.rule].rule
        before = states[index]
        # What the move wrote: what it assigned (a deal may give Hitler the seat he had),
        # but of the fields every move assigns (a temporal query's monitors) only what changed.
        assigned = {name for name, _ in rule.effect} - every
        changed = {name for name, old, new in zip(names, before, after) if old != new or name in assigned}
        changed -= {"phase"}
        if index == answer or changed & relevant:
            used = changed & relevant if index != answer else changed
            ids.update(dict.fromkeys(tags.get(index) or rule.cited))
            relevant = (relevant - used) | (rule_reads(rule, spec, used) - {"phase"})
    return tuple(sorted(ids, key=rule_order))


def permitting_rule_ids(trace: Trace, answer: int) -> tuple[str, ...]:
    """The rule IDs whose exception the answering move was made under: of its rule's
    requirements written `RULE or EXCEPTION...` (R-E4: `chancellor != last_president or
    alive_count <= few_alive`), those whose first part, the rule, is false for this move, so
    that the move is legal only through an exception. These are the rules without which
    the move would be illegal, the argument an unsat core of "the move is illegal without
    them" gives; a "yes" names them first. A requirement met by its first part (or not an
    `or`) permitted nothing the plain rule would not."""
    if not 0 <= answer < len(trace.steps):
        return ()                           # true at the start: no move answers it
    game = trace.game
    move, _ = trace.steps[answer]
    rule = game.by_name[move.rule].rule
    before = trace.states[answer]
    ids: dict[str, None] = {}
    for requirement in rule.requires:
        when = requirement.when
        if not (isinstance(when, BoolOp) and when.op == "or"):
            continue
        plain = compile_in_rule(game.spec, game.players, rule, when.operands[0])
        if not plain(before, *move.args):
            ids[requirement.rule_id] = None
    return tuple(ids)


def rule_order(rule_id: str) -> tuple[int, str]:
    """The order of RULES.md (and of spec/rulebook.toml): setup, election, legislation,
    powers, veto, winning, disputes."""
    order = load_rulebook()
    return (list(order).index(rule_id), "") if rule_id in order else (len(order), rule_id)


def game_record(trace: Trace, prop: Property, changes: bool, lang: str = "en") -> GameRecord:
    """The record of a witness game (see the module docstring), its lines in `lang`."""
    game = trace.game
    answer = len(trace.steps) - 1
    full = played_on(trace) if about_ending(prop, game) and not game.is_over(trace.end) else trace
    read = query_fields(prop, game.spec)
    rows = tuple(full.rows(changes, bookkeeping=changes, tags=answer_tags(full, read, answer), shown=frozenset({answer}),
                           lang=lang))
    moves = [row for row in rows if row.kind == "move" and not row.bookkeeping]
    numbers = [row.step for row in moves]
    upto = sum(1 for step in numbers if step is not None and step <= answer)
    return GameRecord(rows, answer, upto, upto, len(moves) - upto, trace.elections(), permitting_rule_ids(trace, answer))
