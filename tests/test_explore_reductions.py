"""The exact reductions (verify/explicit/reductions.py) agree with the unreduced graph.

Bounded: every state the engine reaches within D decisions, mapped through the reduced
model's canonical form, is exactly the set the reduced model reaches within D decisions
(5 and 6 players), so symmetry, vote representatives and the cone of influence lose and
invent nothing. Verdicts: mutants are refuted and witnesses found with and without each
reduction, with the same fewest elections. Fusing: on the complete 5-player graph the
fused states are exactly the unfused states outside the game's forced phases (slow).
"""

from __future__ import annotations

import pytest

from engine.game import compiled_game
from engine.trace import Trace
from spec.loader import load_spec
from spec.properties import load_properties
from verify.checker import check
from verify.explicit.explore import Limits, explore
from verify.explicit.model import Model
from verify.explicit.reductions import Reductions, cone, representatives, symmetry_blockers
from verify.results import Refuted, Witnessed
from verify.rules import Rules

STANDARD_RULES = Rules.named("standard")

MUTANTS = "tests/mutants"


def test_cone_drops_the_ordinary_fascists_only_read_by_reveals() -> None:
    spec = load_spec("standard")
    props = load_properties(spec)
    kept = cone(spec, tuple(p for p in props if p.name == "deck_conservation_liberal"))
    assert "fascists" not in kept
    assert {"hitler", "alive", "president", "draw_liberal"} <= kept
    assert "winner" not in kept and "how" not in kept        # written, but read by no guard
    assert {"winner", "how"} <= cone(spec, tuple(p for p in props if p.name == "liberal_policy_win"))


def test_votes_are_read_only_through_their_count() -> None:
    spec = load_spec("standard")
    for name in ("elect", "reject"):
        reps = representatives(spec.rule(name))
        assert list(reps) == [0] and reps[0].one
    assert representatives(spec.rule("deal_roles")) == {}    # the Fascists' seats matter, not their count


def test_symmetry_is_refused_where_a_seat_literal_appears(tmp_path: object) -> None:
    spec = load_spec("standard")
    assert symmetry_blockers(spec) == []
    from pathlib import Path

    variant = Path(str(tmp_path)) / "seat_zero_first.toml"
    variant.write_text('extends = "standard"\n[[rule]]\nname = "first_president"\n'
                       'requires = [{ rule = "R-S6", when = "candidate == 0", why = "seat 0 starts" }]\n')
    assert any("seat literal 0" in why for why in symmetry_blockers(load_spec(str(variant))))


@pytest.mark.parametrize("players, depth", [(5, 10), (6, 8)])
def test_reduced_states_are_the_image_of_the_unreduced(players: int, depth: int) -> None:
    game = compiled_game(players)
    props = tuple(p for p in load_properties(game.spec)
                  if (p.state is not None or p.move is not None) and players in p.players)
    full = Model(game, props, Reductions(False, False, False, True))
    reduced = Model(game, props, Reductions())
    bounded = Limits(max_depth=depth)
    every = explore(full, (), bounded, deadlocks=False, stop_when_decided=False)
    fewer = explore(reduced, (), bounded, deadlocks=False, stop_when_decided=False)
    image = {reduced.codec.encode(full.codec.decode(key)) for key in every.keys}
    assert image == set(fewer.keys)
    assert fewer.states * 10 < every.states


CASES = [("term_limit_last_nominee", "rejection_keeps_term_limits", 5),
         ("term_limit_last_nominee", "rejection_keeps_term_limits", 6),
         ("tie_passes", "majority_elects", 6),
         ("hitler_check_after_enactment", "hitler_win_at_election", 5)]


@pytest.mark.parametrize("mutant, prop, players", CASES)
@pytest.mark.parametrize("reductions", [Reductions(), Reductions(symmetry=False), Reductions(cone=False),
                                        Reductions(representatives=False), Reductions(fuse=False)],
                         ids=lambda r: r.label())
def test_refutations_agree_with_each_reduction_off(mutant: str, prop: str, players: int,
                                                   reductions: Reductions) -> None:
    (result,) = check(Rules.named(f"{MUTANTS}/{mutant}.toml"), (players,), (prop,), Limits(max_states=400_000),
                      reductions=reductions, workers=1)
    assert isinstance(result.verdict, Refuted), result.verdict
    assert result.verdict.trace is not None


@pytest.mark.slow
@pytest.mark.parametrize("players, names, reductions", [
    (5, ("fascist_hitler_win", "liberal_execution_win"), Reductions(symmetry=False, cone=False)),
    (6, ("fascist_hitler_win",), Reductions(symmetry=False))])
def test_fewest_elections_agree_without_symmetry_and_cone(players: int, names: tuple[str, ...],
                                                          reductions: Reductions) -> None:
    # Breadth-first: it stops at the shallowest witness, within these state limits (the
    # layered search is held to it in tests/test_layered_check.py).
    with_all = check(STANDARD_RULES, (players,), names, Limits(max_states=600_000), workers=1, explorer="bfs")
    without = check(STANDARD_RULES, (players,), names, Limits(max_states=1_500_000), reductions=reductions,
                    workers=1, explorer="bfs")
    for a, b in zip(with_all, without):
        assert isinstance(a.verdict, Witnessed) and isinstance(b.verdict, Witnessed)
        assert a.facts.fewest_elections == b.facts.fewest_elections
        assert decisions(a.verdict.trace) == decisions(b.verdict.trace)


def decisions(trace: Trace | None) -> int:
    """Moves of a seat, the table or chance (BFS depth with forced moves fused)."""
    assert trace is not None
    return sum(1 for move, _ in trace.steps
               if trace.game.by_name[move.rule].rule.actor != "game")


@pytest.mark.slow
def test_fusing_keeps_exactly_the_states_outside_forced_phases() -> None:
    game = compiled_game(5)
    fused = explore(Model(game), (), deadlocks=False, stop_when_decided=False)
    plain_model = Model(game, (), Reductions(fuse=False))
    plain = explore(plain_model, (), deadlocks=False, stop_when_decided=False)
    assert fused.complete and plain.complete
    game_phase = plain_model.game_phase
    outside = {key for key in plain.keys
               if not game_phase[plain_model.codec.decode(key)[game.phase_index]]}
    assert outside == set(fused.keys)


@pytest.mark.slow
@pytest.mark.parametrize("players", [5, 6])
def test_catalogue_verdicts_agree_without_symmetry(players: int) -> None:
    names = ("deck_conservation_fascist", "nominee_eligible", "veto_sets_off_chaos", "deadlock_free")
    reduced = check(STANDARD_RULES, (players,), names, workers=1)
    plain = check(STANDARD_RULES, (players,), names, reductions=Reductions(symmetry=False), workers=1)
    assert [r.verdict.verdict for r in reduced] == [r.verdict.verdict for r in plain]
