"""The no-leak certificate by self-composition: two copies of the game stepped together.

Two copies s and t of the transition system (system.py) start in the first state and take
one step each at a time, constrained to show one seat (seat 0; verify/knowledge/beliefs.py
argues why it stands for every seat under rotation) the same observation: the same rule,
the same public fields and `[public]` counts after it, and each `shows` entry (and a
seat rule's `reveals`) shown to the seat on one side exactly when on the other, with equal
values. A leak is a pair of such paths ending in different views of the seat: a `[view]`
item shown on one side and not the other or with another value, different public parts,
or a move of the seat legal on one side only (a table move: whether the seat takes part).

- BMC (`leak_within`): depth by depth from the first state, the shortest such pair; both
  games are decoded and replayed by the engine, and their observations and views compared
  by the engine again before they are reported.
- Induction (`induction_closes`): I(s, t) = both states well typed, equal public parts and
  equal views. If I holds of the first pair (it does: one first state) and every pair of
  steps with equal observations from a pair satisfying I leads to a pair satisfying I, no
  reachable pair differs in its views at any depth: proved. If the step does not close
  (I is not inductive for these rules), only the depth BMC searched is known: unknown.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from itertools import product
from typing import Any

import z3  # type: ignore[import-untyped]

from engine.game import Move
from engine.trace import Trace
from spec.lang import nodes as n
from spec.model import Rule, Spec

from ..results import KnowledgeVerdict
from .system import State, Step, System
from .translate import Env, Term

MAX_ARGS = 4096
"""The most argument tuples of one seat rule whose legality is compared one by one."""


@dataclass(slots=True)
class PairGames:
    """A pair of games the solver found (decoded moves of each copy) and its depth."""

    first: list[Move]
    second: list[Move]


class SelfComposition:
    """Two copies of the rules' transition system for one player count, seen by `seat`."""

    def __init__(self, spec: Spec, players: int, seat: int = 0) -> None:
        self.system = System(spec, players)
        self.spec = spec
        self.seat = seat
        self.public_fields = spec.seen_fields("public")
        self.seat_term = self.system.translator.constant("seat", seat)

    # ------------------------------------------------------------------ expressions over a pair

    def _term(self, node: n.Node, env: Env) -> Term:
        return self.system.translator_for(node, env.ranges, successor=True).term(node, env)

    def _env(self, before: State, after: State | None = None, rule: Rule | None = None,
             variables: dict[str, Term] | None = None) -> Env:
        env = Env(before.fields, after.fields if after is not None else None, ranges=dict(self.system.after_ranges))
        if rule is not None and variables is not None:
            rule_ranges = self.system.ranges.rule_names(rule)
            for name, variable in variables.items():
                env.local[name] = variable
                env.ranges[name] = rule_ranges[name]
            for name, node in rule.lets:
                env.local[name] = self._term(node, env)
                if name in rule_ranges:
                    env.ranges[name] = rule_ranges[name]
        env.local["viewer"] = self.seat_term
        env.ranges["viewer"] = (self.seat, self.seat)
        return env

    def _has_seat(self, mask: Term) -> z3.BoolRef:
        result: z3.BoolRef = self.system.translator.has_seat(mask, self.seat_term)
        return result

    def public_equal(self, s: State, t: State) -> z3.BoolRef:
        """Equal public fields and `[public]` counts."""
        parts = [s[name] == t[name] for name in self.public_fields]
        for node in self.spec.public.values():
            parts.append(self._term(node, self._env(s)) == self._term(node, self._env(t)))
        return z3.And(parts)

    def _shown_equal(self, to_s: Term, to_t: Term, what_s: Term, what_t: Term) -> z3.BoolRef:
        inside = self._has_seat(to_s)
        return z3.And(inside == self._has_seat(to_t), z3.Implies(inside, what_s == what_t))

    def observation_equal(self, a: Step, b: Step) -> z3.BoolRef:
        """The two steps show the seat the same observation (module docstring)."""
        parts = [a.selector == b.selector, self.public_equal(a.after, b.after)]
        for rule in self.spec.rules:
            entries = self.shown_equal_by(rule, a, b)
            if entries:
                parts.append(z3.Implies(a.fires(rule.name), z3.And(entries)))
        return z3.And(parts)

    def shown_equal_by(self, rule: Rule, a: Step, b: Step) -> list[z3.BoolRef]:
        """The two steps, both by `rule`, show the seat the same entries of its `shows` and
        the same reveals (the public part is compared apart)."""
        entries = []
        env_a = self._env(a.before, a.after, rule, a.params[rule.name])
        env_b = self._env(b.before, b.after, rule, b.params[rule.name])
        for show in rule.shows:
            entries.append(self._shown_equal(self._term(show.to, env_a), self._term(show.to, env_b),
                                             self._term(show.what, env_a), self._term(show.what, env_b)))
        if rule.reveals and rule.actor_seat is not None:
            actor_a = self._term(rule.actor_seat, env_a) == self.seat_term
            actor_b = self._term(rule.actor_seat, env_b) == self.seat_term
            entries.append(actor_a == actor_b)
            for _, node in rule.reveals:
                entries.append(z3.Implies(actor_a, self._term(node, env_a) == self._term(node, env_b)))
        return entries

    def view_equal(self, s: State, t: State, tag: str) -> z3.BoolRef:
        """The seat's views of the two states are equal: public part, `[view]` items, moves."""
        parts = [self.public_equal(s, t)]
        for item in self.spec.view:
            env_s, env_t = self._env(s), self._env(t)
            parts.append(self._shown_equal(self._term(item.to, env_s), self._term(item.to, env_t),
                                           self._term(item.what, env_s), self._term(item.what, env_t)))
        parts += [self._may(s, rule, f"{tag}.s") == self._may(t, rule, f"{tag}.t") for rule in self.spec.rules
                  for _ in [0] if rule.actor == "table"]
        for rule in self.spec.rules:
            if rule.actor_seat is None or rule.actor == "table":
                continue
            for args in self._arg_tuples(rule):
                parts.append(self._legal(s, rule, args, f"{tag}.s") == self._legal(t, rule, args, f"{tag}.t"))
        return z3.And(parts)

    def _arg_tuples(self, rule: Rule) -> list[tuple[int, ...]]:
        ranges = [range(low, high + 1) for low, high in (self.system.param_range(rule, p.name) for p in rule.params)]
        count = 1
        for values in ranges:
            count *= len(values)
        if count > MAX_ARGS:
            raise Unsupported(f"rule '{rule.name}' has {count} argument tuples to compare")
        return list(product(*ranges))

    def _legal(self, state: State, rule: Rule, args: tuple[int, ...], tag: str) -> z3.BoolRef:
        """The seat may make `rule`'s move with `args` now: it is legal and the seat acts."""
        guard, variables, _ = self.system.rule_parts(rule, state, f"{tag}.{rule.name}")
        pairs = [(variables[p.name], self.system.translator.constant(p.type.kind, value))
                 for p, value in zip(rule.params, args)]
        env = self._env(state, None, rule, {p.name: value for p, (_, value) in zip(rule.params, pairs)})
        assert rule.actor_seat is not None
        acts = self._term(rule.actor_seat, env) == self.seat_term
        return z3.And(z3.substitute(guard, *pairs) if pairs else guard, acts)

    def _may(self, state: State, rule: Rule, tag: str) -> z3.BoolRef:
        """The seat takes part in a table move of `rule` now: some legal value names it."""
        guard, variables, _ = self.system.rule_parts(rule, state, f"{tag}.{rule.name}")
        names = [variables[p.name] for p in rule.params]
        takes_part = z3.Or([self._has_seat(v) for v, p in zip(names, rule.params) if p.type.kind == "seats"]
                           or [z3.BoolVal(True)])
        if not names:
            return guard
        return z3.Exists(names, z3.And(guard, takes_part))


