"""The rulebook's order of play and the frame of each move catch rule bugs of the shapes
the rest of the catalogue misses (issue 58, classes 1 and 2).

Each bug is a small variant written here, in the style of spec/variants/mistakes/: one
that skips or reorders a step of the round, one that writes a count into the wrong
place. Each is refuted by the one new property named, by the shortest game, whose last
move is the move that came instead; the standard rules prove that property. A slow test
checks that the catalogue without the new properties passes every one of them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.game import compiled_game
from spec.errors import Location, SpecError
from spec.lang.nodes import Lit
from spec.model import Spec
from spec.loader import load_spec
from spec.order import FIELD, is_monitored, with_monitor
from spec.properties import load_properties
from verify.checker import check
from verify.explicit.check import check_game
from verify.results import Limits, Proved, Refuted
from verify.rules import Rules
from helpers import moves

STANDARD_RULES = Rules.named("standard")

PLAYERS = 5

BUGS: dict[str, tuple[str, str, str]] = {
    # name: (variant body, the new property that must catch it, the move that comes instead)
    "vote_skipped": ("""
# The vote left out: the nomination elects the pair at once.
[[rule]]
name = "nominate"
effect = { nominee = "chancellor", last_president = "president", last_chancellor = "chancellor", phase = "'elected'" }
""", "order_after_nominated", "legislate"),
    "candidacy_stays": ("""
# A failed vote does not pass the candidacy on: the same candidate nominates again.
[[rule]]
name = "reject"
effect = { phase = "'chaos' if election_tracker + 1 >= tracker_limit else 'nominate'" }
""", "order_after_rejected", "nominate"),
    "discard_onto_the_pile": ("""
# The Chancellor's discarded tile goes back onto the draw pile, not onto the discards:
# every tile is still counted, in the wrong place.
[[rule]]
name = "enact"
effect = { discard_fascist = "discard_fascist", discard_liberal = "discard_liberal", draw_fascist = "draw_fascist + chancellor_hand - (1 if tile == 'fascist' else 0)", draw_liberal = "draw_liberal + (chancellor_hand_size - chancellor_hand) - (1 if tile == 'liberal' else 0)" }
hidden = ["discard_fascist", "discard_liberal", "chancellor_hand", "draw_fascist", "draw_liberal"]
""", "frame_enactment", "enact"),
    "peek_forgotten": ("""
# The Policy Peek is not recorded: the top of the pile stays unknown after it.
[[rule]]
name = "policy_peek"
effect = { known_top = "known_top", draw_liberal = "draw_liberal", draw_fascist = "draw_fascist" }
""", "frame_peek", "policy_peek"),
    "veto_forgets_term_limits": ("""
