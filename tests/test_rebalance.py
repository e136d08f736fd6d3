"""The rebalance search (verify/odds/rebalance.py, `shrules rebalance`).

The walk is checked with a made-up evaluation (odds that move with the deck, so the
answer is known), the file it writes with a small custom game whose odds are worked out
by hand (tests/test_odds_by_hand.py), and the command's honesty when the odds of the
rules' own game are stopped by a limit. Real searches take minutes of odds each: their
figures are in docs/benchmarks.md with their commands."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from functools import partial
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.game import Game
from spec.errors import SpecError
from spec.loader import load_spec
from spec.strategies import load_strategy
from verify.cli import main
from verify.explicit.odds import Odds, odds
from verify.explicit.odds_played import PLAYED
from verify.odds.rebalance import (Candidate, OddsOf, Search, Settings, Space, attempt, overlay_text, plain,
                                   search)
from verify.workers import WorkerPool


def made_up(settings: Settings) -> Odds:
    """Liberal odds of 20% at the rules' own deck, 5 points more per Liberal tile and 4
    fewer per Fascist tile, 3 more for a Liberal policy at the start and 3 fewer for a
    Fascist one; a deck of 9 Liberal tiles is refused as the rules would refuse it."""
    values = dict(settings)
    if values["deck_liberal"] == 9:
        raise SpecError("a deck the rules refuse")
    share = (0.2 + 0.05 * (values["deck_liberal"] - 6) - 0.04 * (values["deck_fascist"] - 11)
             + 0.03 * values.get("start_liberal", 0) - 0.03 * values.get("start_fascist", 0))
    result = Odds(6, "custom", "made-up", exact=False, complete=True)
    result.outcomes = {("liberal", "policies"): share, ("fascist", "policies"): 1 - share}
    return result


def test_the_walk_reaches_the_target_and_never_goes_back() -> None:
    found = search(Space(load_spec("custom"), 6), 6, "made-up", made_up, target=0.5, tolerance=0.01)
    assert found.within and found.stopped == "within the tolerance"
    assert found.best is not None and found.best.liberal == pytest.approx(0.5, abs=0.0101)
    assert found.start is not None and found.start.liberal == pytest.approx(0.2)
    assert len({c.settings for c in found.evaluated}) == len(found.evaluated)
    assert all(c.dropped == "SpecError: a deck the rules refuse" for c in found.evaluated if c.liberal is None)
    boards = {c.rules().split("powers=")[1].split(";")[0].rstrip("]") for c in found.evaluated}
    assert "none,none,peek,execution,execution" in boards and all(board.count(",") == 4 for board in boards)


@pytest.mark.parametrize("limit", [500, 5, 12])
def test_side_by_side_the_same_walk(limit: int) -> None:
    """With a pool, a step's neighbours are evaluated together: the candidates, their
    order, the best and why the walk ended are those of the walk one at a time."""
    alone = search(Space(load_spec("custom"), 6), 6, "made-up", made_up, target=0.5, tolerance=0.01,
                   max_evaluations=limit)
    with ThreadPoolExecutor(3) as pool:
        together = search(Space(load_spec("custom"), 6), 6, "made-up", made_up, target=0.5, tolerance=0.01,
                          max_evaluations=limit, pool=pool)
    assert [c.settings for c in together.evaluated] == [c.settings for c in alone.evaluated]
    assert [c.dropped for c in together.evaluated] == [c.dropped for c in alone.evaluated]
    assert together.best == alone.best and together.stopped == alone.stopped
    assert len(alone.evaluated) <= limit


def test_a_worker_process_evaluates_a_candidate() -> None:
    """The evaluation crosses to a worker process as a value (`OddsOf`), and a candidate
    its time limit stops comes back incomplete, with the limit; settings the rules refuse
    come back as the reason."""
    space = Space(load_spec("custom"), 5)
    origin = space.origin(5)
    refused = tuple((name, -3 if name == "deck_liberal" else value) for name, value in origin)
    with WorkerPool(2) as pool:
        outcomes = list(pool.map(partial(attempt, OddsOf(5, "uniform", 0.2)), [origin, refused]))
    assert isinstance(outcomes[0], Odds) and not outcomes[0].complete and outcomes[0].limit.startswith("time limit")
    assert isinstance(outcomes[1], str) and outcomes[1].startswith("SpecError: ") and "-3 is outside" in outcomes[1]


def played_made_up(settings: Settings) -> Odds:
    """`made_up`'s odds as if played in 400 games: shares of whole games, with counts."""
    result = made_up(settings)
    liberal = round(400 * result.outcomes["liberal", "policies"])
    result.method, result.games = PLAYED, 400
    result.counts = {("liberal", "policies"): liberal, ("fascist", "policies"): 400 - liberal}
    result.outcomes = {outcome: count / 400 for outcome, count in result.counts.items()}
    return result


def test_played_odds_are_within_only_with_their_whole_interval() -> None:
    """A share within a point of one half from 400 games is no proof of odds within a
    point of it: its 99% interval is 6 points either side, so the walk does not stop
    there and the best is not called within the tolerance."""
    found = search(Space(load_spec("custom"), 6), 6, "made-up", played_made_up, target=0.5, tolerance=0.01)
    assert not found.within and found.stopped == "no neighbour is closer to the target"
    assert found.best is not None and found.best.liberal == pytest.approx(0.5, abs=0.0101)
    low, high = found.best.interval or (0.0, 1.0)
    assert low < 0.45 and high > 0.55
    assert Candidate(found.best.settings, made_up(found.best.settings)).within(0.5, 0.01)   # computed: it is


