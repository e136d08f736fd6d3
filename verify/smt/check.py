"""Decide one property with the solver: the verdicts of the Z3 backend.

`check_property(spec, prop, players, limits)` returns a typed verdict (verify/results.py):

- `always` / `never` over states: `Proved` when the property belongs to the inductive
  support (k = 1) or closes by k-induction relative to it; `Refuted` with the shortest
  trace when BMC reaches a violation; otherwise `Unknown`, with the counterexample to
  induction in words;
- `always` / `never` over moves: `Proved` over one step from every state satisfying the
  support; `Refuted` when BMC reaches a violating move; otherwise `Unknown`;
- `sometimes`: `Witnessed` with the shortest witness (BMC from a proved lower bound,
  replayed through the engine; tried first along the rules of a witness found at
  another player count, which, as long as the bound, is a shortest one too),
  `Unwitnessed` when its negation is inductive relative to the support, `Unknown` when
  a limit stops the search; `prove_never_happens` tries only the induction, without the
  (slower) search for a witness;
- `terminates`: `Proved` by a ranking (inferred, or spec/invariants.toml's) and deadlock
  freedom; `Refuted` by a game that stops with no legal move or comes back to a state;
- `deadlock_free`: `Proved` when, in every phase but the end, no state satisfying the
  support makes every rule's guard false for all parameter values;
- `allows` / `only`: `Proved` when no state satisfying the support and the property's
  state lacks the move it allows (for all parameter values) or has another move;
- for these three, where the one-step proof fails, a bounded search for the shortest
  game to a state that breaks the property (`_reach`): found, `Refuted` with that game
  (a reachable counterexample is real); for a permission, `Proved` when no breach is
  reachable by k-induction with the searched depths as base case; otherwise `Unknown`
  with the counterexample to induction and how far the search got.

`check_players(spec_name, players, names, limits)` decides a list of catalogue properties
for one player count as `PropertyResult`s, the form `shrules check --backend smt` uses.
Everything built for a spec and a player count (the system, the support) is kept, so
deciding the whole catalogue costs one support computation.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Iterator, Sequence
from itertools import product
from typing import Any

import z3  # type: ignore[import-untyped]

from spec.errors import SpecError
from spec.invariants import Invariant, Strengthening, load_invariants
from spec.liveness import live_fields
from spec.loader import load_spec
from spec.model import Rule, Spec
from spec.order import is_monitored, own_properties
from spec.properties import Property, load_properties

from ..budgets import (CTI_SECONDS, K_INDUCTION_SECONDS, K_INDUCTION_SHARE, PLAYOUT_FIRST_SECONDS,
                       PLAYOUT_RESERVE, PLAYOUT_SECONDS, PLAYOUT_SHARE)
from ..results import (Evidence, Facts, Limits, Played, PropertyResult, Proved, Refuted, Unknown, Unwitnessed,
                       Verdict, Witnessed, played)
from .bmc import Search, Target, Unrolling, depth_bound, guided, move_target, shortest, state_target
from .deep import out_of_range, violation_target, violations_along_the_rules
from .guides import Guide, forget_guides, guides_for, keep_guide
from .induction import Candidate, Induction, OutOfTime, Outcome
from .infer import remember, strengthen
from .lasso import CYCLE_MOVES, Cycle, never_ends
from .vacuity import judge_premises
from .playouts import played_guides
from .relational import Relation, equivalent, initial_related
from .shallow import violations_within
from .system import State, Step, System


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
        # Properties over monitored rules (their own `rules`: spec/order.py) are proved on those.
        self.catalogue = tuple(p for p in (catalogue if catalogue is not None else catalogue_of(spec)) if not p.rules)
        self.system = System(self.strengthening.spec, players)
        self.induction = Induction(self.system, self.strengthening, self.catalogue)
        self._distance: Outcome | None = None
        self._start_distance: int | None = None
        self.any_guide = False          # `search`: try kept guides of any length before the deep query
        self._unrolling: Unrolling | None = None
        self._cycle: Cycle | None = None
        self.stuck_free: dict[str, int] = {}    # phase -> k: no game gets stuck there (`_deadlock_free`)
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
        bound up to the depth limit; `stopped == "unreachable"` when no path of any length
        reaches it. With `guide` (a property's name), the rule sequences of its earlier
        witnesses as long as the lower bound are tried first (verify/smt/guides.py): a
        path they lead to is as long as the bound, hence a shortest; the path found is
        kept as a guide in turn. With `play` (the property whose witness or violation the
        target is), a search the solver's time stops is not the end: random games to where
        the property fires lead it to a path (`_played`), kept out of the plain search's
        time by `PLAYOUT_RESERVE`; with `limits.first_game` such games lead it first, before
        the depth-by-depth search (`_first_game`). With `probe` (`KProbe`), k-induction
        with the depths searched as its base case may end the search, once those games and
        guides found no path: no path of any length reaches the target, `stopped ==
        "k-inductive"`."""
        start = time.perf_counter()
        unrolling = self.unrolling()
        first = shortest(unrolling, target, 0, 0, deadline)
        if first.trace is not None or first.stopped.startswith("solver"):
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
            return Search(None, 0, time.perf_counter() - start, first.queries + 1, "unreachable")
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
                    led.seconds, led.queries = time.perf_counter() - start, queries
                    keep_guide(self.spec, guide, [move.rule for move, _ in led.trace.steps] if led.trace else ())
                    return led
        if limits.first_game and play is not None:
            early, asked = self._first_game(target, play, bound, deadline)
            queries += asked
            if early is not None:
                early.seconds, early.queries = time.perf_counter() - start, queries
                if guide is not None and early.trace is not None:
                    keep_guide(self.spec, guide, [move.rule for move, _ in early.trace.steps])
                return early
        if self.any_guide and guide is not None:
            along, asked = self._along_any_guide(target, guide, bound, deadline)
            queries += asked
            if along is not None:
                along.seconds, along.queries = time.perf_counter() - start, queries
                return along
        # The probe after the cheap attempts above: a game they find refutes at once, where
        # every k below its length fails (president_breaks_ties at 5 players: majority_elects
        # broken 47 moves in, refuted along a random game after 75 s of k-induction that
        # could not succeed). Asked here too when the bound is past the depth limit, where
        # `shortest` asks nothing; there it asks the same again, which costs nothing.
        if probe is not None and probe(bound - 1):
            return Search(None, bound - 1, time.perf_counter() - start, queries, "k-inductive")
        plain = deadline
        if play is not None and deadline is not None:
            plain = deadline - min(PLAYOUT_RESERVE, PLAYOUT_SHARE * max(0.0, deadline - time.perf_counter()))
        found = shortest(unrolling, target, bmc_depth(limits), bound, plain, probe)
        if play is not None and found.trace is None and (found.stopped == "time" or found.stopped.startswith("solver")):
            found = self._played(target, play, found, deadline)
        found.seconds = time.perf_counter() - start
        found.queries += queries
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
        at_least = stalled.depth + 1 if stalled.stopped == "time" else stalled.depth
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
        (`_no_move`; a phase with no rule at all is stuck whenever it is reached); None
        when no phase's are. A
        deadlock deep in a game is sought along the rules' own games with it (deep.py): a
        mutant that needs a new Fascist tile in every draw (R-L1) sticks at the first draw
        after a policy peek, 36 moves in at 5 players, where the plain search, one query
        per depth, had reached 26 moves when its time ran out."""
        system = self.system
        by_phase = [(number, [rule for rule in self.spec.rules if rule.phase == name])
                    for number, name in enumerate(system.phases)
                    if number != self.game.over_phase and (phases is None or name in phases)]
        usable = [(number, rules) for number, rules in by_phase if _expandable(system, rules)]
        if not usable:
            return None

        def stuck(state: State) -> z3.BoolRef:
            terms = []
            for number, rules in usable:
                none = _no_move(system, rules, state)
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
_SPECS: dict[str, Spec] = {}
_BY_SOURCE: dict[tuple[str, str, tuple[str, ...], int, bool], Backend] = {}


def backend_for(spec: Spec, players: int, infer: bool = False, hints: bool = True,
                deadline: float | None = None) -> Backend:
    """The backend of a spec and player count, built once per spec object: with the
    strengthening invariants of spec/invariants.toml (`hints`), and with inferred ones
    (`infer`, verify/smt/infer.py; implied when there are no hints). Inference stopped
    at `deadline` raises `OutOfTime` and keeps no backend."""
    key = (id(spec), players, infer or not hints, hints)
    if key not in _BACKENDS:
        _BACKENDS[key] = (spec, _new_backend(spec, players, hints, deadline, infer))
    return _BACKENDS[key][1]


def backend_built(spec: Spec, players: int, infer: bool = False, hints: bool = True) -> bool:
    """Whether `backend_for` with these arguments would return a backend already built."""
    return (id(spec), players, infer or not hints, hints) in _BACKENDS


def rules_never_fire(spec: Spec, players: int, rules: Sequence[Rule], hints: bool = True) -> bool:
    """Whether none of `rules` (rules of `spec`, or rule-local changes of them) is enabled
    in any state satisfying its proved strengthening invariants at `players`, hence in any
    reachable state: the mutation analysis's proof that a mutated rule, before and after
    the change, never fires there (say a power no board of that count has). The backend
    is kept per rules file, so the support is proved once however often the rules are
    loaded again. Without `hints`, the invariants are inferred (`backend_for`)."""
    return _backend_of_source(spec, players, hints).induction.never_fires(rules)


def rule_makes_the_same_moves(spec: Spec, players: int, base: Rule, mutant: Rule, hints: bool = True,
                              also: Sequence[Rule] = ()) -> bool:
    """Whether rule `base` of `spec` and a change of it (`mutant`, same name and
    parameters) make the same moves, with the same odds and effects, in every state
    satisfying the rules' proved strengthening invariants at `players` (a requirement the
    others imply, a bound no reachable state meets). Effects are compared on the fields
    live where the move goes, for both rule sets (spec/liveness.py; `also`: the other
    rules the same mutant changes, whose reads count too): a change that only leaves a
    different value in stale bookkeeping changes no game. The backend is kept as for
    `rules_never_fire`."""
    return _backend_of_source(spec, players, hints).induction.same_moves(
        base, mutant, live_fields(spec, [mutant, *also]))


def rule_stops_a_quiet_step_short(spec: Spec, players: int, base: Rule, mutant: Rule, hints: bool = True) -> bool:
    """Whether a change of a forced rule of `spec` only leaves the game one quiet forced
    move short of where the rule goes, which that move then reaches
    (`Induction.same_moves_but_a_quiet_step`): the same games but for bookkeeping."""
    return _backend_of_source(spec, players, hints).induction.same_moves_but_a_quiet_step(
        base, mutant, live_fields(spec, [mutant]))


def rule_sets_play_the_same_games(spec: Spec, other: Spec, players: int, seconds: float = 60.0,
                                  hints: bool = True) -> Relation:
    """Whether two rule sets with the same fields and rules by name (a mutant and the rules
    it changes) play the same games at `players`, proved by a relational inductive
    invariant over their product (verify/smt/relational.py), each side constrained by its
    own proved support (without `hints`, inferred). `relation.proved` only when every step
    is proved."""
    try:
        mine, theirs = _backend_of_source(spec, players, hints), _new_backend(other, players, hints)
        first, second = mine.system.state("pair_a"), theirs.system.state("pair_b")
        relation = equivalent(mine.system, mine.induction.support_terms(first), theirs.system,
                              theirs.induction.support_terms(second), first, second, seconds)
        if relation.proved and not initial_related(mine.system, theirs.system, first, second, relation):
            relation.proved, relation.reason = False, "the initial states differ"
    except (SpecError, KeyError, ValueError, TypeError, IndexError, z3.Z3Exception) as error:
        relation = Relation(reason=f"not comparable: {str(error)[:80]}")
    return relation


def _backend_of_source(spec: Spec, players: int, hints: bool = True) -> Backend:
    """The backend of a rules file and count, kept however often the file is loaded again
    (the mutation analysis loads the rules once per mutant)."""
    key = (spec.name, spec.source, spec.overlays, players, hints)
    if key not in _BY_SOURCE:
        _BY_SOURCE[key] = _new_backend(spec, players, hints)
    return _BY_SOURCE[key]


def _new_backend(spec: Spec, players: int, hints: bool, deadline: float | None = None,
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
    _SPECS.clear()
    _BY_SOURCE.clear()
    _CATALOGUES.clear()
    forget_guides()


def _deadline(limits: Limits) -> float | None:
    return None if limits.time_limit is None else time.perf_counter() + limits.time_limit


def _searched(found: Search, what: str) -> str:
    """How far a BMC search that found nothing got, and why it stopped."""
    if found.stopped == "depth":
        return f"no {what} within {found.depth} moves (the depth limit)"
    return f"no {what} in fewer than {found.depth} moves; stopped at {found.depth} moves ({found.stopped})"


def _cti(outcome: Outcome, game: Any, lead: str) -> str:
    if outcome.counterexample is None:
        return f"{lead}: {outcome.unknown or 'no proof'}"
    return lead + "; counterexample to induction:\n" + "\n".join(outcome.counterexample.lines(game))


def check_property(spec: Spec, prop: Property, players: int, limits: Limits = Limits(), infer: bool = False,
                   hints: bool = True) -> Verdict:
    """The solver's verdict on one property for one player count (of the limits, the
    solver reads `max_depth`, `k` and `time_limit`, seconds for this property; `infer`
    and `hints` as for `backend_for`)."""
    if players not in prop.players:
        return Unknown(Evidence("k-induction"), f"'{prop.name}' is not stated for {players} players")
    if prop.rules and prop.rules != spec.name and not is_monitored(spec):
        # A property over monitored rules (the order of play, spec/order.py): decided on
        # them, when they are these rules with the monitor; rules built in memory have none.
        # A question's own monitored rules (a temporal query, spec/temporal.py) are `spec`
        # itself: asked on them, not loaded again (which would ask again, without end).
        monitored = load_spec(prop.rules)
        if load_spec(spec.source if spec.source.endswith(".toml") else spec.name) != spec:
            return Unknown(Evidence("k-induction"), "the order of play is followed on rules loaded by name, with "
                                                    "its monitor; these rules were built in memory")
        own = {p.name: p for p in catalogue_of(monitored)}
        return check_property(monitored, own.get(prop.name, prop), players, limits, infer, hints)
    start = time.perf_counter()
    try:
        backend = backend_for(spec, players, infer, hints, _deadline(limits))
    except OutOfTime as stopped:
        return _inference_stopped(stopped, limits)
    if limits.time_limit is not None:
        left = max(0.5, limits.time_limit - (time.perf_counter() - start))
        limits = dataclasses.replace(limits, time_limit=left)
    return _noting_inference(backend, _decide(backend, prop, limits))


def _inference_stopped(stopped: OutOfTime, limits: Limits) -> Unknown:
    """The verdict when inferring strengthening invariants did not finish in time."""
    return Unknown(Evidence("k-induction", seconds=stopped.seconds),
                   f"limit: inferring strengthening invariants took longer than the {limits.time_limit:.0f} s given "
                   f"({stopped}, {len(stopped.remaining)} candidates left, cached for the next run)")


def verdicts_under(spec: Spec, players: int, props: Sequence[Property], seconds: float, hints: bool = True,
                   any_guide: bool = False, each: float | Sequence[float] | None = None,
                   deep: float | None = None, shallow: float | None = None,
                   played: float | None = None) -> Iterator[tuple[Property, Verdict]]:
    """The solver's verdicts on `props` under a rule set seen once (a mutant), one at a
    time, within `seconds` in all (each property gets what is left); the backend is not
    kept, so a run over hundreds of mutants does not hold hundreds of solvers. A rule set
    the solver cannot encode, or whose invariants are not inferred (no `hints`) in time,
    ends the sequence: nothing is claimed for it. `any_guide`: witnesses are first sought
    along kept guides of any length (`Backend._along_any_guide`). `each`: at most this many
    seconds for one property, so that one the solver cannot decide leaves time for the rest;
    several (shortest first) ask the properties in passes, each pass only those the ones
    before left unknown: the first pass answers every property the solver decides quickly
    before the hard ones take their long turns. `deep` (with two passes or more): between
    the first and the second, at most this many seconds for violations of the properties
    left unknown along the rules' own games (verify/smt/deep.py), which the plain search
    reaches only one slow query per depth. `shallow`: before the backend is built (and its
    invariants inferred), at most this many seconds for the shortest games of the bare
    rules breaking a state or move invariant (verify/smt/shallow.py); `played` (with
    `shallow`): then at most this many seconds more for those still open along the rules of
    random games breaking them. A property's verdict is yielded once, when decided or,
    unknown, after the last pass it was asked in."""
    # A property over monitored rules (the order of play) is not one of a rule set built
    # in memory: asked last, its verdict stays unknown (spec/order.py `own_properties`).
    owned = set(own_properties(spec, props))
    yield from _verdicts_of_own(spec, players, [prop for prop in props if prop in owned], seconds, hints,
                                any_guide, each, deep, shallow, played)
    for prop in props:
        if prop not in owned and players in prop.players:
            yield prop, Unknown(Evidence("k-induction"), "the order of play is followed on rules loaded by name, "
                                                         "with its monitor; these rules were built in memory")


def _verdicts_of_own(spec: Spec, players: int, props: Sequence[Property], seconds: float, hints: bool,
                     any_guide: bool, each: float | Sequence[float] | None, deep: float | None,
                     shallow: float | None, played: float | None) -> Iterator[tuple[Property, Verdict]]:
    """`verdicts_under` for properties over `spec`'s own fields."""
    deadline = time.perf_counter() + seconds
    caps: list[float | None] = [None] if each is None else [each] if isinstance(each, (int, float)) else list(each)
    asked = [prop for prop in props if players in prop.players]
    try:
        if shallow is not None:
            broken: set[str] = set()
            depths = min(deadline, time.perf_counter() + shallow)
            along = None if played is None else min(deadline, depths + played)
            for prop, refuted in violations_within(spec, players, asked, depths, along):
                broken.add(prop.name)
                yield prop, refuted
            asked = [prop for prop in asked if prop.name not in broken]
        backend = _new_backend(spec, players, hints, deadline)
        backend.any_guide = any_guide
        left_unknown: dict[str, Verdict] = {}
        for number, cap in enumerate(caps):
            last = number == len(caps) - 1
            if number == 1 and deep is not None and left_unknown:
                undecided = [prop for prop in asked if prop.name in left_unknown]
                for prop, refuted in violations_along_the_rules(backend, undecided,
                                                                min(deadline, time.perf_counter() + deep)):
                    left_unknown.pop(prop.name, None)
                    yield prop, refuted
            for prop in asked:
                if number and prop.name not in left_unknown:
                    continue
                left = deadline - time.perf_counter()
                if left <= 0:
                    break
                given = left if cap is None else min(left, cap)
                verdict = _noting_inference(backend, _decide(backend, prop, Limits(time_limit=given)))
                if not isinstance(verdict, Unknown) or last:
                    left_unknown.pop(prop.name, None)
                    yield prop, verdict
                else:
                    left_unknown[prop.name] = verdict
        for prop in asked:
            if prop.name in left_unknown:
                yield prop, left_unknown[prop.name]
    except (SpecError, KeyError, ValueError, TypeError, IndexError, z3.Z3Exception, OutOfTime):
        return


