"""`shrules rebalance`: the custom-game settings whose odds of a Liberal win are closest to a target."""

from __future__ import annotations

import contextlib
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from spec.loader import load_spec
from spec.strategies import load_strategy, shipped

from ..budgets import ODDS_MEMORY_MIB, ODDS_SECONDS
from ..explicit.odds import Odds
from ..odds.rebalance import Candidate, Search, Space, odds_of, overlay_text, plain, search
from ..results import EXIT_FAILED, EXIT_LIMIT, EXIT_OK
from ..workers import WorkerPool
from .options import (Share, StatusLine, json_option, memory_limit_option, players_option, time_limit_option,
                      workers_option)
from .outputs import writable


@click.command()
@players_option(default=6)
@click.option("--strategy", default="partisan", show_default=True, metavar="NAME|FILE",
              help=f"The strategy profile the odds are computed under: {', '.join(shipped())}, or a .toml file "
                   "(spec/STRATEGIES.md).")
@click.option("--target", type=Share(), default=0.5, show_default=True,
              help="The probability of a Liberal win to come closest to.")
@click.option("--tolerance", type=Share(), default=0.01, show_default=True,
              help="Stop at a candidate this close to the target.")
@click.option("--max-evaluations", type=click.IntRange(1, 10_000), default=60, show_default=True,
              help="Candidates evaluated at most (each is one computation of the odds).")
