"""Rule sequences of random games that reach where a property fires: guides for the solver.

Two uses (verify/smt/backend.py `Backend.search`). Before the deep query at a tight lower
bound, games exactly that long: a path along one is a shortest witness for one quick
query. And once that search stalls, as follows.

The shortest witness of a `sometimes` property is searched for depth by depth from a
proved lower bound, and every depth below the shortest one is an unsatisfiable query.
Without the written hints the bound is looser (the found distance: 59 moves where the
shortest Fascist policy win at 5 players takes 64), and at 7 players or under a variant
those queries can outlast the property's time limit. The search then knows that no game
shorter than the depth it reached gets there, but it holds no game that does, so the
verdict used to be unknown, although the thing happens in nearly every other random
game.

Here the engine plays random games, and the rules of the moves of each game up to the
first state (or move) where the property holds become a guide: the solver is asked for a
path of exactly those rules (verify/smt/bmc.py `guided`), which it answers quickly since
it only chooses parameters. A path found is a real one, replayed through the engine like
every BMC path. It decides the property; it is a shortest one only when its length equals
the depth the plain search reached, and otherwise the verdict says how far apart the
two are (`Witnessed.lower_bound`).

The same holds for a violation once induction failed and the search for a reachable one
stalls (verify/smt/reach.py `reach`, verify/smt/check.py `_state_invariant`): a changed
rule may break a property only deep in a game, off every path the plain search reaches
in time. Chaos that needs two Fascist tiles in the pile to enact one (R-E9) breaks "chaos may enact the pile's last Fascist
tile" only where the pile holds exactly one, at a chaos with nothing known on top: 35 of
3,000 random games at 5 players get there, 53 to 75 moves in (the shortest and the
median), and the solver's path along one refutes it (`Refuted.lower_bound` when not
proved a shortest). So the games are
played up to the first place the property fires, whatever its kind: a witness, a
violated invariant, a permission's breach (every legal move listed, only at the states
that want it), a state with no move, a move back to a state the game was in a few moves
before (a game that can go round for ever).

Nothing here decides a verdict on its own: a guide that leads nowhere costs one query.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from random import Random
from typing import Any

from engine.game import MAX_MOVES, Game, Move
from engine.propcheck import compile_allowances, compile_checks
from spec.lang.limits import EvaluationLimit
from spec.order import own_properties
from spec.properties import PERMISSIONS, Property

from ..budgets import PLAYOUT_FIRST_SECONDS, PLAYOUT_SECONDS
from .guides import Guide
from .lasso import CYCLE_MOVES



PLAYOUT_GAMES = 20_000
"""The most random games played for one property."""

MAX_PLAYOUT_GUIDES = 4
"""The shortest distinct guides kept: tried in turn, shortest first."""


Step = Callable[[Any, Random], Any]


def _random_steps(game: Game, made: list[tuple[int, tuple[int, ...]]]) -> list[Step | None]:
    """The random step of each phase, telling `made` each move's rule index and parameters
    (`Game.recorded_steps`), but where the game itself moves and more than one of its
    rules may: there the engine makes the first whose requirements hold, and random play
    picks one of those that hold. Under the rules only one ever holds; a changed rule that
    lets another fire too (a power granted, or the game going on, where the written
    requirement forbade it) would otherwise never be played, though the solver's
    transitions, like the complete search's, allow both."""
    recorded = game.recorded_steps(lambda index, args: made.append((index, args)))
    steps: list[Step | None] = list(recorded)
    for phase, rules in enumerate(game.by_phase):
        if len(rules) < 2 or rules[0].rule.actor != "game":
            continue

        def choose(state: Any, rng: Random, rules: Any = rules, own: Any = recorded[phase]) -> Any:
            holding = [compiled for compiled in rules if compiled.guard(state)]
            if len(holding) < 2:
                return own(state, rng) if own is not None else None
            compiled = holding[rng.randrange(len(holding))]
            made.append((compiled.index, ()))
            return compiled.effect(state)
        steps[phase] = choose
    return steps


