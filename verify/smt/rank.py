"""A ranking function found, not written: every game ends.

`terminates` is proved by a measure that is never below 0 and decreases on every move
(verify/smt/induction.py, `Induction.ranking`), with deadlock freedom: a game that stops
with no legal move is finite, but does not end in a win. A person writes one by knowing
how a game moves on: policies are enacted, the Election Tracker climbs, and inside a round
the phases follow each other. This module finds one the same way, lexicographically,
from moves of random games, and the solver then proves it (or not) for every state of
the proved support; the games only propose.

- **Counters.** For each int field `f` of range `lo..hi` the templates `hi - f` and
  `f - lo`, for each seat set `S` `count(S)` and `players - count(S)`. A level is the sum
  of every template that no remaining move increases; the moves it decreases are done
  with. Levels are taken until none decreases a move (policies and deaths first, then
  the tracker among the moves that enact nothing).
- **Stage.** The moves left change no counter. Their situations (the phase, refined by
  as few flags as make it so) form an acyclic graph; a situation's stage is the length of
  the longest path from it, so every such move lowers the stage.

The measure is the levels and the stage as digits of a mixed-radix number, each weight
one more than the largest value of everything below it, written in the spec's
expression language like a hand-written `[ranking]`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from random import Random
from typing import Any

from engine.game import Game
from engine.pycompile import compile_expression
from spec.errors import Location
from spec.invariants import Measure
from spec.lang.check import parse
from spec.lang.types import INT
from spec.model import Spec
from spec.properties import state_scope

GAMES = 300
"""Random games whose moves propose the levels and the stage."""
MAX_MOVES = 400


@dataclass(frozen=True, slots=True)
class Component:
    """A bounded counter template: its text, its value on an engine state, its largest value."""

    text: str
    value: Callable[[Any], int]
    high: int
    fields: frozenset[str]


RARE_MOVES = 100
"""A phase fewer sampled moves leave than this is rare: more games are played for it."""
RARE_GAMES_PER_GAME = 20
"""The most games played for the rare phases, per game sampled in full."""


def moves(game: Game, games: int = GAMES, seed: int = 1) -> list[tuple[Any, Any]]:
    """The (before, after) pairs of the moves of `games` random games, and of the moves
    out of rare phases (fewer than `RARE_MOVES` sampled) in up to `RARE_GAMES_PER_GAME`
    times as many more, until none is rare. A stage the sample never saw a move out of
    is ranked by chance: under no_topdecking most games end at the third rejection, one
    game in 300 reached a veto and none saw the President refuse one, and the ranking
    found had the refusal climb back to the Chancellor's stage."""
    rng = Random(seed)
    out: set[tuple[Any, Any]] = set()

    def play(keep: Callable[[Any], bool]) -> None:
        state = game.initial_state()
        for _ in range(MAX_MOVES):
            following = game.random_next(state, rng)
            if following is None:
                break
            if keep(state):
                out.add((state, following))
            state = following

    for _ in range(games):
        play(lambda state: True)
    phase = game.phase_index
    scarce = {number: 0 for number in range(len(game.phase_names)) if number != game.over_phase}
    for before, _ in out:
        scarce[before[phase]] = scarce.get(before[phase], 0) + 1
    scarce = {number: count for number, count in scarce.items() if count < RARE_MOVES}

    def keep(state: Any) -> bool:
        """Whether to keep the move out of a state of an extra game: from a rare phase,
        counted until it is rare no longer."""
        here = state[phase]
        if here not in scarce:
            return False
        scarce[here] += 1
        if scarce[here] >= RARE_MOVES:
            del scarce[here]
        return True

    for _ in range(games * RARE_GAMES_PER_GAME):
        if not scarce:
            break
        play(keep)
    return sorted(out)


def games_played(game: Game, games: int = GAMES, seed: int = 1) -> list[list[Any]]:
    """The states of `games` random games, in the order played."""
    rng = Random(seed)
    out: list[list[Any]] = []
    for _ in range(games):
        state = game.initial_state()
        states = [state]
        for _ in range(MAX_MOVES):
            following = game.random_next(state, rng)
            if following is None:
                break
            states.append(following)
            state = following
        out.append(states)
    return out


