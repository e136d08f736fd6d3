"""`shrules check`: decide the property catalogue for every player count and summarise.

Prints a matrix property x player count (proved / refuted / witness / no-witness /
unknown, each with the size of its evidence), then the trace of every verdict that is
not as expected, readably; `--traces DIR` saves every trace as ITF JSON, `--json` prints
the results as JSON instead. Exit status: 0 every verdict as expected, 1 one is not,
3 none is wrong but a limit left one unknown, 2 bad input. The work is
`verify.checker.check`, importable for reports and other front ends.
"""

from __future__ import annotations

import io
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

import click

from spec.errors import Location, SpecError, shown

from ..budgets import CHECK_SECONDS, CROSS_CHECK_SECONDS, WALL_BACKSTOP
from ..checker import BACKENDS, check
from ..diff.mutants import run_mutants
from ..explicit.check import DEFAULT_EXPLORER, EXPLORERS, select
from ..explicit.reductions import Reductions
from ..report.records import RunInfo, exit_status
from ..results import EXIT_FAILED, EXIT_LIMIT, EXIT_OK, Limits, PropertyResult, Refuted, Unknown, Vacuous, Witnessed
from ..rules import Rules
from ..scale import atlas
from ..scale.cache import Cache
from ..scale.checks import check_on_runner
from ..scale.run import Progress, TlsFiles
from ..scale.sweep import BoardVerdict
from ..scale.trust import NotBelieved
from .options import (ReportRequest, cache_option, color_option, counts_option, json_option, max_states_option,
                      memory_limit_option, parse_counts, progress_stream, report_options, rules_name, rules_option,
                      scheduler_option, time_limit_option, use_color, variant_options, workers_option)
from .outputs import writable


def cell(result: PropertyResult) -> str:
    """One cell of the matrix: the verdict and the size of its evidence."""
    verdict = result.verdict
    mark = "" if result.as_expected in (True, None) else "!"
    if isinstance(verdict, (Refuted, Witnessed)) and verdict.trace is not None:
        size = f"{len(verdict.trace.steps)}m"
        if verdict.lower_bound is not None:
            size = f"{verdict.lower_bound}-{size}"   # a game not proved the shortest, and its bound
        if isinstance(verdict, Witnessed) and result.facts.fewest_elections is not None:
            size += f"/{result.facts.fewest_elections}e"
    elif verdict.evidence.states is not None:
        size = _short(verdict.evidence.states)
    else:
        size = ""
    return f"{mark}{verdict.verdict} {size}".strip()


PARTS = 1000
"""The progress bar's steps per player count: it moves within a count, not only between."""


class WithinCounts:
    """How far the check of each player count has come, from its progress messages: the
    layered search explores the ranking from the highest rank down to 0 ("rank 494, ..."),
    so a count is 1 - rank / first rank through its search; a count done is whole. A
    search that reports no rank (the breadth-first one, the solver) moves only when done."""

    RANK = re.compile(r"\brank (\d+)\b")

    def __init__(self) -> None:
        self.first: dict[str, int] = {}
        self.part: dict[str, float] = {}

    def heard(self, count: str, what: str) -> int:
        """The bar's position after count `count` said `what`."""
        match = self.RANK.search(what)
        if what == "done":
            self.part[count] = 1.0
        elif match is not None:
            rank = int(match.group(1))
            first = self.first.setdefault(count, max(rank, 1))
            self.part[count] = max(self.part.get(count, 0.0), min(0.99, 1 - rank / first))
        return int(sum(self.part.values()) * PARTS)


def legend(lines: list[str]) -> list[str]:
    """Below the table, what each of its abbreviations means: only those it shows."""
    table = "\n".join(lines[1:])
    out = []
    for pattern, meaning in LEGEND:
        if re.search(pattern, table):
            out.append(meaning)
    return ["", "  " + "; ".join(out) + "."] if out else []


