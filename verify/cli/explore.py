"""`shrules explore`: the complete state graph of each player count, and what it shows.

The graph is searched by the layered search (verify/explicit/layers.py: the sweep-line
search over arrays), which holds a few layers, not the graph, and so finishes where the
one-state-at-a-time searches cannot. Per player count it prints the counts (states,
transitions, layers, time, peak memory, the most states pending at once) and the graph
facts: whether every game ends (no deadlock, and every move lowers the ranking, which the
search checks move by move), the longest game in moves and in elected governments, and
the fewest elected governments to each outcome. A search cut short by a limit says so and
gives no fact.
"""

from __future__ import annotations

import json
from typing import Any

import click

from engine.game import Game, compiled_game
from spec.loader import load_spec

from ..explicit.layers import OUT_OF_RANGE, Layered, LayerProgress, LayeredSearch
from ..explicit.model import Model
from ..explicit.scratch import scratch
from ..budgets import WALL_BACKSTOP
from ..results import EXIT_FAILED, EXIT_LIMIT, EXIT_OK, Limits, StopReason, halted_by
from .options import (LOG_EVERY, counts_option, json_option, memory_limit_option, parse_counts, progress_stream,
                      rules_name, rules_option, time_limit_option, variant_options)

KEPT = frozenset({"winner", "how"})
"""Fields kept whatever the cone of influence drops: the outcome of a finished game."""


@click.command("explore")
@counts_option("counts", "5-10", help_text="Player counts, e.g. 5-10, 7 or 5,8.")
@rules_option()
@variant_options
@time_limit_option(3600.0, f"Seconds of work (CPU time) of search per player count, stopped "
                   f"also after {WALL_BACKSTOP:g} times as long of wall time.")
@memory_limit_option(None)
@json_option("One JSON object per player count.")
def explore_command(counts: str, rules: str, sets: tuple[str, ...], settings_file: str | None,
                    time_limit: float, memory_limit: int | None, as_json: bool) -> None:
    """The complete state graph of each player count, searched layer by layer over arrays:
    its size, whether every game ends, the longest game and the fewest elected governments
    to each outcome.

    Exit status: 0 every graph complete and every game ends; 1 a game can get stuck (a
    deadlock) or a value leaves its declared range; 3 a search hit its limit (nothing is
    claimed of its graph)."""
    name = rules_name(rules, sets, settings_file)
    numbers = parse_counts(counts, load_spec(name).player_counts, of=f"the rules '{rules}'") or ()
    stuck = cut = False
    for players in numbers:
        game = compiled_game(players, name)
        model = Model(game, keep=KEPT & frozenset(game.field_names))
        search = LayeredSearch(model)
        with click.progressbar(length=1000, label=f"{players} players", file=progress_stream(),
                               item_show_func=lambda text: text) as bar:
            shown = [0]
            logged = [0.0]
            log = not progress_stream().isatty()

            def progress(state: LayerProgress) -> None:
                done = int(state.swept * 1000)
                words = (f"{state.states:,} states, {state.states_per_second:,.0f}/s, "
                         f"{state.pending:,} pending, {state.mib:,.0f} MiB")
                bar.update(done - shown[0], words)
                shown[0] = done
                if log and state.seconds - logged[0] >= LOG_EVERY:
                    # No terminal, no bar: a line now and then, so a long run is seen to move.
                    click.echo(f"{players} players: {state.swept:.0%} of the ranking swept, {words}", err=True)
                    logged[0] = state.seconds
            # Successors waiting for their layer go to disk past PENDING_IN_MEMORY (9 and 10
            # players); the folder is under $TMPDIR and gone when the count is done.
            with scratch("shrules-explore-") as spill:
                found = search.run(Limits(time_limit=time_limit, memory_limit=memory_limit), facts=True,
                                   progress=progress, spill=spill)
        description = model.plan.describe(game.spec)
        click.echo(json.dumps(as_dict(found, game, name, description)) if as_json
                   else describe(found, game, name, description))
        broken = halted_by(found.limit) is StopReason.OUT_OF_RANGE
        cut |= not found.complete and not broken
        stuck |= broken or (found.complete and found.deadlocks > 0)
    raise SystemExit(EXIT_FAILED if stuck else EXIT_LIMIT if cut else EXIT_OK)


def outcome_name(game: Game, outcome: tuple[int, int]) -> str:
    """`liberal by policies`, from the values of `winner` and `how` (names from the spec)."""
    parts = []
    for field_name, value in zip(("winner", "how"), outcome):
        if field_name in game.field_names:
            enum = game.spec.fields[game.field_names.index(field_name)].type.enum
            members: list[str] = list(game.spec.enums.get(str(enum), ()))
            parts.append(members[value] if 0 <= value < len(members) else str(value))
    return " by ".join(parts) or "finished"


def as_dict(found: Layered, game: Game, rules: str, reductions: str) -> dict[str, Any]:
    """The figures and facts of one count, for --json."""
    out: dict[str, Any] = {
        "players": found.players, "rules": rules, "reductions": reductions, "complete": found.complete,
        "limit": found.limit or None, "states": found.states, "transitions": found.transitions,
        "layers": found.layers, "seconds": round(found.seconds, 2), "peak_mib": round(found.peak_mib, 1),
        "most_pending": found.largest_layer, "deadlocks": found.deadlocks if found.complete else None,
        "every_game_ends": (found.deadlocks == 0) if found.complete else None,
        "longest_game_moves": found.longest_moves, "longest_game_elections": found.longest_elections,
        "fewest_elections": {outcome_name(game, outcome): count
                             for outcome, count in sorted(found.fewest_elections.items())},
        "finished_states": {outcome_name(game, outcome): count for outcome, count in sorted(found.ends.items())}
        if found.complete else {},
    }
    return out


def describe(found: Layered, game: Game, rules: str, reductions: str) -> str:
    """One count's figures and facts in words."""
    rate = found.states / found.seconds if found.seconds else 0.0
    if halted_by(found.limit) is StopReason.OUT_OF_RANGE:
        state = (f"a value leaves its declared range ({found.limit.removeprefix(OUT_OF_RANGE).lstrip(': ')}): "
                 f"the rules break, and the search stopped there")
    elif found.complete:
        state = "complete"
    else:
        state = f"INCOMPLETE ({found.limit}); nothing is claimed of this graph"
    lines = [f"{found.players} players, {rules} rules ({reductions}): {state}",
             f"  {found.states:,} states, {found.transitions:,} transitions, {found.layers:,} layers in "
             f"{found.seconds:.1f} s ({rate:,.0f} states/s), peak {found.peak_mib:,.0f} MiB, "
             f"at most {found.largest_layer:,} states pending"]
    if not found.complete:
        return "\n".join(lines)
    if found.deadlocks:
        lines.append(f"  NOT every game ends: {found.deadlocks:,} states where the game is not over and no move "
                     f"is legal (deadlocks)")
    else:
        lines.append("  every game ends: no deadlock, and every move lowers the ranking (so no game loops)")
    lines.append(f"  longest game: {found.longest_moves} moves (the players', chance's and the game's own), "
                 f"{found.longest_elections} elected governments")
    if found.fewest_elections:
        lines.append("  fewest elected governments to each outcome: " + "; ".join(
            f"{outcome_name(game, outcome)} {count}" for outcome, count in sorted(found.fewest_elections.items())))
    return "\n".join(lines)


COMMANDS = (explore_command,)
