"""A property whose premise the rules never reach is vacuous: a verdict, never a pass.

The premise of each property is derived from its typed tree and its `on` list
(spec/premises.py); the explicit search asks it beside the property, the solver by
random games, then BMC. Under the standard rules every premise is reached at every
player count the property is stated for; a rule set that makes one unreachable gets
`vacuous`, with the standard rules' shortest game to the premise, and the reports, the
gate and the exit status treat it as a verdict not as expected.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.game import Game, compiled_game
from report_samples import RUN, sample_results, with_verdict
from spec.lang import nodes as n
from spec.lang.types import BOOL
from spec.loader import load_spec
from spec.premises import PREMISE, guard, premise, premises
from spec.properties import Property
from verify.checker import check
from verify.cli import main
from verify.explicit.check import check_game, check_players, select
from verify.report import exit_status, write_report
from verify.report.baseline import compare, entries_of
from verify.report.records import result_record
from verify.report.schema import validate_report
from verify.results import (EXIT_FAILED, Evidence, Limits, PropertyResult, Proved, Unknown, Unwitnessed, Vacuous,
                            Witnessed)
from verify.smt.playouts import played_breaches
from verify.smt.vacuity import judge_premises
from verify.rules import Rules
from helpers import message

STANDARD_RULES = Rules.named("standard")

STANDARD = {prop.name: prop for prop in select(STANDARD_RULES)}


def _premise(name: str) -> Property:
    question = premise(STANDARD[name])
    assert question is not None, name
    assert question.kind == "sometimes" and question.name == name + PREMISE
    return question


# ------------------------------------------------------------------ which forms are premises


def test_the_first_disjunct_is_the_guard_of_a_state_property() -> None:
    # phase != 'power' or (...): tested only where phase == 'power'.
    prop = STANDARD["power_only_after_government_fascist"]
    assert isinstance(prop.state, n.BoolOp)
    question = _premise(prop.name)
    assert question.state == n.Unary(prop.state.type, "not", prop.state.operands[0])
    assert question.move is None and question.on == ()


def test_not_a_or_b_has_the_premise_a() -> None:
    # not (phase == 'power' and power == 'peek') or ...: the premise is the conjunction itself.
    prop = STANDARD["peek_finds_three"]
    assert isinstance(prop.state, n.BoolOp) and isinstance(prop.state.operands[0], n.Unary)
    assert _premise(prop.name).state == prop.state.operands[0].operand


def test_a_never_of_a_conjunction_is_guarded_by_its_first_conjunct() -> None:
    # never (phase == 'power' and not by_government): whenever phase == 'power', ...
    prop = STANDARD["chaos_never_grants_power"]
    assert isinstance(prop.state, n.BoolOp) and prop.state.op == "and"
    assert _premise(prop.name).state == prop.state.operands[0]


def test_a_move_filter_is_a_premise_joined_to_a_guard_of_the_move() -> None:
    plain = _premise("nominee_eligible")              # no guard: some nomination must happen
    assert plain.on == ("nominate",) and plain.move == n.Lit(BOOL, True)
    guarded = _premise("hitler_zone_decides")       # fascist_policies < hitler_zone or ...
    prop = STANDARD["hitler_zone_decides"]
    assert isinstance(prop.move, n.BoolOp)
    assert guarded.on == ("legislate",) and guarded.move == n.Unary(prop.move.type, "not", prop.move.operands[0])


def test_a_permission_is_premised_on_its_state() -> None:
    prop = STANDARD["the_president_may_accept_the_veto"]
    question = _premise(prop.name)
    assert question.state == prop.state and question.move is None and question.on == ()


def test_a_case_split_and_a_plain_claim_have_no_guard() -> None:
    # chancellor_hand >= 1 if tile == 'fascist' else chancellor_hand <= 1: both sides tested.
    split = STANDARD["chancellor_enacts_a_tile_he_holds"]
    assert split.move is not None and guard(split.move) is None
    assert _premise(split.name).move == n.Lit(BOOL, True)
    claim = STANDARD["tracks_in_range"]
    assert claim.state is not None and guard(claim.state) is None and premise(claim) is None


@pytest.mark.parametrize("kind", ["sometimes", "terminates", "deadlock_free", "in_range"])
def test_kinds_without_a_premise(kind: str) -> None:
    assert all(premise(prop) is None for prop in STANDARD.values() if prop.kind == kind)


def test_every_filtered_guarded_or_permission_property_has_a_premise() -> None:
    # Automatic, not a list: every property with a move filter, every permission, every
    # state invariant written as a "when" (a top-level `or`), and nothing else.
    asked = premises(tuple(STANDARD.values()))
    expected = {prop.name for prop in STANDARD.values()
                if prop.kind in ("allows", "only") or (prop.kind in ("always", "never", "shows") and prop.on)
                or (prop.kind == "always" and isinstance(prop.state, n.BoolOp) and prop.state.op == "or")
                or (prop.kind == "never" and isinstance(prop.state, n.BoolOp) and prop.state.op == "and")}
    assert set(asked) == expected
    assert len(expected) > 60


# ------------------------------------------------------------------ the standard rules reach every premise


def _vacuous_or_undecided(players: int) -> list[str]:
    raws = check_players(STANDARD_RULES, players, None, Limits(time_limit=600))
    return [f"{raw.property}: {raw.verdict.verdict} {message(raw)}" for raw in raws if raw.verdict.verdict in ("vacuous", "unknown")]


def test_no_property_is_vacuous_under_the_standard_rules_at_5() -> None:
    assert _vacuous_or_undecided(5) == []


@pytest.mark.slow
def test_no_property_is_vacuous_under_the_standard_rules_at_6() -> None:
    assert _vacuous_or_undecided(6) == []


@pytest.mark.slow
@pytest.mark.parametrize("players", [7, 8, 9, 10])
def test_every_premise_is_reached_by_a_game_of_the_standard_rules(players: int) -> None:
    # Random games first (each premise as the `never` a game reaching it breaks); the
    # few they miss are asked of the complete search, which must witness them.
    # A premise of a property over monitored rules (the order of play) is played on them.
    asked = premises(tuple(p for p in STANDARD.values() if players in p.players))
    missed: list[Property] = []
    for rules in dict.fromkeys(q.rules or "standard" for q in asked.values()):
        mine = [q for q in asked.values() if (q.rules or "standard") == rules]
        reached = played_breaches(Game(load_spec(rules), players), [replace(q, kind="never") for q in mine])
        missed += [q for q in mine if q.name not in reached]
    assert len(missed) <= 3, [q.name for q in missed]
    for question in missed:
        (raw,) = check_game(compiled_game(players, question.rules or "standard"), (question,),
                            Limits(time_limit=600), stop_on=frozenset((question.name,)), fewest_elections=False,
                            vacuity=False)
        assert raw.verdict.verdict == "witness", (question.name, raw.verdict.verdict, message(raw))


# ------------------------------------------------------------------ a rule set that makes a premise unreachable


@pytest.fixture(scope="module")
def without_veto() -> PropertyResult:
    (result,) = check(Rules.named("no_veto"), (5,), ("the_president_may_accept_the_veto",), Limits(time_limit=300), workers=1)
    return result


def test_a_premise_the_rules_never_reach_makes_the_property_vacuous(without_veto: PropertyResult) -> None:
    verdict = without_veto.verdict
    assert isinstance(verdict, Vacuous), verdict
    assert verdict.premise == "a state where phase == 'veto'"
    assert without_veto.as_expected is False          # never a pass
    # The standard rules' shortest game to the premise, replayed by their engine.
    assert verdict.trace is not None and verdict.trace.game.spec.name == "standard"
    assert verdict.trace.steps[-1][0].rule == "propose_veto"


def test_a_vacuous_verdict_is_not_as_expected_even_where_failure_is_expected() -> None:
    vacuous = Vacuous(Evidence("explicit"), "a move of investigate")
    result = PropertyResult("p", 5, "always", (), "fails", vacuous)
    assert result.as_expected is False


def test_check_exits_1_on_a_vacuous_verdict_and_says_so() -> None:
    out = CliRunner().invoke(main, ["check", "--rules", "no_veto", "-n", "5", "-p", "the_president_may_refuse_the_veto"])
    assert out.exit_code == EXIT_FAILED, out.output
    assert "vacuous" in out.output and "its premise is never reached (a state where phase == 'veto')" in out.output


def test_reports_the_gate_and_the_exit_status_treat_vacuous_as_a_verdict(without_veto: PropertyResult,
                                                                       tmp_path: Path) -> None:
    results = sample_results()
    name, players = results[0].property, results[0].players
    changed = with_verdict(results, name, players, without_veto.verdict)
    record = result_record(next(r for r in changed if r.property == name and r.players == players))
    assert record["verdict"] == "vacuous" and record["status"] == "not-as-expected"
    assert "never reached" in record["message"] and record["trace"] is not None
    assert exit_status(changed) == EXIT_FAILED
    written = write_report(changed, tmp_path, RUN)
    document = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    validate_report(document)
    assert document["summary"]["verdicts"]["vacuous"] == 1
    cases = ET.parse(tmp_path / "junit.xml").getroot().iter("testcase")
    failures = [case.find("failure") for case in cases if case.find("failure") is not None]
    assert any(f is not None and f.get("type") == "vacuous" for f in failures)
    assert "*vacuous*" in (tmp_path / "report.md").read_text(encoding="utf-8")
    assert written.exit_status == EXIT_FAILED
    # The gate: proved in the baseline, vacuous now, is a change of verdict.
    (change,) = compare(entries_of(results), changed, RUN)
    assert (change.old, change.new) == (results[0].verdict.verdict, "vacuous")


# ------------------------------------------------------------------ the solver's side


def _proved(prop: Property) -> tuple[Property, PropertyResult]:
    return prop, PropertyResult(prop.name, 5, prop.kind, prop.rule_ids, prop.expect, Proved(Evidence("k-induction")))


def test_the_solver_judges_a_proof_by_its_premise() -> None:
    spec = load_spec("no_veto")
    catalogue = {p.name: p for p in select(Rules.named("no_veto"))}
    pairs = [_proved(catalogue[name]) for name in ("the_president_may_accept_the_veto", "nominee_eligible",
                                                   "the_president_may_refuse_the_veto")]
    asked: list[str] = []

    def decide(question: Property) -> Witnessed | Unwitnessed | Unknown:
        asked.append(question.name)
        if question.name.startswith("the_president_may_accept"):
            return Unwitnessed(Evidence("k-induction"))
        return Unknown(Evidence("bmc"), "limit: 1 s")
    judged = {r.property: r.verdict for r in judge_premises(spec, 5, pairs, decide)}
    # Random games reach a nomination: the solver is not asked, the proof stands.
    assert isinstance(judged["nominee_eligible"], Proved) and "nominee_eligible.premise" not in asked
    assert isinstance(judged["the_president_may_accept_the_veto"], Vacuous)
    refuse = judged["the_president_may_refuse_the_veto"]
    assert isinstance(refuse, Unknown) and "it may hold vacuously" in refuse.reason