class Unsupported(Exception):
    """Rules this encoding does not compare (too many argument tuples): unknown."""


@dataclass(slots=True)
class Outcome:
    """What the solver decided: `leak` (with the pair), `proved`, or `unknown`, and how far."""

    verdict: KnowledgeVerdict
    depth: int
    reason: str
    pair: PairGames | None = None
    seconds: float = 0.0
    start: Any = None


def decide(spec: Spec, players: int, depth: int, time_limit: float | None = None,
           progress: Any = None, starts: tuple[Any, ...] = ()) -> Outcome:
    """BMC to `depth`, then the induction step (module docstring). Both copies start in one
    of `starts` (engine states: the rotations of the first state that stand for every seat,
    verify/knowledge/beliefs.py), by default the first state."""
    started = time.monotonic()
    try:
        pair = SelfComposition(spec, players)
    except Unsupported as error:
        return Outcome(KnowledgeVerdict.UNKNOWN, 0, str(error))
    system = pair.system
    solver = z3.Solver()
    if time_limit is not None:
        solver.set("timeout", max(1, int(time_limit * 1000)))
    s, t = system.state("s0"), system.state("t0")
    if starts:
        solver.add(system.same(s, t), z3.Or([system.equals(s, start) for start in starts]))
    else:
        solver.add(system.init(s), system.init(t))
    steps: list[tuple[Step, Step]] = []
    steps_start = s
    reached = 0
    for k in range(depth + 1):
        if time_limit is not None and time.monotonic() - started > time_limit:
            return Outcome(KnowledgeVerdict.UNKNOWN,
                           reached, f"the time limit of {time_limit:g} s was hit after depth {reached}",
                           seconds=time.monotonic() - started)
        solver.push()
        solver.add(z3.Not(pair.view_equal(s, t, f"v{k}")))
        answer = solver.check()
        if answer == z3.sat:
            model = solver.model()
            found = PairGames([system.decode_move(model, a) for a, _ in steps],
                              [system.decode_move(model, b) for _, b in steps])
            return Outcome(KnowledgeVerdict.LEAK,
                           k, "", found, time.monotonic() - started, system.decode_state(model, steps_start))
        solver.pop()
        if answer != z3.unsat:
            return Outcome(KnowledgeVerdict.UNKNOWN,
                           reached, f"the solver gave up at depth {k}", seconds=time.monotonic() - started)
        reached = k
        if progress is not None:
            progress(f"{players} players: no leak within {k} moves, {time.monotonic() - started:.0f} s")
        if k == depth:
            break
        s2, t2 = system.state(f"s{k + 1}"), system.state(f"t{k + 1}")
        a, b = system.step(s, s2, f"a{k}"), system.step(t, t2, f"b{k}")
        solver.add(a.relation, b.relation, pair.observation_equal(a, b))
        steps.append((a, b))
        s, t = s2, t2
    closes, why = induction_closes(pair, time_limit)
    seconds = time.monotonic() - started
    if closes:
        return Outcome(KnowledgeVerdict.PROVED,
                       reached, f"no leak within {reached} moves, and the induction step closes", None,
                       seconds)
    return Outcome(KnowledgeVerdict.UNKNOWN, reached, f"no leak within {reached} moves; {why}", None, seconds)


