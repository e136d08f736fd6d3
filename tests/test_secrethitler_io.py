"""secrethitler.io game summaries: every shipped game judged (none illegal, the judge's
winner agrees with the roles and the log), each corruption of a real game caught at the
right log entry with the right rule ID, and the site's settings mapped to rules."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from engine.importers.secrethitler_io import import_summary, read_summary, site_rules
from engine.judge import ILLEGAL, LEGAL, UNSUPPORTED, judge, judge_benchmark
from engine.transcript import dump_transcript, parse_transcript
from verify.cli import main

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "secrethitler-io"

needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"the secrethitler.io games are not at {DATA} "
                                                          "(a checkout beside ../shared is needed)")
Summary = dict[str, Any]


@cache
def summaries() -> list[tuple[str, Summary]]:
    """Every shipped game (read once; callers copy before changing one)."""
    return [(path.stem, json.loads(path.read_text())) for path in sorted(DATA.glob("*.json"))]


def judged(summary: Summary) -> Any:
    return judge(import_summary(summary, "game.json"))


# ---------------------------------------------------------------------- every game


@needs_data
def test_every_game_is_judged_and_none_is_illegal() -> None:
    verdicts: dict[str, list[str]] = {LEGAL: [], ILLEGAL: [], UNSUPPORTED: []}
    for name, summary in summaries():
        verdicts[judged(summary).verdict].append(name)
    assert len(sum(verdicts.values(), [])) == 294
    assert verdicts[ILLEGAL] == []
    assert verdicts[UNSUPPORTED] == ["TameTrueFoamyPantherRemake8"]  # avalonSH (Merlin, Percival, Morgana)


def site_winner(summary: Summary) -> str | None:
    """The winner by the site's own reading of its last log entry, from the roles
    (buildEnhancedGameSummary.js), where that entry ends the game."""
    logs, players = summary["logs"], summary["players"]
    hitler = next(seat for seat, player in enumerate(players) if player["role"] == "hitler")
    reds = blues = 0
    for log in logs[:-1]:
        reds += log.get("enactedPolicy") == "fascist"
        blues += log.get("enactedPolicy") == "liberal"
    last = logs[-1]
    dead = {log["execution"] for log in logs[:-1] if "execution" in log}
    alive = [seat for seat in range(len(players)) if seat not in dead]
    ja = sum(1 for seat in alive if seat < len(last["votes"]) and last["votes"][seat])
    zone = summary["customGameSettings"]["hitlerZone"]
    if last["votes"] and 2 * ja > len(alive) and last.get("chancellorId") == hitler and reds >= zone:
        return "fascist"
    if last.get("execution") == hitler:
        return "liberal"
    reds += last.get("enactedPolicy") == "fascist"
    blues += last.get("enactedPolicy") == "liberal"
    return "fascist" if reds == 6 else "liberal" if blues == 5 else None


@needs_data
def test_the_judged_winner_agrees_with_the_roles_and_the_log() -> None:
    for name, summary in summaries():
        result = judged(summary)
        if result.verdict != LEGAL:
            continue
        assert result.winner == site_winner(summary), name
        assert result.complete == (site_winner(summary) is not None), name


@needs_data
def test_an_imported_game_round_trips_through_the_native_format() -> None:
    transcript = read_summary(DATA / "AbandonedTartEminentWildcatRemake7.json")
    native = parse_transcript(dump_transcript(transcript), "game.jsonl")
    assert native.entries == tuple(entry.__class__(**{**{s: getattr(entry, s) for s in entry.__slots__},
                                                      "line": index + 2})
                                   for index, entry in enumerate(transcript.entries))
    first, second = judge(transcript), judge(native)
    assert (first.verdict, first.winner, first.how) == (second.verdict, second.winner, second.how) == (
        LEGAL, "liberal", "execution")


@needs_data
def test_a_dead_seats_vote_entry_means_nothing() -> None:
    name, summary = next((n, s) for n, s in summaries() if any("execution" in log for log in s["logs"][:-1]))
    dead_at = next(k for k, log in enumerate(summary["logs"]) if "execution" in log)
    seat = summary["logs"][dead_at]["execution"]
    changed = copy.deepcopy(summary)
    for log in changed["logs"][dead_at + 1:]:
        if log["votes"]:
            log["votes"][seat] = not log["votes"][seat]
    assert judged(changed).verdict == judged(summary).verdict == LEGAL, name


# ---------------------------------------------------------------------- corruptions

Corruption = Callable[[Summary], int | None]
"""Changes a summary in place and returns the log index where the judge must object, or
None when the game has no place for this corruption."""


def legislated(log: dict[str, Any]) -> bool:
    return bool(log["presidentHand"])


def dead_before(summary: Summary, k: int) -> set[int]:
    return {log["execution"] for log in summary["logs"][:k] if "execution" in log}


def nominations(summary: Summary) -> list[int]:
    return [k for k, log in enumerate(summary["logs"]) if log.get("chancellorId") is not None and log["votes"]]


def self_nomination(summary: Summary) -> int | None:
    if not nominations(summary):
        return None
    k = nominations(summary)[0]
    summary["logs"][k]["chancellorId"] = summary["logs"][k]["presidentId"]
    return k


def dead_nominee(summary: Summary) -> int | None:
    for k in nominations(summary):
        dead = dead_before(summary, k) - {summary["logs"][k]["presidentId"]}
        if dead:
            summary["logs"][k]["chancellorId"] = min(dead)
            return k
    return None


def term_limited_nominee(summary: Summary) -> int | None:
    logs = summary["logs"]
    for k in nominations(summary)[1:]:
        previous = logs[k - 1]
        if legislated(previous) and previous["chancellorId"] != logs[k]["presidentId"] \
                and previous.get("enactedPolicy") is not None and "chancellorVeto" not in previous:
            logs[k]["chancellorId"] = previous["chancellorId"]
            return k
    return None


def tie_that_legislates(summary: Summary) -> int | None:
    for k in nominations(summary):
        if legislated(summary["logs"][k]):
            dead = dead_before(summary, k)
            alive = [seat for seat in range(len(summary["players"])) if seat not in dead]
            summary["logs"][k]["votes"] = [seat in alive[:len(alive) // 2] for seat in range(len(summary["players"]))]
            return k
    return None


def hand_not_the_top(summary: Summary) -> int | None:
    for k in nominations(summary):
        hand = summary["logs"][k]["presidentHand"]
        if legislated(summary["logs"][k]) and "liberal" in hand:
            hand[hand.index("liberal")] = "fascist"
            return k
    return None


def chancellor_hand_not_from_president(summary: Summary) -> int | None:
    for k in nominations(summary):
        log = summary["logs"][k]
        if legislated(log):
            other = "fascist" if log["presidentHand"].count("fascist") < 2 else "liberal"
            log["chancellorHand"] = [other, other]
            return k
    return None


def enacted_not_in_hand(summary: Summary) -> int | None:
    for k in nominations(summary):
        log = summary["logs"][k]
        if legislated(log) and len(set(log["chancellorHand"])) == 1 and log.get("enactedPolicy"):
            log["enactedPolicy"] = "liberal" if log["chancellorHand"][0] == "fascist" else "fascist"
            return k
    return None


def power_after_liberal(summary: Summary) -> int | None:
    logs = summary["logs"]
    for k in nominations(summary)[:-1]:
        if legislated(logs[k]) and logs[k].get("enactedPolicy") == "liberal" and "chancellorVeto" not in logs[k]:
            president = logs[k]["presidentId"]
            logs[k]["execution"] = next(seat for seat in range(len(summary["players"]))
                                        if seat != president and seat not in dead_before(summary, k))
            return k
    return None


def self_investigation(summary: Summary) -> int | None:
    for k, log in enumerate(summary["logs"]):
        if "investigationId" in log:
            log["investigationId"] = log["presidentId"]
            return k
    return None


def self_special_election(summary: Summary) -> int | None:
    for k, log in enumerate(summary["logs"]):
        if "specialElection" in log:
            log["specialElection"] = log["presidentId"]
            return k
    return None


def wrong_next_president(summary: Summary) -> int | None:
    logs = summary["logs"]
    if len(nominations(summary)) < 2:
        return None
    k = nominations(summary)[1]
    dead = dead_before(summary, k)
    logs[k]["presidentId"] = next(seat for seat in range(len(summary["players"]))
                                  if seat not in dead and seat not in (logs[k]["presidentId"], logs[k]["chancellorId"]))
    return k


def veto_too_early(summary: Summary) -> int | None:
    fascist = 0
    for k in nominations(summary):
        log = summary["logs"][k]
        if legislated(log) and fascist < 5 and log.get("enactedPolicy"):
            log["chancellorVeto"], log["presidentVeto"] = True, False
            return k
        fascist += log.get("enactedPolicy") == "fascist"
    return None


def play_after_the_end(summary: Summary) -> int | None:
    if site_winner(summary) is None:
        return None
    summary["logs"].append(copy.deepcopy(summary["logs"][-1]))
    return len(summary["logs"]) - 1


CORRUPTIONS: list[tuple[str, Corruption, str]] = [
    ("President nominates himself", self_nomination, "R-E2"),
    ("a dead seat nominated", dead_nominee, "R-E2"),
    ("a term-limited nominee", term_limited_nominee, "R-E3"),
    ("a tie that still legislates", tie_that_legislates, "R-E7"),
    ("a hand that is not the top of the deck", hand_not_the_top, "R-L1"),
    ("a Chancellor's hand not from the President's", chancellor_hand_not_from_president, "R-L2"),
    ("an enacted tile not in the hand", enacted_not_in_hand, "R-L3"),
    ("a power after a Liberal policy", power_after_liberal, "R-X1"),
    ("self-investigation", self_investigation, "R-X3"),
    ("self-special-election", self_special_election, "R-X4"),
    ("a wrong next President", wrong_next_president, "R-E1"),
    ("a veto before five Fascist policies", veto_too_early, "R-V1"),
    ("play after the end", play_after_the_end, "R-W5"),
]


@needs_data
@pytest.mark.parametrize("name,corrupt,rule_id", CORRUPTIONS, ids=[c[0] for c in CORRUPTIONS])
def test_a_corrupted_game_is_caught_at_the_right_log_entry(name: str, corrupt: Corruption, rule_id: str) -> None:
    applied = 0
    for game, summary in summaries()[::7]:
        if judged(summary).verdict != LEGAL:
            continue
        changed = copy.deepcopy(summary)
        k = corrupt(changed)
        if k is None:
            continue
        result = judged(changed)
        assert result.verdict == ILLEGAL, (game, result.summary())
        violation = result.violations[0]
        assert (violation.ref, violation.rule_id) == (k, rule_id), (game, violation)
        applied += 1
    assert applied >= 3, f"the sample has too few games where '{name}' applies"


# ---------------------------------------------------------------------- settings


def settings_of(players: int, **changes: Any) -> dict[str, Any]:
    setting = {"avalonSH": None, "noTopdecking": 0, "rebalance6p": False, "rebalance7p": False,
               "rebalance9p": False}
    custom = {"enabled": False, "powers": None}
    summary: dict[str, Any] = {"gameSetting": setting, "customGameSettings": custom}
    for key, value in changes.items():
        (custom if key in ("enabled", "powers", "deckState", "trackState", "hitlerZone", "vetoZone",
                           "fascistCount", "hitKnowsFas") else setting)[key] = value
    return summary


CUSTOM = {"enabled": True, "powers": ["election", "bullet", "election", "bullet", "bullet"],
          "deckState": {"lib": 6, "fas": 19}, "trackState": {"lib": 0, "fas": 0}, "hitlerZone": 4, "vetoZone": 5,
          "fascistCount": 2, "hitKnowsFas": True}


@pytest.mark.parametrize("players,changes,rules", [
    (7, {}, "standard"),
    (6, {"rebalance6p": True}, "rebalance6p"),
    (7, {"rebalance7p": True}, "rebalance7p"),
    (9, {"rebalance9p": True}, "rebalance9p"),
    (7, {"rebalance6p": True}, "standard"),       # the flag applies to 6 players only
    (7, {"noTopdecking": 1}, "no_topdecking"),
    (5, {"noTopdecking": 2}, "no_topdecking_twice"),
    (7, CUSTOM, "custom[deck_fascist=19; hitler_knows_fascists=true; hitler_zone=4; "
                "powers=special_election,execution,special_election,execution,execution]"),
    (7, {**CUSTOM, "hitKnowsFas": False, "deckState": {"lib": 6, "fas": 11}, "hitlerZone": 3,
         "powers": [None, "investigate", "election", "bullet", "bullet"]}, "custom"),
    (5, {**CUSTOM, "fascistCount": 1, "powers": [None, None, "deckpeek", "bullet", "bullet"],
         "noTopdecking": 1}, "no_topdecking[deck_fascist=19; hitler_zone=4]"),
])
def test_site_settings_become_rules(players: int, changes: dict[str, Any], rules: str) -> None:
    name, settings, reasons, _ = site_rules(settings_of(players, **changes), players)
    assert (name, reasons) == (rules, [])
    assert settings is not None


@pytest.mark.parametrize("players,changes,words", [
    (7, {"avalonSH": {"withPercival": True}}, "avalonSH"),
    (7, {"monarchistSH": True}, "Monarchist"),
    (7, {"noTopdecking": 3}, "noTopdecking"),
    (7, {**CUSTOM, "powers": ["reverseinv", None, "election", "bullet", "bullet"]}, "reverse-investigation"),
    (7, {**CUSTOM, "powers": [None, "peekdrop", "election", "bullet", "bullet"]}, "peek-and-drop"),
    (7, {"enabled": False, "powers": [None, "investigate", "election", "bullet", "bullet"],
         "deckState": {"lib": 6, "fas": 10}, "trackState": {"lib": 0, "fas": 0}, "hitlerZone": 3, "vetoZone": 5,
         "fascistCount": 2}, "disagree"),
])
def test_settings_outside_the_rules_are_unsupported(players: int, changes: dict[str, Any], words: str) -> None:
    _, _, reasons, _ = site_rules(settings_of(players, **changes), players)
    assert reasons and words in " ".join(reasons)


@needs_data
def test_an_unsupported_game_says_why() -> None:
    result = judge(read_summary(DATA / "TameTrueFoamyPantherRemake8.json"))
    assert result.verdict == UNSUPPORTED and "avalonSH" in (result.reason or "")


# ---------------------------------------------------------------------- the command line and speed


@needs_data
def test_the_cli_judges_the_folder() -> None:
    result = CliRunner().invoke(main, ["judge", "--format", "secrethitler-io", str(DATA)])
    assert result.exit_code == 3, result.output[-2000:]      # the Avalon game could not be judged
    assert "judged 294 games: 293 legal, 0 illegal, 1 unsupported" in result.output.splitlines()[-1]


@needs_data
def test_a_malformed_summary_is_exit_2(tmp_path: Path) -> None:
    summary = json.loads((DATA / "AbandonedTartEminentWildcatRemake7.json").read_text())
    summary["logs"][3]["votes"] = [True, "ja"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(summary))
    result = CliRunner().invoke(main, ["judge", str(bad)])
    assert result.exit_code == 2 and "logs[3].votes" in result.stderr and "Traceback" not in result.stderr


@needs_data
@pytest.mark.slow
def test_judging_is_fast() -> None:
    """The goal is 500 games/s on one core; the bound here leaves room for a busy machine."""
    assert judge_benchmark(DATA, seconds=2.0) >= 250
