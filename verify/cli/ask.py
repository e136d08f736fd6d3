"""`shrules ask`: rules disputes answered with the shortest game where it happens, or a proof.

    shrules ask [--list]                          the catalogue (spec/disputes.toml)
    shrules ask ID [--lang de] [--json]           one entry, answered by the checkers
    shrules ask --all                             every entry at the count that decides it
    shrules ask --players 7 --can EXPR            can this happen? (over states)
    shrules ask --never EXPR --on MOVE            does this never happen? (over moves: vote, veto, any, ...)
    shrules ask --game PARTIAL.jsonl --move MOVE  is MOVE legal in the position reached?

Exit status: 0 decided: a catalogue answer as the catalogue says, or any decided answer to
a question asked on the command line (`--can`, `--never`, `--game --move`: yes and no are
both answers, which the output and the JSON's `verdict` tell apart); 1 a catalogue answer
not as the catalogue says; 2 bad input, e.g. a mistake in EXPR, shown with a caret; 3
undecided: a search hit its limit, or the move's legality depends on hidden information.
The work is in verify/lawyer/: ask.py (deciding), position.py (positions), answers.py and
words.py (the answers and their words).
"""

from __future__ import annotations

import io
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from spec.disputes import Dispute
from spec.knowledge import uses_knows
from spec.errors import SpecError
from spec.properties import Property
from spec.moves import moves_named

from ..budgets import ALL_SECONDS, QUESTION_SECONDS, SOLVER_SECONDS, WALL_BACKSTOP
from ..lawyer.answers import NO, YES, Answer, FormalAnswer, PositionAnswer, as_expected, other_count
from ..lawyer.ask import Budget, ad_hoc, answer_dispute, answer_many, catalogue, find, rules_of
from ..lawyer.words import counts_text, listed, listing, render, solver_lines, to_json
from ..results import EXIT_FAILED, EXIT_LIMIT, EXIT_OK, Unknown
from ..rules import Rules
from ..lawyer.position import rule_position
from ..lawyer.solver import Asked, answer_of, asked_of, decide_all, every_count_decided, said
from .options import (StatusLine, color_option, coloured, counts_option, json_option, lang_option, max_states_option,
                      parse_counts, rules_option, time_limit_option, use_color, workers_option)




def _exit_code(answer: Answer) -> int:
    """A catalogue entry: 0 as the catalogue says, 1 not, 3 undecided. A question asked on
    the command line has no expected answer: 0 decided (yes or no), 3 undecided; a "no" is
    an answer, not a failure (see the module docstring). So is an entry asked only at counts
    other than the one that decides it: the catalogue's answer is for that count."""
    if answer.dispute is not None and other_count(answer) is None:
        verdict = as_expected(answer)
        return EXIT_LIMIT if verdict is None else EXIT_OK if verdict else EXIT_FAILED
    return EXIT_OK if answer.verdict in (YES, NO) else EXIT_LIMIT


def _progress(verbose: bool, status: StatusLine) -> Callable[[str], None]:
    """What the deciding says it is doing: a line each on stderr with --verbose, and the
    terminal's status line (nothing where stderr is not a terminal)."""
    def said(text: str) -> None:
        status.update(text)
        if verbose:
            click.echo(f"  … {text}", err=True)
    return said


def _asked(ident: str | None, can_text: str | None, never_text: str | None, game_file: str | None) -> str:
    """What is being decided, for the status line."""
    if can_text:
        return f"can {can_text} happen?"
    if never_text:
        return f"does {never_text} never happen?"
    if game_file:
        return f"is the move legal after {Path(game_file).name}?"
    return f"answering {ident}" if ident else "answering the catalogue"


@click.command()
@click.argument("ident", required=False, metavar="[ID]")
@counts_option("counts", help_text="Player counts: 7, 5-7 or 5,6,8 (default: those the question concerns).")
@click.option("--can", "can_text", metavar="EXPR", help="Can this happen? An expression over states (or moves with --on).")
@click.option("--never", "never_text", metavar="EXPR", help="Does this never happen? An expression over states (or moves).")
@click.option("--on", "on_rules", multiple=True, metavar="MOVE",
              help="The expression is over these moves, in the table's words (nominate, vote, draw, discard, enact, "
              "veto, investigate, peek, special election, execution, chaos) or 'any' or a rule's name: fields before "
              "the move, after_FIELD after it, parameters by name.")
@click.option("--game", "game_file", type=click.Path(exists=True, dir_okay=False),
              help="A partial game (native transcript, JSON Lines); with --move.")
