"""`shrules diff`: the shortest game that tells two rule sets apart, found and reported right.

Known first differences (each argued in a comment from RULES.md) are asserted with their
length, kind and rule IDs; the reductions give the same answers as the plain product
search; a proof of sameness is a complete search; the saved game replays under the rule
set that allows it; exit codes follow the CLI's convention.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.trace import replay_itf
from spec.loader import load_spec
from verify.cli import main
from verify.diff import Budget, diff, hidden_fields, subset_representatives
from verify.diff.product import Difference

SEARCH_ONLY = Budget(max_pairs=400_000, seconds=300.0, random_games=0)
"""Breadth-first search only: every difference asserted below is found by it, so it is the shortest."""


def first(a: str, b: str, players: int, budget: Budget = SEARCH_ONLY, reductions: bool = True) -> Difference:
    result = diff(load_spec(a), load_spec(b), [players], budget, reductions=reductions)
    assert result.verdict == "differ", [c.verdict for c in result.counts]
    return result.differences[0]


@pytest.mark.parametrize("mutant, players, decisions, kind, rule_id", [
    # deal, first President, nomination; the vote 3:3 is where R-E7 parts them (6 players)
    ("tie_passes", 6, 3, "legality", "R-E7"),
    # a rejected nomination, then the rejected nominee nominated again (R-E3: only the elected)
    ("term_limits_last_nominated", 5, 4, "legality", "R-E3"),
    # one elected government in a 5-player game, then the last President nominated (R-E4)
    ("few_alive_off_by_one", 5, 7, "legality", "R-E4"),
    # a 7-player government's first Fascist policy: slot 1 has no power, slot 2 investigates
    ("powers_off_by_one", 7, 6, "forced", "R-X7"),
    # three failed votes at 9 players and a Fascist chaos tile on slot 1 (Investigate)
    ("chaos_grants_power", 9, 8, "forced", "R-X1"),
    # the first session: a veto proposed with no Fascist policy enacted (R-V1)
    ("veto_without_five", 5, 6, "legality", "R-V1"),
    # the third failed vote ends the game under the site's noTopdecking
    ("no_topdecking", 5, 8, "outcome", "R-W5"),
    # rebalanced 6 players: the first draw comes from 6 Liberal and 10 Fascist tiles
    ("rebalance", 6, 4, "odds", "R-L1"),
])
def test_the_first_difference_is_the_shortest_one(mutant: str, players: int, decisions: int, kind: str,
                                                  rule_id: str) -> None:
    difference = first("standard", mutant, players)
    parting = difference.parting
    assert (difference.decisions, parting.kind, difference.shortest) == (decisions, kind, True), parting
    assert rule_id in parting.rule_ids, parting
    if kind == "legality":
        refused = parting.under_b if parting.legal_under == "a" else parting.under_a
        assert refused.startswith(f"illegal — {rule_id}: "), refused
        assert parting.legal_under in ("a", "b")
    trace = difference.legal_trace
    assert trace.steps[0][0].rule == "deal_roles"
    decisions_in_trace = sum(1 for move, _ in trace.steps[:difference.common]
                             if trace.game.by_name[move.rule].rule.actor != "game")
    assert decisions_in_trace == decisions


@pytest.mark.parametrize("mutant, players", [
    ("term_limits_last_nominated", 5), ("few_alive_off_by_one", 5), ("veto_without_five", 5), ("tie_passes", 6),
])
def test_the_reductions_find_the_same_shortest_difference_as_the_plain_search(mutant: str, players: int) -> None:
    reduced = first("standard", mutant, players)
    plain = first("standard", mutant, players, reductions=False)
    assert (reduced.decisions, reduced.parting.kind) == (plain.decisions, plain.parting.kind)
    assert set(reduced.parting.rule_ids) == set(plain.parting.rule_ids)


def _short_game(folder: Path, extra: str = "") -> str:
    """A 6-player custom game that starts with 3 Liberal and 4 Fascist policies enacted:
    small enough to search completely."""
    path = folder / f"short{len(extra)}.toml"
    path.write_text('extends = "custom"\n[settings]\nstart_liberal = 3\nstart_fascist = 4\nplayers = "6"\n' + extra,
                    encoding="utf-8")
    return str(path)


@pytest.mark.slow
def test_the_same_game_written_differently_is_proved_the_same_by_a_complete_search(tmp_path: Path) -> None:
    a = _short_game(tmp_path)
    b = _short_game(tmp_path, '[[requirement]]\nrule = "elect"\nid = "R-E7"\nwhen = "count(ja) * 2 > alive_count"\n'
                              '[[requirement]]\nrule = "reject"\nid = "R-E7"\nwhen = "not (count(ja) * 2 > alive_count)"\n')
    result = diff(load_spec(a), load_spec(b), None, SEARCH_ONLY)
    (entry,) = result.counts
    assert result.verdict == "same" and entry.complete and not entry.note, entry
    assert entry.pairs > 1_000


def test_identical_rules_need_no_search() -> None:
    result = diff(load_spec("standard"), load_spec("custom"), None, SEARCH_ONLY)
    assert result.verdict == "same"
    assert all(entry.pairs == 0 and "same rules" in entry.note for entry in result.counts)


def test_a_difference_beyond_the_search_budget_is_found_by_random_play() -> None:
    budget = Budget(max_pairs=2_000, seconds=60.0, random_games=2_000, random_seconds=60.0, first_only=True)
    result = diff(load_spec("standard"), load_spec("dead_in_rotation"), [5], budget)
    difference = result.differences[0]
    assert not difference.shortest and difference.searched == result.counts[0].depth > 0
    assert difference.decisions > difference.searched
    assert difference.parting.kind == "legality" and "R-E1" in difference.parting.rule_ids


def test_the_product_search_keeps_the_ordinary_fascists_only_where_they_can_matter() -> None:
    standard = load_spec("standard")
    assert hidden_fields(standard, standard) == {"fascists"}
    assert "fascists" not in hidden_fields(standard, load_spec("investigation_shows_role"))


def test_vote_representatives_cover_every_size_and_domain_class() -> None:
    alive, everyone = 0b11011, 0b11111
    reps = subset_representatives(alive, everyone)
    for size in range(6):
        assert any(r.bit_count() == size and r & ~alive == 0 for r in reps) or size > 4
        assert any(r.bit_count() == size and r & ~alive for r in reps) or size == 0
    assert subset_representatives(alive, None) == [0, 0b1, 0b11, 0b1011, 0b11011]


# ============================================================== the command


def test_diff_prints_the_game_the_rule_ids_and_saves_a_replayable_trace(tmp_path: Path) -> None:
    trace_file = tmp_path / "tie.itf.json"
    result = CliRunner().invoke(main, ["diff", "standard", "tie_passes", "--no-properties", "-n", "6",
                                       "--trace", str(trace_file)])
    assert result.exit_code == 1, result.output
    assert "part ways at 6 players after 3 decisions" in result.output
    assert "tie_passes: illegal — R-E7:" in result.output or "standard:   illegal — R-E7:" in result.output
    replayed = replay_itf(trace_file)
    assert replayed.ok, replayed.message
    assert replayed.trace.steps[-1][0].rule in ("elect", "reject", "legislate", "pass_candidacy", "next_round")
    data = json.loads(trace_file.read_text())
    assert data["#meta"]["source"] in ("standard", "tie_passes")


def test_diff_of_identical_rules_exits_zero() -> None:
    result = CliRunner().invoke(main, ["diff", "standard", "standard", "--no-properties"])
    assert result.exit_code == 0, result.output
    assert "No game tells the rule sets apart." in result.output


def test_diff_compares_every_propertys_verdict_side_by_side(tmp_path: Path) -> None:
    a = _short_game(tmp_path)
    b = _short_game(tmp_path, '[[requirement]]\nrule = "elect"\nid = "R-E7"\nwhen = "2 * count(ja) >= alive_count"\n'
                              '[[requirement]]\nrule = "reject"\nid = "R-E7"\nwhen = "2 * count(ja) < alive_count"\n')
    result = CliRunner().invoke(main, ["diff", a, b, "--workers", "1", "--property-time", "120", "--json"])
    assert result.exit_code == 1, result.output
    data = json.loads(result.output)
    rows = {row["property"]: row for row in data["properties"]}
    assert (rows["majority_elects"]["a"], rows["majority_elects"]["b"]) == ("proved", "refuted")
    assert rows["majority_elects"]["differs"] is True
    # The tie moves the outcome of a vote (R-E7) and nothing else: only the properties
    # about votes may tell the two apart.
    differing = {name for name, row in rows.items() if row["differs"]}
    assert differing <= {"majority_elects", "no_majority_rejects", "only_the_living_vote",
                         "the_vote_may_fail_narrowly", "the_vote_may_elect_narrowly"}, differing


@pytest.mark.parametrize("args, words", [
    (["standard", "nosuch"], ["no rules or variant named 'nosuch'"]),
    (["standard", "tie_passes", "-n", "4"], ["4 is not a player count of both"]),
    (["standard", "tie_passes", "-n", "five"], ["expected player counts"]),
    (["standard", "custom", "--set", "deck_fascit=3"], ["Did you mean 'deck_fascist'?"]),
    (["standard", "rebalance7p", "-n", "6"], ["6 is not a player count of both"]),
])
def test_bad_input_is_one_line_and_exit_two(args: list[str], words: list[str]) -> None:
    result = CliRunner().invoke(main, ["diff", *args, "--no-properties"])
    assert result.exit_code == 2, result.output
    for word in words:
        assert word in result.output
    assert "Traceback" not in result.output


def test_a_limit_without_a_difference_exits_three() -> None:
    # Investigation exists only from 7 players: at 5 no game tells these apart, but a
    # tiny budget cannot prove it.
    result = CliRunner().invoke(main, ["diff", "standard", "investigation_shows_role", "-n", "5", "--no-properties",
                                       "--max-pairs", "500", "--random-games", "5"])
    assert result.exit_code == 3, result.output
    assert "no difference after fewer than" in result.output


def test_settings_apply_to_the_second_rule_set() -> None:
    result = CliRunner().invoke(main, ["diff", "standard", "custom", "-n", "7", "--set", "deck_fascist=10",
                                       "--no-properties", "--json"])
    assert result.exit_code == 1, result.output
    data = json.loads(result.output)
    assert data["b"] == "custom[deck_fascist=10]"
    assert data["counts"][0]["difference"]["kind"] == "odds"


@pytest.mark.slow
@pytest.mark.parametrize("mutant, players", [("powers_off_by_one", 7), ("chancellor_only_term_limit", 6)])
def test_the_reductions_agree_on_larger_games(mutant: str, players: int) -> None:
    reduced = first("standard", mutant, players)
    plain = first("standard", mutant, players, Budget(max_pairs=3_000_000, seconds=3_000.0, random_games=0),
                  reductions=False)
    assert (reduced.decisions, reduced.parting.kind) == (plain.decisions, plain.parting.kind)


@pytest.mark.slow
def test_rebalanced_seven_players_part_on_a_draw_the_smaller_deck_cannot_give() -> None:
    difference = first("standard", "rebalance", 7, Budget(max_pairs=2_000_000, seconds=600.0, random_games=0,
                                                          odds=False))
    parting = difference.parting
    assert parting.kind == "legality" and parting.legal_under == "a"
    assert parting.under_b.startswith("illegal — R-L1: the draw pile cannot give 3 Fascist tiles")


def test_balance_compares_how_often_each_side_wins() -> None:
    """Rebalancing the 7-player deck (one Fascist tile fewer) makes the Liberals win
    more often; the same rules on both sides give the same games and no difference."""
    args = ["-n", "7", "--no-properties", "--time-limit", "5", "--random-time", "1", "--balance", "6000", "--json"]
    result = CliRunner().invoke(main, ["diff", "standard", "rebalance", *args])
    assert result.exit_code == 1, result.output
    rows = {row["side"]: row for row in json.loads(result.stdout)["balance"]}
    assert set(rows) == {"liberal", "fascist"}
    assert rows["liberal"]["difference"] > 0 and rows["liberal"]["differs"]
    assert abs(rows["liberal"]["a"] + rows["fascist"]["a"] - 1) < 1e-9
    same = CliRunner().invoke(main, ["diff", "standard", "standard", *args])
    assert all(row["difference"] == 0 and not row["differs"] for row in json.loads(same.stdout)["balance"])
    text = CliRunner().invoke(main, ["diff", "standard", "rebalance", *args[:-1]]).stdout
    assert "Balance (6,000 random games" in text and "liberal wins: standard" in text


ONE_SHORT = "custom[start_fascist=5; start_liberal=4; veto_zone=6; deck_liberal={liberal}; deck_fascist={fascist}]"
"""Both tracks one policy short of a win (tests/test_odds_by_hand.py works their odds out by hand)."""


def test_exact_balance_gives_the_shift_in_fractions() -> None:
    """A pile of three Fascist tiles against one of a Liberal and two Fascist tiles: under
    `uniform` the Liberals win with 0 against 13/60 (tests/test_odds_by_hand.py), so B
    moves their odds by exactly +13/60 and the Fascists' by -13/60."""
    a, b = ONE_SHORT.format(liberal=4, fascist=8), ONE_SHORT.format(liberal=5, fascist=7)
    args = ["-n", "5", "--no-properties", "--time-limit", "5", "--random-time", "1", "--balance", "exact"]
    result = CliRunner().invoke(main, ["diff", a, b, *args, "--json"])
    assert result.exit_code == 1, result.output       # the games differ; the balance never decides the status
    rows = {row["side"]: row for row in json.loads(result.stdout)["balance"]}
    assert rows["liberal"]["fraction_a"] == "0" and rows["liberal"]["fraction_b"] == "13/60"
    assert rows["liberal"]["fraction_difference"] == "13/60" and rows["liberal"]["differs"]
    assert rows["fascist"]["fraction_difference"] == "-13/60"
    assert all(row["exact"] and row["error_bound"] == 0 and row["strategy"] == "uniform" for row in rows.values())
    text = CliRunner().invoke(main, ["diff", a, b, *args]).stdout
    assert "exact odds under the strategy profile 'uniform'" in text and "+21.667 points" in text


