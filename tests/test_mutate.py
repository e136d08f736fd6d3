"""Mutation analysis (verify/diff/operators.py, verify/diff/mutate.py, `shrules mutate`):
the operators make the expected mutants; a mutant the catalogue notices is killed; one no
game can tell apart is proved equivalent by a complete product search; the exit codes."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from engine.game import Game
from spec.loader import load_spec
from spec.properties import Property, load_properties
from verify.cli import main
from verify.diff.gate import load_record, names
from verify.diff.mutate import base_verdicts, baseline_verdicts, decide, only_rule_changed, rules_changed, same_shape
from verify.diff.operators import OPERATORS, mutants
from verify.smt.equivalence import (rule_makes_the_same_moves, rule_sets_play_the_same_games, rule_stops_a_quiet_step_short,
                               rules_never_fire)
from verify.explicit.check import check_game, probe_game, replay
from verify.explicit.explore import Limits
from verify.explicit.model import Model
from verify.report.baseline import baseline_path, load_baseline
from verify.results import Verdict, VerdictKind
from helpers import length, message, moves

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
    outcome = decide(base, negated, 5, {"only_the_living_vote": VerdictKind.PROVED}, LIMITS)
    assert outcome.status == "killed", outcome.line
    assert outcome.detail.startswith("only_the_living_vote: proved -> refuted") and outcome.game


def test_random_games_kill_first_with_a_game_the_mutant_plays() -> None:
    """The first stage: random games under the mutant, the catalogue checked on every state
    and move; the killing game replays move by move under the mutant."""
    base = load_spec("standard")
    (dropped,) = [m for m in mutants(base, ("constant",), ("enact",)) if "fascist_policies: literal 1 -> 2" in m.description]
    props = tuple(p for p in load_properties(dropped.spec) if p.name == "deck_conservation_fascist")
    (raw,) = probe_game(Game(dropped.spec, 5), props, 400, 60.0, 1, stop_on=frozenset({props[0].name}))
    assert raw.verdict.verdict == "refuted" and moves(raw), raw
    replay(Game(dropped.spec, 5), moves(raw))
    outcome = decide(base, dropped, 5, {"deck_conservation_fascist": VerdictKind.PROVED}, LIMITS)
    assert outcome.status == "killed" and "(a random game" in outcome.detail, outcome.line


def test_random_games_alone_leave_what_they_do_not_kill_unknown(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["mutate", "--rules", _short_game(tmp_path), "-n", "6", "--rule",
                                       "hitler_elected", "--operator", "boundary", "--property",
                                       "hitler_elected_wins", "--random-only", "--json"])
    assert result.exit_code == 3, result.output
    assert '"unknown": 1' in result.output and '"equivalent": 0' in result.output


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


@pytest.mark.slow
@pytest.mark.parametrize("extra, status", [
    ([], 0),                                            # the one boundary mutant: equivalent
    # Hitler never wins: the property's premise (a Hitler-elected move) is never reached, so
    # it is vacuous, which kills the mutant; the other negation is not run (the cap)
    (["--operator", "negate", "--cap", "1"], 3),
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


def test_the_rules_verdicts_are_read_from_the_baseline_only_where_it_has_every_property() -> None:
    base = load_spec("standard")
    entries = load_baseline(baseline_path(Path(__file__).resolve().parents[1] / "reports", "standard"))
    assert entries is not None
    read = baseline_verdicts(entries, base, (5,))
    assert set(read) == {5} and read[5]["deadlock_free"] == "proved" and "values_in_range" in read[5]
    names = ("deadlock_free", "deal_follows_the_table")
    assert baseline_verdicts(entries, base, (5,), names) == {5: {"deadlock_free": "proved",
                                                                   "deal_follows_the_table": "proved"}}
    missing = {key: entry for key, entry in entries.items() if key != ("deadlock_free", 5)}
    assert baseline_verdicts(missing, base, (5,)) == {}          # one property missing: checked instead
    assert baseline_verdicts(entries, base, (10,)) == {}         # no entries for 10 players
    unknown = {**entries,
               ("deadlock_free", 5): replace(entries[("deadlock_free", 5)], verdict=VerdictKind.UNKNOWN)}
    assert baseline_verdicts(unknown, base, (5,))[5]["deadlock_free"] == "unknown"   # kept, kills nothing


@pytest.mark.parametrize("description", ["requirement 'count(fascist_seats) == ordinary_fascists' dropped",
                                         "requirement 'hitler_seat not in fascist_seats' dropped",
                                         "effect fascists = fascist_seats dropped"])
def test_the_deal_is_checked_as_dealt_though_the_cone_does_not_keep_the_fascists(description: str) -> None:
    """deal_follows_the_table reads after_fascists on deal_roles, which assigns it: the cone
    drops the field (reductions.py) yet a deal that breaks the table is refuted, and so is
    one that does not assign the seats (the field is kept then)."""
    base = load_spec("standard")
    mutant = next(m for m in mutants(base, None, ("deal_roles",)) if m.description == description)
    drops_the_seats = description.startswith("effect fascists")
    (prop,) = (p for p in load_properties(mutant.spec) if p.name == "deal_follows_the_table")
    game = Game(mutant.spec, 5)
    # kept only where deal_roles does not assign the seats: after_fascists is then the old value
    assert ("fascists" in Model(game, (prop,)).plan.kept) == drops_the_seats
    (raw,) = check_game(game, (prop,), LIMITS, stop_on=frozenset({prop.name}), fewest_elections=False)
    assert raw.verdict.verdict == "refuted" and length(raw) is not None and moves(raw)[0][0] == "deal_roles", raw


@pytest.mark.slow
def test_forced_moves_that_never_end_are_a_finding_not_a_hang() -> None:
    """Rules whose forced move leaves its phase as it was (Hitler elected, but the game not
    over) would loop for ever: the chain stops where the state stays as it was, and the
    game is found never to end."""
    base = load_spec("standard")
    (mutant,) = [m for m in mutants(base, ("drop_effect",), ("hitler_elected",)) if "effect phase =" in m.description]
    props = tuple(p for p in load_properties(mutant.spec) if p.name == "terminates")
    (raw,) = probe_game(Game(mutant.spec, 5), props, 2_000, 120.0, 7, stop_on=frozenset({"terminates"}))
    assert raw.verdict.verdict == "refuted" and "go on forever" in message(raw), raw
    # the whole 5-player graph: given the time a busy machine needs, not the module's limit
    (raw,) = check_game(Game(mutant.spec, 5), props, Limits(None, 900.0, None), fewest_elections=False)
    assert raw.verdict.verdict == "refuted" and "cycle" in message(raw), raw


def test_a_game_that_comes_back_to_an_earlier_state_never_ends() -> None:
    """A refused veto that does not stick (the mutant drops `veto_refused = True`) lets the
    Chancellor propose and the President refuse for ever: a cycle of two moves, not a move
    that changes nothing. A random game that comes back to one of its own states finds it,
    and the game it shows replays through the engine up to the move that closes the cycle."""
    base = load_spec("standard")
    (mutant,) = [m for m in mutants(base, ("drop_effect",), ("refuse_veto",)) if "veto_refused" in m.description]
    props = tuple(p for p in load_properties(mutant.spec) if p.name == "terminates")
    (raw,) = probe_game(Game(mutant.spec, 5), props, 2_000, 120.0, 3, stop_on=frozenset({"terminates"}))
    assert raw.verdict.verdict == "refuted" and "earlier state of the same game" in message(raw), raw
    played = moves(raw)
    assert played is not None and played[-1][0] in ("propose_veto", "refuse_veto"), raw


@pytest.mark.slow
def test_the_solver_never_calls_a_killed_mutant_equivalent() -> None:
    """The proofs of equivalence of one changed rule by the solver (a rule that never
    fires, a rule that makes the same moves where the strengthening invariants hold, one
    that stops a quiet move short) are checked against
    the mutants random games kill at 5 players (reports/standard/mutation-5.json): a
    game tells each of those apart from the rules, so no proof may claim otherwise."""
    base = load_spec("standard")
    record = load_record(Path(__file__).resolve().parents[1] / "reports" / "standard" / "mutation-5.json")
    named = names(base)
    checked = 0
    for mutant in mutants(base):
        if named[mutant.number] not in record.killed or not only_rule_changed(base, mutant.spec, mutant.rule):
            continue
        written, mutated = base.rule(mutant.rule), mutant.spec.rule(mutant.rule)
        checked += 1
        assert not rules_never_fire(base, 5, [written, mutated]), mutant.description
        assert not (same_shape(written, mutated) and rule_makes_the_same_moves(base, 5, written, mutated)), \
            mutant.description
        assert not (same_shape(written, mutated) and rule_stops_a_quiet_step_short(base, 5, written, mutated)), \
            mutant.description
    assert checked >= 300


def test_a_value_out_of_range_is_checked_against_the_other_properties_too() -> None:
    """Where `values_in_range` cannot kill a mutant (a baseline that leaves it unknown), a
    discard pile driven below zero is still caught: the state that goes out of range is
    checked against the rest of the catalogue, and deck conservation kills it."""
    base = load_spec("standard")
    entries = load_baseline(baseline_path(Path(__file__).resolve().parents[1] / "reports", "standard"))
    assert entries is not None
    verdicts = {**baseline_verdicts(entries, base, (7,))[7], "values_in_range": VerdictKind.UNKNOWN}
    assert verdicts["deck_conservation_fascist"] == "proved"
    (mutant,) = [m for m in mutants(base, ("constant",), ("president_discard",))
                 if m.description == "effect discard_fascist: literal 0 -> -1"]
    outcome = decide(base, mutant, 7, verdicts, LIMITS, complete=False)
    assert outcome.status == "killed" and outcome.detail.startswith("deck_conservation_fascist"), outcome.line


@pytest.mark.parametrize("players", [5, 9])
def test_a_stale_value_left_in_dead_bookkeeping_is_proved_equivalent(players: int) -> None:
    """The President's hand is read only while he discards (R-L2): a discard that leaves
    the old count there instead of 0 changes no game, and the solver proves it from the
    live fields alone, at any count (no product search is needed)."""
    base = load_spec("standard")
    (stale,) = [m for m in mutants(base, ("drop_effect",), ("president_discard",)) if m.description.startswith("effect president_hand")]
    outcome = decide(base, stale, players, {}, LIMITS, complete=False)
    assert outcome.status == "equivalent" and "makes the same moves" in outcome.detail, outcome.line


@pytest.mark.slow
def test_a_constant_no_game_of_the_count_reaches_is_proved_equivalent_by_a_relation() -> None:
    """With five players there are never more than five alive, so moving the R-E4
    threshold from five to six changes no game of 5 players: no single rule changed, but
    the solver's relation between the two (here: the states are equal) proves it."""
    base = load_spec("standard")
    (shifted,) = [m for m in mutants(base, ("constant",)) if m.description == "few_alive = 5 -> 6"]
    relation = rule_sets_play_the_same_games(base, shifted.spec, 5)
    assert relation.proved, relation.reason
    assert not rule_sets_play_the_same_games(base, shifted.spec, 7).proved   # six alive at 7 players