def _decide(backend: Backend, prop: Property, limits: Limits) -> Verdict:
    """The solver's verdict on one property with a backend already built."""
    if prop.kind in ("always", "never") and prop.state is not None:
        return _state_invariant(backend, prop, limits)
    if prop.kind in ("always", "never", "shows"):
        return _move_invariant(backend, prop, limits)
    if prop.kind == "sometimes":
        return _witness(backend, prop, limits)
    if prop.kind == "terminates":
        return _terminates(backend, limits, prop)
    if prop.kind == "deadlock_free":
        return _deadlock_free(backend, limits, prop)
    if prop.kind in ("allows", "only"):
        return _permission(backend, prop, limits)
    if prop.kind == "in_range":
        return _in_range(backend, limits)
    return Unknown(Evidence("k-induction"), f"{prop.kind}: not a kind of property the solver decides")


def _state_invariant(backend: Backend, prop: Property, limits: Limits) -> Verdict:
    start = time.perf_counter()
    deadline = _deadline(limits)
    induction = backend.induction
    support = induction.support()
    assert prop.state is not None
    node = prop.state
    negate = prop.kind == "never"
    known = {c.name: c for c in induction.candidates}
    if prop.name in known and known[prop.name].text == prop.text:
        candidate = known[prop.name]
    else:
        candidate = Candidate(prop.name, "property", prop.text, induction.state_invariant(prop, induction.before),
                              induction.state_invariant(prop, induction.after, successor=True))
    note = (f"with {_kept(backend)} "
            f"(support: {support.seconds:.2f} s, {support.queries} queries)")
    outcome = induction.consecution_of(candidate)
    if outcome.proved and induction.initial(candidate.before):
        return Proved(Evidence("k-induction", depth=1, seconds=time.perf_counter() - start, note=note))
    first = outcome
    if induction.initial(candidate.before):
        for k in range(2, largest_k(limits) + 1):
            if deadline is not None and time.perf_counter() > deadline:
                break
            invariant = (lambda state: z3.Not(backend.system.holds(node, state))) if negate else \
                (lambda state: backend.system.holds(node, state))
            attempt = induction.k_induction(invariant, k, prop.name)
            if attempt.proved:
                base = backend.search(backend.state_target(node, not negate), Limits(max_depth=k - 1, k=limits.k),
                                      deadline)
                if base.trace is None and base.stopped in ("depth", "unreachable"):
                    return Proved(Evidence("k-induction", depth=k, seconds=time.perf_counter() - start, note=note))
                break
    target = violation_target(backend, prop)
    assert target is not None
    probe = _probe(backend, target, limits, deadline)
    found = backend.search(target, limits, deadline, play=prop, probe=probe)
    seconds = time.perf_counter() - start
    decided = _decided_by_search(found, seconds, f"reachable in {found.depth} moves",
                                 "no path of one step or more ends in a violation, and the initial state satisfies it")
    if decided is not None:
        return decided
    proved = _k_proved(found, probe, backend, seconds, "no violation")
    if proved is not None:
        return proved
    return Unknown(Evidence("k-induction", depth=largest_k(limits), seconds=seconds),
                   _cti(first, backend.game, f"not inductive; {_searched(found, 'violation')}"))


