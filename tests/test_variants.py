"""Variants: overlays checked on load, custom-game settings, every shipped variant playable,
the disputes' other readings as rules, broken custom games found, and the mutation score.

The format is spec/VARIANTS.md. A variant that is wrong must be refused with the overlay
file, the line and the name it tried to change; a variant that is right must play random
games to the end for every player count it has (unless it says, in its [properties], that
it gets stuck), and the verdicts it expects must be the checker's.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from random import Random
from typing import Any

import pytest
from click.testing import CliRunner

from engine.game import Game, IllegalMove, Move
from spec.errors import SpecError
from spec.loader import VARIANTS_DIR, known_specs, load_spec
from spec.properties import load_properties
from spec.settings import SETTINGS, parse_assignments, settings_name
from verify.checker import check
from verify.cli import main
from verify.cli.options import rules_name
from verify.diff import semantic_signature
from verify.diff.mutants import Catch, Effort, mutation_score, score_lines
from verify.results import Limits, Refuted
from verify.rules import Rules

SHIPPED = sorted(p.stem for p in VARIANTS_DIR.glob("*.toml"))
MISTAKES = sorted(f"mistakes/{p.stem}" for p in (VARIANTS_DIR / "mistakes").glob("*.toml"))


def write(folder: Path, body: str, name: str = "variant.toml") -> Path:
    path = folder / name
    path.write_text('extends = "standard"\n' + body, encoding="utf-8")
    return path


def line_of(path: Path, needle: str) -> int:
    return next(number for number, text in enumerate(path.read_text().splitlines(), start=1) if needle in text)


def refusal(path: Path) -> SpecError:
    with pytest.raises(SpecError) as caught:
        spec = load_spec(str(path))
        load_properties(spec, overrides=spec.properties)
    return caught.value


# ============================================================== the overlay is checked


@pytest.mark.parametrize("body, needle, words", [
    ('[[rule]]\nname = "nominat"\neffect = { nominee = "chancellor" }\n', "nominat",
     ["rule 'nominat'", "no rule of that name to override", "Did you mean 'nominate'?", "[[add.rule]]"]),
    ('[[add.rule]]\nname = "nominate"\nphase = "vote"\nactor = "game"\nrequires = []\neffect = {}\n', "nominate",
     ["add.rule 'nominate'", "already have a rule of that name", "[[rule]]"]),
    ('[state]\nlast_presidnt = { init = "none" }\n', "last_presidnt",
     ["state.last_presidnt", "no state field 'last_presidnt'", "Did you mean 'last_president'?", "[add.state]"]),
    ('[add.state]\nlast_president = { type = "seat?", init = "none" }\n', "last_president",
     ["add.state.last_president", "already have a state field 'last_president'", "[state]"]),
    ('[state]\nalive = { kind = "seats" }\n', "alive", ["state.alive", "unknown key 'kind'", "type, init, range"]),
    ('[definitions]\npil = "0"\n', "pil", ["definitions.pil", "no definition 'pil'", "Did you mean 'pile'?"]),
    ('[tables.bord]\n"5-10" = ["none", "none", "none", "none", "none"]\n', "bord",
     ["tables.bord", "no table 'bord'", "Did you mean 'board'?"]),
    ('[add.constants]\nveto_zone = 4\n', "veto_zone", ["add.constants.veto_zone", "already have a constant"]),
    ('[enums]\nphse = ["a"]\n', "phse", ["enums.phse", "no enum 'phse'", "Did you mean 'phase'?"]),
    ('[add.enums]\nhow = ["policies"]\n', "policies", ["add.enums.how", "already has 'policies'"]),
    ('[expect]\nnominee_eligble = "fails"\n', "nominee_eligble",
     ["expect.nominee_eligble", "no property 'nominee_eligble'", "Did you mean 'nominee_eligible'?"]),
    ('[expect]\nnominee_eligible = "broken"\n', "nominee_eligible", ["expect.nominee_eligible", "holds", "fails"]),
    ('[properties.deadlock_fre]\nexpect = "fails"\n', "deadlock_fre",
     ["properties.deadlock_fre", "no property 'deadlock_fre'", "Did you mean 'deadlock_free'?", "kind"]),
    ('[properties.deadlock_free]\nexpcet = "fails"\n', "deadlock_free",
     ["properties.deadlock_free", "unknown key 'expcet'", "Did you mean 'expect'?"]),
    ('[[requirement]]\nrule = "nominate"\nid = "R-E9"\ndrop = true\n', "R-E9",
     ["requirement R-E9 of rule 'nominate'", "no requirement citing R-E9", "add = true"]),
    ('[[requirement]]\nrule = "nominate"\nid = "R-E3"\nadd = true\nwhen = "True"\n', "R-E3",
     ["a new requirement (add = true) needs when and why"]),
    ('[[requirement]]\nrule = "nominate"\nid = "R-E3"\nwehn = "True"\n', "R-E3", ["unknown key 'wehn'"]),
    ('[settings]\ndeck_fascit = 10\n', "deck_fascit",
     ["settings.deck_fascit", "unknown setting 'deck_fascit'", "Did you mean 'deck_fascist'?"]),
    ('[add]\nrules = []\n', "rules", ["unknown section 'add.rules'", "Did you mean 'rule'?"]),
])
def test_a_wrong_overlay_names_its_file_line_and_what_it_tried_to_change(tmp_path: Path, body: str, needle: str,
                                                                        words: list[str]) -> None:
    path = write(tmp_path, body)
    text = str(refusal(path))
    assert text.startswith(f"{path}:{line_of(path, needle)}"), text
    for word in words:
        assert word in text, f"{word!r} not in {text!r}"


@pytest.mark.parametrize("body, needle, words", [
    ('[add.state]\ntopdecked = { type = "boolean", init = "False" }\n', "topdecked",
     ["state.topdecked", "unknown type 'boolean'", "expected bool, int"]),
    ('[definitions]\nalive_count = "alive"\n', "alive_count",
     ["definitions.alive_count", "is seats", "define it as int"]),
    ('[[rule]]\nname = "elect"\neffect = { elected = "True" }\n', "effect",
     ["rule 'elect' effect.elected", "not a state field"]),
    ('[[requirement]]\nrule = "nominate"\nid = "R-E3"\nwhen = "chancellor != last_chancelor"\n', "last_chancelor",
     ["rule 'nominate' requires[2]", "unknown name 'last_chancelor'", "Did you mean 'last_chancellor'?"]),
    ('[properties.mine]\nkind = "always"\nstate = "pile >= hand_sise"\n', "[properties.mine]",
     ["properties.mine", "unknown name 'hand_sise'", "Did you mean 'hand_size'?"]),
])
def test_an_expression_or_type_an_overlay_got_wrong_is_reported_at_the_overlay(
        tmp_path: Path, body: str, needle: str, words: list[str]) -> None:
    path = write(tmp_path, body)
    error = refusal(path)
    assert error.where is not None and error.where.file == str(path), str(error)
    assert error.where.line == line_of(path, needle), str(error)
    for word in words:
        assert word in str(error), f"{word!r} not in {str(error)!r}"


def test_a_base_rule_broken_by_an_override_says_which_overlay_broke_it(tmp_path: Path) -> None:
    path = write(tmp_path, '[state]\nlast_chancellor = { type = "seats", init = "{}" }\n')
    text = str(refusal(path))
    assert "standard.toml" in text and f"after the changes in {path}" in text, text


def test_additions_and_overrides_merge_as_documented(tmp_path: Path) -> None:
    path = write(tmp_path, '[add.state]\nflag = { type = "bool", init = "False", seen = "public" }\n'
                           '[state]\ndraw_fascist = { range = "0..2 * deck_fascist" }\n'
                           '[[rule]]\nname = "elect"\neffect = { flag = "True" }\n'
                           '[add.enums]\nhow = ["topdeck"]\n'
                           '[tables.deck_fascist]\n"5-6" = 11\n"7-10" = 10\n')
    spec = load_spec(str(path))
    elect = dict((name, node) for name, node in spec.rule("elect").effect)
    assert {"flag", "last_president", "last_chancellor", "phase"} <= set(elect), "effect merges field by field"
    assert spec.fields[spec.field_index("draw_fascist")].type.kind == "int"
    assert spec.enums["how"][-1] == "topdeck"
    assert "deck_fascist" not in spec.constants and spec.tables["deck_fascist"][7] == 10
    seven: Any = Game(spec, 7).initial_state()
    six: Any = Game(spec, 6).initial_state()
    assert seven.draw_fascist == 10
    assert six.draw_fascist == 11


# ============================================================== settings


def test_settings_become_the_custom_variants_numbers() -> None:
    spec = load_spec("custom[powers=investigate,none,peek,execution,bullet; deck_fascist=10; start_fascist=1; "
                     "hitler_zone=4; veto_zone=4; fascists=2; hitler_knows_fascists=yes; players=7-8]")
    assert spec.player_counts == range(7, 9)
    assert spec.tables["board"][7] == ("investigate", "none", "peek", "execution", "execution")
    assert (spec.constants["deck_fascist"], spec.constants["start_fascist_policies"]) == (10, 1)
    assert (spec.constants["hitler_zone"], spec.constants["veto_zone"]) == (4, 4)
    assert spec.tables["ordinary_fascists"][8] == 2 and spec.tables["hitler_knows_fascists"][7] == 1
    start: Any = Game(spec, 7).initial_state()
    assert (start.fascist_policies, start.draw_fascist) == (1, 9), "the track's tile comes from the deck (R-S3)"


def test_the_canonical_settings_name_round_trips() -> None:
    values = parse_assignments(["powers=none,none,peek,execution,execution", "deck_fascist=10", "players=5"])
    name = settings_name("custom", values)
    assert name == "custom[deck_fascist=10; players=5; powers=none,none,peek,execution,execution]"
    assert load_spec(name).name == name


@pytest.mark.parametrize("assignment, words", [
    ("powers=investigate,none,peek,execution", ["5 Fascist slots", "got 4"]),
    ("powers=investigate,none,peek,execution,shoot", ["'shoot' is not a power"]),
    ("powers=reverseinv,none,none,none,none", ["reverse investigation", "these rules do not have"]),
    ("deck_fascist=ten", ["expected a whole number"]),
    ("deck_fascist=99", ["outside 0-40"]),
    ("start_liberal=5", ["outside 0-4"]),
    ("players=4-8", ["R-S1", "5-10"]),
    ("hitler_knows_fascists=maybe", ["true or false"]),
    ("deck_fascit=3", ["unknown setting 'deck_fascit'", "Did you mean 'deck_fascist'?"]),
    ("deck_fascist", ["write NAME=VALUE"]),
])
def test_a_bad_setting_is_refused_with_what_is_allowed(assignment: str, words: list[str]) -> None:
    with pytest.raises(SpecError) as caught:
        parse_assignments([assignment])
    for word in words:
        assert word in str(caught.value), f"{word!r} not in {caught.value}"


@pytest.mark.parametrize("settings, words", [
    ("start_fascist=5; deck_fascist=3", ["5 Fascist policies", "the deck has 3"]),
    ("fascists=4; players=5", ["leave no Liberal", "5 players"]),
])
def test_settings_that_contradict_each_other_are_refused(settings: str, words: list[str]) -> None:
    with pytest.raises(SpecError) as caught:
        load_spec(f"custom[{settings}]")
    for word in words:
        assert word in str(caught.value)


def test_settings_come_from_a_file_and_from_the_command_line(tmp_path: Path) -> None:
    settings = tmp_path / "my_game.toml"
    settings.write_text('[settings]\npowers = ["investigate", "none", "peek", "execution", "execution"]\n'
                        'deck_fascist = 10\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["play", "-q", "-n", "6", "--rules", "custom[deck_fascist=10; powers="
                                       "investigate,none,peek,execution,execution]"])
    assert result.exit_code == 0, result.output
    variant = tmp_path / "variant.toml"
    variant.write_text('extends = "custom"\n' + settings.read_text(), encoding="utf-8")
    from_file = load_spec(str(variant))
    from_line = load_spec("custom[deck_fascist=10; powers=investigate,none,peek,execution,execution]")
    assert semantic_signature(from_file, 6) == semantic_signature(from_line, 6)
    assert rules_name("standard", ("deck_fascist=10",), str(settings)) == from_line.name


def test_every_setting_is_documented() -> None:
    text = (Path(__file__).resolve().parents[1] / "spec" / "VARIANTS.md").read_text(encoding="utf-8")
    for name in SETTINGS:
        assert f"`{name}`" in text, f"setting {name} is not in spec/VARIANTS.md"


# ============================================================== shipped variants


def _stuck_counts(spec_name: str) -> set[int]:
    """Player counts where the variant itself says a game can get stuck."""
    spec = load_spec(spec_name)
    stuck: set[int] = set()
    for prop in load_properties(spec, overrides=spec.properties):
        if prop.kind in ("deadlock_free", "terminates") and prop.expect == "fails":
            stuck |= set(prop.players)
    return stuck


@pytest.mark.parametrize("name", SHIPPED + MISTAKES)
def test_every_variant_loads_with_its_properties_and_plays_random_games_to_the_end(name: str) -> None:
    spec = load_spec(name)
    assert spec.overlays and spec.description, "a variant says what it is"
    load_properties(spec, overrides=spec.properties)
    stuck = _stuck_counts(name)
    for players in spec.player_counts:
        if players in stuck:
            continue
        game = Game(spec, players)
        rng = Random(players)
        for _ in range(3):
            state = game.initial_state()
            for _ in range(2_000):
                if game.is_over(state):
                    break
                move = game.random_move(state, rng)
                assert move is not None
                state = game.apply(state, move)
            assert game.is_over(state), f"{name}, {players} players: a random game did not end"


def test_every_variant_is_known_by_name() -> None:
    known = known_specs()
    assert set(SHIPPED) <= set(known) and set(MISTAKES) <= set(known)
    assert load_spec("tie_passes").name == load_spec("mistakes/tie_passes").name == "tie_passes"


@pytest.mark.parametrize("single, players", [("rebalance6p", 6), ("rebalance7p", 7), ("rebalance9p", 9)])
def test_rebalance_is_the_sites_single_count_rebalancing_for_its_count(single: str, players: int) -> None:
    assert semantic_signature(load_spec("rebalance"), players) == semantic_signature(load_spec(single), players)


@pytest.mark.parametrize("players", [5, 8, 10])
def test_rebalance_changes_nothing_for_the_other_counts(players: int) -> None:
    assert semantic_signature(load_spec("rebalance"), players) == semantic_signature(load_spec("standard"), players)


def test_custom_without_settings_is_the_standard_game() -> None:
    for players in range(5, 11):
        assert semantic_signature(load_spec("custom"), players) == semantic_signature(load_spec("standard"), players)


def _special_election_rejected(rules: str) -> int:
    """7 players: seat 0's government enacts the third Fascist policy (Special Election),
    seat 0 names seat 4, whose government is rejected; who is the next candidate?"""
    game = Game(load_spec(rules), 7)
    start: Any = game.initial_state()
    state: Any = start._replace(
        phase=game.spec.enums["phase"].index("chancellor_enact"), hitler=3, fascists=0b1100010, president=0,
        nominee=1, last_president=0, last_chancellor=1, fascist_policies=2, chancellor_hand=2,
        draw_fascist=11 - 2 - 2 - 1, discard_fascist=1)
    state = game.apply(state, Move("enact", (1,)), by=1)
    state, _ = game.advance(state)
    state = game.apply(state, Move("special_election", (4,)), by=0)
    state, _ = game.advance(state)
    state = game.apply(state, Move("nominate", (5,)), by=4)
    state = game.apply(state, Move("reject", (0,)))
    state, _ = game.advance(state)
    return int(state.president)


def test_d1_the_standard_reading_returns_candidacy_left_of_the_caller() -> None:
    assert _special_election_rejected("standard") == 1


def test_d1_the_other_reading_passes_on_from_the_special_candidate() -> None:
    assert _special_election_rejected("special_election_restarts") == 5


def _veto_sets_off_chaos(rules: str) -> tuple[list[str], dict[tuple[int, ...], Fraction]]:
    """An accepted veto is the third failed government with two tiles in the pile, both
    Liberal, and six Fascist discards: which rule runs first, and what can chaos enact?"""
    game = Game(load_spec(rules), 7)
    phases = game.spec.enums["phase"]
    start: Any = game.initial_state()
    state = start._replace(
        phase=phases.index("veto"), hitler=3, fascists=0b1100010, president=0, nominee=1, last_president=0,
        last_chancellor=1, fascist_policies=5, liberal_policies=2, election_tracker=2, chancellor_hand=2,
        draw_liberal=2, draw_fascist=0, discard_liberal=2, discard_fascist=11 - 5 - 2)
    state = game.apply(state, Move("accept_veto", ()), by=0)
    state, forced = game.advance(state)
    return [move.rule for move in forced], {move.args: p for move, p in game.chance_outcomes(state)}


def test_d5_the_standard_order_reshuffles_before_chaos() -> None:
    forced, outcomes = _veto_sets_off_chaos("standard")
    assert forced[0] == "reshuffle" and "veto_chaos" in forced
    assert set(outcomes) == {(0,), (1,)}, "the new deck holds both kinds"


def test_d5_the_other_order_takes_the_top_of_the_old_pile() -> None:
    forced, outcomes = _veto_sets_off_chaos("veto_chaos_first")
    assert "reshuffle" not in forced and "veto_chaos" in forced
    assert set(outcomes) == {(0,)}, "the old pile holds only Liberal tiles"


def test_president_breaks_ties_elects_on_a_tie_only_with_the_presidents_ja() -> None:
    game = Game(load_spec("president_breaks_ties"), 6)
    start: Any = game.initial_state()
    state = start._replace(phase=game.spec.enums["phase"].index("vote"), president=0, nominee=1)
    elected: Any = game.apply(state, Move("elect", (0b000111,)))
    assert elected.phase == game.spec.enums["phase"].index("elected")
    with pytest.raises(IllegalMove) as caught:
        game.apply(state, Move("elect", (0b001110,)))
    assert caught.value.rule_id == "R-E7"


# ============================================================== broken custom games are found


@pytest.mark.parametrize("settings, prop, verdict", [
    # the deck runs out: 8 tiles, tracks that can take 6 of them
    ("deck_liberal=4; deck_fascist=4", "draw_finds_three", "refuted"),
    # a win condition that cannot be reached: four Liberal tiles for a five-slot track (the
    # tracks start nearly full so that the complete search is small)
    ("deck_liberal=4; start_liberal=2; start_fascist=5", "liberal_policy_win", "no-witness"),
    # no eligible Chancellor: no five-alive exception, and executions down to two players
    ("few_alive=0; powers=none,none,execution,execution,execution", "deadlock_free", "refuted"),
])
def test_a_broken_custom_game_is_a_refuted_property_with_the_game_that_shows_it(
        settings: str, prop: str, verdict: str) -> None:
    (result,) = check(Rules.named(f"custom[{settings}]"), (5,), (prop,), Limits(None, 120.0, 8_000), workers=1)
    assert result.verdict.verdict == verdict, result.verdict
    assert result.as_expected is False
    if verdict == "refuted":
        assert isinstance(result.verdict, Refuted)
        trace = result.verdict.trace
        assert trace is not None and trace.steps[0][0].rule == "deal_roles"
        assert trace.game.spec.name.startswith("custom["), "the trace names the settings, so it replays"


def test_check_takes_a_variant_with_settings_on_the_command_line() -> None:
    result = CliRunner().invoke(main, ["check", "--variant", "custom", "--set", "deck_liberal=4",
                                       "--set", "deck_fascist=4", "-n", "5", "-p", "draw_finds_three",
                                       "--workers", "1", "--time-limit", "120"])
    assert result.exit_code == 1, result.output
    assert "NOT AS EXPECTED: draw_finds_three, 5 players" in result.output
    assert "draws" in result.output, "the game that shows it is printed"
    bad = CliRunner().invoke(main, ["check", "--variant", "custom", "--set", "deck_fascit=4"])
    assert bad.exit_code == 2 and "Did you mean 'deck_fascist'?" in bad.output


# ============================================================== what the variants expect


def test_a_shipped_house_rule_gets_the_verdicts_it_expects() -> None:
    (ties,) = check(Rules.named("president_breaks_ties"), (6,), ("majority_elects",), Limits(None, 60.0, 8_000), workers=1)
    assert ties.expect == "fails" and ties.verdict.verdict == "refuted" and ties.as_expected is True


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in SHIPPED if load_spec(n).properties])
def test_every_shipped_variant_gets_the_verdicts_its_properties_expect(name: str) -> None:
    spec = load_spec(name)
    wanted = tuple(spec.properties)
    results = check(Rules.named(name), (5, 6), wanted, Limits(None, 600.0, 12_000), workers=2)
    for result in results:
        assert result.as_expected is True, (result.property, result.players, result.verdict)


# ============================================================== the mutation score


@pytest.mark.slow
def test_every_mistake_is_told_apart_from_the_rules() -> None:
    """The mutation score is 100%: each mutant is caught by a property it says it breaks
    (invariants on 5 players) or by diff (a small search, then random lockstep play); and
    each is caught by the standard catalogue alone, without its file's help."""
    catches = mutation_score(effort=Effort.quick(), workers=2)
    assert len(catches) == len(MISTAKES) >= 25
    missed = [c.mutant for c in catches if not c.caught]
    assert not missed, "\n".join(score_lines(catches))
    assert {c.catcher for c in catches} == {"property", "diff"}, "both catchers are exercised"
    alone = [c.mutant for c in catches if not c.catalogue]
    assert not alone, "the catalogue alone, without the mistakes' [expect], misses: " + ", ".join(alone)


