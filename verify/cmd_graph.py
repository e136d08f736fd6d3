"""`shrules graph`: export the state graph, or a quotient of it, as DOT or GraphML.

The whole graph is explored with the exact reductions (verify/reductions.py), then
handed to networkx (verify/graphs.py `to_networkx`): every state, or with `--project` one
node per distinct tuple of the named fields (a quotient: the `states` attribute counts the
states merged into a node, the `count` of an edge the state edges it stands for). The
command also prints the graph facts: termination, the longest game, and whether every
state can still reach a finished game, computed with networkx on the exported graph.
"""

from __future__ import annotations

from pathlib import Path

import click

from engine.game import compiled_game
from spec.errors import SpecError, shown

from .cli import COUNT, EXIT_FAILED, EXIT_LIMIT, SECONDS
from .explore import Limits, explore
from .graphs import analyse, to_networkx
from .model import Model
from .outputs import writable
from .reductions import Reductions

MAX_EXPORT_NODES = 2_000_000
"""A networkx graph costs about a kilobyte per node: refuse to build larger ones."""


@click.command("graph")
@click.option("--players", "-n", type=click.IntRange(1, 99), required=True, help="Number of players.")
@click.option("--rules", default="standard", show_default=True, help="Rules file or variant name.")
@click.option("--project", "project_text", default=None,
              help="Comma-separated fields: export the quotient by their values (e.g. phase,fascist_policies).")
@click.option("--format", "output_format", type=click.Choice(("dot", "graphml")), default="dot", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write the graph here (default: only print the graph facts).")
@click.option("--max-states", type=COUNT, default=5_000_000, show_default=True)
@click.option("--time-limit", type=SECONDS, default=600.0, show_default=True)
@click.option("--no-symmetry", is_flag=True, help="Keep rotated copies of every state.")
def graph_command(players: int, rules: str, project_text: str | None, output_format: str, output: str | None,
                  max_states: int, time_limit: float, no_symmetry: bool) -> None:
    """Explore the whole state graph and export it (or its quotient by some fields)."""
    import networkx as nx

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
        ends = [node for node, data in exported.nodes(data=True) if data.get("phase") == "over"]
        reach = set(ends)
        for node in ends:
            reach |= nx.ancestors(exported, node)
        click.echo(f"exported graph: {exported.number_of_nodes():,} nodes, {exported.number_of_edges():,} edges; "
                   f"acyclic: {nx.is_directed_acyclic_graph(exported)}; "
                   f"every node reaches a finished game: {len(reach) == exported.number_of_nodes()}")
        if nx.is_directed_acyclic_graph(exported):
            click.echo(f"longest path (networkx): {nx.dag_longest_path_length(exported, weight='moves')} moves")
        if output:
            path = Path(output)
            if output_format == "graphml":
                nx.write_graphml(exported, path)
            else:
                write_dot(exported, path)
            click.echo(f"written to {path}")
    if not facts.terminates:
        raise SystemExit(EXIT_FAILED)


def write_dot(graph: object, path: Path) -> None:
    """A DOT file written without pydot/pygraphviz (networkx needs one of them for DOT)."""
    import networkx as nx

    assert isinstance(graph, nx.DiGraph)

    def quote(value: object) -> str:
        return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'

    with path.open("w", encoding="utf-8") as handle:
        handle.write("digraph states {\n")
        for node, data in graph.nodes(data=True):
            label = "\\n".join(f"{key}={value}" for key, value in sorted(data.items()))
            handle.write(f"  {quote(node)} [label={quote(label)}];\n")
        for source, target, data in graph.edges(data=True):
            attributes = ", ".join(f"{key}={quote(value)}" for key, value in sorted(data.items()))
            handle.write(f"  {quote(source)} -> {quote(target)} [{attributes}];\n")
        handle.write("}\n")


COMMANDS = (graph_command,)
