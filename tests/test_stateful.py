"""Random legal play through the public engine API, checking the game's invariants.

A Hypothesis `RuleBasedStateMachine` per player count (5..10) plays legal moves: a seat's or
the table's choice, or any chance outcome with a positive probability; the game's forced
moves run after each. After every step it checks, from the readable fields and from its own
record of the game (never from the spec's definitions alone): every tile of the deck is
somewhere (R-S3), the tracks and the tracker are in range and the tracker, the term-limited
pair and the candidate are what the test's own record says, the President is alive, nobody
was investigated twice (R-X3), and the game is over exactly when a win condition holds
(R-W1..R-W5); and it works out, without the spec, which choices the rules allow (who may
be nominated, which votes elect, which power and targets a President has) and compares
them with the engine's list of legal moves. A seeded random-play test then checks that the runs are not vacuous: every
way to win and every power, veto and chaos happens.

Profiles: `SHRULES_HYPOTHESIS_PROFILE=stateful-thorough` for a long run; the default is fast.
"""

from __future__ import annotations

import os
import unittest
from collections import Counter
from random import Random
from typing import Any, cast

import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from engine import chance_outcomes, compiled_game, legal_moves
from engine.game import Game
from engine.pycompile import compile_expression

# The numbers of RULES.md, written here on purpose: the test checks the spec against them.
DECK = {"liberal": 6, "fascist": 11}         # R-S3
LIBERAL_TRACK, FASCIST_TRACK = 5, 6          # R-W1, R-W3
TRACKER_LIMIT = 3                            # R-E9
HITLER_ZONE = 3                              # R-E10
ORDINARY_FASCISTS = {5: 1, 6: 1, 7: 2, 8: 2, 9: 3, 10: 3}   # R-S2
FEW_ALIVE, VETO_ZONE = 5, 5                  # R-E4, R-V1
BOARDS = {range(5, 7): ["none", "none", "peek", "execution", "execution"],                     # R-X7
          range(7, 9): ["none", "investigate", "special_election", "execution", "execution"],
          range(9, 11): ["investigate", "investigate", "special_election", "execution", "execution"]}
POWER_MOVES = {"investigate": "investigate", "peek": "policy_peek", "special_election": "special_election",
               "execution": "execute"}

