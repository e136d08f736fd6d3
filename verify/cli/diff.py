"""`shrules diff A B`: the shortest game that tells two rule sets apart, and their verdicts.

Prints the game both rule sets allow up to where they part, the move or event where they
part with what each rule set says about it (legal, or illegal with the rule ID and the
reason), then per player count how far the comparison went, then every property's
verdict under A and under B side by side (verify/checker.py), the differing ones marked.
`--trace FILE` saves the distinguishing game as ITF JSON, replayable with `shrules
replay` under the rule set that allows it. Exit status: 0 nothing differs (proved for
every player count asked), 1 something differs (a game or a verdict), 2 bad input, 3
nothing found to differ but a limit left the comparison incomplete.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import click

from engine.batched import BATCH, BatchedGame, share_interval
from engine.game import Game
from spec.errors import SpecError
from spec.loader import SETTINGS_NAME, load_spec, resolve
from spec.model import Spec

from ..diff import Budget, CountResult, Difference, DiffResult, compare_verdicts, diff
from ..results import EXIT_FAILED, EXIT_LIMIT, EXIT_OK
from .options import COUNT, SECONDS, Seconds, StatusLine, parse_counts, rules_name, time_limit_option, variant_options
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
        Path(path).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
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
    why = {"shorter elsewhere": "stopped: another player count differs sooner"}.get(entry.stopped, "limit reached")
    return head + f"no difference after fewer than {entry.depth} decisions ({why}) [{work}]"


def property_lines(rows: list[tuple[str, int, str, str]]) -> list[str]:
    """The property matrix, `verdict under A / verdict under B` per player count, `!` where
    they differ, `?` where one is unknown (a limit) and the other is not."""
    counts = sorted({players for _, players, _, _ in rows})
    names = list(dict.fromkeys(name for name, _, _, _ in rows))
    def mark(va: str, vb: str) -> str:
        if va == vb:
            return ""
        return "?" if "unknown" in (va, vb) else "!"
    cells = {(name, players): f"{mark(va, vb)}{va} / {vb}" for name, players, va, vb in rows}
    width = max([len(name) for name in names] + [8])
    column = max([len(text) for text in cells.values()] + [9]) + 2
    lines = ["property".ljust(width) + "".join(f"{n} players".rjust(column) for n in counts)]
    for name in names:
        lines.append(name.ljust(width) + "".join(cells.get((name, n), "-").rjust(column) for n in counts))
    return lines


def result_json(result: DiffResult, rows: list[tuple[str, int, str, str]] | None) -> dict[str, Any]:
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
        out["properties"] = [{"property": name, "players": players, "a": va, "b": vb,
                              "differs": va != vb and "unknown" not in (va, vb)}
                             for name, players, va, vb in rows]
    return out


def balance(a: Spec, b: Spec, counts: list[int], games: int, seed: int) -> list[dict[str, Any]]:
    """Per player count, `games` batched random games under each rule set: each side's
    share of wins under A and under B, their difference and its 95% interval. A balance
    is a matter of degree, not of legality: it never changes the exit status."""
    rows = []
    for players in counts:
        figures = [BatchedGame(Game(spec, players)).play(games=games, seed=seed, batch=min(games, BATCH))
                   for spec in (a, b)]
        played = [f.games + f.deadlocks + f.unfinished for f in figures]
        sides = sorted({winner for f in figures for winner, _ in f.outcomes if winner is not None})
        for side in sides:
            share = [sum(count for (winner, _), count in f.outcomes.items() if winner == side) / n
                     for f, n in zip(figures, played)]
            half = math.hypot(*(share_interval(p, n) for p, n in zip(share, played)))
            rows.append({"players": players, "side": side, "a": share[0], "b": share[1],
                         "difference": share[1] - share[0], "interval": half,
                         "differs": abs(share[1] - share[0]) > half, "games": games})
    return rows


def balance_lines(rows: list[dict[str, Any]], a: Spec, b: Spec) -> list[str]:
    """The balance table: a row per count and side, `*` where the shares differ beyond
    their 95% interval."""
    lines = [f"Balance ({rows[0]['games']:,} random games per rule set and count; * where B differs from A "
             f"beyond the 95% interval):"]
    for row in rows:
        lines.append(f"  {row['players']} players, {row['side']} wins: {a.name} {100 * row['a']:.1f}%, "
                     f"{b.name} {100 * row['b']:.1f}% ({100 * row['difference']:+.1f} ± {100 * row['interval']:.1f})"
                     + (" *" if row["differs"] else ""))
    return lines


# ---------------------------------------------------------------------- the command


@click.command("diff")
@click.argument("rules_a")
@click.argument("rules_b")
@click.option("--players", "-n", "players_text", default=None,
              help="Player counts, e.g. 5-7 or 5,6 (default: every count both rule sets allow).")
@click.option("--max-pairs", type=COUNT, default=400_000, show_default=True,
              help="State pairs the breadth-first search may store before random play takes over.")
@time_limit_option(60.0, "Seconds of breadth-first search before random play takes over.")
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
@click.option("--property-time", type=Seconds(1.0), default=30.0, show_default=True,
              help="Seconds per player count and rule set for the property verdicts.")
@click.option("--workers", type=click.IntRange(1, 64), default=2, show_default=True,
              help="Processes for the property verdicts.")
@click.option("--balance", "balance_games", type=click.IntRange(0, 10_000_000), default=0, metavar="N",
              help="Also play N random games per player count under each rule set (batched) and compare how "
                   "often each side wins, with 95% intervals (0: not).")
@click.option("--json", "json_output", is_flag=True, help="Print the comparison as JSON.")
@variant_options
def diff_command(rules_a: str, rules_b: str, players_text: str | None, max_pairs: int, time_limit: float,
                 random_games: int, random_time: float, seed: int, odds: bool, trace_path: str | None, properties: bool,
                 property_time: float, workers: int, json_output: bool, sets: tuple[str, ...],
                 settings_file: str | None, balance_games: int = 0) -> None:
    """Compare rule sets RULES_A and RULES_B (names, paths, or NAME[setting=value; ...]).

    Finds the shortest game that is legal under one and not under the other, or whose
    outcome, forced moves, revelations or odds differ, and every property whose verdict
    differs; with --balance N, how often each side wins under each. --set and
    --settings apply to RULES_B.

    Exit status: 0 nothing differs, 1 something differs, 2 bad input, 3 a limit was hit
    before the comparison was complete.
    """
    writable(trace_path, "--trace")
    rules_b = rules_name(rules_b, sets, settings_file)
    a, b = load_spec(rules_a), load_spec(rules_b)
    both = [c for c in a.player_counts if c in b.player_counts]
    if not both:
        raise SpecError(f"{a.name} and {b.name} have no player count in common")
    parsed = parse_counts(players_text, both, of="both rule sets")
    counts = list(parsed) if parsed is not None else None
    budget = Budget(max_pairs, time_limit, random_games, random_time, seed, odds=odds)
    with StatusLine(f"telling {a.name} and {b.name} apart at {', '.join(map(str, counts or both))} players"):
        result = diff(a, b, counts, budget)     # the status line: on a terminal's stderr only
        rows = compare_verdicts(rules_a, rules_b, counts or both, property_time, workers) if properties else None
        balanced = balance(a, b, counts or both, balance_games, seed) if balance_games else []
    differing_rows = [row for row in rows or [] if row[2] != row[3] and "unknown" not in row[2:]]
    if trace_path and result.differences:
        save_trace(result.differences[0], trace_path, a, b)
    if json_output:
        out = result_json(result, rows)
        if balance_games:
            out["balance"] = balanced
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
                click.echo(f"{len(differing_rows)} verdict(s) differ.")
        if balanced:
            click.echo("")
            for line in balance_lines(balanced, a, b):
                click.echo(line)
        if trace_path and result.differences:
            click.echo(f"trace saved to {trace_path}")
    if result.differences or differing_rows:
        raise SystemExit(EXIT_FAILED)
    if result.verdict == "same" and not any(
            "unknown" in row[2:] for row in rows or []):
        raise SystemExit(EXIT_OK)
    raise SystemExit(EXIT_LIMIT)


COMMANDS = (diff_command,)
