"""`shrules bench`: throughput of random play, of the explicit-state checker (--explore), of
judging logged games (--judge DIR) and of the mutation analysis (--mutate)."""

from __future__ import annotations

import json

import click

from engine.judge import judge_benchmark
from engine.play import bench_random_play
from spec.loader import load_spec

from ..diff.bench import bench_mutate
from ..diff.mutate import baseline_verdicts
from ..report.baseline import REPOSITORY_BASELINES, baseline_path, load_baseline
from ..explicit.bench import bench_explore, describe
from .options import SECONDS, parse_counts


@click.command()
@click.option("--players", "-n", "counts", default="5,7,10", show_default=True,
              help="Player counts, e.g. 5,7,10 or 5-7.")
@click.option("--seconds", type=SECONDS, default=3.0, show_default=True, help="CPU seconds per player count.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option("--explore", is_flag=True,
              help="Measure the model checker instead: the complete state graph and the whole catalogue "
                   "per player count, against SPIN (--seconds is then the time limit per count).")
@click.option("--explorer", type=click.Choice(("both", "bfs", "sweep")), default="both", show_default=True,
              help="With --explore: the searches measured side by side, each in a fresh process (breadth-first, "
                   "sweep-line by the ranking, or both); the catalogue is decided by the first.")
@click.option("--no-catalogue", is_flag=True, help="With --explore: the graph searches only, not the catalogue.")
@click.option("--judge", "judge_dir", type=click.Path(exists=True, file_okay=False),
              help="Measure judging instead: secrethitler.io games per CPU second over this folder.")
@click.option("--mutate", is_flag=True,
              help="Measure the mutation analysis instead: its random stage (the CI gate's) on an even sample of "
                   "mutants, projected to all of them (--seconds is the CPU time per count).")
def bench(counts: str, seconds: float, as_json: bool, explore: bool, judge_dir: str | None,
          mutate: bool = False, explorer: str = "both", no_catalogue: bool = False) -> None:
    """Measure random play: complete games per CPU second and moves per game.

    With --explore, the model checker; with --judge DIR, the judge of logged games; with
    --mutate, the mutation analysis."""
    numbers = parse_counts(counts, load_spec("standard").player_counts, of="the standard rules") or ()
    if mutate:
        standard = load_spec("standard")
        baseline = baseline_verdicts(load_baseline(baseline_path(REPOSITORY_BASELINES, "standard")) or {}, standard, numbers)
        for players in numbers:
            measured = bench_mutate(players, seconds, baseline[players]) if players in baseline else None
            if measured is None:
                click.echo(json.dumps({"players": players, "measured": False}) if as_json else
                           f"mutation analysis, {players} players: not measured (the baseline has no verdicts "
                           f"of the rules for {players} players)")
            else:
                click.echo(json.dumps(measured.as_dict()) if as_json else measured.line())
        return
    if judge_dir:
        rate = judge_benchmark(judge_dir, seconds=seconds)
        click.echo(json.dumps({"judge_games_per_second": round(rate, 1)}) if as_json
                   else f"judging secrethitler.io games: {rate:,.0f} games/s on one core")
        return
    if explore:
        explorers = ("bfs", "sweep") if explorer == "both" else (explorer,)
        for explored in (bench_explore(players, seconds, not no_catalogue, explorers=explorers) for players in numbers):
            click.echo(json.dumps(explored.as_dict()) if as_json else describe(explored))
        return
    figures = []
    for players in numbers:
        figure = bench_random_play(players, seconds)
        figures.append(figure)
        if not as_json:
            click.echo(f"random play, {players} players: {figure.games_per_second:,.0f} games/s "
                       f"({figure.games} games in {figure.seconds:.1f} s CPU), "
                       f"{figure.moves_per_game:.1f} moves/game, {figure.choices_per_game:.1f} seat/table choices/game")
    if as_json:
        click.echo(json.dumps([{"players": f.players, "games_per_second": round(f.games_per_second, 1),
                                "moves_per_game": round(f.moves_per_game, 2),
                                "choices_per_game": round(f.choices_per_game, 2)} for f in figures]))


COMMANDS = (bench,)