def test_check_mutants_prints_the_score() -> None:
    lines = score_lines([Catch("mistakes/a", "", "property", "property x (5 players: refuted)", 0.1,
                               "property y (7 players: refuted, a random game, 12 moves)"),
                         Catch("mistakes/b", "", "", "not told apart (unknown)", 0.2)])
    assert lines[0] == "mutation score: 1/2 (50%)"
    assert lines[1] == "the catalogue alone, without [expect] or diff: 1/2 (50%)"
    assert "caught" in lines[2] and "catalogue alone: property y" in lines[3]
    assert "MISSED" in lines[4] and "catalogue alone: not caught" in lines[5]


@pytest.mark.slow
def test_the_full_mutation_score_through_the_command_line() -> None:
    result = CliRunner().invoke(main, ["mutate", "--mistakes", "--workers", "2"])
    assert result.exit_code == 0, result.output
    assert f"mutation score: {len(MISTAKES)}/{len(MISTAKES)} (100%)" in result.output


@pytest.mark.slow
@pytest.mark.parametrize("name", MISTAKES)
def test_every_mistake_gets_the_verdicts_it_declares_on_five_and_six_players(name: str) -> None:
    """Each property a mutant says it breaks is broken (and each it says still holds, holds),
    on the player counts of 5 and 6 that the property concerns."""
    spec = load_spec(name)
    props = {p.name: p for p in load_properties(spec, overrides=spec.properties)}
    wanted = tuple(n for n in spec.properties if n in props and {5, 6} & set(props[n].players))
    if not wanted:
        pytest.skip(f"{name} declares no property for 5 or 6 players (diff tells it apart)")
    results = check(Rules.named(name), (5, 6), wanted, Limits(None, 900.0, 12_000), workers=2)
    assert results
    for result in results:
        assert result.as_expected is True, (result.property, result.players, result.verdict)
