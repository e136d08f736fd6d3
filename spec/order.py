"""The rulebook's order of play as data: an automaton over the moves, checked by a monitor.

The catalogue (spec/properties.toml, `[order_of_play]`) lists the stages of a game and,
for each, the moves the rulebook lets follow and the stage each leads to, citing the rule
ID that says so. A move is named by its table word (`nominate`, `draw`, ...; spec/moves.py)
or, where one word has several outcomes the rulebook tells apart (the vote elects or
rejects) or the move is the game's own step (candidacy passing on, a win), by its rule's
name, as a move property's `on` does.

The automaton is compiled, as a temporal query is (spec/temporal.py), into a monitor: one
field, `order_of_play`, the number of the stage (in the catalogue's order; stage i left is
the number of stages plus i), and one assignment per rule that reads only the field
itself and *which rule fired*: never the rules' phases, fields or definitions, so a rule
that skips, repeats or goes back moves the monitor off the automaton however the rules
describe their own phases. A move the stage does not list (or a rule the automaton does
not know: a variant's new move) takes the monitor to "STAGE left" and keeps it there.
Each stage gives two properties whose rule IDs are those of its moves:
`order_after_STAGE` ("never left from STAGE": what may follow), refuted by the shortest
game whose last move is the one that came instead of what the rulebook expects, and
`order_goes_on_after_STAGE` (an `allows`: one of the moves it lists may be played, what
must follow), refuted by the shortest game reaching the stage where none may. The game's
end (`ends`) has only the first: nothing more is played.

The monitored rules are registered as an overlay of the rules checked
(`spec.loader.register_overlay`), so every backend explores or encodes them like any
variant; the order properties carry that name as their `rules`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .errors import Location, SpecError, read_toml
from .lang import nodes as n
from .lang.check import Scope, parse
from .lang.types import INT
from .loader import register_overlay
from .model import Field, Spec
from .moves import table_words

FIELD = "order_of_play"
"""The monitor's field: the stage of the game in the rulebook's order of play."""
PROPERTY_PREFIX = "order_after_"
GOES_ON_PREFIX = "order_goes_on_after_"
"""The obligations: after each stage with moves, one of them is legal (the game does not
stop, or take a way of its own, where the rulebook goes on)."""
SAYS = "says"
"""An order entry's key for what its verdicts say in words (the expression is a number)."""
LABEL = "order"


@dataclass(frozen=True, slots=True)
class Step:
    """One transition: from `stage`, the moves `moves` (words or rule names) lead to `to`."""

    stage: str
    moves: tuple[str, ...]
    to: str
    rule_id: str


@dataclass(frozen=True, slots=True)
class Automaton:
    """The order of play: its first stage, its stages (with what each means) and steps."""

    start: str
    stages: dict[str, str]
    steps: tuple[Step, ...]
    ends: dict[str, str]          # stages after which the rulebook has no move, with its rule ID

    def out_of(self, stage: str) -> tuple[Step, ...]:
        """The steps leaving `stage`, in the catalogue's order."""
        return tuple(step for step in self.steps if step.stage == stage)


def load_automaton(data: dict[str, Any], spec: Spec, where: Location) -> Automaton | None:
    """The `[order_of_play]` of a property file, checked (None when it has none): every
    stage named is declared, every step cites a rule ID of RULES.md, and no stage has two
    steps for one move (the automaton is deterministic)."""
    table = data.get("order_of_play")
    if table is None:
        return None
    if not isinstance(table, dict) or not isinstance(table.get("stages"), dict) or \
            not isinstance(table.get("steps"), list):
        raise SpecError("[order_of_play] has start = \"stage\", stages = { stage = \"what it means\" } and "
                        "steps = [{ from, moves, to, rule }, ...]", where)
    stages = {str(k): str(v) for k, v in table["stages"].items()}
    for name in stages:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
            raise SpecError(f"order_of_play stage {name!r}: a stage is lower_case_with_underscores", where)
    start = str(table.get("start", ""))
    if start not in stages:
        raise SpecError(f"order_of_play: start {start!r} is not a stage", where)
    steps: list[Step] = []
    for entry in table["steps"]:
        if not isinstance(entry, dict) or set(entry) != {"from", "moves", "to", "rule"}:
            raise SpecError("an order_of_play step is { from = \"stage\", moves = [\"word or rule\"], "
                            "to = \"stage\", rule = \"R-..\" }", where)
        stage, to, rule_id = str(entry["from"]), str(entry["to"]), str(entry["rule"])
        for name in (stage, to):
            if name not in stages:
                raise SpecError(f"order_of_play step: {name!r} is not a stage", where)
        if rule_id not in spec.rulebook:
            raise SpecError(f"order_of_play step from {stage!r}: {rule_id!r} is not a rule ID of RULES.md", where)
        moves = entry["moves"]
        if not isinstance(moves, list) or not moves or not all(isinstance(m, str) for m in moves):
            raise SpecError(f"order_of_play step from {stage!r}: moves is a list of words or rule names", where)
        steps.append(Step(stage, tuple(moves), to, rule_id))
    ends = table.get("ends", {})
    if not isinstance(ends, dict):
        raise SpecError("order_of_play: ends = { stage = \"R-..\" } names the stages where the game is over", where)
    for stage, rule_id in ends.items():
        if stage not in stages or any(step.stage == stage for step in steps) or str(rule_id) not in spec.rulebook:
            raise SpecError(f"order_of_play: end {stage!r} must be a stage without steps and cite a rule ID", where)
    return Automaton(start, stages, tuple(steps), {str(k): str(v) for k, v in ends.items()})


