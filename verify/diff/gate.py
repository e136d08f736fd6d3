"""The mutation gate: every mutant the catalogue is recorded to kill must still be killed.

A full mutation analysis takes hours; CI has minutes. The gate keeps what an analysis
found in a record (`reports/<rules>/mutation-<n>.json`): the mutants the catalogue killed
and what became of the others. In CI the random-games stage (seconds a mutant) is run
again on the mutants recorded as killed and on every mutant the record does not know
(the rules changed, so the operators made new ones); the mutants recorded as equivalent,
invalid or unknown are not run again. The gate fails when

- a mutant recorded as killed is no longer killed (a property was weakened or removed:
  the catalogue lost a rule), or
- a new mutant is not killed by random games (a rule the catalogue does not pin down yet,
  or a mutant for the complete stages of `shrules mutate` to decide),

each printed in one line with the game telling it apart from the rules where a short
product search finds one. Random games are seeded by the mutant's number, so a run is
reproducible; a kill that needs more games than the budget is reported, never hidden.

A mutant is named by its operator, rule and one-line description (`key`), the same in
every run of the same rules; the k-th mutant with a name already seen gets ` #k`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spec.errors import Location, SpecError
from spec.model import Spec

from ..budgets import EXPLAIN_RANDOM_SECONDS, EXPLAIN_SECONDS
from ..results import MutantStatus
from .compare import Budget, diff
from .mutate import Outcome, Run, difference_moves
from .operators import mutants

SCHEMA = "shrules-mutation-gate"
MAX_RECORD_BYTES = 8 * 2**20
"""A record is a list of names: anything larger is not one."""
EXPLAIN = Budget(max_pairs=200_000, seconds=EXPLAIN_SECONDS, random_games=500, random_seconds=EXPLAIN_RANDOM_SECONDS,
                 first_only=True)
"""The product search showing a failing mutant's game: short, it only illustrates."""


def names(base: Spec, operators: tuple[str, ...] | None = None) -> dict[int, str]:
    """The name of every mutant of `base` by number (see the module docstring), over all
    the mutants the operators run by default make (or `operators`: `("all",)` names the
    operators run only when asked for too, for a record of theirs), so that a filtered
    run names them alike. Those of the default operators come first, so their names are
    the same either way."""
    seen: dict[str, int] = {}
    out = {}
    for mutant in mutants(base, operators):
        name = f"{mutant.operator} {mutant.rule}: {mutant.description}"
        seen[name] = seen.get(name, 0) + 1
        out[mutant.number] = name if seen[name] == 1 else f"{name} #{seen[name]}"
    return out


@dataclass(frozen=True, slots=True)
class Record:
    """What an analysis of `rules` at `players` found: the killed mutants, the status of the others."""

    rules: str
    players: int
    killed: frozenset[str]
    others: dict[str, str]

    def knows(self, key: str) -> bool:
        """Whether the record has this mutant at all."""
        return key in self.killed or key in self.others


def record_of(run: Run, players: int, named_as: dict[int, str]) -> dict[str, Any]:
    """The record of a run at one player count, as JSON data (sorted: the same run, the same bytes)."""
    named = {named_as[o.number]: o for o in run.outcomes if o.players == players}
    return {"schema": SCHEMA, "version": 1, "rules": run.rules, "players": players,
            "killed": sorted(key for key, o in named.items() if o.status is MutantStatus.KILLED),
            "others": {key: named[key].status.value for key in sorted(named)
                       if named[key].status is not MutantStatus.KILLED}}


def load_record(path: Path) -> Record:
    """A record file; a file that is not one is a `SpecError` naming it and what was expected."""
    where = Location(str(path))
    try:
        if path.stat().st_size > MAX_RECORD_BYTES:
            raise SpecError(f"larger than {MAX_RECORD_BYTES // 2**20} MiB: not a mutation record", where)
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise SpecError(f"cannot read the mutation record: {error.strerror}", where) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise SpecError(f"not JSON: {error}", where) from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or data.get("version") != 1:
        raise SpecError(f"expected a mutation record (schema {SCHEMA!r}, version 1)", where)
    killed, others = data.get("killed"), data.get("others")
    if not isinstance(killed, list) or not all(isinstance(k, str) for k in killed) \
            or not isinstance(others, dict) or not all(isinstance(v, str) for v in others.values()):
        raise SpecError("expected 'killed': [names] and 'others': {name: status}", where)
    players, rules = data.get("players"), data.get("rules")
    if not isinstance(players, int) or not isinstance(rules, str):
        raise SpecError("expected 'rules' (a name) and 'players' (a count)", where)
    return Record(rules, players, frozenset(killed), dict(others))


@dataclass(slots=True)
class Verdict:
    """The gate's finding: the kills lost and the new mutants not killed."""

    lost: list[Outcome]
    new: list[Outcome]
    checked: int
    skipped: int

    @property
    def passed(self) -> bool:
        """Nothing lost and nothing new left standing."""
        return not self.lost and not self.new

    def lines(self) -> list[str]:
        """The gate in a few lines, each failing mutant in one."""
        head = (f"mutation gate: {self.checked} mutants checked by random games, {self.skipped} recorded as "
                f"equivalent, invalid or unknown not run again")
        out = [head]
        out += [f"  KILL LOST  {o.players}p {o.line}" for o in self.lost]
        out += [f"  NEW, NOT KILLED  {o.players}p {o.line}" for o in self.new]
        for o in self.lost + self.new:
            if o.game:
                out.append(f"    #{o.number} told apart from the rules by: " + " ".join(o.game))
        out.append("mutation gate: " + ("passed" if self.passed else
                                        f"FAILED ({len(self.lost)} kills lost, {len(self.new)} new mutants not "
                                        f"killed)"))
        return out


def to_run(record: Record, named_as: dict[int, str]) -> frozenset[int]:
    """The mutants the gate runs: those recorded as killed and those the record does not know."""
    return frozenset(number for number, key in named_as.items() if key in record.killed or not record.knows(key))


def judge(run: Run, record: Record, named_as: dict[int, str]) -> Verdict:
    """The gate over a run of the mutants `to_run` chose."""
    lost: list[Outcome] = []
    new: list[Outcome] = []
    chosen = [o for o in run.outcomes if o.players == record.players]
    for outcome in chosen:
        if outcome.status in (MutantStatus.KILLED, MutantStatus.EQUIVALENT, MutantStatus.INVALID):
            continue
        (lost if named_as[outcome.number] in record.killed else new).append(outcome)
    return Verdict(lost, new, len(chosen), len(named_as) - len(chosen))


def explain(base: Spec, outcomes: list[Outcome], players: int) -> None:
    """Give each failing outcome the game telling its mutant apart from the rules, where a
    short product search finds one (the gate's run had random games only)."""
    by_number = {m.number: m for m in mutants(base)}
    for outcome in outcomes:
        result = diff(base, by_number[outcome.number].spec, [players], EXPLAIN)
        if result.differences:
            difference = result.differences[0]
            outcome.game = difference_moves(difference)
            outcome.decisions = difference.decisions
