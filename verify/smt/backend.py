"""Everything the solver builds for one spec and one player count, built once.

A `Backend` holds the transition system (verify/smt/system.py), the proved inductive
support and distance (verify/smt/induction.py), the unrolling BMC extends, and the search
for the shortest path to a target built on them (`Backend.search`: the distance's lower
bound, the rules of earlier witnesses and of random games, the plain search depth by
depth, the k-induction asked as it goes). The backends are kept here, per spec object
(`backend_for`) or per rules file (`backend_of_source`), and so are the catalogues
(`catalogue_of`); `clear_cache` forgets them. What a verdict is made of lives in
check.py and the modules it reads; nothing here decides a property.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import z3  # type: ignore[import-untyped]

from spec.invariants import Invariant, Strengthening, load_invariants
from spec.loader import load_spec
from spec.model import Spec
from spec.properties import Property, load_properties

from ..budgets import PLAYOUT_FIRST_SECONDS, PLAYOUT_RESERVE, PLAYOUT_SECONDS, PLAYOUT_SHARE
from ..results import Limits
from .bmc import Ended, Search, Target, Unrolling, depth_bound, guided, move_target, shortest, state_target
from .guides import Guide, forget_guides, guides_for, keep_guide
from .induction import Induction, OutOfTime, Outcome
from .infer import remember, strengthen
from .lasso import Cycle
from .playouts import played_guides
from .system import State, Step, System
from .targets import expandable, no_move


DEFAULT_DEPTH = 160
"""The deepest BMC path looked at by default: longer than every shortest witness of the
standard rules (at most 71 moves), far below the ranking's bound on any game."""
DEFAULT_K = 3


def bmc_depth(limits: Limits) -> int:
    """The longest path BMC looks at under these limits."""
    return DEFAULT_DEPTH if limits.max_depth is None else limits.max_depth


def largest_k(limits: Limits) -> int:
    """The largest k k-induction tries under these limits."""
    return DEFAULT_K if limits.k is None else limits.k


def catalogue_of(spec: Spec) -> tuple[Property, ...]:
    """The property catalogue for `spec`, with a variant's overrides applied: read once per
    spec object (`CATALOGUES_KEPT` of the latest). `check_players` is asked one property
    at a time, and reading the catalogue again each time (the file parsed, every expression
    type-checked, the order of play's monitored rules loaded again: 0.35 s) took more of
    the main job's solver time than the solver itself."""
    key = id(spec)
    kept = _CATALOGUES.pop(key, None)
    if kept is None or kept[0] is not spec:
        overrides = getattr(spec, "properties", None) or None
        kept = (spec, load_properties(spec, overrides=overrides))
    _CATALOGUES[key] = kept             # the latest last: the oldest is dropped first
    while len(_CATALOGUES) > CATALOGUES_KEPT:
        del _CATALOGUES[next(iter(_CATALOGUES))]
    return kept[1]


CATALOGUES_KEPT = 8
"""The spec objects whose catalogues `catalogue_of` keeps: the rules and their monitored
rules at a few counts, not every mutant of a mutation analysis (each loaded once)."""

_CATALOGUES: dict[int, tuple[Spec, tuple[Property, ...]]] = {}