@click.option("--move", "move_text", metavar="JSON", help="The next move, one line of the transcript format.")
@click.option("--all", "check_all", is_flag=True, help="Answer every catalogue entry at the player count that decides it.")
@click.option("--list", "list_only", is_flag=True, help="List the dispute catalogue (as `shrules ask` alone does).")
@lang_option("Answer in English or German, game records and reasons included (where the catalogue or a "
             "variant has no German, the English is marked as such).")
@json_option("Print the answer as JSON.")
@click.option("--changes", is_flag=True, help="Show the fields each move of a witness game changes.")
@time_limit_option(None, "Seconds of work for the whole question (default 120 s; with --all, 900 s per player count): "
                   f"CPU time, not time spent waiting for a CPU, and at most {WALL_BACKSTOP:g} times that of wall time.",
                   dest="seconds")
@click.option("--infer/--no-infer", default=True, show_default=True,
              help="Where the solver's proof from spec/invariants.toml fails, try again with strengthening invariants "
              "inferred from played games (kept between runs in $SHRULES_CACHE or ~/.cache/shrules).")
@max_states_option(5_000_000)
@rules_option(dest="rules_name")
@click.option("--catalogue", "catalogue_path", type=click.Path(exists=True, dir_okay=False),
              help="Another dispute catalogue (default: spec/disputes.toml).")
@click.option("--solver", "solver_only", is_flag=True,
              help="Decide every player count asked by the Z3 backend alone: no explicit search and no "
              "spec/invariants.toml (invariants, ranking and distance inferred); a yes at one count does not end the "
              "question, and a count left undecided makes the exit status 3. --time-limit is then per question and "
              "count (default 300 s).")
@workers_option(1, "With --solver: player counts decided in parallel processes.")
@click.option("--first-game", is_flag=True,
              help="With --solver: a yes need not come with the shortest game; random games lead the solver to one "
              "first (it is shown with the proved lower bound on the shortest).")
@click.option("--verbose", "-v", is_flag=True, help="Say on stderr what is being searched.")
@color_option
def ask(**kwargs: Any) -> None:
    """Answer a rules question: yes with the shortest game where it happens, no with a proof.

    Without arguments, list the dispute catalogue. Answers name the rule IDs of RULES.md
    they rest on; "unknown (limit)" is never presented as proved. On a terminal, a line
    on stderr says what is being decided and the time left.
    """
    no_color = kwargs.pop("no_color")
    seconds = kwargs["seconds"]
    check_all = kwargs["check_all"]
    budget = seconds if seconds is not None else ALL_SECONDS if check_all else QUESTION_SECONDS
    quiet = kwargs["list_only"] or not (kwargs["ident"] or kwargs["can_text"] or kwargs["never_text"]
                                       or kwargs["game_file"] or check_all)
    with StatusLine(_asked(kwargs["ident"], kwargs["can_text"], kwargs["never_text"], kwargs["game_file"]),
                    None if quiet or kwargs["solver_only"] else budget,
                    io.StringIO() if quiet else None) as status:
        _ask(**kwargs, status=status, colour=use_color(no_color))