def _kept(backend: Backend) -> str:
    """How many strengthening invariants the proof stands on, and how many were inferred."""
    support = backend.induction.support()
    inferred = sum(1 for c in support.kept if c.origin == "inferred")
    return (f"{len(support.kept)} proved strengthening invariants"
            + (f" ({inferred} of them inferred)" if inferred else ""))


def _inferred(backend: Backend) -> str:
    """What a proof's note adds when the support it used has inferred invariants (none: nothing)."""
    inferred = sum(1 for c in backend.induction.support().kept if c.origin == "inferred")
    return f" ({inferred} of them inferred from played games)" if inferred else ""


def _noting_inference(backend: Backend, verdict: Verdict) -> Verdict:
    """A proof made with inferred invariants in its support says so in its note, however it
    was made (a witness or refutation stands on its game alone)."""
    inferred = sum(1 for c in backend.induction.support().kept if c.origin == "inferred")
    if not inferred or not isinstance(verdict, (Proved, Unwitnessed)) or "inferred" in verdict.evidence.note:
        return verdict
    note = ((verdict.evidence.note + "; ") if verdict.evidence.note else "") + \
        f"with {inferred} strengthening invariants inferred from played games"
    return dataclasses.replace(verdict, evidence=dataclasses.replace(verdict.evidence, note=note))


