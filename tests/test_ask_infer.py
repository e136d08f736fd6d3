"""`shrules ask` falls back to inferred invariants where the hinted proof fails.

The hints of spec/invariants.toml do not prove every question that is true: one about
history ("the same President twice in a row, twice") needs bookkeeping of the monitors
nobody wrote down. Where the solver's hinted proof ends unknown, `ask` asks again with
invariants inferred from played games (verify/smt/infer.py) within the question's time,
and says so in the answer; a budget too small for inference stays unknown, with why.

The fast tests stand a recording stub in for the solver, so that they test what `ask`
does with its answers, not how long inference takes; the real inference runs in the
slow test and in tests/test_infer.py.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from engine.game import compiled_game
from spec.loader import load_spec
from spec.disputes import query
from spec.properties import Property
from verify.cli import main
from verify import budgets
from verify.lawyer import ask
from verify.lawyer.answers import NO, UNKNOWN
from verify.lawyer.ask import Budget, ad_hoc
from verify.lawyer.words import render
from verify.results import Evidence, Limits, PropertyResult, Proved, Unknown, Unwitnessed, Verdict
from verify.smt.check import check_property
from verify.rules import Rules

STANDARD_RULES = Rules.named("standard")

THREE_PRESIDENCIES = "in_a_row(president == previous(president)) >= 2"
"""The same President three times running: never (the presidency passes on after every
government, R-E1), but the proof needs more than the hints. The monitors that keep the
history are added by spec/temporal.py."""
INFERRED_NOTE = "with 40 proved strengthening invariants (12 of them inferred)"


@pytest.fixture(autouse=True)
def empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Inference reads and writes its cache in a directory of the test's own."""
    monkeypatch.setenv("SHRULES_CACHE", str(tmp_path))
    return tmp_path


class StubSolver:
    """The solver as `ask` sees it: the hinted proof fails, the inferred one gives `inferred`."""

    def __init__(self, inferred: Verdict) -> None:
        self.inferred = inferred
        self.calls: list[tuple[bool, float | None]] = []   # (infer, seconds) of each call

    def check_property(self, spec: Any, prop: Property, players: int, limits: Limits = Limits(),
                       infer: bool = False) -> Verdict:
        self.calls.append((infer, limits.time_limit))
        return self.inferred if infer else Unknown(Evidence("k-induction"), "not inductive; no violation found")

    def prove_never_happens(self, spec: Any, prop: Property, players: int, infer: bool = False,
                            seconds: float | None = None) -> Verdict:
        self.calls.append((infer, seconds))
        if not infer:
            return Unknown(Evidence("k-induction"), "its negation is not inductive")
        if isinstance(self.inferred, Proved):
            return Unwitnessed(self.inferred.evidence)
        return self.inferred


def _no_search(props: tuple[Property, ...], players: int, limits: Limits, rules: Rules = STANDARD_RULES,
               progress: Any = None, frontiers: Any = None) -> dict[str, PropertyResult]:
    """A stand-in for the explicit search that never finishes: unknown at its limit."""
    return {p.name: PropertyResult(p.name, players, p.kind, p.rule_ids, p.expect,
                                   Unknown(Evidence("explicit", 10, 0, 0, 0.0, ""), "limit: 10 states"))
            for p in props}


def _stubbed(monkeypatch: pytest.MonkeyPatch, inferred: Verdict) -> StubSolver:
    solver = StubSolver(inferred)
    monkeypatch.setattr(ask, "_smt_backend", lambda: solver)
    monkeypatch.setattr(ask, "search", _no_search)
    return solver


def test_never_the_hints_cannot_prove_is_proved_with_inferred_invariants(monkeypatch: pytest.MonkeyPatch) -> None:
    solver = _stubbed(monkeypatch, Proved(Evidence("k-induction", depth=1, note=INFERRED_NOTE)))
    answer = ad_hoc(THREE_PRESIDENCIES, "never", (5,), budget=Budget(seconds=100), rules=STANDARD_RULES)
    assert answer.verdict == NO
    assert render(answer).startswith("No — this never happens (5 players).")
    assert ("How this was decided:\n  Proved for 5 players (k-induction with invariants inferred from played "
            "games).") in render(answer)
    (hinted, first), (inferred, seconds) = solver.calls
    assert not hinted and first is not None and first <= budgets.SMT_FIRST_SECONDS
    # inference gets its share of the question's time, the explicit search the rest
    assert inferred and seconds is not None and 0 < seconds <= budgets.INFER_SHARE * 100


