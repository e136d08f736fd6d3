"""`shrules bench`: throughput of random play, of the explicit-state checker (--explore), of
judging logged games (--judge DIR) and of the mutation analysis (--mutate)."""

from __future__ import annotations

import json

import click
from click.core import ParameterSource

from engine.batched import bench_batched_play
from engine.judge import judge_benchmark
from engine.play import bench_random_play
from spec.loader import load_spec

from ..budgets import PEER_SECONDS, QUESTION_SECONDS
from ..diff.bench import bench_mutate
from ..diff.mutate import baseline_verdicts
from ..lawyer.ask import catalogue
from ..lawyer.bench import temporal, time_question
from ..report.baseline import REPOSITORY_BASELINES, baseline_path, load_baseline
from ..explicit.side_by_side import DIFFERENT, describe, side_by_side
from ..explicit.spin import SpinDirError, availability
from ..peer import PeerError, bench_peer, load_peer
from ..results import EXIT_FAILED
from ..rules import Rules
from ..scale.bench import bench_sweep, estimate
from .options import counts_option, json_option, parse_counts, time_limit_option

EXPLORER_SETS = {"all": ("layers", "bfs", "sweep"), "layers": ("layers",), "bfs": ("bfs",), "sweep": ("sweep",),
                 "both": ("bfs", "sweep")}
"""--explorer's choices: the searches each names, the headline one first."""



@click.command()
@counts_option("counts", "5,7,10", "Player counts, e.g. 5,7,10 or 5-7.")
@time_limit_option(3.0, dest="seconds",
                   help_text="CPU seconds per player count and engine (batched play then plays out the games in "
                             "flight, and counts them with their CPU time).")
@json_option("Print the figures as JSON.")
@click.option("--explore", is_flag=True,
              help="Measure the model checker instead: the complete state graph and the whole catalogue "
                   "per player count, beside SPIN run in the same session (--time-limit is then the time limit "
                   "per count, for both); exit 1 if our states projected onto SPIN's abstraction are not "
                   "SPIN's count.")
@click.option("--spin/--no-spin", "use_spin", default=True, show_default=True,
              help="With --explore: run SPIN's reference model (shared/bench/spin/run.sh) side by side when spin "
                   "and gcc are installed; otherwise show its README's figures, marked as not measured.")
@click.option("--spin-dir", metavar="DIR",
              help="With --explore: the SPIN anchor folder (default: $SHRULES_SPIN_DIR, else ../shared/bench/spin "
                   "beside the repository).")
@click.option("--catalogue/--no-catalogue", default=True, show_default=True,
              help="With --explore: also decide the whole property catalogue per player count.")
@click.option("--peer", "peer_dir", metavar="DIR",
              help="Random play beside a peer engine run in the same session: DIR is a checkout of "
                   "lphillips/SecretHitlerDiscord, driven as shared/bench/PEERS.md describes (--time-limit defaults "
                   "to 10 CPU seconds per count and engine).")
@click.option("--explorer", type=click.Choice(tuple(EXPLORER_SETS)), default="all", show_default=True,
              help="With --explore: the searches measured side by side, each in a fresh process: 'layers' (the "
                   "sweep-line search over arrays, a whole layer at once), 'bfs' (breadth-first, one state at a "
                   "time), 'sweep' (sweep-line, one state at a time), 'both' (bfs and sweep) or 'all'; the "
                   "headline figures and the catalogue are the first's.")
@click.option("--judge", "judge_dir", type=click.Path(exists=True, file_okay=False),
              help="Measure judging instead: secrethitler.io games per CPU second over this folder.")
@click.option("--mutate", is_flag=True,
              help="Measure the mutation analysis instead: its random stage (the CI gate's) on an even sample of "
                   "mutants, projected to all of them (--time-limit is the CPU time per count).")
@click.option("--sweep", is_flag=True,
              help="Measure shrules sweep instead: an even sample of boards per count (--sample) on one local "
                   "worker and on two, from an empty cache; boards per second per core, the scaling from one "
                   "worker to two, and the whole board space estimated for 64 cores (--time-limit is the time "
                   "limit per board).")