def _refuted_by(found: Search, seconds: float, message: str, note: str = "") -> Refuted:
    """The refutation by the game a search found, saying how it was found when not by the
    plain search (along a random game, `Backend._played`) and then, when it is not proved
    a shortest, from what length on one may be (`found.lower_bound`)."""
    return Refuted(Evidence("bmc", depth=found.depth, seconds=seconds, note=found.note or note), played(found.trace),
                   message, lower_bound=found.lower_bound)


def _decided_by_search(found: Search, seconds: float, refuted: str, proved: str) -> Verdict | None:
    """A state property's verdict from the search for a state breaking it: refuted by the
    game found, proved when no path of any length reaches one, None when the search
    stopped at a limit."""
    if found.trace is not None:
        return _refuted_by(found, seconds, refuted)
    if found.stopped == "unreachable":
        return Proved(Evidence("k-induction", depth=1, seconds=seconds, note=proved))
    return None


def _in_range(backend: Backend, limits: Limits) -> Verdict:
    """`in_range`: every field's declared range (its typing candidate) is in the proved
    support, or else the shortest game that leaves one, by BMC."""
    start = time.perf_counter()
    support = backend.induction.support()
    left_out, outside = out_of_range(backend)
    note = (f"every field's declared range is inductive together with the {len(support.kept)} proved "
            f"strengthening invariants (support: {support.seconds:.2f} s)")
    if outside is None:
        return Proved(Evidence("k-induction", depth=1, seconds=time.perf_counter() - start, note=note))
    deadline = _deadline(limits)
    probe = _probe(backend, outside, limits, deadline)
    found = backend.search(outside, limits, deadline, probe=probe)
    seconds = time.perf_counter() - start
    decided = _decided_by_search(found, seconds, f"a value outside its declared range after {found.depth} moves",
                                 "no path of one step or more leaves a declared range")
    if decided is not None:
        return decided
    proved = _k_proved(found, probe, backend, seconds, "no value leaves its declared range")
    if proved is not None:
        return proved
    return Unknown(Evidence("k-induction", depth=1, seconds=seconds),
                   f"the ranges of {', '.join(left_out[:3])} are not inductive; {_searched(found, 'value out of range')}")