@time_limit_option(ODDS_SECONDS, "Seconds for each candidate's odds; a candidate stopped by it is dropped.")
@memory_limit_option(ODDS_MEMORY_MIB, "Resident MiB for each candidate's odds; a candidate stopped by it is dropped.")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the settings found as a variant file on `custom`, its odds recomputed from the file.")
@click.option("--games", "played_games", type=click.IntRange(1, 100_000_000), default=None, metavar="N",
              help="Evaluate each candidate by N games played under the profile (odds --games) instead of its "
                   "exact odds: for counts the exact pass cannot reach (partisan at 8-10 players). A candidate is "
                   "within --tolerance only if its whole 99% interval is; the file written is checked with "
                   "other games.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="The seed of --games' games (the same for every candidate).")
@workers_option(1, "Candidates evaluated side by side, each in a worker process: a step's neighbours (up to 14) "
                  "are independent. Each worker holds one candidate's odds, within --memory-limit.")
@json_option("Print the search as JSON.")
def rebalance(players: int, strategy: str, target: float, tolerance: float, max_evaluations: int,
              time_limit: float, out_path: Path | None, as_json: bool, memory_limit: int | None = ODDS_MEMORY_MIB,
              workers: int = 1, played_games: int | None = None, seed: int = 0) -> None:
    """Search the custom-game settings for a Liberal win as close to --target as they give.

    The knobs are the ones secrethitler.io turned by hand: the deck (the Liberal and
    Fascist tiles of the whole game, R-S3), a policy enacted before the first round, and
    the board (any player count's powers, R-X7); and its custom games' Hitler zone (R-W3).
    The search walks from the rules' own settings to the neighbour whose exact odds under
    the profile (floats with a proved bound; see shrules odds), or with --games its played
    odds, are closest to the target, and lists every candidate it evaluated. It claims no
    global optimum.

    Exit status: 0 a candidate within --tolerance; 1 the walk ended without one; 2 bad
    input; 3 the rules' own game or the file written has no odds within the limits."""
    writable(str(out_path) if out_path else None, "--out")
    custom = load_spec("custom")
    load_strategy(custom, strategy)        # a profile that reads a hidden field: exit 2 now
    space = Space(custom, players)
    with StatusLine(f"rebalancing {players} players under {strategy}") as status:
        evaluated: list[Candidate] = []

        def progress(candidate: Candidate) -> None:
            evaluated.append(candidate)
            share = candidate.liberal
            status.update(f"{len(evaluated)} evaluated; last "
                          + (f"{100 * share:.1f}% Liberal" if share is not None else "dropped"))
            if not status.enabled:
                # A script or a CI log has no status line: each candidate, a line on stderr,
                # so that an hour's search is not an hour of silence.
                click.echo(f"  … candidate {len(evaluated)}: {candidate.rules()}: Liberal {_share(candidate)}",
                           err=True)

        with contextlib.ExitStack() as stack:
            pool = stack.enter_context(WorkerPool(workers)) if workers > 1 else None
            evaluate = odds_of(players, strategy, time_limit, memory_limit, played_games, seed)
            found = search(space, players, strategy, evaluate,
                           target=target, tolerance=tolerance, max_evaluations=max_evaluations, progress=progress,
                           pool=pool)
        checked = None
        best = found.best
        if out_path is not None and best is not None and best.odds is not None and best.liberal is not None:
            out_path.write_text(overlay_text(found, best.odds))
            # The odds of the file as written; played, with games of their own (not the search's again).
            checked = replace(evaluate, seed=seed + 1).of(load_spec(str(out_path)))
            if checked.complete:
                out_path.write_text(overlay_text(found, checked))
    data = as_data(found, checked, out_path)
    if as_json:
        click.echo(json.dumps(data, indent=1))
    else:
        click.echo("\n".join(lines(found, checked, out_path)))
    if found.start is None or found.start.liberal is None or (checked is not None and not checked.complete):
        raise SystemExit(EXIT_LIMIT)
    raise SystemExit(EXIT_OK if found.within else EXIT_FAILED)


def _row(candidate: Candidate) -> dict[str, Any]:
    row: dict[str, Any] = {"settings": plain(candidate.settings), "rules": candidate.rules()}
    if candidate.liberal is not None:
        assert candidate.odds is not None
        row.update({"liberal": candidate.liberal, "interval": list(candidate.interval or ()),
                    "error_bound": candidate.odds.error_bound, "states": candidate.odds.states,
                    "seconds": round(candidate.odds.seconds, 2)})
        if candidate.odds.games:
            row["games"] = candidate.odds.games
    else:
        row["dropped"] = candidate.dropped
    return row


def as_data(found: Search, checked: Odds | None, out_path: Path | None) -> dict[str, Any]:
    data: dict[str, Any] = {"players": found.players, "strategy": found.strategy, "target": found.target,
                            "tolerance": found.tolerance, "within": found.within, "stopped": found.stopped,
                            "start": None if found.start is None else _row(found.start),
                            "best": None if found.best is None else _row(found.best),
                            "evaluated": [_row(c) for c in found.evaluated]}
    if out_path is not None:
        data["written"] = {"path": str(out_path), "complete": checked is not None and checked.complete,
                           "liberal": float(checked.sides().get("liberal", 0))
                           if checked is not None and checked.complete else None}
    return data


def _share(candidate: Candidate) -> str:
    share, interval = candidate.liberal, candidate.interval
    if share is None or interval is None:
        return f"dropped ({candidate.dropped})"
    assert candidate.odds is not None
    if candidate.odds.games:
        return f"{100 * share:.2f}% (99%: {100 * interval[0]:.2f}-{100 * interval[1]:.2f}%)"
    return f"{100 * share:.2f}%"


def lines(found: Search, checked: Odds | None, out_path: Path | None) -> list[str]:
    out = [f"Rebalance at {found.players} players under '{found.strategy}': a Liberal win as close to "
           f"{100 * found.target:.1f}% as the settings give (within {100 * found.tolerance:.1f} points)"]
    if found.start is not None:
        out.append(f"  the rules' own game: Liberal {_share(found.start)}")
    for candidate in found.evaluated[1:]:
        out.append(f"  {candidate.rules()}: Liberal {_share(candidate)}")
    if found.best is not None and found.best.liberal is not None:
        verdict = "within the tolerance" if found.within else "not within the tolerance"
        out.append(f"best: {found.best.rules()}: Liberal {_share(found.best)} ({verdict}; the search ended: "
                   f"{found.stopped})")
    else:
        out.append(f"no odds: {found.stopped}")
    if out_path is not None:
        if checked is not None and checked.complete:
            again = Candidate(found.best.settings if found.best else (), checked)
            out.append(f"written to {out_path}; its odds recomputed from the file"
                       + (" (other games)" if checked.games else "") + f": Liberal {_share(again)}")
        elif checked is not None:
            out.append(f"written to {out_path}, but its odds from the file are unknown: {checked.limit}")
    return out


COMMANDS = (rebalance,)
