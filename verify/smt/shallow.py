"""Short violations, looked for before any invariant is inferred.

Most mutants the catalogue kills break a state or move invariant within a few moves: a
deal off the table (R-S2) at the first move, an ineligible nominee (R-E3) at the third, a
reshuffle before the pile runs short (R-L5) at the tenth. Inferring a mutant's
strengthening invariants (verify/smt/infer.py: sampling, mining, the fixpoint, the
ranking) takes ten seconds and more at every count, and a refutation needs none of them:
a path from the initial state is a game of the rules whatever invariant holds. So, before
inference, one query per depth asks whether any of these properties is broken at exactly
that depth, on the unrolling of the bare rules (no strengthening), depth 0, 1, 2, ...
within a small share of the mutant's time. Measured at 6 players (one process), each
query is a fraction of a second up to about 15 moves and grows past a second from 16; at
10 players every depth to 20 took 13 s in all.

A property broken at depth d is refuted by the game in the model, replayed through the
engine like every solver trace; it is a shortest game breaking it, since every depth
below was asked with that property in the disjunction and had no such path. A depth that
breaks several properties along other paths is asked again without the ones found.
Nothing is claimed of a property the pass does not break: it is asked again, from the
start, once the invariants are inferred.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from spec.invariants import Strengthening
from spec.model import Spec
from spec.properties import Property

from ..results import Evidence, Limits, Refuted
from .bmc import Target, any_of, shortest
from .deep import breach, violation_target

if TYPE_CHECKING:
    from .check import Backend

SHALLOW_KINDS = ("always", "never", "shows")
"""The kinds a single state or move breaks and whose target needs no proved support
(`in_range` reads the support; a deadlock's target in one disjunction with the others
slows every query, verify/smt/deep.py)."""

NOTE = "found before any invariant was inferred, by asking every open state and move invariant at each depth"


def violations_within(spec: Spec, players: int, props: Sequence[Property],
                      deadline: float) -> Iterator[tuple[Property, Refuted]]:
    """The properties among `props` (of the kinds in `SHALLOW_KINDS`) broken by a game of
    the bare rules, each with a shortest such game, as they are found, depth by depth
    until `deadline` (a `time.perf_counter()` value) or until every one is broken."""
    from .check import Backend, bmc_depth

    start = time.perf_counter()
    backend = Backend(spec, players, strengthening=Strengthening(spec, (), None, None))
    open_targets = _targets(backend, props)
    unrolling = backend.unrolling()
    depth = 0
    while open_targets:
        found = shortest(unrolling, any_of([target for _, target in open_targets.values()]), bmc_depth(Limits()),
                         depth, deadline)
        if found.trace is None:
            return                       # out of time, the solver gave up, or the depth limit: nothing claimed
        depth, trace = found.depth, found.trace
        broken = [name for name, (_, target) in open_targets.items() if unrolling.meets(target, depth)]
        if not broken:
            return                       # the model meets a target the decoding does not: ask no more
        for name in broken:
            prop, _ = open_targets.pop(name)
            yield prop, Refuted(Evidence("bmc", depth=depth, seconds=time.perf_counter() - start, note=NOTE),
                                trace, breach(prop, depth))


def _targets(backend: Backend, props: Sequence[Property]) -> dict[str, tuple[Property, Target]]:
    """The target of each property the pass asks, by name."""
    out: dict[str, tuple[Property, Target]] = {}
    for prop in props:
        target = violation_target(backend, prop) if prop.kind in SHALLOW_KINDS else None
        if target is not None:
            out[prop.name] = (prop, target)
    return out
