"""Facts of the whole state graph: termination, the longest game, every state can still end.

These work on the arrays the explorer records (`explore(..., record_edges=True)`), not on
networkx objects: a graph of millions of states fits in arrays, not in a networkx
DiGraph. networkx is used where a graph fits (`to_networkx`, `export_facts`,
`write_export`, for the `shrules graph` command and a cross-check in the tests): export to
DOT / GraphML, quotients by a projection.

- `analyse`: Kahn's algorithm gives a topological order or proves a cycle; over that order
  a DP gives the longest game from the start, in moves and in elected governments (each
  edge stands for one decision plus its fused forced moves); a reverse search from the
  finished games finds any state that can no longer end.
- Termination holds iff the graph is acyclic and every maximal path ends in a finished
  game, i.e. acyclic and without deadlock (a finite acyclic graph has no infinite path,
  and a maximal finite path ends in a state without successors).
"""

from __future__ import annotations

import io
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from engine.game import Game
from spec.files import write_named

from .explore import Exploration, Graph

if TYPE_CHECKING:  # for the annotations only: networkx itself is imported on use
    import networkx as nx

Label: TypeAlias = "int | str"
"""A node of an export: a state's id, or a quotient's `field=value|…` text."""
Export: TypeAlias = "nx.DiGraph[Label]"
"""A graph made by `to_networkx`."""


@dataclass(frozen=True, slots=True)
class GraphFacts:
    """What `analyse` found."""

    states: int
    edges: int
    acyclic: bool
    cycle: tuple[int, ...]          # state ids of one cycle, when there is one
    deadlocks: int                  # states that are not over and have no successor
    stuck: int                      # states from which no finished game is reachable
    longest_moves: int | None       # the longest game from the start, in moves (acyclic only)
    longest_elections: int | None
    longest_path: tuple[int, ...]   # state ids of one longest game in moves

    @property
    def terminates(self) -> bool:
        """Every game ends: acyclic and no deadlock."""
        return self.acyclic and self.deadlocks == 0


def analyse(graph: Graph) -> GraphFacts:
    """Acyclicity, longest game, deadlocks and states that cannot end, from the arrays."""
    offsets, targets = graph.offsets, graph.targets
    count = len(offsets) - 1
    indegree = [0] * count
    for target in targets:
        indegree[target] += 1
    order = []
    queue = deque(i for i in range(count) if indegree[i] == 0)
    while queue:
        node = queue.popleft()
        order.append(node)
        for edge in range(offsets[node], offsets[node + 1]):
            target = targets[edge]
            indegree[target] -= 1
            if indegree[target] == 0:
                queue.append(target)
    acyclic = len(order) == count
    cycle: tuple[int, ...] = ()
    longest_moves = longest_elections = None
    longest_path: tuple[int, ...] = ()
    if acyclic:
        moves = [-1] * count
        elections = [-1] * count
        best_parent = [-1] * count
        moves[0] = elections[0] = 0
        edge_moves, edge_elections = graph.moves, graph.elections
        for node in order:
            if moves[node] < 0:
                continue
            here_moves, here_elections = moves[node], elections[node]
            for edge in range(offsets[node], offsets[node + 1]):
                target = targets[edge]
                if here_moves + edge_moves[edge] > moves[target]:
                    moves[target] = here_moves + edge_moves[edge]
                    best_parent[target] = node
                if here_elections + edge_elections[edge] > elections[target]:
                    elections[target] = here_elections + edge_elections[edge]
        longest_moves = max(moves)
        longest_elections = max(elections)
        end = moves.index(longest_moves)
        path = [end]
        while best_parent[path[-1]] >= 0:
            path.append(best_parent[path[-1]])
        longest_path = tuple(reversed(path))
    else:
        cycle = _find_cycle(graph, indegree)
    deadlocks = sum(1 for node in range(count) if offsets[node] == offsets[node + 1] and not graph.over[node])
    stuck = _cannot_end(graph)
    return GraphFacts(count, len(targets), acyclic, cycle, deadlocks, stuck, longest_moves,
                      longest_elections, longest_path)


def _find_cycle(graph: Graph, indegree: list[int]) -> tuple[int, ...]:
    """One cycle among the states Kahn's algorithm could not order (indegree left > 0):
    each of them has a predecessor among them, so walking predecessors must repeat."""
    offsets, targets = graph.offsets, graph.targets
    remaining = {node for node, degree in enumerate(indegree) if degree > 0}
    predecessor: dict[int, int] = {}
    for node in remaining:
        for edge in range(offsets[node], offsets[node + 1]):
            if targets[edge] in remaining:
                predecessor.setdefault(targets[edge], node)
    node = min(remaining)
    seen: dict[int, int] = {}
    walk: list[int] = []
    while node not in seen:
        seen[node] = len(walk)
        walk.append(node)
        node = predecessor[node]
    cycle = walk[seen[node]:]
    cycle.reverse()
    return tuple(cycle)