def _ask(ident: str | None, counts: str | None, can_text: str | None, never_text: str | None,
        on_rules: tuple[str, ...], game_file: str | None, move_text: str | None, check_all: bool, list_only: bool,
        lang: str,
        as_json: bool, changes: bool, seconds: float | None, infer: bool, max_states: int, rules_name: str,
        catalogue_path: str | None, solver_only: bool, workers: int, first_game: bool, verbose: bool,
        status: StatusLine, colour: bool) -> None:
    """`ask` itself (see `ask`), with its status line and whether to colour the verdict."""
    modes = [name for name, given in (("ID", ident), ("--can/--never", can_text or never_text),
                                      ("--game/--move", game_file or move_text), ("--all", check_all),
                                      ("--list", list_only)) if given]
    if len(modes) > 1:
        raise click.UsageError(f"give one of {', '.join(modes)}, not several")
    if can_text and never_text:
        raise click.UsageError("give --can or --never, not both")
    if on_rules and not (can_text or never_text):
        raise click.UsageError("--on goes with --can or --never")
    if solver_only and (game_file or move_text or list_only):
        raise click.UsageError("--solver decides questions; a position or the listing needs no solver")
    if solver_only and not infer:
        raise click.UsageError("--solver proves with the invariants it infers: not with --no-infer")
    if (workers > 1 or first_game) and not solver_only:
        raise click.UsageError("--workers and --first-game go with --solver")
    budget = Budget(max_states, seconds if seconds is not None else ALL_SECONDS if check_all else QUESTION_SECONDS,
                    infer=infer)
    rules = Rules.named(rules_name)     # loaded once, here: every room below takes the value
    spec = rules.spec
    players = parse_counts(counts, spec.player_counts, of=f"the {spec.name} rules") or ()
    progress = _progress(verbose and not as_json, status)
    moves = moves_named(spec, on_rules) if on_rules else ()
    if game_file or move_text:
        if not (game_file and move_text):
            raise click.UsageError("--game and --move go together")
        answer: Answer = PositionAnswer(rule_position(game_file, move_text))
        _emit(answer, lang, as_json, changes, status, colour)
        sys.exit(_exit_code(answer))
    if can_text or never_text:
        kind, text = ("sometimes", can_text) if can_text else ("never", never_text)
        assert text is not None
        if solver_only:
            option = "--can" if can_text else "--never"
            asked = Asked(rules, kind=kind, text=text, on=moves, option=option)
            prop = asked.query()          # a mistake in EXPR is bad input here, before any worker starts
            if uses_knows(prop.state):
                raise SpecError(f"{option} expression: --solver does not decide knows(): it is decided over the "
                                "seat's beliefs; ask without --solver")
            sys.exit(_by_solver([asked], [prop], [None], players or tuple(spec.player_counts), seconds, workers,
                                rules, lang, as_json, changes, verbose, first_game=first_game))
        answer = ad_hoc(text, kind, players, moves, budget, rules=rules, option="--can" if can_text else "--never",
                        progress=progress)
        _emit(answer, lang, as_json, changes, status, colour)
        sys.exit(_exit_code(answer))
    path = Path(catalogue_path) if catalogue_path else None
    disputes = catalogue(rules, path)
    if solver_only and (check_all or ident is not None):
        chosen = disputes if check_all else (find(disputes, ident or ""),)
        formal = [d for d in chosen if d.query is not None]
        if ident is not None and formal and formal[0].query is not None and uses_knows(formal[0].query.state):
            raise SpecError(f"'{ident}' asks what a player knows, decided over the player's beliefs, not by the "
                            "solver: ask without --solver")
        formal = [d for d in formal if d.query is not None and not uses_knows(d.query.state)]
        if ident is not None and not formal:
            raise click.UsageError(f"'{ident}' is answered from the rule text or a position, not by the solver")
        if ident is not None and players and not set(players) <= set(formal[0].players):
            raise SpecError(f"'{ident}' concerns {counts_text(formal[0].players)} players, not "
                            f"{min(set(players) - set(formal[0].players))}")
        formal = [d for d in formal if not players or set(players) & set(d.players)]
        counted = players or tuple(sorted({count for d in formal for count in d.players}))
        code = _by_solver([asked_of(d, rules, path) for d in formal], [d.query for d in formal], formal,
                          counted, seconds, workers, rules, lang, as_json, changes, verbose,
                          summary=check_all, first_game=first_game)
        by_text = sum(d.query is None for d in chosen)
        if check_all and not as_json and by_text:
            click.echo(f"{by_text} entries are answered from the rule text or a position, not by the solver: "
                       f"`shrules ask --all` answers them.")
        sys.exit(code)
    if check_all:
        sys.exit(_check_all(disputes, players, budget, rules, as_json))
    if ident is None:
        if as_json:
            click.echo(json.dumps([{"id": d.id, "kind": d.kind, "answer": d.answer, "question": d.question,
                                    "question_de": d.question_de, "rules": list(d.rule_ids),
                                    "players": list(d.players)} for d in disputes], ensure_ascii=False, indent=1))
        else:
            click.echo("\n".join(listing(disputes, lang)))
            click.echo("\n" + listed(len(disputes), lang))
        return
    answer = answer_dispute(find(disputes, ident), budget, players or None, rules=rules, progress=progress)
    _emit(answer, lang, as_json, changes, status, colour)
    sys.exit(_exit_code(answer))


def _emit(answer: Answer, lang: str, as_json: bool, changes: bool, status: StatusLine, colour: bool) -> None:
    status.close()
    if as_json:
        click.echo(json.dumps(to_json(answer), ensure_ascii=False, indent=1))
        return
    text = render(answer, lang, changes)
    first, newline, rest = text.partition("\n")
    if answer.dispute is not None:                  # the question first: the verdict is its second line
        second, newline2, rest = rest.partition("\n")
        click.echo(first + newline + coloured(second, colour) + newline2 + rest)
    else:
        click.echo(coloured(first, colour) + newline + rest)


