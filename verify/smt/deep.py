"""Violations deep in a game, looked for along the rules' own games.

A changed rule may break a property only deep in a game: a reshuffle that keeps the
Fascist discards (R-L5) breaks deck conservation at the first reshuffle, five governments
in; chaos that forgets the peeked tiles wrongly (R-E9) only after a peek and three failed
elections. The plain search (verify/smt/bmc.py `shortest`) asks one query per depth, each
choosing every move's rule as well as its parameters; for the chaos mutant at 5 players
the shortest violation takes 42 moves and the solver 338 s, far past what a mutant's
property is given.

The kept guides (verify/smt/guides.py) are games that already reach deep: the rules' own
shortest witnesses, six of 13 to 71 moves at 5 players, through reshuffles, powers and
the veto, and the witnesses found for earlier mutants. Here each is
followed for as many of its moves as fit (the solver chooses where to leave it), then at
most `BEYOND` moves of the path's own, to a violation of any property still undecided:
one query per guide and detour length, whose rules are fixed up to the departure, so the
solver mostly chooses parameters. Measured at 5 players (one query each): the
reshuffle mutant breaks deck conservation along the 64-move guide, found in 3.1 s; an
execution that no longer needs a living target (R-X6) breaks its property along it too
(14.4 s); the chaos mutant along the 36-move guide left after 32 moves and 12 of its own
(41.8 s).

A guide is only a guess. A path found is a real path of the rules checked: decoded from
the model and replayed through the engine like every solver trace, so the refutation
stands on that game alone. A guide along which nothing is found proves nothing, and the
property stays exactly as undecided as before. The game found is not proved the shortest
(`Refuted.lower_bound`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence

import z3  # type: ignore[import-untyped]

from spec.properties import Property

from ..results import Evidence, Played, Refuted
from .backend import Backend
from .bmc import Target, any_of, state_target
from .guides import every_guide
from .system import State

BEYOND = (0, 12)
"""The moves a path may make of its own after leaving a guide, tried in turn: none first
(the guides' own games, quick queries), then a detour of 12 (the chaos mutant's
violation is 12 moves past where it leaves the 36-move guide)."""


def out_of_range(backend: Backend) -> tuple[list[str], Target | None]:
    """The fields whose declared range is not in the proved support, and the target "one
    of them is outside its range" (None when every range is proved)."""
    kept = set(backend.induction.support().names())
    system = backend.system
    left_out = [name for name, _ in system.typing(backend.induction.before) if f"typing:{name}" not in kept]
    if not left_out:
        return left_out, None

    def outside(state: State) -> z3.BoolRef:
        return z3.Or([z3.Not(term) for name, term in system.typing(state) if name in left_out])
    return left_out, state_target(outside)


def violation_target(backend: Backend, prop: Property) -> Target | None:
    """The target "the property fails here": a state breaking a state invariant, a move
    breaking a move invariant, a value outside its range (`in_range`), a state with no
    move that is not a finished game (`deadlock_free`, `Backend.stuck_target`); None for
    the kinds a single state or move cannot break (witnesses, termination, permissions)."""
    if prop.kind in ("always", "never") and prop.state is not None:
        return backend.state_target(prop.state, prop.kind != "never")
    if prop.kind in ("always", "never", "shows") and prop.move is not None:
        return backend.move_target(prop, prop.kind != "never")
    if prop.kind == "in_range":
        return out_of_range(backend)[1]
    if prop.kind == "deadlock_free":
        return backend.stuck_target()
    return None


def breach(prop: Property, depth: int) -> str:
    """What the game found shows, in the words the plain search uses for the kind."""
    if prop.kind == "in_range":
        return f"a value outside its declared range after {depth} moves"
    if prop.kind == "deadlock_free":
        return f"deadlock: no legal move after {depth} moves"
    if prop.state is not None:
        return f"reachable in {depth} moves"
    return f"a violating move after {depth - 1} moves"


def violations_along_the_rules(backend: Backend, props: Sequence[Property], deadline: float,
                               beyond: Sequence[int] = BEYOND) -> Iterator[tuple[Property, Refuted]]:
    """The properties among `props` that a path along one of the kept guides (then at
    most `beyond` moves of its own) breaks, each with the game up to its first violation
    on that path, as they are found, until `deadline` (a `time.perf_counter()` value).
    Every property still unbroken is asked at once: a path breaking one is decoded, every
    property it breaks is reported, and the same guide is asked again for the others.

    Deadlock freedom is asked last, on its own: its target spells out every move of every
    phase, and in one disjunction with the others it slowed each guide's query so much that
    mutant #251, whose deck conservation breaks 53 moves in, was no longer refuted within
    the pass's time at 5 players."""
    others = [prop for prop in props if prop.kind != "deadlock_free"]
    yield from _along(backend, others, deadline, beyond)
    yield from _along(backend, [prop for prop in props if prop.kind == "deadlock_free"], deadline, beyond)


def _along(backend: Backend, props: Sequence[Property], deadline: float,
           beyond: Sequence[int]) -> Iterator[tuple[Property, Refuted]]:
    """`violations_along_the_rules` for one group of properties asked together."""
    start = time.perf_counter()
    unrolling = backend.unrolling()
    open_targets: dict[str, tuple[Property, Target]] = {}
    for prop in props:
        target = violation_target(backend, prop)
        if target is None or deadline <= time.perf_counter():
            continue
        unrolling.timeout_ms = max(1, int((deadline - time.perf_counter()) * 1000))
        at_start = unrolling.check(0, target(unrolling, 0))
        if at_start == z3.sat:          # the initial state breaks it: the shortest game has no move
            yield prop, Refuted(Evidence("bmc", depth=0, seconds=time.perf_counter() - start),
                                Played.of(unrolling.trace(0)), breach(prop, 0))
        elif at_start == z3.unsat:      # so no game shorter than one move breaks it
            open_targets[prop.name] = (prop, target)
    guides = every_guide(backend.spec)
    for detour in beyond:
        for rules in guides:
            while open_targets:
                left = deadline - time.perf_counter()
                if left <= 0:
                    return
                unrolling.timeout_ms = max(1, int(left * 1000))
                targets = [target for _, target in open_targets.values()]
                result, end = unrolling.check_departing(rules, detour, any_of(targets))
                if result != z3.sat:
                    break
                asked = len(open_targets)
                how = (f"found along a kept witness game of {len(rules)} moves"
                       + (f" with at most {detour} moves of its own after leaving it" if detour else "")
                       + "; not proved the shortest")
                for name, (prop, target) in list(open_targets.items()):
                    depth = next((d for d in range(1, end + 1) if unrolling.meets(target, d)), None)
                    if depth is None:
                        continue
                    trace = unrolling.trace(depth)
                    if prop.kind == "deadlock_free" and (backend.game.legal_moves(trace.end)
                                                         or backend.game.is_over(trace.end)):
                        continue     # the engine has a move there: not a deadlock, whatever the encoding said
                    del open_targets[name]
                    yield prop, Refuted(Evidence("bmc", depth=depth, seconds=time.perf_counter() - start, note=how),
                                        Played.of(trace), f"{breach(prop, depth)} ({how})", lower_bound=1)
                if len(open_targets) == asked:   # the model's path meets a target the decoding does not: ask no more
                    return