# An accepted veto clears the elected pair's term limits (R-V4 says it does not).
[[rule]]
name = "accept_veto"
effect = { last_president = "none", last_chancellor = "none" }
""", "frame_veto_accepted", "accept_veto"),
}


def _variant(tmp_path: Path, name: str) -> str:
    body, _, _ = BUGS[name]
    path = tmp_path / f"{name}.toml"
    path.write_text(f'extends = "standard"\nname = "{name}"\ndescription = "Bug written for the test: {name}"\n'
                    + body, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("name", sorted(BUGS))
def test_the_new_property_catches_the_bug(tmp_path: Path, name: str) -> None:
    _, prop, instead = BUGS[name]
    rules = _variant(tmp_path, name)
    (result,) = check(Rules.named(rules), (PLAYERS,), (prop,), Limits(), workers=1)
    assert isinstance(result.verdict, Refuted), result.verdict
    trace = result.verdict.trace
    assert trace is not None
    assert trace.steps[-1][0].rule == instead      # the move that came instead of the rulebook's
    assert result.rule_ids                          # the rule IDs the stage or move rests on


def test_the_standard_rules_prove_the_new_properties() -> None:
    wanted = tuple(sorted({prop for _, prop, _ in BUGS.values()}))
    results = check(STANDARD_RULES, (PLAYERS,), wanted, Limits(), workers=1)
    assert {r.property for r in results} == set(wanted)
    assert all(isinstance(r.verdict, Proved) for r in results), [(r.property, r.verdict) for r in results]


def test_a_round_that_stops_where_the_rulebook_goes_on_is_refuted() -> None:
    """The obligation half of the order: the house rule whose third failed vote wins the
    game leaves no move after the vote where the rulebook has chaos or the next candidate."""
    (result,) = check(Rules.named("no_topdecking"), (PLAYERS,), ("order_goes_on_after_rejected",), Limits(), workers=1)
    assert isinstance(result.verdict, Refuted) and result.as_expected is True
    assert result.verdict.trace is not None and result.verdict.trace.steps[-1][0].rule == "reject"


def test_every_stage_but_the_end_has_a_property_naming_its_rule_ids() -> None:
    props = [p for p in load_properties(load_spec("standard")) if p.name.startswith("order_after_")]
    assert len(props) >= 20
    for prop in props:
        assert prop.rules and prop.rule_ids and "rulebook" in prop.description or "nothing more" in prop.description
    monitored = load_spec(props[0].rules)
    assert is_monitored(monitored) and not is_monitored(load_spec("standard"))


def test_the_monitor_reads_only_itself() -> None:
    """The automaton follows which rule fired, never the rules' phases or fields: a rule
    that moves its phases moves nothing the monitor reads."""
    prop = next(p for p in load_properties(load_spec("standard")) if p.name == "order_after_start")
    spec = load_spec(prop.rules)
    from spec.lang.nodes import fields_read

    for rule in spec.rules:
        (update,) = [node for target, node in rule.effect if target == FIELD]
        assert fields_read([update], spec.definitions) == {FIELD}, rule.name


def test_rules_built_in_memory_leave_the_order_unknown() -> None:
    """A rule set with no name to load again (a mutant) cannot carry the monitor: its
    order properties are unknown, never proved."""
    import dataclasses

    spec = load_spec("standard")
    props = tuple(p for p in load_properties(spec) if p.name == "order_after_nominated")
    changed = dataclasses.replace(spec, description="built in memory")
    game = compiled_game(PLAYERS, "standard")
    game = type(game)(changed, PLAYERS)
    (raw,) = check_game(game, props, Limits())
    assert raw.verdict.verdict == "unknown"


def _without_places(spec: Spec) -> object:
    """A spec's rules and fields with where each was written put to one place (a rule set
    built in memory has no file line)."""
    import dataclasses

    nowhere = Location()
    return ([dataclasses.replace(f, where=nowhere) for f in spec.fields],
            [dataclasses.replace(r, where=nowhere) for r in spec.rules])


def test_rules_built_in_memory_get_the_same_monitor_as_rules_loaded_by_name() -> None:
    """The mutation analysis compiles the monitor into rules built in memory (a mutant):
    the same field and the same assignment in every rule as the overlay loaded by name."""
    spec = load_spec("standard")
    prop = next(p for p in load_properties(spec) if p.name == "order_after_start")
    assert _without_places(with_monitor(spec)) == _without_places(load_spec(prop.rules))
    assert with_monitor(with_monitor(spec)) == with_monitor(spec)


def test_rules_built_in_memory_with_the_monitor_decide_the_order() -> None:
    """With the monitor compiled in, the order properties of a rule set built in memory are
    its own and decided: the standard rules' proved, a skipped vote's refuted (R-E6) by the
    game whose last move is the one that came instead."""
    import dataclasses

    spec = dataclasses.replace(load_spec("standard"), description="built in memory")
    watched = with_monitor(spec)
    props = tuple(p for p in load_properties(watched) if p.name == "order_after_nominated")
    assert props and not props[0].rules
    (raw,) = check_game(type(compiled_game(PLAYERS, "standard"))(watched, PLAYERS), props, Limits())
    assert raw.verdict.verdict == "proved"
    nominate = spec.rule("nominate")
    phase = next(index for index, (target, _) in enumerate(nominate.effect) if target == "phase")
    elected = spec.enums["phase"].index("elected")
    skipped = dataclasses.replace(nominate, effect=tuple(
        (target, Lit(node.type, elected) if index == phase else node)
        for index, (target, node) in enumerate(nominate.effect)))
    bug = with_monitor(dataclasses.replace(spec, rules=tuple(skipped if r.name == "nominate" else r
                                                             for r in spec.rules)))
    (raw,) = check_game(type(compiled_game(PLAYERS, "standard"))(bug, PLAYERS), props, Limits())
    assert raw.verdict.verdict == "refuted" and moves(raw) and moves(raw)[-1][0] != "vote"


def test_a_step_citing_no_rule_id_is_refused(tmp_path: Path) -> None:
    from spec.errors import Location
    from spec.order import load_automaton

    data = {"order_of_play": {"start": "a", "stages": {"a": "x", "b": "y"},
                              "steps": [{"from": "a", "moves": ["nominate"], "to": "b", "rule": "R-Z9"}]}}
    with pytest.raises(SpecError, match="R-Z9"):
        load_automaton(data, load_spec("standard"), Location())


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BUGS))
def test_the_catalogue_before_passes_the_bug(tmp_path: Path, name: str) -> None:
    """Without the order of play and the frames, every verdict is as expected: the bug
    slipped through (what the new properties are for)."""
    rules = _variant(tmp_path, name)
    old = tuple(p.name for p in load_properties(load_spec(rules))
                if not p.rules and not p.name.startswith("frame_"))
    results = check(Rules.named(rules), (PLAYERS,), old, Limits(), workers=1)
    assert all(r.as_expected for r in results), [r.property for r in results if not r.as_expected]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BUGS))
def test_the_solver_catches_the_bug_too(tmp_path: Path, name: str) -> None:
    """The Z3 backend decides the same property on the same monitored rules: refuted, by a
    game ending in the move that came instead (17 s to a minute each on a busy machine)."""
    _, prop, instead = BUGS[name]
    (result,) = check(Rules.named(_variant(tmp_path, name)), (PLAYERS,), (prop,), Limits(time_limit=300), backend="smt",
                      workers=1)
    assert isinstance(result.verdict, Refuted), result.verdict
    assert result.verdict.trace is not None and result.verdict.trace.steps[-1][0].rule == instead
