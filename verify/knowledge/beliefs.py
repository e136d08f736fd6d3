"""The no-leak certificate by a complete search over a seat's belief sets.

A seat's *belief* after an observation history is the set of states the game can be in
given that history: every state reached by some game that showed the seat exactly those
observations (engine/observe.py). The view is a function of the history exactly when it is
constant on every reachable belief: two games with equal histories end in the same belief,
and two states of one belief are ends of two such games. So the search is a breadth-first
search over beliefs: from a belief, every state's every legal move (chance, the table and
the game's own moves included) is taken, the successors grouped by the observation the
seat is shown, and each group is a successor belief. A belief is checked when first found
(its states' views compared) and expanded once, however it was reached: what it must
satisfy does not depend on the history that led to it. Breadth first, the first belief with
two different views is reached by the shortest history, and its two states are the ends of
a shortest pair of games, found again move by move by `_game_to`.

A pair search (two states stepped together with equal observations) visits the pairs of
states of every belief; the belief search visits each belief once, a state once per
belief it is in. `figures` reports both: beliefs, distinct states, the states summed over
beliefs and the pairs inside them (what the pair search would at least hold).

Vote representatives. The vote chooses a seat set (`ja`) that the rules read only through
its size (verify/explicit/reductions.py (b)): every value of one size gives the same
successor. Where its domain reads only public fields and what the move shows reads it only
whole (the table sees who voted Ja) or not at all, two states of a belief are grouped
together under one value of a size exactly when they are under any other, and the
successors are the same states: the successor beliefs are the same sets, only the
observation's label differs. One value per size (the first legal one, the same in every
state of a belief) is then taken (`_Moves`).

Seat rotation. When no expression of the rules, of what they show (`shows`, `reveals`),
of `[public]` or of `[view]` depends on absolute seat numbers (`_blockers`: no seat
literal, no order or arithmetic on seats, as verify/explicit/reductions.py decides for the
explicit search), rotating every seat by r maps a legal move to a legal move, its
successor to the rotated successor, what seat k is shown to what seat k + r is shown
(rotated), and seat k's view to seat k + r's view (rotated). Rotation is a bijection, so
equal observations stay equal and different views stay different: a leak to seat k in the
games from the first state `init` is exactly a leak to seat 0 in the games from `init`
rotated by -k. The search therefore checks seat 0 alone, from each distinct rotation of
`init` (they differ only in the seat fields the deal and the first President overwrite,
so their beliefs meet after the first moves and are searched once). Where the test fails,
every seat is checked from `init` itself.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from engine.game import Game, Move, State
from engine.observe import Observation, observer
from engine.trace import Trace
from spec.lang import nodes as n
from spec.model import Rule
from verify.explicit.reductions import fields_read, representatives, rotation_blockers, symmetry_blockers

from verify.budgets import PROGRESS_SECONDS

from ..results import KnowledgeVerdict
from .certificate import Certificate, Leak, difference

Progress = Callable[[str], None]


def _blockers(game: Game) -> list[str]:
    """Why checking seat 0 alone would be unsound (empty: it is sound; module docstring)."""
    spec = game.spec
    reasons = list(symmetry_blockers(spec))
    for rule in spec.rules:
        for show in rule.shows:
            for node in (show.to, show.what):
                reasons += [f"rule '{rule.name}' shows: {why}" for why in rotation_blockers(node, spec)]
        for _, node in rule.reveals:
            reasons += [f"rule '{rule.name}' reveals: {why}" for why in rotation_blockers(node, spec)]
    for name, node in spec.public.items():
        reasons += [f"[public] {name}: {why}" for why in rotation_blockers(node, spec)]
    for item in spec.view:
        for node in (item.to, item.what):
            reasons += [f"[view.{item.name}]: {why}" for why in rotation_blockers(node, spec)]
    return reasons


def rotate(game: Game, state: State, by: int) -> State:
    """`state` with every seat and seat set rotated `by` seats (seat i -> i + by mod n)."""
    n = game.players
    out = []
    for f, value in zip(game.spec.fields, state):
        if f.type.kind == "seat" and value >= 0:
            value = (value + by) % n
        elif f.type.kind == "seats":
            value = sum(1 << ((i + by) % n) for i in range(n) if value >> i & 1)
        out.append(value)
    return game.make_state(out)


def roots(game: Game) -> tuple[list[tuple[int, State]], str]:
    """Where the search starts: (seat, first state) pairs, and why they suffice."""
    init = game.initial_state()
    blockers = _blockers(game)
    if blockers:
        return [(seat, init) for seat in range(game.players)], \
            f"every seat checked: the rules are not symmetric under rotation ({blockers[0]})"
    starts: dict[State, None] = {}
    for k in range(game.players):
        starts.setdefault(rotate(game, init, -k), None)
    return [(0, start) for start in starts], \
        "seat 0 from each rotation of the first state stands for every seat (rotation symmetry)"


class _Moves:
    """The moves the search takes from a state: every legal move, one value per size of a
    vote's seat set where that is exact (module docstring)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.reduced: dict[str, int] = {}
        for compiled in game.rules:
            rule = compiled.rule
            for position, _ in representatives(rule).items():
                param = rule.params[position]
                assert param.domain.of is not None
                if fields_read(param.domain.of, game.spec) <= set(game.spec.seen_fields("public")) \
                        and _shown_whole(rule, param.name):
                    self.reduced[rule.name] = position

    def __call__(self, state: State) -> list[Move]:
        moves = self.game.legal_moves(state)
        if not self.reduced:
            return moves
        out = []
        taken: set[tuple[str, tuple[int, ...], int]] = set()
        for move in moves:
            position = self.reduced.get(move.rule)
            if position is not None:
                args = move.args
                key = (move.rule, args[:position] + args[position + 1:], bin(args[position]).count("1"))
                if key in taken:
                    continue
                taken.add(key)
            out.append(move)
        return out