def _rules_of(spec: Spec, move: str) -> tuple[str, ...]:
    """The rules a step's move names in `spec`: a table word's rules, or the rule of that
    name; none when the rules lack it (a variant removed it: the step cannot be taken)."""
    words = table_words(spec)
    if move in words:
        return words[move]
    return (move,) if any(rule.name == move for rule in spec.rules) else ()


def _next_stage(spec: Spec, automaton: Automaton, rule: str, where: Location) -> dict[str, str]:
    """For one rule, the stage each stage goes to when the rule fires (stages it may not
    follow are absent)."""
    out: dict[str, str] = {}
    for step in automaton.steps:
        if any(rule in _rules_of(spec, move) for move in step.moves):
            if step.stage in out and out[step.stage] != step.to:
                raise SpecError(f"order_of_play: rule '{rule}' leads from stage '{step.stage}' both to "
                                f"'{out[step.stage]}' and to '{step.to}'", where)
            out[step.stage] = step.to
    return out


def overlay(spec: Spec, automaton: Automaton, where: Location) -> dict[str, Any]:
    """The monitor as an overlay of `spec`: the field and each rule's assignment to it
    (reading the field alone). The field counts the stages from 0 in the catalogue's
    order, and stage i left is `len(stages) + i`: one comparison sends every stage a rule
    may not follow off the automaton, where a branch per stage cost the search of a whole
    rank of states at once a branch per stage and rule."""
    stages = list(automaton.stages)
    number = {stage: index for index, stage in enumerate(stages)}
    left = f"{FIELD} + {len(stages)} if {FIELD} < {len(stages)} else {FIELD}"
    effects = []
    for rule in spec.rules:
        nexts = _next_stage(spec, automaton, rule.name, where)
        parts = [f"{number[to]} if {FIELD} == {number[stage]}" for stage, to in nexts.items()]
        update = " else ".join([*parts, f"({left})"]) if parts else left
        effects.append({"name": rule.name, "effect": {FIELD: update}})
    return {"add": {"state": {FIELD: {"type": "int", "range": f"0..{2 * len(stages) - 1}",
                                      "init": str(number[automaton.start]), "seen": "public"}}},
            "rule": effects}


def stage_value(automaton: Automaton, stage: str, left: bool = False) -> int:
    """The monitor's value at `stage` (or, `left`, once a move has left it)."""
    index = list(automaton.stages).index(stage)
    return index + len(automaton.stages) if left else index


def monitored_rules(spec: Spec, base: str, automaton: Automaton, where: Location) -> str:
    """The name under which `load_spec` loads `spec` (loaded as `base`) with the monitor."""
    return register_overlay(base, overlay(spec, automaton, where), LABEL)


