"""`shrules book DIR`: the dispute catalogue's answers written as a static site.

    shrules book DIR                          every entry at the count that decides it
    shrules book DIR --players 5              the formal entries at 5 players only
    shrules book DIR --ids tie-rejects,four-players --lang de

The answering is the slow part and is done as `shrules ask --all` does it (one shared
search per player count, verify/lawyer/ask.py); the pages are written by verify/book/.
Exit status: 0 every answer as expected; 1 one is not; 3 one is unknown (a limit was hit);
2 bad input (DIR is a file, an unknown entry id or language), before any answering.
Progress goes to stderr: a bar at a terminal, else a line per player count (as `ask --all`).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from spec.disputes import Dispute

from ..budgets import COUNT_SECONDS
from ..book import write_book
from ..book.writer import book_names
from ..lawyer.answers import Answer, as_expected
from ..lawyer.ask import Budget, answer_dispute, answer_many, catalogue, find
from ..results import EXIT_FAILED, EXIT_LIMIT, EXIT_OK
from ..rules import Rules
from .options import counts_option, langs_option, max_states_option, parse_counts, progress_stream, rules_option, time_limit_option
from .outputs import writable



def plan(disputes: tuple[Dispute, ...], counts: tuple[int, ...]) -> tuple[dict[int, list[Dispute]], list[Dispute]]:
    """The entries to answer grouped by the player count they are answered at (0: the
    rule-text and position entries, answered one by one), and the formal entries left
    out because they concern none of `counts`. Without `counts` a formal entry is
    answered at the count that decides it; with them, at the first of them it concerns."""
    groups: dict[int, list[Dispute]] = {}
    left_out: list[Dispute] = []
    for dispute in disputes:
        if dispute.query is None:
            groups.setdefault(0, []).append(dispute)
            continue
        if not counts:
            assert dispute.decides is not None
            groups.setdefault(dispute.decides, []).append(dispute)
            continue
        chosen = next((c for c in counts if c in dispute.players), None)
        if chosen is None:
            left_out.append(dispute)
        else:
            groups.setdefault(chosen, []).append(dispute)
    return groups, left_out


def exit_status(answers: list[Answer]) -> int:
    """1 if an answer is not as expected, else 3 if one is undecided, else 0."""
    verdicts = [as_expected(answer) for answer in answers]
    if False in verdicts:
        return EXIT_FAILED
    return EXIT_LIMIT if None in verdicts else EXIT_OK


@click.command()
@click.argument("folder", metavar="DIR", type=click.Path(file_okay=True, dir_okay=True))
@counts_option("counts", help_text="Answer the formal entries at these counts (7, 5-7, 5,6); entries "
              "that concern none of them are left out (default: each at the count that decides it).")
@click.option("--ids", help="Only these entries, by id, comma-separated (default: the whole catalogue).")
@langs_option("The languages of the pages, comma-separated; the first has the plain index.html.")
@time_limit_option(None, f"Time per player count (default {COUNT_SECONDS:.0f} s).", dest="seconds")
@max_states_option(5_000_000)
@rules_option(dest="rules_name")
@click.option("--catalogue", "catalogue_path", type=click.Path(exists=True, dir_okay=False),
              help="Another dispute catalogue (default: spec/disputes.toml).")
def book(folder: str, counts: str | None, ids: str | None, langs: tuple[str, ...], seconds: float | None, max_states: int,
         rules_name: str, catalogue_path: str | None) -> None:
    """Write the rulings book into DIR: each question, its answer, what it rests on, and
    the proof or the shortest game round by round, in English and German, with an index
    and a page per rule ID. Static pages: no server and no script are needed to read them."""
    writable(folder, "DIR", directory=True, inside=book_names(langs))
    rules = Rules.named(rules_name)     # loaded once, here: every room below takes the value
    spec = rules.spec
    players = parse_counts(counts, spec.player_counts, of=f"the {spec.name} rules") or ()
    disputes = catalogue(rules, Path(catalogue_path) if catalogue_path else None)
    if ids:
        wanted = [part.strip() for part in ids.split(",") if part.strip()]
        disputes = tuple(dict.fromkeys(find(disputes, ident) for ident in wanted))
    groups, left_out = plan(disputes, players)
    for dispute in left_out:
        click.echo(f"  … left out: {dispute.id} (concerns {', '.join(map(str, dispute.players))} players)", err=True)
    budget = Budget(max_states, seconds if seconds is not None else COUNT_SECONDS)
    answers: dict[str, Answer] = {}
    started = time.perf_counter()
    total = sum(len(group) for group in groups.values())
    with click.progressbar(length=total, label="answering", file=progress_stream(),
                           item_show_func=lambda item: item) as bar:
        for count in sorted(groups):
            group = tuple(groups[count])
            begun = time.perf_counter()
            if count:
                bar.update(0, f"{len(group)} at {count} players")
                answers.update(answer_many(group, count, budget, rules=rules))
                bar.update(len(group))
            else:
                for dispute in group:
                    bar.update(0, dispute.id)
                    answers[dispute.id] = answer_dispute(dispute, budget, rules=rules)
                    bar.update(1)
            if not sys.stderr.isatty():     # no bar in a log: a line per player count instead
                where = f" at {count} players" if count else " (rule text and positions)"
                click.echo(f"  … {len(group)} questions{where}: {time.perf_counter() - begun:.1f} s", err=True)
    ordered = [answers[d.id] for d in disputes if d.id in answers]
    written = write_book(ordered, Path(folder), langs)
    click.echo(f"{len(ordered)} questions, {len(written)} pages written to {folder} "
               f"({time.perf_counter() - started:.1f} s); open {Path(folder) / 'index.html'}")
    sys.exit(exit_status(ordered))


COMMANDS = (book,)
