"""Exact odds: the game under a strategy profile as a Markov chain, its mass pushed forward.

Under a profile (spec/strategies/, engine/strategy.py) every move has a probability:
chance moves their exact odds (`Game.chance_outcomes`, R-S2, R-S6, R-L1, R-E9, R-X5),
choices the profile's. The chance of each way of winning is then a sum over the complete
state graph, which this module computes without storing the graph: the probability mass
of the start state is pushed forward along every move, and the mass arriving at a state
by different paths is merged. Every move lowers the proved ranking of spec/invariants.toml
(`[ranking]`), so the states are taken by decreasing rank, as the sweep-line search takes
them (sweep.py, layers.py): when a rank is taken, every state that can reach it has
already given it its mass, so its mass is final, it is expanded once, and it leaves
memory. A move that does not lower the ranking stops the computation (`NOT_DECREASING`):
an unknown, never an answer.

The mass of a state is kept, with `within`, per number of rounds played so far (a round
begins with a nomination, R-E1) and, with `given`, per whether the condition has held
yet: the odds of winning within k rounds and the odds given the condition come from the
same pass. The expected numbers of rounds and of elected governments need no such split:
each is the mass that flows through a nomination, or an election (linearity of
expectation). The split by rounds is what the pass costs most: a state is met at many
round counts (8 to 9 on average at 5 and 6 players), each a mass of its own, so without
`within` the pass keeps and merges a fraction of the masses.

Exactness. At 5 players (or when asked) the masses are `fractions.Fraction`: the sum of
the outcomes is 1 exactly, a check the result carries. Otherwise they are floats; each
mass carries the length of the longest chain of roundings it went through (a product and
a sum are one each), and a probability p computed through at most c of them is within
c·u/(1 − c·u)·p of the exact one (u = 2**-53; Higham, Accuracy and Stability of
Numerical Algorithms, lemma 3.1: every quantity is a sum of products of non-negative
numbers). The figures (outcomes, rounds, elections) add up the masses of every finished
state, or every election, exactly, as fractions of the floats, and round once at the end:
one rounding more. That bound is `error_bound`.

This is the reference pass; odds_layers.py computes the same figures a layer at a time
over arrays, and `shrules odds` runs it first.

Reductions, each exact for odds:
- forced moves (the game's own bookkeeping) are followed at once, as the searches fuse
  them: they have probability 1 and choose nothing;
- fields that nothing reads (no rule, no weight of the profile, no condition, not the
  outcome) are held at their initial value (reductions.py (c), with the profile's and the
  outcome's reads kept): two states differing only there have the same future odds;
- seat rotation (reductions.py (a)) merges a state with its rotations only when the rules,
  the profile's weights, the view items they read and the condition all pass the same
  syntactic test (no seat literal, no order or arithmetic on seats). Then rotating a state
  rotates its legal moves and gives each the same probability: chance's weights and the
  rules' guards commute with rotation (the rules' test), and a profile's weight of a move
  reads the actor's view, which rotates with the actor (the profile's test), so the two
  states have the same future odds of every outcome, round count and condition. `uniform`
  (no expression at all) and `partisan` (it reads only seat membership and equality) pass;
  a profile that favoured seat 0 would not, and is computed without the merge.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from engine.game import Game, PhaseKind
from engine.pycompile import compile_expression
from engine.strategy import Policy
from spec.errors import Location
from spec.lang.check import parse
from spec.lang.nodes import Node, fields_read
from spec.lang.types import BOOL
from spec.properties import state_scope
from spec.strategies import Strategy

from .codec import Codec
from .explore import resident_mib
from .reductions import cone, pivot_field, rotation_blockers, symmetry_blockers
from .sweep import NOT_DECREASING, compiled_measure

EXACT_UP_TO = 5
"""Player counts up to this are computed in exact fractions by default; larger ones in
floats with a stated error bound (a pass in fractions costs several times one in floats)."""

UNIT_ROUNDOFF = 2.0 ** -53
"""The relative error of one rounding of a float (IEEE 754 double, round to nearest)."""

CHECK_EVERY = 4096
"""States expanded between two looks at the clock and the state limit."""

Number = Any        # Fraction (exact) or float

PER_STATE = "per-state"
"""The `method` of odds computed here, a state at a time through the one-game engine."""


@dataclass(slots=True)
class Odds:
    """The odds of a game under a profile: each outcome (winner, how), rounds, elections,
    and, with a condition, the odds given it. `complete` is False when a limit stopped
    the pass (`limit` says which): then nothing here is an answer."""

    players: int
    rules: str
    strategy: str
    exact: bool
    given: str | None = None
    outcomes: dict[tuple[str | None, str | None], Number] = field(default_factory=dict)
    by_rounds: dict[tuple[int, str | None], Number] = field(default_factory=dict)   # (rounds, winner) -> mass
    given_outcomes: dict[tuple[str | None, str | None], Number] = field(default_factory=dict)  # mass where it held
    elections: Number = 0
    nominations: Number = 0             # the mass through nominations: the expected rounds
    within_rounds: bool = True          # whether `by_rounds` was computed (the pass's `within`)
    states: int = 0
    layers: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    peak_mib: float = 0.0
    rotation: bool = False
    rotation_blocked: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()
    chain: int = 0                      # floats: the longest chain of roundings behind any figure
    complete: bool = False
    limit: str = ""
    method: str = PER_STATE             # which pass computed it: `PER_STATE` or odds_layers.LAYERS
    fallback: str = ""                  # why the layered pass handed over to the per-state one
    games: int = 0                      # odds_played.py: the games played (0: the odds are computed, not played)
    counts: dict[tuple[str | None, str | None], int] = field(default_factory=dict)   # played: games per outcome

    @property
    def total(self) -> Number:
        """The mass of every finished game: 1 when every game ends (exactly, with fractions)."""
        return sum(self.outcomes.values(), Fraction(0) if self.exact else 0.0)

    @property
    def error_bound(self) -> float:
        """How far any probability here may be from the exact one (0 with fractions)."""
        if self.exact:
            return 0.0
        rounding = self.chain * UNIT_ROUNDOFF
        return rounding / (1 - rounding)

    def sides(self) -> dict[str, Number]:
        """The probability of each side winning."""
        out: dict[str, Number] = {}
        for (winner, _), mass in self.outcomes.items():
            if winner is not None:
                out[winner] = out.get(winner, 0) + mass
        return out

    def expected_rounds(self) -> Number:
        """The expected number of rounds (nominations) of a game: the mass that went
        through a nomination, whether or not the rounds were split (`by_rounds` gives the
        same sum)."""
        return self.nominations

    def within(self) -> list[tuple[int, dict[str, Number]]]:
        """For each round count k, the probability of each side having won within k rounds."""
        if not self.by_rounds:
            return []
        last = max(rounds for rounds, _ in self.by_rounds)
        winners = sorted({winner for _, winner in self.by_rounds if winner is not None})
        running = {winner: Fraction(0) if self.exact else 0.0 for winner in winners}
        out = []
        for rounds in range(last + 1):
            for winner in winners:
                running[winner] += self.by_rounds.get((rounds, winner), 0)
            out.append((rounds, dict(running)))
        return out

    def given_probability(self) -> Number:
        """The probability that the condition holds at some point of the game."""
        return sum(self.given_outcomes.values(), Fraction(0) if self.exact else 0.0)

    def conditional(self) -> dict[tuple[str | None, str | None], Number]:
        """The odds of each outcome given the condition (empty if it never holds)."""
        held = self.given_probability()
        return {outcome: mass / held for outcome, mass in self.given_outcomes.items()} if held else {}


def given_expression(game: Game, text: str) -> Node:
    """`--given`: a bool expression over a state of the rules (every field: the condition
    is the analyst's, not a player's)."""
    return parse(text, state_scope(game.spec), Location("--given", None, text), BOOL, show_caret=True)


def odds(game: Game, strategy: Strategy, *, exact: bool, given: str | None = None,
         seconds: float | None = None, max_states: int | None = None,
         rotation: bool = True, memory_mib: int | None = None, within: bool = True) -> Odds:
    """The odds of `game` under `strategy` (module docstring); `seconds`, `max_states` and
    `memory_mib` (resident MiB) bound the pass (a bound hit leaves the result incomplete).
    `within`: the odds of a win within k rounds too (`by_rounds`), at the cost of a mass
    per round count."""
    started, cpu = time.perf_counter(), time.process_time()
    result, condition = prepared(game, strategy, exact, given, rotation, within)
    test = None if condition is None else compile_expression(game.spec, game.players, condition)
    measure = compiled_measure(game)
    if measure is None:
        result.limit = NO_RANKING
        return result
    codec = Codec(game, kept=frozenset(result.kept), pivot=pivot_field(game.spec) if result.rotation else None)
    policy = Policy(game, strategy)
    _Pass(game, policy, codec, measure, test, result, exact, seconds, max_states, started, memory_mib).run()
    result.seconds = time.perf_counter() - started
    result.cpu_seconds = time.process_time() - cpu
    return result


def memory_stop(memory_mib: int, states: int) -> str:
    """The limit of a pass stopped by its memory bound: the process would otherwise grow
    until the system ends it, with nothing said."""
    return f"memory limit: {memory_mib:,} MiB resident reached after {states:,} states taken"


NO_RANKING = "no ranking proved for these rules: their odds need value iteration, not done yet"
"""The `limit` of odds of rules without a ranking every move lowers."""


def prepared(game: Game, strategy: Strategy, exact: bool, given: str | None,
             rotation: bool, within: bool = True) -> tuple[Odds, Node | None]:
    """An empty result with the reductions both passes use decided (the fields kept,
    the cone with the profile's, the outcome's and the condition's reads; whether
    rotation merges), and the condition parsed."""
    spec = game.spec
    result = Odds(game.players, spec.name, strategy.name, exact, given, within_rounds=within)
    condition = None if given is None else given_expression(game, given)
    reads = _profile_reads(game, strategy)
    also = frozenset({"winner", "how", "phase"}) | reads | (
        frozenset(fields_read([condition], spec.definitions)) if condition is not None else frozenset())
    kept = cone(spec, (), also=also)
    blocked = tuple(_rotation_blockers(game, strategy, condition)) if rotation else ("not asked for",)
    result.rotation = not blocked
    result.rotation_blocked = blocked
    result.kept = tuple(name for name in game.field_names if name in kept)
    return result, condition


def _profile_reads(game: Game, strategy: Strategy) -> frozenset[str]:
    """The fields a profile's weights read, through the view items and counts if it reads any."""
    expressions = [weight.node for weight in strategy.expressions()]
    if not expressions:
        return frozenset()
    spec = strategy.spec
    reads = set(fields_read(expressions, spec.definitions))
    reads |= fields_read([node for item in game.spec.view for node in (item.to, item.what)], game.spec.definitions)
    reads |= fields_read(list(game.spec.public.values()), game.spec.definitions)
    return frozenset(reads)


