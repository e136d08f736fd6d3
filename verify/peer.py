"""Random play of a peer engine, to set its throughput beside ours measured in the same session.

Random complete games per CPU second depend on the machine and on its load at the moment,
so a peer's figure from another host or another hour says little next to ours (PEERS.md in
shared/bench). This module drives the peer that PEERS.md measures, the state machine of
lphillips/SecretHitlerDiscord (`secret_hitler/game.py`, a checkout the user points at; it
is third-party code and never part of this repository), exactly as PEERS.md describes:

- a no-op observer, and `images.PolicyHandImage` replaced by a no-op class (the engine
  would otherwise write a PNG for every hand);
- the driver reads `game.state` and answers: nominee and special-election target, shuffled
  candidates tried until the engine accepts; votes 50/50; discards uniform over the hand;
  the Chancellor uniform over {each card, veto}, veto offered only from the standard
  rules' veto_zone of Fascist policies on (5, R-V1, read from the spec) and not yet asked
  in this session (game.py has no veto gate); the veto answer 50/50; investigation, any living player; execution, any living player but the President
  (game.py has no self-execution check);
- a game the engine raises in is a crash and not counted; games per second count completed
  games over the process CPU time of every game played (crashed ones too).

game.py imports Pillow only for `print_board`, which the driver never calls; where Pillow is
not installed an empty stand-in module lets it import.

Only the standard library is used here; the peer is imported from its folder at run time.
"""

from __future__ import annotations

import importlib
import sys
import time
import types
from dataclasses import dataclass
from pathlib import Path
from random import Random
from typing import Any

from spec.loader import load_spec

PEER_PACKAGE = "secret_hitler"
"""The peer's package, imported from the folder the user names."""

STATES = ("NOMINATION", "ELECTION", "LEGISLATIVE_PRESIDENT", "LEGISLATIVE_CHANCELLOR", "VETO", "INVESTIGATION",
          "SPECIAL_ELECTION", "POLICY_PEEK", "EXECUTION", "GAME_OVER")
"""The peer's states the driver answers: checked when loading, so that a peer of another
shape is refused at once instead of crashing in every game."""

MAX_ACTIONS = 10_000
"""A game still running after this many driver calls is stuck: counted as a crash."""


class PeerError(ValueError):
    """The folder is not a checkout of the peer engine, or its engine does not import."""


class PeerStuck(RuntimeError):
    """The peer's game went past MAX_ACTIONS or offered no legal choice."""


@dataclass(frozen=True, slots=True)
class PeerFigure:
    """The peer's random-play throughput for one player count."""

    players: int
    games: int          # completed games
    crashes: int        # games the engine raised in (or got stuck), not counted
    seconds: float      # process CPU time of all games played
    actions: int        # driver calls the completed games took
    first_crash: str | None = None   # what the first crash raised, to tell a peer's bug from a misfit

    @property
    def games_per_second(self) -> float:
        """Completed games per CPU second."""
        return self.games / self.seconds if self.seconds else 0.0

    @property
    def actions_per_game(self) -> float:
        """Driver calls per completed game (each vote, nomination, discard, veto step, target)."""
        return self.actions / self.games if self.games else 0.0


class NullObserver:
    """The observer game.py notifies on every state it enters: does nothing."""

    def __getattr__(self, name: str) -> Any:
        if not name.startswith("on_enter_"):
            raise AttributeError(name)
        return _nothing


def _nothing(*args: Any, **kwargs: Any) -> None:
    return None


class NoImage:
    """Stands in for images.PolicyHandImage: composes and writes nothing."""

    def __init__(self, policies: Any) -> None:
        self.policies = policies

    def compose(self) -> None:
        """Nothing: the hand is not drawn."""

    def write(self, path: str) -> None:
        """Nothing: no file is written."""


def load_peer(folder: str | Path) -> types.ModuleType:
    """The peer's `secret_hitler.game` module imported from `folder`, with the no-op image.
    A `secret_hitler` imported before (another folder) is forgotten first, so the folder
    named is the one measured."""
    root = Path(folder).expanduser().resolve()
    if not (root / PEER_PACKAGE / "game.py").is_file():
        raise PeerError(f"{folder}: not a checkout of the peer engine (no {PEER_PACKAGE}/game.py)")
    for name in [name for name in sys.modules if name == PEER_PACKAGE or name.startswith(PEER_PACKAGE + ".")]:
        del sys.modules[name]
    _stand_in_for_pillow()
    sys.path.insert(0, str(root))
    try:
        game = importlib.import_module(f"{PEER_PACKAGE}.game")
        images = importlib.import_module(f"{PEER_PACKAGE}.images")
    except Exception as error:  # the peer's own code: any failure is the folder's, said in one line
        raise PeerError(f"{folder}: the peer engine does not import: {type(error).__name__}: {error}") from None
    finally:
        sys.path.remove(str(root))
    for needed in ("Game", "GameState"):
        if not hasattr(game, needed):
            raise PeerError(f"{folder}: {PEER_PACKAGE}/game.py has no {needed}")
    missing = [name for name in STATES if not hasattr(game.GameState, name)]
    if missing:
        raise PeerError(f"{folder}: {PEER_PACKAGE}/game.py's GameState has no {', '.join(missing)}")
    images.PolicyHandImage = NoImage  # type: ignore[attr-defined]
    return game


