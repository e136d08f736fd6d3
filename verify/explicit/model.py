"""The reduced transition system the explorer walks, built on the engine's compiled rules.

There is no second copy of the rules here: every guard, weight and effect is the engine's
own compiled function (`game.by_phase[phase]`). This module only decides *which*
parameter values to try (vote representatives), runs forced chains (fusing), and keys
states through the codec (symmetry, cone of influence); see reductions.py for why
each is exact.

A transition is reported as `Step(move_code, after, chain, final)`: the encoded move,
the state right after it, the forced moves that followed (each with the state after it)
and the final state, which is the one stored. Moves are encoded into one int
(`encode_move` / `decode_move`) for the parent pointers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import product
from typing import Any, NamedTuple

from engine.game import MAX_FORCED, Game
from engine.pycompile import CompiledRule, compile_expression
from spec.properties import Property

from .codec import Codec
from .deals import Deals, deals_of
from .reductions import Plan, Reductions, Representative, pivot_field, plan, representatives

ARG_BITS = 16
"""Bits per parameter value in an encoded move (seat sets of 10 seats need 10)."""
RULE_BITS = 8


class Step(NamedTuple):
    """One stored transition: the move, the state after it, the forced chain (and its number
    among the chains from that state), the final state."""

    rule: CompiledRule
    args: tuple[int, ...]
    after: Any
    chain: tuple[tuple[CompiledRule, Any], ...]
    final: Any
    chain_number: int = 0


class Model:
    """One game (spec and player count) under a reduction plan."""

    def __init__(self, game: Game, properties: tuple[Property, ...] = (),
                 reductions: Reductions = Reductions(), keep: frozenset[str] = frozenset()) -> None:
        self.game = game
        self.plan: Plan = plan(game.spec, properties, reductions, keep)
        self.deals: Deals | None = deals_of(game, self.plan)
        pivot = None
        if self.plan.symmetry:
            index = pivot_field(game.spec)
            if game.field_names[index] in self.plan.kept:
                pivot = index
        self.symmetric = pivot is not None
        self.codec = Codec(game, self.plan.kept, pivot)
        self.fuse = reductions.fuse
        self.phase_index = game.phase_index
        self.over_phase = game.over_phase
        self.game_phase = [bool(rules) and all(c.rule.actor == "game" for c in rules) for rules in game.by_phase]
        # The subset parameters tried one value per size, per rule (reductions.py (b)):
        # the batched search (layers.py) lists the same values as `_arguments`.
        self.representatives: tuple[dict[int, Representative], ...] = tuple(
            representatives(compiled.rule, properties) if reductions.representatives else {}
            for compiled in game.rules)
        self._choices: list[list[tuple[CompiledRule, Callable[[Any], Iterator[tuple[int, ...]]]]]] = []
        for rules in game.by_phase:
            self._choices.append([(compiled, self._arguments(compiled, properties, reductions.representatives))
                                  for compiled in rules])

    # ------------------------------------------------------------------ arguments

    def _arguments(self, compiled: CompiledRule, properties: tuple[Property, ...],
                   use_representatives: bool) -> Callable[[Any], Iterator[tuple[int, ...]]]:
        """A function state -> parameter tuples to try for this rule."""
        domains = compiled.domains
        reps = representatives(compiled.rule, properties) if use_representatives else {}
        if not domains:
            return lambda state: iter(((),))
        if not reps:
            return lambda state: product(*(domain(state) for domain in domains))
        of_functions = {position: compile_expression(self.game.spec, self.game.players, rep.of)
                        for position, rep in reps.items()}
        single = all(rep.one for rep in reps.values()) and len(domains) == len(reps)

        def values(state: Any) -> Iterator[tuple[int, ...]]:
            pools = []
            for position, domain in enumerate(domains):
                if position in of_functions:
                    mask = of_functions[position](state)
                    pool, sub = [0], 0
                    for seat in range(mask.bit_length()):
                        if mask >> seat & 1:
                            sub |= 1 << seat
                            pool.append(sub)
                    pools.append(pool)
                else:
                    pools.append(list(domain(state)))
            return product(*pools)

        if single:
            guard = compiled.guard
            weight = compiled.weight

            def first(state: Any) -> Iterator[tuple[int, ...]]:
                for args in values(state):
                    if guard(state, *args) and (weight is None or weight(state, *args) > 0):
                        return iter((args,))
                return iter(())
            return first
        return values

    # ------------------------------------------------------------------ moves

    def encode_move(self, compiled: CompiledRule, args: tuple[int, ...]) -> int:
        """The move as one int: rule index and parameter values."""
        code = compiled.index
        for position, value in enumerate(args):
            code |= (value + 1) << (RULE_BITS + ARG_BITS * position)
        return code

    def decode_move(self, code: int) -> tuple[CompiledRule, tuple[int, ...]]:
        """The compiled rule and parameter values of an encoded move."""
        compiled = self.game.rules[code & ((1 << RULE_BITS) - 1)]
        args = tuple(((code >> (RULE_BITS + ARG_BITS * position)) & ((1 << ARG_BITS) - 1)) - 1
                     for position in range(len(compiled.rule.params)))
        return compiled, args

    def rotate_args(self, compiled: CompiledRule, args: tuple[int, ...], by: int) -> tuple[int, ...]:
        """Parameter values rotated `by` seats clockwise (seats and seat sets only)."""
        if not by:
            return args
        out = []
        for param, value in zip(compiled.rule.params, args):
            if param.type.kind == "seat":
                out.append(self.codec.rotate_seat(value, by))
            elif param.type.kind == "seats":
                out.append(self.codec.rotate_seats(value, by))
            else:
                out.append(value)
        return tuple(out)

    # ------------------------------------------------------------------ transitions

    def initial(self) -> Any:
        """The canonical initial state (before the deal)."""
        return self.codec.canonical(self.game.initial_state())

    def is_over(self, state: Any) -> bool:
        """Whether the state is a finished game."""
        return bool(state[self.phase_index] == self.over_phase)

    def chains(self, state: Any) -> list[tuple[tuple[CompiledRule, Any], ...]]:
        """The forced chains from `state` to the next state that is not in a game phase
        (one chain unless two game rules are enabled at once). A game phase where no game
        rule applies ends the chain there: that state is stored and has no successor, so
        the explorer reports it as a deadlock. A forced move that leaves the state as it
        was ends the chain too (stored, it steps to itself: a cycle, the game never ends),
        and so do chains longer than MAX_FORCED moves."""
        if not self.fuse or not self.game_phase[state[self.phase_index]]:
            return [()]
        done: list[tuple[tuple[CompiledRule, Any], ...]] = []
        pending: list[tuple[Any, tuple[tuple[CompiledRule, Any], ...]]] = [(state, ())]
        by_phase = self.game.by_phase
        game_phase = self.game_phase
        phase_index = self.phase_index
        work = 0
        while pending:
            current, chain = pending.pop()
            work += 1
            if work > MAX_FORCED:
                done.append(chain)  # forced moves that never end: stuck, found as a deadlock
                done += [rest for _, rest in pending]
                break
            enabled = [c for c in by_phase[current[phase_index]] if c.guard(current)]
            if not enabled:
                done.append(chain)  # stuck in a game phase: stored, then found as a deadlock
                continue
            for compiled in enabled:
                after = compiled.effect(current)
                longer = chain + ((compiled, after),)
                if game_phase[after[phase_index]] and after != current:
                    pending.append((after, longer))
                else:
                    done.append(longer)
        return done

    def steps(self, state: Any) -> Iterator[Step]:
        """Every transition from a stored state (forced chains fused)."""
        for compiled, arguments in self._choices[state[self.phase_index]]:
            guard, weight, effect = compiled.guard, compiled.weight, compiled.effect
            for args in arguments(state):
                if not guard(state, *args) or (weight is not None and weight(state, *args) <= 0):
                    continue
                after = effect(state, *args)
                for number, chain in enumerate(self.chains(after)):
                    yield Step(compiled, args, after, chain, chain[-1][1] if chain else after, number)
