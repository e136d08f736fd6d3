"""Permissions, obligations and what a move shows (`allows`, `only`, `shows`): what the
rules let a player do, what alone they let him do, and what he learns by it.

A safety property sees only the moves that are played, so a rule that forbids a legal
move (a term limit too many, a veto that does not exist) or adds one (a power declined)
passes every invariant. These tests hold the two kinds to the rulebook: the standard
rules satisfy them; the shipped mistakes that no invariant catches are refuted, each by a
game whose last state is checked here against the engine's own legal moves, not against
the explorer that found it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine.game import Game, Move
from spec.errors import SpecError
from spec.lang import nodes as n
from spec.loader import load_spec
from spec.properties import PERMISSIONS, load_properties
from verify.checker import check
from verify.explicit.explore import Limits
from verify.results import Proved, Refuted, Unknown
from verify.smt.check import check_property
from verify.rules import Rules

STANDARD_RULES = Rules.named("standard")


Wanted = Callable[[Game, Any, Move], bool]
"""Which of a rule's moves the permission is about, given the game and the state (a
record of the spec's fields, read by name)."""


def refuted(rules: str, players: int, name: str) -> Refuted:
    (result,) = check(Rules.named(rules), (players,), (name,), Limits(None, 120.0, None), workers=1)
    assert isinstance(result.verdict, Refuted), result.verdict
    assert result.verdict.trace is not None
    return result.verdict


@pytest.mark.parametrize("rules, players, name, rule, wanted", [
    ("mistakes/few_alive_off_by_one", 5, "five_alive_frees_the_last_president", "nominate",
     lambda game, state, move: move.args[0] == state.last_president),
    ("mistakes/special_election_bars_term_limited", 7, "special_election_may_pick_the_term_limited",
     "special_election", lambda game, state, move: move.args[0] == state.last_chancellor),
    ("mistakes/no_veto", 5, "the_veto_may_be_proposed", "propose_veto", lambda game, state, move: True),
])
def test_a_permission_the_mistake_takes_away_is_refuted(rules: str, players: int, name: str, rule: str,
                                                        wanted: Wanted) -> None:
    verdict = refuted(rules, players, name)
    assert verdict.trace is not None
    game, state = verdict.trace.game, verdict.trace.end
    assert not any(move.rule == rule and wanted(game, state, move)
                   for move in game.legal_moves(state)), "the move the rules allow is wanting in the last state"
    standard = Game(load_spec("standard"), players)
    assert any(move.rule == rule and wanted(standard, state, move)
               for move in standard.legal_moves(state)), "the standard rules allow it in that state"


@pytest.mark.parametrize("rules, players, name, extra", [
    ("mistakes/power_optional", 5, "the_peek_granted_is_used", "decline_power"),
    ("mistakes/president_vetoes_alone", 5, "the_president_only_discards", "president_veto"),
])
def test_an_obligation_the_mistake_escapes_is_refuted_at_the_move(rules: str, players: int, name: str,
                                                                  extra: str) -> None:
    verdict = refuted(rules, players, name)
    assert verdict.trace is not None
    assert verdict.trace.steps[-1][0].rule == extra, "the game ends with the move the rules do not have"


@pytest.mark.slow
def test_the_standard_rules_satisfy_every_permission_by_both_backends() -> None:
    spec = load_spec("standard")
    props = [p for p in load_properties(spec) if p.kind in PERMISSIONS]
    assert len(props) >= 8
    for prop in props:
        if 7 in prop.players:       # the Policy Peek's obligation is stated for the 5-6 board only (R-X7)
            assert isinstance(check_property(spec, prop, 7), Proved), prop.name
    results = check(STANDARD_RULES, (5,), tuple(p.name for p in props), Limits(max_states=2_000), workers=1)
    assert all(isinstance(r.verdict, Unknown) for r in results), "a search cut short proves nothing"


def test_the_solver_does_not_prove_a_permission_the_mistake_takes_away() -> None:
    spec = load_spec("mistakes/few_alive_off_by_one")
    (prop,) = [p for p in load_properties(spec) if p.name == "five_alive_frees_the_last_president"]
    assert not isinstance(check_property(spec, prop, 5), Proved)


def test_a_removed_rule_allows_nothing() -> None:
    names = {p.name: p for p in load_properties(load_spec("mistakes/no_veto"))}
    assert names["the_veto_may_be_proposed"].on == (), "the permission stays, with no rule left to give it"
    assert "veto_needs_five_fascist" not in names, "a safety property about a removed rule does not apply"


