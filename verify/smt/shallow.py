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

Where the depths stop before every property is broken, the pass may go on along the
rules of random games (`played`): one set of games of the rules checks every property
still open at each state and move (verify/smt/playouts.py `played_breaches`; the
permissions, deadlock freedom and termination too, which the depths do not ask), and the
rule sequence of the shortest game breaking one is asked as one query on the same
unrolling, the solver choosing every move's parameters (verify/smt/bmc.py `guided`). A
changed rule that breaks deck conservation at the first reshuffle 30 to 80 moves in is
far past the depths a query per depth reaches in seconds, yet random play breaks it in
most games, and the query along one is answered in seconds, where the search after
inference took two minutes and more at 6 players. The game found is the model's,
replayed through the engine; it is not proved a shortest, but every depth the pass
asked is a proved lower bound (`Refuted.lower_bound`). A random game decides nothing
here: a guide along which the solver finds no path costs one query.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence

from spec.invariants import Strengthening
from spec.model import Spec
from spec.order import own_properties
from spec.properties import PERMISSIONS, Property

from ..budgets import PLAYOUT_SECONDS
from ..results import Evidence, Limits, Played, Refuted
from .backend import Backend, bmc_depth
from .bmc import Ended, Target, Unrolling, any_of, guided, move_target, shortest
from .deep import breach, violation_target
from .lasso import never_ends
from .playouts import played_breaches
from .targets import lacking_target

SHALLOW_KINDS = ("always", "never", "shows")
"""The kinds a single state or move breaks and whose target needs no proved support
(`in_range` reads the support; a deadlock's target in one disjunction with the others
slows every query, verify/smt/deep.py)."""

NOTE = "found before any invariant was inferred, by asking every open state and move invariant at each depth"


def violations_within(spec: Spec, players: int, props: Sequence[Property], deadline: float,
                      played: float | None = None) -> Iterator[tuple[Property, Refuted]]:
    """The properties among `props` (of the kinds in `SHALLOW_KINDS`) broken by a game of
    the bare rules, each with a shortest such game, as they are found, depth by depth
    until `deadline` (a `time.perf_counter()` value) or until every one is broken; then,
    with `played` (a later deadline), those still open along the rules of random games
    until that deadline, each game with the depths asked as its lower bound."""
    start = time.perf_counter()
    backend = Backend(spec, players, strengthening=Strengthening(spec, (), None, None))
    open_targets = _targets(backend, props)
    unrolling = backend.unrolling()
    depth = 0
    while open_targets:
        found = shortest(unrolling, any_of([target for _, target in open_targets.values()]), bmc_depth(Limits()),
                         depth, deadline)
        if found.trace is None:
            # Out of time, the solver gave up, or the depth limit: nothing claimed of the
            # depths not asked; every depth below `at_least` was asked and breaks none.
            if played is not None:
                at_least = found.depth if found.ended is Ended.SOLVER else found.depth + 1
                yield from _along_played(backend, unrolling, open_targets, props, at_least, played, start)
            return
        depth, trace = found.depth, found.trace
        broken = [name for name, (_, target) in open_targets.items() if unrolling.meets(target, depth)]
        if not broken:
            return                       # the model meets a target the decoding does not: ask no more
        for name in broken:
            prop, _ = open_targets.pop(name)
            yield prop, Refuted(Evidence("bmc", depth=depth, seconds=time.perf_counter() - start, note=NOTE),
                                Played.of(trace), breach(prop, depth))


def _targets(backend: Backend, props: Sequence[Property]) -> dict[str, tuple[Property, Target]]:
    """The target of each property the pass asks, by name."""
    out: dict[str, tuple[Property, Target]] = {}
    for prop in own_properties(backend.spec, props):      # none over other rules' fields
        target = violation_target(backend, prop) if prop.kind in SHALLOW_KINDS else None
        if target is not None:
            out[prop.name] = (prop, target)
    return out


PLAYED_NOTE = ("found along the rules of a random game once the depths asked before inference stopped; "
               "no game shorter than {at_least} moves breaks it")
PLAYED_SHORTEST_NOTE = ("found along the rules of a random game once the depths asked before inference stopped; "
                        "no game shorter than {at_least} moves breaks it, so this one is a shortest")
PLAYED_ONLY_NOTE = "found along the rules of a random game before any invariant was inferred; not proved the shortest"
NOT_ASKED = 0
"""The lower bound of a game breaking a kind the depths do not ask: none is proved, and
0 moves ("no game is shorter than none") says so without claiming a shortest."""


