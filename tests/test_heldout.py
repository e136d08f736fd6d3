"""The held-out rule bugs (tests/heldout/) are caught by the catalogue alone: under each,
some property the standard rules decide gets a different decided verdict. A bug of the
order of play, of the bookkeeping or of vacuity, written as a table really misreads the
rules, not by a mutation operator (tests/heldout/README.md). The bugs whose rule exists
at 5 players are checked there by the complete explicit search; the two that need a
Special Election or an investigation (7 players and more) in the slow suite's solver run
of `shrules check -n 7` (see the README's measurement)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from verify.explicit.check import check_players
from verify.results import Limits
from verify.rules import Rules

HELD_OUT = Path(__file__).parent / "heldout"
AT_SEVEN = ("special_vote_skipped", "investigation_records_president")
DECIDED = ("proved", "refuted", "witness", "witnessed", "unwitnessed", "vacuous")


@cache
def _verdicts(rules: str) -> dict[str, str]:
    return {raw.property: raw.verdict.verdict for raw in check_players(Rules.named(rules), 5, None, Limits(time_limit=600))}


def _bugs() -> list[str]:
    return sorted(path.stem for path in HELD_OUT.glob("*.toml") if path.stem not in AT_SEVEN)


def test_the_held_out_set_has_every_class() -> None:
    text = (HELD_OUT / "README.md").read_text()
    for name in (path.stem for path in HELD_OUT.glob("*.toml")):
        assert f"`{name}`" in text, f"{name} is not in a class of tests/heldout/README.md"
    assert len(list(HELD_OUT.glob("*.toml"))) >= 12


@pytest.mark.slow
@pytest.mark.parametrize("bug", _bugs())
def test_a_held_out_bug_is_caught_at_five_players(bug: str) -> None:
    standard = _verdicts("standard")
    under_bug = _verdicts(str(HELD_OUT / f"{bug}.toml"))
    changed = [name for name, verdict in under_bug.items()
               if standard.get(name) in DECIDED and verdict in DECIDED and verdict != standard[name]]
    assert changed, f"{bug} passes every property the standard rules decide at 5 players"
