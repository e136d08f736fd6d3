"""`shrules diff A B`: the shortest game that tells two rule sets apart, and their verdicts.

Prints the game both rule sets allow up to where they part, the move or event where they
part with what each rule set says about it (legal, or illegal with the rule ID and the
reason), then per player count how far the comparison went, then every property's
verdict under A and under B side by side (verify/checker.py): the properties whose
verdict changes first, soundness before conformance, each changed verdict with the game
behind it (a game that need not end with its cycle), and a summary that counts a row a
limit left undecided as unknown, never as the same, and names the limit to raise.
`--trace FILE` saves the distinguishing game as ITF JSON, replayable with `shrules
replay` under the rule set that allows it. Exit status: 0 nothing differs (proved for
every player count asked), 1 something differs (a game or a verdict), 2 bad input, 3
nothing found to differ but a limit left the comparison incomplete.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from spec.errors import SpecError
from spec.files import write_named
from spec.loader import SETTINGS_NAME, load_spec, resolve
from spec.model import Spec

from spec.strategies import shipped

from ..budgets import ODDS_MEMORY_MIB, ODDS_SECONDS
from ..diff import balance
from ..explicit.odds import EXACT_UP_TO
from ..diff import Budget, CountResult, Difference, DiffResult, VerdictRow, compare_verdicts, diff
from ..results import EXIT_FAILED, EXIT_LIMIT, EXIT_OK, Unknown, Vacuous
from .options import (COUNT, SECONDS, Seconds, StatusLine, counts_option, json_option, parse_counts, rules_name,
                      time_limit_option, variant_options, workers_option)
from .outputs import writable


def replayable_name(spec: Spec) -> str:
    """A name `load_spec` finds this rule set by again (for a saved trace's #meta.source)."""
    if SETTINGS_NAME.match(spec.name):
        return spec.name
    try:
        if resolve(spec.name).resolve() == Path(spec.source).resolve():
            return spec.name
    except SpecError:
        pass
    return spec.source


def save_trace(difference: Difference, path: str, a: Spec, b: Spec) -> None:
    """The distinguishing game as ITF JSON, under the rule set that allows all of it."""
    trace = difference.legal_trace
    other = b if trace.game.spec is a else a
    parting = difference.parting
    description = (f"{difference.players} players: {parting.kind} difference between {a.name} and {b.name}: "
                   f"{parting.says}; under {other.name}: "
                   f"{parting.under_b if other is b else parting.under_a}")
    data = trace.to_itf(description)
    data["#meta"]["source"] = replayable_name(trace.game.spec)
    try:
        write_named(path, json.dumps(data, indent=1) + "\n")   # never through a link (spec/files.py)
    except OSError as error:
        raise SpecError(f"cannot write {path}: {error.strerror}") from None


# ---------------------------------------------------------------------- printing


def difference_lines(difference: Difference, a: Spec, b: Spec) -> list[str]:
    """The distinguishing game and where the rule sets part, readably."""
    parting = difference.parting
    how = ("the shortest such game: no difference shows after fewer decisions" if difference.shortest
           else f"found by random play, so perhaps not the shortest; no difference shows after fewer than "
                f"{difference.searched} decisions")
    lines = [f"The rule sets part ways at {difference.players} players after {difference.decisions} decisions "
             f"({how}):", ""]
    lines += ["  " + line for line in difference.common_trace().lines(changes=False)]
    width = max(len(a.name), len(b.name)) + 1
    kind = {"legality": "a move one allows and the other does not", "outcome": "a different outcome",
            "forced": "the game's own moves differ", "reveal": "a move shows something different",
            "odds": "the same chance outcomes with different odds"}[parting.kind]
    lines += ["", f"  Here they part ({kind}; {', '.join(parting.rule_ids)}):", f"    {parting.says}",
              f"      {(a.name + ':').ljust(width)} {parting.under_a}",
              f"      {(b.name + ':').ljust(width)} {parting.under_b}"]
    if difference.state_change:
        lines.append(f"  The fields both rule sets have first differ {difference.state_change}.")
    return lines


def count_line(entry: CountResult) -> str:
    """One player count: the verdict and how far the comparison went."""
    head = f"  {entry.players} players: "
    if entry.note and entry.verdict == "same":
        return head + f"the same ({entry.note})"
    if entry.note:
        return head + entry.note
    work = f"{entry.pairs:,} state pairs, {entry.seconds:.1f} s"
    if entry.random_games:
        work += f", {entry.random_games:,} random games"
    if entry.reductions:
        work += f"; {entry.reductions}"
    if entry.difference is not None:
        d = entry.difference
        return head + f"differ after {d.decisions} decisions ({d.parting.kind}, {', '.join(d.parting.rule_ids)}) [{work}]"
    if entry.complete:
        return head + f"the same: every reachable pair of states compared [{work}]"
    why = {"shorter elsewhere": "stopped: another player count differs sooner"}.get(
        entry.stopped, "limit reached: raise --time-limit, --max-pairs or --random-games")
    return head + f"no difference after fewer than {entry.depth} decisions ({why}) [{work}]"


def property_lines(rows: list[VerdictRow]) -> list[str]:
    """The property matrix, `verdict under A / verdict under B` per player count, `!` where
    they differ, `?` where a limit left one unknown; in the rows' order (what changes
    first)."""
    counts = sorted({row.players for row in rows})
    names = list(dict.fromkeys(row.property for row in rows))

    def mark(row: VerdictRow) -> str:
        return "?" if row.undecided else "!" if row.changed else ""
    cells = {(row.property, row.players): f"{mark(row)}{row.under_a} / {row.under_b}" for row in rows}
    width = max([len(name) for name in names] + [8])
    column = max([len(text) for text in cells.values()] + [9]) + 2
    lines = ["property".ljust(width) + "".join(f"{n} players".rjust(column) for n in counts)]
    for name in names:
        lines.append(name.ljust(width) + "".join(cells.get((name, n), "-").rjust(column) for n in counts))
    return lines


SHOWN_MOVES = 8
"""The last moves of a changed verdict's game that `diff` prints (a cycle is shown whole)."""


def change_lines(rows: list[VerdictRow]) -> list[str]:
    """The verdicts that change, soundness first: `name, N players: A → B`, what the
    checker said, and the game behind it: the cycle of a game that need not end, whole;
    else the end of the counterexample or witness (`shrules check -p NAME` prints it all)."""
    lines: list[str] = []
    for row in rows:
        if not row.changed:
            continue
        lines.append(f"  {row.property} ({row.group}), {row.players} players: {row.under_a} → {row.under_b}")
        shown = row.evidence
        if shown is None:
            continue
        verdict = shown.verdict
        message = str(getattr(verdict, "message", "") or "")
        side = "A" if shown is row.a else "B"
        if message:
            lines.append(f"    under {side}: {message}")
        trace = getattr(verdict, "trace")
        cycle = shown.facts.cycle_moves
        first = len(trace.steps) - (cycle if isinstance(cycle, int) else min(SHOWN_MOVES, len(trace.steps)))
        what = ("the cycle, after which the game is where it was" if isinstance(cycle, int)
                else f"the last {len(trace.steps) - first} of its {len(trace.steps)} moves")
        if isinstance(verdict, Vacuous):       # the game is the standard rules', to the premise B never reaches
            what = f"the {trace.game.spec.name} rules reach it: {what}"
        lines.append(f"    under {side}, {what}:")
        lines += ["      " + text for text in _rows_from(trace, first)]
    return lines


def _rows_from(trace: Any, first: int) -> list[str]:
    """A trace's printed lines from step `first` on, with the heading of the round it is in."""
    rows = trace.rows(changes=False)
    at = next((i for i, row in enumerate(rows) if row.step is not None and row.step >= first), len(rows))
    heading = next((i for i in range(at - 1, -1, -1) if rows[i].kind == "round"), at)
    return [row.text for row in rows[heading:]]


def summary_line(rows: list[VerdictRow], property_time: float) -> str:
    """How many verdicts differ and how many a limit left unknown, with what to raise: an
    undecided row is never counted as the same."""
    changed = sum(row.changed for row in rows)
    undecided = [row for row in rows if row.undecided]
    line = f"{changed} verdict(s) differ, {len(undecided)} unknown"
    if undecided:
        reasons = sorted({r.verdict.reason for row in undecided for r in (row.a, row.b)
                          if r is not None and isinstance(r.verdict, Unknown)})
        line += (f" (a limit was hit before a verdict: {'; '.join(reasons)}); raise --property-time "
                 f"(now {property_time:g} s per player count and rule set) to decide them")
    return line + "."


def result_json(result: DiffResult, rows: list[VerdictRow] | None) -> dict[str, Any]:
    """The comparison as a JSON-ready dict."""
    def one(entry: CountResult) -> dict[str, Any]:
        item: dict[str, Any] = {"players": entry.players, "verdict": entry.verdict, "depth": entry.depth,
                                "pairs": entry.pairs, "seconds": round(entry.seconds, 3),
                                "random_games": entry.random_games, "note": entry.note}
        if entry.difference is not None:
            d, p = entry.difference, entry.difference.parting
            item["difference"] = {
                "kind": p.kind, "decisions": d.decisions, "shortest": d.shortest, "rules": list(p.rule_ids),
                "says": p.says, "under_a": p.under_a, "under_b": p.under_b, "legal_under": p.legal_under,
                "moves": [[move.rule, list(move.args)] for move, _ in d.legal_trace.steps[:d.common]]}
        return item
    out: dict[str, Any] = {"a": result.a.name, "b": result.b.name, "verdict": result.verdict,
                           "counts": [one(entry) for entry in result.counts]}
    if rows is not None:
        out["properties"] = [{"property": row.property, "players": row.players, "class": row.group,
                              "a": row.under_a, "b": row.under_b, "differs": row.changed, "unknown": row.undecided}
                             for row in rows]
        out["unknown"] = sum(row.undecided for row in rows)
    return out


class BalanceType(click.ParamType[Any, Any]):
    """`--balance`: a number of random games, or `exact` for the odds under a profile."""

    name = "N|exact"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int | str:
        if isinstance(value, int):
            return value
        text = str(value).strip()
        if text.lower() == EXACT:
            return EXACT
        try:
            games = int(text)
        except ValueError:
            self.fail(f"expected a number of games (0 to {MAX_BALANCE_GAMES:,}) or 'exact', got {text!r}", param, ctx)
        if not 0 <= games <= MAX_BALANCE_GAMES:
            self.fail(f"{games} is not within 0 to {MAX_BALANCE_GAMES:,} games", param, ctx)
        return games


EXACT = "exact"
MAX_BALANCE_GAMES = 10_000_000


# ---------------------------------------------------------------------- the command


@click.command("diff")
@click.argument("rules_a")
@click.argument("rules_b")
@counts_option(help_text="Player counts, e.g. 5-7 or 5,6 (default: every count both rule sets allow).")
@click.option("--max-pairs", type=COUNT, default=400_000, show_default=True,
              help="State pairs the breadth-first search may store before random play takes over.")
@time_limit_option(60.0, "Seconds of work (CPU time, with a wall backstop of three times it) of breadth-first search before "
                   "random play takes over.")
@click.option("--random-games", type=click.IntRange(0), default=3_000, show_default=True,
              help="Random games per player count played in lockstep when the search ran out.")
@click.option("--random-time", type=SECONDS, default=30.0, show_default=True,
              help="Seconds of random play at most.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the random play.")
@click.option("--odds/--no-odds", default=True, show_default=True,
              help="Count the same chance outcomes with different probabilities as a difference.")
@click.option("--trace", "trace_path", type=click.Path(dir_okay=False), default=None,
              help="Save the distinguishing game as ITF JSON.")
@click.option("--properties/--no-properties", default=True, show_default=True,
              help="Compare every property's verdict under A and under B (verify/checker.py).")
@click.option("--property", "-p", "property_names", multiple=True,
              help="Compare only this property's verdicts (repeatable; default: the whole catalogue).")
@click.option("--property-time", type=Seconds(1.0), default=30.0, show_default=True,
              help="Seconds per player count and rule set for the property verdicts.")
@workers_option(2, "Processes for the property verdicts.")
@click.option("--balance", "balance_games", type=BalanceType(), default=0,
              help="Also compare how often each side wins: N random games per player count under each rule set "
                   "(batched; 95% intervals; 0: not), or 'exact': the odds of both under --strategy, side by side "
                   "with the shift (fractions up to 5 players, floats with a proved bound beyond; slow: "
                   "see shrules odds).")
@click.option("--strategy", default=None, metavar="NAME|FILE",
              help=f"The strategy profile of --balance exact: {', '.join(shipped())}, or a .toml file "
                   "(spec/STRATEGIES.md); default uniform.")
@json_option("Print the comparison as JSON.", "json_output")
@variant_options
def diff_command(rules_a: str, rules_b: str, players_text: str | None, max_pairs: int, time_limit: float,
                 random_games: int, random_time: float, seed: int, odds: bool, trace_path: str | None, properties: bool,
                 property_time: float, workers: int, json_output: bool, sets: tuple[str, ...],
                 settings_file: str | None, balance_games: int | str = 0, strategy: str | None = None,
                 property_names: tuple[str, ...] = ()) -> None:
    """Compare rule sets RULES_A and RULES_B (names, paths, or NAME[setting=value; ...]).

    Finds the shortest game that is legal under one and not under the other, or whose
    outcome, forced moves, revelations or odds differ, and every property whose verdict
    differs; with --balance N or exact, how often each side wins under each. --set and
    --settings apply to RULES_B.

    Exit status: 0 nothing differs, 1 something differs, 2 bad input, 3 a limit was hit
    before the comparison was complete.
    """
    writable(trace_path, "--trace")
    if strategy is not None and balance_games != EXACT:
        raise click.UsageError("--strategy is the profile of --balance exact: random games play uniformly")
    rules_b = rules_name(rules_b, sets, settings_file)
    a, b = load_spec(rules_a), load_spec(rules_b)
    both = [c for c in a.player_counts if c in b.player_counts]
    if not both:
        raise SpecError(f"{a.name} and {b.name} have no player count in common")
    parsed = parse_counts(players_text, both, of="both rule sets")
    counts = list(parsed) if parsed is not None else None
    budget = Budget(max_pairs, time_limit, random_games, random_time, seed, odds=odds)
    asked = counts or both
    # The time left is that of the budgets: each count's product search and random play,
    # then each rule set's catalogue per count on `workers` processes (balance games play
    # a number of games, not a time, and are not counted).
    budgeted = len(asked) * (time_limit + random_time) + (
        2 * len(asked) * property_time / max(1, workers) if properties else 0.0)
    with StatusLine(f"telling {a.name} and {b.name} apart at {', '.join(map(str, asked))} players",
                    seconds=budgeted):
        result = diff(a, b, counts, budget)     # the status line: on a terminal's stderr only
        rows = (compare_verdicts(rules_a, rules_b, counts or both, property_time, workers, property_names or None)
                if properties else None)
        sampled = (balance.sampled(a, b, asked, balance_games, seed)
                   if isinstance(balance_games, int) and balance_games else [])
        exact = (balance.exact(a, b, asked, strategy or "uniform", exact_up_to=EXACT_UP_TO, seconds=ODDS_SECONDS,
                               memory_mib=ODDS_MEMORY_MIB)
                 if balance_games == EXACT else [])
    differing_rows = [row for row in rows or [] if row.changed]
    if trace_path and result.differences:
        save_trace(result.differences[0], trace_path, a, b)
    if json_output:
        out = result_json(result, rows)
        if sampled:
            out["balance"] = sampled
        elif exact:
            out["balance"] = balance.exact_rows(exact)
        click.echo(json.dumps(out, indent=1))
    else:
        click.echo(f"A: {a.name} ({a.source})")
        click.echo(f"B: {b.name} ({b.source})")
        click.echo("")
        if result.differences:
            for line in difference_lines(result.differences[0], a, b):
                click.echo(line)
        elif result.verdict == "same":
            click.echo("No game tells the rule sets apart.")
        else:
            click.echo("No difference found within the limits.")
        click.echo("")
        click.echo("Player counts:")
        for entry in result.counts:
            click.echo(count_line(entry))
        if rows is not None:
            click.echo("")
            click.echo(f"Properties (verdict under {a.name} / under {b.name}; ! where they differ, "
                       f"? where one is unknown):")
            for line in property_lines(rows):
                click.echo("  " + line)
            if differing_rows:
                click.echo("")
                click.echo("Verdicts that change (soundness first):")
                for line in change_lines(rows):
                    click.echo(line)
            click.echo("")
            click.echo(summary_line(rows, property_time))
        if sampled or exact:
            click.echo("")
            for line in balance.sampled_lines(sampled, a, b) if sampled else balance.exact_lines(exact, a, b):
                click.echo(line)
        if trace_path and result.differences:
            click.echo(f"trace saved to {trace_path}")
    raise SystemExit(exit_status(result, rows or [], all(entry.complete for entry in exact)))


def exit_status(result: DiffResult, rows: list[VerdictRow], balanced: bool = True) -> int:
    """1 when something decided differs (a game, or a verdict decided under both), as
    `check` fails on a broken verdict whatever else is unknown; else 3 when a limit left
    a player count's comparison, a property's verdict or the exact balance undecided;
    else 0. A shift in the balance is a matter of degree and never changes the status."""
    if result.differences or any(row.changed for row in rows):
        return EXIT_FAILED
    if result.verdict != "same" or any(row.undecided for row in rows) or not balanced:
        return EXIT_LIMIT
    return EXIT_OK


COMMANDS = (diff_command,)