def components(spec: Spec, game: Game) -> list[Component]:
    """The counter templates of the spec's fields at the game's player count."""
    out: list[Component] = []
    scope = state_scope(spec)
    for field in spec.fields:
        kind = field.type.kind
        texts: list[tuple[str, int]] = []
        if kind == "int" and field.low is not None and field.high is not None:
            low = int(compile_expression(spec, game.players, field.low)(None))
            high = int(compile_expression(spec, game.players, field.high)(None))
            rising = f"{field.name} - {low}" if low else field.name
            texts = [(f"{high} - {field.name}", high - low), (rising, high - low)]
        elif kind == "seats":
            texts = [(f"count({field.name})", game.players), (f"{game.players} - count({field.name})", game.players)]
        for text, high in texts:
            node = parse(text, scope, Location("<ranking>"), INT)
            out.append(Component(text, compile_expression(spec, game.players, node), high, frozenset({field.name})))
    return out


@dataclass(slots=True)
class Lexicographic:
    """A lexicographic measure: its levels (sums of components) and its stage."""

    levels: list[list[Component]]
    stage: list[tuple[int, str]]      # (stage, condition) highest first; 0 otherwise
    flags: tuple[str, ...]


def find(spec: Spec, game: Game, pairs: Sequence[tuple[Any, Any]]) -> Lexicographic | None:
    """A lexicographic ranking the sampled moves all decrease, or None.

    The levels take every component that never rises and sometimes falls; a count of
    seats among them is then left out where a ranking is still found without it (the
    moves it decided fall to the next levels or to the stage of the round). Each
    component is a term of the proof at every step, and a count of seats is a
    population count the solver bit-blasts: at 10 players a ranking with the counts of
    the Fascists, the living and the investigated took 33 s to prove."""
    comps = components(spec, game)
    values = [[(c.value(s), c.value(t)) for c in comps] for s, t in pairs]
    allowed = set(range(len(comps)))
    found = _attempt(spec, game, pairs, comps, values, allowed)
    if found is None:
        return None
    seats = {field.name for field in spec.fields if field.type.kind == "seats"}
    for index, comp in enumerate(comps):
        if comp.fields & seats and any(comp is c for level in found.levels for c in level):
            trial = _attempt(spec, game, pairs, comps, values, allowed - {index})
            if trial is not None:
                found, allowed = trial, allowed - {index}
    return found


def _attempt(spec: Spec, game: Game, pairs: Sequence[tuple[Any, Any]], comps: Sequence[Component],
             values: Sequence[Sequence[tuple[int, int]]], allowed: set[int]) -> Lexicographic | None:
    """`find` with only the `allowed` components."""
    left = list(range(len(pairs)))
    levels: list[list[Component]] = []
    while left:
        chosen = [i for i in sorted(allowed) if all(values[p][i][1] <= values[p][i][0] for p in left)
                  and any(values[p][i][1] < values[p][i][0] for p in left)]
        done = [p for p in left if sum(values[p][i][1] for i in chosen) < sum(values[p][i][0] for i in chosen)]
        if not done:
            break
        levels.append([comps[i] for i in chosen])
        finished = set(done)
        left = [p for p in left if p not in finished]
    flags = [f.name for f in spec.fields if f.type.kind == "bool"]
    rest = [pairs[p] for p in left]
    cyclic = _on_cycles({(game.phase(s), game.phase(t)) for s, t in rest})
    for size in range(0, min(3, len(flags)) + 1):
        for chosen_flags in itertools.combinations(flags, size):
            stage = _stage(game, rest, chosen_flags, cyclic)
            if stage is not None:
                return Lexicographic(levels, stage, chosen_flags)
    return None


def _on_cycles(edges: set[tuple[str, str]]) -> set[str]:
    """The phases of a phase graph that can come back to themselves."""
    following: dict[str, set[str]] = {}
    for first, second in edges:
        following.setdefault(first, set()).add(second)
    out = set()
    for phase in following:
        seen, todo = set(), list(following[phase])
        while todo:
            current = todo.pop()
            if current == phase:
                out.add(phase)
                break
            if current not in seen:
                seen.add(current)
                todo.extend(following.get(current, ()))
    return out