def _move_invariant(backend: Backend, prop: Property, limits: Limits) -> Verdict:
    start = time.perf_counter()
    support = backend.induction.support()
    outcome = backend.induction.move_step(prop)
    note = f"one step from every state satisfying the {_kept(backend)}"
    if outcome.proved:
        return Proved(Evidence("k-induction", depth=1, seconds=time.perf_counter() - start, note=note))
    target = violation_target(backend, prop)
    assert target is not None
    deadline = _deadline(limits)
    probe = _probe(backend, target, limits, deadline)
    found = backend.search(target, limits, deadline, play=prop, probe=probe)
    seconds = time.perf_counter() - start
    if found.trace is not None:
        return _refuted_by(found, seconds, f"a violating move after {found.depth - 1} moves")
    if found.stopped == "unreachable":
        return Proved(Evidence("k-induction", depth=1, seconds=seconds, note="no violating move is reachable"))
    proved = _k_proved(found, probe, backend, seconds, "no violating move")
    if proved is not None:
        return proved
    return Unknown(Evidence("k-induction", depth=1, seconds=seconds),
                   _cti(outcome, backend.game, f"not proved in one step; {_searched(found, 'violation')}"))


def prove_never_happens(spec: Spec, prop: Property, players: int, infer: bool = False,
                        seconds: float | None = None) -> Verdict:
    """Only the solver's cheap proof that a `sometimes` property never happens at `players`
    (its negation inductive with the support, one step), without the BMC search for a
    witness that `check_property` goes on to, which can take many seconds: a question
    whose answer is no is decided about as fast as the same question asked as `never`.
    `Unwitnessed` when proved, else `Unknown` (it may happen; nothing was searched).
    With `infer`, the support has inferred invariants too, found within `seconds`."""
    if prop.kind != "sometimes":
        return Unknown(Evidence("k-induction"), f"{prop.kind}: not a `sometimes` property")
    if players not in prop.players:
        return Unknown(Evidence("k-induction"), f"'{prop.name}' is not stated for {players} players")
    limits = Limits(time_limit=seconds)
    try:
        backend = backend_for(spec, players, infer, deadline=_deadline(limits) if infer else None)
    except OutOfTime as stopped:
        return _inference_stopped(stopped, limits)
    start = time.perf_counter()
    proof = _negation_inductive(backend, prop, start)
    if proof is not None:
        return proof
    return Unknown(Evidence("k-induction", depth=1, seconds=time.perf_counter() - start),
                   "its negation is not inductive with the proved strengthening invariants; no witness was searched")


def _negation_inductive(backend: Backend, prop: Property, start: float) -> Verdict | None:
    """`Unwitnessed` when a `sometimes` property's negation holds initially and no step
    from a state satisfying the support breaks it; None when that is not proved."""
    induction = backend.induction
    if prop.state is not None:
        never = Candidate(f"never {prop.name}", "property", prop.text,
                          z3.Not(backend.system.holds(prop.state, induction.before)),
                          z3.Not(backend.system.holds(prop.state, induction.after, successor=True)))
        if induction.initial(never.before) and induction.consecution_of(never).proved:
            return Unwitnessed(Evidence("k-induction", depth=1, seconds=time.perf_counter() - start,
                                        note="its negation is inductive with the proved strengthening invariants"
                                             + _inferred(backend)))
    elif induction.move_step(Property(prop.name, "never", prop.description, prop.rule_ids, prop.players,
                                      prop.expect, None, prop.move, prop.on, prop.text, prop.where)).proved:
        return Unwitnessed(Evidence("k-induction", depth=1, seconds=time.perf_counter() - start,
                                    note="no step from a state satisfying the proved invariants is such a move"
                                         + _inferred(backend)))
    return None



K_INDUCTION_FIRST = 2
"""The first k tried; each next one doubles it (a proof for k holds for any larger k, so
doubling reaches a k that works in a few queries, each dearer than the last)."""

K_INDUCTION_LARGEST = 64
"""The largest k a search's probe tries (`KProbe`): a query's path grows with k, and with
neither this bound nor a time limit one (a move invariant of the tie_passes mutant at 6
players, asked before the search) grew to 17 GB in ten minutes."""


def _witness(backend: Backend, prop: Property, limits: Limits) -> Verdict:
    start = time.perf_counter()
    proof = _negation_inductive(backend, prop, start)
    if proof is not None:
        return proof
    target = backend.state_target(prop.state, False) if prop.state is not None else backend.move_target(prop, False)
    deadline = _deadline(limits)
    searched = None if deadline is None or limits.time_limit is None else \
        deadline - K_INDUCTION_SHARE * limits.time_limit
    found = backend.search(target, limits, searched, guide=prop.name, play=prop)
    seconds = time.perf_counter() - start
    if found.trace is not None:
        return Witnessed(Evidence("bmc", depth=found.depth, seconds=seconds, note=found.note), Played.of(found.trace),
                         found.trace.elections(), found.lower_bound)
    if found.stopped == "unreachable":
        return Unwitnessed(Evidence("bmc", depth=0, seconds=seconds,
                                    note="no path of one step or more ends there, and the initial state does not"))
    covered = _searched_below(found)
    k = _k_inductive(backend, target, covered, deadline)
    if k is not None:
        return Unwitnessed(Evidence("k-induction", depth=k, seconds=time.perf_counter() - start,
                                    note=f"its negation is {_by_k_induction(backend, k, covered)}"))
    return Unknown(Evidence("bmc", depth=found.depth, seconds=time.perf_counter() - start),
                   _searched(found, "witness") + "; its negation is not k-inductive for a k the search covers")


def _searched_below(found: Search) -> int:
    """The depth up to which a stalled search proved that no path reaches the target:
    every depth up to the one it stopped at when time ran out there, one less when the
    solver gave up on that depth."""
    return found.depth if found.stopped.startswith("time") else found.depth - 1