class Backend:
    """The solver's view of one spec for one player count: the transition system, the
    proved support and distance, and the searches built on them."""

    def __init__(self, spec: Spec, players: int, catalogue: tuple[Property, ...] | None = None,
                 strengthening: Strengthening | None = None, infer: bool = False,
                 deadline: float | None = None) -> None:
        """With `infer`, the support is proved here, by `deadline` if one is given (a
        `time.perf_counter()` value), else `OutOfTime` (verify/smt/induction.py): the
        candidates not yet dropped are cached all the same, so that the next attempt
        starts where this one stopped."""
        self.spec = spec
        self.players = players
        self.strengthening: Strengthening = strengthening or load_invariants(spec)
        key = ""
        start = time.perf_counter()
        if infer:
            self.strengthening, key = strengthen(self.strengthening, players)
            if deadline is not None and time.perf_counter() >= deadline:   # mined, nothing proved yet
                found = [i for i in self.strengthening.invariants if i.origin == "inferred"]
                remember(key, found)
                raise OutOfTime([i.name for i in found], time.perf_counter() - start, 0)
        # Properties over monitored rules (their own `rules`: spec/order.py) are proved on those.
        self.catalogue = tuple(p for p in (catalogue if catalogue is not None else catalogue_of(spec)) if not p.rules)
        self.system = System(self.strengthening.spec, players)
        self.induction = Induction(self.system, self.strengthening, self.catalogue)
        self._distance: Outcome | None = None
        self._start_distance: int | None = None
        self.any_guide = False          # `search`: try kept guides of any length before the deep query
        self._unrolling: Unrolling | None = None
        self._cycle: Cycle | None = None
        self.stuck_free: dict[str, int] = {}    # phase -> k: no game gets stuck there (`deadlock_free`)
        if infer:
            try:
                kept = set(self.induction.support(deadline).names())
            except OutOfTime as stopped:
                self._remember(key, set(stopped.remaining))
                raise
            self._remember(key, kept)

    def _remember(self, key: str, kept: set[str]) -> None:
        """Cache the inferred invariants among `kept` for the next run with `key`."""
        remember(key, [i for i in self.strengthening.invariants if i.origin == "inferred" and i.name in kept])

    def inferred(self) -> list[Invariant]:
        """The inferred invariants the fixpoint kept (none unless built with `infer`)."""
        kept = set(self.induction.support().names())
        return [i for i in self.strengthening.invariants if i.origin == "inferred" and i.name in kept]

    @property
    def game(self) -> Any:
        """The engine's game the traces and counterexamples are decoded into."""
        return self.system.game

    # ------------------------------------------------------------------ the distance lemma

    def distance(self) -> Outcome:
        """The distance measure's proof (once)."""
        if self._distance is None:
            self._distance = self.induction.distance()
        return self._distance

    def start_distance(self) -> int | None:
        """The distance of the initial state, when the distance is proved."""
        measure = self.strengthening.distance
        if measure is None or not self.distance().proved:
            return None
        if self._start_distance is None:
            state = self.system.state("start")
            solver = z3.Solver()
            solver.add(self.system.init(state))
            solver.check()
            value = self.system.value(measure.measure, state)
            self._start_distance = solver.model().eval(value, model_completion=True).as_signed_long()
        return self._start_distance

    def _support_at(self, state: State, index: int) -> list[z3.BoolRef]:
        terms = self.induction.support_terms(state, inferred=False)
        start = self.start_distance()
        if start is not None and self.strengthening.distance is not None:
            terms.append(self.system.value(self.strengthening.distance.measure, state) <= start + index)
        return terms

    def unrolling(self) -> Unrolling:
        """The shared unrolling from the initial state (built on demand)."""
        if self._unrolling is None:
            self._unrolling = Unrolling(self.system, self._support_at)
        return self._unrolling

    def cycle(self) -> Cycle:
        """The window whose first state starts a cycle (verify/smt/lasso.py), built once."""
        if self._cycle is None:
            self._cycle = Cycle.build(self.system, lambda state: self.induction.support_terms(state, inferred=False))
        return self._cycle

    # ------------------------------------------------------------------ searches

    def search(self, target: Target, limits: Limits, deadline: float | None, guide: str | None = None,
               play: Property | None = None, probe: Callable[[int], bool] | None = None) -> Search:
        """The shortest path to the target: depth 0 directly, then from the proved lower
        bound up to the depth limit; `ended is Ended.UNREACHABLE` when no path of any length
        reaches it. With `guide` (a property's name), the rule sequences of its earlier
        witnesses as long as the lower bound are tried first (verify/smt/guides.py): a
        path they lead to is as long as the bound, hence a shortest; the path found is
        kept as a guide in turn. With `play` (the property whose witness or violation the
        target is), a search the solver's time stops is not the end: random games to where
        the property fires lead it to a path (`_played`), kept out of the plain search's
        time by `PLAYOUT_RESERVE`; with `limits.first_game` such games lead it first, before
        the depth-by-depth search (`_first_game`). With `probe` (`KProbe`), k-induction
        with the depths searched as its base case may end the search, once those games and
        guides found no path: no path of any length reaches the target, `ended is
        Ended.K_INDUCTIVE`."""
        start = time.perf_counter()
        unrolling = self.unrolling()
        first = shortest(unrolling, target, 0, 0, deadline)
        if first.trace is not None or first.ended is Ended.SOLVER:
            return first
        bound: int | None = 1
        distance = self.strengthening.distance
        begin = self.start_distance()
        if distance is not None and begin is not None:
            left = 0 if deadline is None else max(1, int((deadline - time.perf_counter()) * 1000))
            bound = depth_bound(self.system, self.induction.support_terms,
                                lambda state: self.system.value(distance.measure, state), begin, target,
                                timeout_ms=left)
        if bound is None:
            return Search(None, 0, time.perf_counter() - start, first.queries + 1, Ended.UNREACHABLE)
        queries = first.queries + 1
        if guide is not None and bound <= bmc_depth(limits):
            # The rules of earlier witnesses first, then (before the deep query at the bound)
            # of random games exactly as long as the bound: a path along either is a shortest.
            tight, name = bound, guide
            sources: list[tuple[Callable[[], list[Guide]], str]] = [
                (lambda: guides_for(self.spec, name, tight), "an earlier witness")]
            if play is not None:
                sources.append((lambda: self._played_at(play, tight, deadline), "a random game"))
            for rules_of, origin in sources:
                # Only a path as long as the bound is a shortest.
                led, asked = self._first_along([rules for rules in rules_of() if len(rules) == tight], target,
                                               tight, deadline, f"found along the rules of {origin}; {bound} moves "
                                               f"is the proved lower bound, so no game is shorter")
                queries += asked
                if led is not None:
                    return self._found(led, start, queries, guide)
        if limits.first_game and play is not None:
            early, asked = self._first_game(target, play, bound, deadline)
            queries += asked
            if early is not None:
                return self._found(early, start, queries, guide)
        if self.any_guide and guide is not None:
            along, asked = self._along_any_guide(target, guide, bound, deadline)
            queries += asked
            if along is not None:
                return self._found(along, start, queries, guide)
        # The probe after the cheap attempts above: a game they find refutes at once, where
        # every k below its length fails (president_breaks_ties at 5 players: majority_elects
        # broken 47 moves in, refuted along a random game after 75 s of k-induction that
        # could not succeed). Asked here too when the bound is past the depth limit, where
        # `shortest` asks nothing; there it asks the same again, which costs nothing.
        if probe is not None and probe(bound - 1):
            return Search(None, bound - 1, time.perf_counter() - start, queries, Ended.K_INDUCTIVE)
        plain = deadline
        if play is not None and deadline is not None:
            plain = deadline - min(PLAYOUT_RESERVE, PLAYOUT_SHARE * max(0.0, deadline - time.perf_counter()))
        found = shortest(unrolling, target, bmc_depth(limits), bound, plain, probe)
        if play is not None and found.trace is None and found.ended in (Ended.TIME, Ended.SOLVER):
            found = self._played(target, play, found, deadline)
        return self._found(found, start, found.queries + queries, guide)

    def _found(self, found: Search, start: float, queries: int, guide: str | None) -> Search:
        """`found`, the end of a search begun at `start`, with the search's whole time and
        `queries`; its path, when it has one, kept as a guide for property `guide`
        (verify/smt/guides.py). A search that ends with no path keeps nothing: a guide is
        the rule sequence of a path to the target, for later searches to follow (an empty
        one, kept, would lead verify/smt/deep.py nowhere but the initial state). A path
        found along a kept guide follows its rules exactly: keeping it again changes
        nothing."""
        found.seconds, found.queries = time.perf_counter() - start, queries
        if guide is not None and found.trace is not None:
            keep_guide(self.spec, guide, [move.rule for move, _ in found.trace.steps])
        return found

    def _along_any_guide(self, target: Target, guide: str, bound: int, deadline: float | None
                         ) -> tuple[Search | None, int]:
        """A path to the target along a kept guide of any length (`any_guide`: the rules'
        own witnesses guiding a mutant's, where the verdict matters more than the
        shortest game and no lower bound may be proved), and the queries asked: a quick
        one each. A path as long as the bound is a shortest; a longer one carries the bound."""
        return self._first_along(
            [rules for rules in guides_for(self.spec, guide, None) if len(rules) >= bound], target, bound, deadline,
            f"found along the rules of an earlier witness; {bound} moves is the proved lower bound, so no game is "
            f"shorter",
            lambda depth: f"found along the rules of an earlier witness, {depth} moves; "
                          + (f"no game shorter than {bound} moves gets there" if bound > 1 else
                             "no lower bound was proved") + ", and a shorter game than this one may")

    def _first_along(self, guides: Sequence[Guide], target: Target, bound: int, deadline: float | None,
                     shortest: str, longer: Callable[[int], str] | None = None) -> tuple[Search | None, int]:
        """The first path to the target along one of `guides` (one query each) and the
        queries asked: noted `shortest` when as long as `bound` (no shorter path exists),
        else `longer(its length)`, carrying the bound (`longer` may be left out when every
        guide is as long as the bound)."""
        queries = 0
        for rules in guides:
            led = guided(self.unrolling(), target, rules, deadline)
            queries += led.queries
            if led.trace is None:
                continue
            if led.depth == bound:
                led.note = shortest
            else:
                assert longer is not None, "a guide longer than the bound with no note for it"
                led.lower_bound = bound
                led.note = longer(led.depth)
            return led, queries
        return None, queries

    def _first_game(self, target: Target, prop: Property, bound: int, deadline: float | None
                    ) -> tuple[Search | None, int]:
        """`Limits.first_game`: a path to the target along the rules of a random game of at
        least `bound` moves (the proved lower bound) that reaches `prop`, played for at most
        `PLAYOUT_SECONDS`, before any depth-by-depth search; and the queries asked. As long
        as the bound it is a shortest; longer, it carries the bound."""
        seconds = PLAYOUT_SECONDS if deadline is None else min(PLAYOUT_SECONDS,
                                                               max(0.0, deadline - time.perf_counter()) / 4)
        return self._first_along(
            played_guides(self.game, prop, seconds=seconds, at_least=bound), target, bound, deadline,
            f"found along the rules of a random game; {bound} moves is the proved lower bound, so no game is shorter",
            lambda depth: f"found along the rules of a random game, {depth} moves, the first game looked for (no "
                          f"shorter one was searched); no game shorter than {bound} moves gets there")

    def _played_at(self, prop: Property, bound: int, deadline: float | None) -> list[Guide]:
        """The rules of random games that reach `prop` in exactly `bound` moves (the proved
        lower bound), played for at most `PLAYOUT_FIRST_SECONDS`."""
        seconds = PLAYOUT_FIRST_SECONDS if deadline is None else min(
            PLAYOUT_FIRST_SECONDS, max(0.0, deadline - time.perf_counter()) / 8)
        return played_guides(self.game, prop, seconds=seconds, at_least=bound, exactly=True)

    def _played(self, target: Target, prop: Property, stalled: Search, deadline: float | None) -> Search:
        """A path to the target along the rules of a random game (verify/smt/playouts.py),
        once the plain search stalled: every depth below `at_least` is proved empty, so a
        path that long is a shortest one, and a longer one is reported with the bound."""
        at_least = stalled.depth + 1 if stalled.ended is Ended.TIME else stalled.depth
        seconds = PLAYOUT_SECONDS if deadline is None else min(PLAYOUT_SECONDS,
                                                               max(0.0, deadline - time.perf_counter()) / 4)
        guides = played_guides(self.game, prop, seconds=seconds, at_least=at_least)
        led, asked = self._first_along(
            guides, target, at_least, deadline,
            f"found along the rules of a random game once the solver's search stopped at {at_least} moves; no game "
            f"is shorter, so this one is a shortest",
            lambda depth: f"found along the rules of a random game once the solver's search stopped "
                          f"({stalled.stopped}); no game shorter than {at_least} moves gets there, so the shortest "
                          f"takes {at_least}-{depth} moves")
        queries = stalled.queries + asked
        if led is not None:
            led.queries = queries
            return led
        stalled.queries = queries
        if guides:
            stalled.stopped += f"; then the paths along {len(guides)} random games were tried, none found in time"
        else:
            stalled.stopped += "; then no random game played in time got there"
        return stalled

    def state_target(self, node: Any, negate: bool) -> Target:
        """The target "s_d satisfies the expression" (or its negation)."""
        def holds(state: State) -> z3.BoolRef:
            term = self.system.holds(node, state)
            return z3.Not(term) if negate else term
        return state_target(holds)

    def stuck_target(self, phases: Sequence[str] | None = None) -> Target | None:
        """The target "the game is not over and no move is legal", in any phase (of
        `phases`, all by default) whose rules' parameters are few enough to spell out
        (`no_move`; a phase with no rule at all is stuck whenever it is reached); None
        when no phase's are. A
        deadlock deep in a game is sought along the rules' own games with it (deep.py): a
        mutant that needs a new Fascist tile in every draw (R-L1) sticks at the first draw
        after a policy peek, 36 moves in at 5 players, where the plain search, one query
        per depth, had reached 26 moves when its time ran out."""
        system = self.system
        by_phase = [(number, [rule for rule in self.spec.rules if rule.phase == name])
                    for number, name in enumerate(system.phases)
                    if number != self.game.over_phase and (phases is None or name in phases)]
        usable = [(number, rules) for number, rules in by_phase if expandable(system, rules)]
        if not usable:
            return None

        def stuck(state: State) -> z3.BoolRef:
            terms = []
            for number, rules in usable:
                none = no_move(system, rules, state)
                assert none is not None      # every rule of `usable` is expandable
                terms.append(z3.And(state["phase"] == number, none))
            return z3.Or(terms)
        return state_target(stuck)

    def move_target(self, prop: Property, negate: bool) -> Target:
        """The target "the last step is one of the property's moves, and the expression
        holds over it" (or fails)."""
        def holds(step: Step) -> z3.BoolRef:
            assert prop.move is not None
            term = self.system.holds_on_move(prop.move, step, prop.on)
            return z3.And(step.fires_any(prop.on), z3.Not(term) if negate else term)
        return move_target(holds)


