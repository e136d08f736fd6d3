"""The answers of the rules lawyer: what `shrules ask` found, before it is put into words.

A question is answered in one of three ways: `FormalAnswer` (a `sometimes`/`never` query
decided per player count by the checkers, verify/lawyer/ask.py), `TextAnswer` (read from
the rule text, with what the spec can check about it) or `PositionAnswer` (a move ruled
on in the table's position, verify/lawyer/position.py). Each says yes, no or why not
(`verdict`), and a catalogue entry's answer is compared with its expected one
(`as_expected`). The deciding (ask.py) and the words (words.py) both build on these types;
the words never import the deciding, so the two cannot import each other in a circle.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.trace import Trace
from spec.disputes import Dispute
from spec.properties import Property

from ..results import Proved, PropertyResult, Refuted, Unwitnessed, Verdict, Witnessed
from .position import Ruling

YES, NO, UNKNOWN = "yes", "no", "unknown"


def happens(verdict: Verdict) -> bool | None:
    """Whether a verdict shows the queried thing happening (None: undecided)."""
    if isinstance(verdict, (Witnessed, Refuted)):
        return True
    if isinstance(verdict, (Proved, Unwitnessed)):
        return False
    return None


@dataclass(frozen=True, slots=True)
class FormalAnswer:
    """The answer to a sometimes/never query: a result per player count searched."""

    query: Property
    rule_ids: tuple[str, ...]
    results: tuple[PropertyResult, ...]
    not_searched: dict[int, str] = field(default_factory=dict)   # count -> why not
    dispute: Dispute | None = None
    grounds: str = ""   # where rule_ids came from (verify/lawyer/grounds.py); "" for the catalogue's

    @property
    def verdict(self) -> str:
        """yes (a game where it happens), no (proved for every count), or unknown."""
        outcomes = [happens(r.verdict) for r in self.results]
        if any(outcomes):
            return YES
        if outcomes and all(o is False for o in outcomes) and not self.not_searched:
            return NO
        return UNKNOWN

    @property
    def witness(self) -> PropertyResult | None:
        """The result whose trace shows the thing happening, if any."""
        return next((r for r in self.results if happens(r.verdict)), None)

    @property
    def game(self) -> Trace | None:
        """The shortest game where the thing happens, if one was found."""
        witness = self.witness
        return None if witness is None else getattr(witness.verdict, "trace", None)


@dataclass(frozen=True, slots=True)
class TextAnswer:
    """An answer read from the rule text, with what the spec could check about it.

    Each check (a count the rules refuse, a rule or a field nothing reveals) holds when the
    thing asked about cannot happen, so with checks the spec gives the answer: no if every
    check holds, yes if one fails. Without checks the answer is the rule text's, as the
    catalogue states it, and nothing here can find it wrong."""

    dispute: Dispute
    checks: tuple[tuple[str, bool], ...]       # (what was checked, whether it holds)
    checks_de: tuple[str, ...] = ()            # what was checked, in German, check by check

    @property
    def rule_ids(self) -> tuple[str, ...]:
        """The rule IDs the answer rests on."""
        return self.dispute.rule_ids

    @property
    def verdict(self) -> str:
        """no / yes from the spec's checks, or the catalogue's answer when there are none."""
        if not self.checks:
            return self.dispute.answer
        return NO if all(holds for _, holds in self.checks) else YES


@dataclass(frozen=True, slots=True)
class PositionAnswer:
    """Whether a move is legal in the position a partial game reached."""

    ruling: Ruling
    dispute: Dispute | None = None

    @property
    def rule_ids(self) -> tuple[str, ...]:
        """The catalogue's rule IDs for an entry, else those of the ruling."""
        return self.dispute.rule_ids if self.dispute is not None else self.ruling.rule_ids

    @property
    def verdict(self) -> str:
        """yes (legal in every consistent position), no (illegal in every one), or depends."""
        return {"legal": YES, "illegal": NO}.get(self.ruling.verdict, self.ruling.verdict)


Answer = FormalAnswer | TextAnswer | PositionAnswer


def other_count(answer: Answer) -> int | None:
    """The count that decides a catalogue entry when the answer was asked at other counts
    only (`ask ID -n 6` of an entry about a power that exists from 7 players): a "no" there
    may be right, so the answer is not held to the entry's expected one. None otherwise."""
    dispute = answer.dispute
    if not isinstance(answer, FormalAnswer) or dispute is None or dispute.decides is None:
        return None
    searched = {result.players for result in answer.results} | set(answer.not_searched)
    return dispute.decides if searched and dispute.decides not in searched else None


def as_expected(answer: Answer) -> bool | None:
    """Whether a catalogue entry got its expected answer (None: undecided or not an entry)."""
    if answer.dispute is None or answer.verdict not in (YES, NO) or other_count(answer) is not None:
        return None
    if isinstance(answer, PositionAnswer) and answer.verdict == NO:
        forbidding = {rule_id for rule_id, _ in answer.ruling.reasons}
        if not forbidding <= set(answer.dispute.rule_ids):
            return False
    return answer.verdict == answer.dispute.answer