def _shown_whole(rule: Rule, name: str) -> bool:
    """Whether every entry of what `rule` shows reads parameter `name` whole or not at all,
    and no entry's `to` reads it."""
    for show in rule.shows:
        if _reads_param(show.to, name):
            return False
        if _reads_param(show.what, name) and not (isinstance(show.what, n.Name) and show.what.name == name):
            return False
    return not any(_reads_param(node, name) for _, node in rule.reveals)


def _reads_param(node: n.Node, name: str) -> bool:
    return any(isinstance(item, n.Name) and item.kind == "param" and item.name == name for item in n.walk(node))


def search(game: Game, rules: str, time_limit: float | None = None, max_beliefs: int | None = None,
           progress: Progress | None = None) -> Certificate:
    """The certificate for one compiled game by the belief search (module docstring)."""
    started = time.monotonic()
    watch = observer(game)
    effects = {compiled.rule.name: compiled.effect for compiled in game.rules}
    moves_of = _Moves(game)
    states: list[State] = []
    ids: dict[State, int] = {}

    def intern(state: State) -> int:
        found = ids.get(state)
        if found is None:
            found = ids[state] = len(states)
            states.append(state)
        return found

    starts, symmetry = roots(game)
    seats = tuple(sorted({seat for seat, _ in starts}))
    keys: list[tuple[int, tuple[int, ...]]] = []          # belief id -> (seat, state ids)
    parents: list[tuple[int, Observation | None]] = []     # belief id -> (parent id, observation)
    seen: dict[tuple[int, tuple[int, ...]], int] = {}
    figures = {"beliefs": 0, "states": 0, "state-beliefs": 0, "pairs": 0, "largest belief": 0, "depth": 0}

    def certificate(verdict: KnowledgeVerdict, reason: str = "", leak: Leak | None = None) -> Certificate:
        figures["states"] = len(states)
        figures["beliefs"] = len(keys)
        return Certificate(rules, game.players, "explicit", verdict, seats, symmetry,
                           time.monotonic() - started, dict(figures), reason, leak)

    def add(key: tuple[int, tuple[int, ...]], parent: int, observation: Observation | None) -> Leak | None:
        seen[key] = len(keys)
        keys.append(key)
        parents.append((parent, observation))
        seat, members = key
        size = len(members)
        figures["state-beliefs"] += size
        figures["pairs"] += size * (size - 1) // 2
        figures["largest belief"] = max(figures["largest belief"], size)
        first = watch.view(states[members[0]], seat)
        for other in members[1:]:
            view = watch.view(states[other], seat)
            if view != first:
                return _leak(game, keys, parents, states, len(keys) - 1, members[0], other, effects, moves_of)
        return None

    layer: list[int] = []
    for seat, start in starts:
        key: tuple[int, tuple[int, ...]] = (seat, (intern(start),))
        if key not in seen:
            leak = add(key, -1, None)
            if leak:
                return certificate(KnowledgeVerdict.LEAK, leak=leak)
            layer.append(seen[key])
    depth = 0
    last_word = time.monotonic()
    while layer:
        figures["depth"] = depth
        following: list[int] = []
        for belief in layer:
            now = time.monotonic()
            if time_limit is not None and now - started > time_limit:
                return certificate(KnowledgeVerdict.UNKNOWN,
                                   f"the time limit of {time_limit:g} s was hit at depth {depth}")
            if max_beliefs is not None and len(keys) > max_beliefs:
                return certificate(KnowledgeVerdict.UNKNOWN,
                                   f"the limit of {max_beliefs:,} beliefs was hit at depth {depth}")
            if progress is not None and now - last_word > PROGRESS_SECONDS:
                last_word = now
                progress(f"{game.players} players: depth {depth}, {len(keys):,} beliefs, {len(states):,} states, "
                         f"{now - started:.0f} s")
            seat, members = keys[belief]
            groups: dict[Observation, dict[State, None]] = {}
            for member in members:
                state = states[member]
                for move in moves_of(state):
                    after = effects[move.rule](state, *move.args)
                    seen_by = watch.observation(state, move, after, seat)
                    groups.setdefault(seen_by, {})[after] = None
            for seen_by, successors in groups.items():
                key = (seat, tuple(sorted(intern(after) for after in successors)))
                if key in seen:
                    continue
                leak = add(key, belief, seen_by)
                if leak:
                    figures["depth"] = depth + 1
                    return certificate(KnowledgeVerdict.LEAK, leak=leak)
                following.append(seen[key])
        layer = following
        depth += 1
    return certificate(KnowledgeVerdict.PROVED,
                       f"complete: every belief of every history checked, the longest {depth - 1} moves")