def _stand_in_for_pillow() -> None:
    """An empty `PIL.Image` where Pillow is missing: game.py imports it at the top but uses
    it only to draw the board, which random play never asks for."""
    try:
        importlib.import_module("PIL.Image")
    except ImportError:
        package, image = types.ModuleType("PIL"), types.ModuleType("PIL.Image")
        package.Image = image  # type: ignore[attr-defined]
        sys.modules.setdefault("PIL", package)
        sys.modules.setdefault("PIL.Image", image)


def veto_zone_of(players: int) -> int:
    """The veto gate the peer lacks: the standard rules' own `veto_zone` (R-V1), read from
    the spec, so the driver offers the veto exactly where our engine does."""
    zone = load_spec("standard").values_for(players)["veto_zone"]
    assert isinstance(zone, int), "veto_zone is a number of the game, not a table"
    return zone


def play_peer_game(module: types.ModuleType, players: int, rng: Random, veto_zone: int | None = None) -> int:
    """One random game of the peer from the seating to GAME_OVER; the driver calls it took.
    The engine's own exceptions propagate (a crash); `PeerStuck` if it does not end.
    `veto_zone` (default: the standard rules') is read once by a caller that plays many
    games: loading the spec takes far longer than a game of the peer."""
    if veto_zone is None:
        veto_zone = veto_zone_of(players)
    game = module.Game(NullObserver(), 0, 0, players, 0)
    for seat in range(players):
        game.add_player(seat, f"player {seat}", "")
    game.start_game()
    states = module.GameState
    actions = 0
    veto_asked = False
    while game.state is not states.GAME_OVER:
        actions += 1
        if actions > MAX_ACTIONS:
            raise PeerStuck(f"no end after {MAX_ACTIONS} actions")
        state = game.state
        if state is states.NOMINATION:
            _first_accepted(game.nominate, game.players, rng)
        elif state is states.ELECTION:
            for seat in list(game.players):
                game.vote(seat, "y" if rng.random() < 0.5 else "n")
            actions += len(game.players) - 1
        elif state is states.LEGISLATIVE_PRESIDENT:
            veto_asked = False                          # a new legislative session
            hand = game.policies
            game.discard_policy(game.current_president.get_id(), hand[rng.randrange(len(hand))])
        elif state is states.LEGISLATIVE_CHANCELLOR:
            hand = game.policies
            vetoable = game.fascist_board >= veto_zone and not veto_asked
            pick = rng.randrange(len(hand) + vetoable)
            if pick == len(hand):
                veto_asked = True
                game.request_veto(game.chancellor.player_id)
            else:
                game.discard_policy(game.chancellor.player_id, hand[pick])
        elif state is states.VETO:
            game.veto(game.current_president.get_id(), rng.random() < 0.5)
        elif state is states.INVESTIGATION:
            game.investigate_player(rng.choice(list(game.players)))
        elif state is states.SPECIAL_ELECTION:
            _first_accepted(game.special_election, game.players, rng)
        elif state is states.POLICY_PEEK:
            game.finish_policy_peek()
        elif state is states.EXECUTION:
            president = game.current_president.get_id()
            game.execute_player(rng.choice([seat for seat in game.players if seat != president]))
        else:
            raise PeerStuck(f"the driver has no move in state {state}")
    return actions


def _first_accepted(act: Any, seats: Any, rng: Random) -> None:
    """Shuffled candidates offered until the engine accepts one."""
    candidates = list(seats)
    rng.shuffle(candidates)
    for seat in candidates:
        if act(seat):
            return
    raise PeerStuck("the engine accepted no candidate")


def bench_peer(module: types.ModuleType, players: int, seconds: float = 10.0, seed: int = 0) -> PeerFigure:
    """Play random games of the peer for at least `seconds` of process CPU time. The
    engine shuffles with the global `random`, which is seeded from `seed` as the driver is."""
    engine_random = sys.modules["random"]
    engine_random.seed(seed)
    rng = Random(seed)
    veto_zone = veto_zone_of(players)
    games = crashes = actions = 0
    first_crash = None
    start = time.process_time()
    deadline = start + seconds
    while True:
        try:
            actions += play_peer_game(module, players, rng, veto_zone)
            games += 1
        except Exception as error:   # the peer's bugs (PEERS.md lists them): a crash, not a completed game
            crashes += 1
            first_crash = first_crash or f"{type(error).__name__}: {error}"
        if time.process_time() >= deadline:
            break
    return PeerFigure(players, games, crashes, round(time.process_time() - start, 3), actions, first_crash)