def _situation(game: Game, state: Any, flags: Sequence[str], cyclic: set[str]) -> tuple[Any, ...]:
    """Where a state stands in the round: its phase, and the flags only for the phases
    the phase graph cycles through (elsewhere a flag would only split a phase's stage
    for moves the games happened to make)."""
    phase = game.phase(state)
    if phase not in cyclic:
        return (phase,)
    return (phase, *(bool(state[game.field_names.index(f)]) for f in flags))


def _stage(game: Game, pairs: Sequence[tuple[Any, Any]], flags: Sequence[str], cyclic: set[str]
           ) -> list[tuple[int, str]] | None:
    """Stages of the situations when the moves' situation graph is acyclic, else None."""
    edges: dict[tuple[Any, ...], set[tuple[Any, ...]]] = {}
    for before, after in pairs:
        first, second = _situation(game, before, flags, cyclic), _situation(game, after, flags, cyclic)
        if first == second:
            return None
        edges.setdefault(first, set()).add(second)
        edges.setdefault(second, set())
    depth: dict[tuple[Any, ...], int] = {}
    visiting: set[tuple[Any, ...]] = set()

    def longest(node: tuple[Any, ...]) -> int | None:
        if node in depth:
            return depth[node]
        if node in visiting:
            return None
        visiting.add(node)
        best = 0
        for successor in edges[node]:
            below = longest(successor)
            if below is None:
                return None
            best = max(best, below + 1)
        visiting.discard(node)
        depth[node] = best
        return best

    for node in edges:
        if longest(node) is None:
            return None
    out: list[tuple[int, str]] = []
    for stage in sorted({d for d in depth.values() if d > 0}, reverse=True):
        nodes = [node for node, d in depth.items() if d == stage]
        whole = sorted({node[0] for node in nodes if len(node) == 1})
        parts = [f"phase in [{', '.join(repr(phase) for phase in whole)}]"] if whole else []
        parts += [_condition(node, flags) for node in nodes if node[0] not in whole]
        out.append((stage, " or ".join(parts)))
    return out


def _condition(node: tuple[Any, ...], flags: Sequence[str]) -> str:
    """A situation as a condition: its phase and its flags."""
    parts = [f"phase == '{node[0]}'"] + [flag if value else f"not {flag}" for flag, value in zip(flags, node[1:])]
    return "(" + " and ".join(parts) + ")"


def measure_text(found: Lexicographic) -> str:
    """The measure as one expression: the levels and the stage as mixed-radix digits."""
    stage_high = max((stage for stage, _ in found.stage), default=0)
    stage = " else ".join(f"{stage} if {condition}" for stage, condition in found.stage)
    terms = [f"({stage} else 0)" if stage else "0"]
    weight = stage_high + 1
    for level in reversed(found.levels):
        terms.append(f"{weight} * ({' + '.join(c.text for c in level)})")
        weight *= sum(c.high for c in level) + 1
    return " + ".join(reversed(terms))


def find_ranking(spec: Spec, players: int, writers: dict[str, set[str]] | None = None) -> Measure | None:
    """A ranking for `spec` at `players`, proposed from random games (to be proved)."""
    game = Game(spec, players)
    found = find(spec, game, moves(game))
    if found is None:
        return None
    text = measure_text(found)
    node = parse(text, state_scope(spec), Location("<ranking>"), INT)
    fields = {f for level in found.levels for c in level for f in c.fields} | {"phase", *found.flags}
    rule_ids = sorted({rule_id for field in fields for rule_id in (writers or {}).get(field, ())})
    levels = "; ".join(" + ".join(c.text for c in level) for level in found.levels)
    description = (f"found in played games: the counters ({levels}) fall level by level, and within a level "
                   f"the stage of the round (the phase{', ' if found.flags else ''}{', '.join(found.flags)}) falls")
    return Measure(description, tuple(rule_ids), node, text, Location("<ranking>"))


WEIGHT = 40
"""The largest weight a found distance gives a counter or a phase (the hand-written one
needs 10)."""