@pytest.mark.slow
def test_the_relation_never_calls_a_killed_mutant_equivalent() -> None:
    """Every 35th mutant random games kill at 5 players (a game tells each apart from
    the rules, reports/standard/mutation-5.json), and the chaos mutant only the complete
    check kills (a third chaos in a row after a peek): no relation may be proved."""
    base = load_spec("standard")
    record = load_record(Path(__file__).resolve().parents[1] / "reports" / "standard" / "mutation-5.json")
    named = names(base)
    killed = [m for m in mutants(base) if named[m.number] in record.killed]
    chosen = killed[::35] + [m for m in mutants(base, ("constant",), ("chaos",))
                             if m.description == "requirement: literal 0 -> 1"][:1]
    assert len(chosen) >= 12
    for mutant in chosen:
        relation = rule_sets_play_the_same_games(base, mutant.spec, 5)
        assert not relation.proved, mutant.description


def test_a_stale_value_out_of_range_is_killed_at_seven_players() -> None:
    """The solver proves every declared range at 7 players (the baseline records it), so a
    Chancellor's hand left at -1 after the enactment, which no game reads again, is still
    a broken rule: killed through `values_in_range`, never called equivalent."""
    base = load_spec("standard")
    entries = load_baseline(baseline_path(Path(__file__).resolve().parents[1] / "reports", "standard"))
    assert entries is not None
    verdicts = baseline_verdicts(entries, base, (7,))[7]
    assert verdicts["values_in_range"] == "proved"
    (mutant,) = [m for m in mutants(base, ("constant",), ("enact",))
                 if m.description == "effect chancellor_hand: literal 0 -> -1"]
    outcome = decide(base, mutant, 7, verdicts, LIMITS, complete=False)
    assert outcome.status == "killed" and outcome.detail.startswith("values_in_range"), outcome.line