@click.option("--sample", type=click.IntRange(1), default=4, show_default=True,
              help="With --sweep: boards per player count.")
@click.option("--no-scaling", is_flag=True, help="With --sweep: one worker only.")
@click.option("--questions", is_flag=True,
              help="Measure rules questions over time instead: each temporal entry of the catalogue answered "
                   "at each player count (-n; default: the count that decides it) within --time-limit "
                   f"(default: ask's {QUESTION_SECONDS:.0f}), with its answer, how it was decided, wall and CPU seconds.")
def bench(counts: str, seconds: float, as_json: bool, explore: bool, use_spin: bool, spin_dir: str | None,
          catalogue: bool, peer_dir: str | None, judge_dir: str | None, mutate: bool = False,
          explorer: str = "all", sweep: bool = False, sample: int = 4, no_scaling: bool = False,
          questions: bool = False) -> None:
    """Measure random play: complete games per CPU second and moves per game, one game
    at a time and batched (many games moving at once as arrays).

    With --explore, the model checker; with --judge DIR, the judge of logged games; with
    --mutate, the mutation analysis; with --questions, the temporal rules questions."""
    if spin_dir is not None and not explore:
        raise click.UsageError("--spin-dir applies to --explore only")
    if peer_dir is not None and (explore or judge_dir or mutate):
        raise click.UsageError("--peer measures random play: not with --explore, --judge or --mutate")
    numbers = parse_counts(counts, load_spec("standard").player_counts, of="the standard rules") or ()
    if questions:
        context = click.get_current_context()
        bench_questions(None if context.get_parameter_source("counts") is ParameterSource.DEFAULT else numbers,
                        QUESTION_SECONDS if context.get_parameter_source("seconds") is ParameterSource.DEFAULT
                        else seconds, as_json)
        return
    if sweep:
        sweep_figures = []
        for players in numbers:
            sweep_figure = bench_sweep(players, sample, seconds, scaling=not no_scaling,
                                 echo=lambda line: click.echo(line, err=True))
            sweep_figures.append(sweep_figure)
            click.echo(json.dumps(sweep_figure.as_dict()) if as_json else sweep_figure.line())
        if not as_json:
            click.echo(estimate(sweep_figures))
        return
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
        try:
            folder, not_run = availability(use_spin, spin_dir)
        except SpinDirError as error:
            raise click.BadParameter(str(error), param_hint="--spin-dir") from None
        if not_run:
            click.echo(f"SPIN not run: {not_run}", err=True)
        differ = False
        explorers = EXPLORER_SETS[explorer]
        for players in numbers:
            pair = side_by_side(players, seconds, folder, not_run, catalogue,
                                lambda line: click.echo(line, err=True), explorers)
            differ |= pair.projection == DIFFERENT
            click.echo(json.dumps(pair.as_dict()) if as_json else describe(pair))
        if differ:
            raise SystemExit(EXIT_FAILED)
        return
    if peer_dir is not None:
        if click.get_current_context().get_parameter_source("seconds") is ParameterSource.DEFAULT:
            seconds = PEER_SECONDS
        beside_peer(peer_dir, numbers, seconds, as_json)
        return
    rows = []
    for players in numbers:
        figure = bench_random_play(players, seconds)
        batched = bench_batched_play(players, seconds)
        rows.append({"players": players, "games_per_second": round(figure.games_per_second, 1),
                     "moves_per_game": round(figure.moves_per_game, 2),
                     "choices_per_game": round(figure.choices_per_game, 2),
                     "batched_games_per_second": round(batched.games_per_second, 1),
                     "batched_moves_per_game": round(batched.moves_per_game, 2),
                     "batched_moves_handed_over": batched.handed_over})
        if not as_json:
            click.echo(f"random play, {players} players: {figure.games_per_second:,.0f} games/s one game at a time "
                       f"({figure.games} games in {figure.seconds:.1f} s CPU), "
                       f"{figure.moves_per_game:.1f} moves/game, {figure.choices_per_game:.1f} seat/table choices/game; "
                       f"batched {batched.games_per_second:,.0f} games/s ({batched.games} games in "
                       f"{batched.seconds:.1f} s CPU, {batched.moves_per_game:.1f} moves/game)")
    if as_json:
        click.echo(json.dumps(rows))