LEGEND = ((r"\d+m\b", "m = moves of the game shown (the shortest, unless a range N-Mm: a game of M moves, the "
                      "shortest has at least N)"),
          (r"/\d+e\b", "e = elected governments in the game with the fewest"),
          (r"\d(\.\d)?k\b", "k = thousand states searched"),
          (r"\dM\b", "M = million states searched"),
          (r"(^|\s)!", "! = not as expected"))
"""The table's abbreviations and their meanings (`cell`)."""


def _short(number: int) -> str:
    if number >= 1_000_000:
        return f"{number / 1e6:.1f}M"
    if number >= 1_000:
        return f"{number / 1e3:.0f}k"
    return str(number)


CELL_COLOURS = {True: "green", False: "red", None: "yellow"}
"""A cell's colour on a terminal: as expected, not (also marked `!`), undecided."""


def matrix(results: list[PropertyResult], colour: bool = False) -> list[str]:
    """The summary table: one row per property, one column per player count; with
    `colour`, each cell green as expected, red not, yellow undecided."""
    counts = sorted({r.players for r in results})
    names = list(dict.fromkeys(r.property for r in results))
    cells = {(r.property, r.players): cell(r) for r in results}
    expected = {(r.property, r.players): r.as_expected if not isinstance(r.verdict, Unknown) else None for r in results}
    width = max([len(name) for name in names] + [8])
    column = max([len(text) for text in cells.values()] + [len(f"{n} players") for n in counts]) + 2

    def shown(key: tuple[str, int]) -> str:
        text = cells.get(key, "-").rjust(column)
        if not colour or key not in cells:
            return text
        return click.style(text, fg=CELL_COLOURS[expected[key]])
    lines = ["property".ljust(width) + "".join(f"{n} players".rjust(column) for n in counts)]
    for name in names:
        lines.append(name.ljust(width) + "".join(shown((name, n)) for n in counts))
    return lines


def as_json(results: list[PropertyResult]) -> list[dict[str, Any]]:
    """The results as JSON-ready dicts (traces as their length and elections)."""
    out = []
    for result in results:
        verdict = result.verdict
        evidence = verdict.evidence
        item: dict[str, Any] = {
            "property": result.property, "players": result.players, "kind": result.kind,
            "rules": list(result.rule_ids), "expect": result.expect, "verdict": verdict.verdict,
            "as_expected": result.as_expected,
            "evidence": {"method": evidence.method, "states": evidence.states, "transitions": evidence.transitions,
                         "depth": evidence.depth, "seconds": evidence.seconds, "note": evidence.note}}
        trace = getattr(verdict, "trace", None)
        if trace is not None:
            item["trace"] = {"moves": len(trace.steps), "elections": trace.elections()}
        if isinstance(verdict, (Refuted, Vacuous, Unknown)):
            item["message"] = verdict.reason if isinstance(verdict, Unknown) else verdict.message
        item.update(result.facts.given())
        out.append(item)
    return out


@click.command("check")
@counts_option(help_text="Player counts, e.g. 5-7 or 5,6 (default: every count of the rules).")
@click.option("--property", "-p", "names", multiple=True, help="Check only this property (repeatable).")
@rules_option("--variant", help_text="Rules file or variant name; with --set / --settings, the variant's settings.")
@click.option("--backend", type=click.Choice(BACKENDS), default="explicit", show_default=True,
              help="explicit-state search, the Z3 backend, or both: the search within a quarter of "
                   "--time-limit, then Z3 for what it left unknown and as a cross-check of the invariants it "
                   f"decided (a disagreement fails the check; a cross-check Z3 cannot settle within "
                   f"{CROSS_CHECK_SECONDS:g} s leaves the search's verdict); a count decided after a smaller one in the same "
                   "worker has Z3 first, guided by the smaller count's games, and the search for the rest.")
