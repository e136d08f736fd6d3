"""Invariants found, not written (verify/smt/infer.py, verify/smt/rank.py).

Mining only proposes; the fixpoint decides. These tests check that what the fixpoint
keeps without spec/invariants.toml holds in every reachable state of the complete
5-player graph, that the found ranking proves `terminates`, that a rule change drops the
candidates it breaks, and that the cache is read as data and proved again."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from engine.game import Game
from engine.pycompile import compile_expression
from spec.invariants import Strengthening
from spec.lang.nodes import fields_read
from spec.disputes import query
from spec.loader import load_spec
from spec.properties import Property
from verify.cli import main
from verify.explicit.explore import explore
from verify.explicit.model import Model
from verify.results import Limits, Proved, Refuted
from verify.smt.backend import Backend
from verify.smt.check import decide
from verify.smt.infer import CACHE_VERSION, cache_dir, cache_key, candidates, ledgers, sample_states, strengthen
from verify.rules import Rules
from helpers import length, moves

STANDARD_RULES = Rules.named("standard")


LIMITS = Limits(time_limit=120)


@pytest.fixture(scope="module")
def cache5(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The invariant cache `found5` starts from empty and fills."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def found5(cache5: Path) -> Backend:
    """The standard rules at 5 players proved with inferred invariants alone (cold cache)."""
    cache = cache5
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SHRULES_CACHE", str(cache))
        spec = load_spec("standard")
        backend = Backend(spec, 5, strengthening=Strengthening(spec, (), None, None), infer=True)
    return backend


def test_every_candidate_holds_in_the_games_it_was_mined_from() -> None:
    spec = load_spec("standard")
    game = Game(spec, 7)
    states = sample_states(game, games=40, seed=5)
    found = candidates(spec, 7, games=40, seed=5)
    assert len(found) > 100
    for item in found[::7]:
        test = compile_expression(spec, 7, item.state)
        assert all(test(state) for state in states), item.text


@pytest.mark.parametrize("players", [7, 9])
def test_a_ledger_counts_the_board_slots_passed(players: int) -> None:
    """The ledger of a power is the number of board slots carrying it that the Fascist
    track has reached: counted here from the board table and the track directly."""
    spec = load_spec("standard")
    game = Game(spec, players)
    board = spec.tables["board"][players]
    assert isinstance(board, tuple)
    found = {f.text: f for f in ledgers(spec, game)}
    states = sample_states(game, games=30, seed=3)
    track = game.spec.field_index("fascist_policies")
    for power in set(board) - {"none"}:
        feature = next(f for text, f in found.items() if repr(power) in text)
        assert feature.fields == {"fascist_policies"}
        for state in states:
            assert feature.read(state) == sum(1 for slot in board[:state[track]] if slot == power)
    investigations = next(f for f in found.values() if "'investigate'" in f.text)
    assert investigations.acts_on >= {"investigated"}


def test_a_pending_power_is_mined_as_one_short_of_its_ledger() -> None:
    spec = load_spec("standard")
    texts = [c.text for c in candidates(spec, 7, games=200, seed=2)]
    pending = [t for t in texts if "enacted != 'fascist'" in t and "slot_power != 'investigate'" in t
               and "count(investigated) <" in t]
    assert pending, "no relation for an investigation granted and not yet used"


def test_a_pending_power_fixes_what_its_move_will_write() -> None:
    """Between the enactment that grants a Special Election and the call, no Special
    Election is running: only the pair (a Fascist policy enacted, the slot's power) shows
    it, so it is proposed in that pair's situation."""
    spec = load_spec("standard")
    texts = [c.text for c in candidates(spec, 7, games=200, seed=2)]
    assert any("enacted != 'fascist'" in t and "slot_power != 'special_election'" in t
               and t.endswith("(special_return == none)") for t in texts)


def test_a_count_of_a_power_is_bounded_by_its_ledger() -> None:
    """A temporal count of Special Elections (a monitor, spec/temporal.py) is at most the
    board slots with that power the track has passed: a relation against the ledger."""
    base = load_spec("standard")
    prop = query(base, "q", "never", "times(phase == 'power' and power == 'special_election') >= 2", players=(7,))
    spec = load_spec(prop.rules)
    texts = [c.text for c in candidates(spec, 7, games=200, seed=2)]
    bounded = [t for t in texts if "_count <= ((1 if fascist_policies >= 3 and board[2] == 'special_election'" in t]
    assert any(t.startswith("phase != 'nominate' or (") for t in bounded), bounded[:3]


def test_rare_situations_get_more_games() -> None:
    """A vetoed session is rare at 5 players; the extra games keep states in such
    situations only, so the sample grows there many times over and in a common phase
    (a vote) by far less than the games played."""
    game = Game(load_spec("standard"), 5)
    plain = sample_states(game, games=100, seed=4, rare_games=0)
    boosted = sample_states(game, games=100, seed=4)
    assert plain <= boosted
    veto = game.phase_names.index("veto")
    vote = game.phase_names.index("vote")
    def in_phase(states: set[Any], number: int) -> int:
        return sum(1 for state in states if state[game.phase_index] == number)
    assert in_phase(boosted, veto) >= 3 * max(1, in_phase(plain, veto))
    assert in_phase(boosted, vote) < 2 * in_phase(plain, vote)


def test_a_late_counter_value_gets_more_games_where_games_end_early() -> None:
    """Where a third failed election wins the game for the Fascists, few random games
    reach a vote with five Fascist policies; the extra games keep such states until the
    value is no longer rare, so `fascist_policies <= 5` is proposed in every phase of a
    round and the late game's invariants are proved (draw_finds_three was unknown)."""
    spec = load_spec("no_topdecking")
    game = Game(spec, 5)
    vote = game.phase_names.index("vote")
    policies = game.field_names.index("fascist_policies")
    def late(states: set[Any]) -> int:
        return sum(1 for state in states if state[game.phase_index] == vote and state[policies] == 5)
    plain = sample_states(game, games=100, seed=4, rare_games=0)
    boosted = sample_states(game, games=100, seed=4)
    assert late(boosted) >= 10 * max(1, late(plain))
    texts = {item.text for item in candidates(spec, 5)}
    assert all(f"phase != '{phase}' or (fascist_policies <= 5)" in texts
               for phase in ("nominate", "vote", "elected", "draw", "president_discard", "chancellor_enact"))


def test_a_phase_next_to_a_rare_one_is_sampled_from_there() -> None:
    """At 6 players under no_topdecking chaos follows only an accepted veto with the
    tracker at two: the games played for rare situations entered it never, nothing was
    proposed for it, and the phases after it lost their invariants in the fixpoint. Games
    from the states in and just before a rare phase (a veto) reach it."""
    game = Game(load_spec("no_topdecking"), 6)
    chaos = game.phase_names.index("chaos")
    states = sample_states(game)
    assert sum(1 for state in states if state[game.phase_index] == chaos) >= 20


@pytest.mark.slow  # the complete 5-player graph without symmetry: 6.19 M states, about 5 minutes
def test_the_inferred_invariants_hold_in_every_reachable_state_at_5(found5: Backend) -> None:
    kept = found5.inferred()
    assert len(kept) > 100
    # The graph the catalogue is checked on (its fields, its exact reductions); the
    # invariants looked at are those over the fields it keeps, so the graph stays that size.
    game = found5.system.game
    catalogue = tuple(p for p in found5.catalogue if 5 in p.players and (p.state is not None or p.move is not None))
    fields = Model(game, catalogue).plan.kept
    over_kept = [item for item in kept if fields_read([item.state], game.spec.definitions) <= set(fields)]
    assert len(over_kept) > 50
    chosen = over_kept[:: max(1, len(over_kept) // 15)]
    props = tuple(Property(f"inferred_{i}", "always", "inferred", item.rule_ids, (5,), "holds", item.state, None,
                           (), item.text, item.where) for i, item in enumerate(chosen))
    result = explore(Model(game, catalogue + props), props, deadlocks=False, stop_when_decided=False)
    assert result.complete, result.limit
    assert not result.hits, {name: chosen[int(name.split("_")[1])].text for name in result.hits}


def test_the_found_ranking_proves_every_game_ends(found5: Backend) -> None:
    ranking = found5.strengthening.ranking
    assert ranking is not None and ranking.where.file == "<ranking>"
    terminates = next(p for p in found5.catalogue if p.kind == "terminates")
    verdict = decide(found5, terminates, LIMITS)
    assert isinstance(verdict, Proved), verdict


def test_the_found_distance_is_proved_and_counts_the_policies(found5: Backend) -> None:
    """The distance found in played games is proved before BMC leans on it, and it counts
    the policies: a policy is worth a round of moves, which is what lets BMC skip the
    depths too shallow for a win."""
    distance = found5.strengthening.distance
    assert distance is not None and distance.where.file == "<distance>"
    assert found5.distance().proved
    assert found5.start_distance() is not None
    assert "liberal_policies" in distance.text and "fascist_policies" in distance.text


def test_state_properties_proved_without_written_invariants(found5: Backend) -> None:
    """The catalogue's invariants over states that the written hints made inductive are
    inductive with what inference found (by k-induction with the inferred support)."""
    names = ["tracks_in_range", "tracker_in_range", "deck_conservation_liberal", "deck_conservation_fascist",
             "over_iff_win"]
    for prop in found5.catalogue:
        if prop.name in names:
            verdict = decide(found5, prop, LIMITS)
            assert isinstance(verdict, Proved), (prop.name, verdict)


def test_a_rule_change_drops_the_candidates_it_breaks(found5: Backend) -> None:
    """The standard rules' inferred invariants offered to a rule set where chaos grants
    a power: the ones that say only a government's enactment leads to a power are no
    longer inductive and the fixpoint drops them, with a counterexample."""
    mistake = load_spec("chaos_grants_power")
    kept = found5.inferred()
    base = Strengthening(mistake, (), None, None)
    offered = dataclasses.replace(base, invariants=tuple(kept))
    backend = Backend(mistake, 5, strengthening=offered)
    support = backend.induction.support()
    dropped = [name for name in support.dropped if name.startswith("found_")]
    assert dropped
    texts = [backend.induction.candidate(name).text for name in dropped]
    assert any("by_government" in text or "power" in text for text in texts), texts
    assert any(support.dropped[name] is not None for name in dropped)


@pytest.mark.slow
def test_the_cache_is_read_back_and_proved_again(found5: Backend, cache5: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHRULES_CACHE", str(cache5))
    spec = load_spec("standard")
    base = Strengthening(spec, (), None, None)
    key = cache_key(base, 5)
    path = cache_dir() / f"{key}.json"
    assert path.exists()
    again, _ = strengthen(base, 5)
    texts = {i.text for i in again.invariants}
    assert texts == {i.text for i in found5.inferred()}
    # A cached clause is a candidate like any other: a false one is dropped, not trusted.
    body = json.loads(path.read_text())
    body["invariants"].append("phase != 'nominate' or (liberal_policies == 0)")
    path.write_text(json.dumps(body))
    planted, _ = strengthen(base, 5)
    backend = Backend(spec, 5, strengthening=planted)
    support = backend.induction.support()
    false = [c.name for c in backend.induction.candidates
             if c.text == "phase != 'nominate' or (liberal_policies == 0)"]
    assert false and all(name in support.dropped for name in false)
    # A cache that is not what it should be is ignored: the candidates are mined again.
    path.write_text("{not json")
    mined, _ = strengthen(base, 5)
    assert len(mined.invariants) > len(texts)


def test_an_expression_in_the_cache_is_data(found5: Backend, monkeypatch: pytest.MonkeyPatch,
                                            tmp_path: Path) -> None:
    monkeypatch.setenv("SHRULES_CACHE", str(tmp_path))
    spec = load_spec("standard")
    base = Strengthening(spec, (), None, None)
    path = cache_dir() / f"{cache_key(base, 5)}.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"version": CACHE_VERSION, "invariants": ["__import__('os').system('false')"]}))
    mined, _ = strengthen(base, 5)
    assert all("__import__" not in i.text for i in mined.invariants)


@pytest.mark.slow  # the cached clauses proved again: about a minute
def test_check_proves_without_hints_from_the_command_line(found5: Backend, cache5: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """`shrules check --backend smt --no-hints`: the catalogue's verdict from inferred
    invariants and the found ranking alone (the cache `found5` filled saves the mining)."""
    monkeypatch.setenv("SHRULES_CACHE", str(cache5))
    result = CliRunner().invoke(main, ["check", "--backend", "smt", "--no-hints", "-n", "5", "-p", "terminates",
                                       "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    verdicts = json.loads(result.output[result.output.index("["):])
    assert [(v["property"], v["verdict"]) for v in verdicts] == [("terminates", "proved")]


def test_inference_is_an_option_of_the_solver_only() -> None:
    result = CliRunner().invoke(main, ["check", "--no-hints", "-n", "5", "-p", "terminates"])
    assert result.exit_code == 2
    assert "--backend smt" in result.output


@pytest.mark.slow
def test_the_benchmark_infers_from_an_empty_cache_and_leaves_the_users_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`shrules smt-bench --no-hints` measures a first run: nothing the user's cache holds
    is read, nothing is written there, and the setting is as it was afterwards; with two
    processes each count is still measured and the figures come back in count order."""
    from verify.smt.bench import bench_proofs
    users = tmp_path / "users"
    monkeypatch.setenv("SHRULES_CACHE", str(users))
    bench = bench_proofs(STANDARD_RULES, [5, 6], kinds=("terminates",), hints=False, workers=2)
    assert [(f.property, f.players, f.verdict) for f in bench.figures] == [("terminates", 5, "proved"),
                                                                         ("terminates", 6, "proved")]
    assert all(bench.built[n] > bench.support[n] > 0 for n in (5, 6))
    assert bench.wall > 0 and bench.workers == 2
    assert not users.exists()
    assert cache_dir() == users / "invariants"


def test_games_that_deadlock_are_sampled_up_to_the_deadlock(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mutant whose chaos needs a Fascist policy on top where the rules need a Liberal
    one (its requirement negated) leaves some random games with no move: the sampler
    keeps their states so far, where it used to crash inference (and `mutate
    --solver-only`) with the engine's assertion."""
    from random import Random

    from verify.diff.operators import mutants
    (mutant,) = [m for m in mutants(load_spec("standard"), ("negate",), ("chaos",))
                 if m.description == "requirement: draw_liberal > 0 negated"]
    game = Game(mutant.spec, 5)
    rng, state, moves = Random(607), game.initial_state(), 0
    while (following := game.random_next(state, rng)) is not None:
        state, moves = following, moves + 1
    assert state[game.phase_index] != game.over_phase and moves == 75    # stuck, not over
    sampled = sample_states(game, 400, 0)
    assert len(sampled) > 1000
    with monkeypatch.context() as patched:      # the engine's own step meets the deadlock in these games
        patched.setattr(game, "random_next", game.random_step)
        with pytest.raises(AssertionError):
            sample_states(game, 400, 0)


def _draw_never_possible() -> Any:
    """The mutant whose draw asks for more Liberal tiles than the pile holds (R-L1's
    `new_liberal <= draw_liberal` negated): every game stops at its first draw."""
    from verify.diff.operators import mutants
    (mutant,) = [m for m in mutants(load_spec("standard"), ("negate",), ("draw_hand",))
                 if m.description == "requirement: new_liberal <= draw_liberal negated"]
    return mutant


def test_a_phase_no_game_entered_is_proposed_as_unreachable() -> None:
    """Every phase the sampled games never entered is a candidate `phase != '…'`; the
    phases they did enter are not."""
    mutant = _draw_never_possible()
    game = Game(mutant.spec, 5)
    seen = {game.phase_names[state[game.phase_index]] for state in sample_states(game, 40, 0)}
    assert "draw" in seen and "president_discard" not in seen
    texts = {item.text for item in candidates(mutant.spec, 5, games=40)}
    for phase in game.phase_names:
        assert (f"phase != '{phase}'" in texts) == (phase not in seen), phase


@pytest.mark.slow
def test_a_mutant_that_deadlocks_is_refuted_without_written_invariants(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Inferred for that mutant, the invariants keep the phases its games never reach
    unreachable, so induction's counterexample is a stuck draw and the solver finds the
    game to it: deadlock freedom refuted, not unknown (before those candidates, nothing
    was assumed of a state past the draw, the fixpoint dropped almost every candidate,
    and both this and `terminates` stayed unknown)."""
    from verify.smt.check import check_property
    from spec.properties import load_properties
    monkeypatch.setenv("SHRULES_CACHE", str(tmp_path))
    mutant = _draw_never_possible()
    props = {p.name: p for p in load_properties(mutant.spec)}
    verdict = check_property(mutant.spec, props["deadlock_free"], 5, LIMITS, infer=True, hints=False)
    assert verdict.verdict == "refuted", getattr(verdict, "reason", "")
    assert isinstance(verdict, Refuted) and verdict.trace is not None
    trace = verdict.trace
    game = Game(mutant.spec, 5)
    assert game.phase(trace.end) == "draw" and not game.legal_moves(trace.end)
    # Its games are finite (the ranking holds) but stop short of a win: `terminates` (R-W5,
    # every maximal game ends in a win) fails by the same game, as the explicit search says.
    terminates = check_property(mutant.spec, props["terminates"], 5, LIMITS, infer=True, hints=False)
    assert isinstance(terminates, Refuted) and terminates.trace is not None, getattr(terminates, "reason", "")
    assert game.phase(terminates.trace.end) == "draw" and not game.legal_moves(terminates.trace.end)
    assert not game.is_over(terminates.trace.end)
    from verify.explicit.check import check_game
    (explicit,) = check_game(game, (props["terminates"],), Limits(time_limit=120))
    assert explicit.verdict.verdict == "refuted" and len(moves(explicit)) == len(terminates.trace.steps)


def test_a_rare_phase_gets_more_games_for_the_ranking() -> None:
    """Under no_topdecking most random games end at the third rejection: one in 300
    reached a veto and none saw the President refuse one. The refusal is a move the
    ranking must decrease too, so the moves out of a rare phase are sampled further."""
    from verify.smt.rank import moves
    game = Game(load_spec("no_topdecking"), 5)
    refused = game.field_names.index("veto_refused")
    refusals = [(s, t) for s, t in moves(game) if game.phase(s) == "veto" and t[refused]]
    assert refusals
    assert all(game.phase(t) == "chancellor_enact" for _, t in refusals)


@pytest.mark.slow
def test_a_ranking_may_lean_on_declared_ranges(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """no_topdecking at 5 players, no hints, the inferred candidates that bound
    liberal_policies left out: the support then allows a sixth Liberal policy, below
    which the found ranking (counting down from the fifth) is negative, so it is not
    proved alone; with the declared ranges assumed (`terminates` assumes them once the
    search's k-induction proves no game leaves them) it is."""
    from verify.smt.deep import out_of_range
    monkeypatch.setenv("SHRULES_CACHE", str(tmp_path))
    spec = load_spec("no_topdecking")
    found, _ = strengthen(Strengthening(spec, (), None, None), 5, use_cache=False)
    weaker = dataclasses.replace(found, invariants=tuple(i for i in found.invariants
                                                         if "liberal_policies <=" not in i.text))
    backend = Backend(spec, 5, strengthening=weaker)
    assert not backend.induction.ranking()[0].proved
    left_out, _ = out_of_range(backend)
    assert "liberal_policies" in left_out
    ranges = [term for name, term in backend.system.typing(backend.induction.before) if name in left_out]
    proved, bound = backend.induction.ranking(ranges)
    assert proved.proved and bound is not None and bound > 0
