"""The explicit searches' time limit counts the work done (verify/clock.py): a search
whose process waits for the CPU, or sleeps, is not cut by it, and the wall-clock
backstop (`WALL_BACKSTOP` times the limit) still stops one that gets no CPU at all.

The clocks are replaced by fakes where a search runs, so that no test depends on how
busy the machine is; one test reads the real CPU clock across a real sleep."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from engine.game import compiled_game
from verify import clock
from verify.budgets import WALL_BACKSTOP
from verify.clock import Budget
from verify.explicit.check import check_game, select
from verify.explicit.explore import Exploration, Limits, explore
from verify.explicit.layers import Layered, layered
from verify.explicit.model import Model
from verify.results import StopReason, halted_by
from verify.rules import Rules

SMALL = "custom[start_liberal=4; start_fascist=5]"


def frozen_after_start(later: float) -> Callable[[], float]:
    """A clock that reads 0 at its first look (a budget's start) and `later` ever after."""
    looks: Iterator[float] = iter([0.0])
    return lambda: next(looks, later)


def fake(monkeypatch: pytest.MonkeyPatch, *, work: float, wall: float) -> None:
    """From the next budget on: `work` seconds of work done and `wall` seconds passed at every look."""
    monkeypatch.setattr(clock, "work_seconds", frozen_after_start(work))
    monkeypatch.setattr(clock, "wall_seconds", frozen_after_start(wall))


def test_the_backstop_is_beyond_the_limit() -> None:
    assert WALL_BACKSTOP > 1.0


@pytest.mark.parametrize("work, wall, spent", [
    (0.0, 2.9, ""),                                           # waiting, before the backstop: not cut
    (0.9, 2.9, ""),
    (1.0, 0.5, "limit: time 1 s of work"),                    # the work done, however soon
    (0.0, 3.0, "limit: time 1 s (wall backstop 3 s)"),        # no work at all: the backstop
])
def test_a_budget_is_spent_by_its_work_or_by_its_backstop(monkeypatch: pytest.MonkeyPatch, work: float,
                                                          wall: float, spent: str) -> None:
    monkeypatch.setattr(clock, "WALL_BACKSTOP", 3.0)
    fake(monkeypatch, work=work, wall=wall)
    assert Budget.started(1.0).spent() == spent


def test_no_limit_is_never_spent(monkeypatch: pytest.MonkeyPatch) -> None:
    fake(monkeypatch, work=1e9, wall=1e9)
    budget = Budget.started(None)
    assert budget.spent() == "" and budget.left() is None


@pytest.mark.parametrize("work, wall, left", [(4.0, 4.0, 6.0), (1.0, 24.0, 2.0), (11.0, 1.0, 0.0), (0.0, 31.0, 0.0)])
def test_the_time_left_for_the_next_search_keeps_both_clocks(monkeypatch: pytest.MonkeyPatch, work: float,
                                                               wall: float, left: float) -> None:
    """10 s of work, a backstop of 30 s: a search that follows gets what is left of the
    work, but no more than its own backstop (3 times it) fits in the wall time left."""
    monkeypatch.setattr(clock, "WALL_BACKSTOP", 3.0)
    fake(monkeypatch, work=work, wall=wall)
    assert Budget.started(10.0).left() == pytest.approx(left)


def test_sleeping_is_not_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real clock: a process asleep does no work, so its budget is not spent by the
    sleep (the backstop set far away); working spends it, and the stop says so."""
    monkeypatch.setattr(clock, "WALL_BACKSTOP", 1e6)
    budget = Budget.started(0.05)
    time.sleep(0.2)
    assert budget.elapsed() >= 0.2 and budget.spent() == ""
    while not budget.spent() and budget.elapsed() < 60:
        sum(range(10_000))
    assert budget.spent() == "limit: time 0.05 s of work"


@pytest.mark.parametrize("search", ["layered", "breadth-first"])
def test_a_search_waiting_for_the_cpu_is_not_cut_before_its_backstop(monkeypatch: pytest.MonkeyPatch,
                                                                      search: str) -> None:
    """Twice its limit of wall time has passed at every look, and no work was done: the
    search goes on to the end, as it would have on an idle machine."""
    monkeypatch.setattr(clock, "WALL_BACKSTOP", 3.0)
    fake(monkeypatch, work=0.0, wall=2.0)
    found = run(search, Limits(time_limit=1.0))
    assert found.complete and not found.limit


@pytest.mark.parametrize("search", ["layered", "breadth-first"])
@pytest.mark.parametrize("work, wall, reason", [(0.0, 3.0, "limit: time 1 s (wall backstop 3 s)"),
                                                (1.0, 0.0, "limit: time 1 s of work")])
def test_a_search_stops_at_its_work_or_at_its_backstop(monkeypatch: pytest.MonkeyPatch, search: str, work: float,
                                                       wall: float, reason: str) -> None:
    monkeypatch.setattr(clock, "WALL_BACKSTOP", 3.0)
    fake(monkeypatch, work=work, wall=wall)
    found = run(search, Limits(time_limit=1.0))
    assert not found.complete and found.limit == reason
    if isinstance(found, Exploration):
        assert found.stop is StopReason.TIME
    else:
        assert halted_by(found.limit) is StopReason.TIME


@pytest.mark.parametrize("work, wall, decided", [(0.0, 2.0, True), (0.0, 3.0, False), (1.0, 0.0, False)])
def test_the_searches_of_a_count_share_its_work(monkeypatch: pytest.MonkeyPatch, work: float, wall: float,
                                                decided: bool) -> None:
    """The catalogue at one count is several searches in turn (explicit/check.py), each
    given the work left: waiting (twice the limit of wall time at every look, no work)
    leaves every property decided; the backstop reached, or the work done, leaves them
    unknown, never proved."""
    monkeypatch.setattr(clock, "WALL_BACKSTOP", 3.0)
    fake(monkeypatch, work=work, wall=wall)     # the count's budget starts at 0; every later one at `work`, `wall`
    game = compiled_game(5, SMALL)
    props = tuple(p for p in select(Rules.named(SMALL)) if 5 in p.players)[:6]
    verdicts = {raw.verdict.verdict for raw in check_game(game, props, Limits(time_limit=1.0))}
    if decided:
        assert "unknown" not in verdicts
    else:
        assert verdicts == {"unknown"}


def run(search: str, limits: Limits) -> Layered | Exploration:
    """One search of the small rules at 5 players, `layered` or `breadth-first`."""
    model = Model(compiled_game(5, SMALL))
    return layered(model, limits) if search == "layered" else explore(model, (), limits)
