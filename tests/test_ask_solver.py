"""`shrules ask --solver`: every count decided by the Z3 backend alone, or said to be unknown.

With `--solver` a question is asked of the solver at each count, with invariants it
infers (no spec/invariants.toml) and no explicit search; a yes at one count does not end
the question, and a count the solver leaves undecided makes the exit status 3, never an
answer. The fast tests stand a recording stub in for the solver, so that they test what
`ask` does with its verdicts; two real questions at 5 players are answered by the solver
itself, a proof and a witness game the engine replays.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import verify.smt
from spec.properties import Property
from verify.cli import main
from verify.lawyer import ask
from verify.results import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_LIMIT, EXIT_OK
from verify.results import Evidence, Limits, Proved, Unknown, Unwitnessed, Verdict


@pytest.fixture(autouse=True)
def empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Inference reads and writes its cache in a directory of the test's own."""
    monkeypatch.setenv("SHRULES_CACHE", str(tmp_path))
    return tmp_path


def run(*args: str) -> Any:
    """`shrules ask ARGS` through click: the exit code, `stdout` and `stderr` apart."""
    return CliRunner().invoke(main, ["ask", *args], catch_exceptions=False)


class StubSolver:
    """`check_property` as `--solver` sees it: a verdict per count, and every call recorded."""

    def __init__(self, verdicts: dict[int, Verdict]) -> None:
        self.verdicts = verdicts
        self.calls: list[tuple[str, int, dict[str, Any]]] = []

    def __call__(self, spec: Any, prop: Property, players: int, limits: Limits = Limits(), infer: bool = False,
                 hints: bool = True) -> Verdict:
        self.calls.append((prop.name, players, {"hints": hints, "seconds": limits.time_limit,
                                                "first_game": limits.first_game}))
        return self.verdicts[players]


