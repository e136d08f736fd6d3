"""The solver's verdicts on a mutant's catalogue in passes (`verdicts_under` with several
caps): every property the solver decides quickly is answered before a hard one takes its
long turn, and each property's verdict is given once.

The solver itself is replaced here by a stand-in whose properties need a known number of
seconds, so the order and the caps are what is tested, not the solver's speed."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import pytest

import verify.smt.passes as smt_passes
from verify.results import Evidence, Proved, Unknown, Verdict


@dataclass(frozen=True)
class Stub:
    """What `verdicts_under` reads of a property: its name, its player counts and the
    rules it is over (none: the rules asked; spec/order.py `own_properties`)."""

    name: str
    needs: float
    players: tuple[int, ...] = (5,)
    rules: str = ""


class Backend:
    any_guide = False


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, float]]:
    """Each decision asked, with the seconds it was given; a property needing more than
    those is unknown."""
    log: list[tuple[str, float]] = []

    def decide(backend: Any, prop: Stub, limits: Any) -> Verdict:
        log.append((prop.name, limits.time_limit))
        if prop.needs <= limits.time_limit:
            return Proved(Evidence("k-induction"))
        return Unknown(Evidence("k-induction"), "out of time")
    monkeypatch.setattr(smt_passes, "new_backend", lambda *args, **kwargs: Backend())
    monkeypatch.setattr(smt_passes, "decide", decide)
    monkeypatch.setattr(smt_passes, "noting_inference", lambda backend, verdict: verdict)
    return log


def run(props: list[Stub], each: Any) -> list[tuple[str, str]]:
    stand_ins: list[Any] = list(props)   # only the name and the counts of a property are read
    no_spec: Any = None                   # nor is the spec: the backend is a stand-in too
    return [(prop.name, verdict.verdict)
            for prop, verdict in smt_passes.verdicts_under(no_spec, 5, stand_ins, 1000.0, each=each)]


PROPS = [Stub("hard", 20.0), Stub("quick", 1.0), Stub("never", 500.0), Stub("other count", 1.0, (7,)),
         Stub("also quick", 2.0)]


def test_one_cap_asks_each_property_once_in_order(asked: list[tuple[str, float]]) -> None:
    assert run(PROPS, 30.0) == [("hard", "proved"), ("quick", "proved"), ("never", "unknown"),
                                ("also quick", "proved")]
    assert asked == [("hard", 30.0), ("quick", 30.0), ("never", 30.0), ("also quick", 30.0)]


def test_passes_answer_the_quick_properties_first(asked: list[tuple[str, float]]) -> None:
    assert run(PROPS, (5.0, 30.0)) == [("quick", "proved"), ("also quick", "proved"), ("hard", "proved"),
                                       ("never", "unknown")]
    assert asked == [("hard", 5.0), ("quick", 5.0), ("never", 5.0), ("also quick", 5.0),
                     ("hard", 30.0), ("never", 30.0)]


def test_a_property_unknown_when_time_runs_out_is_still_reported(monkeypatch: pytest.MonkeyPatch,
                                                                 asked: list[tuple[str, float]]) -> None:
    """The second pass has no time left: what the first left unknown comes back unknown,
    once, never dropped and never proved."""
    clock = iter([0.0] * 5)          # the deadline, then the first pass's four looks at the clock
    monkeypatch.setattr(time, "perf_counter", lambda: next(clock, 2000.0))   # the clock smt_passes reads
    assert run(PROPS, (5.0, 30.0)) == [("quick", "proved"), ("also quick", "proved"), ("hard", "unknown"),
                                       ("never", "unknown")]
    assert [name for name, _ in asked] == ["hard", "quick", "never", "also quick"]
