"""Dealt fields enumerated beside the layered search (verify/explicit/reductions.py (e),
verify/explicit/deals.py): the ordinary Fascists leave the searched states, and a move
property that reads them gives the verdict and the shortest game the search that keeps
them gives."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from engine.game import compiled_game
from spec.loader import load_spec
from verify.explicit import check as check_module
from verify.explicit.check import check_game, select
from verify.explicit.deals import deals_of
from verify.explicit.explore import Limits
from verify.explicit.model import Model
from verify.explicit.reductions import Reductions, dealt_fields, plan
from helpers import length, moves
from verify.results import PropertyResult, Proved, Refuted
from verify.rules import Rules

STANDARD_RULES = Rules.named("standard")

BOARD = "[powers=none,none,investigate,investigate,execution; start_liberal=3; start_fascist=2]"
"""A 5-player custom game whose next Fascist policy grants an investigation: small enough
to search with the ordinary Fascists kept (3.7 M states) in a test."""

NAMES = ("investigation_shows_the_party", "deal_follows_the_table", "liberal_policy_win")

FORGETS = """extends = "custom"
name = "investigation_forgets_the_fascists"
description = "An investigation shows Fascist for Hitler only (the ordinary Fascists show Liberal)"

[settings]
powers = ["none", "none", "investigate", "investigate", "execution"]
start_liberal = 3
start_fascist = 2

[[rule]]
name = "investigate"
reveals = { party = { type = "team", value = "'fascist' if target == hitler else 'liberal'" } }
"""
"""The board of BOARD with a rule bug the property must catch: whether it fires depends
on who the ordinary Fascists are, which the search with them dealt never holds."""


def test_the_deal_fixes_the_ordinary_fascists_and_nothing_the_rules_read() -> None:
    """`fascists` is set by the deal alone and read by no rule; `hitler`, read by the
    win and the execution rules, is searched."""
    assert dealt_fields(load_spec("standard")) == {"fascists": ("deal_roles", "fascist_seats")}


def test_a_property_reading_the_fascists_no_longer_keeps_them_at_seven_players() -> None:
    spec = load_spec("standard")
    props = tuple(p for p in select(STANDARD_RULES) if 7 in p.players)
    enumerated = plan(spec, props, Reductions(deals=True))
    assert enumerated.dealt == {"fascists"} and "fascists" not in enumerated.kept
    assert "dealt fascists enumerated" in enumerated.describe(spec)
    assert "fascists" in plan(spec, props, Reductions()).kept           # off unless asked
    # A state property reading them cannot be checked move by move: they stay.
    shows = next(p for p in props if p.name == "investigation_shows_the_party")
    as_state = replace(shows, kind="always", state=shows.move, move=None)
    assert "fascists" in plan(spec, (as_state,), Reductions(deals=True)).kept


def test_the_deals_beside_a_state_are_those_of_its_hitler() -> None:
    game = compiled_game(7, "standard")
    props = tuple(p for p in select(STANDARD_RULES) if 7 in p.players)
    deals = deals_of(game, Model(game, props, Reductions(deals=True)).plan)
    assert deals is not None
    assert sorted(deals.values) == [(seat,) for seat in range(7)]
    for (hitler,), table in deals.values.items():
        assert table.shape == (1, 15)                                 # 2 of the 6 other seats
        assert all(bin(int(mask)).count("1") == 2 and not mask >> hitler & 1 for mask in table[0])
    states = np.repeat(np.array(game.initial_state(), dtype=np.int64)[:, None], 2, axis=1)
    states[game.field_names.index("hitler")] = [0, 3]
    origin, before, after, _ = deals.widen(states, states.copy(), [])
    assert origin.tolist() == [0] * 15 + [1] * 15
    fascists = game.field_names.index("fascists")
    assert set(before[fascists, :15].tolist()) == set(deals.values[(0,)][0].tolist())
    assert np.array_equal(before[fascists], after[fascists])


def _verdicts(raws: list[PropertyResult]) -> dict[str, tuple[str, int]]:
    return {raw.property: (raw.verdict.verdict, len(moves(raw))) for raw in raws}


def _kept(monkeypatch: pytest.MonkeyPatch, rules: str) -> list[PropertyResult]:
    """The same check with nothing dealt enumerated: the ordinary Fascists searched."""
    game = compiled_game(5, rules)
    props = tuple(p for p in select(Rules.named(rules)) if p.name in NAMES)
    with monkeypatch.context() as patched:
        patched.setattr(check_module, "dealt_fields", lambda spec: {})
        patched.setattr("verify.explicit.reductions.dealt_fields", lambda spec: {})
        return check_game(game, props, Limits(time_limit=600), explorer="layers")


@pytest.mark.parametrize("rules", ["custom" + BOARD, "forgets"])
def test_enumerated_verdicts_and_games_are_those_of_the_search_that_keeps_them(
        rules: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sound rules: proved on a graph four times smaller. The bug: fired for some deal,
    then searched again with the Fascists kept, refuted by the same shortest game."""
    if rules == "forgets":
        path = tmp_path / "forgets.toml"
        path.write_text(FORGETS, encoding="utf-8")
        rules = str(path)
    game = compiled_game(5, rules)
    props = tuple(p for p in select(Rules.named(rules)) if p.name in NAMES)
    enumerated = check_game(game, props, Limits(time_limit=600), explorer="layers")
    reference = _kept(monkeypatch, rules)
    assert _verdicts(enumerated) == _verdicts(reference)
    shows = {raw.property: raw for raw in enumerated}["investigation_shows_the_party"]
    kept = {raw.property: raw for raw in reference}["investigation_shows_the_party"]
    if rules.endswith("forgets.toml"):
        assert isinstance(shows.verdict, Refuted) and "dealt" not in shows.verdict.evidence.note
    else:
        assert isinstance(shows.verdict, Proved) and "dealt fascists enumerated" in shows.verdict.evidence.note
        assert (shows.verdict.evidence.states or 0) * 3 < (kept.verdict.evidence.states or 0)  # 1 of 4 seats, dealt