def _cannot_end(graph: Graph) -> int:
    """How many states cannot reach a finished game."""
    offsets, targets = graph.offsets, graph.targets
    count = len(offsets) - 1
    reverse_offsets = [0] * (count + 1)
    for target in targets:
        reverse_offsets[target + 1] += 1
    for node in range(count):
        reverse_offsets[node + 1] += reverse_offsets[node]
    fill = reverse_offsets[:-1]
    sources = [0] * len(targets)
    for node in range(count):
        for edge in range(offsets[node], offsets[node + 1]):
            target = targets[edge]
            sources[fill[target]] = node
            fill[target] += 1
    can_end = bytearray(count)
    queue = deque(node for node in range(count) if graph.over[node])
    for node in queue:
        can_end[node] = 1
    while queue:
        node = queue.popleft()
        for index in range(reverse_offsets[node], reverse_offsets[node + 1]):
            source = sources[index]
            if not can_end[source]:
                can_end[source] = 1
                queue.append(source)
    return count - sum(can_end)


def to_networkx(exploration: Exploration, project: tuple[str, ...] | None = None) -> Export:
    """The explored graph as a networkx DiGraph; with `project`, its quotient by those
    fields (one node per distinct tuple of their values, an edge where any state edge is).
    Node attributes are the readable field values; edges carry the moves they stand for."""
    # Imported on use, not at the top: every check imports this module for `analyse`,
    # and networkx takes most of a second to import.
    import networkx as nx

    graph = exploration.graph
    if graph is None:
        raise ValueError("the exploration recorded no edges or was incomplete")
    model = exploration.model
    game = model.game
    decode = model.codec.decode
    fields = game.spec.fields
    chosen = [game.field_names.index(name) for name in project] if project else None
    result: Export = nx.DiGraph()
    labels: list[Label] = []
    for node, key in enumerate(exploration.keys):
        state = decode(key)
        if chosen is None:
            label: Label = node
            attributes = {fields[i].name: _attribute(game, i, state[i]) for i in range(len(fields))
                          if fields[i].name in model.codec.kept}
        else:
            label = "|".join(f"{fields[i].name}={_attribute(game, i, state[i])}" for i in chosen)
            attributes = {fields[i].name: _attribute(game, i, state[i]) for i in chosen}
        labels.append(label)
        if label in result:
            result.nodes[label]["states"] += 1
        else:
            result.add_node(label, states=1, **attributes)
    for node in range(len(exploration.keys)):
        for edge in range(graph.offsets[node], graph.offsets[node + 1]):
            source, target = labels[node], labels[graph.targets[edge]]
            if result.has_edge(source, target):
                result.edges[source, target]["count"] += 1
            else:
                result.add_edge(source, target, count=1, moves=int(graph.moves[edge]),
                                elections=int(graph.elections[edge]))
    return result


@dataclass(frozen=True, slots=True)
class ExportFacts:
    """What networkx finds on an exported graph (the whole graph or a quotient): a second
    opinion on `analyse`, computed by other code on another representation."""

    nodes: int
    edges: int
    acyclic: bool
    all_reach_end: bool             # every node reaches a node of a finished game
    longest_moves: int | None       # the longest path weighted by moves (acyclic only)


def export_facts(exported: Export) -> ExportFacts:
    """Acyclicity, the longest path and whether every node can still reach a finished game,
    computed with networkx on a graph made by `to_networkx`."""
    import networkx as nx  # on use, as in to_networkx

    ends = [node for node, data in exported.nodes(data=True) if data.get("phase") == "over"]
    reach = set(ends)
    for node in ends:
        reach |= nx.ancestors(exported, node)
    acyclic = nx.is_directed_acyclic_graph(exported)
    longest = nx.dag_longest_path_length(exported, weight="moves") if acyclic else None
    return ExportFacts(exported.number_of_nodes(), exported.number_of_edges(), acyclic,
                       len(reach) == exported.number_of_nodes(), longest)


def write_export(exported: Export, path: Path, output_format: str) -> None:
    """A graph made by `to_networkx` as GraphML (by networkx) or DOT (written here:
    networkx needs pydot or pygraphviz for DOT), made in memory and written by
    `write_named` (spec/files.py): atomically, a link at `path` refused, never followed."""
    import networkx as nx  # on use, as in to_networkx

    if output_format == "graphml":
        encoded = io.BytesIO()
        nx.write_graphml(exported, encoded)
        write_named(path, encoded.getvalue())
        return

    def quote(value: object) -> str:
        return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'

    handle = io.StringIO()
    handle.write("digraph states {\n")
    for node, data in exported.nodes(data=True):
        label = "\\n".join(f"{key}={value}" for key, value in sorted(data.items()))
        handle.write(f"  {quote(node)} [label={quote(label)}];\n")
    for source, target, data in exported.edges(data=True):
        attributes = ", ".join(f"{key}={quote(value)}" for key, value in sorted(data.items()))
        handle.write(f"  {quote(source)} -> {quote(target)} [{attributes}];\n")
    handle.write("}\n")
    write_named(path, handle.getvalue())


def _attribute(game: Game, index: int, value: int) -> str | int | bool:
    """A GraphML-safe readable field value."""
    spec_field = game.spec.fields[index]
    readable = game.decode(spec_field.type.kind, spec_field.type.enum, value)
    if isinstance(readable, list):
        return ",".join(str(item) for item in readable)
    if readable is None:
        return "none"
    return readable  # type: ignore[no-any-return]
