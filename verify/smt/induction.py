"""Unbounded proofs: the inductive support, k-induction, one-step move proofs, the ranking.

The support is the largest inductive subset of the candidate invariants, computed the
Houdini way: the candidates are the typing of every field (its declared range), the
strengthening invariants of spec/invariants.toml and the catalogue's `always` / `never`
state properties. A candidate false in the initial state is dropped; then, assuming all
remaining candidates in s, any candidate that some step can falsify in s' is dropped
(its counterexample to induction kept for the report), until none can be: the remaining
set holds initially and is preserved by every step, so each of its members holds in
every reachable state, for this player count, at every depth. That is the usual
strengthening argument of an inductive invariant: the invariants and the properties
they support are proved together, none is assumed.

A state property outside the support is tried by k-induction (k = 2, 3, ...: k
consecutive distinct states satisfying the support and the property, one more that
breaks it), then searched for a real counterexample by BMC. A move property is proved
over one step from any state satisfying the support; the ranking decreases on every step
from such a state and is never below 0 there.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import z3  # type: ignore[import-untyped]

from engine.game import Game, Move
from engine.trace import changed_fields
from spec.errors import SpecError
from spec.invariants import Strengthening, guard_phase
from spec.lang import nodes as n
from spec.liveness import successor_phases
from spec.model import Rule
from spec.properties import Property

from ..results import StopReason
from .bmc import Target, Window
from .system import State, Step, System


def assert_all(solver: z3.Solver, terms: Sequence[z3.BoolRef]) -> None:
    """`solver.add(*terms)` for thousands of terms (a support with inferred invariants):
    asserted directly, without the Python API's checks on each, which cost more than the
    solver's own work."""
    context, handle = solver.ctx.ref(), solver.solver
    for term in terms:
        z3.Z3_solver_assert(context, handle, term.as_ast())


@dataclass(frozen=True, slots=True)
class Candidate:
    """A candidate invariant: its name, where it comes from, its text, its two terms."""

    name: str
    origin: str             # typing | invariant | property
    text: str
    before: z3.BoolRef       # over s
    after: z3.BoolRef        # over s'
    phase: str | None = None  # the only phase it says anything about (a guarded candidate)


@dataclass(frozen=True, slots=True)
class Counterexample:
    """A counterexample to induction: states satisfying what was assumed, the moves between
    them, and the last state, which breaks what was to be proved. Such a path may or may
    not be reachable from the initial state: it shows what the induction lacks."""

    states: tuple[Any, ...]
    moves: tuple[Move, ...]
    broken: tuple[str, ...]

    def lines(self, game: Game) -> list[str]:
        """The path in words: the first state in full, then each move and what it changed."""
        first = game.describe(self.states[0])
        out = ["state (satisfies every assumed invariant):"]
        out += [f"    {name} = {_show(value)}" for name, value in first.items()]
        for before, move, after in zip(self.states, self.moves, self.states[1:]):
            out.append(f"  move {move.rule} {_params(game, move)}: {game.says(before, move)}")
            out.append("      " + (", ".join(changed_fields(game, before, after)) or "nothing changes"))
        out.append(f"  breaks: {', '.join(self.broken)}")
        return out


def _show(value: Any) -> str:
    return "none" if value is None else str(value)


def _params(game: Game, move: Move) -> str:
    params = game.params_of(move)
    return "(" + ", ".join(f"{k}={_show(v)}" for k, v in params.items()) + ")" if params else ""


@dataclass(slots=True)
class Support:
    """The proved inductive support of one spec and player count."""

    kept: list[Candidate]
    dropped: dict[str, Counterexample | None]     # None: false in the initial state
    seconds: float
    queries: int

    def names(self) -> list[str]:
        """Names of the proved candidates."""
        return [candidate.name for candidate in self.kept]


class OutOfTime(Exception):
    """The support's fixpoint was stopped at its deadline before it closed. Nothing is
    proved then; `remaining` names the candidates not yet dropped, a superset of the
    fixpoint's (Houdini only drops), which a later run may start from."""

    def __init__(self, remaining: Sequence[str], seconds: float, queries: int) -> None:
        super().__init__(f"the fixpoint was stopped after {seconds:.0f} s and {queries} queries" if queries else
                         f"stopped after {seconds:.0f} s, before the fixpoint's first query")
        self.remaining = tuple(remaining)
        self.seconds = seconds
        self.queries = queries


