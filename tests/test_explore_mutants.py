"""Deliberately wrong rules (tests/mutants/*.toml) are caught by name, with a shortest trace.

Each mutant is one classic table mistake as a variant overlay of the standard rules; the
property that must catch it is refuted on 5 and 6 players, the trace replays through the
mutant's engine and ends where the mistake shows.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from verify.checker import check
from verify.cli import main
from verify.explicit.explore import Limits
from verify.results import Refuted
from verify.rules import Rules

STANDARD_RULES = Rules.named("standard")

MUTANTS = Path(__file__).parent / "mutants"

CAUGHT_BY = {
    "reshuffle_loses_tile": "deck_conservation_fascist",       # R-L5, R-S3
    "chaos_keeps_power": "chaos_never_grants_power",            # R-E9, R-X1
    "tie_passes": "majority_elects",                            # R-E7
    "term_limit_last_nominee": "rejection_keeps_term_limits",   # R-E3
    "hitler_check_after_enactment": "hitler_win_at_election",   # R-E10
}


@pytest.mark.parametrize("players", [5, 6])
@pytest.mark.parametrize("mutant", sorted(CAUGHT_BY))
def test_mutant_is_refuted_by_name(mutant: str, players: int) -> None:
    prop = CAUGHT_BY[mutant]
    (result,) = check(Rules.named(str(MUTANTS / f"{mutant}.toml")), (players,), (prop,), Limits(time_limit=300), workers=1)
    assert result.property == prop
    assert isinstance(result.verdict, Refuted), result.verdict
    assert result.as_expected is False
    trace = result.verdict.trace
    assert trace is not None and trace.steps[0][0].rule == "deal_roles"
    game = trace.game
    last_move = trace.steps[-1][0].rule
    if mutant == "chaos_keeps_power":
        assert any(move.rule == "chaos" for move, _ in trace.steps)
        assert game.phase(trace.end) == "power" and not trace.end.by_government
    elif mutant == "term_limit_last_nominee":
        assert last_move == "reject"
    elif mutant == "tie_passes":
        assert last_move == "elect"
        assert 2 * bin(trace.steps[-1][0].args[0]).count("1") == bin(trace.states[-2].alive).count("1")
    elif mutant == "hitler_check_after_enactment":
        assert game.how(trace.end) == "hitler_chancellor"
        assert any(move.rule == "enact" for move, _ in trace.steps[-4:])


def test_the_standard_rules_are_not_refuted_where_the_mutants_are() -> None:
    results = check(STANDARD_RULES, (6,), ("rejection_keeps_term_limits", "majority_elects"),
                    Limits(max_states=50_000), workers=1)
    assert all(not isinstance(r.verdict, Refuted) for r in results)


def test_check_command_exit_status_and_itf(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["check", "--rules", str(MUTANTS / "term_limit_last_nominee.toml"), "-n", "5",
                                  "-p", "rejection_keeps_term_limits", "--traces", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert "NOT AS EXPECTED: rejection_keeps_term_limits" in result.output
    assert "Round 1" in result.output
    saved = tmp_path / "rejection_keeps_term_limits-5p.itf.json"
    assert saved.exists()
    data = saved.read_text(encoding="utf-8")
    assert '"mbt::actionTaken": "reject"' in data


def test_check_command_witness_replays_and_exit_codes(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["check", "-n", "5", "-p", "fascist_hitler_win", "--traces", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "witness" in result.output and "fewest elected governments" in result.output
    replayed = runner.invoke(main, ["replay", str(tmp_path / "fascist_hitler_win-5p.itf.json")])
    assert replayed.exit_code == 0 and "confirmed" in replayed.output
    limited = runner.invoke(main, ["check", "-n", "5", "-p", "deck_conservation_liberal", "--max-states", "500",
                                   "--json"])
    assert limited.exit_code == 3, limited.output
    assert '"verdict": "unknown"' in limited.output
    bad = runner.invoke(main, ["check", "-n", "4"])
    assert bad.exit_code == 2
    assert "R-S1" in bad.output
    unknown_property = runner.invoke(main, ["check", "-n", "5", "-p", "no_such_property"])
    assert unknown_property.exit_code == 2