def _k_inductive(backend: Backend, target: Target, covered: int, deadline: float | None) -> int | None:
    """The k for which "no game meets `target`" is k-inductive with the support
    (`Induction.k_induction_of`), k = 2, 4, 8, … up to `covered`: the depth a search showed
    no game of that many moves or fewer meets it, the base case; None when none is
    proved before `deadline`. A thing that never happens, but not inductively in one step,
    is proved by a longer k where a search can only say it found nothing. The same
    doubling as a search's probe (`KProbe`), asked once the search has ended."""
    probe = KProbe(backend, target, math.inf, deadline)
    return probe.proved if probe(covered) else None


def _by_k_induction(backend: Backend, k: int, covered: int) -> str:
    """How a k-induction proof with its base case is told."""
    return (f"{k}-inductive with the proved strengthening invariants{_inferred(backend)}, and no game "
            f"reaches it in {covered} moves or fewer")


def _terminates(backend: Backend, limits: Limits = Limits(), prop: Property | None = None) -> Verdict:
    """Every maximal game ends in a win (R-W5), as the explicit search reads it: no game
    goes on for ever and none stops with no legal move before a win. Proved by a ranking
    every move decreases together with deadlock freedom (`_deadlock_free`); refuted by the
    shortest game to a deadlock, or to a state that a cycle of a few moves brings back
    (verify/smt/lasso.py), random games that come back to a state leading the search when
    it stalls (`prop`, as for `_reach`). A finite game that stops short of a win does not
    end: a ranking alone proves only that every game is finite."""
    ranking = backend.strengthening.ranking
    outcome, bound = backend.induction.ranking()
    ranged = ""
    if not outcome.proved and outcome.counterexample is not None and ranking is not None and _k_seconds(limits):
        ranges = _ranges_hold(backend, limits)
        if ranges is not None:
            lemmas, ranged = ranges
            outcome, bound = backend.induction.ranking(lemmas)
    stuck = _deadlock_free(backend, limits, None if prop is None else dataclasses.replace(prop, kind="deadlock_free"))
    if isinstance(stuck, Refuted):
        return stuck
    if outcome.proved and ranking is not None:
        which = "the ranking found in played games" if ranking.where.file == "<ranking>" else "the ranking"
        finite = (f"{which} {ranking.text} is >= 0 and decreases on every move{ranged}; no game is longer than "
                  f"{bound} moves")
        seconds = outcome.seconds + stuck.evidence.seconds
        if isinstance(stuck, Proved):
            return Proved(Evidence("ranking", depth=1, seconds=seconds,
                                   note=f"{finite}; every state but a won game has a move"))
        assert isinstance(stuck, Unknown)
        return Unknown(Evidence("ranking", seconds=seconds),
                       f"{finite}, but a game may stop with no legal move before a win: {stuck.reason}")
    lead = "the ranking is not proved"
    cycle = backend.cycle()
    reached = _reach(backend, cycle.target(), limits, prop)
    if reached.trace is not None:
        closed = cycle.close(reached.trace, _deadline(limits))
        if closed is not None:
            reached.trace, length = closed
            return _refuted_by(reached, outcome.seconds + reached.seconds, never_ends(reached.depth, length),
                               REACHED)
    cycling = f"a state that starts a cycle of at most {CYCLE_MOVES} moves"
    if reached.stopped == "unreachable":
        lead += f" (no game reaches {cycling}; a longer one is not looked for)"
    else:
        lead += _unreached(reached, cycling)
    return Unknown(Evidence("ranking", seconds=outcome.seconds), _cti(outcome, backend.game, lead))


def _ranges_hold(backend: Backend, limits: Limits) -> tuple[list[z3.BoolRef], str] | None:
    """The declared ranges the support leaves out, as terms over the induction's state
    before a step, and how they were proved (no game leaves one: the search for one
    (`_reach`) ended by k-induction, `KProbe`); None when they are not proved. A ranking
    counts down from a field's declared bound: under no_topdecking at 5 players the
    support once allowed a sixth Liberal policy, which no game reaches (2-inductive), and
    the ranking was negative there (tests/test_infer.py leaves those bounds out again).
    Asked only when the property's time holds k-induction (`_k_seconds`): with less (the
    mutation gate's first pass), the search for a game that comes back to a state, which
    can refute, has the time alone."""
    left_out, outside = out_of_range(backend)
    if outside is None:
        return None
    probe = _probe(backend, outside, limits, _deadline(limits))
    found = _reach(backend, outside, limits, probe=probe)
    if found.stopped == "unreachable":
        how = "no path of one step or more leaves them"
    elif found.stopped == "k-inductive" and probe is not None and probe.proved is not None:
        how = f"that none leaves them is {_by_k_induction(backend, probe.proved, found.depth)}"
    else:
        return None
    system, before = backend.system, backend.induction.before
    lemmas = [term for name, term in system.typing(before) if name in left_out]
    return lemmas, f" within the declared ranges of {', '.join(left_out)} ({how})"


def _deadlock_free(backend: Backend, limits: Limits = Limits(), prop: Property | None = None) -> Verdict:
    """Every state a game reaches, but a finished game, has a legal move (R-W5). Proved
    phase by phase from the strengthening invariants in one step; where a phase has a
    counterexample to that, the shortest game to a state stuck there is searched for
    (`_reach`): found, it is the refutation; proved that none exists (by the distance
    bound, or by k-induction as the search goes, `KProbe`), the phase is kept on the
    backend (`terminates` asks again) and the next phase is asked. Under
    veto_chaos_first a draw is stuck only with a short pile, which the rules reshuffle
    after a veto's chaos took its top; no invariant found in played games says so, 16
    moves of k-induction do."""
    start = time.perf_counter()
    deadline = _deadline(limits)
    by_k = backend.stuck_free
    while True:
        outcome = backend.induction.deadlock_free(proved=by_k)
        if outcome.proved:
            how = "every state satisfying the proved invariants, but a finished game, has a move"
            if by_k:
                how = (f"no game gets stuck in phase {', '.join(by_k)} (k-induction, k = "
                       f"{', '.join(str(k) for k in by_k.values())}); in every other phase {how}")
            return Proved(Evidence("k-induction", depth=max(by_k.values(), default=1),
                                   seconds=time.perf_counter() - start, note=how))
        lead = "a state satisfying the proved invariants has no move"
        if outcome.counterexample is None:
            break
        if deadline is not None and time.perf_counter() > deadline:
            lead += " (the property's time ran out)"
            break
        phase = backend.game.phase(outcome.counterexample.states[0])
        target = backend.stuck_target([phase])
        probe = _probe(backend, target, limits, deadline)
        reached = _reach(backend, target, limits, prop, probe)
        if reached.trace is not None and not backend.game.legal_moves(reached.trace.end):
            return _refuted_by(reached, time.perf_counter() - start, f"deadlock: no legal move in phase {phase}",
                               REACHED)
        if reached.stopped == "unreachable":
            by_k[phase] = 1
        elif reached.stopped == "k-inductive" and probe is not None and probe.proved is not None:
            by_k[phase] = probe.proved
        else:
            lead += _unreached(reached)
            break
    return Unknown(Evidence("k-induction", seconds=time.perf_counter() - start), _cti(outcome, backend.game, lead))