@click.option("--explorer", type=click.Choice(EXPLORERS), default=DEFAULT_EXPLORER, show_default=True,
              help="The explicit backend's search: layers (sweep-line by the ranking of "
                   "spec/invariants.toml, a whole rank of states at a time over arrays), bfs (breadth-first, "
                   "one state at a time, keeping every state: the reference) or sweep (sweep-line one state at "
                   "a time). The same verdicts and shortest traces; where the ranking does not fit (games "
                   "that can go round), layers sweeps breadth-first over every state taken, the others "
                   "breadth-first one state at a time.")
@click.option("--infer", is_flag=True,
              help="Z3 backend: add strengthening invariants found in played games and kept by induction "
                   "(cached per rules and player count).")
@click.option("--hints/--no-hints", default=True, show_default=True,
              help="Z3 backend: use spec/invariants.toml; --no-hints proves with inferred invariants and a "
                   "found ranking and distance alone.")
@click.option("--first-game", is_flag=True,
              help="Z3 backend: a witness need not be the shortest game; random games lead the solver to one "
                   "before its depth-by-depth search for the shortest (minutes for a witness of 50-70 moves). The "
                   "game is reported with the proved lower bound on the shortest.")
@max_states_option(None)
@time_limit_option(CHECK_SECONDS, f"Seconds of work (CPU time) of the explicit search per player "
                   f"count (with both, the search's share of them), stopped also after {WALL_BACKSTOP:g} times "
                   "as long of wall time; the Z3 backend gives each property this long of wall time.")
@memory_limit_option(8_000)
@workers_option(2, "Player counts checked in parallel processes.")
@click.option("--no-symmetry", is_flag=True, help="Do not reduce by seat rotation.")
@click.option("--no-representatives", is_flag=True, help="Try every vote, not one per count of Ja.")
@click.option("--no-cone", is_flag=True, help="Keep every field, even those no property depends on.")
@click.option("--no-fuse", is_flag=True, help="Store the states between the game's forced moves too.")
@click.option("--traces", "traces_dir", type=click.Path(file_okay=False), default=None,
              help="Save every counterexample and witness as ITF JSON in this directory.")
@json_option("Print the results as JSON.", "json_output")
@click.option("--quiet", "-q", is_flag=True, help="Print only the matrix.")
@click.option("--verbose", "-v", is_flag=True,
              help="Instead of the progress bar, a line on stderr for each step of each count (searching, the "
                   "solver, done) with the seconds since the start, on a terminal or not: a long run in a script "
                   "or a CI log shows each count's time as it ends.")
@click.option("--mutants", is_flag=True, hidden=True)     # now `shrules mutate --mistakes`: still read, with a note
@click.option("--quick", is_flag=True, hidden=True)       # now `shrules mutate --mistakes --quick`
@scheduler_option
@cache_option
@click.option("--atlas", "atlas_dir", type=click.Path(), default=None,
              help="A saved atlas (shrules sweep --report DIR): the rules' soundness verdicts are read from it "
                   "when it holds them for every count asked, and computed otherwise.")