def _rotation_blockers(game: Game, strategy: Strategy, condition: Node | None) -> list[str]:
    """Why merging by rotation would not be exact here (empty: it is; module docstring)."""
    reasons = symmetry_blockers(game.spec)
    for weight in strategy.expressions():
        reasons += [f"strategy '{strategy.name}' {weight.where.field}: {why}"
                    for why in rotation_blockers(weight.node, strategy.spec)]
    for item in game.spec.view:
        for node in (item.to, item.what):
            reasons += [f"view item '{item.name}': {why}" for why in rotation_blockers(node, game.spec)]
    if condition is not None:
        reasons += [f"--given: {why}" for why in rotation_blockers(condition, game.spec)]
    return reasons


Masses = dict[tuple[int, bool], Any]
"""A state's probability mass split by (rounds played, whether the condition has held)."""


class _Pass:
    """One forward pass: the pending layers by rank, each a dict state -> [masses, chain].

    A state is expanded once whatever its round count: its mass is a small vector over
    (rounds, held), multiplied by a move's probability as a whole, so the legal moves, the
    profile's weights, the forced moves and the canonical form are worked out once per
    state, not once per round count."""

    def __init__(self, game: Game, policy: Policy, codec: Codec, measure: Callable[[Any], int],
                 test: Callable[[Any], Any] | None, result: Odds, exact: bool, seconds: float | None,
                 max_states: int | None, started: float, memory_mib: int | None = None) -> None:
        self.game, self.policy, self.codec, self.measure, self.test = game, policy, codec, measure, test
        self.result, self.exact = result, exact
        self.deadline = None if seconds is None else started + seconds
        self.max_states, self.memory_mib = max_states, memory_mib
        self.pending: dict[int, dict[Any, list[Any]]] = {}
        self.rounds = frozenset(c.rule.name for c in game.by_role["nomination"])
        self.elections = frozenset(c.rule.name for c in game.by_role["election"])
        self.forced = tuple(game.phase_kind[phase] is PhaseKind.FORCED for phase in range(len(game.phase_names)))
        self.zero: Number = Fraction(0) if exact else 0.0
        self.result.elections = Fraction(0)
        self.result.nominations = Fraction(0)

    def push(self, state: Any, masses: Masses, chain: int, rank: int | None) -> None:
        """Add `masses` to the state `state` leads to once the game's forced moves are made."""
        game, test = self.game, self.test
        holds = test is not None and bool(test(state))
        while self.forced[state[game.phase_index]]:
            move = game.forced_move(state)
            assert move is not None
            state = game.by_name[move.rule].effect(state)
            holds = holds or (test is not None and bool(test(state)))
        if holds:
            merged: Masses = {}
            for (rounds, _), mass in masses.items():
                merged[rounds, True] = merged.get((rounds, True), self.zero) + mass
            chain += len(merged) < len(masses)        # a mass added to another: one rounding more
            masses = merged
        state = self.codec.canonical(state)
        rank_after = self.measure(state)
        if rank is not None and rank_after >= rank:
            raise _Stop(f"{NOT_DECREASING}: {rank} to {rank_after} in phase {game.phase(state)}")
        layer = self.pending.get(rank_after)
        if layer is None:
            layer = self.pending[rank_after] = {}
        entry = layer.get(state)          # the canonical tuple: hashed as fast as its packed code is made
        if entry is None:
            layer[state] = [masses, chain]
            return
        into = entry[0]
        for key, mass in masses.items():
            into[key] = into[key] + mass if key in into else mass
        entry[1] = max(entry[1], chain) + 1

    def run(self) -> None:
        result = self.result
        try:
            self.push(self.game.initial_state(), {(0, False): Fraction(1) if self.exact else 1.0}, 0, None)
            while self.pending:
                rank = max(self.pending)
                layer = self.pending.pop(rank)
                result.layers += 1
                for state, (masses, chain) in layer.items():
                    self.expand(state, masses, chain, rank)
                    result.states += 1
                    if result.states % CHECK_EVERY == 0:
                        self.watch()
        except _Stop as stop:
            result.limit = stop.limit
            return
        finally:
            result.peak_mib = max(result.peak_mib, resident_mib())
        if not self.exact:
            result.outcomes = {key: float(value) for key, value in result.outcomes.items()}
            result.by_rounds = {key: float(value) for key, value in result.by_rounds.items()}
            result.given_outcomes = {key: float(value) for key, value in result.given_outcomes.items()}
        result.elections = result.elections if self.exact else float(result.elections)
        result.nominations = result.nominations if self.exact else float(result.nominations)
        result.complete = True

    def watch(self) -> None:
        result = self.result
        result.peak_mib = max(result.peak_mib, resident_mib())
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise _Stop(f"time limit: {result.states:,} states taken")
        if self.max_states is not None and result.states >= self.max_states:
            raise _Stop(f"state limit: {result.states:,} states taken")
        if self.memory_mib is not None and result.peak_mib > self.memory_mib:
            raise _Stop(memory_stop(self.memory_mib, result.states))

    def expand(self, state: Any, masses: Masses, chain: int, rank: int) -> None:
        game, result, zero = self.game, self.result, Fraction(0)
        phase = state[game.phase_index]
        kind = game.phase_kind[phase]
        if kind is PhaseKind.OVER:
            # Floats are added up exactly (as fractions) and rounded once at the end.
            outcome = (game.winner(state), game.how(state))
            for (rounds, held), mass in masses.items():
                exact_mass = Fraction(mass)
                result.outcomes[outcome] = result.outcomes.get(outcome, zero) + exact_mass
                if result.within_rounds:
                    key = (rounds, outcome[0])
                    result.by_rounds[key] = result.by_rounds.get(key, zero) + exact_mass
                if held:
                    result.given_outcomes[outcome] = result.given_outcomes.get(outcome, zero) + exact_mass
            result.chain = max(result.chain, chain + 1)
            return
        chance = game.chance_outcomes(state) if kind is PhaseKind.CHANCE or game.mixed_phase[phase] else []
        choices = chance or self.policy.choices(state)
        if not choices:
            raise _Stop(f"deadlock: no move in phase {game.phase(state)}")
        exact = self.exact
        for move, probability in choices:
            odds = probability if exact else float(probability)
            nominates = move.rule in self.rounds
            step = 1 if nominates and result.within_rounds else 0
            shares = {(rounds + step, held): mass * odds for (rounds, held), mass in masses.items()}
            if move.rule in self.elections:
                result.elections += sum((Fraction(share) for share in shares.values()), zero)
                result.chain = max(result.chain, chain + 3)
            if nominates:
                result.nominations += sum((Fraction(share) for share in shares.values()), zero)
                result.chain = max(result.chain, chain + 3)
            after = game.by_name[move.rule].effect(state, *move.args)
            self.push(after, shares, chain + 2, rank)


class _Stop(Exception):
    def __init__(self, limit: str) -> None:
        super().__init__(limit)
        self.limit = limit