def bench_questions(numbers: tuple[int, ...] | None, seconds: float | None, as_json: bool) -> None:
    """Time each temporal catalogue entry at each count it concerns among `numbers` (None:
    the count that decides it), one line (or JSON object) per entry and count."""
    rules = Rules.named("standard")
    entries = temporal(catalogue(rules))
    width = max((len(dispute.id) for dispute in entries), default=0)
    total_wall = total_cpu = 0.0
    for dispute in entries:
        wanted = (dispute.decides or dispute.players[0],) if numbers is None else numbers
        for players in (count for count in wanted if count in dispute.players):
            figure = time_question(dispute, players, seconds, rules)
            total_wall += figure.wall
            total_cpu += figure.cpu
            click.echo(json.dumps(figure.as_dict()) if as_json else figure.line(width))
    if not as_json:
        click.echo(f"{len(entries)} temporal questions: {total_wall:.1f} s wall, {total_cpu:.1f} s CPU in all")




def beside_peer(folder: str, numbers: tuple[int, ...], seconds: float, as_json: bool) -> None:
    """Per count, shrules' random play (one game at a time, then batched) and then the
    peer's, each for `seconds` of CPU, and the ratios from this run (one after the other:
    none takes another's CPU)."""
    try:
        peer = load_peer(folder)
    except PeerError as error:
        raise click.BadParameter(str(error), param_hint="--peer") from None
    rows = []
    for players in numbers:
        click.echo(f"random play, {players} players: shrules, then the peer, {seconds:g} s CPU each", err=True)
        ours = bench_random_play(players, seconds)
        batched = bench_batched_play(players, seconds)
        theirs = bench_peer(peer, players, seconds)
        ratio = ours.games_per_second / theirs.games_per_second if theirs.games_per_second else None
        batched_ratio = batched.games_per_second / theirs.games_per_second if theirs.games_per_second else None
        rows.append({"players": players, "games_per_second": round(ours.games_per_second, 1),
                     "batched_games_per_second": round(batched.games_per_second, 1),
                     "peer_games_per_second": round(theirs.games_per_second, 1), "peer_games": theirs.games,
                     "peer_crashes": theirs.crashes, "peer_first_crash": theirs.first_crash,
                     "peer_seconds": theirs.seconds,
                     "peer_actions_per_game": round(theirs.actions_per_game, 2),
                     "ratio_to_peer": None if ratio is None else round(ratio, 2),
                     "batched_ratio_to_peer": None if batched_ratio is None else round(batched_ratio, 2)})
        if not as_json:
            played = theirs.games + theirs.crashes
            crashed = (f", {theirs.crashes} crashed ({theirs.crashes / played:.1%}, not counted; the first: "
                       f"{theirs.first_crash})" if theirs.crashes else "")
            click.echo(f"random play, {players} players: shrules {ours.games_per_second:,.0f} games/s one game at "
                       f"a time ({ours.games} games in {ours.seconds:.1f} s CPU), {batched.games_per_second:,.0f} "
                       f"batched ({batched.games} in {batched.seconds:.1f} s CPU); peer "
                       f"{theirs.games_per_second:,.0f} games/s "
                       f"({theirs.games} completed{crashed}, in {theirs.seconds:.1f} s CPU, "
                       f"{theirs.actions_per_game:.1f} actions/game); "
                       + ("the peer completed no game" if ratio is None or batched_ratio is None else
                          f"shrules / peer = {ratio:.2f}x one game at a time, {batched_ratio:.2f}x batched"))
    if as_json:
        click.echo(json.dumps(rows))


COMMANDS = (bench,)