def _leak(game: Game, keys: list[tuple[int, tuple[int, ...]]], parents: list[tuple[int, Observation | None]],
          states: list[State], belief: int, first: int, second: int,
          effects: dict[str, Callable[..., Any]], moves_of: Callable[[State], list[Move]]) -> Leak:
    """The two games ending in states `first` and `second` of `belief`, found again move by
    move along the chain of beliefs that led to it."""
    seat = keys[belief][0]
    chain = [belief]
    while parents[chain[-1]][0] >= 0:
        chain.append(parents[chain[-1]][0])
    chain.reverse()
    traces = [_game_to(game, keys, parents, states, chain, end, seat, effects, moves_of) for end in (first, second)]
    watch = observer(game)
    found = difference(game, watch.view(states[first], seat), watch.view(states[second], seat))
    assert found is not None
    first_trace, second_trace, seat = rotated_back(game, traces[0], traces[1], seat)
    return Leak(seat, first_trace, second_trace, found)


def rotated_back(game: Game, first: Trace, second: Trace, seat: int) -> tuple[Trace, Trace, int]:
    """Seat 0's games from a rotated first state as the games of the seat it stands for,
    from the first state itself (module docstring)."""
    init = game.initial_state()
    if first.start == init:
        return first, second, seat
    by = next(k for k in range(game.players) if rotate(game, first.start, k) == init)
    return _rotated_trace(game, first, by), _rotated_trace(game, second, by), (seat + by) % game.players


def _game_to(game: Game, keys: list[tuple[int, tuple[int, ...]]], parents: list[tuple[int, Observation | None]],
             states: list[State], chain: list[int], end: int, seat: int,
             effects: dict[str, Callable[..., Any]], moves_of: Callable[[State], list[Move]]) -> Trace:
    watch = observer(game)
    target = states[end]
    steps: list[tuple[Move, State]] = []
    for index in range(len(chain) - 1, 0, -1):
        observation = parents[chain[index]][1]
        for member in keys[chain[index - 1]][1]:
            state = states[member]
            move = next((m for m in moves_of(state) if effects[m.rule](state, *m.args) == target
                         and watch.observation(state, m, target, seat) == observation), None)
            if move is not None:
                steps.append((move, target))
                target = state
                break
        else:
            raise AssertionError("a belief's state has no predecessor in the belief before it")
    steps.reverse()
    trace = Trace(game, target)
    for move, after in steps:
        assert game.apply(trace.end, move) == after, "the engine replays the game found"
        trace.append(move, after)
    return trace


def _rotated_trace(game: Game, trace: Trace, by: int) -> Trace:
    """The same game with every seat rotated `by` (the moves' seats and seat sets too)."""
    out = Trace(game, rotate(game, trace.start, by))
    for move, after in trace.steps:
        rule = game.by_name[move.rule].rule
        args = []
        for param, value in zip(rule.params, move.args):
            kind = param.type.kind
            if kind == "seat" and value >= 0:
                value = (value + by) % game.players
            elif kind == "seats":
                value = sum(1 << ((i + by) % game.players) for i in range(game.players) if value >> i & 1)
            args.append(value)
        rotated = Move(move.rule, tuple(args))
        assert game.apply(out.end, rotated) == rotate(game, after, by), "the rotated game replays"
        out.append(rotated, rotate(game, after, by))
    return out


def stderr_progress(line: str) -> None:
    """A progress line on stderr (long searches)."""
    print(line, file=sys.stderr, flush=True)