_BACKENDS: dict[tuple[int, int, bool, bool], tuple[Spec, Backend]] = {}
_BY_SOURCE: dict[tuple[str, str, tuple[str, ...], int, bool], Backend] = {}


def backend_for(spec: Spec, players: int, infer: bool = False, hints: bool = True,
                deadline: float | None = None) -> Backend:
    """The backend of a spec and player count, built once per spec object: with the
    strengthening invariants of spec/invariants.toml (`hints`), and with inferred ones
    (`infer`, verify/smt/infer.py; implied when there are no hints). Inference stopped
    at `deadline` raises `OutOfTime` and keeps no backend."""
    key = (id(spec), players, infer or not hints, hints)
    if key not in _BACKENDS:
        _BACKENDS[key] = (spec, new_backend(spec, players, hints, deadline, infer))
    return _BACKENDS[key][1]


def backend_built(spec: Spec, players: int, infer: bool = False, hints: bool = True) -> bool:
    """Whether `backend_for` with these arguments would return a backend already built."""
    return (id(spec), players, infer or not hints, hints) in _BACKENDS


def backend_of_source(spec: Spec, players: int, hints: bool = True) -> Backend:
    """The backend of a rules file and count, kept however often the file is loaded again
    (the mutation analysis loads the rules once per mutant)."""
    key = (spec.name, spec.source, spec.overlays, players, hints)
    if key not in _BY_SOURCE:
        _BY_SOURCE[key] = new_backend(spec, players, hints)
    return _BY_SOURCE[key]


def new_backend(spec: Spec, players: int, hints: bool, deadline: float | None = None,
                 infer: bool = False) -> Backend:
    """A backend built now (the callers decide what is kept): with the strengthening
    invariants of spec/invariants.toml (`hints`) and, with `infer`, inferred ones too;
    without hints, none written and the invariants inferred (`OutOfTime` past
    `deadline`)."""
    base = None if hints else Strengthening(spec, (), None, None)
    return Backend(spec, players, strengthening=base, infer=infer or not hints, deadline=deadline)


def clear_cache() -> None:
    """Forget every backend and witness guide built so far (a benchmark's cold start)."""
    _BACKENDS.clear()
    _BY_SOURCE.clear()
    _CATALOGUES.clear()
    forget_guides()
