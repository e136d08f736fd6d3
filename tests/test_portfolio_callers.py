"""Every caller decides through the portfolio (verify/portfolio.py `decide`): a worker of
`check` and a runner's task whatever the backend, `shrules prove`, the mutation
analysis's verdicts of the rules and its complete check of a mutant. Each test puts a
fake backend in the portfolio's place: the caller's verdict is the fake's, an unknown
stays unknown (never proved), and a real backend would have decided otherwise."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

import verify.checker
import verify.cli.prove
import verify.diff.mutate
import verify.smt.equivalence
from spec.loader import load_spec
from verify.checker import decide_counts
from verify.cli import main
from verify.diff.mutate import base_verdicts, base_verdicts_by_solver, decide as decide_mutant
from verify.diff.operators import mutants
from verify.explicit.check import DEFAULT_EXPLORER
from verify.explicit.reductions import Reductions
from verify.portfolio import Backend, Deadline, Request
from verify.results import (EXIT_LIMIT, Evidence, Limits, MutantStatus, PropertyResult, Proved, Refuted, Unknown,
                            Verdict, VerdictKind)
from verify.rules import Rules
from verify.scale.checks import run_raws, runner_tasks

STANDARD = Rules.named("standard")
PROPERTIES = ("tracks_in_range", "deck_conservation_liberal")
"""Properties the real search and solver prove at 5 players in seconds."""
LIMITS = Limits(time_limit=30.0)


class Fake:
    """A backend answering every property with the verdict `answer` makes (`None`: unknown),
    recording what it was asked."""

    def __init__(self, name: str, answer: str | None = None, log: list[str] | None = None) -> None:
        self.name, self.answer, self.log = name, answer, log if log is not None else []

    def decide(self, request: Request, deadline: Deadline) -> list[PropertyResult]:
        self.log.append(self.name)
        evidence = Evidence(f"fake {self.name}")
        verdict: Verdict = (Proved(evidence) if self.answer == "proved" else
                            Refuted(evidence, None, "the fake refutes it") if self.answer == "refuted" else
                            Unknown(evidence, "limit: the fake stopped"))
        return [PropertyResult(prop.name, request.players, prop.kind, prop.rule_ids, prop.expect, verdict)
                for prop in request.properties]

    def heard(self, request: Request, results: list[PropertyResult]) -> None:
        """The fake keeps nothing."""


def _fakes(monkeypatch: pytest.MonkeyPatch, answer: str | None) -> list[str]:
    """Both of `check`'s backends replaced by fakes answering `answer`; the log of who was asked."""
    log: list[str] = []
    fakes: dict[str, Backend] = {"explicit": Fake("explicit", answer, log), "smt": Fake("smt", answer, log)}
    monkeypatch.setattr(verify.checker, "backends_for", lambda *_, **__: fakes)
    return log


# ---------------------------------------------------------------------- check's workers and the runner


def test_a_worker_decides_the_explicit_backend_through_the_portfolio(monkeypatch: pytest.MonkeyPatch) -> None:
    log = _fakes(monkeypatch, None)
    results = decide_counts(STANDARD, (5,), PROPERTIES, LIMITS, Reductions(), DEFAULT_EXPLORER, "explicit",
                            False, True)
    assert log == ["explicit"]                          # search_only: the search, never the solver
    assert [r.property for r in results] == list(PROPERTIES)
    assert all(isinstance(r.verdict, Unknown) for r in results)     # the fake's unknown, not the real proof


@pytest.mark.parametrize("backend,asked", [("explicit", ["explicit"]), ("smt", ["smt"]),
                                           ("both", ["explicit", "smt"])])
def test_a_runner_task_decides_every_backend_through_the_portfolio(monkeypatch: pytest.MonkeyPatch, backend: str,
                                                                    asked: list[str]) -> None:
    log = _fakes(monkeypatch, None)
    (task,) = runner_tasks(STANDARD, (5,), PROPERTIES, max_states=None, time_limit=30.0, memory_limit=None,
                           explorer=DEFAULT_EXPLORER, backend=backend)
    raws = run_raws(task)["raws"]
    assert log == asked
    assert [item["verdict"] for item in raws] == [VerdictKind.UNKNOWN.value] * len(PROPERTIES)