def no_search(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("--solver must not search explicitly")


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Install a stub solver and forbid the explicit search; the test sets the verdicts."""
    def install(verdicts: dict[int, Verdict]) -> StubSolver:
        solver = StubSolver(verdicts)
        monkeypatch.setattr(verify.smt, "check_property", solver)
        monkeypatch.setattr(verify.smt, "build_once", lambda *args, **kwargs: None)   # no inference to build
        monkeypatch.setattr(ask, "search", no_search)
        monkeypatch.setattr(ask, "explore", no_search)
        return solver
    return install


PROVED = Proved(Evidence("k-induction", depth=1, note="with 30 proved strengthening invariants (30 of them inferred)"))
UNDECIDED = Unknown(Evidence("bmc", depth=40), "limit: time (300 s)")


def test_every_count_is_asked_of_the_solver_without_hints(stub: Any) -> None:
    solver = stub({5: PROVED, 6: PROVED})
    result = run("president-twice-in-a-row-small", "--solver", "--seconds", "42")
    assert result.exit_code == EXIT_OK, result.output
    assert sorted(players for _, players, _ in solver.calls) == [5, 6]
    assert all(how == {"hints": False, "seconds": 42.0, "first_game": False} for _, _, how in solver.calls)
    assert "No — this never happens: proved for 5–6 players" in result.stdout
    assert "  5 players: no (k-induction, " in result.stdout and "  6 players: no (k-induction, " in result.stdout


def test_first_game_is_passed_to_the_solver(stub: Any) -> None:
    solver = stub({5: PROVED, 6: PROVED})
    assert run("president-twice-in-a-row-small", "--solver", "--first-game").exit_code == EXIT_OK
    assert [how["first_game"] for _, _, how in solver.calls] == [True, True]


def test_the_counts_are_said_in_german_too(stub: Any) -> None:
    stub({5: PROVED, 6: UNDECIDED})
    result = run("president-twice-in-a-row-small", "--solver", "--lang", "de")
    assert result.exit_code == EXIT_LIMIT, result.output
    assert "Allein vom Solver, Spielerzahl für Spielerzahl" in result.stdout
    assert "  5 Spieler: nein (k-Induktion" in result.stdout
    assert "  6 Spieler: unbekannt (" in result.stdout


def test_a_count_left_undecided_is_unknown_even_beside_an_answer(stub: Any) -> None:
    stub({5: Unwitnessed(Evidence("k-induction", depth=1)), 6: UNDECIDED})
    result = run("--can", "president == previous(president)", "-n", "5-6", "--solver")
    assert result.exit_code == EXIT_LIMIT, result.output
    assert result.stdout.startswith("Unknown")
    line = [line for line in result.stdout.splitlines() if line.startswith("  6 players: unknown")][-1]
    assert line.startswith("  6 players: unknown (bounded model checking, ") and line.endswith(": limit: time (300 s)")


def test_a_proof_where_the_catalogue_expects_yes_is_wrong(stub: Any) -> None:
    stub({count: Unwitnessed(Evidence("k-induction", depth=1)) for count in range(5, 11)})
    result = run("president-twice-in-a-row", "--solver", "--json")
    assert result.exit_code == EXIT_FAILED, result.output
    answer = json.loads(result.stdout)
    assert answer["answer"] == "no" and answer["as_expected"] is False
    assert [entry["players"] for entry in answer["players"]] == [7, 8, 9, 10]
    assert all(entry["wall_seconds"] >= 0 for entry in answer["players"])


def test_all_reports_every_count_and_what_the_solver_does_not_answer(stub: Any) -> None:
    stub({count: UNDECIDED for count in range(4, 11)})
    result = run("--all", "--solver", "-n", "5")
    assert result.exit_code == EXIT_LIMIT, result.output
    lines = result.stdout.splitlines()
    assert all(line.startswith("unknown") for line in lines[:-2])
    assert any("(5: unknown)" in line for line in lines)
    assert "player counts: 0 decided by the solver alone" in lines[-2]
    assert "answered from the rule text or a position, not by the solver" in lines[-1]


@pytest.mark.parametrize("args", [
    ("--solver", "--game", "x.jsonl", "--move", "{}"),
    ("--solver", "--list"),
    ("--workers", "2", "--all"),
    ("hitler-must-reveal", "--solver"),
    ("president-twice-in-a-row", "--solver", "-n", "5"),
    ("president-twice-in-a-row", "--solver", "--no-infer"),
    ("president-twice-in-a-row", "--first-game"),
])
def test_usage_mistakes_exit_2(args: tuple[str, ...], tmp_path: Path) -> None:
    if "x.jsonl" in args:
        (tmp_path / "x.jsonl").write_text("", encoding="utf-8")
        args = tuple(str(tmp_path / "x.jsonl") if a == "x.jsonl" else a for a in args)
    result = run(*args)
    assert result.exit_code == EXIT_BAD_INPUT, result.output
    assert "Traceback" not in result.output


def test_inference_that_does_not_finish_leaves_every_question_of_the_count_unknown(
        stub: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Inference for a count is tried once, within the time of all its questions, never
    again per question; when it does not finish, each question there is unknown, saying so."""
    solver = stub({5: PROVED, 6: PROVED})
    tried: list[tuple[int, float | None, int]] = []

    def stopped(spec: Any, players: int, infer: bool, hints: bool, limits: Limits, properties: int) -> Unknown:
        tried.append((players, limits.time_limit, properties))
        return Unknown(Evidence("k-induction", seconds=1.0), "limit: inferring strengthening invariants took longer")
    monkeypatch.setattr(verify.smt, "build_once", stopped)
    result = run("president-twice-in-a-row-small", "--solver", "--seconds", "10")
    assert result.exit_code == EXIT_LIMIT, result.output
    assert sorted(tried) == [(5, 10.0, 1), (6, 10.0, 1)] and not solver.calls
    assert "limit: inferring strengthening invariants took longer" in result.stdout


def test_a_mistake_in_the_expression_is_bad_input_before_any_solving(stub: Any) -> None:
    solver = stub({})
    result = run("--can", "liberal_policies ==", "--solver")
    assert result.exit_code == EXIT_BAD_INPUT
    assert "^" in result.stderr and not solver.calls


@pytest.mark.slow
def test_the_solver_alone_proves_and_finds_at_five_players(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real solver, no stub: a proof with inferred invariants, and a game it found."""
    monkeypatch.setattr(ask, "search", no_search)
    proof = run("president-twice-in-a-row-small", "--solver", "-n", "5", "--json")
    assert proof.exit_code == EXIT_OK, proof.output
    count = json.loads(proof.stdout)["players"][0]
    assert count["verdict"] in ("proved", "no-witness") and count["method"] == "k-induction"
    assert "inferred" in count["reductions"]
    found = run("--can", "liberal_policies == 1", "--solver", "-n", "5")
    assert found.exit_code == EXIT_OK, found.output
    assert found.stdout.startswith("Yes — this can happen.")
    assert "enacts a liberal policy [R-L3]" in found.stdout
    assert "  5 players: yes, " in found.stdout
