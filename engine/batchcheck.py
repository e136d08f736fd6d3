"""State and move properties compiled to array checks over a batch of games.

The batched twin of propcheck.py, for the layered search (verify/explicit/layers.py),
which holds a whole rank of states at once: each property expression is specialised per
phase as propcheck.py does (the phase substituted, definitions inlined, constants folded;
`specialise`), then emitted with the batched emitter (engine/batched.py) instead of the
one-game one. Where propcheck.py returns one bit mask per state, a batched check returns
one boolean array per property it can fire, over the games of the batch: a catalogue has
more properties than a machine word has bits.

- `state[phase](s)` -> (property numbers, arrays): where an `always` is false, a `never`
  or `sometimes` true;
- `move[rule](s, t, *params)` -> the same for the move properties about that rule, over
  the games before (`s`) and after (`t`) the move with its parameters;
- `wanted[phase](s)` and `given[rule](s, t, *params)`: the permissions (`allows`) and
  obligations (`only`) whose state holds, and those a move satisfies (propcheck.py's
  `Allowances`).

Nothing here decides a verdict: the explicit checker does, from where the arrays are true.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from spec.lang import nodes as n
from spec.properties import PERMISSIONS, Property

from .batched import BatchEmitter, Rows, batch_namespace
from .game import Game
from .propcheck import Entry, fires_when, specialise
from .pycompile import load_source

Fired = tuple[tuple[int, ...], list[npt.NDArray[np.bool_]]]
"""The property numbers a check can fire and, for each, where it fires in the batch."""

Check = Callable[..., Fired]


@dataclass(frozen=True, slots=True)
class BatchChecks:
    """The batched checks of a set of properties (see the module docstring); None where
    nothing can fire. `only` holds the numbers of the obligations among the permissions."""

    properties: tuple[Property, ...]
    state: tuple[Check | None, ...]
    move: tuple[Check | None, ...]
    wanted: tuple[Check | None, ...]
    given: tuple[Check | None, ...]
    only: frozenset[int]


def compile_batch_checks(game: Game, properties: Sequence[Property], skip: frozenset[int] = frozenset()
                         ) -> BatchChecks:
    """The batched checks of every state, move and permission property of `properties`
    but those numbered in `skip` (numbers stay positions in `properties`)."""
    states: list[Entry] = []
    moves: list[Entry] = []
    wanted: list[Entry] = []
    given: list[Entry] = []
    for number, prop in enumerate(properties):
        if number in skip:
            continue
        if prop.kind in PERMISSIONS:
            if prop.state is not None:
                wanted.append((number, prop.state, True, ()))
            if prop.move is not None:
                given.append((number, prop.move, True, prop.on))
            continue
        if prop.state is None and prop.move is None:
            continue                                  # a graph property: the search decides it
        node, on_true = fires_when(prop)
        if prop.state is not None:
            states.append((number, node, on_true, ()))
        else:
            moves.append((number, node, on_true, prop.on))
    only = frozenset(number for number, prop in enumerate(properties) if prop.kind == "only")
    return BatchChecks(tuple(properties), _by_phase(game, states), _by_rule(game, moves),
                       _by_phase(game, wanted), _by_rule(game, given), only)


def _by_phase(game: Game, entries: list[Entry]) -> tuple[Check | None, ...]:
    """One check per phase, over a batch of games in that phase."""
    emitter = BatchEmitter(game.spec, game.players)
    out: list[Check | None] = []
    for phase in range(len(game.phase_names)):
        lines = [(number, line) for number, node, on_true, _ in entries
                 if (line := _fires(specialise(node, game, phase), on_true, emitter.emit))]
        out.append(_function(game, ["s"], lines))
    return tuple(out)


def _by_rule(game: Game, entries: list[Entry]) -> tuple[Check | None, ...]:
    """One check per rule, over a batch of its moves: the games before and after, and
    the parameters."""
    emitter = BatchEmitter(game.spec, game.players)
    out: list[Check | None] = []
    for compiled in game.rules:
        rule = compiled.rule
        bound = emitter.for_rule(rule)
        phase = game.phase_names.index(rule.phase)
        lines = [(number, line) for number, node, on_true, on in entries if rule.name in on
                 if (line := _fires(specialise(node, game, phase), on_true, bound.emit))]
        out.append(_function(game, ["s", "t", *bound.params()], lines))
    return tuple(out)


def _fires(folded: n.Node, on_true: bool, emit: Callable[[n.Node], str]) -> str:
    """The array expression true where the property fires ('' when it never can)."""
    if isinstance(folded, n.Lit):
        return "True" if bool(folded.value) == on_true else ""
    test = f"_np.asarray({emit(folded)}, dtype=bool)"
    return test if on_true else f"_np.logical_not({test})"


def _function(game: Game, params: list[str], lines: list[tuple[int, str]]) -> Check | None:
    """The check returning, for each numbered line, its array broadcast to the batch."""
    if not lines:
        return None
    numbers = tuple(number for number, _ in lines)
    body = ", ".join(f"_np.broadcast_to({line}, (s.width,))" for _, line in lines)
    source = f"def f({', '.join(params)}):\n    return [{body}]\n"
    compiled: Callable[..., list[npt.NDArray[np.bool_]]] = load_source(source, "batched property checks",
                                                                       batch_namespace(game.players))["f"]

    def check(*args: Any) -> Fired:
        return numbers, compiled(*args)
    return check


__all__ = ["BatchChecks", "Check", "Fired", "Rows", "compile_batch_checks"]
