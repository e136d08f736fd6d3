"""`shrules sweep`: the custom-game space checked rule set by rule set, and its atlas.

The rule sets are those of verify/scale/sweep.py (every board of the five Fascist slots
at every count by default; `--powers`, `--vary`, `--set` and `--sample` change the
space); each is a task of verify/scale/tasks.py run by verify/scale/run.py on local
processes (`--workers`) or on a Dask cluster (`--scheduler tcp://HOST:8786`), its result
kept in the cache (`--cache DIR`), so a stopped sweep resumes and a repeated one costs
nothing. `--report DIR` writes the atlas (atlas.json, atlas.html).

Exit status: 0 every rule set decided (sound or broken: a broken custom game is a finding
of the atlas, not a failure of the run), 3 a limit left one unknown, 2 bad input.
"""

from __future__ import annotations

import time
from pathlib import Path

import click

from spec.errors import SpecError
from spec.loader import load_spec
from spec.settings import load_settings_file, parse_assignments

from ..budgets import SWEEP_SECONDS
from ..results import EXIT_LIMIT, EXIT_OK
from ..explicit.check import DEFAULT_EXPLORER, EXPLORERS
from ..scale import atlas
from ..scale.cache import Cache
from ..scale.run import Progress, TlsFiles, run_all
from ..scale.sweep import BASE, Space, custom_counts, parse_powers, parse_vary, soundness_properties, sweep_tasks
from .options import (COUNT, counts_option, max_states_option, memory_limit_option, parse_counts, progress_stream,
                      scale_options, time_limit_option, variant_options)
from .outputs import writable


@click.command("sweep")
@counts_option(help_text="Player counts, e.g. 5 or 5-7 (default: 5-10).")
@click.option("--powers", "powers_text", default=None, metavar="P,P,...",
              help="The powers each slot may hold (default: all five: none, investigate, peek, "
                   "special_election, execution).")
@click.option("--vary", "vary", multiple=True, metavar="NAME=A,B|A-B",
              help="Widen the space by a setting's values, e.g. --vary deck_fascist=10-12 (repeatable).")
@click.option("--sample", type=COUNT, default=None, help="Check an even random sample of this many rule sets.")
@click.option("--seed", type=int, default=1, show_default=True, help="The sample's seed.")
@click.option("--explorer", type=click.Choice(EXPLORERS), default=DEFAULT_EXPLORER, show_default=True,
              help="The explicit search: layers (sweep-line by the ranking over arrays), bfs "
                   "(breadth-first) or sweep (sweep-line one state at a time).")
@max_states_option(None)
@time_limit_option(SWEEP_SECONDS, "Seconds per rule set; a rule set not decided within it is unknown.")
@memory_limit_option(4_000)
@click.option("--report", "report_dir", type=click.Path(file_okay=False), default=None,
              help="Write the atlas into this folder: atlas.json and atlas.html.")
@click.option("--dry-run", is_flag=True, help="Print how many rule sets the space holds and stop.")
@scale_options
@variant_options
def sweep_command(players_text: str | None, powers_text: str | None, vary: tuple[str, ...], sample: int | None,
                  seed: int, explorer: str, max_states: int | None, time_limit: float, memory_limit: int,
                  report_dir: str | None, dry_run: bool, workers: int, scheduler: str | None, cache_dir: str | None,
                  sets: tuple[str, ...], settings_file: str | None, scheduler_security: TlsFiles | None = None) -> None:
    """Check the soundness of every custom game of the space and draw the atlas.

    Exit status: 0 every rule set decided, 3 a limit left one unknown, 2 bad input.
    """
    fixed = {**(load_settings_file(settings_file) if settings_file else {}), **parse_assignments(list(sets))}
    if "powers" in fixed:
        raise SpecError("--set powers: the sweep spans the boards; restrict the powers a slot may hold with --powers")
    if "players" in fixed:
        raise SpecError("--set players: give the player counts with --players")
    widened = parse_vary(vary)
    clash = sorted(set(fixed) & {name for name, _ in widened})
    if clash:
        raise SpecError(f"--set {clash[0]} and --vary {clash[0]}: give a setting one way")
    every = load_spec(BASE).player_counts
    counts = parse_counts(players_text, every, of="the custom game") or custom_counts()
    space = Space(tuple(counts), parse_powers(powers_text), widened, tuple(sorted(fixed.items())), sample, seed)
    if dry_run:
        chosen = len(space.rule_sets()) if sample else space.size()
        click.echo(f"{space.size():,} rule sets in the space; {chosen:,} to check")
        raise SystemExit(EXIT_OK)
    if report_dir is not None and Path(report_dir).exists() and not Path(report_dir).is_dir():
        raise SpecError(f"--report {report_dir}: not a folder")
    if report_dir is not None and Path(report_dir).is_dir():     # a planted link or FIFO: refused before the sweep
        writable(report_dir, "--report", directory=True, inside=("atlas.json", "atlas.html"))
    tasks = sweep_tasks(space, soundness_properties(), max_states=max_states, time_limit=time_limit,
                        memory_limit=memory_limit, explorer=explorer)
    cache = Cache(Path(cache_dir) if cache_dir else None)
    started = time.perf_counter()
    last: list[Progress] = []
    with click.progressbar(length=len(tasks), label="sweeping", file=progress_stream(), show_pos=True,
                           item_show_func=lambda text: text) as bar:
        log = not progress_stream().isatty()
        step = max(1, len(tasks) // 20)

        def progress(state: Progress) -> None:
            bar.update(state.done - (last[-1].done if last else 0), state.describe())
            if log and state.done > (last[-1].done if last else 0) and (state.done % step == 0
                                                                         or state.done == state.total):
                click.echo(f"sweeping: {state.describe()}", err=True)   # a log: every 5%, not every task
            last.append(state)
        results = run_all(tasks, cache, workers=workers, scheduler=scheduler, progress=progress,
                          security=scheduler_security)
    seconds = time.perf_counter() - started
    made = atlas.build(space, results)
    done = last[-1] if last else Progress(len(tasks), len(tasks), len(tasks), seconds)
    computed = done.done - done.cached
    task_seconds = sum(float(result.get("seconds", 0.0)) for result in results)
    click.echo(f"{len(tasks)} rule sets: {made['counts']['sound']} sound, {made['counts']['broken']} broken, "
               f"{made['counts']['unknown']} unknown; {made['groups']['same_behaviour']} behaviours")
    for item in made["classes"]:
        click.echo(f"  broken {', '.join(item['broken'])}: {item['rule_sets']} rule sets, e.g. {item['example']}")
    click.echo(f"{computed} computed, {done.cached} from the cache, in {seconds:.1f} s"
               + (f" ({computed / seconds:.2f} rule sets/s; {task_seconds / max(1, len(results)):.2f} s per "
                  f"rule set in its worker)" if computed else ""), err=True)
    if report_dir is not None:
        for path in atlas.write(Path(report_dir), made):
            click.echo(f"wrote {path}", err=True)
    raise SystemExit(EXIT_LIMIT if made["counts"]["unknown"] else EXIT_OK)


COMMANDS = (sweep_command,)
