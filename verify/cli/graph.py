"""`shrules graph`: export the state graph, or a quotient of it, as DOT or GraphML.

The whole graph is explored with the exact reductions (verify/explicit/reductions.py),
then handed to networkx (verify/explicit/graphs.py `to_networkx`): every state, or with
`--project` one node per distinct tuple of the named fields (a quotient: the `states`
attribute counts the states merged into a node, the `count` of an edge the state edges it
stands for). The command also prints the graph facts: termination, the longest game, and
whether every state can still reach a finished game, computed again with networkx on the
exported graph (`export_facts`).
"""

from __future__ import annotations

from pathlib import Path

import click

from engine.game import compiled_game
from spec.errors import SpecError, shown

from ..explicit.explore import explore
from ..explicit.graphs import analyse, export_facts, to_networkx, write_export
from ..explicit.model import Model
from ..explicit.reductions import Reductions
from ..budgets import WALL_BACKSTOP
from ..results import EXIT_FAILED, EXIT_LIMIT, Limits
from .options import max_states_option, players_option, rules_option, time_limit_option
from .outputs import writable

MAX_EXPORT_NODES = 2_000_000
"""A networkx graph costs about a kilobyte per node: refuse to build larger ones."""


@click.command("graph")
@players_option(None, required=True)
@rules_option()
@click.option("--project", "project_text", default=None,
              help="Comma-separated fields: export the quotient by their values (e.g. phase,fascist_policies).")
@click.option("--format", "output_format", type=click.Choice(("dot", "graphml")), default="dot", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write the graph here (default: only print the graph facts).")
@max_states_option(5_000_000)
@time_limit_option(600.0, f"Seconds of work (CPU time) of search, stopped also after {WALL_BACKSTOP:g} times "
                   "as long of wall time.")
@click.option("--no-symmetry", is_flag=True, help="Keep rotated copies of every state.")
def graph_command(players: int, rules: str, project_text: str | None, output_format: str, output: str | None,
                  max_states: int, time_limit: float, no_symmetry: bool) -> None:
    """Explore the whole state graph and export it (or its quotient by some fields)."""
    writable(output, "--output")
    game = compiled_game(players, rules)
    project = tuple(part.strip() for part in project_text.split(",")) if project_text else None
    if project:
        unknown = [name for name in project if name not in game.field_names]
        if unknown:
            raise SpecError(f"--project: no state field {shown(unknown[0])}; fields are {', '.join(game.field_names)}")
    keep = frozenset(project or ()) | (frozenset() if project else frozenset(game.field_names))
    model = Model(game, (), Reductions(symmetry=not no_symmetry), keep=keep)
    exploration = explore(model, (), Limits(max_states=max_states, time_limit=time_limit or None),
                          record_edges=True)
    if not exploration.complete or exploration.graph is None:
        click.echo(f"incomplete: {exploration.limit} after {exploration.states:,} states")
        raise SystemExit(EXIT_LIMIT)
    facts = analyse(exploration.graph)
    click.echo(f"{players} players, {game.spec.name} rules ({model.plan.describe(game.spec)}): "
               f"{facts.states:,} states, {facts.edges:,} edges, {exploration.seconds:.1f} s")
    click.echo(f"acyclic: {facts.acyclic}; deadlocks: {facts.deadlocks}; states that cannot reach the end: "
               f"{facts.stuck}; terminates: {facts.terminates}")
    if facts.longest_moves is not None:
        click.echo(f"longest game: {facts.longest_moves} moves, {facts.longest_elections} elected governments")
    if output or project:
        if project is None and facts.states > MAX_EXPORT_NODES:
            raise SpecError(f"{facts.states:,} states are too many to export; use --project FIELDS")
        exported = to_networkx(exploration, project)
        seen = export_facts(exported)
        click.echo(f"exported graph: {seen.nodes:,} nodes, {seen.edges:,} edges; acyclic: {seen.acyclic}; "
                   f"every node reaches a finished game: {seen.all_reach_end}")
        if seen.longest_moves is not None:
            click.echo(f"longest path (networkx): {seen.longest_moves} moves")
        if output:
            path = Path(output)
            write_export(exported, path, output_format)
            click.echo(f"written to {path}")
    if not facts.terminates:
        raise SystemExit(EXIT_FAILED)


COMMANDS = (graph_command,)
