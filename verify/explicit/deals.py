"""Dealt fields enumerated beside the layered search ((e) of reductions.py).

A field the deal fixes for the whole game and that steers nothing (the ordinary
Fascists) is dropped from the searched states; a move property that reads it is checked
on each move of the reduced graph once for every value the deal could have given beside
the kept fields it dealt with it. `Deals` is that table, read off the engine's own deal
moves from the start (no rule is written here); `widen` repeats a batch of moves once per
value, so that the compiled move checks (engine/batchcheck.py) run on them unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.game import Game
from spec.lang import nodes as n

from .reductions import Plan, assignments, dealt_fields

Array = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class Deals:
    """What the deal can give beside each state of the reduced graph."""

    rule: int                                   # the dealing rule's index: its own moves set the fields
    rows: tuple[int, ...]                       # the enumerated fields' rows
    given: tuple[int, ...]                      # rows of kept fields the deal sets from its other parameters
    values: dict[tuple[int, ...], Array]        # their values -> (len(rows), k): the enumerated fields' values

    def widen(self, before: Array, after: Array, args: list[Array]) -> tuple[Array, Array, Array, list[Array]]:
        """The moves (columns of `before`, `after`, `args`) repeated once per value the
        deal could give beside each, with the enumerated fields set to it before and
        after the move: the column each copy came from, and the widened arrays."""
        width = before.shape[1]
        if self.given:
            distinct, inverse = np.unique(before[list(self.given)], axis=1, return_inverse=True)
            inverse = inverse.ravel()
        else:
            distinct, inverse = np.zeros((0, 1), dtype=np.int64), np.zeros(width, dtype=np.int64)
        taken: list[Array] = []
        dealt: list[Array] = []
        for number in range(distinct.shape[1]):
            table = self.values.get(tuple(distinct[:, number].tolist()))
            if table is None:
                # No deal sets these values; a reachable state always has one.
                continue
            columns = np.flatnonzero(inverse == number)
            taken.append(np.repeat(columns, table.shape[1]))
            dealt.append(np.tile(table, len(columns)))
        if not taken:
            empty = np.zeros(0, dtype=np.int64)
            return empty, before[:, :0], after[:, :0], [arg[:0] for arg in args]
        origin = np.concatenate(taken)
        values = np.concatenate(dealt, axis=1)
        wide_before = before.take(origin, axis=1)
        wide_after = after.take(origin, axis=1)
        for position, row in enumerate(self.rows):
            wide_before[row] = values[position]
            wide_after[row] = values[position]
        return origin, wide_before, wide_after, [np.asarray(arg).take(origin) for arg in args]


def deals_of(game: Game, plan: Plan) -> Deals | None:
    """The table of the plan's enumerated fields (None when it enumerates none)."""
    if not plan.dealt:
        return None
    spec = game.spec
    found = dealt_fields(spec)
    rule_name = found[next(iter(plan.dealt))][0]
    rule = spec.rule(rule_name)
    positions = [param.name for param in rule.params]
    names = game.field_names
    assigned = assignments(spec)
    fields = sorted(plan.dealt)
    # Kept fields the deal alone sets from a parameter stay as dealt: a state's value of
    # them says which deals it came from. (Dropped ones say nothing: every deal is tried.)
    given = {target: node.name for target, node in sorted(rule.effect)
             if target in plan.kept and assigned[target] == 1 and isinstance(node, n.Name) and node.kind == "param"}
    grouped: dict[tuple[int, ...], set[tuple[int, ...]]] = {}
    for move in game.legal_moves(game.initial_state()):
        if move.rule != rule_name:
            continue
        by_name = dict(zip(positions, move.args))
        key = tuple(by_name[param] for param in given.values())
        grouped.setdefault(key, set()).add(tuple(by_name[found[target][1]] for target in fields))
    index = next(compiled.index for compiled in game.rules if compiled.rule.name == rule_name)
    return Deals(index, tuple(names.index(target) for target in fields), tuple(names.index(target) for target in given),
                 {key: np.array(sorted(values), dtype=np.int64).T.reshape(len(fields), -1)
                  for key, values in grouped.items()})