def test_cli_games_writes_the_games_it_was_found_with(tmp_path: Path) -> None:
    out = tmp_path / "rebalanced.toml"
    result = CliRunner().invoke(main, ["rebalance", "-n", "5", "--games", "300", "--max-evaluations", "2",
                                       "--out", str(out)])
    assert result.exit_code == 1, result.output          # two candidates: not within one point
    assert "% (99%: " in result.output and "its odds recomputed from the file (other games)" in result.output
    assert "--games 300`" in out.read_text() and "99% interval" in out.read_text()


def test_the_neighbours_of_a_candidate() -> None:
    """A tile more or fewer of either party or both, one traded for the other, the other
    starts and boards, the Hitler zone one either way (named only where it is not the
    rules' own); never a deck past its reach, never a zone of 0."""
    space = Space(load_spec("custom"), 6)
    origin = dict(space.origin(6))
    neighbours = [dict(n) for n in space.neighbours(space.origin(6))]
    decks = {(n["deck_liberal"] - origin["deck_liberal"], n["deck_fascist"] - origin["deck_fascist"])
             for n in neighbours if n["deck_liberal"] != origin["deck_liberal"] or n["deck_fascist"] != origin["deck_fascist"]}
    assert decks == {(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1), (1, 1), (-1, -1)}
    assert sorted(n["hitler_zone"] for n in neighbours if "hitler_zone" in n) == [2, 4]
    assert sum("start_fascist" in n or "start_liberal" in n for n in neighbours) == 2
    assert len(neighbours) == 8 + 2 + 2 + 2
    back = [dict(n) for n in space.neighbours(tuple(sorted({**origin, "hitler_zone": 4}.items())))]
    assert any("hitler_zone" not in n and n["deck_liberal"] == origin["deck_liberal"]
               and n["deck_fascist"] == origin["deck_fascist"] for n in back)       # back to the rules' own zone
    low = [dict(n) for n in space.neighbours(tuple(sorted({**origin, "hitler_zone": 1}.items())))]
    assert sorted(n["hitler_zone"] for n in low if "hitler_zone" in n and n["deck_liberal"] == origin["deck_liberal"]
                  and n["deck_fascist"] == origin["deck_fascist"] and "start_fascist" not in n
                  and "start_liberal" not in n and n["powers"] == origin["powers"]) == [2]


def test_the_walk_stops_at_its_evaluation_limit() -> None:
    found = search(Space(load_spec("custom"), 6), 6, "made-up", made_up, target=0.5, tolerance=0.001, max_evaluations=5)
    assert not found.within and found.stopped == "the limit of 5 evaluations"
    assert len(found.evaluated) == 5
    assert found.best is not None and found.start is not None
    assert abs(found.best.liberal - 0.5) < abs(found.start.liberal - 0.5)      # type: ignore[operator]


def test_a_target_out_of_reach_ends_at_the_closest_neighbour() -> None:
    """The deck may move only so far from the rules' own: a 99% target is not reached,
    and the walk ends where no neighbour is closer."""
    found = search(Space(load_spec("custom"), 6), 6, "made-up", made_up, target=0.99, tolerance=0.001, max_evaluations=500)
    assert not found.within and found.stopped == "no neighbour is closer to the target"


def test_the_file_written_loads_and_has_the_odds_worked_out_by_hand(tmp_path: Path) -> None:
    """One policy short of both wins, a pile of a Liberal and two Fascist tiles: Liberals
    win with 13/60 under `uniform` (tests/test_odds_by_hand.py)."""
    settings: Settings = (("deck_fascist", 7), ("deck_liberal", 5), ("players", "5"), ("start_fascist", 5),
                          ("start_liberal", 4), ("veto_zone", 6))
    spec = load_spec("custom[" + "; ".join(f"{k}={v}" for k, v in plain(settings).items()) + "]")
    result = odds(Game(spec, 5), load_strategy(spec, "uniform"), exact=True)
    found = Search(5, "uniform", 0.5, 0.01, best=Candidate(settings, result), stopped="test")
    path = tmp_path / "rebalanced.toml"
    path.write_text(overlay_text(found, result))
    written = load_spec(str(path))
    again = odds(Game(written, 5), load_strategy(written, "uniform"), exact=True)
    assert again.sides()["liberal"] == Fraction(13, 60)
    assert "a Liberal win with 21.67% under the strategy profile 'uniform'" in path.read_text()


def test_no_odds_for_the_rules_own_game_exits_3() -> None:
    result = CliRunner().invoke(main, ["rebalance", "-n", "5", "--time-limit", "0.2", "--json"])
    assert result.exit_code == 3, result.output
    data = json.loads(result.stdout)
    assert data["best"]["dropped"].startswith("time limit") and len(data["evaluated"]) == 1
    # Not on a terminal: each candidate is a line on stderr as it is evaluated.
    assert "… candidate 1: " in result.stderr and "dropped (time limit" in result.stderr


def test_a_profile_reading_a_hidden_field_is_refused(tmp_path: Path) -> None:
    profile = tmp_path / "peeker.toml"
    profile.write_text('name = "peeker"\ndescription = "reads the pile"\n[moves.enact]\nweight = "draw_fascist + 1"\n')
    result = CliRunner().invoke(main, ["rebalance", "-n", "5", "--strategy", str(profile), "--time-limit", "0.2"])
    assert result.exit_code == 2 and "'draw_fascist'" in result.output, result.output


def test_a_candidate_past_the_memory_limit_is_dropped_with_why() -> None:
    result = CliRunner().invoke(main, ["rebalance", "-n", "5", "--memory-limit", "64", "--json"])
    assert result.exit_code == 3, result.output
    data = json.loads(result.stdout)
    assert data["best"]["dropped"].startswith("memory limit: 64 MiB"), data["best"]
