"""Exact odds of two small custom games, worked out by hand from the rulebook.

The games start one policy short of both wins: four Liberal policies (R-W1 needs five)
and five Fascist ones (R-W3 needs six), Hitler's zone at the default three (R-W4), the
veto zone out of reach (`veto_zone=6`, so R-X8 never applies). The first policy enacted
ends the game, so the whole game fits on a page:

- A round (R-E1) is a nomination and a vote. With no government elected yet, every other
  living seat is eligible (R-E3), so under `uniform` the nominee is one of four seats
  alike; roles are dealt at random (R-S2, R-S3), so the nominee is Hitler with
  probability 4/5 · 1/4 = 1/5 (the President is Hitler in 1/5 of deals and cannot be his
  own nominee). The votes do not depend on roles under `uniform`, so a failed round
  tells nothing: the next round's nominee is Hitler with 1/5 again.
- Each of five seats votes Ja with 1/2 on its own; the government is elected with a
  majority of Ja (R-E6, R-E7): 16 of the 32 sets of Ja voters, 1/2.
- Elected with Hitler as Chancellor: the Fascists win (R-W4). Elected otherwise: the
  President draws three tiles (R-L1), discards one (R-L2), the Chancellor enacts one of
  the two (R-L3). `uniform` picks among the legal moves, which name a tile's party, so
  a hand of two parties is split 1/2 each.
- Three failed rounds set off chaos (R-E9): the top tile is enacted.

So the game is over after round 1 with 1/2, after round 2 with 1/4, after round 3 with
1/4 (elected or chaos): 7/4 rounds expected, and 1/2 + 1/4 + 1/8 = 7/8 governments
elected. Hitler is elected Chancellor with 7/8 · 1/5 = 7/40.

These are the rulebook's odds, computed without reading the rules' files: a rule bug in
the deal, the vote, the eligibility, the draw, chaos or a win condition changes them.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from engine.game import compiled_game
from spec.strategies import load_strategy
from verify.explicit.odds import Odds, odds

ONE_SHORT = "start_fascist=5; start_liberal=4; veto_zone=6"
"""Both tracks one policy short of a win; no veto."""


def _odds(settings: str) -> Odds:
    game = compiled_game(5, f"custom[{ONE_SHORT}; {settings}]")
    result = odds(game, load_strategy(game.spec, "uniform"), exact=True)
    assert result.complete, result.limit
    return result


def test_a_pile_of_fascist_tiles_only() -> None:
    """Eight Fascist tiles in all, five on the track: the pile is three Fascist tiles.
    Every elected government but Hitler's enacts a Fascist policy, and so does chaos:
    the Fascists win by policies with 1 - 7/40 = 33/40."""
    result = _odds("deck_liberal=4; deck_fascist=8")
    assert result.outcomes == {("fascist", "hitler_chancellor"): Fraction(7, 40),
                               ("fascist", "policies"): Fraction(33, 40)}
    assert result.expected_rounds() == Fraction(7, 4)
    assert result.elections == Fraction(7, 8)


def test_a_pile_of_one_liberal_and_two_fascist_tiles() -> None:
    """The pile is one Liberal and two Fascist tiles. An elected government without Hitler
    (7/8 · 4/5 = 7/10) draws all three: the President discards the Fascist tile with 1/2,
    then the Chancellor enacts the Liberal one with 1/2, so a Liberal policy with 1/4.
    Chaos (1/8) enacts the top tile of a shuffled pile: Liberal with 1/3.
    Liberals win with 7/10 · 1/4 + 1/8 · 1/3 = 13/60; Fascists by policies with
    7/10 · 3/4 + 1/8 · 2/3 = 73/120."""
    result = _odds("deck_liberal=5; deck_fascist=7")
    assert result.outcomes == {("fascist", "hitler_chancellor"): Fraction(7, 40),
                               ("liberal", "policies"): Fraction(13, 60),
                               ("fascist", "policies"): Fraction(73, 120)}
    assert result.total == 1
    assert result.expected_rounds() == Fraction(7, 4)
    # Round 1 ends the game with 1/2: Hitler elected 1/10, else (2/5) Liberal 1/4, Fascist 3/4.
    # Round 2 with 1/4 more, split alike: Fascist 1/4 * 4/5, Liberal 1/4 * 1/5.
    within = dict(result.within())
    assert within[1] == {"fascist": Fraction(2, 5), "liberal": Fraction(1, 10)}
    assert within[2] == {"fascist": Fraction(3, 5), "liberal": Fraction(3, 20)}


@pytest.mark.parametrize("settings", ["deck_liberal=4; deck_fascist=8", "deck_liberal=5; deck_fascist=7"])
def test_floats_agree_with_the_hand_within_their_bound(settings: str) -> None:
    exact = _odds(settings)
    game = compiled_game(5, f"custom[{ONE_SHORT}; {settings}]")
    floats = odds(game, load_strategy(game.spec, "uniform"), exact=False)
    assert floats.complete and floats.error_bound > 0
    for outcome, share in exact.outcomes.items():
        assert abs(floats.outcomes[outcome] - float(share)) <= floats.error_bound * float(share) + 1e-300