@variant_options
@report_options
@color_option
def check_command(players_text: str | None, names: tuple[str, ...], rules: str, backend: str, explorer: str,
                  infer: bool, hints: bool, first_game: bool, max_states: int | None, time_limit: float,
                  memory_limit: int, workers: int, no_symmetry: bool,
                  no_representatives: bool, no_cone: bool, no_fuse: bool, traces_dir: str | None,
                  json_output: bool, quiet: bool, verbose: bool, mutants: bool, quick: bool, sets: tuple[str, ...],
                  settings_file: str | None, report: ReportRequest, scheduler: str | None = None,
                  cache_dir: str | None = None, atlas_dir: str | None = None,
                  scheduler_security: TlsFiles | None = None, no_color: bool = False) -> None:
    """Decide every property of the catalogue for every player count.

    Exit status: 0 every verdict as expected, 1 one is not, 3 a limit left one unknown.
    """
    if quick and not mutants:
        raise click.BadParameter("--quick is an effort of shrules mutate --mistakes", param_hint="--quick")
    if mutants:
        # The score over the hand-written mistakes is a mutation analysis, not a check of
        # these rules: it moved to `shrules mutate --mistakes`, and the old spelling still works.
        click.echo("note: check --mutants is now shrules mutate --mistakes", err=True)
        raise SystemExit(run_mutants(parse_counts(players_text, Rules.named("standard").spec.player_counts,
                                                  of="the standard rules"), workers, quick, click.echo))
    if (infer or not hints or first_game) and backend == "explicit":
        raise click.UsageError("--infer, --no-hints and --first-game are options of the Z3 backend: add --backend "
                               "smt or both")
    on_runner = scheduler is not None or cache_dir is not None
    if on_runner and (no_symmetry or no_representatives or no_cone or no_fuse):
        raise click.UsageError("--scheduler and --cache run the explicit backend with its reductions: "
                               "not with --no-* reductions")
    rules = rules_name(rules, sets, settings_file)
    report.validate(rules)
    writable(traces_dir, "--traces", directory=True)
    started = time.perf_counter()
    loaded = Rules.named(rules)                     # once, here: every room below takes the value
    spec = loaded.spec
    players = parse_counts(players_text, spec.player_counts, of=f"the {spec.name} rules")
    select(loaded, names or None)                   # an unknown --property: refused before the progress bar
    if atlas_dir is not None:
        from_atlas(loaded, tuple(players or spec.player_counts), Path(atlas_dir))
    for count in players or spec.player_counts:
        loaded.game(count)                          # a rule set that cannot be built: refused before it too
    limits = Limits(max_states, time_limit or None, memory_limit, first_game=first_game)
    reductions = Reductions(not no_symmetry, not no_representatives, not no_cone, not no_fuse)
    steps = len(players) if players else 6
    where: dict[str, str] = {}          # each player count's latest line: a bar per count in one
    inside = WithinCounts()

    def shown_where(_: object) -> str:
        return " | ".join(where[count] for count in sorted(where, key=int))
    with click.progressbar(length=steps * PARTS, label="checking", file=io.StringIO() if verbose else progress_stream(),
                           show_pos=False, show_percent=True, item_show_func=shown_where) as bar:
        def progress(message: str) -> None:
            if verbose:
                click.echo(f"  … {message} ({time.perf_counter() - started:.1f} s)", err=True)
            count, _, what = message.partition(" players: ")
            if message.endswith("done"):
                where.pop(count, None)
            elif count.isdigit():
                where[count] = f"{count}p {what}"
            if count.isdigit():
                bar.update(inside.heard(count, what) - bar.pos, message)
        if on_runner:
            def arrived(state: Progress) -> None:
                bar.update(state.done * PARTS - bar.pos)
            results = check_on_runner(loaded, players or tuple(spec.player_counts), names or None,
                                      max_states=max_states, time_limit=time_limit or None,
                                      memory_limit=memory_limit, explorer=explorer, workers=workers,
                                      scheduler=scheduler, cache=Cache(Path(cache_dir) if cache_dir else None),
                                      backend=backend, infer=infer or not hints, hints=hints, progress=arrived,
                                      security=scheduler_security)
        else:
            results = check(loaded, players, names or None, limits, reductions=reductions, backend=backend,
                            workers=workers, progress=progress, explorer=explorer, infer=infer or not hints,
                            hints=hints)
    if traces_dir:
        save_traces(results, Path(traces_dir))
    if json_output:
        click.echo(json.dumps(as_json(results), indent=1))
    else:
        table = matrix(results, use_color(no_color))
        for line in table + legend(matrix(results)):
            click.echo(line)
        if not quiet:
            for line in details(results):
                click.echo(line)
    counts = tuple(sorted({r.players for r in results}))
    run = RunInfo(rules, counts, backend, not names, time.perf_counter() - started)
    if report.report_dir is not None or report.baseline_root is not None:
        status = report.finish(results, run, echo=(lambda text: click.echo(text, err=True)) if json_output
                               else click.echo)
        raise SystemExit(status)
    raise SystemExit(exit_status(results))