def _along_played(backend: Backend, unrolling: Unrolling, open_targets: dict[str, tuple[Property, Target]],
                  props: Sequence[Property], at_least: int, deadline: float,
                  start: float) -> Iterator[tuple[Property, Refuted]]:
    """The open properties a path along the rules of a random game breaks (the module
    docstring), shortest guide first, until `deadline`: the state and move invariants of
    `open_targets`, a game of at least `at_least` moves (every shorter depth was asked),
    noted a shortest only when exactly that long; and, with no lower bound (the depths
    did not ask them), the permissions, `deadlock_free` and `terminates` among `props`:
    a move the permission does not allow or a state lacking the move it does, a deadlock
    the engine confirms, a state a cycle brings back (verify/smt/lasso.py), the cycle
    replayed too."""
    asked = {name: prop for name, (prop, _) in open_targets.items()}
    asked.update((prop.name, prop) for prop in props if prop.kind in ("deadlock_free", "terminates", *PERMISSIONS))
    seconds = min(PLAYOUT_SECONDS, max(0.0, deadline - time.perf_counter()) / 4)
    guides = played_breaches(backend.game, list(asked.values()), seconds=seconds)
    for name, rules in sorted(guides.items(), key=lambda item: (len(item[1]), item[0])):
        prop = asked[name]
        found = _along_one(backend, unrolling, open_targets, prop, rules, at_least, deadline, start)
        if found is Ended.TIME:
            return
        if isinstance(found, Refuted):
            yield prop, found


def _along_one(backend: Backend, unrolling: Unrolling, open_targets: dict[str, tuple[Property, Target]],
               prop: Property, rules: tuple[str, ...], at_least: int, deadline: float,
               start: float) -> Refuted | Ended | None:
    """The refutation of `prop` by a path along `rules` (`_along_played`), `Ended.TIME` when the
    deadline passed, None when the solver finds no such path or the engine does not
    confirm the breach."""
    if prop.name in open_targets:
        if len(rules) < at_least:
            return None                      # shorter than the depths asked allow: the query would say so
        target: Target | None = open_targets[prop.name][1]
    elif prop.kind == "terminates":
        target = backend.cycle().target()
    elif prop.kind == "allows":
        target = lacking_target(backend.system, prop)
    elif prop.kind == "only":
        target = move_target(backend.induction.breaks_only(prop))
    else:
        target = backend.stuck_target()
    if target is None:
        return None
    led = guided(unrolling, target, rules, deadline)
    if led.trace is None:
        return Ended.TIME if led.ended is Ended.TIME else None
    seconds = time.perf_counter() - start
    if prop.name in open_targets:
        shortest_one = led.depth == at_least
        how = (PLAYED_SHORTEST_NOTE if shortest_one else PLAYED_NOTE).format(at_least=at_least)
        return Refuted(Evidence("bmc", depth=led.depth, seconds=seconds, note=how), Played.of(led.trace),
                       f"{breach(prop, led.depth)} ({how})", lower_bound=None if shortest_one else max(1, at_least))
    if prop.kind == "terminates":
        closed = backend.cycle().close(led.trace, deadline)
        if closed is None:
            return None
        trace, length = closed
        return Refuted(Evidence("bmc", depth=led.depth, seconds=time.perf_counter() - start, note=PLAYED_ONLY_NOTE),
                       Played.of(trace), f"{never_ends(led.depth, length)} ({PLAYED_ONLY_NOTE})", lower_bound=NOT_ASKED)
    if prop.kind in PERMISSIONS:
        what = "no such move is legal" if prop.kind == "allows" else "another move is legal"
        moves = led.depth if prop.kind == "allows" else led.depth - 1
        return Refuted(Evidence("bmc", depth=led.depth, seconds=seconds, note=PLAYED_ONLY_NOTE), Played.of(led.trace),
                       f"{prop.name}: after {moves} moves {what} ({PLAYED_ONLY_NOTE})", lower_bound=NOT_ASKED)
    end = led.trace.end
    if backend.game.legal_moves(end) or backend.game.is_over(end):
        return None                          # the engine has a move there: not a deadlock, whatever the encoding said
    return Refuted(Evidence("bmc", depth=led.depth, seconds=seconds, note=PLAYED_ONLY_NOTE), Played.of(led.trace),
                   f"{breach(prop, led.depth)} ({PLAYED_ONLY_NOTE})", lower_bound=NOT_ASKED)
