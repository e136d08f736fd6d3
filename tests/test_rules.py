"""Scenario tests for the setup, election and legislative rules (R-S*, R-E*, R-L*).

Each test is named after the rule ID of ../shared/RULES.md it checks, plays the rule
through the public engine API, and asserts both what is legal and what is refused: a
refused move must name the exact rule ID and give its reason in plain words. The items of
the German refresher's "Leicht vergessen" list (seed 004) that tables get wrong ("✗ Nicht")
are tests named `..._004_<item>_...`. Powers, veto, the end of the game and the known
disputes are in test_rules_powers.py; the check that every rule ID has a test is here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest

from engine import IllegalMove, chance_outcomes, compiled_game, legal_moves, new_game
from helpers import (HITLER, default_fascists, session, failed_vote, game_of, government, legal, play, position,
                     read, refused, start)
from spec.errors import SpecError
from spec.loader import load_rulebook

ALL_COUNTS = range(5, 11)
REPO = Path(__file__).resolve().parents[1]
RULES_MD = [REPO.parent / "shared" / "RULES.md", REPO / "RULES.md", REPO / "docs" / "RULES.md"]


def seats_except(players: int, *excluded: int) -> list[int]:
    return [seat for seat in range(players) if seat not in excluded]


# ============================================================== rule IDs: RULES.md <-> spec


def _rules_md_ids() -> list[str]:
    for path in RULES_MD:
        if path.is_file():
            return re.findall(r"^- \*\*((?:R-[A-Z]\d+)|(?:D-\d+))\*\*", path.read_text(encoding="utf-8"), re.M)
    pytest.skip(f"RULES.md not found (looked at {', '.join(map(str, RULES_MD))}); cannot compare rule IDs")


def test_every_rule_id_of_rules_md_is_in_the_rulebook_and_no_other() -> None:
    ids = _rules_md_ids()
    assert len(ids) == len(set(ids)), "RULES.md numbers a rule twice"
    assert len(ids) >= 40, f"parsed only {len(ids)} IDs from RULES.md; has its format changed?"
    rulebook = load_rulebook()
    assert sorted(set(ids) - set(rulebook)) == [], "rule IDs of RULES.md missing from spec/rulebook.toml"
    assert sorted(set(rulebook) - set(ids)) == [], "spec/rulebook.toml has rule IDs RULES.md lacks"


def test_every_rule_id_the_standard_spec_cites_is_in_the_rulebook() -> None:
    spec = compiled_game(7).spec
    rulebook = load_rulebook()
    cited = {req.rule_id for rule in spec.rules for req in rule.requires} | {r.actor_rule for r in spec.rules}
    assert cited <= set(rulebook)


def test_every_rule_id_has_a_scenario_test_named_after_it() -> None:
    names = set()
    for path in Path(__file__).parent.glob("test_rules*.py"):
        names |= set(re.findall(r"^def (test_\w+)", path.read_text(encoding="utf-8"), re.M))
    for rule_id in load_rulebook():
        prefix = "test_" + rule_id.replace("-", "_") + "_"
        assert any(name.startswith(prefix) for name in names), f"no test named {prefix}..."


# ============================================================== setup (R-S1..R-S7)


@pytest.mark.parametrize("players", [0, 1, 4, 11, 16])
def test_R_S1_player_counts_outside_5_to_10_are_refused(players: int) -> None:
    with pytest.raises(SpecError) as caught:
        new_game(players, seed=1)
    assert "R-S1" in str(caught.value) and "5 to 10" in str(caught.value)


@pytest.mark.parametrize("players", ALL_COUNTS)
def test_R_S1_every_count_from_5_to_10_is_a_game(players: int) -> None:
    state = new_game(players, seed=1)
    assert game_of(state).phase(state) == "nominate"
    assert read(state)["alive"] == list(range(players))


@pytest.mark.parametrize("players, liberals, ordinary, hitlers",
                         [(5, 3, 1, 1), (6, 4, 1, 1), (7, 4, 2, 1), (8, 5, 2, 1), (9, 5, 3, 1), (10, 6, 3, 1)])
def test_R_S2_roles_by_player_count(players: int, liberals: int, ordinary: int, hitlers: int) -> None:
    game = compiled_game(players)
    outcomes = chance_outcomes(game.initial_state())
    assert len(outcomes) == players * math.comb(players - 1, ordinary)
    assert {probability for _, probability in outcomes} == {Fraction(1, len(outcomes))}
    for move, _ in outcomes:
        params = game.params_of(move)
        assert len(params["fascist_seats"]) == ordinary
        assert params["hitler_seat"] not in params["fascist_seats"]
        liberal_seats = [s for s in range(players) if s != params["hitler_seat"] and s not in params["fascist_seats"]]
        assert (len(liberal_seats), len(params["fascist_seats"]), 1) == (liberals, ordinary, hitlers)


@pytest.mark.parametrize("players", ALL_COUNTS)
def test_R_S2_a_deal_with_the_wrong_roles_is_refused(players: int) -> None:
    game = compiled_game(players)
    initial = game.initial_state()
    fascists = default_fascists(players)
    too_few = ("deal_roles", {"hitler_seat": HITLER, "fascist_seats": fascists[:-1]})
    too_many = ("deal_roles", {"hitler_seat": HITLER, "fascist_seats": fascists + [2]})
    hitler_twice = ("deal_roles", {"hitler_seat": fascists[0], "fascist_seats": fascists})
    for step in (too_few, too_many, hitler_twice):
        refused(initial, step, "R-S2")
    legal(initial, ("deal_roles", {"hitler_seat": HITLER, "fascist_seats": fascists}))


@pytest.mark.parametrize("players", ALL_COUNTS)
def test_R_S3_deck_tracker_and_tracks_at_the_start(players: int) -> None:
    fields = read(new_game(players, seed=3))
    assert (fields["draw_liberal"], fields["draw_fascist"]) == (6, 11)
    assert fields["known_top"] == [] and fields["discard_liberal"] == fields["discard_fascist"] == 0
    assert fields["election_tracker"] == 0
    assert fields["liberal_policies"] == fields["fascist_policies"] == 0


@pytest.mark.parametrize("target, party", [(2, "liberal"), (1, "fascist"), (HITLER, "fascist")])
def test_R_S4_party_membership_follows_the_role(target: int, party: str) -> None:
    state = position(7, phase="power", power="investigate", fascist_policies=2)
    game = game_of(state)
    assert game.reveals(state, game.move("investigate", target=target)) == {"party": party}


def test_R_S5_setup_knowledge_is_not_modelled_no_setup_move_reveals_anything() -> None:
    """R-S5 (who knows whom) is table behaviour; the engine must not leak roles instead:
    the deal and the choice of the first President reveal nothing, and the only move in
    the spec that reveals anything is the investigation, which reveals a party."""
    game = compiled_game(7)
    initial = game.initial_state()
    deal = game.move("deal_roles", hitler_seat=HITLER, fascist_seats=[1, 5])
    assert game.reveals(initial, deal) == {}
    dealt = game.apply(initial, deal)
    assert game.reveals(dealt, game.move("first_president", candidate=0)) == {}
    revealing = {rule.name: [name for name, _ in rule.reveals] for rule in game.spec.rules if rule.reveals}
    assert revealing == {"investigate": ["party"]}


@pytest.mark.parametrize("players", ALL_COUNTS)
def test_R_S6_the_first_candidate_is_chosen_at_random(players: int) -> None:
    game = compiled_game(players)
    dealt = game.apply(game.initial_state(), game.move("deal_roles", hitler_seat=HITLER,
                                                       fascist_seats=default_fascists(players)))
    outcomes = chance_outcomes(dealt)
    assert sorted(game.params_of(move)["candidate"] for move, _ in outcomes) == list(range(players))
    assert {probability for _, probability in outcomes} == {Fraction(1, players)}
    assert game.actor(dealt) == "chance"


@pytest.mark.parametrize("players, dead, slot, power", [
    (7, [5, 6], 3, "special_election"),      # 5 alive, still the 7-8 board (5-6 would peek)
    (8, [5, 6, 7], 2, "investigate"),        # 5 alive (5-6 board: no power on slot 2)
    (9, [5, 6, 7, 8], 1, "investigate"),     # 5 alive (5-6 board: no power on slot 1)
    (10, [4, 6, 7, 8, 9], 3, "special_election"),
    (6, [5], 3, "peek"),                     # 5 alive, still the 5-6 board
    (5, [4], 4, "execution"),
])
def test_R_S7_the_board_of_the_starting_count_even_after_executions(
        players: int, dead: list[int], slot: int, power: str) -> None:
    state = session(players, chancellor_hand=2, fascist_policies=slot - 1, nominee=2,
                    alive=seats_except(players, *dead))
    after = play(state, ("enact", {"tile": "fascist"}))
    assert read(after)["power"] == power and game_of(after).phase(after) == "power"


# ============================================================== election (R-E1..R-E12)


@pytest.mark.parametrize("players, president, dead, expected", [
    (7, 0, [], 1), (7, 6, [], 0), (7, 1, [2], 3), (7, 5, [6, 0], 1), (5, 4, [0, 1], 2), (10, 9, [], 0)])
def test_R_E1_after_a_failed_vote_candidacy_passes_to_the_next_living_player(
        players: int, president: int, dead: list[int], expected: int) -> None:
    state = position(players, president=president, alive=seats_except(players, *dead))
    chancellor = next(s for s in seats_except(players, *dead) if s not in (president, HITLER))
    assert read(failed_vote(state, chancellor))["president"] == expected


def test_R_E1_after_a_session_after_a_power_and_after_chaos_candidacy_passes_clockwise() -> None:
    after_session = government(start(7), 4, fascist_tiles=1, discard="fascist", enact="liberal")
    assert read(after_session)["president"] == 1
    # 9 players, slot 1 is Investigate: the power is used, then candidacy passes
    powered = government(start(9), 4, fascist_tiles=3, discard="fascist", enact="fascist")
    assert read(powered)["power"] == "investigate"
    assert read(play(powered, ("investigate", {"target": 2})))["president"] == 1
    # the executed player was next in line: candidacy skips the dead seat
    executing = position(7, phase="power", power="execution", president=0, fascist_policies=4)
    assert read(play(executing, ("execute", {"target": 1})))["president"] == 2
    chaos = failed_vote(position(7, president=2, election_tracker=2), 4)
    assert read(play(chaos, ("chaos", {"tile": "liberal"})))["president"] == 3


def test_R_E1_only_the_candidate_nominates() -> None:
    state = start(7, first_president=2)
    refused(state, ("nominate", {"chancellor": 4}, 0), "R-E1")
    refused(state, ("nominate", {"chancellor": 4}, 4), "R-E1")
    legal(state, ("nominate", {"chancellor": 4}, 2))


@pytest.mark.parametrize("chancellor, why", [(0, "himself"), (6, "dead"), (7, "not a possible")])
def test_R_E2_the_candidate_nominates_one_other_living_player(chancellor: int, why: str) -> None:
    state = position(7, alive=seats_except(7, 6))
    error = refused(state, ("nominate", {"chancellor": chancellor}), "R-E2")
    assert why in error.reason


@pytest.mark.parametrize("players", ALL_COUNTS)
def test_R_E2_at_the_start_every_other_player_may_be_nominated(players: int) -> None:
    state = start(players, first_president=1)
    game = game_of(state)
    chosen = sorted(game.params_of(move)["chancellor"] for move in legal_moves(state))
    assert chosen == seats_except(players, 1)


@pytest.mark.parametrize("last_government, nominee, rule_id", [
    ("elected", 4, "R-E3"),    # the last elected Chancellor
    ("elected", 0, "R-E4"),    # the last elected President, seven alive
    ("rejected", 4, None),     # 004 item 1: the last *nominated* pair is not term-limited
    ("rejected", 0, None),
])
def test_R_E3_004_1_only_the_last_elected_pair_is_term_limited(
        last_government: str, nominee: int, rule_id: str | None) -> None:
    state = start(7)
    if last_government == "elected":
        state = government(state, 4, fascist_tiles=1, discard="fascist", enact="liberal")
    else:
        state = failed_vote(state, 4)
    assert read(state)["president"] == 1
    step = ("nominate", {"chancellor": nominee})
    if rule_id is None:
        legal(state, step)
    else:
        refused(state, step, rule_id)


@pytest.mark.parametrize("players, dead, president_barred", [
    (7, [], True), (7, [5], True), (7, [5, 6], False), (8, [5, 6], True), (8, [5, 6, 7], False),
    (6, [], True), (6, [5], False), (5, [], False), (5, [1], False), (10, [5, 6, 7, 8, 9], False),
])
def test_R_E4_five_or_fewer_alive_only_the_last_chancellor_is_barred(
        players: int, dead: list[int], president_barred: bool) -> None:
    state = position(players, president=0, last_president=2, last_chancellor=4,
                     alive=seats_except(players, *dead))
    refused(state, ("nominate", {"chancellor": 4}), "R-E3")
    if president_barred:
        refused(state, ("nominate", {"chancellor": 2}), "R-E4")
    else:
        legal(state, ("nominate", {"chancellor": 2}))


def test_R_E5_the_last_elected_chancellor_may_be_president_next() -> None:
    state = government(start(7), 1, fascist_tiles=1, discard="fascist", enact="liberal")
    fields = read(state)
    assert fields["president"] == fields["last_chancellor"] == 1
    legal(state, ("nominate", {"chancellor": 2}))


def test_R_E5_004_1_the_last_president_may_be_president_again() -> None:
    state = position(7, president=0, last_president=0, last_chancellor=4)
    assert game_of(state).actor(state) == 0
    legal(state, ("nominate", {"chancellor": 2}))


@pytest.mark.parametrize("dead, ja, elected", [
    ([], [0, 4, 1, 2], True),          # both candidates' votes count: 4 of 7
    ([], [1, 2, 5], False),            # 3 of 7
    ([5, 6], [0, 1, 2], True),         # the dead do not vote: 3 of 5
    ([5, 6], [1, 2], False),           # 2 of 5
])
def test_R_E6_every_living_player_votes_and_only_they(dead: list[int], ja: list[int], elected: bool) -> None:
    state = position(7, phase="vote", president=0, nominee=4, alive=seats_except(7, *dead))
    good, bad = ("elect", "reject") if elected else ("reject", "elect")
    legal(state, (good, {"ja": ja}))
    refused(state, (bad, {"ja": ja}), "R-E7")


@pytest.mark.parametrize("rule", ["elect", "reject"])
def test_R_E6_a_dead_player_has_no_vote(rule: str) -> None:
    state = position(7, phase="vote", president=0, nominee=4, alive=seats_except(7, 6))
    refused(state, (rule, {"ja": [0, 1, 2, 4, 6]}), "R-E6")


@pytest.mark.parametrize("players, ja_count, elected", [
    (players, ja, 2 * ja > players) for players in ALL_COUNTS for ja in (players // 2, players // 2 + 1)])
def test_R_E7_004_3_more_than_half_ja_elects_and_a_tie_fails(players: int, ja_count: int, elected: bool) -> None:
    state = position(players, phase="vote", president=0, nominee=4)
    ja = list(range(ja_count))
    good, bad = ("elect", "reject") if elected else ("reject", "elect")
    legal(state, (good, {"ja": ja}))
    error = refused(state, (bad, {"ja": ja}), "R-E7")
    assert str(ja_count) in error.reason


def test_R_E7_eight_players_four_ja_is_rejected_five_needed() -> None:
    state = position(8, phase="vote", president=0, nominee=4)
    assert read(legal(state, ("reject", {"ja": [0, 1, 2, 4]})))["election_tracker"] == 1
    refused(state, ("elect", {"ja": [0, 1, 2, 4]}), "R-E7")
    after = legal(state, ("elect", {"ja": [0, 1, 2, 4, 5]}))
    assert game_of(after).actor(after) == "chance"


@pytest.mark.parametrize("tracker", [0, 1])
def test_R_E8_a_failed_vote_advances_the_tracker_and_passes_candidacy(tracker: int) -> None:
    state = failed_vote(position(7, president=2, election_tracker=tracker), 4)
    fields = read(state)
    assert (fields["election_tracker"], fields["president"], fields["phase"]) == (tracker + 1, 3, "nominate")
    assert fields["nominee"] is None and fields["liberal_policies"] == fields["fascist_policies"] == 0


@pytest.mark.parametrize("players, fascist_policies", [(5, 2), (6, 3), (7, 1), (7, 2), (8, 4), (9, 0), (10, 1)])
def test_R_E9_004_4_chaos_enacts_the_top_tile_with_no_power(players: int, fascist_policies: int) -> None:
    """Every case puts the chaos policy on a slot whose board grants a power."""
    state = position(players, president=0, election_tracker=2, fascist_policies=fascist_policies,
                     last_president=5, last_chancellor=2, draw_fascist=11 - fascist_policies)
    state = failed_vote(state, 4)
    game = game_of(state)
    assert game.phase(state) == "chaos" and game.actor(state) == "chance"
    outcomes = dict(chance_outcomes(state))
    assert outcomes[game.move("chaos", tile="fascist")] == Fraction(11 - fascist_policies, 17 - fascist_policies)
    after = play(state, ("chaos", {"tile": "fascist"}))
    fields = read(after)
    assert fields["fascist_policies"] == fascist_policies + 1
    assert fields["power"] == "none" and fields["phase"] == "nominate" and fields["president"] == 1
    assert fields["election_tracker"] == 0
    assert fields["last_president"] is None and fields["last_chancellor"] is None


def test_R_E9_004_4_after_chaos_everybody_alive_is_eligible() -> None:
    state = position(7, president=0, election_tracker=2, last_president=5, last_chancellor=2)
    state = play(failed_vote(state, 4), ("chaos", {"tile": "liberal"}))
    assert read(state)["president"] == 1
    for chancellor in (5, 2, 4):
        legal(state, ("nominate", {"chancellor": chancellor}))


def test_R_E9_chaos_takes_the_known_top_tile() -> None:
    state = position(5, phase="chaos", known_top=["fascist", "liberal", "liberal"], draw_fascist=10, draw_liberal=4)
    assert [move for move, _ in chance_outcomes(state)] == [game_of(state).move("chaos", tile="fascist")]
    refused(state, ("chaos", {"tile": "liberal"}), "R-E9")
    assert read(legal(state, ("chaos", {"tile": "fascist"})))["known_top"] == ["liberal", "liberal"]


def test_R_E9_chaos_with_an_empty_pile_is_refused() -> None:
    state = position(7, phase="chaos", draw_liberal=0, draw_fascist=0, discard_liberal=6, discard_fascist=11)
    refused(state, ("chaos", {"tile": "fascist"}), "R-E9")


@pytest.mark.parametrize("draw_liberal, draw_fascist, reshuffled", [(1, 2, True), (2, 2, False), (0, 3, True)])
def test_R_E9_fewer_than_three_left_after_chaos_reshuffles(draw_liberal: int, draw_fascist: int,
                                                           reshuffled: bool) -> None:
    state = position(7, phase="chaos", draw_liberal=draw_liberal, draw_fascist=draw_fascist,
                     discard_liberal=6 - draw_liberal, discard_fascist=11 - draw_fascist)
    fields = read(play(state, ("chaos", {"tile": "fascist"})))
    if reshuffled:
        assert (fields["draw_liberal"], fields["draw_fascist"]) == (6, 10)
        assert fields["discard_liberal"] == fields["discard_fascist"] == 0
    else:
        assert (fields["draw_liberal"], fields["draw_fascist"]) == (draw_liberal, draw_fascist - 1)


@pytest.mark.parametrize("fascist_policies, chancellor, fascists_win", [
    (3, HITLER, True), (4, HITLER, True), (5, HITLER, True), (2, HITLER, False), (0, HITLER, False),
    (3, 4, False), (5, 1, False)])
def test_R_E10_004_2_hitler_elected_chancellor_after_three_fascist_policies(
        fascist_policies: int, chancellor: int, fascists_win: bool) -> None:
    state = position(7, president=0, fascist_policies=fascist_policies)
    state = play(state, ("nominate", {"chancellor": chancellor}), ("elect", {"ja": [0, 1, 2, 3, 4, 5, 6]}))
    game = game_of(state)
    assert game.is_over(state) == fascists_win
    if fascists_win:
        assert (game.winner(state), game.how(state)) == ("fascist", "hitler_chancellor")
    else:
        assert game.phase(state) == "draw"


def test_R_E10_hitler_as_president_is_no_win() -> None:
    state = position(7, president=HITLER, fascist_policies=3)
    state = play(state, ("nominate", {"chancellor": 4}), ("elect", {"ja": [0, 1, 2, 3, 4]}))
    assert not game_of(state).is_over(state)


def test_R_E10_a_third_fascist_policy_under_hitler_does_not_win_the_earlier_election() -> None:
    state = position(7, president=0, fascist_policies=2)
    state = government(state, HITLER, fascist_tiles=3, discard="fascist", enact="fascist")
    game = game_of(state)
    assert not game.is_over(state) and read(state)["fascist_policies"] == 3
    assert game.phase(state) == "power"            # slot 3 of the 7-8 board: Special Election


def test_R_E10_the_forced_moves_follow_the_hitler_check() -> None:
    elected = position(7, phase="elected", president=0, nominee=HITLER, fascist_policies=3)
    refused(elected, "legislate", "R-E10")
    not_yet = position(7, phase="elected", president=0, nominee=HITLER, fascist_policies=2)
    refused(not_yet, "hitler_elected", "R-E10")
    not_hitler = position(7, phase="elected", president=0, nominee=4, fascist_policies=3)
    refused(not_hitler, "hitler_elected", "R-W4")


@pytest.mark.parametrize("tracker", [1, 2])
def test_R_E11_an_election_alone_does_not_reset_the_tracker(tracker: int) -> None:
    state = position(7, president=0, election_tracker=tracker)
    elected = play(state, ("nominate", {"chancellor": 4}), ("elect", {"ja": [0, 1, 2, 4]}))
    assert read(elected)["election_tracker"] == tracker and read(elected)["phase"] == "draw"
    drawn = play(elected, ("draw_hand", {"fascist_tiles": 2}), ("president_discard", {"tile": "fascist"}))
    assert read(drawn)["election_tracker"] == tracker


def test_R_E12_the_elected_pair_is_term_limited_from_the_moment_of_election() -> None:
    state = position(7, phase="vote", president=0, nominee=4, last_president=5, last_chancellor=6)
    elected = legal(state, ("elect", {"ja": [0, 1, 2, 4]}))
    fields = read(elected)
    assert fields["phase"] == "draw"
    assert (fields["last_president"], fields["last_chancellor"]) == (0, 4)
    rejected = legal(state, ("reject", {"ja": [0, 4]}))
    assert (read(rejected)["last_president"], read(rejected)["last_chancellor"]) == (5, 6)


# ============================================================== legislative session (R-L1..R-L6)


def test_R_L1_the_president_draws_three_with_hypergeometric_odds() -> None:
    state = play(start(7), ("nominate", {"chancellor": 4}), ("elect", {"ja": [0, 1, 2, 4]}))
    game = game_of(state)
    outcomes = {game.params_of(move)["fascist_tiles"]: p for move, p in chance_outcomes(state)}
    expected = {k: Fraction(math.comb(11, k) * math.comb(6, 3 - k), math.comb(17, 3)) for k in range(4)}
    assert outcomes == expected
    fields = read(play(state, ("draw_hand", {"fascist_tiles": 2})))
    assert (fields["draw_liberal"], fields["draw_fascist"], fields["president_hand"]) == (5, 9, 2)
    assert fields["phase"] == "president_discard"


@pytest.mark.parametrize("draw_liberal, draw_fascist, fascist_tiles", [(6, 1, 2), (6, 0, 1), (2, 11, 0), (0, 11, 2)])
def test_R_L1_a_draw_the_pile_cannot_give_is_refused(draw_liberal: int, draw_fascist: int, fascist_tiles: int) -> None:
    state = position(7, phase="draw", president=0, nominee=4, draw_liberal=draw_liberal, draw_fascist=draw_fascist)
    refused(state, ("draw_hand", {"fascist_tiles": fascist_tiles}), "R-L1")


def test_R_L1_after_a_peek_the_draw_is_the_known_top() -> None:
    state = position(7, phase="draw", known_top=["liberal", "fascist", "liberal"], draw_liberal=4, draw_fascist=10)
    game = game_of(state)
    assert chance_outcomes(state) == [(game.move("draw_hand", fascist_tiles=1), Fraction(1))]
    for wrong in (0, 2, 3):
        refused(state, ("draw_hand", {"fascist_tiles": wrong}), "R-L1")


@pytest.mark.parametrize("president_hand, tile, chancellor_hand", [
    (3, "fascist", 2), (2, "fascist", 1), (2, "liberal", 2), (1, "liberal", 1), (0, "liberal", 0)])
def test_R_L2_the_president_discards_one_and_passes_two(president_hand: int, tile: str, chancellor_hand: int) -> None:
    state = position(7, phase="president_discard", president=0, nominee=4, president_hand=president_hand)
    after = legal(state, ("president_discard", {"tile": tile}))
    fields = read(after)
    assert (fields["phase"], fields["chancellor_hand"], fields["president_hand"]) == ("chancellor_enact", chancellor_hand, 0)
    assert game_of(after).actor(after) == 4
    assert (fields["discard_fascist"], fields["discard_liberal"]) == ((1, 0) if tile == "fascist" else (0, 1))


@pytest.mark.parametrize("president_hand, tile", [(3, "liberal"), (0, "fascist")])
def test_R_L2_the_president_cannot_discard_a_tile_not_held(president_hand: int, tile: str) -> None:
    state = position(7, phase="president_discard", president=0, nominee=4, president_hand=president_hand)
    refused(state, ("president_discard", {"tile": tile}), "R-L2")


def test_R_L2_004_6_only_the_president_discards_and_both_tiles_pass_at_once() -> None:
    state = position(7, phase="president_discard", president=0, nominee=4, president_hand=2)
    refused(state, ("president_discard", {"tile": "fascist"}, 4), "R-L2")
    error = refused(state, ("enact", {"tile": "fascist"}, 4), "R-L3")   # the Chancellor waits for both tiles
    assert "waits for president_discard" in error.reason
    game = game_of(state)
    assert {move.rule for move in legal_moves(state)} == {"president_discard"}
    after = play(state, ("president_discard", {"tile": "liberal"}))
    assert read(after)["chancellor_hand"] == 2 and game.phase(after) == "chancellor_enact"


@pytest.mark.parametrize("chancellor_hand, tile, discarded", [
    (2, "fascist", "fascist"), (1, "fascist", "liberal"), (1, "liberal", "fascist"), (0, "liberal", "liberal")])
def test_R_L3_the_chancellor_enacts_one_and_discards_the_other(chancellor_hand: int, tile: str, discarded: str) -> None:
    state = session(7, chancellor_hand=chancellor_hand)
    before = read(state)
    fields = read(legal(state, ("enact", {"tile": tile})))
    assert fields[f"{tile}_policies"] == before[f"{tile}_policies"] + 1
    assert fields[f"discard_{discarded}"] == before[f"discard_{discarded}"] + 1
    other = "liberal" if discarded == "fascist" else "fascist"
    assert fields[f"discard_{other}"] == before[f"discard_{other}"]


@pytest.mark.parametrize("chancellor_hand, tile", [(2, "liberal"), (0, "fascist")])
def test_R_L3_only_a_tile_in_the_chancellors_hand_can_be_enacted(chancellor_hand: int, tile: str) -> None:
    refused(session(7, chancellor_hand=chancellor_hand), ("enact", {"tile": tile}), "R-L3")


def test_R_L3_only_the_chancellor_enacts() -> None:
    state = session(7, chancellor_hand=1, president=0, nominee=4)
    for seat in (0, 1, 3):
        refused(state, ("enact", {"tile": "liberal"}, seat), "R-L3")


def test_R_L4_discards_are_not_modelled_as_revealed_no_move_shows_a_tile() -> None:
    """R-L4 is table behaviour (anyone may lie); the engine must show nobody a discard:
    discarding, enacting and vetoing reveal nothing, and the discard pile is kept only as
    two counts, so no order of discards exists to leak."""
    game = compiled_game(7)
    president = position(7, phase="president_discard", president=0, nominee=4, president_hand=2)
    assert game.reveals(president, game.move("president_discard", tile="fascist")) == {}
    chancellor = session(7, chancellor_hand=1, fascist_policies=5)
    assert game.reveals(chancellor, game.move("enact", tile="liberal")) == {}
    assert game.reveals(chancellor, game.move("propose_veto")) == {}
    veto = position(7, base=chancellor, phase="veto")
    assert game.reveals(veto, game.move("accept_veto")) == {}
    discard_fields = [f for f in game.spec.fields if f.name.startswith("discard")]
    assert {f.name: f.type.kind for f in discard_fields} == {"discard_liberal": "int", "discard_fascist": "int"}


@pytest.mark.parametrize("draw_liberal, draw_fascist, reshuffled", [
    (1, 1, True), (0, 2, True), (2, 0, True), (0, 0, True), (1, 2, False), (3, 5, False)])
def test_R_L5_fewer_than_three_left_at_the_end_of_a_session_reshuffles(
        draw_liberal: int, draw_fascist: int, reshuffled: bool) -> None:
    state = session(7, chancellor_hand=1, draw_liberal=draw_liberal, draw_fascist=draw_fascist,
                    discard_liberal=5 - draw_liberal, discard_fascist=10 - draw_fascist)
    log: list[str] = []
    fields = read(play(state, ("enact", {"tile": "liberal"}), log=log))
    assert ("reshuffle" in log) == reshuffled
    if reshuffled:
        assert (fields["draw_liberal"], fields["draw_fascist"]) == (5, 11)
        assert fields["discard_liberal"] == fields["discard_fascist"] == 0
    else:
        assert (fields["draw_liberal"], fields["draw_fascist"]) == (draw_liberal, draw_fascist)


def test_R_L5_a_vetoed_session_reshuffles_too() -> None:
    state = session(7, chancellor_hand=1, fascist_policies=5, draw_liberal=1, draw_fascist=1,
                    discard_liberal=4, discard_fascist=4)
    log: list[str] = []
    fields = read(play(state, "propose_veto", "accept_veto", log=log))
    assert "reshuffle" in log
    assert (fields["draw_liberal"], fields["draw_fascist"]) == (6, 6)


def test_R_L5_the_forced_reshuffle_moves_follow_the_pile() -> None:
    full = position(7, phase="session_end", draw_liberal=3, draw_fascist=3)
    refused(full, "reshuffle", "R-L5")
    low = position(7, phase="session_end", draw_liberal=1, draw_fascist=1, discard_liberal=5, discard_fascist=10)
    refused(low, "keep_deck", "R-L5")
    short = position(7, phase="draw", draw_liberal=1, draw_fascist=1)
    refused(short, ("draw_hand", {"fascist_tiles": 1}), "R-L5")


@pytest.mark.parametrize("tracker", [0, 1, 2])
@pytest.mark.parametrize("tile", ["liberal", "fascist"])
def test_R_L6_004_5_every_enacted_policy_resets_the_tracker(tracker: int, tile: str) -> None:
    state = session(7, chancellor_hand=1, election_tracker=tracker)
    assert read(play(state, ("enact", {"tile": tile})))["election_tracker"] == 0
    chaos = position(7, phase="chaos", election_tracker=3)
    assert read(play(chaos, ("chaos", {"tile": tile})))["election_tracker"] == 0



def test_an_illegal_move_passes_through_a_context_manager_unchanged() -> None:
    """Python sets `__traceback__` on an exception leaving a `with` block; a frozen
    IllegalMove used to turn every refusal there into a TypeError."""
    import contextlib

    @contextlib.contextmanager
    def block() -> Iterator[None]:
        yield

    state = start(7)
    game = game_of(state)
    with pytest.raises(IllegalMove) as caught:
        with block():
            game.apply(state, game.move("nominate", chancellor=0), by=0)
    assert caught.value.rule_id == "R-E2"