def test_a_reshuffle_that_forgets_to_close_the_session_costs_one_quiet_move() -> None:
    """Left in session_end, the game's own check of the pile (R-L5) closes the session
    with a quiet move, so the games are the same; a return of candidacy that forgets to
    open the next nomination is not (the rotation passes on again, R-E1)."""
    base = load_spec("standard")
    by_description = {(m.rule, m.description): m for m in mutants(base, ("drop_effect",))}
    reshuffle = by_description[("reshuffle", "effect phase = 12 dropped")]
    returning = by_description[("return_candidacy", "effect phase = 2 dropped")]
    assert rule_stops_a_quiet_step_short(base, 7, base.rule("reshuffle"), reshuffle.spec.rule("reshuffle"))
    assert not rule_stops_a_quiet_step_short(base, 7, base.rule("return_candidacy"),
                                             returning.spec.rule("return_candidacy"))


# ---------------------------------------------------------------- by the solver alone

@pytest.mark.slow
def test_the_solver_alone_kills_a_mutant_with_inferred_invariants_and_names_nothing_undecided() -> None:
    """`--solver-only`: an enactment that puts two Fascist policies on the track breaks
    deck conservation (R-S3); the solver, with no invariant written by hand, refutes it
    under the mutant, where the rules prove it, and leaves nothing it was asked undecided."""
    base = load_spec("standard")
    (dropped,) = [m for m in mutants(base, ("constant",), ("enact",)) if "fascist_policies: literal 1 -> 2" in m.description]
    outcome = decide(base, dropped, 5, {"deck_conservation_fascist": VerdictKind.PROVED}, LIMITS,
                     solver_only=True)
    assert outcome.status == "killed", outcome.line
    assert outcome.detail.startswith("deck_conservation_fascist: proved -> refuted (the solver alone")
    assert outcome.undecided == [] and outcome.to_json()["undecided"] == []


