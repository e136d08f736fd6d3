""""Rests on" for a no that a complete explicit search proves: the requirements that blocked
the moves into the question on the search's frontier (verify/explicit/frontier.py).

The rule set of tests/mutants/one_government.toml (no nomination once a policy is enacted)
has a graph of a few hundred states at 5 players, so each search here is complete in a
fraction of a second; what blocks the questions there is known from the rulebook: the
nomination bar the mutant adds under R-E2, and not R-E3 or R-E4, which a nomination of
the last Chancellor would also break in the standard rules.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.game import compiled_game
from spec.disputes import query
from spec.loader import load_spec
from spec.properties import Property
from verify.explicit.explore import Exploration, explore
from verify.explicit.frontier import blocked_into, hitting_set
from verify.explicit.model import Model
from verify.explicit.reductions import Reductions, symmetry_blockers
from verify.lawyer import ask, grounds
from verify.lawyer.words import render, to_json
from verify.results import Limits
from verify.rules import Rules

ONE_GOVERNMENT = str(Path(__file__).parent / "mutants" / "one_government.toml")


def _searched(text: str, on: tuple[str, ...] = (), max_states: int | None = None) -> tuple[Exploration, Property]:
    spec = load_spec(ONE_GOVERNMENT)
    prop = query(spec, "q", "never", text, on, (5,))
    game = compiled_game(5, ONE_GOVERNMENT)
    model = Model(game, (prop,), Reductions(symmetry=not symmetry_blockers(game.spec, (prop,))))
    return explore(model, (prop,), Limits(max_states, 60, 4000), deadlocks=False), prop


@pytest.mark.parametrize("text, on", [
    # a second government's vote: only the nomination bar stands in the way
    ("phase == 'vote' and liberal_policies + fascist_policies == 1", ()),
    # the last Chancellor nominated again: barred by R-E2 here, whatever R-E3 says too
    ("phase == 'vote' and nominee == last_chancellor", ()),
])
def test_the_requirement_that_blocked_the_moves_into_it_is_named(text: str, on: tuple[str, ...]) -> None:
    exploration, prop = _searched(text, on)
    assert exploration.complete and "q" not in exploration.hits 
    assert blocked_into(exploration, prop) == ("R-E2",)


def test_a_move_question_is_blocked_by_the_requirement_its_move_breaks() -> None:
    exploration, prop = _searched("chancellor == president", ("nominate",))
    assert blocked_into(exploration, prop) == ("R-E2",)


def test_what_two_forbidden_moves_in_a_row_would_reach_has_no_frontier() -> None:
    # two policies need a second government: a nomination and its legislation, both barred
    exploration, prop = _searched("liberal_policies + fascist_policies == 2")
    assert blocked_into(exploration, prop) == ()


def test_an_incomplete_search_or_a_scan_out_of_time_gives_nothing() -> None:
    cut, prop = _searched("phase == 'vote' and liberal_policies + fascist_policies == 1", max_states=50)
    assert not cut.complete and blocked_into(cut, prop) is None
    whole, prop = _searched("phase == 'vote' and liberal_policies + fascist_policies == 1")
    assert blocked_into(whole, prop, seconds=0.0) is None


def test_the_hitting_set_takes_sole_obstacles_then_the_most_shared() -> None:
    assert hitting_set(set()) == ()
    assert hitting_set({frozenset({"R-E3"}), frozenset({"R-E2", "R-E3"})}) == ("R-E3",)
    assert hitting_set({frozenset({"R-E2", "R-E3"}), frozenset({"R-E3", "R-E4"}), frozenset({"R-E7"})}) \
        == ("R-E3", "R-E7")
    # a tie is broken by the name, so the same evidence always gives the same answer
    assert hitting_set({frozenset({"R-E4", "R-E2"})}) == ("R-E2",)


def test_ask_rests_a_searched_no_on_its_frontier_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    # without the solver, no unsat core can be had: the complete search's frontier is read
    monkeypatch.setattr(ask, "_smt_backend", lambda: None)
    monkeypatch.setattr(grounds, "_smt_cores", lambda: None)
    answer = ask.ad_hoc("phase == 'vote' and liberal_policies + fascist_policies == 1", "never", (5,),
                        rules=Rules.named(ONE_GOVERNMENT), option="--never")
    assert answer.rule_ids == ("R-E2",) and answer.grounds == grounds.SEARCH
    assert to_json(answer)["rules_from"] == "search"
    assert "blocked every move into it, in the complete search" in render(answer)
    assert "jeden Zug dorthin verboten" in render(answer, "de")


def test_ask_without_cores_or_frontier_says_it_read_the_fields(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ask, "_smt_backend", lambda: None)
    monkeypatch.setattr(grounds, "_smt_cores", lambda: None)
    answer = ask.ad_hoc("liberal_policies + fascist_policies == 2", "never", (5,), rules=Rules.named(ONE_GOVERNMENT),
                        option="--never")
    assert answer.grounds == grounds.FIELDS and "not taken from a proof" in render(answer)


@pytest.mark.slow
def test_the_standard_rules_bar_the_last_chancellor_by_the_term_limit() -> None:
    # the whole 5-player graph (about 1.2 M states): a minute or more
    spec = load_spec("standard")
    prop = query(spec, "q", "never", "phase == 'vote' and nominee == last_chancellor", (), (5,))
    game = compiled_game(5, "standard")
    model = Model(game, (prop,), Reductions(symmetry=not symmetry_blockers(game.spec, (prop,))))
    exploration = explore(model, (prop,), Limits(5_000_000, 600, 8000), deadlocks=False)
    assert exploration.complete
    assert blocked_into(exploration, prop, seconds=300) == ("R-E3",)