def with_monitor(spec: Spec, path: Path | None = None) -> Spec:
    """`spec`, rules built in memory (a mutant, verify/diff/mutate.py), with the monitor of
    the catalogue's order of play (`path`: spec/properties.toml) compiled into them: the
    same field and, for each of *its* rules, the same assignment `overlay` gives a variant
    loaded by name, type-checked as the loader checks an overlay's (it reads the field
    alone). Its catalogue (spec/properties.py `load_properties`) then asks the order
    properties of `spec` itself, so a rule set that skips, repeats or goes back a step
    is held to the rulebook's order like the rules (R-E1...R-W5, as each step cites).
    `spec` as it is when it has the monitor already, or the file has no order of play."""
    if is_monitored(spec):
        return spec
    from .properties import PROPERTIES_FILE     # properties imports this module inside a function
    file = path or PROPERTIES_FILE
    where = Location(str(file), None, "order_of_play")
    data, _ = read_toml(file)
    automaton = load_automaton(data, spec, where)
    if automaton is None:
        return spec
    written = overlay(spec, automaton, where)
    (entry,) = written["add"]["state"].values()
    low, high = (n.Lit(INT, int(bound)) for bound in str(entry["range"]).split(".."))
    field = Field(FIELD, INT, low, high, n.Lit(INT, int(entry["init"])), Location(where.file, None, f"state.{FIELD}"))
    scope = Scope({FIELD: ("field", INT)}, spec.enums)
    updates = {item["name"]: parse(str(item["effect"][FIELD]), scope, where, INT) for item in written["rule"]}
    rules = tuple(replace(rule, effect=(*rule.effect, (FIELD, updates[rule.name]))) for rule in spec.rules)
    return replace(spec, fields=(*spec.fields, field), rules=rules)


def is_monitored(spec: Spec) -> bool:
    """Whether `spec` already carries the order-of-play monitor."""
    return any(field.name == FIELD for field in spec.fields)


def own_properties(spec: Any, props: Any) -> tuple[Any, ...]:
    """The properties of `props` that read only `spec`'s own fields: those not over
    monitored rules (the order of play), unless `spec` is those rules. A search or a solver
    that takes properties for the rules it is given asks these; the others are decided on
    their own rules (verify/explicit/check.py, verify/smt/check.py) or left unknown."""
    return tuple(prop for prop in props if not prop.rules or prop.rules == spec.name or is_monitored(spec))


def order_entries(automaton: Automaton, spec: Spec) -> list[dict[str, Any]]:
    """One catalogue entry per stage with moves (or the game's end): "never left from this
    stage", with what it means in words under `SAYS` (taken out before the entry is read)."""
    out = []
    for stage, meaning in automaton.stages.items():
        steps = automaton.out_of(stage)
        if steps:
            options = [f"{' or '.join(step.moves)} ({step.rule_id})" for step in steps]
            said = options[0] if len(options) == 1 else ", ".join(options[:-1]) + f" or {options[-1]}"
            ids = list(dict.fromkeys(step.rule_id for step in steps))
            description = f"After {meaning}, the rulebook's next move is {said}, and no other"
            says = f"after {meaning} the next move is {said}"
        elif stage in automaton.ends:
            ids = [automaton.ends[stage]]
            description = f"After {meaning}, nothing more is played ({ids[0]})"
            says = f"after {meaning} nothing more is played ({ids[0]})"
        else:
            continue
        out.append({"name": f"{PROPERTY_PREFIX}{stage}", "kind": "always", "description": description,
                    "rules": ids, "state": f"{FIELD} != {stage_value(automaton, stage, left=True)}", SAYS: says})
        if steps:
            rules = list(dict.fromkeys(rule for step in steps for move in step.moves for rule in _rules_of(spec, move)))
            out.append({"name": f"{GOES_ON_PREFIX}{stage}", "kind": "allows",
                        "description": f"After {meaning}, a move the rulebook has next may be played: {said}",
                        "rules": ids, "state": f"{FIELD} == {stage_value(automaton, stage)}", "move": "True",
                        "on": rules, SAYS: f"after {meaning} one of {said} may be played"})
    return out


def entry_names(data: dict[str, Any]) -> list[str]:
    """The names of the order properties a property file's `[order_of_play]` gives (read
    without checking it), so a variant may set what it expects of them."""
    table = data.get("order_of_play")
    if not isinstance(table, dict) or not isinstance(table.get("stages"), dict):
        return []
    raw_steps, raw_ends = table.get("steps"), table.get("ends")
    steps: list[Any] = raw_steps if isinstance(raw_steps, list) else []
    ends: dict[str, Any] = raw_ends if isinstance(raw_ends, dict) else {}
    moving = {str(step.get("from")) for step in steps if isinstance(step, dict)}
    return [f"{PROPERTY_PREFIX}{stage}" for stage in table["stages"] if stage in moving or stage in ends] + \
        [f"{GOES_ON_PREFIX}{stage}" for stage in table["stages"] if stage in moving]