def played_guides(game: Game, prop: Property, seconds: float = PLAYOUT_SECONDS, games: int = PLAYOUT_GAMES,
                  seed: int = 0, at_least: int = 1, exactly: bool = False) -> list[Guide]:
    """The rule sequences, shortest first, of random games up to the first place where
    `prop` fires: a `sometimes` property's state or move (a witness), an invariant's
    violation, a permission's breach (`allows`: a state where it holds and no legal move is
    one it allows; `only`: a legal move it does not allow, the guide ending with that move),
    a state with no legal move in a game not over (`deadlock_free`), or a move back to a
    state the game was in at most `CYCLE_MOVES` moves before (`terminates`: the game can
    go round for ever, verify/smt/lasso.py). At least `at_least`
    moves long (shorter paths are known not to exist), or exactly that long with `exactly`.
    Seeded: the same rules, seed and number of games give the same guides. Empty when no
    game played within `seconds` or `games` gets there, or for ranges (no single place
    breaks them).

    The games are played by the engine's fast random step (`Game.recorded_steps`, every
    move legal, chance with its exact weight), told each move's rule and parameters; a
    game cut short (no legal move, or `MAX_MOVES` played) still counts up to there."""
    fired = _fires(game, prop)
    if fired is None:
        return []
    phase_index = game.phase_index
    names = [compiled.rule.name for compiled in game.rules]
    made: list[tuple[int, tuple[int, ...]]] = []
    steps = _random_steps(game, made)
    rng = Random(seed)
    found: set[Guide] = set()
    longest = at_least if exactly else MAX_MOVES
    stop = time.perf_counter() + seconds
    for _ in range(games):
        if time.perf_counter() > stop:
            break
        made.clear()
        state = game.initial_state()
        recent: deque[Any] = deque([state], maxlen=CYCLE_MOVES)    # `terminates`: the states a cycle may close on
        while len(made) < longest:
            step = steps[state[phase_index]]
            after = None
            try:
                try:
                    after = step(state, rng) if step is not None else None
                except AssertionError:   # no legal move (a deadlock the rules allow): the game ends here
                    pass
                rules = [names[index] for index, _ in made]
                if after is None:
                    hit = fired.stuck and not game.is_over(state) and not game.legal_moves(state)
                elif fired.repeats:
                    hit = after in recent
                    recent.append(after)
                else:
                    index, args = made[-1]
                    breaking = fired.breaking(state)
                    hit = fired.move_fires(state, after, index, args) or fired.state_fires(after)
                    if breaking is not None:     # an `only` broken by another move than the random one
                        hit, rules = True, rules[:-1] + [breaking]
            except EvaluationLimit:  # a changed rule asks for a value past a bound: no guide beyond
                break
            if hit:
                if len(rules) == at_least or (len(rules) > at_least and not exactly):
                    found.add(tuple(rules))
                break
            if after is None:
                break
            state = after
    return sorted(found, key=lambda guide: (len(guide), guide))[:MAX_PLAYOUT_GUIDES]


class _Fires:
    """Where one property fires in random play, whatever its kind (`_fires`)."""

    def __init__(self, game: Game, prop: Property) -> None:
        self.game = game
        self.stuck = prop.kind == "deadlock_free"
        self.repeats = prop.kind == "terminates"
        # Each compiler takes only its own kinds (checks the state and move properties,
        # allowances the permissions); deadlock freedom and termination have no expression.
        asked = () if self.stuck or self.repeats else (prop,)
        checks, allowances = compile_checks(game, asked), compile_allowances(game, asked)
        self.state_checks, self.move_checks = checks.state, checks.move
        self.wanted, self.given = allowances.wanted, allowances.given
        self.only = prop.kind == "only"
        self.index = {compiled.rule.name: compiled.index for compiled in game.rules}

    def move_fires(self, state: Any, after: Any, index: int, args: tuple[int, ...]) -> bool:
        check = self.move_checks[index]
        return check is not None and bool(check(state, after, *args))

    def state_fires(self, state: Any) -> bool:
        """A state or `allows` property fires in `state` (an `allows` where it is wanted and
        no legal move gives it: every move is listed, only at the rare states wanting it)."""
        check = self.state_checks[state[self.game.phase_index]]
        if check is not None and check(state):
            return True
        if self.only:
            return False
        return self._wanted(state) and not any(self._gives(state, move) for move in self.game.legal_moves(state))

    def breaking(self, state: Any) -> str | None:
        """An `only` property's move that breaks it in `state`: the rule of a legal move
        it does not allow where it is wanted (None for other kinds, or none breaks it)."""
        if not self.only or not self._wanted(state):
            return None
        return next((move.rule for move in self.game.legal_moves(state) if not self._gives(state, move)), None)

    def _wanted(self, state: Any) -> bool:
        wanted = self.wanted[state[self.game.phase_index]]
        return wanted is not None and bool(wanted(state))

    def _gives(self, state: Any, move: Move) -> bool:
        given = self.given[self.index[move.rule]]
        return given is not None and bool(given(state, self.game.apply(state, move), *move.args))