MALFORMED = [
    ('kind = "allows"\nmove = "True"\non = ["nominate"]', "state ="),
    ('kind = "only"\nstate = "True"\non = ["nominate"]', "move ="),
    ('kind = "allows"\nstate = "True"\nmove = "True"', "needs on"),
    ('kind = "allows"\nstate = "True"\nmove = "True"\non = ["nominat"]', "names no rule 'nominat'"),
    ('kind = "shows"\non = ["investigate", "execute"]\nshows = {}', "one rule"),
    ('kind = "shows"\non = ["investigate"]', "shows = {"),
    ('kind = "shows"\non = ["investigate"]\nshows = {}', "rule 'investigate' reveals party; the property expects nothing"),
    ('kind = "shows"\non = ["investigate"]\nshows = { party = "\'hitler\'" }', "'hitler' is not a team"),
    ('kind = "always"\nmove = "True"\non = ["investigate"]\nshows = {}', "belongs to a shows property"),
    ('kind = "always"\nmove = "actor == president"\non = ["nominate", "enact"]', "'actor' needs rules played by one seat"),
]
"""Entries the loader refuses, with what its message must say (each cites R-E2 and R-X3)."""


@pytest.mark.parametrize("entry, message", MALFORMED)
def test_a_malformed_permission_or_shows_property_is_refused_with_its_place(tmp_path: Path, entry: str,
                                                                           message: str) -> None:
    path = tmp_path / "properties.toml"
    path.write_text(f'[[property]]\nname = "broken"\ndescription = "x"\nrules = ["R-E2", "R-X3"]\n{entry}\n',
                    encoding="utf-8")
    with pytest.raises(SpecError) as error:
        load_properties(load_spec("standard"), path)
    assert message in str(error.value)
    assert "properties.toml" in str(error.value)


# ---------------------------------------------------------------- what a move shows


@pytest.mark.parametrize("rules, players, name, rule", [
    ("mistakes/execution_reveals_role", 5, "execution_shows_nothing", "execute"),
    ("mistakes/investigation_shows_role", 7, "investigation_shows_the_party", "investigate"),
])
def test_a_move_that_shows_more_than_the_rulebook_says_is_refuted(rules: str, players: int, name: str,
                                                                  rule: str) -> None:
    verdict = refuted(rules, players, name)
    assert verdict.trace is not None
    move, _ = verdict.trace.steps[-1]
    before = verdict.trace.states[-2]
    assert move.rule == rule
    shown = verdict.trace.game.reveals(before, move)
    standard = Game(load_spec("standard"), players).reveals(before, move)
    assert shown != standard, f"the mutant shows {shown}, the rules {standard}"


def test_the_standard_rules_show_what_the_rulebook_says_by_both_backends() -> None:
    spec = load_spec("standard")
    for prop in (p for p in load_properties(spec) if p.kind == "shows"):
        assert isinstance(check_property(spec, prop, 7), Proved), prop.name
    (party,) = [p for p in load_properties(spec) if p.name == "investigation_shows_the_party"]
    assert party.on == ("investigate",)


def test_the_catalogue_says_which_properties_any_playable_game_must_satisfy() -> None:
    """Soundness (any rule set) against conformance (the published game): deck
    conservation, values in range, every win reachable, no deadlock and termination are
    soundness; the rules one by one are conformance."""
    props = {p.name: p for p in load_properties(load_spec("standard"))}
    soundness = {name for name, p in props.items() if p.group == "soundness"}
    assert {"deck_conservation_liberal", "deck_conservation_fascist", "values_in_range", "terminates",
            "deadlock_free", "liberal_policy_win", "liberal_execution_win", "fascist_policy_win",
            "fascist_hitler_win"} <= soundness
    assert props["five_alive_frees_the_last_president"].group == "conformance"
    assert all(p.group == "conformance" for p in props.values() if p.kind in PERMISSIONS + ("shows",))


@pytest.mark.parametrize("rules", ["standard", "rebalance", "custom"])
def test_no_property_reads_the_numbers_or_definitions_of_the_rules_it_checks(rules: str) -> None:
    """A property that reads the rules' own definitions or constants moves with them: a
    mutant of the deck's definition would change the property with the rule and be
    invisible, or, where no rule reads the definition, be "killed" though every game is the
    same. Every number comes from the catalogue's [facts], every count from the fields."""
    offending = []
    for prop in load_properties(load_spec(rules)):
        for root in (prop.state, prop.move):
            for item in n.walk(root) if root is not None else ():
                if isinstance(item, n.Name) and item.kind in ("definition", "constant") \
                        and item.name not in ("players", "all_seats"):
                    offending.append(f"{prop.name}: {item.kind} {item.name}")
    assert not offending, offending