def test_no_infer_leaves_the_question_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    solver = _stubbed(monkeypatch, Proved(Evidence("k-induction", depth=1, note=INFERRED_NOTE)))
    result = CliRunner().invoke(main, ["ask", "--players", "5", "--never", THREE_PRESIDENCIES, "--no-infer"],
                                catch_exceptions=False)
    assert result.exit_code == 3, result.stdout
    assert result.stdout.startswith("Unknown")
    assert [infer for infer, _ in solver.calls] == [False]


def test_inference_out_of_time_stays_unknown_with_its_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    stopped = Unknown(Evidence("k-induction"), "limit: inferring strengthening invariants took longer than the 9 s "
                                               "given (the fixpoint was stopped after 9 s and 30 queries)")
    _stubbed(monkeypatch, stopped)
    answer = ad_hoc(THREE_PRESIDENCIES, "never", (5,), budget=Budget(seconds=12), rules=STANDARD_RULES)
    assert answer.verdict == UNKNOWN
    (result,) = answer.results
    assert isinstance(result.verdict, Unknown)
    assert result.verdict.reason == ("limit: 10 states; with inferred invariants: limit: inferring strengthening "
                                     "invariants took longer than the 9 s given (the fixpoint was stopped after "
                                     "9 s and 30 queries)")
    assert "took longer than the 9 s given" in render(answer)


def test_can_that_never_happens_is_proved_beside_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    # A `sometimes` question: the prover process goes on to inference once its cheap proof
    # failed, and its proof stops the explicit search, which would otherwise run on.
    solver = StubSolver(Proved(Evidence("k-induction", depth=1, note=INFERRED_NOTE)))
    monkeypatch.setattr(ask, "_smt_backend", lambda: solver)

    def endless(props: tuple[Property, ...], players: int, limits: Limits, rules: Rules = STANDARD_RULES,
                progress: Any = None, frontiers: Any = None) -> dict[str, PropertyResult]:
        give_up = time.perf_counter() + 60
        while progress is not None and time.perf_counter() < give_up:
            progress(0, 0)
            time.sleep(0.02)
        return _no_search(props, players, limits, rules)
    monkeypatch.setattr(ask, "search", endless)
    answer = ad_hoc(THREE_PRESIDENCIES, "sometimes", (5,), budget=Budget(seconds=100), rules=STANDARD_RULES)
    assert answer.verdict == NO
    (result,) = answer.results
    assert isinstance(result.verdict, Unwitnessed) and "inferred" in result.verdict.evidence.note


def test_the_solver_stops_inference_at_its_deadline() -> None:
    # The real solver: a second is far too little to mine and prove the candidates.
    spec = load_spec()
    prop = query(spec, "question", "never", THREE_PRESIDENCIES)
    verdict = check_property(compiled_game(5, prop.rules).spec, prop, 5, Limits(time_limit=1), infer=True)
    assert isinstance(verdict, Unknown)
    assert verdict.reason.startswith("limit: inferring strengthening invariants took longer than the 1 s given")


@pytest.mark.slow  # inference from a cold cache at 5 players: minutes on a busy machine
def test_three_presidencies_are_proved_never_at_five_players() -> None:
    answer = ad_hoc(THREE_PRESIDENCIES, "never", (5,), budget=Budget(seconds=1800), rules=STANDARD_RULES)
    assert answer.verdict == NO, render(answer)
    (result,) = answer.results
    assert result.verdict.evidence.method == "k-induction" and "inferred" in result.verdict.evidence.note
    assert "with invariants inferred from played games" in render(answer)
    # what it rests on is read off that proof's unsat cores, with the inferred invariants in its support
    assert answer.grounds == "proof" and answer.rule_ids, (answer.grounds, answer.rule_ids)
    requirements = {req.rule_id for rule in load_spec(answer.query.rules).rules for req in rule.requires}
    assert set(answer.rule_ids) <= requirements


def test_cores_of_an_inferred_proof_are_not_built_again_here(monkeypatch: pytest.MonkeyPatch) -> None:
    # the inferred support is built where the proof was made; elsewhere no core is taken
    # (building it again would cost what inferring did), and "Rests on" says it read the fields
    from verify.lawyer.grounds import proof_cores
    from verify.smt import core

    def built_again(*args: object, **kwargs: object) -> None:
        raise AssertionError("the backend with inferred invariants was built again for its cores")
    monkeypatch.setattr(core, "backend_for", built_again)
    prop = query(load_spec(), "q", "never", "liberal_policies > 5", (), (5,))
    assert proof_cores(prop, 5, STANDARD_RULES, infer=True) is None
