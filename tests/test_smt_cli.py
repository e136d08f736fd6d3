"""`shrules prove` and `shrules smt-bench` on the command line: outcome with its size,
exit status 0 / 1 / 2 / 3 as for every command."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import verify.smt.backend as smt_backend
from verify.cli import main
from verify.portfolio import Deadline, Request, decide
from verify.rules import Rules
from verify.results import Evidence, Limits, PropertyResult, Proved, Refuted, StopReason, Unknown, Verdict
from verify.smt.backend import catalogue_of, clear_cache
from verify.smt.check import check_players
from verify.smt.induction import OutOfTime

STANDARD_RULES = Rules.named("standard")


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_prove_prints_the_proof_and_its_size() -> None:
    code, output = run("prove", "tracker_in_range", "--players", "5-6")
    assert code == 0, output
    lines = output.strip().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("tracker_in_range (always), 5 players: proved by induction (k = 1), ")
    assert "proved strengthening invariants (support: " in lines[0]


def test_prove_a_move_property_and_a_strengthening_invariant() -> None:
    code, output = run("prove", "majority_elects", "-n", "9")
    assert code == 0 and "proved by induction (k = 1)" in output
    code, output = run("prove", "pile_ready_between_sessions", "-n", "7")
    assert code == 0 and "invariant pile_ready_between_sessions, 7 players: proved by induction" in output


def test_prove_termination_names_the_ranking() -> None:
    code, output = run("prove", "terminates", "-n", "8")
    assert code == 0, output
    assert "proved by a ranking function" in output and "no game is longer than" in output


def test_a_refuted_property_prints_its_game_and_fails(tmp_path: object) -> None:
    code, output = run("prove", "rejection_keeps_term_limits", "-n", "5", "--rules",
                       "tests/mutants/term_limit_last_nominee.toml")
    assert code == 1, output
    assert "refuted: a game of 4 moves breaks it" in output
    assert "NOT AS EXPECTED" in output
    assert "the government is rejected" in output


def test_a_witness_is_printed_and_saved(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "witness.json"
    code, output = run("prove", "same_president_twice", "-n", "7", "--trace", str(path))
    assert code == 0, output
    assert "witnessed: shortest game of 33 moves" in output
    assert "calls a Special Election" in output
    code, output = run("replay", str(path))
    assert code == 0 and output.startswith("confirmed")


def test_bad_input_is_one_line_and_exit_two() -> None:
    code, output = run("prove", "no_such_property")
    assert code == 2 and "no property or invariant named 'no_such_property'" in output
    code, output = run("prove", "tracks_in_range", "--players", "11")
    assert code == 2 and "stated for 5-10 players" in output
    code, output = run("prove", "five_alive_exception_used", "--players", "8")
    assert code == 2


def test_a_limit_hit_is_exit_three() -> None:
    code, output = run("prove", "liberal_policy_win", "-n", "5", "--depth", "10")
    assert code == 3, output
    assert "unknown after" in output and "no witness within 10 moves (the depth limit)" in output


class _Says:
    """A backend that gives one verdict for every property it is asked."""

    def __init__(self, name: str, verdict: Verdict) -> None:
        self.name, self.verdict = name, verdict

    def decide(self, request: Request, deadline: Deadline) -> list[PropertyResult]:
        return [PropertyResult(p.name, request.players, p.kind, p.rule_ids, p.expect, self.verdict)
                for p in request.properties]

    def heard(self, request: Request, results: list[PropertyResult]) -> None:
        """Nothing to keep."""


def test_both_backends_disagreeing_fail_the_check() -> None:
    """`check --backend both` (the portfolio's `cross_check`): where the search and the
    solver both decide an invariant and disagree, the result is the verdict not as
    expected, naming both backends."""
    from spec.loader import load_spec

    catalogue = catalogue_of(load_spec("standard"))
    prop = next(p for p in catalogue if p.name == "tracker_in_range")
    request = Request(Rules.named("standard"), 5, (prop,), Limits())
    explicit = _Says("explicit", Proved(Evidence("explicit")))

    agreed = decide(request, strategy="cross_check",
                    backends={"explicit": explicit, "smt": _Says("smt", Proved(Evidence("k-induction")))})
    assert agreed.results[0].verdict == Proved(Evidence("explicit"))
    refuted = Refuted(Evidence("bmc", depth=9), None, "reachable in 9 moves")
    (checked,) = decide(request, strategy="cross_check",
                        backends={"explicit": explicit, "smt": _Says("smt", refuted)}).results
    assert checked.as_expected is False
    assert checked.facts.backends_disagree == "the backends disagree: explicit proved, smt refuted"
    assert isinstance(checked.verdict, Refuted) and "the backends disagree" in checked.verdict.message


@pytest.mark.slow
def test_check_verbose_says_when_each_count_ends_off_a_terminal() -> None:
    """`check -v` in a script or CI log: a line per step of each count, with the time."""
    result = CliRunner().invoke(main, ["check", "--backend", "smt", "-n", "5-6", "--workers", "1", "-v", "-q",
                                       "-p", "tracks_in_range"])
    assert result.exit_code == 0, result.output
    ended = [line for line in result.stderr.splitlines() if " players: done (" in line]
    assert [line.split(" players")[0].strip(" …") for line in ended] == ["5", "6"]
    assert result.stdout.splitlines()[0].startswith("property")


def test_inference_is_tried_once_per_count_within_all_its_properties_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inference that does not finish leaves every property of the count unknown, saying
    why; it is not begun again for each property (verify/smt/check.py `build_once`), and says it was time."""
    built: list[float | None] = []

    def stopped(spec: object, players: int, hints: bool, deadline: float | None = None, infer: bool = False) -> None:
        built.append(deadline)
        raise OutOfTime(["a", "b"], 9.0, 12)
    clear_cache()
    monkeypatch.setattr(smt_backend, "new_backend", stopped)
    results = check_players(STANDARD_RULES, 5, ("tracks_in_range", "tracker_in_range"), Limits(time_limit=5.0),
                            hints=False)
    clear_cache()
    assert len(built) == 1
    reasons = [r.verdict.reason for r in results if isinstance(r.verdict, Unknown)]
    assert len(reasons) == 2
    assert all(r.verdict.stop is StopReason.TIME for r in results if isinstance(r.verdict, Unknown))
    assert all("inferring strengthening invariants took longer than the 10 s" in reason for reason in reasons)
