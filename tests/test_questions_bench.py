"""`shrules bench --questions`: the temporal entries of the catalogue, timed per player count.

The figures themselves are the bench's business (machines are shared and noisy); what is
tested is that every temporal entry is taken, each line says the answer, how it was
decided and what it cost, and an entry is held to its expected answer only at the count
that decides it.
"""

from __future__ import annotations

import json

from click.testing import CliRunner

from verify.cli import main
from verify.lawyer.ask import catalogue
from verify.lawyer.bench import temporal, time_question
from verify.rules import Rules

STANDARD_RULES = Rules.named("standard")

QUICK = "chaos-twice-without-government"
"""A temporal entry answered yes at 5 players in a second or two."""


def test_the_temporal_entries_are_those_with_monitored_history() -> None:
    entries = temporal(catalogue(STANDARD_RULES))
    assert len(entries) >= 10 and QUICK in {d.id for d in entries}
    assert all(d.query is not None and d.query.rules for d in entries)
    assert not any(d.query is not None and d.query.rules for d in catalogue(STANDARD_RULES) if d not in entries)


def test_one_question_is_timed_and_held_to_its_answer_where_it_is_decided() -> None:
    dispute = next(d for d in catalogue(STANDARD_RULES) if d.id == QUICK)
    figure = time_question(dispute, 5, 60.0, STANDARD_RULES)
    assert figure.answer == dispute.answer == "yes" and figure.as_expected is True
    assert figure.method == "explicit" and figure.wall > 0 and figure.cpu > 0
    data = figure.as_dict()
    assert data["id"] == QUICK and data["players"] == 5 and data["as_expected"] is True
    assert "as expected" in figure.line()


def test_the_command_line_reads_counts_and_seconds() -> None:
    # a line for each entry that concerns 5 players (a Special Election needs 7 or more);
    # a tenth of a second answers little, and what it does not is unknown, never a made-up verdict
    result = CliRunner().invoke(main, ["bench", "--questions", "-n", "5", "--seconds", "0.1", "--json"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert {line["id"] for line in lines} == {d.id for d in temporal(catalogue(STANDARD_RULES)) if 5 in d.players}
    assert all(line["answer"] in ("yes", "no", "unknown") for line in lines)
    assert all(line["as_expected"] is not False for line in lines)