@pytest.mark.slow
def test_until_killed_stops_the_solver_at_the_first_property_that_kills(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--until-killed` with the real solver: the mutant is killed by the property whose
    verdict differs, the last one the solver hands back, and no property is named
    undecided (not measured, rather than every property it skipped). That nothing is
    asked after the kill is shown with a scripted solver below: here the killing
    property comes last either way."""
    from verify.smt import passes as smt_passes
    asked: list[str] = []
    real = smt_passes.verdicts_under

    def counting(*args: Any, **kwargs: Any) -> Iterator[tuple[Property, Verdict]]:
        for prop, verdict in real(*args, **kwargs):
            asked.append(prop.name)
            yield prop, verdict
    monkeypatch.setattr(smt_passes, "verdicts_under", counting)
    base = load_spec("standard")
    (dropped,) = [m for m in mutants(base, ("constant",), ("enact",)) if "fascist_policies: literal 1 -> 2" in m.description]
    verdicts = {"deck_conservation_fascist": VerdictKind.PROVED, "deck_conservation_liberal": VerdictKind.PROVED,
                "liberal_policy_win": VerdictKind.WITNESS}
    outcome = decide(base, dropped, 5, verdicts, LIMITS, solver_only=True, until_killed=True)
    assert outcome.status == "killed", outcome.line
    assert outcome.detail.startswith("deck_conservation_fascist: proved -> refuted"), outcome.detail
    assert asked[-1] == "deck_conservation_fascist", asked
    assert outcome.undecided is None and "undecided" not in outcome.to_json()


def test_the_deep_pass_gets_its_share_of_the_mutants_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The seconds for violations along the rules' own games grow with the mutant's time
    limit (`SOLVER_ONLY_DEEP_SHARE` is a share of it): a longer limit reaches deeper games,
    where a fixed 120 s left mutant 156 unknown at 5 players given 900 s."""
    from types import SimpleNamespace

    from verify.budgets import SOLVER_ONLY_DEEP_SHARE
    from verify.smt import passes as smt_passes
    given: list[tuple[float, float]] = []

    def scripted(spec: object, players: int, props: list[object], seconds: float, *args: object,
                 deep: float, **kwargs: object) -> Iterator[tuple[object, SimpleNamespace]]:
        given.append((seconds, deep))
        for prop in props:
            yield prop, SimpleNamespace(verdict="refuted", trace=None)
    monkeypatch.setattr(smt_passes, "verdicts_under", scripted)
    base = load_spec("standard")
    (dropped,) = [m for m in mutants(base, ("constant",), ("enact",)) if "fascist_policies: literal 1 -> 2" in m.description]
    for limit in (300.0, 900.0):
        decide(base, dropped, 5, {"deck_conservation_fascist": VerdictKind.PROVED}, Limits(None, limit, None),
               solver_only=True, until_killed=True)
    assert given == [(limit, limit * SOLVER_ONLY_DEEP_SHARE) for limit in (300.0, 900.0)], given
    assert 0 < SOLVER_ONLY_DEEP_SHARE < 1


def test_until_killed_asks_nothing_after_the_kill(monkeypatch: pytest.MonkeyPatch) -> None:
    """The solver's verdicts come one at a time; with `until_killed` none is drawn after
    the first that differs from the rules' own, without it every one is."""
    from types import SimpleNamespace

    from verify.smt import passes as smt_passes
    drawn: list[str] = []

    def scripted(spec: object, players: int, props: list[Property], *args: object,
                 **kwargs: object) -> Iterator[tuple[Property, SimpleNamespace]]:
        answers = {"deck_conservation_liberal": VerdictKind.PROVED, "deck_conservation_fascist": VerdictKind.REFUTED,
                   "liberal_policy_win": VerdictKind.WITNESS}
        for prop in props:
            drawn.append(prop.name)
            yield prop, SimpleNamespace(verdict=answers[prop.name], trace=None)
    monkeypatch.setattr(smt_passes, "verdicts_under", scripted)
    base = load_spec("standard")
    (dropped,) = [m for m in mutants(base, ("constant",), ("enact",)) if "fascist_policies: literal 1 -> 2" in m.description]
    verdicts = {"deck_conservation_liberal": VerdictKind.PROVED, "deck_conservation_fascist": VerdictKind.PROVED,
                "liberal_policy_win": VerdictKind.WITNESS}
    for until_killed, expected in ((True, 2), (False, 3)):
        drawn.clear()
        outcome = decide(base, dropped, 5, verdicts, LIMITS, solver_only=True, until_killed=until_killed)
        assert outcome.status == "killed" and outcome.detail.startswith("deck_conservation_fascist"), outcome.line
        assert len(drawn) == expected, drawn
        assert (outcome.undecided is None) == until_killed


def test_until_killed_is_only_for_the_solver_alone() -> None:
    result = CliRunner().invoke(main, ["mutate", "-n", "5", "--until-killed"])
    assert result.exit_code == 2 and "only with --solver-only" in result.output


@pytest.mark.slow
def test_what_the_solver_alone_leaves_undecided_is_named_and_never_survives(monkeypatch: pytest.MonkeyPatch) -> None:
    """Out of time, the solver decides nothing: every property it was asked is named as
    undecided, and a mutant neither killed nor proved equivalent stays unknown."""
    from verify.diff import mutate as module
    monkeypatch.setattr(module, "RELATIONAL_SECONDS", 0.01)
    base = load_spec("standard")
    (dropped,) = [m for m in mutants(base, ("constant",), ("enact",)) if "fascist_policies: literal 1 -> 2" in m.description]
    verdicts = {"deck_conservation_fascist": VerdictKind.PROVED, "liberal_policy_win": VerdictKind.WITNESS}
    outcome = decide(base, dropped, 5, verdicts, Limits(None, 0.001, None), solver_only=True)
    assert outcome.status == "unknown", outcome.line
    assert sorted(outcome.undecided or []) == sorted(verdicts)
    again = type(outcome).from_json(outcome.to_json())
    assert again.undecided == outcome.undecided


def test_solver_only_refuses_random_only() -> None:
    result = CliRunner().invoke(main, ["mutate", "-n", "5", "--solver-only", "--random-only"])
    assert result.exit_code == 2 and "--solver-only" in result.output


def test_an_effect_moved_to_another_rule_changes_those_two_rules_only() -> None:
    """`move_effect` (shapes.py) changes two rules: `rules_changed` names both, in file
    order, so each can be proved to make the same moves or never fire; a change to a
    number or a definition is not a change of rules alone."""
    base = load_spec("standard")
    (mutant,) = [m for m in mutants(base, ("move_effect",), ("policy_peek",))
                 if m.description == "effect power = 0 moved to pass_candidacy"]
    assert rules_changed(base, mutant.spec) == ("policy_peek", "pass_candidacy")
    assert rules_changed(base, base) == ()
    constant = next(m for m in mutants(base, ("constant",)) if m.rule.startswith("constant"))
    assert rules_changed(base, constant.spec) is None


@pytest.mark.slow
def test_two_changed_rules_each_proved_harmless_make_an_equivalent_mutant() -> None:
    """At 7 players the Policy Peek never fires (R-X7) and no power is left granted when
    candidacy passes (R-X2): the peek's power reset moved to `pass_candidacy` plays the same
    games, proved rule by rule by the solver (20-40 s), where the relational search found
    no relation in its 120 s and the product search is too large to finish."""
    base = load_spec("standard")
    (mutant,) = [m for m in mutants(base, ("move_effect",), ("policy_peek",))
                 if m.description == "effect power = 0 moved to pass_candidacy"]
    entries = load_baseline(baseline_path(Path(__file__).resolve().parents[1] / "reports", "standard"))
    assert entries is not None
    verdicts = baseline_verdicts(entries, base, (7,))[7]
    outcome = decide(base, mutant, 7, verdicts, Limits(time_limit=300), complete=False)
    assert outcome.status == "equivalent", outcome.detail
    assert "'policy_peek' never fires" in outcome.detail and "'pass_candidacy' makes the same moves" in outcome.detail
