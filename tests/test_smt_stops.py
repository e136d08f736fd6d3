"""Why the solver stopped is a typed value: a search's `Ended`, a verdict's `StopReason`.

Every `Unknown` the solver returns says which limit, or which failed proof, left it
unknown (`Unknown.stop`), so that nothing reads it back from the words of the message;
the words stay, for people.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytest.importorskip("z3")

from spec.loader import load_spec  # noqa: E402  (after the skip: verify.smt imports z3)
from verify.results import Limits, StopReason, Unknown  # noqa: E402
from verify.smt.backend import catalogue_of  # noqa: E402
from verify.smt.bmc import Ended, Search  # noqa: E402
from verify.smt.check import check_property  # noqa: E402

SMT = Path(__file__).resolve().parents[1] / "verify" / "smt"


def unknowns_without_a_stop(source: str) -> list[int]:
    """The lines of `source` that make an `Unknown` without saying why it stopped."""
    return [node.lineno for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Unknown"
            and len(node.args) < 3 and not any(keyword.arg == "stop" for keyword in node.keywords)]


def test_the_finder_sees_an_unknown_without_its_stop() -> None:
    assert unknowns_without_a_stop("Unknown(e, 'why')\nUnknown(e, 'why', StopReason.TIME)\n"
                                   "Unknown(e, 'why', stop=s)\n") == [1]


def test_every_unknown_the_solver_returns_says_why_it_stopped() -> None:
    missing = [f"{path.name}:{line}" for path in sorted(SMT.glob("*.py"))
               for line in unknowns_without_a_stop(path.read_text(encoding="utf-8"))]
    assert not missing, f"an Unknown without its StopReason: {missing}"


@pytest.mark.parametrize("ended,stop", [
    (Ended.TIME, StopReason.TIME), (Ended.DEPTH, StopReason.DEPTH), (Ended.SOLVER, StopReason.SOLVER),
    (Ended.NOT_SEARCHED, StopReason.NOT_SEARCHED), (Ended.UNREACHABLE, StopReason.INDUCTION),
    (Ended.K_INDUCTIVE, StopReason.INDUCTION), (Ended.UNGUIDED, StopReason.INDUCTION)])
def test_a_search_that_ended_at_a_limit_names_it(ended: Ended, stop: StopReason) -> None:
    found = Search(None, 3, 0.0, 1, ended)
    assert found.stop is stop
    assert found.stopped == ended.value         # the words, by default those of the end


def test_the_solvers_words_stay_beside_the_typed_end() -> None:
    found = Search(None, 3, 0.0, 1, Ended.SOLVER, "solver: canceled")
    assert found.ended is Ended.SOLVER and found.stopped == "solver: canceled"


def test_a_witness_past_the_depth_limit_is_unknown_by_depth() -> None:
    """No game of two moves wins (R-W1..R-W4): the search for a witness stops at its depth
    limit, and the verdict says so in its type as in its words."""
    spec = load_spec("standard")
    (prop,) = [p for p in catalogue_of(spec) if p.name == "liberal_policy_win"]
    verdict = check_property(spec, prop, 5, Limits(max_depth=2))
    assert isinstance(verdict, Unknown), verdict
    assert verdict.stop is StopReason.DEPTH, verdict
    assert "the depth limit" in verdict.reason


def test_a_count_a_property_is_not_stated_for_is_not_searched() -> None:
    spec = load_spec("standard")
    prop = next(p for p in catalogue_of(spec) if 5 not in p.players and not p.rules)
    verdict = check_property(spec, prop, 5)
    assert isinstance(verdict, Unknown) and verdict.stop is StopReason.NOT_SEARCHED, verdict