def _permission(backend: Backend, prop: Property, limits: Limits = Limits()) -> Verdict:
    """`allows` and `only`: proved from the strengthening invariants in one step; where
    that fails, the shortest game to a state breaking it is searched for (`_reach`):
    found, it is the refutation; proved that none exists (by the distance bound, or by
    k-induction as the search goes, `KProbe`), the permission is proved; else the verdict
    stays unknown with the counterexample to induction. The k-induction is needed
    for strict_term_limits at 7 players: its Presidential Candidate
    cannot have the last President next with five alive, but only because every way
    round to him takes more rejections than the Election Tracker allows (16-inductive)."""
    start = time.perf_counter()
    deadline = _deadline(limits)
    induction = backend.induction
    outcome = induction.allowed(prop) if prop.kind == "allows" else induction.obliged(prop)
    note = f"in every state satisfying the {_kept(backend)}"
    if outcome.proved:
        return Proved(Evidence("k-induction", depth=1, seconds=outcome.seconds, note=note))
    what = "no such move is legal" if prop.kind == "allows" else "another move is legal"
    lead = f"a state satisfying the proved invariants where {what}"
    if outcome.counterexample is not None:
        target = lacking_target(backend, prop) if prop.kind == "allows" else move_target(induction.breaks_only(prop))
        probe = _probe(backend, target, limits, deadline)
        reached = _reach(backend, target, limits, prop, probe)
        if reached.trace is not None:
            moves = reached.depth if prop.kind == "allows" else reached.depth - 1
            return _refuted_by(reached, outcome.seconds + reached.seconds, f"{prop.name}: after {moves} moves {what}",
                               REACHED)
        if reached.stopped == "unreachable":
            return Proved(Evidence("k-induction", depth=1, seconds=time.perf_counter() - start,
                                   note=f"no move from a state satisfying the {_kept(backend)} leads to a "
                                        f"breach ({what}), and the game does not start in one"))
        proved = _k_proved(reached, probe, backend, time.perf_counter() - start, f"no breach ({what})")
        if proved is not None:
            return proved
        lead += _unreached(reached)
    return Unknown(Evidence("k-induction", seconds=outcome.seconds), _cti(outcome, backend.game, lead))


def lacking_target(backend: Backend, prop: Property) -> Target | None:
    """The target "an `allows` property's state holds and no move it allows is legal"
    (None when its parameters have too many values to spell out: `_no_move`)."""
    system = backend.system
    assert prop.state is not None and prop.move is not None
    state_node, move_node = prop.state, prop.move
    rules = [system.spec.rule(name) for name in prop.on if name in system.rule_index]
    if not _expandable(system, rules):
        return None

    def lacking(state: State) -> z3.BoolRef:
        def allowed(rule: Rule, variables: dict[str, Any], effects: dict[str, Any]) -> z3.BoolRef:
            return system.holds_for_rule(move_node, rule, state, variables, effects)
        none = _no_move(system, rules, state, allowed)
        assert none is not None
        return z3.And(system.holds(state_node, state), none)
    return state_target(lacking)


EXPANSION_LIMIT = 1_100
"""The most parameter values of one rule spelled out in `_no_move` (a set of seats at 10
players has 1,024)."""


def _expandable(system: System, rules: Sequence[Rule]) -> bool:
    """Whether every rule's parameter values are few enough for `_no_move`."""
    return all(_combinations(system, rule) <= EXPANSION_LIMIT for rule in rules)


def _combinations(system: System, rule: Rule) -> int:
    count = 1
    for param in rule.params:
        low, high = system.param_range(rule, param.name)
        count *= max(0, high - low + 1)
    return count


def _no_move(system: System, rules: Sequence[Rule], state: State,
             also: Callable[[Rule, dict[str, Any], dict[str, Any]], z3.BoolRef] | None = None) -> z3.BoolRef | None:
    """No move of `rules` is legal in `state` (with `also`, none that also satisfies it):
    "for all parameter values" spelled out over each parameter's finite range, since the
    unrolled search hands its terms to a bit-blasting solver that takes no quantifier.
    None when a rule has more than `EXPANSION_LIMIT` parameter values."""
    options: list[z3.BoolRef] = []
    for rule in rules:
        guard, variables, effects = system.rule_parts(rule, state, "reach")
        term = guard if also is None else z3.And(guard, also(rule, variables, effects))
        if _combinations(system, rule) > EXPANSION_LIMIT:
            return None
        names = list(variables)
        ranges = [range(system.param_range(rule, name)[0], system.param_range(rule, name)[1] + 1) for name in names]
        for values in product(*ranges):
            pairs = [(variables[name], _value_like(variables[name], value)) for name, value in zip(names, values)]
            options.append(z3.substitute(term, *pairs) if pairs else term)
    return z3.Not(z3.Or(options)) if options else z3.BoolVal(True)


def _value_like(variable: Any, value: int) -> Any:
    if z3.is_bool(variable):
        return z3.BoolVal(bool(value))
    if z3.is_bv(variable):
        return z3.BitVecVal(value, variable.size())
    return z3.IntVal(value)


REACHED = "the property's violation is reachable: the shortest game to it, found once induction failed"




def _k_seconds(limits: Limits) -> float:
    """The seconds of a property's time given to k-induction (0: none; with no time limit,
    `K_INDUCTION_SECONDS`: a k-induction query for a large k may run for hours, and the
    search after it may refute the property in seconds)."""
    if limits.time_limit is None:
        return K_INDUCTION_SECONDS
    if limits.time_limit < CTI_SECONDS + K_INDUCTION_SECONDS:
        return 0.0
    return max(K_INDUCTION_SECONDS, K_INDUCTION_SHARE * limits.time_limit)


