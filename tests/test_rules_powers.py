"""Scenario tests for the powers, the veto, the end of the game and the known disputes
(R-X*, R-V*, R-W*, D-*), named after the rule IDs of RULES.md; the 004 "✗ Nicht" items
they cover are named `..._004_<item>_...`. Setup, election and the legislative session are
in test_rules.py.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from random import Random
from typing import Any

import pytest

from engine import chance_outcomes, legal_moves
from helpers import HITLER, Step, failed_vote, game_of, government, legal, play, position, read, refused, session

ALL_COUNTS = range(5, 11)

BOARDS = {  # R-X7, as printed in RULES.md: slot 1..5
    range(5, 7): ["none", "none", "peek", "execution", "execution"],
    range(7, 9): ["none", "investigate", "special_election", "execution", "execution"],
    range(9, 11): ["investigate", "investigate", "special_election", "execution", "execution"],
}


def board(players: int) -> list[str]:
    return next(powers for counts, powers in BOARDS.items() if players in counts)


def power(players: int, granted: str, president: int = 0, **more: object) -> Any:
    """The President obliged to use `granted`."""
    slot = board(players).index(granted) + 1 if granted in board(players) else 1
    fields: dict[str, object] = dict(phase="power", power=granted, president=president, fascist_policies=slot,
                                     last_president=president, last_chancellor=4,
                                     draw_fascist=11 - slot - 2, discard_fascist=2, discard_liberal=1,
                                     draw_liberal=5)
    fields.update(more)
    return position(players, **fields)


# ============================================================== executive action (R-X1..R-X7)


@pytest.mark.parametrize("players, slot", [(p, s) for p in ALL_COUNTS for s in range(1, 6)])
def test_R_X1_R_X7_a_government_fascist_policy_grants_the_slots_power(players: int, slot: int) -> None:
    state = session(players, chancellor_hand=1, fascist_policies=slot - 1)
    after = play(state, ("enact", {"tile": "fascist"}))
    expected = board(players)[slot - 1]
    fields = read(after)
    assert fields["power"] == expected
    assert fields["phase"] == ("nominate" if expected == "none" else "power")
    if expected != "none":                               # the President who enacted it; a peek is chance's
        assert game_of(after).actor(after) == ("chance" if expected == "peek" else 0)


@pytest.mark.parametrize("players", ALL_COUNTS)
def test_R_X1_a_liberal_policy_grants_no_power(players: int) -> None:
    for slot in range(1, 6):
        state = session(players, chancellor_hand=1, fascist_policies=slot)
        assert read(play(state, ("enact", {"tile": "liberal"})))["power"] == "none"


@pytest.mark.parametrize("granted", ["investigate", "special_election", "execution"])
def test_R_X1_the_power_must_be_used_before_the_next_round(granted: str) -> None:
    state = power(7, granted)
    rule = {"execution": "execute"}.get(granted, granted)
    error = refused(state, ("nominate", {"chancellor": 2}), "R-E2")     # a wrong-time move cites its own rule
    assert "not the time for 'nominate'" in error.reason and rule in error.reason
    assert {move.rule for move in legal_moves(state)} == {rule}


@pytest.mark.parametrize("granted, used", [
    (granted, used) for granted, used in product(["investigate", "special_election", "execution", "peek"],
                                                 ["investigate", "special_election", "execute"])
    if used != granted and not (granted == "execution" and used == "execute")])
def test_R_X1_only_the_granted_power_can_be_used(granted: str, used: str) -> None:
    players = 5 if granted == "peek" else 7
    state = power(players, granted)
    refused(state, (used, {"target" if used != "special_election" else "candidate": 2}), "R-X1")


def test_R_X1_a_peek_cannot_be_used_without_the_power() -> None:
    refused(power(7, "execution"), ("policy_peek", {"top": ["fascist"] * 3}), "R-X1")


@pytest.mark.parametrize("granted, step", [
    ("investigate", ("investigate", {"target": 2})),
    ("special_election", ("special_election", {"candidate": 2})),
    ("execution", ("execute", {"target": 2})),
])
def test_R_X2_a_power_is_used_once(granted: str, step: tuple[str, dict[str, int]]) -> None:
    after = play(power(7, granted), step)
    assert read(after)["power"] == "none" and read(after)["phase"] == "nominate"
    error = refused(after, (step[0], {"target" if "target" in step[1] else "candidate": 5}, 0), "R-X1")
    assert "not the time" in error.reason and "waits for nominate" in error.reason


def test_R_X2_a_power_skipped_by_chaos_does_not_wait_for_a_later_policy() -> None:
    state = position(9, president=0, election_tracker=2)
    state = play(failed_vote(state, 4), ("chaos", {"tile": "fascist"}))       # slot 1: Investigate, skipped
    assert read(state)["power"] == "none"
    state = government(state, 5, fascist_tiles=1, discard="fascist", enact="liberal")
    assert read(state)["power"] == "none" and read(state)["phase"] == "nominate"


@pytest.mark.parametrize("target, why", [(0, "himself"), (6, "dead"), (2, "already")])
def test_R_X3_investigate_another_living_player_not_investigated_before(target: int, why: str) -> None:
    state = power(7, "investigate", alive=[0, 1, 2, 3, 4, 5], investigated=[2])
    error = refused(state, ("investigate", {"target": target}), "R-X3")
    assert why in error.reason
    targets = sorted(game_of(state).params_of(move)["target"] for move in legal_moves(state))
    assert targets == [1, 3, 4, 5]


def test_R_X3_004_7_investigation_shows_the_party_hitler_shows_fascist() -> None:
    state = power(7, "investigate")
    game = game_of(state)
    seen = {target: game.reveals(state, game.move("investigate", target=target)) for target in range(1, 7)}
    assert seen[HITLER] == {"party": "fascist"}              # not "hitler": the party card only
    assert {target for target, shown in seen.items() if shown == {"party": "fascist"}} == {1, HITLER, 5}
    after = play(state, ("investigate", {"target": HITLER}))
    assert read(after)["investigated"] == [HITLER]


def test_R_X3_nobody_is_investigated_twice_in_a_game() -> None:
    """9 players: slots 1 and 2 both investigate; the second President cannot pick the first target."""
    state = government(position(9, president=0), 4, fascist_tiles=3, discard="fascist", enact="fascist")
    state = play(state, ("investigate", {"target": 2}))
    state = government(state, 5, fascist_tiles=3, discard="fascist", enact="fascist")
    assert read(state)["power"] == "investigate" and read(state)["president"] == 1
    refused(state, ("investigate", {"target": 2}), "R-X3")
    legal(state, ("investigate", {"target": 0}))


@pytest.mark.parametrize("candidate, why", [(0, "himself"), (6, "dead")])
def test_R_X4_special_election_of_another_living_player(candidate: int, why: str) -> None:
    state = power(7, "special_election", alive=[0, 1, 2, 3, 4, 5])
    assert why in refused(state, ("special_election", {"candidate": candidate}), "R-X4").reason


def test_R_X4_004_8_a_term_limited_player_may_be_chosen_and_candidacy_returns_to_the_callers_left() -> None:
    state = power(7, "special_election", president=0, last_president=0, last_chancellor=4)
    state = legal(state, ("special_election", {"candidate": 4}))
    assert read(state)["president"] == 4 and game_of(state).actor(state) == 4
    refused(state, ("nominate", {"chancellor": 4}), "R-E2")
    refused(state, ("nominate", {"chancellor": 0}), "R-E4")           # term limits still bind the nominee
    state = government(state, 2, fascist_tiles=1, discard="fascist", enact="liberal")
    assert read(state)["president"] == 1                              # not 5, the left of the chosen one


def test_R_X4_the_specially_elected_candidate_needs_an_eligible_nominee() -> None:
    state = power(7, "special_election", president=0, last_president=0, last_chancellor=2)
    state = play(state, ("special_election", {"candidate": 5}))
    refused(state, ("nominate", {"chancellor": 2}), "R-E3")


def test_R_X5_peek_shows_the_top_three_and_they_stay_in_order() -> None:
    state = power(5, "peek", draw_liberal=5, draw_fascist=7, discard_liberal=1, discard_fascist=1,
                  fascist_policies=3)
    game = game_of(state)
    outcomes = dict(chance_outcomes(state))
    assert len(outcomes) == 8 and sum(outcomes.values()) == 1
    assert outcomes[game.move("policy_peek", top=["fascist", "liberal", "liberal"])] == Fraction(7 * 5 * 4, 12 * 11 * 10)
    after = legal(state, ("policy_peek", {"top": ["fascist", "liberal", "liberal"]}))
    assert read(after)["known_top"] == ["fascist", "liberal", "liberal"]
    assert read(after)["phase"] == "nominate" and read(after)["power"] == "none"
    drawn = play(after, ("nominate", {"chancellor": 2}), ("elect", {"ja": [0, 1, 2]}))
    assert chance_outcomes(drawn) == [(game.move("draw_hand", fascist_tiles=1), Fraction(1))]


@pytest.mark.parametrize("granted, actor", [("peek", "chance"), ("execution", 0)])
def test_R_X5_the_peek_is_chance_the_other_powers_the_presidents_choice(granted: str, actor: object) -> None:
    assert game_of(power(5, granted)).actor(power(5, granted)) == actor


def test_R_X5_random_play_peeks_with_the_decks_odds_not_uniformly() -> None:
    """One Liberal among eleven tiles: three Fascists on top with probability 8/11, not the
    1/4 of a uniform pick among the four sequences the pile allows."""
    state = power(5, "peek", draw_liberal=1, draw_fascist=10, discard_liberal=5, discard_fascist=0)
    game = game_of(state)
    three = game.move("policy_peek", top=["fascist"] * 3)
    assert dict(chance_outcomes(state))[three] == Fraction(8, 11)
    rng = Random(7)
    by_step = sum(read(game.random_step(state, rng))["known_top"] == ["fascist"] * 3 for _ in range(500))
    by_move = sum(game.random_move(state, rng) == three for _ in range(500))
    by_sample = sum(game.sample_chance(state, rng) == three for _ in range(500))
    for hits in (by_step, by_move, by_sample):
        assert 0.62 < hits / 500 < 0.84, hits


def test_R_X5_a_peek_the_pile_cannot_show_is_refused() -> None:
    state = power(5, "peek", draw_liberal=0, draw_fascist=12, discard_liberal=6, discard_fascist=0,
                  fascist_policies=3)
    refused(state, ("policy_peek", {"top": ["fascist", "liberal", "fascist"]}), "R-X5")
    legal(state, ("policy_peek", {"top": ["fascist"] * 3}))


@pytest.mark.parametrize("target, why", [(0, "himself"), (6, "dead")])
def test_R_X6_execute_another_living_player(target: int, why: str) -> None:
    state = power(7, "execution", alive=[0, 1, 2, 3, 4, 5])
    assert why in refused(state, ("execute", {"target": target}), "R-X6").reason


def test_R_X6_004_9_the_executed_role_stays_secret() -> None:
    state = power(7, "execution")
    game = game_of(state)
    for target in (1, 2):                                       # a Fascist, a Liberal: nothing shown
        assert game.reveals(state, game.move("execute", target=target)) == {}
        after = play(state, ("execute", {"target": target}))
        assert not game.is_over(after) and game.winner(after) is None
        assert read(after)["alive"] == [s for s in range(7) if s != target]


def test_R_X6_the_dead_do_not_vote_hold_or_run_for_office() -> None:
    state = play(power(7, "execution", president=0), ("execute", {"target": 2}))
    assert read(state)["president"] == 1                         # candidacy skips nobody alive
    refused(state, ("nominate", {"chancellor": 2}), "R-E2")
    voting = play(state, ("nominate", {"chancellor": 5}))
    refused(voting, ("elect", {"ja": [0, 1, 2, 5]}), "R-E6")
    refused(power(7, "investigate", alive=[0, 1, 3, 4, 5, 6]), ("investigate", {"target": 2}), "R-X3")
    refused(power(7, "special_election", alive=[0, 1, 3, 4, 5, 6]), ("special_election", {"candidate": 2}), "R-X4")
    refused(power(7, "execution", alive=[0, 1, 3, 4, 5, 6]), ("execute", {"target": 2}), "R-X6")
    around = failed_vote(position(7, president=1, alive=[0, 1, 3, 4, 5, 6]), 4)
    assert read(around)["president"] == 3


@pytest.mark.parametrize("players", ALL_COUNTS)
def test_R_X7_the_sixth_fascist_slot_is_the_fascist_win_not_a_power(players: int) -> None:
    after = play(session(players, chancellor_hand=1, fascist_policies=5), ("enact", {"tile": "fascist"}))
    assert game_of(after).winner(after) == "fascist" and read(after)["power"] == "none"


# ============================================================== veto (R-V1..R-V4)


@pytest.mark.parametrize("fascist_policies, allowed", [(3, False), (4, False), (5, True)])
def test_R_V1_the_veto_exists_from_five_fascist_policies(fascist_policies: int, allowed: bool) -> None:
    state = session(7, chancellor_hand=1, fascist_policies=fascist_policies)
    if allowed:
        assert read(legal(state, "propose_veto"))["phase"] == "veto"
    else:
        assert "5" in refused(state, "propose_veto", "R-V1").reason


def test_R_V2_004_11_only_the_chancellor_proposes_a_veto() -> None:
    state = session(7, chancellor_hand=1, fascist_policies=5, president=0, nominee=4)
    refused(state, ("propose_veto", {}, 0), "R-V2")
    refused(state, ("accept_veto", {}, 0), "R-V3")              # no veto to agree to yet
    before = position(7, base=state, phase="president_discard", president_hand=2, chancellor_hand=0)
    refused(before, ("propose_veto", {}, 4), "R-V2")             # only after two tiles are passed (R-V2)
    proposed = play(state, "propose_veto")
    assert game_of(proposed).actor(proposed) == 0
    refused(proposed, ("accept_veto", {}, 4), "R-V3")            # the Chancellor cannot agree for him


@pytest.mark.parametrize("chancellor_hand", [0, 1, 2])
def test_R_V3_004_11_an_agreed_veto_discards_both_and_costs_a_tracker_step(chancellor_hand: int) -> None:
    state = session(7, chancellor_hand=chancellor_hand, fascist_policies=5, election_tracker=1)
    before = read(state)
    fields = read(play(state, "propose_veto", "accept_veto"))
    assert fields["election_tracker"] == 2
    assert fields["discard_fascist"] == before["discard_fascist"] + chancellor_hand
    assert fields["discard_liberal"] == before["discard_liberal"] + 2 - chancellor_hand
    assert (fields["fascist_policies"], fields["liberal_policies"]) == (5, 0)
    assert (fields["phase"], fields["president"]) == ("nominate", 1)


def test_R_V3_a_refused_veto_obliges_the_chancellor_to_enact() -> None:
    state = play(session(7, chancellor_hand=1, fascist_policies=5), "propose_veto", "refuse_veto")
    assert read(state)["phase"] == "chancellor_enact"
    refused(state, "propose_veto", "R-V3")
    assert {move.rule for move in legal_moves(state)} == {"enact"}
    assert read(legal(state, ("enact", {"tile": "liberal"})))["liberal_policies"] == 1


def test_R_V3_a_veto_on_the_third_failure_sets_off_chaos() -> None:
    state = session(7, chancellor_hand=1, fascist_policies=5, election_tracker=2, liberal_policies=2)
    state = play(state, "propose_veto", "accept_veto")
    game = game_of(state)
    assert game.phase(state) == "chaos" and game.actor(state) == "chance"
    fields = read(play(state, ("chaos", {"tile": "liberal"})))
    assert (fields["liberal_policies"], fields["election_tracker"], fields["president"]) == (3, 0, 1)
    assert fields["last_president"] is None and fields["last_chancellor"] is None


def test_R_V4_an_accepted_veto_keeps_the_term_limits() -> None:
    state = session(7, chancellor_hand=1, fascist_policies=5, president=0, nominee=4)
    state = play(state, "propose_veto", "accept_veto")
    assert (read(state)["last_president"], read(state)["last_chancellor"]) == (0, 4)
    refused(state, ("nominate", {"chancellor": 4}), "R-E3")
    refused(state, ("nominate", {"chancellor": 0}), "R-E4")


# ============================================================== end of the game (R-W1..R-W5)


@pytest.mark.parametrize("by", ["government", "chaos"])
@pytest.mark.parametrize("players", [5, 7, 10])
def test_R_W1_the_fifth_liberal_policy_wins(by: str, players: int) -> None:
    if by == "government":
        state = play(session(players, chancellor_hand=1, liberal_policies=4), ("enact", {"tile": "liberal"}))
    else:
        state = play(position(players, phase="chaos", liberal_policies=4, draw_liberal=2), ("chaos", {"tile": "liberal"}))
    game = game_of(state)
    assert (game.is_over(state), game.winner(state), game.how(state)) == (True, "liberal", "policies")
    not_yet = play(session(players, chancellor_hand=1, liberal_policies=3), ("enact", {"tile": "liberal"}))
    assert not game.is_over(not_yet)


def test_R_W2_executing_hitler_wins_for_the_liberals() -> None:
    state = power(7, "execution")
    game = game_of(state)
    after = play(state, ("execute", {"target": HITLER}))
    assert (game.is_over(after), game.winner(after), game.how(after)) == (True, "liberal", "execution")
    refused(position(7, phase="executed"), "hitler_executed", "R-W2")
    hitler_dead = position(7, phase="executed", alive=[0, 1, 2, 4, 5, 6])
    refused(hitler_dead, "not_hitler_executed", "R-X6")
    assert legal_moves(hitler_dead) == [game.move("hitler_executed")]


@pytest.mark.parametrize("by", ["government", "chaos"])
def test_R_W3_the_sixth_fascist_policy_wins(by: str) -> None:
    if by == "government":
        state = play(session(7, chancellor_hand=2, fascist_policies=5), ("enact", {"tile": "fascist"}))
    else:
        state = play(position(7, phase="chaos", fascist_policies=5, draw_fascist=6), ("chaos", {"tile": "fascist"}))
    game = game_of(state)
    assert (game.is_over(state), game.winner(state), game.how(state)) == (True, "fascist", "policies")


def test_R_W3_R_W1_the_track_win_moves_are_refused_before_the_track_is_full() -> None:
    enacted = position(7, phase="enacted", liberal_policies=4, fascist_policies=5)
    refused(enacted, "liberal_track_win", "R-W1")
    refused(enacted, "fascist_track_win", "R-W3")
    refused(position(7, phase="enacted", fascist_policies=6), "no_track_win", "R-W5")


def test_R_W4_hitler_elected_chancellor_wins_for_the_fascists() -> None:
    state = play(position(7, president=0, fascist_policies=3),
                 ("nominate", {"chancellor": HITLER}), ("elect", {"ja": [0, 1, 3, 5]}))
    game = game_of(state)
    assert (game.winner(state), game.how(state)) == ("fascist", "hitler_chancellor")
    assert read(state)["phase"] == "over" and game.actor(state) is None


@pytest.mark.parametrize("ending", ["liberal_policies", "fascist_policies", "execution", "hitler_chancellor"])
def test_R_W5_nothing_is_played_after_a_win(ending: str) -> None:
    if ending == "liberal_policies":     # the pile is short: no reshuffle happens after the win
        state = play(session(7, chancellor_hand=1, liberal_policies=4, draw_liberal=0, draw_fascist=1,
                             discard_liberal=1, discard_fascist=9), ("enact", {"tile": "liberal"}))
        assert read(state)["draw_fascist"] == 1 and read(state)["discard_fascist"] == 10
    elif ending == "fascist_policies":   # slot 6: no power after the win
        state = play(session(9, chancellor_hand=2, fascist_policies=5), ("enact", {"tile": "fascist"}))
        assert read(state)["power"] == "none"
    elif ending == "execution":
        state = play(power(7, "execution"), ("execute", {"target": HITLER}))
    else:
        state = play(position(7, president=0, fascist_policies=3),
                     ("nominate", {"chancellor": HITLER}), ("elect", {"ja": [0, 1, 3, 5]}))
        assert read(state)["president_hand"] == 0
    game = game_of(state)
    assert game.is_over(state) and legal_moves(state) == [] and game.actor(state) is None
    assert game.advance(state) == (state, [])
    steps: list[Step] = [("nominate", {"chancellor": 2}, 1), ("draw_hand", {"fascist_tiles": 1}), "reshuffle",
                         ("execute", {"target": 2}, 0), ("chaos", {"tile": "fascist"})]
    for step in steps:
        error = refused(state, step, "R-W5")
        assert "over" in error.reason


# ============================================================== known disputes (D-1..D-5)


def test_D_1_a_rejected_special_election_returns_to_the_callers_left() -> None:
    state = play(power(7, "special_election", president=2), ("special_election", {"candidate": 5}))
    state = failed_vote(state, 1)
    fields = read(state)
    assert (fields["president"], fields["election_tracker"], fields["special_return"]) == (3, 1, None)
    # and then clockwise again from there
    assert read(failed_vote(state, 1))["president"] == 4


def test_D_2_a_special_election_on_the_next_player_makes_him_president_twice() -> None:
    state = play(power(7, "special_election", president=0), ("special_election", {"candidate": 1}))
    assert read(state)["president"] == 1
    state = government(state, 2, fascist_tiles=1, discard="fascist", enact="liberal")
    assert read(state)["president"] == 1
    legal(state, ("nominate", {"chancellor": 5}))


def test_D_3_the_caller_executed_during_the_special_election_candidacy_goes_to_his_left() -> None:
    state = power(7, "special_election", president=0, fascist_policies=3, draw_fascist=6)
    state = play(state, ("special_election", {"candidate": 5}))
    state = government(state, 2, fascist_tiles=3, discard="fascist", enact="fascist")
    assert read(state)["power"] == "execution" and read(state)["president"] == 5
    state = play(state, ("execute", {"target": 0}))
    assert read(state)["president"] == 1
    state = play(power(7, "special_election", president=6, fascist_policies=3, draw_fascist=6),
                 ("special_election", {"candidate": 2}))
    state = government(state, 5, fascist_tiles=3, discard="fascist", enact="fascist")
    state = play(state, ("execute", {"target": 6}))
    assert read(state)["president"] == 0                          # wraps past the dead caller


def test_D_4_a_fifth_fascist_policy_by_chaos_unlocks_the_veto_but_no_execution() -> None:
    state = position(7, president=0, election_tracker=2, fascist_policies=4, draw_fascist=7)
    state = play(failed_vote(state, 4), ("chaos", {"tile": "fascist"}))
    assert read(state)["power"] == "none" and read(state)["fascist_policies"] == 5
    state = play(state, ("nominate", {"chancellor": 2}), ("elect", {"ja": [0, 1, 2, 4]}),
                 ("draw_hand", {"fascist_tiles": 2}), ("president_discard", {"tile": "fascist"}))
    assert read(legal(state, "propose_veto"))["phase"] == "veto"


def test_D_5_a_veto_setting_off_chaos_on_a_short_pile_reshuffles_first() -> None:
    state = session(7, chancellor_hand=1, fascist_policies=5, election_tracker=2,
                    draw_liberal=0, draw_fascist=1, discard_liberal=5, discard_fascist=4)
    log: list[str] = []
    state = play(state, "propose_veto", "accept_veto", log=log)
    assert log.index("reshuffle") < log.index("veto_chaos")
    game = game_of(state)
    outcomes = dict(chance_outcomes(state))
    # the new deck: all 6 Liberal and the 6 Fascist tiles not on the track
    assert outcomes == {game.move("chaos", tile="liberal"): Fraction(6, 12),
                        game.move("chaos", tile="fascist"): Fraction(6, 12)}
