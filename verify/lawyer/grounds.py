"""What an ad-hoc answer rests on, taken from its evidence rather than from its words.

- "yes": first the rules whose exception the answering move needed (a requirement
  `RULE or EXCEPTION` whose first part is false for that move, `record.permitting_rule_ids`:
  R-E4 lets the last President be nominated Chancellor with five alive), then the rules
  of the moves of the witness game that made the values the question is about (a
  dependency slice, `record.witness_rule_ids`), with the answering move's;
- "no": the requirements in the unsat cores of the solver's induction proof for each
  player count (verify/smt/core.py): what blocked every move that would have reached it
  (for a proof with inferred invariants, made in this process, with those in the support);
  for a count whose proof is a complete explicit search that the one-step induction does
  not match, the requirements that blocked the moves into the question on that search's
  frontier (verify/explicit/frontier.py), the line saying which of the two it is;
- otherwise (neither gives one: the question needs several forbidden moves in a row,
  or the cores or the frontier took too long; or the answer is unknown): the rules that
  write the fields the query reads, and `grounds` says so, so that a list read off the
  question is never presented as read off a proof.

A catalogue entry keeps the rule IDs the catalogue gives it. A proof made in the prover
process (verify/lawyer/ask.py, `Prover`) has its cores taken there too, where the solver's
support is already built: in this process it would be built again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from spec.properties import Property

from ..budgets import CORE_SECONDS, CORES_WAIT_SECONDS, FRONTIER_SECONDS, INFERRED_CORES_SECONDS
from ..results import PropertyResult
from ..rules import Rules
from .answers import happens
from .record import answer_tags, permitting_rule_ids, query_fields, rule_order, witness_rule_ids

WITNESS, PROOF, SEARCH, PROOF_AND_SEARCH, FIELDS = "witness", "proof", "search", "proof_search", "fields"
"""Where "Rests on" came from: the witness game, the proof's cores, the blocked moves of a
complete search, cores for some counts and a search for others, the fields read."""

Frontier = Callable[[float], "tuple[str, ...] | None"]
"""The requirements that blocked every move into a question in a complete search, within
the seconds given (None: out of time; () none single move would have reached it); kept
until "Rests on" is known to need it (verify/lawyer/ask.py `search`)."""



def _smt_cores() -> Any:
    """verify.smt.core's `proof_rule_ids`, or None without the Z3 backend."""
    # Imported on use: verify.smt imports z3, which a "yes" never needs.
    try:
        from ..smt.core import proof_rule_ids
    except ImportError:  # pragma: no cover - the package is part of the project
        return None
    return proof_rule_ids







def proof_cores(prop: Property, players: int, rules: Rules, infer: bool = False,
                seconds: float = CORE_SECONDS) -> tuple[str, ...] | None:
    """The rule IDs of the proof that `prop` never happens at `players` (its unsat cores),
    or None without the Z3 backend or such a proof (or past `seconds`); with `infer`, of
    the proof made with inferred invariants in this process (verify/smt/core.py)."""
    cores = _smt_cores()
    if cores is None:
        return None
    spec = rules.game(players).spec
    found: tuple[str, ...] | None = cores(spec, prop, players, seconds, infer=infer)
    return found


def proved_with_inferred(result: PropertyResult) -> bool:
    """Whether the count's proof used invariants inferred from played games (its note says so)."""
    evidence = result.verdict.evidence
    return evidence.method == "k-induction" and "inferred" in evidence.note


def rests_on(prop: Property, results: tuple[PropertyResult, ...], rules: Rules,
             known: dict[int, tuple[str, ...]] | None = None,
             frontiers: dict[int, Frontier] | None = None,
             inferred_seconds: float = CORE_SECONDS) -> tuple[tuple[str, ...], str] | None:
    """The rule IDs the answer rests on and where they came from (WITNESS, PROOF, SEARCH or
    PROOF_AND_SEARCH), or None when the evidence gives none (the caller falls back to the
    fields read). A count's cores are taken first (`known`, else the solver now, within
    `inferred_seconds` for a proof with inferred invariants made in this process); where
    the one-step induction gives none, a complete search's frontier (`frontiers`)."""
    witness = next((r for r in results if happens(r.verdict)), None)
    if witness is not None:
        trace = getattr(witness.verdict, "trace", None)
        if trace is None or not trace.steps:
            return None
        answer = len(trace.steps) - 1
        tags = answer_tags(trace, query_fields(prop, trace.game.spec), answer)
        permitting = permitting_rule_ids(trace, answer)
        others = witness_rule_ids(trace, prop, answer, tags)
        return (*permitting, *(rule_id for rule_id in others if rule_id not in permitting)), WITNESS
    if not results or any(happens(r.verdict) is None for r in results):
        return None
    ids: set[str] = set()
    sources: set[str] = set()
    for result in results:
        found = (known or {}).get(result.players) or proof_cores(prop, result.players, rules)
        if not found and proved_with_inferred(result):
            found = proof_cores(prop, result.players, rules, infer=True, seconds=inferred_seconds)
        source = PROOF
        frontier = (frontiers or {}).get(result.players)
        if not found and frontier is not None:
            found, source = frontier(FRONTIER_SECONDS), SEARCH
        if not found:
            return None
        ids |= set(found)
        sources.add(source)
    return tuple(sorted(ids, key=rule_order)), sources.pop() if len(sources) == 1 else PROOF_AND_SEARCH
