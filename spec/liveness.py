"""Which fields can still matter, phase by phase: the live fields of a rule set.

A field is *live* at a phase when some game from a state of that phase may read it before
it is written again: a rule of the phase reads it (a requirement, a let, a weight, the
actor, a parameter's domain, what it reveals or draws), or a rule of the phase leaves it
unwritten and it is live at a phase that rule may go to. Everything else is *dead* there:
stale bookkeeping (the President's hand after the discard, the power after it is used)
that no later move can see. This is the classical backward data-flow analysis of compilers
(live variables), run over the phase graph the rules' `phase` assignments draw.

Why it matters: two states of a phase that agree on the live fields have the same games
from there on — the same legal moves, reveals, odds and outcomes, and successors that
again agree on the live fields of their phase. So a search comparing games may forget the
dead fields (the product search of `shrules diff` keys pairs without them), and a change
to a rule that only writes a different value into a field dead where the move goes
changes no game (the solver's equivalence of one changed rule compares live fields only).

The analysis over-approximates, as soundness needs: a `phase` assignment that is not a
literal (or a conditional of literals) may go to any phase, and every read counts.
"""

from __future__ import annotations

from collections.abc import Iterable

from .lang import nodes as n
from .model import Rule, Spec

OUTCOME_FIELDS = ("phase", "winner", "how")
"""Read by the game itself at every phase: whose move it is, and the result once over."""


def rule_nodes(rule: Rule) -> list[n.Node]:
    """The expressions that decide a rule's legality and effect (not its messages):
    requirements, lets, effects' right-hand sides, weight, actor, parameter domains."""
    nodes: list[n.Node] = [req.when for req in rule.requires]
    nodes += [node for _, node in rule.lets]
    nodes += [node for _, node in rule.effect]
    if rule.weight is not None:
        nodes.append(rule.weight)
    if rule.actor_seat is not None:
        nodes.append(rule.actor_seat)
    for param in rule.params:
        for part in (param.domain.of, param.domain.low, param.domain.high, param.domain.length):
            if part is not None:
                nodes.append(part)
    return nodes


def rule_reads(rule: Rule, spec: Spec) -> set[str]:
    """Every field a rule reads: what decides its legality and effect, what it reveals
    and what it draws (through the definitions they use)."""
    roots: list[n.Node | None] = [*rule_nodes(rule), *(node for _, node in rule.reveals), rule.draws]
    return n.fields_read(roots, spec.definitions)


def successor_phases(rule: Rule, spec: Spec) -> frozenset[str]:
    """The phases a move of `rule` may lead to: the literals its `phase` assignment can
    take (through conditionals), its own phase when it assigns none, every phase when the
    assignment is anything else."""
    phases = spec.enums["phase"]
    node = dict(rule.effect).get("phase")
    if node is None:
        return frozenset({rule.phase})
    values = _literal_values(node)
    if values is None or any(not 0 <= value < len(phases) for value in values):
        return frozenset(phases)
    return frozenset(phases[value] for value in values)


def _literal_values(node: n.Node) -> set[int] | None:
    if isinstance(node, n.Lit) and not isinstance(node.value, bool):
        return {node.value}
    if isinstance(node, n.IfElse):
        then, otherwise = _literal_values(node.then), _literal_values(node.otherwise)
        return None if then is None or otherwise is None else then | otherwise
    return None


def live_fields(spec: Spec, extra: Iterable[Rule] = ()) -> dict[str, frozenset[str]]:
    """The live fields of every phase (the fixpoint of the backward analysis). `extra`
    rules count as further rules of their phases: a changed rule and the rule it changes
    analysed together, so the result holds for both rule sets."""
    phases = spec.enums["phase"]
    rules = list(spec.rules) + list(extra)
    fields = frozenset(f.name for f in spec.fields)
    facts = [(rule.phase, frozenset(rule_reads(rule, spec)) & fields, frozenset(name for name, _ in rule.effect),
              successor_phases(rule, spec)) for rule in rules]
    always = frozenset(OUTCOME_FIELDS) & fields
    live: dict[str, frozenset[str]] = {phase: always for phase in phases}
    changed = True
    while changed:
        changed = False
        for phase in phases:
            found = set(live[phase])
            for rule_phase, reads, writes, successors in facts:
                if rule_phase != phase:
                    continue
                found |= reads
                for successor in successors:
                    found |= live[successor] - writes
            if len(found) > len(live[phase]):
                live[phase] = frozenset(found)
                changed = True
    return live


def dead_fields(spec: Spec, extra: Iterable[Rule] = ()) -> dict[str, frozenset[str]]:
    """The fields no game from a state of each phase can see before they are written."""
    names = frozenset(f.name for f in spec.fields)
    return {phase: names - live for phase, live in live_fields(spec, extra).items()}
