"""Who sees what: the observations in the spec are complete on load, and the engine shows
each seat what the rulebook says it sees (R-S5, R-L1-R-L4, R-X3, R-X5) and nothing else."""

from __future__ import annotations

from pathlib import Path
from random import Random
from typing import Any

import pytest

from engine.game import Game, Move, State, compiled_game
from engine.observe import observer
from spec.errors import SpecError
from spec.loader import load_spec


def variant(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "variant.toml"
    path.write_text('extends = "standard"\nname = "seen_variant"\n' + body)
    return path


def test_every_field_of_the_standard_rules_says_who_sees_it() -> None:
    spec = load_spec("standard")
    hidden = set(spec.seen_fields("hidden"))
    assert {"hitler", "fascists", "draw_liberal", "draw_fascist", "known_top", "discard_liberal",
            "discard_fascist", "president_hand", "chancellor_hand"} == hidden
    assert {"alive", "president", "nominee", "liberal_policies", "fascist_policies", "election_tracker"} <= \
        set(spec.seen_fields("public"))


def test_a_rule_changing_hidden_state_without_saying_who_sees_it_is_refused(tmp_path: Path) -> None:
    path = variant(tmp_path, '[[rule]]\nname = "enact"\nhidden = ["discard_fascist", "discard_liberal"]\n')
    with pytest.raises(SpecError) as caught:
        load_spec(str(path))
    message = str(caught.value)
    assert "variant.toml:" in message
    assert "changes the hidden field 'chancellor_hand' but does not say who sees it" in message


def test_a_new_rule_choosing_a_parameter_must_say_who_sees_it(tmp_path: Path) -> None:
    path = variant(tmp_path, '[[add.rule]]\nname = "shuffle_seat"\nphase = "power"\nactor = "president"\n'
                              'params = { target = "seat" }\nrequires = []\neffect = { phase = "\'next_round\'" }\n')
    with pytest.raises(SpecError, match=r"variant.toml:\d+.*chooses the parameter 'target' but does not say who "
                                        r"sees it"):
        load_spec(str(path))


def test_a_field_without_seen_is_refused(tmp_path: Path) -> None:
    path = variant(tmp_path, '[add.state]\nsecret = { type = "bool", init = "False" }\n')
    with pytest.raises(SpecError, match=r"variant.toml:\d+ state.secret: field 'secret' says nothing for seen"):
        load_spec(str(path))


def test_of_must_name_what_the_move_chooses_or_hides(tmp_path: Path) -> None:
    path = variant(tmp_path, '[[rule]]\nname = "nominate"\n'
                             'shows = [{ rule = "R-E2", to = "all_seats", what = "chancellor", of = ["hitler"] }]\n')
    with pytest.raises(SpecError, match=r"of names 'hitler', which this move neither chooses nor changes"):
        load_spec(str(path))


def test_a_shows_entry_cites_a_rule_id(tmp_path: Path) -> None:
    path = variant(tmp_path, '[[rule]]\nname = "nominate"\n'
                             'shows = [{ rule = "R-Q1", to = "all_seats", what = "chancellor" }]\n')
    with pytest.raises(SpecError, match=r"'R-Q1' is not a rule ID"):
        load_spec(str(path))


# ---------------------------------------------------------------- what the engine shows


def _play(game: Game, seed: int, until: str) -> tuple[Any, Move, Any]:
    """A random game up to the first move of rule `until`: (before, move, after), each
    state the game's named tuple (its fields read by name)."""
    rng = Random(seed)
    state = game.initial_state()
    while not game.is_over(state):
        move = game.random_move(state, rng)
        assert move is not None
        after = game.apply(state, move)
        if move.rule == until:
            return state, move, after
        state = after
    raise LookupError(until)


def _values(game: Game, before: State, move: Move, after: State, seat: int) -> list[Any]:
    return [value for _, _, value in observer(game).shown(before, move, after, seat)]


@pytest.mark.parametrize("players", [5, 6, 7, 10])
def test_the_deal_shows_what_r_s5_says(players: int) -> None:
    game = compiled_game(players)
    roles = game.spec.enums["role"]
    for seed in range(5):
        before, move, after = _play(game, seed, "deal_roles")
        hitler, fascists = after.hitler, after.fascists
        for seat in range(players):
            shown = _values(game, before, move, after, seat)
            role = roles[shown[0]]
            assert role == ("hitler" if seat == hitler else "fascist" if fascists >> seat & 1 else "liberal")
            if role == "liberal":
                assert len(shown) == 1, "R-S5: Liberals know only themselves"
            elif role == "fascist":
                assert shown[1:] == [hitler, fascists], "R-S5: Fascists know each other and Hitler"
            elif players <= 6:
                assert shown[1:] == [fascists], "R-S5: at 5-6 players Hitler knows his Fascist"
            else:
                assert len(shown) == 1, "R-S5: at 7-10 players Hitler knows nobody"


def test_the_hands_are_shown_to_their_holders_only() -> None:
    game = compiled_game(5)
    for seed in range(5):
        before, move, after = _play(game, seed, "draw_hand")
        for seat in range(5):
            shown = _values(game, before, move, after, seat)
            assert shown == ([after.president_hand] if seat == before.president else []), "R-L1"
        before, move, after = _play(game, seed, "president_discard")
        for seat in range(5):
            shown = _values(game, before, move, after, seat)
            if seat == before.president:
                assert shown[0] == move.args[0], "the President knows his discard"
            if seat == before.nominee:
                assert shown[-1] == after.chancellor_hand, "R-L2: the Chancellor sees the two tiles passed"
            if seat not in (before.president, before.nominee):
                assert shown == [], "R-L4: nobody else sees the discard"
        view = observer(game).view(after, after.nominee)
        assert dict(view.items)["hand"] == after.chancellor_hand
        assert "hand" not in dict(observer(game).view(after, after.president).items)


def test_a_peek_and_an_investigation_are_shown_to_the_president_alone() -> None:
    for players, rule in ((5, "policy_peek"), (7, "investigate")):
        game = compiled_game(players)
        found = 0
        for seed in range(200):
            try:
                before, move, after = _play(game, seed, rule)
            except LookupError:
                continue
            found += 1
            for seat in range(players):
                shown = _values(game, before, move, after, seat)
                if rule == "investigate":
                    party = game.reveals(before, move)["party"]
                    assert shown == ([move.args[0], game.encode("enum", "team", party)] if seat == before.president
                                     else [move.args[0]]), "R-X3: the target is public, the party the President's"
                else:
                    assert shown == ([move.args[0]] if seat == before.president else []), "R-X5"
            if found >= 3:
                break
        assert found, f"no random game reached {rule} at {players} players"


def test_the_public_part_is_the_same_for_every_seat_and_hides_the_hidden_fields() -> None:
    game = compiled_game(6)
    watch = observer(game)
    before, move, after = _play(game, 1, "enact")
    public = watch.public(after)
    assert len(public) == len(game.spec.seen_fields("public")) + len(game.spec.public)
    other = after._replace(discard_fascist=after.discard_liberal, discard_liberal=after.discard_fascist)
    assert watch.public(other) == public, "which tiles were discarded is not public (R-L4), their number is"