# The fast profile does not shrink (a failure prints the unshrunk program at once); run the
# thorough one to shrink a failure to its shortest form.
settings.register_profile("stateful-fast", max_examples=12, stateful_step_count=70, deadline=None,
                          phases=[Phase.explicit, Phase.reuse, Phase.generate],
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("stateful-thorough", max_examples=300, stateful_step_count=250, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
PROFILE = os.environ.get("SHRULES_HYPOTHESIS_PROFILE", "stateful-fast")


class Record:
    """What the test itself remembers of a game, to check the engine against."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.investigated: list[int] = []
        self.hitler_elected = False
        self.tracker = 0                                      # R-E8, R-E11, R-L6, R-V3, R-E9
        self.last_pair: tuple[int | None, int | None] = (None, None)   # R-E12, R-V4, R-E9
        self.candidate: int | None = None                     # the next Presidential Candidate, R-E1
        self.caller: int | None = None                        # who called a Special Election, R-X4
        self.power = "none"                                   # the power the last policy granted, R-X1
        self.listed: tuple[Any, list[Any]] = (None, [])       # the legal moves of the last state checked
        self.board = next(board for counts, board in BOARDS.items() if game.players in counts)
        self.veto_refused = False                             # R-V3
        self.in_play = {kind: compile_expression(game.spec, game.players, game.spec.definitions[f"{kind}s_in_play"])
                        for kind in DECK}

    def next_alive(self, alive: list[int], seat: int) -> int:
        return next(s % self.game.players for s in range(seat + 1, seat + 1 + self.game.players)
                    if s % self.game.players in alive)

    def before(self, state: Any, move: Any) -> None:
        """Note what a move does, from the state before it."""
        fields = self.game.describe(state)
        params = self.game.params_of(move)
        if move.rule in POWER_MOVES.values():
            self.power = "none"                        # R-X2: used once
        if move.rule == "investigate":
            assert params["target"] not in self.investigated, f"seat {params['target']} investigated twice (R-X3)"
            self.investigated.append(params["target"])
        elif move.rule == "elect":
            self.hitler_elected = fields["fascist_policies"] >= HITLER_ZONE and fields["nominee"] == fields["hitler"]
            self.last_pair = (fields["president"], fields["nominee"])
        elif move.rule in ("reject", "accept_veto"):
            self.tracker += 1
        elif move.rule == "refuse_veto":
            self.veto_refused = True
        elif move.rule == "enact":
            self.tracker = 0
            self.veto_refused = False
            slot = fields["fascist_policies"]          # the slot the policy lands on, counted from 0
            granted = params["tile"] == "fascist" and slot < len(self.board)
            self.power = self.board[slot] if granted else "none"
        elif move.rule == "chaos":
            self.tracker = 0
            self.last_pair = (None, None)
            self.power = "none"                        # R-E9: a chaos policy grants no power
        elif move.rule == "first_president":
            self.candidate = params["candidate"]
        elif move.rule == "special_election":
            self.caller, self.candidate = fields["president"], params["candidate"]
        elif move.rule in ("pass_candidacy", "return_candidacy"):
            after = fields["president"] if self.caller is None else self.caller
            self.candidate, self.caller = self.next_alive(fields["alive"], after), None

    def check(self, state: Any, votes: bool = True) -> None:
        """Every invariant of a state the game rests in (forced moves run); with `votes`
        false, the 2**alive listed votes are not enumerated (the slow part at ten players)."""
        game = self.game
        fields = game.describe(state)
        phase = fields["phase"]
        # R-S3: every tile is in the draw pile, the known top, the discards, a hand or on a track
        hand_tiles, hand_fascist = {"president_discard": (3, fields["president_hand"]),
                                    "chancellor_enact": (2, fields["chancellor_hand"]),
                                    "veto": (2, fields["chancellor_hand"])}.get(phase, (0, 0))
        if hand_tiles == 0:
            assert fields["president_hand"] == fields["chancellor_hand"] == 0, "tiles in a hand outside a session"
        assert 0 <= hand_fascist <= hand_tiles
        top = fields["known_top"]
        liberals = (fields["draw_liberal"] + top.count("liberal") + fields["discard_liberal"]
                    + hand_tiles - hand_fascist + fields["liberal_policies"])
        fascists = (fields["draw_fascist"] + top.count("fascist") + fields["discard_fascist"]
                    + hand_fascist + fields["fascist_policies"])
        assert (liberals, fascists) == (DECK["liberal"], DECK["fascist"]), f"tiles lost or made: {fields}"
        assert (self.in_play["liberal"](state), self.in_play["fascist"](state)) == (liberals, fascists)
        for name in ("draw_liberal", "draw_fascist", "discard_liberal", "discard_fascist"):
            assert fields[name] >= 0
        pile = len(top) + fields["draw_liberal"] + fields["draw_fascist"]
        if phase in ("nominate", "vote", "draw"):
            assert pile >= 3, "a round starts with fewer than three tiles in the pile (R-L5)"
        # tracks and tracker
        assert 0 <= fields["liberal_policies"] <= LIBERAL_TRACK
        assert 0 <= fields["fascist_policies"] <= FASCIST_TRACK
        assert 0 <= fields["election_tracker"] <= TRACKER_LIMIT
        if fields["election_tracker"] == TRACKER_LIMIT:
            assert phase == "chaos", "the tracker rests at three without chaos (R-E9)"
        # roles (R-S2) and the living
        if phase not in ("deal", "first_president"):
            assert len(fields["fascists"]) == ORDINARY_FASCISTS[game.players]
            assert fields["hitler"] not in fields["fascists"]
            assert fields["president"] in fields["alive"], "the President is dead"
            if fields["nominee"] is not None and phase != "over":
                assert fields["nominee"] in fields["alive"] and fields["nominee"] != fields["president"]
        # the engine's record is the test's: investigations (R-X3), the tracker, the
        # term-limited pair, and the candidate (clockwise, or back after a Special Election)
        assert sorted(self.investigated) == fields["investigated"]
        assert fields["election_tracker"] == self.tracker
        assert (fields["last_president"], fields["last_chancellor"]) == self.last_pair
        if phase == "nominate":
            assert fields["president"] == self.candidate, f"seat {fields['president']} is candidate, not {self.candidate}"
        # R-W1..R-W5: over exactly when a win condition holds, with the right winner
        liberal_win = fields["liberal_policies"] == LIBERAL_TRACK or fields["hitler"] not in fields["alive"]
        fascist_win = fields["fascist_policies"] == FASCIST_TRACK or self.hitler_elected
        assert not (liberal_win and fascist_win), "two wins at once"
        assert game.is_over(state) == (liberal_win or fascist_win), f"over={game.is_over(state)} but {fields}"
        if game.is_over(state):
            assert game.winner(state) == ("liberal" if liberal_win else "fascist")
            assert legal_moves(state) == [] and game.actor(state) is None
        else:
            assert game.winner(state) is None and game.actor(state) is not None
            if phase == "vote" and not votes:
                return
            moves = legal_moves(state)
            assert moves, f"no legal move in phase {phase}: deadlock"
            self.check_choices(state, fields, moves)
            self.listed = (state, moves)

    def check_choices(self, state: Any, fields: dict[str, Any], moves: list[Any]) -> None:
        """The moves the engine lists are the ones the rules allow, worked out here."""
        game, alive, president = self.game, fields["alive"], fields["president"]
        phase = fields["phase"]
        if phase == "vote":                                                # R-E6, R-E7
            alive_mask = sum(1 << seat for seat in alive)              # a vote's Ja set is a seat mask
            for move in moves:
                ja = move.args[0]
                assert ja & ~alive_mask == 0, "a dead player voted"
                assert (2 * ja.bit_count() > len(alive)) == (move.rule == "elect"), move
            assert len(moves) == 2 ** len(alive)
            return
        by_rule: dict[str, list[dict[str, Any]]] = {}
        for move in moves:
            by_rule.setdefault(move.rule, []).append(game.params_of(move))
        if phase == "nominate":                                            # R-E2, R-E3, R-E4
            barred = {fields["last_chancellor"]}
            if len(alive) > FEW_ALIVE:
                barred.add(fields["last_president"])
            expected = [s for s in alive if s != president and s not in barred]
            assert sorted(p["chancellor"] for p in by_rule["nominate"]) == expected
        elif phase == "chancellor_enact":                                  # R-V1, R-V3
            may_veto = fields["fascist_policies"] >= VETO_ZONE and not self.veto_refused
            assert ("propose_veto" in by_rule) == may_veto
        elif phase == "power":                                             # R-X1, R-X7, R-X3, R-X4, R-X6
            assert list(by_rule) == [POWER_MOVES[self.power]], f"{list(by_rule)} but {self.power} was granted"
            others = [s for s in alive if s != president]
            if self.power == "investigate":
                assert sorted(p["target"] for p in by_rule["investigate"]) == [
                    s for s in others if s not in self.investigated]
                for move in moves:
                    target = game.params_of(move)["target"]
                    fascist = target == fields["hitler"] or target in fields["fascists"]
                    assert game.reveals(state, move) == {"party": "fascist" if fascist else "liberal"}
            elif self.power == "special_election":
                assert sorted(p["candidate"] for p in by_rule["special_election"]) == others
            elif self.power == "execution":
                assert sorted(p["target"] for p in by_rule["execute"]) == others


class GameMachine(RuleBasedStateMachine):
    """Random legal play of one player count."""

    players = 7

    def __init__(self) -> None:
        super().__init__()
        self.game = compiled_game(self.players)
        self.state: Any = self.game.initial_state()
        self.record = Record(self.game)

    def forced(self) -> None:
        while (move := self.game.forced_move(self.state)) is not None:
            assert legal_moves(self.state) == [move], "a forced step must have exactly one legal move"
            self.record.before(self.state, move)
            self.state = self.game.apply(self.state, move)

    @initialize()
    def start(self) -> None:
        self.forced()

    @precondition(lambda self: not self.game.is_over(self.state))
    @rule(data=st.data())
    def move(self, data: st.DataObject) -> None:
        actor = self.game.actor(self.state)
        if actor == "chance":
            moves = [move for move, probability in chance_outcomes(self.state) if probability > 0]
        elif self.record.listed[0] == self.state:
            moves = self.record.listed[1]
        else:
            moves = legal_moves(self.state)
        # choose the kind of move first, so a rare one (a veto) is not drowned by many votes
        kind = data.draw(st.sampled_from(sorted({move.rule for move in moves})), label="rule")
        move = data.draw(st.sampled_from([m for m in moves if m.rule == kind]), label="move")
        self.record.before(self.state, move)
        self.state = self.game.apply(self.state, move, by=actor if isinstance(actor, int) else None)
        self.forced()

    @precondition(lambda self: self.game.is_over(self.state))
    @rule()
    def nothing_after_the_end(self) -> None:
        assert legal_moves(self.state) == [] and self.game.advance(self.state) == (self.state, [])

    @invariant()
    def invariants_hold(self) -> None:
        self.record.check(self.state)


def _machine(players: int) -> type[unittest.TestCase]:
    # type() with the one base GameMachine makes a subclass of it
    machine = cast(type[GameMachine], type(f"GameMachine{players}", (GameMachine,), {"players": players}))
    test_case = machine.TestCase
    test_case.settings = settings.get_profile(PROFILE)
    return test_case


TestRandomPlay5 = _machine(5)
TestRandomPlay6 = _machine(6)
TestRandomPlay7 = _machine(7)
TestRandomPlay8 = _machine(8)
TestRandomPlay9 = _machine(9)
TestRandomPlay10 = _machine(10)


def _random_game(game: Game, rng: Random, seen: Counter[str]) -> None:
    record = Record(game)
    state = game.initial_state()
    while not game.is_over(state):
        actor = game.actor(state)
        if actor == "game":
            move = game.forced_move(state)
            assert move is not None and legal_moves(state) == [move], "a forced step must have exactly one legal move"
        elif actor == "chance":
            move = game.sample_chance(state, rng)
        else:
            move = game.sample_choice(state, rng)
        record.before(state, move)
        state = game.apply(state, move, by=actor if isinstance(actor, int) else None)
        seen[move.rule] += 1
        if game.actor(state) != "game":
            record.check(state, votes=False)
    seen[f"{game.winner(state)} by {game.how(state)}"] += 1


@pytest.mark.parametrize("players", range(5, 11))
def test_random_play_reaches_every_ending_and_every_event(players: int) -> None:
    """The invariants above are not vacuous: seeded random games win every way and use
    every power of the board, the veto and chaos (a 'sometimes' property per count)."""
    game = compiled_game(players)
    rng = Random(1000 + players)
    seen: Counter[str] = Counter()
    for _ in range(150):
        _random_game(game, rng, seen)
    powers = {5: ["policy_peek", "execute"], 6: ["policy_peek", "execute"], 7: ["investigate", "special_election", "execute"],
              8: ["investigate", "special_election", "execute"], 9: ["investigate", "special_election", "execute"],
              10: ["investigate", "special_election", "execute"]}[players]
    expected = ["liberal by policies", "liberal by execution", "fascist by policies", "fascist by hitler_chancellor",
                "chaos", "reshuffle", "propose_veto", "accept_veto", "refuse_veto", *powers]
    missing = [event for event in expected if not seen[event]]
    assert not missing, f"never happened in 150 games of {players}: {missing}"