@dataclass(slots=True)
class Outcome:
    """The result of one proof attempt: proved (with k), or the counterexample found."""

    proved: bool
    k: int
    seconds: float
    counterexample: Counterexample | None = None
    unknown: str = ""               # why it is unknown, in words, when there is no counterexample
    stop: StopReason = StopReason.INDUCTION     # ... and typed: SOLVER when the solver gave up


@dataclass(slots=True)
class RuleQuery:
    """One disjunct of the step relation, the step by one rule, ready for queries: its
    relation and every candidate in s with the phase of s fixed to the rule's (so that
    phase-guarded invariants simplify away; those true whatever s is are left out). Each
    query gets a fresh non-incremental solver, whose preprocessing (solving the equations
    that define s', bit-blasting) is far faster on these problems than an incremental
    solver with assumptions."""

    rule: str
    step: Step
    before: State                 # s with its phase the rule's constant (to decode models)
    relation: z3.BoolRef
    assumable: dict[str, z3.BoolRef]
    fixed: tuple[Any, Any]
    model: z3.ModelRef | None = None
    reason: str = ""


class Induction:
    """Induction queries over one transition system (one spec, one player count).

    A one-step query "the assumed candidates hold in s, a step leads to s', and the goal
    holds" is asked rule by rule: the step relation is the disjunction of the rules' steps,
    so the query is unsatisfiable exactly when it is for every rule, and each rule's part
    is a much smaller problem for the solver."""

    def __init__(self, system: System, strengthening: Strengthening, catalogue: Sequence[Property],
                 timeout_ms: int = 0) -> None:
        self.system = system
        self.strengthening = strengthening
        self.catalogue = catalogue
        self.timeout_ms = timeout_ms
        self.deadline: float | None = None   # while the support is computed: `OutOfTime` past it
        self.candidates: list[Candidate] = []
        self._support: Support | None = None
        self._parts: dict[str, RuleQuery] = {}
        self._queries = 0
        self.candidates_by_name: dict[str, Candidate] = {}
        self._initial_model: z3.ModelRef | None = None
        self.before: State = system.state("s")
        self.after: State = system.state("t")
        for (name, before), (_, after) in zip(system.typing(self.before), system.typing(self.after)):
            self.candidates.append(Candidate(f"typing:{name}", "typing", system.typing_text(name), before, after))
        for invariant in self.strengthening.invariants:
            # the phase that spares a candidate the rules not moving into it is read from its
            # own expression (`guard_phase`), so nothing kept beside its text can spare it more
            self.candidates.append(Candidate(invariant.name, invariant.origin, invariant.text,
                                             system.holds(invariant.state, self.before),
                                             system.holds(invariant.state, self.after, successor=True),
                                             guard_phase(self.strengthening.spec, invariant.state)))
        for prop in self.catalogue:
            if prop.state is not None and prop.kind in ("always", "never") and system.players in prop.players:
                self.candidates.append(Candidate(prop.name, "property", prop.text,
                                                 self.state_invariant(prop, self.before),
                                                 self.state_invariant(prop, self.after, successor=True)))
        self.candidates_by_name = {c.name: c for c in self.candidates}
        self.reads = self._reads()
        if len(self.candidates_by_name) < len(self.candidates):
            names = [c.name for c in self.candidates]
            twice = sorted({name for name in names if names.count(name) > 1})
            raise SpecError(f"spec/invariants.toml: an invariant has the name of a property: {', '.join(twice)}")

    def _reads(self) -> dict[str, frozenset[str]]:
        """The state fields each candidate reads (through the definitions it uses)."""
        definitions = self.system.spec.definitions
        out = {f"typing:{name}": frozenset({name}) for name, _ in self.system.typing(self.before)}
        for invariant in self.strengthening.invariants:
            out[invariant.name] = frozenset(n.fields_read([invariant.state], definitions))
        for prop in self.catalogue:
            if prop.state is not None:
                out[prop.name] = frozenset(n.fields_read([prop.state], definitions))
        return out

    def state_invariant(self, prop: Property, state: State, successor: bool = False) -> z3.BoolRef:
        """What an `always` / `never` state property asserts of one state."""
        assert prop.state is not None
        term = self.system.holds(prop.state, state, successor)
        return z3.Not(term) if prop.kind == "never" else term

    def candidate(self, name: str) -> Candidate:
        """The candidate called `name`."""
        return self.candidates_by_name[name]

    # ------------------------------------------------------------------ one-step queries

    def part(self, rule: str) -> RuleQuery:
        """The query material of one rule's step (built once)."""
        if rule in self._parts:
            return self._parts[rule]
        system = self.system
        spec_rule = system.spec.rule(rule)
        phase = system.translator.number(system.phases.index(spec_rule.phase))
        fixed = (self.before["phase"], phase)
        step = system.rule_step(self.before, self.after, spec_rule, "step")
        relation = z3.simplify(z3.substitute(step.relation, fixed))
        assumable = {c.name: z3.simplify(z3.substitute(c.before, fixed)) for c in self.candidates
                     if c.phase in (None, spec_rule.phase)}
        assumable = {name: term for name, term in assumable.items() if not z3.is_true(term)}
        before_state = State({**self.before.fields, "phase": phase})
        self._parts[rule] = RuleQuery(rule, step, before_state, relation, assumable, fixed)
        return self._parts[rule]

    def ask(self, rule: str, assumed: Sequence[Candidate], goal: Any) -> tuple[z3.CheckSatResult, RuleQuery]:
        """Satisfiability of: the assumed candidates in s, a step by `rule`, and `goal(step)`
        (a formula over s, s' and the rule's parameters)."""
        part = self.part(rule)
        self._queries += 1
        solver = z3.SolverFor("QF_BV")
        timeout = self.timeout_ms
        if self.deadline is not None:
            left = max(1, int((self.deadline - time.perf_counter()) * 1000))
            timeout = min(timeout, left) if timeout else left
        if timeout:
            solver.set("timeout", timeout)
        solver.add(part.relation)
        assert_all(solver, [term for term in (part.assumable.get(c.name) for c in assumed) if term is not None])
        solver.add(z3.substitute(goal(part.step), part.fixed))
        result = solver.check()
        part.model = solver.model() if result == z3.sat else None
        part.reason = solver.reason_unknown() if result == z3.unknown else ""
        return result, part

    def ask_all(self, assumed: Sequence[Candidate], goal: Any, rules: Sequence[str] | None = None
                ) -> tuple[z3.CheckSatResult, RuleQuery | None]:
        """`ask` for every rule (or the given ones): the first satisfiable (or unknown)
        answer with its rule's query, or unsat when no rule's step can meet the goal."""
        for rule in rules if rules is not None else self.system.rule_names:
            result, part = self.ask(rule, assumed, goal)
            if result != z3.unsat:
                return result, part
        return z3.unsat, None

    def counterexample(self, part: RuleQuery, broken: Sequence[str]) -> Counterexample:
        """The counterexample to induction in the last model of a rule's solver."""
        model = part.model
        assert model is not None
        system = self.system
        return Counterexample((system.decode_state(model, part.before), system.decode_state(model, self.after)),
                              (system.decode_move(model, part.step),), tuple(broken))

    # ------------------------------------------------------------------ the support

    def support(self, deadline: float | None = None) -> Support:
        """The largest inductive subset of the candidates (computed once): drop what is
        false initially, then whatever some rule's step can falsify, until a full pass over
        the rules drops nothing. Past `deadline` (a `time.perf_counter()` value) the
        computation stops with `OutOfTime` and nothing is kept: a fixpoint that did not
        close proves nothing, and a query the deadline cut short is not a reason to drop
        every candidate (as an unknown answer otherwise is)."""
        if self._support is not None:
            return self._support
        self.deadline = deadline
        try:
            return self._fixpoint()
        finally:
            self.deadline = None

    def _out_of_time(self, kept: Sequence[Candidate], start: float, queries_before: int) -> OutOfTime | None:
        """`OutOfTime` when the support's deadline has passed, else None."""
        if self.deadline is None or time.perf_counter() < self.deadline:
            return None
        return OutOfTime([c.name for c in kept], time.perf_counter() - start, self._queries - queries_before)

    def _fixpoint(self) -> Support:
        """`support`'s Houdini loop."""
        start = time.perf_counter()
        queries_before = self._queries
        dropped: dict[str, Counterexample | None] = {}
        initial = self._initial_values()
        kept = [c for c in self.candidates if initial[c.name]]
        dropped.update({c.name: None for c in self.candidates if not initial[c.name]})
        changed = True
        since: dict[str, set[str]] = {}   # rule -> what was dropped since its step kept everything
        while changed and kept:
            changed = False
            for rule in self.system.rule_names:
                if rule in since and not self._assumed_by(rule, since[rule]):
                    continue   # the same assumptions, no more goals: its step still keeps everything
                spec_rule = self.system.spec.rule(rule)
                landing = successor_phases(spec_rule, self.system.spec)
                written = frozenset(name for name, _ in spec_rule.effect)
                while kept:
                    current = list(kept)
                    typed = {c.name for c in current if c.origin == "typing"}
                    changing = [c for c in current if (c.phase is None or c.phase in landing)
                                and self._may_change(c, written, typed)]
                    goal = [z3.Not(c.after) for c in changing]
                    if not goal:
                        break
                    late = self._out_of_time(kept, start, queries_before)
                    if late is not None:
                        raise late
                    result, part = self.ask(rule, current, lambda step: z3.Or(goal))
                    if result == z3.unsat:
                        since[rule] = set()
                        break
                    late = self._out_of_time(kept, start, queries_before) if result == z3.unknown else None
                    if late is not None:
                        raise late
                    if result == z3.unknown:
                        dropped.update({c.name: None for c in kept})
                        kept = []
                        break
                    model = part.model
                    assert model is not None
                    # the others hold after the step: it keeps what they read, or they speak of another phase
                    broken = [c for c in changing if z3.is_false(model.eval(c.after, model_completion=True))]
                    assert broken, "a model of the disjunction breaks some candidate"
                    example = self.counterexample(part, [c.name for c in broken])
                    dropped.update({c.name: example for c in broken})
                    kept = [c for c in kept if c not in broken]
                    for names in since.values():
                        names.update(c.name for c in broken)
                    changed = True
        self._support = Support(kept, dropped, time.perf_counter() - start, self._queries - queries_before)
        return self._support

    def _assumed_by(self, rule: str, dropped: set[str]) -> bool:
        """Whether a rule's step query assumed any of `dropped` (or a field's typing, whose
        loss widens what the step may change: `_may_change`). If not, the query it answered
        unsat before is the same query with fewer goals, unsat still."""
        assumed = self.part(rule).assumable
        return any(name in assumed or name.startswith("typing:") for name in dropped)

    def _may_change(self, candidate: Candidate, written: frozenset[str], typed: set[str]) -> bool:
        """Whether a step writing only `written` may change the candidate's value: not when
        it reads none of them (the step keeps every field it reads, so it holds after as it
        did before), as long as those fields are still known well typed (the candidate is
        translated for the successor state with wider ranges, which agree with the narrow
        ones only on values in range)."""
        reads = self.reads.get(candidate.name)
        if reads is None or reads & written:
            return True
        return any(f"typing:{name}" in self.reads and f"typing:{name}" not in typed for name in reads)

    def _initial_values(self) -> dict[str, bool]:
        return {c.name: self.initial(c.before) for c in self.candidates}

    def initial(self, formula: z3.BoolRef) -> bool:
        """Whether a formula over s holds in the initial state (which `init` determines)."""
        if self._initial_model is None:
            solver = z3.Solver()
            solver.add(self.system.init(self.before))
            assert solver.check() == z3.sat, "the initial state is not satisfiable"
            self._initial_model = solver.model()
        return bool(z3.is_true(self._initial_model.eval(formula, model_completion=True)))

    def support_terms(self, state: State, inferred: bool = True) -> list[z3.BoolRef]:
        """The proved support as constraints on another state (for BMC and k-induction);
        without the `inferred` clauses where they only slow the solver down: on a path
        from the initial state every state is reachable and satisfies them anyway, and
        thousands of them at every depth of an unrolling cost more than they prune."""
        names = set(self.support().names())
        out: list[z3.BoolRef] = []
        for (name, term) in self.system.typing(state):
            if f"typing:{name}" in names:
                out.append(term)
        for invariant in self.strengthening.invariants:
            if invariant.name in names and (inferred or invariant.origin != "inferred"):
                out.append(self.system.holds(invariant.state, state))
        for prop in self.catalogue:
            if prop.name in names:
                out.append(self.state_invariant(prop, state))
        return out

    # ------------------------------------------------------------------ state properties

    def _outcome(self, start: float, result: z3.CheckSatResult, part: RuleQuery | None, broken: str) -> Outcome:
        seconds = time.perf_counter() - start
        if result == z3.unsat:
            return Outcome(True, 1, seconds)
        assert part is not None
        if result == z3.unknown:
            return Outcome(False, 1, seconds, unknown=f"solver: {part.reason}", stop=StopReason.SOLVER)
        return Outcome(False, 1, seconds, self.counterexample(part, [broken]))

    def consecution(self, name: str) -> Outcome:
        """1-induction of a candidate relative to the support (its own proof obligation)."""
        return self.consecution_of(self.candidate(name))

    def consecution_of(self, candidate: Candidate) -> Outcome:
        """1-induction of any state formula relative to the support: assuming the support
        and the formula in s, no step falsifies the formula in s'."""
        start = time.perf_counter()
        name = candidate.name
        support = self.support()
        assumed = support.kept if candidate in support.kept else support.kept + [candidate]
        if self.candidates_by_name.get(candidate.name) is not candidate:
            return self._ask_extra(start, candidate, assumed)
        result, part = self.ask_all(assumed, lambda step: z3.Not(candidate.after))
        return self._outcome(start, result, part, name)

    def _ask_extra(self, start: float, candidate: Candidate, assumed: Sequence[Candidate]) -> Outcome:
        """`consecution_of` for a formula that is not a candidate: it is assumed in s by
        adding it to each rule's query."""
        for rule in self.system.rule_names:
            part = self.part(rule)
            before = z3.simplify(z3.substitute(candidate.before, part.fixed))
            result, part = self.ask(rule, [c for c in assumed if c.name != candidate.name],
                                    lambda step: z3.And(before, z3.Not(candidate.after)))
            if result != z3.unsat:
                return self._outcome(start, result, part, candidate.name)
        return Outcome(True, 1, time.perf_counter() - start)

    def k_induction(self, invariant: Any, k: int, name: str, timeout_ms: int = 0) -> Outcome:
        """k-induction of a state formula builder `invariant(state)` relative to the support:
        k distinct consecutive states satisfying the support and the invariant cannot step
        to a state that breaks it."""
        start = time.perf_counter()
        system = self.system
        solver = self._path_solver(timeout_ms)
        states = [system.state(f"k{i}") for i in range(k + 1)]
        steps = [system.step(states[i], states[i + 1], f"kstep{i}") for i in range(k)]
        for step in steps:
            solver.add(step.relation)
        for index, state in enumerate(states):
            assert_all(solver, self.support_terms(state))
            solver.add(invariant(state) if index < k else z3.Not(invariant(state)))
        decided = self._distinct_path(solver, states[:k + 1], k, start)
        if decided is not None:
            return decided
        seconds = time.perf_counter() - start
        model = solver.model()
        example = Counterexample(tuple(system.decode_state(model, state) for state in states),
                                 tuple(system.decode_move(model, step) for step in steps), (name,))
        return Outcome(False, k, seconds, example)

    def k_induction_of(self, target: Target, k: int, timeout_ms: int = 0) -> Outcome:
        """k-induction of "no game meets `target`" (a BMC target: a state or the last step,
        verify/smt/bmc.py) relative to the support: a path of k steps through states
        satisfying the support, pairwise distinct but for the last, meeting the target at
        its end and at no depth before, does not exist. With a base case (no game of k
        moves or fewer meets it) that proves no game ever does: the last k steps of a
        shortest game meeting it would be such a path (a shortest game repeats no state
        before its end, where a move target's step may come back to one)."""
        start = time.perf_counter()
        system = self.system
        solver = self._path_solver(timeout_ms)
        path = Window.build(system, k)
        for step in path.steps:
            solver.add(step.relation)
        for state in path.states:
            assert_all(solver, self.support_terms(state))
        for depth in range(k):
            solver.add(z3.Not(target(path, depth)))
        solver.add(target(path, k))
        return self._distinct_path(solver, path.states[:k], k, start) or \
            Outcome(False, k, time.perf_counter() - start)

    def _path_solver(self, timeout_ms: int) -> Any:
        """A fresh solver for a k-induction query, with `timeout_ms` (else the induction's own)."""
        solver = z3.Solver()
        if timeout_ms or self.timeout_ms:
            solver.set("timeout", timeout_ms or self.timeout_ms)
        return solver

    def _distinct_path(self, solver: Any, states: Sequence[State], k: int, start: float) -> Outcome | None:
        """Ask a k-induction query with `states` pairwise distinct (a shortest path to a
        violation repeats no state): its outcome when proved or undecided, None when a
        counterexample is in the solver's model."""
        for i in range(len(states)):
            for j in range(i + 1, len(states)):
                solver.add(z3.Not(self.system.same(states[i], states[j])))
        result = solver.check()
        if result == z3.unsat:
            return Outcome(True, k, time.perf_counter() - start)
        if result == z3.unknown:
            return Outcome(False, k, time.perf_counter() - start, unknown=f"solver: {solver.reason_unknown()}",
                           stop=StopReason.SOLVER)
        return None

    # ------------------------------------------------------------------ move properties, ranking

    def move_step(self, prop: Property) -> Outcome:
        """A move property over one step from any state satisfying the support."""
        assert prop.move is not None
        start = time.perf_counter()

        def bad(step: Step) -> z3.BoolRef:
            assert prop.move is not None
            term = self.system.holds_on_move(prop.move, step, prop.on)
            return term if prop.kind == "never" else z3.Not(term)

        result, part = self.ask_all(self.support().kept, bad, [r for r in prop.on if r in self.system.rule_index])
        return self._outcome(start, result, part, prop.name)

    def obliged(self, prop: Property) -> Outcome:
        """An `only` property over one step from any state satisfying the support: where
        its state holds, no step is of a rule outside `on` or breaks its move expression."""
        assert prop.state is not None and prop.move is not None
        start = time.perf_counter()
        system = self.system
        on = [rule for rule in prop.on if rule in system.rule_index]

        result, part = self.ask_all(self.support().kept, self.breaks_only(prop))
        return self._outcome(start, result, part, prop.name)

    def breaks_only(self, prop: Property) -> Callable[[Step], z3.BoolRef]:
        """An `only` property broken by a step: its state holds before, and the step is of a
        rule outside `on` or breaks its move expression."""
        assert prop.state is not None and prop.move is not None
        system = self.system
        on = [rule for rule in prop.on if rule in system.rule_index]
        state_node, move_node = prop.state, prop.move

        def bad(step: Step) -> z3.BoolRef:
            kept = z3.And(step.fires_any(on), system.holds_on_move(move_node, step, on)) if on else z3.BoolVal(False)
            return z3.And(system.holds(state_node, step.before), z3.Not(kept))
        return bad

    def allowed(self, prop: Property, timeout_ms: int = 120_000) -> Outcome:
        """An `allows` property in every state satisfying the support: where its state
        holds, some move of `on` is legal and satisfies its move expression (a quantifier
        over the parameters, which are finite, as for deadlock freedom)."""
        assert prop.state is not None and prop.move is not None
        start = time.perf_counter()
        system = self.system
        options, bound = [], []
        for name in prop.on:
            if name not in system.rule_index:
                continue
            rule = system.spec.rule(name)
            guard, variables, effects = system.rule_parts(rule, self.before, "allows")
            options.append(z3.And(guard, system.holds_for_rule(prop.move, rule, self.before, variables, effects)))
            bound += list(variables.values())
        stuck = z3.Not(z3.Or(options)) if options else z3.BoolVal(True)
        solver = z3.Solver()
        solver.set("timeout", timeout_ms)
        assert_all(solver, [c.before for c in self.support().kept])
        solver.add(system.holds(prop.state, self.before))
        solver.add(z3.ForAll(bound, stuck) if bound else stuck)
        result = solver.check()
        seconds = time.perf_counter() - start
        if result == z3.unsat:
            return Outcome(True, 1, seconds)
        if result == z3.unknown:
            return Outcome(False, 1, seconds, unknown=f"solver: {solver.reason_unknown()}", stop=StopReason.SOLVER)
        state = system.decode_state(solver.model(), self.before)
        return Outcome(False, 1, seconds, Counterexample((state,), (), (f"{prop.name}: no such move is legal here",)))

    def never_fires(self, rules: Sequence[Rule], timeout_ms: int = 30_000) -> bool:
        """Whether no state satisfying the support enables any of `rules` (rules of this
        system's spec, or rule-local changes of them with the same parameters): True only
        when the solver proves it; a state found, an error or a timeout is False."""
        system = self.system
        try:
            guards = [system.rule_parts(rule, self.before, f"fires{number}")[0] for number, rule in enumerate(rules)]
        except (KeyError, ValueError, TypeError, z3.Z3Exception):
            return False
        return self.never_under_support(z3.Or(guards), timeout_ms)

    def never_under_support(self, formula: z3.BoolRef, timeout_ms: int) -> bool:
        """Whether no state satisfying the support satisfies `formula` (over s): True only
        when the solver proves it within `timeout_ms`."""
        solver = z3.Solver()
        solver.set("timeout", timeout_ms)
        assert_all(solver, [c.before for c in self.support().kept])
        solver.add(formula)
        return bool(solver.check() == z3.unsat)

    def same_moves(self, base: Rule, mutant: Rule, live: Mapping[str, frozenset[str]] | None = None,
                   timeout_ms: int = 30_000) -> bool:
        """Whether a rule and a change of it make the same moves from every state
        satisfying the support: enabled for the same parameter values, with the same odds,
        played by the same seat, and with the same effects where enabled. With `live` (the
        live fields of each phase for both rule sets, spec/liveness.py), an effect need only
        agree where the field is live at the phase the move goes to, and stay within its
        range: a value left in a dead field is never seen. True only when the solver proves
        it."""
        system, before = self.system, self.before
        try:
            guard, _, effects, weight = system.rule_parts_weighted(base, before, "same")
            changed_guard, _, changed_effects, changed_weight = system.rule_parts_weighted(mutant, before, "same")
            differs = [z3.Xor(guard, changed_guard)]
            if (weight is None) != (changed_weight is None):
                return False
            if weight is not None and base.weight != mutant.weight:
                differs.append(z3.And(guard, weight != changed_weight))
            if base.actor_seat != mutant.actor_seat:
                seats = [seat for seat in (base.actor_seat, mutant.actor_seat) if seat is not None]
                if len(seats) != 2 or any(isinstance(item, n.Name) and item.kind in ("param", "let")
                                          for seat in seats for item in n.walk(seat)):
                    return False    # an actor named by a move's own choice: not compared here
                differs.append(z3.And(guard, system.value(seats[0], before) != system.value(seats[1], before)))
            written = State({**before.fields, **changed_effects})
            differs += [z3.And(changed_guard, z3.Not(typed)) for name, typed in system.typing(written)
                        if name in changed_effects]
            going_to = effects.get("phase", before["phase"])
            for name in sorted(set(effects) | set(changed_effects)):
                old, new = effects.get(name, before[name]), changed_effects.get(name, before[name])
                where = self._live_after(name, going_to, live)
                if where is not None:
                    differs.append(z3.And(guard, old != new, where))
            return self.never_under_support(z3.Or(differs), timeout_ms)
        except (KeyError, ValueError, TypeError, z3.Z3Exception):
            return False

    def same_moves_but_a_quiet_step(self, base: Rule, mutant: Rule, live: Mapping[str, frozenset[str]],
                                    timeout_ms: int = 30_000) -> bool:
        """Whether a change of a forced rule of the game (no parameters, no odds) only
        stops one quiet step short: enabled exactly where the rule is, it leaves the state
        the rule leaves but for the phase, in a phase where the game's one forced move is
        a quiet rule that takes it on to that state (live fields and phase). The games are
        then the same but for an invisible bookkeeping move, as `shrules diff` compares
        them (say a reshuffle that forgets to close the session, which the check of the
        pile then closes). True only when the solver proves it."""
        system, before = self.system, self.before
        if base.actor != "game" or mutant.actor != "game" or base.params or mutant.params:
            return False
        try:
            guard, _, effects, _ = system.rule_parts_weighted(base, before, "quiet")
            changed_guard, _, changed_effects, _ = system.rule_parts_weighted(mutant, before, "quiet")
            if set(changed_effects) - set(effects) or not set(effects) - set(changed_effects) <= {"phase"}:
                return False
            stopped = State({name: changed_effects.get(name, term) for name, term in before.fields.items()})
            goal = {name: effects.get(name, term) for name, term in before.fields.items()}
            landing = [rule for rule in system.spec.rules if rule.phase in successor_phases(mutant, system.spec)]
            if not landing or any(rule.actor != "game" or rule.params or rule.reveals for rule in landing):
                return False
            # In the stopped state the mutant's own rules move: the changed rule as mutated.
            landing = [mutant if rule.name == mutant.name else rule for rule in landing]
            parts = {rule.name: system.rule_parts_weighted(rule, stopped, "quiet_next") for rule in landing}
            differs = [z3.Xor(guard, changed_guard)]
            for name, term in changed_effects.items():
                differs.append(z3.And(guard, term != goal[name]) if name != "phase" else z3.BoolVal(False))
            taken = []
            for rule in landing:
                next_guard, _, next_effects, _ = parts[rule.name]
                others = [parts[other.name][0] for other in landing if other.name != rule.name]
                if not rule.quiet or rule.name == mutant.name:
                    differs.append(z3.And(guard, next_guard))    # only a quiet rule may be forced there
                    continue
                after = {name: next_effects.get(name, term) for name, term in stopped.fields.items()}
                mismatch = [z3.And(after[name] != goal[name], where)
                            for name in goal if (where := self._live_after(name, goal["phase"], live)) is not None]
                taken.append(z3.And(next_guard, *[z3.Not(other) for other in others], z3.Not(z3.Or(mismatch))))
            differs.append(z3.And(guard, z3.Not(z3.Or(taken)) if taken else z3.BoolVal(True)))
            return self.never_under_support(z3.Or(differs), timeout_ms)
        except (KeyError, ValueError, TypeError, z3.Z3Exception):
            return False

    def _live_after(self, name: str, phase: Any, live: Mapping[str, frozenset[str]] | None) -> z3.BoolRef | None:
        """Where field `name` must agree after a move going to `phase` (a term): always
        without liveness, at the phases where it is live with it, None where it is live
        nowhere."""
        if live is None:
            return z3.BoolVal(True)
        phases = self.system.phases
        at = [index for index, phase_name in enumerate(phases) if name in live.get(phase_name, frozenset())]
        if len(at) == len(phases):
            return z3.BoolVal(True)
        if not at:
            return None
        return z3.Or([phase == index for index in at])

    def distance(self) -> Outcome:
        """The distance measure grows by at most one on every step from the support."""
        distance = self.strengthening.distance
        if distance is None:
            return Outcome(False, 1, 0.0, unknown="no distance measure declared in spec/invariants.toml")
        start = time.perf_counter()
        before, after = self.system.values_across(distance.measure, self.before, self.after)
        result, part = self.ask_all(self.support().kept, lambda step: after > before + 1)
        return self._outcome(start, result, part, "distance: grows by more than one")

    def ranking(self, lemmas: Sequence[z3.BoolRef] = ()) -> tuple[Outcome, int | None]:
        """The ranking is >= 0 before every step from the support and lower after it; with
        a bound on the number of moves of any game (the measure of the initial state, plus
        the last move's, which may take it below 0). A state with no move need not be
        ranked: under no_topdecking a finished game's state the support allows holds a
        sixth Liberal policy (no game reaches it; nothing leaves it either). `lemmas`:
        terms over the state before the step that hold in every reachable state, proved
        otherwise (a declared range by k-induction, verify/smt/liveness.py `terminates`), assumed
        with the support."""
        ranking = self.strengthening.ranking
        if ranking is None:
            return Outcome(False, 1, 0.0, unknown="no ranking function declared in spec/invariants.toml",
                           stop=StopReason.NO_RANKING), None
        start = time.perf_counter()
        system = self.system
        before, after = system.values_across(ranking.measure, self.before, self.after)
        kept = self.support().kept
        result, part = self.ask_all(kept, lambda step: z3.And(*lemmas, z3.Or(before < 0, z3.Not(after < before))))
        outcome = self._outcome(start, result, part, "ranking: the measure is negative or does not decrease")
        if not outcome.proved:
            return outcome, None
        solver = z3.Solver()
        solver.add(system.init(self.before))
        solver.check()
        return outcome, solver.model().eval(before, model_completion=True).as_signed_long() + 1

    def deadlock_free(self, timeout_ms: int = 120_000, proved: Collection[str] = ()) -> Outcome:
        """No state satisfying the support, other than a finished game, is without a legal
        move: per phase with rules, no state of that phase makes every rule's guard false for
        all parameter values (a quantifier over the parameters, which are finite). The
        phases of `proved` are skipped: their deadlock freedom was shown otherwise (by
        k-induction, verify/smt/liveness.py `deadlock_free`)."""
        start = time.perf_counter()
        system = self.system
        kept = self.support().kept
        for phase in system.phases:
            rules = [rule for rule in system.spec.rules if rule.phase == phase]
            if not rules or phase in proved:
                continue
            guards, bound = [], []
            for rule in rules:
                guard, variables, _ = system.rule_parts(rule, self.before, "deadlock")
                guards.append(guard)
                bound += list(variables.values())
            stuck = z3.Not(z3.Or(guards))
            solver = z3.Solver()
            solver.set("timeout", timeout_ms)
            assert_all(solver, [c.before for c in kept])
            solver.add(self.before["phase"] == system.phases.index(phase))
            solver.add(z3.ForAll(bound, stuck) if bound else stuck)
            result = solver.check()
            if result == z3.unknown:
                return Outcome(False, 1, time.perf_counter() - start, unknown=f"solver: {solver.reason_unknown()}",
                               stop=StopReason.SOLVER)
            if result == z3.sat:
                state = system.decode_state(solver.model(), self.before)
                return Outcome(False, 1, time.perf_counter() - start,
                               Counterexample((state,), (), (f"deadlock_free: no legal move in phase {phase}",)))
        return Outcome(True, 1, time.perf_counter() - start)