def _fires(game: Game, prop: Property) -> _Fires | None:
    """How random play tells that `prop` fires, or None for a kind no place breaks alone."""
    if prop.kind == "in_range":
        return None
    if prop.kind not in (*PERMISSIONS, "deadlock_free", "terminates") and prop.state is None and prop.move is None:
        return None
    return _Fires(game, prop)


def played_breaches(game: Game, props: Sequence[Property], seconds: float = PLAYOUT_SECONDS,
                    games: int = PLAYOUT_GAMES, seed: int = 0, shortest: bool = True) -> dict[str, Guide]:
    """For each property among `props` that a random game breaks, the rule sequence of the
    shortest such game up to its first breach, by name: one set of games checks every
    property at once, where `played_guides` plays for one. The kinds: a state or move
    invariant (`always`, `never`, `shows`: each state and move against one compiled bit
    mask, engine/propcheck.py), a state with no legal move in a game not over
    (`deadlock_free`), a move back to a state the game was in at most `CYCLE_MOVES` moves
    before (`terminates`), a permission a state wants and its legal moves do not give
    (`allows`, `only`: `_PermissionBreaches`). Seeded like `played_guides`; empty when no
    game played within `seconds` or `games` breaks any.

    The initial state is checked once, before any game: a state invariant it breaks is
    broken by the empty guide (the premise "the game starts" is reached there, and no move
    comes back to it). A game goes on past a breach (another property may break later in it); once every
    property has a guide, a game stops at the length of the longest one kept, past which
    it can shorten none. Without `shortest`, play stops as soon as every property has a
    guide: a caller that only asks whether a game gets there (a premise reached,
    verify/smt/vacuity.py) does not spend the whole `seconds` shortening guides."""
    props = own_properties(game.spec, props)      # none over other rules' fields (spec/order.py)
    checked = tuple(prop for prop in props if prop.kind in ("always", "never", "shows")
                    and (prop.state is not None or prop.move is not None))
    permissions = tuple(prop for prop in props if prop.kind in PERMISSIONS
                        and prop.state is not None and prop.move is not None)
    stuck = next((prop for prop in props if prop.kind == "deadlock_free"), None)
    repeats = next((prop for prop in props if prop.kind == "terminates"), None)
    asked = (*checked, *permissions, *(prop for prop in (stuck, repeats) if prop is not None))
    if not asked:
        return {}
    stuck_bit = 1 << (len(checked) + len(permissions)) if stuck is not None else 0
    repeat_bit = 1 << (len(asked) - 1) if repeats is not None else 0
    checks = compile_checks(game, checked)
    state_checks, move_checks = checks.state, checks.move
    phase_index = game.phase_index
    names = [compiled.rule.name for compiled in game.rules]
    breaches = _PermissionBreaches(game, permissions, len(checked))
    made: list[tuple[int, tuple[int, ...]]] = []
    steps = _random_steps(game, made)
    rng = Random(seed)
    found: dict[int, Guide] = {}
    everything = (1 << len(asked)) - 1
    stop = time.perf_counter() + seconds

    def so_far() -> Guide:
        """The rules of the moves this game has made, a guide up to its state now."""
        return tuple(names[rule] for rule, _ in made)

    def keep(fresh: int, rules: Guide) -> None:
        for bit in range(len(asked)):
            if fresh >> bit & 1 and (bit not in found or len(rules) < len(found[bit])):
                found[bit] = rules

    start = game.initial_state()           # every game's first state: a breach there needs no move
    first_check = state_checks[start[phase_index]]
    if first_check is not None and first_check(start):
        keep(first_check(start), ())
    for _ in range(games):
        if time.perf_counter() > stop or (not shortest and len(found) == len(asked)):
            break
        made.clear()
        state = game.initial_state()
        recent: deque[Any] = deque([state], maxlen=CYCLE_MOVES)    # the states a cycle may close on
        broken = 0                                                  # the bits this game already broke
        longest = MAX_MOVES if len(found) < len(asked) else max(len(guide) for guide in found.values())
        while len(made) < longest and broken != everything:
            step = steps[state[phase_index]]
            try:
                after = step(state, rng) if step is not None else None
            except AssertionError:            # no legal move, in a game not over: a deadlock
                after = None
            except EvaluationLimit:           # a changed rule asks for a value past a bound: no further
                break
            if after is None:
                if stuck_bit and not broken & stuck_bit and not game.is_over(state) and not game.legal_moves(state):
                    keep(stuck_bit, so_far())
                break
            index, args = made[-1]
            move_check, state_check = move_checks[index], state_checks[after[phase_index]]
            fired = (move_check(state, after, *args) if move_check is not None else 0) \
                | (state_check(after) if state_check is not None else 0)
            if repeat_bit and after in recent:
                fired |= repeat_bit
            recent.append(after)
            fresh = fired & ~broken
            if fresh:
                broken |= fresh
                keep(fresh, so_far())
            for bit, last in breaches.at(after, broken):
                broken |= bit
                keep(bit, so_far() + last)
            state = after
    return {asked[bit].name: guide for bit, guide in sorted(found.items())}


