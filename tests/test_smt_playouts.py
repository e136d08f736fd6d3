"""Witnesses found along random games once the solver's search stalls (verify/smt/playouts.py).

When the search for a shortest witness runs out of time, the property is still decided if
a random game gets there: the solver finds a path along that game's rules, replayed
through the engine, and the verdict says how far it may be from a shortest one. These
tests stall the search on purpose (almost all of the time limit held back for the
random games) and check the path, its bound, and that nothing is claimed when no game
gets there.
"""

from __future__ import annotations

import pytest

import verify.smt.check as smt_check
from engine.game import Game
from spec.loader import load_spec
from verify.checker import plain
from verify.cli.check import cell
from verify.explicit.check import materialise
from verify.report.html import _trace_block
from verify.report.records import result_record
from verify.results import Limits, PropertyResult, Unknown, Witnessed
from verify.smt import check_property
from verify.smt.check import catalogue_of, clear_cache
from verify.smt.guides import forget_guides
from verify.smt.playouts import played_guides

pytest.importorskip("z3", reason="the solver backend needs z3-solver")

SPEC = load_spec("standard")
CATALOGUE = {prop.name: prop for prop in catalogue_of(SPEC)}


def test_played_guides_end_where_the_property_first_holds() -> None:
    """Each guide is the rules of a random game up to the first state where a Fascist
    policy win holds: it ends in the enactment that wins, shortest first, none shorter
    than asked for, and the same seed gives the same guides."""
    game = Game(SPEC, 5)
    prop = CATALOGUE["fascist_policy_win"]
    guides = played_guides(game, prop, seconds=5.0, games=3_000, at_least=40)
    assert guides, "3,000 random games at 5 players include a Fascist policy win"
    assert [len(g) for g in guides] == sorted(len(g) for g in guides)
    assert all(len(g) >= 40 and g[0] == "deal_roles" for g in guides)
    assert guides == played_guides(game, prop, seconds=5.0, games=3_000, at_least=40)
    assert played_guides(game, prop, seconds=5.0, games=3_000, at_least=500) == []


@pytest.fixture
def stalled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hold back nearly all of a property's time from the plain search, so that it stops
    by time at its first depth and the random games decide."""
    monkeypatch.setattr(smt_check, "PLAYOUT_SHARE", 0.97)
    monkeypatch.setattr(smt_check, "PLAYOUT_RESERVE", 1_000.0)


def test_a_stalled_search_is_decided_along_a_random_game(stalled: None) -> None:
    """The search stops, a random game leads the solver to a Fascist policy win: the
    verdict is a witness, its path a real game ending in that win, reported with the
    proved bound when it is longer than the depth the search reached."""
    forget_guides()
    prop = CATALOGUE["fascist_policy_win"]
    verdict = check_property(SPEC, prop, 5, Limits(time_limit=20))
    assert isinstance(verdict, Witnessed) and verdict.trace is not None
    assert "random game" in verdict.evidence.note
    game = verdict.trace.game
    assert (game.winner(verdict.trace.end), game.how(verdict.trace.end)) == ("fascist", "policies")
    assert verdict.evidence.depth == len(verdict.trace.steps)
    if verdict.lower_bound is not None:
        assert verdict.lower_bound < verdict.evidence.depth
        assert f"no game shorter than {verdict.lower_bound} moves" in verdict.evidence.note
    else:   # a random game as long as the proved bound, before or after the plain search
        assert "no game is shorter" in verdict.evidence.note
    # across processes (plain data) the bound is kept, and the matrix shows it
    result = PropertyResult(prop.name, 5, prop.kind, prop.rule_ids, prop.expect, verdict, {})
    again = materialise(plain(result), "standard", {prop.name: prop})
    assert isinstance(again.verdict, Witnessed) and again.verdict.lower_bound == verdict.lower_bound
    moves = verdict.evidence.depth
    assert cell(again) == (f"witness {moves}m" if verdict.lower_bound is None
                           else f"witness {verdict.lower_bound}-{moves}m")
    assert result_record(again)["shortest_at_least"] == verdict.lower_bound
    assert ("not proved the shortest" in _trace_block(again)) == (verdict.lower_bound is not None)


def test_no_random_game_leaves_the_verdict_unknown(stalled: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where no random game gets there, nothing is claimed: unknown, saying so."""
    forget_guides()
    monkeypatch.setattr(smt_check, "played_guides", lambda *args, **kwargs: [])
    verdict = check_property(SPEC, CATALOGUE["fascist_policy_win"], 5, Limits(time_limit=10))
    assert isinstance(verdict, Unknown)
    assert "no random game played in time got there" in verdict.reason