def _check_all(disputes: tuple[Dispute, ...], players: tuple[int, ...], budget: Budget, rules: Rules,
               as_json: bool) -> int:
    """Every entry at its deciding count (formal entries share one search per count), a line
    each; the exit status of the worst."""
    groups: dict[int, list[Dispute]] = {}
    for dispute in disputes:
        count = dispute.decides if dispute.query is not None and dispute.decides is not None else 0
        if players and count and count not in players:
            continue
        groups.setdefault(count, []).append(dispute)
    answers: dict[str, Answer] = {}
    for count in sorted(groups):
        started = time.perf_counter()
        group = tuple(groups[count])
        if count:
            answers.update(answer_many(group, count, budget, rules=rules))
        else:
            answers.update({d.id: answer_dispute(d, budget, rules=rules) for d in group})
        if not as_json:
            where = f" at {count} players" if count else " (rule text and positions)"
            click.echo(f"  … {len(group)} questions{where}: {time.perf_counter() - started:.1f} s", err=True)
    worst = EXIT_OK
    shown = []
    for dispute in disputes:
        answer = answers.get(dispute.id)
        if answer is None:
            continue
        code = _exit_code(answer)
        worst = EXIT_FAILED if EXIT_FAILED in (worst, code) else max(worst, code)
        shown.append(answer)
        if not as_json:
            mark = {EXIT_OK: "ok", EXIT_FAILED: "WRONG", EXIT_LIMIT: "unknown"}[code]
            where = f"{dispute.decides} players" if isinstance(answer, FormalAnswer) else dispute.kind
            click.echo(f"{mark:<7} {dispute.id:<40} answer {answer.verdict:<7} expected {dispute.answer:<3} ({where})")
    if as_json:
        click.echo(json.dumps([to_json(answer) for answer in shown], ensure_ascii=False, indent=1))
    return worst


def _formal(prop: Property | None) -> Property:
    assert prop is not None, "only formal entries are asked of the solver"
    return prop


def _by_solver(asked: list[Asked], props: Sequence[Property | None], disputes: Sequence[Dispute | None],
               counts: tuple[int, ...], seconds: float | None, workers: int, rules: Rules, lang: str,
               as_json: bool, changes: bool, verbose: bool, summary: bool = False,
               first_game: bool = False) -> int:
    """`--solver`: each question at each count by the solver alone; the worst exit status,
    a count left undecided counting as a limit (3) even where another count answered."""
    started = time.perf_counter()

    def done(count: int, spent: float) -> None:
        if verbose or not as_json:
            click.echo(f"  … {count} players decided: {spent:.1f} s since the start", err=True)

    found = decide_all(asked, counts, seconds or SOLVER_SECONDS, workers, verbose, done, first_game)
    answers = []
    for prop, results, dispute in zip(props, found, disputes):
        query = _formal(prop)
        ids = dispute.rule_ids if dispute is not None else rules_of(rules.own(query.rules).spec, query)
        answers.append(answer_of(query, results, ids, dispute, "" if dispute is not None else "fields"))
    worst = EXIT_OK
    for answer in answers:
        code = _exit_code(answer)
        if code == EXIT_OK and not every_count_decided(answer):
            code = EXIT_LIMIT
        worst = EXIT_FAILED if EXIT_FAILED in (worst, code) else max(worst, code)
    if as_json:
        shown = [to_json(answer) for answer in answers]
        click.echo(json.dumps(shown if summary else shown[0], ensure_ascii=False, indent=1))
        return worst
    if not summary:
        for answer in answers:
            click.echo(render(answer, lang, changes))
            click.echo("\n".join(solver_lines(answer, lang)))
        return worst
    checks = [r for answer in answers for r in answer.results]
    undecided = sum(isinstance(r.verdict, Unknown) for r in checks)
    for answer in answers:
        assert answer.dispute is not None
        code = _exit_code(answer)
        mark = {EXIT_OK: "ok", EXIT_FAILED: "WRONG", EXIT_LIMIT: "unknown"}[code]
        if code == EXIT_OK and not every_count_decided(answer):
            mark = "partly"
        per_count = ", ".join(f"{r.players}: {said(r)}" for r in answer.results)
        click.echo(f"{mark:<7} {answer.dispute.id:<40} answer {answer.verdict:<7} expected "
                   f"{answer.dispute.answer:<3} ({per_count})")
    click.echo(f"{len(answers)} questions, {len(checks)} player counts: {len(checks) - undecided} decided by the "
               f"solver alone, {undecided} unknown, in {time.perf_counter() - started:.1f} s")
    return worst


COMMANDS = (ask,)
