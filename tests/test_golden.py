"""Golden files: the readable text of fixed games and of a few rulings, compared line for
line with tests/golden/*.txt, so any change to what a player or a judge reads shows up
as a diff in review.

When a change of the text is intended, rewrite the files deliberately and review the diff:

    SHRULES_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q tests/test_golden.py

Seconds vary from run to run; they are written as `<seconds> s` before comparing.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from verify.cli import main

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("SHRULES_UPDATE_GOLDEN") == "1"

CASES: dict[str, list[str]] = {
    # fixed games: random play is the same move for move for the same seed
    "play-5-players-seed-1": ["play", "--players", "5", "--seed", "1"],
    "play-5-players-seed-2": ["play", "--players", "5", "--seed", "2"],
    # a saved trace (a Liberal win by execution) replayed and printed
    "replay-six-players-seed-9": ["replay", "--print", str(GOLDEN / "six-players-seed-9.itf.json")],
    # rulings: from the rule text, on a move in a partial game, and with the shortest game
    "ask-four-players": ["ask", "four-players"],
    "ask-veto-by-president": ["ask", "veto-by-president"],
    "ask-term-limited-president": ["ask", "term-limited-president"],
    # an ad-hoc question: the answering move marked, the bookkeeping shown apart, Rests on
    # taken from the game
    "ask-can-first-liberal-policy": ["ask", "--can", "liberal_policies == 1", "--players", "5", "--changes"],
    # the same in German (--lang de): the record, a win by execution, a ruling with its reason
    "play-5-players-seed-1-de": ["play", "--players", "5", "--seed", "1", "--lang", "de"],
    "replay-six-players-seed-9-de": ["replay", "--print", str(GOLDEN / "six-players-seed-9.itf.json"), "--lang", "de"],
    "ask-veto-by-president-de": ["ask", "veto-by-president", "--lang", "de"],
}

SECONDS = re.compile(r"\b\d+(?:\.\d+)? s\b")


def normalised(text: str) -> str:
    return SECONDS.sub("<seconds> s", text)


@pytest.mark.parametrize("name", sorted(CASES))
def test_output_matches_its_golden_file(name: str) -> None:
    result = CliRunner().invoke(main, CASES[name])
    assert result.exit_code == 0, result.output
    text = normalised(result.stdout)
    path = GOLDEN / f"{name}.txt"
    if UPDATE:
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"no golden file {path.name}: write it with SHRULES_UPDATE_GOLDEN=1"
    expected = path.read_text(encoding="utf-8")
    assert text == expected, (f"`shrules {' '.join(CASES[name][:4])}` no longer prints {path.name}; if the change "
                              "is intended, rewrite it with SHRULES_UPDATE_GOLDEN=1 and review the diff")