class KProbe:
    """k-induction of "no game meets `target`" as a search goes deeper (`Backend.search`'s
    `probe`): once the search has ruled out every game of `covered` moves or fewer, k = 2,
    4, 8, … up to `covered` (and `K_INDUCTION_LARGEST`) are tried, within `seconds` of
    solver time in all; a k proved with that base case proves that no game ever meets
    it. Asked as the search goes rather than after it, a property no game breaks is
    proved by a small k in seconds where the search would spend its whole time finding
    nothing (under veto_chaos_first at 5 players a draw after a veto's chaos finds three
    tiles: 16-inductive, proved in 39 s where the search had found nothing in 225 s),
    and one a short game breaks costs only the k below that game's length."""

    def __init__(self, backend: Backend, target: Target, seconds: float, deadline: float | None) -> None:
        self.backend, self.target, self.left, self.deadline = backend, target, seconds, deadline
        self.k = K_INDUCTION_FIRST
        self.proved: int | None = None
        self.done = False

    def __call__(self, covered: int) -> bool:
        """Whether "no game meets the target" is proved, every game of `covered` moves or
        fewer having been ruled out."""
        while not self.done and self.k <= min(covered, K_INDUCTION_LARGEST):
            budget = self.left if self.deadline is None else min(self.left, self.deadline - time.perf_counter())
            if budget < 1:
                self.done = True
                break
            began = time.perf_counter()
            timeout = 0 if budget == math.inf else int(budget * 1000)    # 0: no timeout
            outcome = self.backend.induction.k_induction_of(self.target, self.k, timeout)
            self.left -= time.perf_counter() - began
            if outcome.proved:
                self.proved = self.k
                return True
            if outcome.unknown:
                self.done = True
                break
            self.k *= 2
        return False


def _probe(backend: Backend, target: Target | None, limits: Limits, deadline: float | None) -> KProbe | None:
    """The k-induction a search for `target` asks as it goes, when the property's time
    holds it (`_k_seconds`)."""
    seconds = _k_seconds(limits)
    return None if target is None or not seconds else KProbe(backend, target, seconds, deadline)


def _k_proved(found: Search, probe: KProbe | None, backend: Backend, seconds: float, absence: str) -> Proved | None:
    """The proof a search ended by its probe's k-induction gives (None if it did not)."""
    if probe is None or found.stopped != "k-inductive" or probe.proved is None:
        return None
    return Proved(Evidence("k-induction", depth=probe.proved, seconds=seconds,
                           note=f"{absence}: its absence is {_by_k_induction(backend, probe.proved, found.depth)}"))


def _reach(backend: Backend, target: Target | None, limits: Limits, play: Property | None = None,
           probe: KProbe | None = None) -> Search:
    """The search for the shortest game from the initial state to `target`, bounded by
    `CTI_SECONDS` (none when there is no target to search for) and the time `probe` may
    take for its k-induction as the search goes; `play`, the property the target breaks,
    for random games to lead a search the solver's time stops (`Backend.search`)."""
    if target is None:
        return Search(None, 0, 0.0, 0, "not searched: too many parameter values to spell out")
    seconds = CTI_SECONDS if limits.time_limit is None else min(CTI_SECONDS, limits.time_limit)
    if probe is not None:
        seconds += probe.left
    return backend.search(target, Limits(max_depth=limits.max_depth, k=limits.k), time.perf_counter() + seconds,
                          play=play, probe=probe)


def _unreached(found: Search, state: str = "such a state") -> str:
    """What the search for a counterexample to induction's state (`state`, in words)
    showed when it found no game."""
    if found.stopped == "unreachable":
        return f" (no game reaches {state}: the induction lacks an invariant)"
    if found.stopped.startswith("not searched"):
        return f" ({found.stopped})"
    return f" (no game reaches {state} in fewer than {found.depth} moves; the search stopped: {found.stopped})"



def check_players(spec_name: str, players: int, names: tuple[str, ...] | None = None, limits: Limits = Limits(),
                  *_: Any, infer: bool = False, hints: bool = True, **__: Any) -> list[PropertyResult]:
    """The solver's verdicts on the named catalogue properties (all by default) of a rules
    file or variant for one player count (the `shrules check --backend smt` entry);
    `infer` and `hints` as for `backend_for`."""
    if spec_name not in _SPECS:
        _SPECS[spec_name] = load_spec(spec_name)
    spec = _SPECS[spec_name]
    catalogue = catalogue_of(spec)
    wanted = [p for p in catalogue if (names is None or p.name in names) and players in p.players]
    # A property over monitored rules (the order of play, spec/order.py) is decided on them.
    watched = [p for p in wanted if p.rules and p.rules != spec_name]
    wanted = [p for p in wanted if p not in watched]
    on_monitored: list[PropertyResult] = []     # judged, premises included, by the call on their rules
    for rules in dict.fromkeys(p.rules for p in watched):
        on_monitored += check_players(rules, players, tuple(p.name for p in watched if p.rules == rules), limits,
                                      infer=infer, hints=hints)
    stopped = build_once(spec, players, infer, hints, limits, len(wanted)) if wanted else None
    results = []
    for prop in wanted:
        verdict = stopped or check_property(spec, prop, players, limits, infer, hints)
        results.append((prop, PropertyResult(prop.name, players, prop.kind, prop.rule_ids, prop.expect, verdict,
                                             Facts(prop.description, prop.group, backend="smt"))))
    # Each proof's premise must be reached, or it tests nothing (vacuity.py).
    return on_monitored + judge_premises(spec, players, results,
                                         lambda question: check_property(spec, question, players, limits, infer,
                                                                         hints))


def build_once(spec: Spec, players: int, infer: bool, hints: bool, limits: Limits, properties: int
               ) -> Unknown | None:
    """Build the backend for `properties` properties to be asked at one count, inference
    within their time together; the verdict for every one of them when inference did not
    finish, else None. Left to the first property, inference had only that property's
    time, and when it ran out each next property began it again, mining played games
    anew each time: a variant whose inference needs more than one property's time spent
    hours on one count."""
    if (hints and not infer) or limits.time_limit is None or backend_built(spec, players, infer, hints):
        return None
    within = Limits(time_limit=limits.time_limit * max(1, properties))
    try:
        backend_for(spec, players, infer, hints, _deadline(within))
    except OutOfTime as stopped:
        return _inference_stopped(stopped, within)
    return None