def from_atlas(rules: Rules, counts: tuple[int, ...], folder: Path) -> None:
    """Answer from a saved atlas and exit, when it holds these rules (by their content hash)
    at every count and what it claims checks (verify/scale/atlas.py `believed_lines`);
    otherwise say why in one line on stderr and return, to check instead."""
    saved, untrusted = atlas.load(folder)
    entries = [atlas.look_up(saved, rules, count) for count in counts]
    if not all(entry is not None for entry in entries):
        click.echo(f"{shown(rules.name)}: not in the atlas {shown(str(folder))} for every count asked (matched by the "
                   f"rules' content, the code version and the properties' text); checking", err=True)
        return
    lines: list[str] = []
    try:
        for entry, count in zip(entries, counts):
            lines += atlas.believed_lines(entry or {}, rules, count, untrusted)
    except NotBelieved as refusal:
        click.echo(f"warning: the atlas {shown(str(folder))} is not believed for {shown(rules.name)}: {refusal.reason}; "
                   f"checking", err=True)
        return
    for line in lines:
        click.echo(line)
    verdicts = {BoardVerdict.parse(entry["verdict"]) for entry in entries if entry is not None}   # believed above
    raise SystemExit(EXIT_FAILED if BoardVerdict.BROKEN in verdicts else EXIT_LIMIT if BoardVerdict.UNKNOWN in verdicts
                     else EXIT_OK)


def details(results: list[PropertyResult]) -> list[str]:
    """The traces of unexpected verdicts, the limits hit, the fewest elections of the wins."""
    lines: list[str] = []
    for result in results:
        verdict = result.verdict
        head = f"{result.property}, {result.players} players ({', '.join(result.rule_ids)})"
        if result.as_expected is False:
            lines += ["", f"NOT AS EXPECTED: {head}: {verdict.verdict}, expected {result.expect}"]
            if isinstance(verdict, (Refuted, Vacuous)):
                lines.append(f"  {verdict.message}")
            trace = getattr(verdict, "trace", None)
            if isinstance(verdict, Vacuous) and trace is not None:
                lines.append(f"  the shortest game of the {trace.game.spec.name} rules that reaches it:")
            if trace is not None:
                lines += ["  " + line for line in trace.lines(changes=True)]
        elif isinstance(verdict, Unknown):
            lines.append(f"unknown: {head}: {verdict.reason}")
    wins = [r for r in results if r.facts.fewest_elections is not None]
    if wins:
        lines.append("")
        lines.append("fewest elected governments per win: " + "; ".join(
            f"{r.property} {r.players}p: {r.facts.fewest_elections}" for r in wins))
    longest = [r for r in results if r.facts.longest_moves is not None]
    if longest:
        lines.append("longest possible game: " + "; ".join(
            f"{r.players}p: {r.facts.longest_moves} moves, {r.facts.longest_elections} elections"
            for r in longest))
    return lines


def save_traces(results: list[PropertyResult], folder: Path) -> None:
    """Every counterexample and witness trace as `<property>-<n>p.itf.json` in `folder`
    (no link inside it followed: `Trace.save_itf`)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise SpecError(f"cannot create {folder}: {error.strerror}") from None
    for result in results:
        trace = getattr(result.verdict, "trace", None)
        if trace is not None:
            kind = ("counterexample" if isinstance(result.verdict, Refuted)
                    else f"the {trace.game.spec.name} rules' shortest game to the premise"
                    if isinstance(result.verdict, Vacuous) else "witness")
            trace.save_itf(folder / f"{result.property}-{result.players}p.itf.json",
                           f"{kind} for {result.property} ({', '.join(result.rule_ids)}), {result.players} players",
                           root=folder)


COMMANDS = (check_command,)