def test_exactly_as_long_as_asked() -> None:
    """With `exactly`, only games reaching the property in that many moves give guides."""
    game = Game(SPEC, 7)
    guides = played_guides(game, CATALOGUE["fascist_hitler_win"], seconds=30.0, games=4_000, at_least=39,
                           exactly=True)
    assert guides and all(len(guide) == 39 for guide in guides)


def test_a_random_game_as_long_as_the_bound_saves_the_deep_query(monkeypatch: pytest.MonkeyPatch) -> None:
    """No earlier witness is kept, a random game reaches a Hitler win in exactly the proved
    lower bound: the solver's path along it is the witness, a shortest one, of the length
    test_smt_bmc.py's table records for the unguided search."""
    clear_cache()
    monkeypatch.setattr(smt_check, "PLAYOUT_FIRST_SECONDS", 60.0)
    verdict = check_property(SPEC, CATALOGUE["fascist_hitler_win"], 7)
    assert isinstance(verdict, Witnessed) and verdict.trace is not None and verdict.lower_bound is None
    assert verdict.evidence.note.startswith("found along the rules of a random game; 36 moves is the proved")
    assert verdict.evidence.depth == len(verdict.trace.steps) == 36


def test_a_longer_path_keeps_the_bound(stalled: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Random games only longer than the depth the search reached: the witness is a real
    game, reported with that depth as the bound on the shortest (64 moves, the proved
    lower bound of the Fascist policy win at 5 players), never as a shortest itself."""
    forget_guides()
    real = played_guides
    monkeypatch.setattr(smt_check, "played_guides",
                        lambda game, prop, **kw: real(game, prop, **{**kw, "at_least": kw["at_least"] + 2,
                                                                     "exactly": False}))
    prop = CATALOGUE["fascist_policy_win"]
    verdict = check_property(SPEC, prop, 5, Limits(time_limit=20))
    assert isinstance(verdict, Witnessed) and verdict.trace is not None
    assert verdict.lower_bound == 64 < verdict.evidence.depth == len(verdict.trace.steps)
    result = PropertyResult(prop.name, 5, prop.kind, prop.rule_ids, prop.expect, verdict, {})
    assert cell(result) == f"witness 64-{verdict.evidence.depth}m"
    assert result_record(result)["shortest_at_least"] == 64
    assert "not proved the shortest: none takes fewer than 64 moves" in _trace_block(result)


@pytest.mark.parametrize("players", [5, 8, 10])
def test_recorded_steps_tell_the_moves_they_make(players: int) -> None:
    """The fast random step, compiled to record its moves, tells each move's rule and
    parameters: replayed through the engine's checked `apply`, every one is legal and
    leads to the very state the step made, to the end of the game."""
    from random import Random

    from engine.game import Move

    game = Game(SPEC, players)
    made: list[tuple[int, tuple[int, ...]]] = []
    steps = game.recorded_steps(lambda index, args: made.append((index, args)))
    rng = Random(players)
    for _ in range(20):
        state = replayed = game.initial_state()
        made.clear()
        while (step := steps[state[game.phase_index]]) is not None:
            state = step(state, rng)
            index, args = made[-1]
            replayed = game.apply(replayed, Move(game.rules[index].rule.name, args))
            assert replayed == state
        assert game.is_over(state) and len(made) > 10
