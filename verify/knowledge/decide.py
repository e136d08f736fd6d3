"""A question with knows() decided for one player count: a verdict like any query's.

Two ways, both exact:

- *a fact known to all* (`reduced`): a question `C and not knows(every(X), E)` whose other
  parts C and whose seats X are public, E a fact of the game (not of the knower), holds in a
  game exactly when some reachable state has C, a seat in X, and not E. A seat in X fails
  to know E at a belief exactly when a state of its belief has not E; every state of a
  belief is reached by a game the seat cannot tell from the real one, and C and X read the
  same in all of them. So the question is the state question `C and not E and count(X) > 0`,
  (in a phase where someone moves) which the checkers decide (completely at 5 players, and by the solver at every count),
  its shortest game the same game. The state question is asked only where a belief can be:
  not in a phase of the game's forced moves, which follow the move before at once. R-E10's "known by all not to be Hitler" is of this kind.
- *the beliefs* (`search.py`): every other question, over the beliefs of the knower.

Verdicts as for any query (verify/results.py): for `sometimes`, a witness game or none;
for `never`, a counterexample or a proof; a limit gives `Unknown`, never "no".
"""

from __future__ import annotations


from spec.knowledge import atoms
from spec.lang import nodes as n
from spec.lang.check import KNOWER
from spec.lang.types import BOOL, INT, Type
from spec.model import Spec
from spec.properties import Property

from ..clock import Budget as Clock
from ..budgets import KNOWLEDGE_SECONDS
from ..budgets import KNOWLEDGE_BELIEFS
from ..results import Evidence, Proved, PropertyResult, Refuted, Unknown, Unwitnessed, Verdict, Witnessed, played
from ..rules import Rules
from .question import Question
from .search import Found, Searched, search

METHOD = "beliefs"
"""The evidence's method: a search of a seat's beliefs."""


def reduced(prop: Property, spec: Spec) -> Property | None:
    """The state question equivalent to a question about a fact known to all (module
    docstring), or None when the question is not of that kind."""
    node = prop.state
    if node is None:
        return None
    conjuncts = node.operands if isinstance(node, n.BoolOp) and node.op == "and" else (node,)
    public = {field.name for field in spec.fields if field.seen == "public"}
    plain: list[n.Node] = []
    unknown: list[n.Call] = []
    for conjunct in conjuncts:
        if isinstance(conjunct, n.Unary) and conjunct.op == "not" and isinstance(conjunct.operand, n.Call) \
                and conjunct.operand.function == "knows":
            unknown.append(conjunct.operand)
        elif atoms(conjunct):
            return None
        else:
            plain.append(conjunct)
    if len(unknown) != 1:
        return None
    who, what = unknown[0].args
    assert isinstance(who, n.Call)
    (seats,) = who.args
    if who.function != "every" or seats.type.kind != "seats":
        return None
    if any(isinstance(item, n.Name) and item.name == KNOWER for item in n.walk(what)):
        return None
    if not n.fields_read([*plain, seats], spec.definitions) <= public:
        return None
    someone = n.Compare(BOOL, ">", n.Call(INT, "count", (seats,)), n.Lit(INT, 0))
    state = n.BoolOp(BOOL, "and", (*plain, n.Unary(BOOL, "not", what), someone, _at_a_choice(spec)))
    return Property(prop.name, prop.kind, prop.description, prop.rule_ids, prop.players, prop.expect, state, None,
                    (), prop.text, prop.where, rules=prop.rules)


def _at_a_choice(spec: Spec) -> n.Node:
    """`phase in [...]`, the phases where a seat, the table or chance moves, the deal's
    aside: a belief is never in a phase of the game's forced moves, which happen at once
    (beliefs.py fuses them), and no question is asked before the deal (search.py)."""
    phases = spec.enums["phase"]
    forced = {rule.phase for rule in spec.rules if rule.actor == "game"}
    chosen = {rule.phase for rule in spec.rules if rule.actor != "game"}
    dealing = {rule.phase for rule in spec.rules if "deal" in rule.roles}
    chosen -= dealing
    forced |= dealing
    kind = Type("enum", "phase")
    items = tuple(n.Lit(kind, index) for index, name in enumerate(phases) if name in chosen or name not in forced)
    return n.Compare(BOOL, "in", n.Name(kind, "phase", "field"), n.ListLit(Type("list", elem=kind), items))


def decide_count(prop: Property, players: int, rules: Rules, seconds: float = KNOWLEDGE_SECONDS,
                 max_beliefs: int = KNOWLEDGE_BELIEFS, max_depth: int | None = None) -> PropertyResult:
    """The question for one player count under the rules, over the knower's beliefs."""
    assert prop.state is not None
    game = rules.game(players)
    question = Question(game, prop.state)
    found = search(game, question, Clock.started(seconds), max_beliefs, max_depth)
    return PropertyResult(prop.name, players, prop.kind, prop.rule_ids, prop.expect, verdict_of(prop, found))


def verdict_of(prop: Property, found: Searched) -> Verdict:
    """The search's outcome as a verdict of the query's kind."""
    merged = "merged by what the question reads, " if found.merged else ""
    note = (f"{found.beliefs:,} beliefs ({merged}{found.states:,} states expanded) to depth {found.depth}"
            + ("" if found.seat is None else f"; the knower: seat {found.seat + 1}"))
    evidence = Evidence(METHOD, found.states, None, found.depth, found.seconds, note)
    if found.status is Found.UNKNOWN:
        return Unknown(evidence, f"the search of the beliefs stopped: {found.reason}")
    if prop.kind == "sometimes":
        return Witnessed(evidence, played(found.trace), lower_bound=found.lower_bound) if found.status is Found.FOUND \
            else Unwitnessed(evidence)
    if found.status is Found.FOUND:
        return Refuted(evidence, played(found.trace), "the question holds in this game", lower_bound=found.lower_bound)
    return Proved(evidence)