class _PermissionBreaches:
    """Where random play breaks an `allows` or `only` property (`played_breaches`): a
    state where it is wanted and no legal move gives it (`allows`), or where a legal move
    does not (`only`: the guide then ends with that move). Every legal move is listed, but
    only in the states that want a permission not yet broken in the game (a granted power,
    a veto proposed): few of a game's."""

    def __init__(self, game: Game, permissions: tuple[Property, ...], offset: int) -> None:
        self.game, self.offset = game, offset
        allowances = compile_allowances(game, permissions)
        self.wanted, self.given = allowances.wanted, allowances.given
        self.only = allowances.only
        self.index = {compiled.rule.name: compiled.index for compiled in game.rules}

    def _wanted(self, state: Any, broken: int) -> int:
        """The permissions `state` wants, as bits of `permissions`, but those `broken` (bits
        of `played_breaches`) has."""
        wanted = self.wanted[state[self.game.phase_index]]
        return wanted(state) & ~(broken >> self.offset) if wanted is not None else 0

    def at(self, state: Any, broken: int) -> list[tuple[int, tuple[str, ...]]]:
        """The permissions `state` breaks, each as its bit of `played_breaches` and the
        rules the guide adds (the move breaking an `only`, none for an `allows`)."""
        want = self._wanted(state, broken)
        if not want:
            return []                        # most states: no legal move listed
        given_by_any = 0
        lacking: dict[int, str] = {}         # an `only` bit -> the rule of a legal move not giving it
        for move in self.game.legal_moves(state):
            given = self.given[self.index[move.rule]]
            bits = given(state, self.game.apply(state, move), *move.args) if given is not None else 0
            given_by_any |= bits
            for bit in range(want.bit_length()):
                if want >> bit & self.only >> bit & 1 and not bits >> bit & 1:
                    lacking.setdefault(bit, move.rule)
        out: list[tuple[int, tuple[str, ...]]] = []
        for bit in range(want.bit_length()):
            if not want >> bit & 1:
                continue
            if self.only >> bit & 1:
                if bit in lacking:
                    out.append((1 << (bit + self.offset), (lacking[bit],)))
            elif not given_by_any >> bit & 1:
                out.append((1 << (bit + self.offset), ()))
        return out
