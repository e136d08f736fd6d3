"""Mutation analysis (verify/diff/operators.py, verify/diff/mutate.py, `shrules mutate`):
the operators make the expected mutants; a mutant the catalogue notices is killed; one no
game can tell apart is proved equivalent by a complete product search; the exit codes."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from spec.loader import load_spec
from verify.cli import main
from verify.diff.mutate import base_verdicts, decide
from verify.diff.operators import OPERATORS, mutants
from verify.explicit.explore import Limits

LIMITS = Limits(None, 120.0, None)


def _short_game(folder: Path) -> str:
    """A 6-player custom game starting with 3 Liberal and 4 Fascist policies: small
    enough to search completely (as in test_diff.py)."""
    path = folder / "short.toml"
    path.write_text('extends = "custom"\n[settings]\nstart_liberal = 3\nstart_fascist = 4\nplayers = "6"\n',
                    encoding="utf-8")
    return str(path)


def test_the_operators_make_the_expected_mutants_in_a_fixed_order() -> None:
    spec = load_spec("standard")
    (boundary,) = mutants(spec, ("boundary",), ("nominate",))
    assert boundary.rule == "nominate" and boundary.rule_ids == ("R-E4",)
    assert "alive_count <= few_alive -> alive_count < few_alive" in boundary.description
    dropped = mutants(spec, ("drop_requirement",), ("nominate",))
    assert [m.rule_ids for m in dropped] == [("R-E2",), ("R-E2",), ("R-E3",), ("R-E4",)]
    everything = mutants(spec)
    assert [m.number for m in everything] == list(range(1, len(everything) + 1))
    assert [m.operator for m in everything] == sorted((m.operator for m in everything), key=OPERATORS.index)
    by_number = {m.number: m for m in everything}
    assert all(by_number[m.number].description == m.description for m in dropped + [boundary])
    shifted = mutants(spec, ("table_shift",), ("R-X7",))
    assert len(shifted) == 6 and all(m.counts for m in shifted)
    assert "board[5-6] shifted left: none, peek, execution, execution, none" in shifted[0].description
    assert mutants(spec, ("seat",), ("execute",))   # the target replaced by another seat


def test_a_mutant_the_catalogue_notices_is_killed() -> None:
    base = load_spec("standard")
    (negated,) = [m for m in mutants(base, ("negate",), ("elect",)) if "2 * count(ja)" in m.description]
    outcome = decide(base, negated, 5, {"only_the_living_vote": "proved"}, LIMITS)
    assert outcome.status == "killed", outcome.line
    assert outcome.detail.startswith("only_the_living_vote: proved -> refuted") and outcome.game


def test_a_mutant_no_game_tells_apart_is_proved_equivalent(tmp_path: Path) -> None:
    base = load_spec(_short_game(tmp_path))
    (mutant,) = mutants(base, ("boundary",), ("hitler_elected",))   # >= 3 is > 3 when 4 are enacted
    verdicts = base_verdicts(base, 6, LIMITS, ("hitler_elected_wins", "hitler_zone_decides"))
    outcome = decide(base, mutant, 6, verdicts, LIMITS)
    assert outcome.status == "equivalent" and "complete product search" in outcome.detail, outcome.line


def test_a_change_for_other_player_counts_is_equivalent_without_a_search() -> None:
    base = load_spec("standard")
    mutant = next(m for m in mutants(base, ("table_shift",)) if m.counts == (7, 8))
    assert decide(base, mutant, 5, {}, LIMITS).status == "equivalent"


@pytest.mark.parametrize("extra, status", [
    ([], 0),                                            # the one boundary mutant: equivalent
    (["--operator", "negate", "--cap", "1"], 1),        # Hitler never wins: this property alone misses it
    (["--operator", "drop_requirement", "--cap", "1"], 3),   # equivalent, but one mutant not run
])
def test_the_exit_status_says_whether_every_mutant_was_decided(tmp_path: Path, extra: list[str],
                                                               status: int) -> None:
    args = ["mutate", "--rules", _short_game(tmp_path), "-n", "6", "--rule", "hitler_elected", "--json",
            "--property", "hitler_elected_wins"]
    args += extra or ["--operator", "boundary"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == status, result.output
    assert '"schema": "shrules-mutate"' in result.output
