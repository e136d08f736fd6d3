"""`shrules diff` says what changes first and never hides an undecided property.

A house rule whose accepted veto leaves the Election Tracker where it was lets a game go
round for ever (R-W5). The diff of it with the standard rules must say `terminates:
proved → refuted` and show the cycle, decided by the depth-first search for a game that
comes back to a state (verify/explicit/cycles.py) where the ranking does not fit, in
moments; a row a limit left undecided is counted as unknown, with the limit to raise,
and makes the exit status 3 when nothing decided differs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from engine.game import compiled_game
from verify.cli import main
from verify.diff import compare
from verify.diff.compare import VerdictRow, order_rows
from verify.explicit.check import check_players
from verify.explicit.cycles import find_cycle
from verify.explicit.model import Model
from verify.results import Evidence, Facts, Limits, PropertyResult, Proved, Refuted, Unknown, Verdict
from verify.rules import Rules
from helpers import length, message, moves

HOUSE_RULE = str(Path(__file__).parent / "overlays" / "accepted_veto_keeps_tracker.toml")
QUICK = ["-n", "5", "--time-limit", "2", "--random-time", "2", "--workers", "1"]
"""A short product search: the verdicts, not the distinguishing game, are at issue here."""


def test_a_game_that_comes_back_to_a_state_is_found_and_replayed() -> None:
    lasso = find_cycle(Model(compiled_game(5, HOUSE_RULE)))
    assert lasso is not None
    trace = lasso.trace
    assert lasso.exact and 0 < lasso.cycle < len(trace.steps)
    # The engine's own state after the cycle is the state the cycle left.
    assert trace.states[len(trace.steps) - lasso.cycle] == trace.end
    assert any(move.rule == "accept_veto" for move, _ in trace.steps[-lasso.cycle:])


def test_the_standard_rules_have_no_such_game_within_the_budget() -> None:
    # Every move of the standard rules lowers the ranking: no cycle exists, and the
    # search says nothing (None), never "terminates".
    assert find_cycle(Model(compiled_game(5, "standard")), max_states=2_000) is None


def test_check_refutes_termination_with_the_cycle_at_once() -> None:
    (raw,) = check_players(Rules.named(HOUSE_RULE), 5, ("terminates",), Limits(time_limit=60))
    assert raw.verdict.verdict == "refuted", raw
    assert "comes back to the same state" in message(raw)
    assert (raw.facts.cycle_moves or 0) > 0 and length(raw) is not None


def test_diff_says_terminates_proved_then_refuted_with_the_cycle() -> None:
    result = CliRunner().invoke(main, ["diff", "standard", HOUSE_RULE, "-p", "terminates", *QUICK])
    assert result.exit_code == 1, result.output
    out = result.output
    assert "terminates (soundness), 5 players: proved → refuted" in out, out
    assert "the cycle, after which the game is where it was" in out, out
    assert "agrees to the veto" in out.split("the cycle")[-1], out
    assert "1 verdict(s) differ, 0 unknown." in out, out


def _fake_check(verdict: Any) -> Any:
    """The catalogue's check, faked: A's `terminates` proved, B's (the second call) `verdict`."""
    calls: list[Rules] = []

    def check(rules: Rules, counts: tuple[int, ...], names: tuple[str, ...] | None, limits: Limits,
              workers: int = 1) -> list[PropertyResult]:
        calls.append(rules)
        made = Proved(Evidence("explicit")) if len(calls) % 2 else verdict
        return [PropertyResult("terminates", count, "terminates", ("R-W5",), "holds", made,
                               Facts(group="soundness")) for count in counts]
    return check


def test_an_undecided_row_is_unknown_in_the_summary_and_exits_3(monkeypatch: pytest.MonkeyPatch) -> None:
    unknown = Unknown(Evidence("explicit"), "limit: 1 s")
    monkeypatch.setattr(compare, "check", _fake_check(unknown))
    # The same rules on both sides: no game differs, so only the row can be undecided.
    args = ["diff", "standard", "standard", "-p", "terminates", *QUICK]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 3, result.output
    assert "?proved / unknown" in result.output
    assert "0 verdict(s) differ, 1 unknown (a limit was hit before a verdict: limit: 1 s); raise --property-time" \
        in result.output, result.output
    data = json.loads(CliRunner().invoke(main, [*args, "--json"]).output)
    assert data["unknown"] == 1 and data["properties"][0]["unknown"] is True
    assert data["properties"][0]["differs"] is False


def test_a_decided_change_exits_1_even_beside_an_undecided_row(monkeypatch: pytest.MonkeyPatch) -> None:
    refuted = Refuted(Evidence("explicit"), None, "a cycle")
    monkeypatch.setattr(compare, "check", _fake_check(refuted))
    result = CliRunner().invoke(main, ["diff", "standard", "standard", "-p", "terminates", *QUICK])
    assert result.exit_code == 1, result.output
    assert "terminates (soundness), 5 players: proved → refuted" in result.output


def _row(name: str, group: str, a: str, b: str) -> VerdictRow:
    def result(word: str) -> PropertyResult:
        verdicts: dict[str, Verdict] = {"proved": Proved(Evidence("explicit")),
                                     "refuted": Refuted(Evidence("explicit"), None),
                                     "unknown": Unknown(Evidence("explicit"), "limit")}
        return PropertyResult(name, 5, "always", (), "holds", verdicts[word], Facts(group=group))
    return VerdictRow(name, 5, result(a), result(b))


def test_what_changes_comes_first_soundness_before_conformance() -> None:
    rows = [_row("same", "conformance", "proved", "proved"),
            _row("undecided", "soundness", "proved", "unknown"),
            _row("conformance_change", "conformance", "proved", "refuted"),
            _row("soundness_change", "soundness", "proved", "refuted")]
    assert [row.property for row in order_rows(rows)] == ["soundness_change", "conformance_change", "undecided",
                                                         "same"]
    assert not rows[1].changed and rows[1].undecided