def induction_closes(pair: SelfComposition, time_limit: float | None) -> tuple[bool, str]:
    """Whether I(s, t) (module docstring) is kept by every pair of steps with equal
    observations; the reason when it is not."""
    system = pair.system
    solver = z3.Solver()
    if time_limit is not None:
        solver.set("timeout", max(1, int(time_limit * 1000)))
    s, t, s2, t2 = (system.state(tag) for tag in ("is", "it", "is2", "it2"))
    for state in (s, t):
        solver.add([term for _, term in system.typing(state)])
    solver.add(pair.view_equal(s, t, "i0"))
    a, b = system.step(s, s2, "ia"), system.step(t, t2, "ib")
    solver.add(a.relation, b.relation, pair.observation_equal(a, b))
    solver.add(z3.Not(pair.view_equal(s2, t2, "i1")))
    answer = solver.check()
    if answer == z3.unsat:
        return True, ""
    if answer == z3.sat:
        rule = system.decode_rule(solver.model(), a)
        return False, f"the induction step does not close (a pair of unreached states differs after '{rule.name}')"
    return False, "the solver gave up on the induction step"


def replay(spec: Spec, players: int, pair: PairGames, start: Any = None) -> tuple[Trace, Trace]:
    """The solver's two games replayed by the engine (an illegal move raises)."""
    from engine.game import Game

    game = Game(spec, players)
    traces = []
    for moves in (pair.first, pair.second):
        trace = Trace(game, game.make_state(start) if start is not None else game.initial_state())
        for move in moves:
            trace.append(move, game.apply(trace.end, move))
        traces.append(trace)
    return traces[0], traces[1]