def test_exact_balance_of_the_same_rules_moves_nothing() -> None:
    same = ONE_SHORT.format(liberal=5, fascist=7)
    args = ["-n", "5", "--no-properties", "--time-limit", "5", "--random-time", "1", "--balance", "exact",
            "--strategy", "partisan", "--json"]
    result = CliRunner().invoke(main, ["diff", same, same, *args])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["balance"]
    assert rows and all(row["difference"] == 0 and not row["differs"] and row["strategy"] == "partisan"
                        for row in rows)


def test_exact_balance_a_limit_leaves_it_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    """Odds a limit stopped are no odds: the row says so and the command exits 3."""
    monkeypatch.setattr("verify.cli.diff.ODDS_SECONDS", 1e-9)
    args = ["-n", "5", "--no-properties", "--time-limit", "5", "--random-time", "1", "--balance", "exact", "--json"]
    result = CliRunner().invoke(main, ["diff", "standard", "standard", *args])
    assert result.exit_code == 3, result.output
    [row] = json.loads(result.stdout)["balance"]
    assert row["complete"] is False and "time limit" in row["limit"]


@pytest.mark.parametrize("args, message", [
    (["--balance", "many"], "a number of games (0 to 10,000,000) or 'exact'"),
    (["--balance", "-1"], "not within 0 to 10,000,000"),
    (["--balance", "100", "--strategy", "partisan"], "--strategy is the profile of --balance exact"),
])
def test_balance_bad_options_exit_2(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["diff", "standard", "rebalance", *args])
    assert result.exit_code == 2 and message in result.output, result.output


def test_exact_balance_past_its_memory_bound_leaves_it_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    """A computation of odds past its memory bound (verify/budgets.py `ODDS_MEMORY_MIB`)
    stops: the row is unknown, never a figure of part of the graph."""
    monkeypatch.setattr("verify.cli.diff.ODDS_MEMORY_MIB", 1)
    args = ["-n", "5", "--no-properties", "--time-limit", "5", "--random-time", "1", "--balance", "exact", "--json"]
    result = CliRunner().invoke(main, ["diff", "standard", "standard", *args])
    assert result.exit_code == 3, result.output
    [row] = json.loads(result.stdout)["balance"]
    assert row["complete"] is False and "A: memory limit: 1 MiB" in row["limit"], row
