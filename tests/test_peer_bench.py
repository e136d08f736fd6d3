"""`shrules bench --peer DIR`: the driver of the peer engine keeps PEERS.md's contract.

The peer itself (lphillips/SecretHitlerDiscord) is third-party code the user points at and
never part of the repository; these tests write a tiny stand-in with the same interface
(`secret_hitler/game.py` and `images.py`) that records every breach of the contract: an
image drawn, a veto asked below 5 Fascist policies or twice in one session, a President
shooting himself. It also crashes on purpose, to check that crashes are not counted.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from verify.peer import PeerError, bench_peer, load_peer
from verify.cli import main

FAKE_GAME = '''
from enum import Enum
from PIL import Image
from secret_hitler import images

BREACHES = []
COUNTS = {"games": 0, "vetoes": 0, "executions": 0}


class GameState(Enum):
    NOMINATION = 2
    ELECTION = 3
    LEGISLATIVE_PRESIDENT = 4
    LEGISLATIVE_CHANCELLOR = 5
    VETO = 7
    INVESTIGATION = 8
    SPECIAL_ELECTION = 9
    POLICY_PEEK = 10
    EXECUTION = 11
    GAME_OVER = 12


class Player:
    def __init__(self, player_id):
        self.player_id = player_id

    def get_id(self):
        return self.player_id


class Game:
    def __init__(self, observer, channel_id, game_id, max_players, admin_id):
        self.observer, self.players, self.order = observer, {}, []
        self.fascist_board, self.policies, self.votes, self.asked = 0, [], {}, False
        self.chancellor = None
        COUNTS["games"] += 1
        self.crashes = COUNTS["games"] % 4 == 0          # every fourth game crashes

    def add_player(self, player_id, name, url):
        self.players[player_id] = Player(player_id)
        self.order.append(player_id)

    def start_game(self):
        self.current_president = self.players[self.order[0]]
        self.enter(GameState.NOMINATION)

    def enter(self, state):
        self.state = state
        self.observer.on_enter_anything(self, None)

    def nominate(self, player_id):
        if player_id == self.current_president.get_id():
            return False
        self.chancellor = self.players[player_id]
        self.enter(GameState.ELECTION)
        return True

    def vote(self, player_id, vote):
        self.votes[player_id] = vote
        if len(self.votes) == len(self.players):
            self.votes = {}
            self.policies, self.asked = ["F", "F", "L"], False
            images.PolicyHandImage(self.policies).compose()
            self.enter(GameState.LEGISLATIVE_PRESIDENT)

    def discard_policy(self, player_id, policy):
        self.policies.remove(policy)
        if len(self.policies) == 2:
            self.enter(GameState.LEGISLATIVE_CHANCELLOR)
            return True
        self.fascist_board += 1
        if self.crashes and self.fascist_board == 3:
            raise ValueError("a bug of the peer")
        if self.fascist_board >= 6:
            self.enter(GameState.GAME_OVER)
        elif self.fascist_board == 4:
            self.enter(GameState.EXECUTION)
        else:
            self.enter(GameState.NOMINATION)
        return True

    def request_veto(self, player_id):
        if self.fascist_board < 5 or self.asked:
            BREACHES.append("veto offered outside the gate")
        self.asked = True
        COUNTS["vetoes"] += 1
        self.enter(GameState.VETO)
        return True

    def veto(self, player_id, accept):
        self.enter(GameState.NOMINATION if accept else GameState.LEGISLATIVE_CHANCELLOR)
        return True

    def execute_player(self, player_id):
        if player_id == self.current_president.get_id():
            BREACHES.append("the President shot himself")
        COUNTS["executions"] += 1
        self.players.pop(player_id)
        self.enter(GameState.NOMINATION)
'''

FAKE_IMAGES = '''
class PolicyHandImage:
    def __init__(self, policies):
        raise AssertionError("the driver must replace the image with a no-op")
'''


@pytest.fixture()
def fake_peer(tmp_path: Path) -> Path:
    package = tmp_path / "peer" / "secret_hitler"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "game.py").write_text(FAKE_GAME)
    (package / "images.py").write_text(FAKE_IMAGES)
    return package.parent


def test_the_driver_keeps_the_veto_gate_spares_the_president_and_counts_only_completed_games(
        fake_peer: Path) -> None:
    module = load_peer(fake_peer)
    figure = bench_peer(module, 5, seconds=0.3)
    played = module.COUNTS["games"]
    assert figure.games + figure.crashes == played
    assert figure.crashes == played // 4                 # the fake's every fourth game
    assert figure.first_crash == "ValueError: a bug of the peer"
    assert figure.games > 0 and figure.actions_per_game > 5
    assert module.BREACHES == []
    assert module.COUNTS["vetoes"] > 0 and module.COUNTS["executions"] > 0


def test_the_peer_is_timed_without_our_spec_loader(fake_peer: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The veto gate is read from the spec once per count, not once per game: loading the
    spec takes longer than a game of the peer, and timing it would slow the peer down
    in the figures (it once made the peer look thirty times slower than it is)."""
    import verify.peer as peer
    from spec.loader import load_spec
    from spec.model import Spec

    loads: list[str] = []

    def counted(name: str) -> Spec:
        loads.append(name)
        return load_spec(name)
    monkeypatch.setattr(peer, "load_spec", counted)
    figure = bench_peer(load_peer(fake_peer), 5, seconds=0.3)
    assert figure.games + figure.crashes > 5 and len(loads) == 1


def test_a_folder_that_is_not_the_peer_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PeerError, match="no secret_hitler/game.py"):
        load_peer(tmp_path)
    broken = tmp_path / "secret_hitler"
    broken.mkdir()
    (broken / "__init__.py").write_text("")
    (broken / "game.py").write_text("import a_module_that_is_not_there\n")
    (broken / "images.py").write_text("")
    with pytest.raises(PeerError, match="does not import: ModuleNotFoundError"):
        load_peer(tmp_path)
    (broken / "game.py").write_text("from enum import Enum\nclass GameState(Enum):\n    NOMINATION = 1\n"
                                    "class Game:\n    pass\n")
    with pytest.raises(PeerError, match="GameState has no ELECTION, "):
        load_peer(tmp_path)


def test_the_command_prints_both_engines_and_their_ratio(fake_peer: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["bench", "--peer", str(fake_peer), "-n", "5", "--seconds", "0.2", "--json"])
    assert result.exit_code == 0, result.output
    [row] = json.loads(result.stdout)
    assert row["players"] == 5 and row["peer_games"] > 0 and row["ratio_to_peer"] > 0
    assert row["batched_games_per_second"] > 0 and row["batched_ratio_to_peer"] > 0
    result = CliRunner().invoke(main, ["bench", "--peer", str(fake_peer), "-n", "5", "--seconds", "0.2"])
    assert "games/s" in result.stdout and "shrules / peer = " in result.stdout and "x batched" in result.stdout
    result = CliRunner().invoke(main, ["bench", "--peer", str(tmp_path / "absent"), "-n", "5"])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1 and "--peer" in result.stderr
    result = CliRunner().invoke(main, ["bench", "--peer", str(fake_peer), "--explore"])
    assert result.exit_code == 2 and "not with --explore" in result.stderr
