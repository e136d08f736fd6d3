"""Verdicts, statuses and stop reasons are typed values, never compared as strings.

A name read from JSON or a dict (a report, a cache file, a baseline, an atlas) is made a
member of its enum once, where it is read (`Named.parse`: an unknown name is refused
with a message naming it), and matched as a member everywhere after. A comparison of a
value with one of the names spelt as a string (`verdict == "unknown"`, `status in
("killed", ...)`, `case "proved":`) would type nothing and miss a misspelling: the
finder below keeps them out of verify/. The files written stay as they were (a member
is its name as a string).
"""

from __future__ import annotations

import ast
import json
import pickle
from pathlib import Path

import pytest

from verify.knowledge.directed import Followed
from verify.knowledge.search import Found
from verify.knowledge.stepwise import PassVerdict
from verify.results import (KnowledgeVerdict, MutantStatus, Named, Proved, Refuted, StopReason, Status, Unknown,
                            Unwitnessed, Vacuous, VerdictKind, Witnessed)
from verify.scale.sweep import BoardVerdict
from verify.smt.bmc import Ended

VERIFY = Path(__file__).resolve().parents[1] / "verify"
ENUMS: tuple[type[Named], ...] = (VerdictKind, Status, MutantStatus, BoardVerdict, KnowledgeVerdict, PassVerdict,
                                  Followed, Found)
NAMES = frozenset(member.value for enum in ENUMS for member in enum) - {"none"}
"""Every name a verdict or a status is written as ("none" left out: the rules' own word for
a slot with no power, spec/)."""
STOPS = frozenset(stop.value for stop in (*StopReason, *Ended) if stop is not StopReason.OTHER)
"""Every name a stop reason (or the end of a solver's search) is written as ("other" left
out: too common a word). Some are
common words ("states", "time"): `"time" in words` may look for a word in a text, so
a stop reason is found only by `==`, `!=` or in a tuple, list or set of names."""


def _spelt(node: ast.AST, names: frozenset[str]) -> bool:
    """Whether `node` spells one of `names`, or is a tuple, list or set holding one."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value in names
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_spelt(item, names) for item in node.elts)
    return False


def compared_as_strings(source: str) -> list[int]:
    """The lines of `source` that compare a value with a verdict's, a status's or a stop
    reason's name spelt as a string: `==`, `!=`, `in`, `not in` either way round, and a
    `case` of a `match`."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            sides = (node.left, *node.comparators)
            for left, op, right in zip(sides, node.ops, sides[1:]):
                if isinstance(op, (ast.Eq, ast.NotEq)) and (
                        _spelt(left, NAMES | STOPS) or _spelt(right, NAMES | STOPS)):
                    lines.append(node.lineno)
                elif isinstance(op, (ast.In, ast.NotIn)) and (
                        _spelt(left, NAMES) or (not isinstance(right, ast.Constant) and _spelt(right, NAMES | STOPS))):
                    lines.append(node.lineno)
        elif isinstance(node, ast.MatchValue) and _spelt(node.value, NAMES | STOPS):
            lines.append(node.lineno)
    return sorted(set(lines))


def test_the_finder_sees_a_name_compared_as_a_string() -> None:
    source = ('a == "proved"\n"unknown" != b\nc in ("killed", "survived")\nd not in ["sound"]\n'
              'match e:\n    case "leak":\n        pass\n'
              'f is VerdictKind.PROVED\ng == VerdictKind.UNKNOWN\nh == "a word"\nprint("proved")\n'
              'i == "time"\nj in ("time", "depth")\n"states" in words\n')
    assert compared_as_strings(source) == [1, 2, 3, 4, 6, 12, 13]


def test_no_verdict_status_or_stop_is_compared_as_a_string_in_verify() -> None:
    found = [f"{path.relative_to(VERIFY.parent)}:{line}" for path in sorted(VERIFY.rglob("*.py"))
             for line in compared_as_strings(path.read_text(encoding="utf-8"))]
    assert not found, f"a verdict, status or stop reason compared as a string (parse it once, match members): {found}"


@pytest.mark.parametrize("enum", ENUMS)
def test_every_name_is_parsed_to_its_member_and_written_as_it_was(enum: type[Named]) -> None:
    for member in enum:
        assert enum.parse(member.value) is member
        assert json.dumps({"verdict": member}) == json.dumps({"verdict": member.value})
        assert f"{member}" == str(member) == member.value
        assert pickle.loads(pickle.dumps(member)) is member


@pytest.mark.parametrize("enum", ENUMS)
@pytest.mark.parametrize("name", ["provd", "", "Proved", 3, None, ["unknown"]])
def test_an_unknown_name_is_refused_with_what_may_be(enum: type[Named], name: object) -> None:
    with pytest.raises(ValueError, match="expected one of") as refusal:
        enum.parse(name)
    assert repr(name)[:20] in str(refusal.value) and ", ".join(enum) in str(refusal.value)


def test_each_verdict_names_its_kind() -> None:
    assert [kind.verdict for kind in (Proved, Witnessed, Refuted, Unwitnessed, Vacuous, Unknown)] == list(VerdictKind)


def test_a_kept_mutant_outcome_with_a_status_of_no_kind_is_refused_by_name() -> None:
    """The edge where a mutation outcome is read back (a cache file) names the status it
    does not know, in the project's own error."""
    from spec.errors import SpecError
    from verify.diff.mutate import Outcome
    kept = Outcome(1, "negate", "nominate", ("R-E2",), "a requirement dropped", 5, MutantStatus.KILLED).to_json()
    assert kept["status"] == "killed" and type(kept["status"]) is str       # written as it always was
    assert Outcome.from_json(kept).status is MutantStatus.KILLED
    with pytest.raises(SpecError, match="'kiled' is not a mutant status: expected one of killed, equivalent"):
        Outcome.from_json({**kept, "status": "kiled"})


def test_a_kept_verdict_of_no_kind_is_not_believed() -> None:
    from verify.scale.trust import NotBelieved, verdict_named
    assert verdict_named("no-witness") is VerdictKind.NO_WITNESS
    with pytest.raises(NotBelieved, match="'prooved' is not a verdict"):
        verdict_named("prooved")