def test_a_runner_task_keeps_the_portfolios_proof(monkeypatch: pytest.MonkeyPatch) -> None:
    _fakes(monkeypatch, "proved")
    (task,) = runner_tasks(STANDARD, (5,), PROPERTIES[:1], max_states=None, time_limit=30.0, memory_limit=None,
                           explorer=DEFAULT_EXPLORER)
    assert [(item["verdict"], item["evidence"]["method"]) for item in run_raws(task)["raws"]] == [
        (VerdictKind.PROVED.value, "fake explicit")]


# ---------------------------------------------------------------------- shrules prove


@pytest.mark.parametrize("answer,status,said", [(None, EXIT_LIMIT, "unknown after"), ("proved", 0, "proved fake smt")])
def test_prove_prints_the_portfolios_verdict(monkeypatch: pytest.MonkeyPatch, answer: str | None, status: int,
                                             said: str) -> None:
    log: list[str] = []
    monkeypatch.setattr(verify.cli.prove, "solver_backends", lambda *_: {"smt": Fake("smt", answer, log)})
    result = CliRunner().invoke(main, ["prove", "tracks_in_range", "-n", "5"])
    assert result.exit_code == status, result.output
    assert f"tracks_in_range (always), 5 players: {said}" in result.output
    assert log == ["smt"]                               # solver_only
    assert "proved" not in result.output or answer == "proved"


# ---------------------------------------------------------------------- the mutation analysis


def test_the_rules_own_verdicts_come_from_the_portfolio(monkeypatch: pytest.MonkeyPatch) -> None:
    base = load_spec("standard")
    monkeypatch.setattr(verify.diff.mutate, "search_backend", lambda *_: {"explicit": Fake("explicit")})
    assert base_verdicts(base, 5, LIMITS, PROPERTIES) == {name: VerdictKind.UNKNOWN for name in PROPERTIES}
    monkeypatch.setattr(verify.diff.mutate, "solver_backend", lambda *_: {"smt": Fake("smt", "refuted")})
    assert base_verdicts_by_solver(base, 5, LIMITS, PROPERTIES) == {name: VerdictKind.REFUTED for name in PROPERTIES}


def _to_the_complete_check(monkeypatch: pytest.MonkeyPatch, answer: str | None) -> list[str]:
    """Every stage of a mutant before its complete check (random games, the solver's
    proofs and queries, the product search) finding nothing, and the check's search a fake."""
    log: list[str] = []
    nothing = SimpleNamespace(proved=False, reason="the fake found none")
    entry = SimpleNamespace(difference=None, complete=False, depth=3, pairs=10)
    monkeypatch.setattr(verify.diff.mutate, "probe_game", lambda *_, **__: [])
    monkeypatch.setattr(verify.diff.mutate, "only_rule_changed", lambda *_: False)
    monkeypatch.setattr(verify.diff.mutate, "rules_changed", lambda *_: None)
    monkeypatch.setattr(verify.smt.equivalence, "rule_sets_play_the_same_games", lambda *_, **__: nothing)
    monkeypatch.setattr(verify.diff.mutate, "_solver_killer", lambda *_: None)
    monkeypatch.setattr(verify.diff.mutate, "diff", lambda *_: SimpleNamespace(counts=[entry]))
    monkeypatch.setattr(verify.diff.mutate, "search_backend",
                        lambda *_: {"explicit": Fake("explicit", answer, log)})
    return log


@pytest.mark.parametrize("answer,status", [(None, MutantStatus.UNKNOWN), ("refuted", MutantStatus.KILLED)])
def test_a_mutants_complete_check_comes_from_the_portfolio(monkeypatch: pytest.MonkeyPatch, answer: str | None,
                                                           status: MutantStatus) -> None:
    base = load_spec("standard")
    (mutant,) = mutants(base, ("boundary",), ("nominate",))
    log = _to_the_complete_check(monkeypatch, answer)
    verdicts: dict[str, Any] = {name: VerdictKind.PROVED for name in PROPERTIES}
    outcome = decide_mutant(base, mutant, 5, verdicts, LIMITS)
    assert log == ["explicit"]
    assert outcome.status is status, outcome.line
    said = "limit: the fake stopped" if answer is None else "proved -> refuted (the shortest game)"
    assert said in outcome.detail