def find_distance(spec: Spec, players: int, writers: dict[str, set[str]] | None = None) -> Measure | None:
    """A distance for `spec` at `players`: a weighted sum of the counters and flags plus a
    constant per phase that grows by at most one on every move of random games, chosen to
    grow as much as possible over them (so that bounded model checking can skip the
    depths too shallow for what it looks for). Weights are found by the solver's
    optimiser over the distinct moves seen; the measure is then proved, not assumed
    (`Induction.distance`)."""
    import z3  # type: ignore[import-untyped]  # on use: the ranking search itself needs no solver

    game = Game(spec, players)
    played = games_played(game)
    scope = state_scope(spec)
    terms: list[tuple[str, Callable[[Any], int]]] = []
    names: list[str] = []
    for index, field in enumerate(spec.fields):
        kind = field.type.kind
        if kind in ("int", "bool"):
            terms.append((field.name if kind == "int" else f"(1 if {field.name} else 0)", field_value(index)))
            names.append(field.name)
        elif kind == "seats":
            terms.append((f"count({field.name})", _seat_count(index)))
            names.append(field.name)
    phases = list(spec.enums["phase"])
    # Rational weights: the optimum of a linear program is found at once, where integer
    # weights (a search over integer points) ran out of time at 7 players. The weights
    # are scaled to integers by their common denominator D, and the distance is the sum
    # divided by D, rounded down: a sum growing by at most D grows it by at most one.
    weights = [z3.Real(f"w{i}") for i in range(len(terms))]
    stage = [z3.Real(f"p{i}") for i in range(len(phases))]
    # A move's growth counts once for every state after it in its game: the objective is
    # the sum of the distance over the states played, so a drop (a reshuffle making room
    # in a counter) costs what it costs every later state, and the distance stays close
    # to the moves played instead of climbing and falling back.
    seen: dict[tuple[int, ...], int] = {}
    for states in played:
        for position, (before, after) in enumerate(zip(states, states[1:])):
            key = (*(value(after) - value(before) for _, value in terms),
                   phases.index(game.phase(before)), phases.index(game.phase(after)))
            seen[key] = seen.get(key, 0) + len(states) - 1 - position
    optimiser = z3.Optimize()
    optimiser.set("timeout", 20_000)
    optimiser.add(*[z3.And(w >= -WEIGHT, w <= WEIGHT) for w in weights + stage])
    # A counter weighs so that it never lowers the distance of a late state: one that only
    # falls (the living) weighs <= 0, any other >= 0. The bound BMC draws from the distance
    # is its least value over the states it looks for, where the solver is free to pick
    # such a counter at its worst (every Investigation weighed -40 made a win after
    # investigations look early).
    for number, weight in enumerate(weights):
        falls = all(key[number] <= 0 for key in seen) and any(key[number] < 0 for key in seen)
        optimiser.add(weight <= 0 if falls else weight >= 0)
    growths = []
    for key, times in seen.items():
        *delta, first, second = key
        growth = z3.Sum([w * d for w, d in zip(weights, delta) if d] + [stage[second] - stage[first]])
        optimiser.add(growth <= 1)
        growths.append(times * growth)
    optimiser.maximize(z3.Sum(growths))
    if optimiser.check() != z3.sat:
        return None
    model = optimiser.model()
    values = [Fraction(str(model.eval(v, model_completion=True).as_fraction())) for v in weights + stage]
    scale = math.lcm(*(value.denominator for value in values))
    scaled = [int(value * scale) for value in values]
    coefficients, constants = scaled[:len(weights)], scaled[len(weights):]
    parts = [f"{c} * {text}" if c != 1 else text for c, (text, _) in zip(coefficients, terms) if c]
    cases = " else ".join(f"{c} if phase == '{phase}'" for c, phase in zip(constants, phases) if c)
    text = " + ".join(parts + ([f"({cases} else 0)"] if cases else [])) or "0"
    if scale != 1:
        text = f"({text}) // {scale}"
    node = parse(text, scope, Location("<distance>"), INT)
    fields = {name for c, name in zip(coefficients, names) if c}
    rule_ids = sorted({rule_id for field in fields | {"phase"} for rule_id in (writers or {}).get(field, ())})
    return Measure("found in played games: grows by at most one on every move", tuple(rule_ids), node, text,
                   Location("<distance>"))


def field_value(index: int) -> Callable[[Any], int]:
    """A field's encoded value as an int (a flag as 0 or 1)."""
    return lambda state: int(state[index])


def _seat_count(index: int) -> Callable[[Any], int]:
    """The number of seats in a seat-set field."""
    return lambda state: bin(state[index]).count("1")
