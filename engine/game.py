"""The executable game: a spec compiled for one player count.

A state is an immutable named tuple of small ints (see spec/lang/types.py for the
encoding); its class knows the `Game` it belongs to, so the module-level functions of
`engine` work on a bare state.

The deck is held as the rules make it: counts of the Liberal and Fascist tiles in the
draw pile whose order nobody knows, the tiles on top that a Policy Peek has shown (in
order), and the counts of the discard pile. That is exact, not an approximation: the
pile is shuffled face down (R-S3, R-L5) and nothing but a peek or a draw reveals its
order, so every composition the counts allow is a possible draw, with the
hypergeometric probability the `draw_hand` rule's weight gives. Discards are never
revealed (R-L4), so their order never matters either.

Moves by a seat, by the table (the vote) and by chance are explicit; moves by the game
(forced bookkeeping: a win check, a reshuffle, passing candidacy) are explicit too, so a
trace shows every rule used, and `advance` runs them.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import IntEnum
from fractions import Fraction
from functools import lru_cache, partial
from itertools import product
from random import Random
from collections.abc import Iterable
from typing import Any, NamedTuple, TypeAlias

from spec.errors import SpecError, shown
from spec.lang.limits import check_field_range
from spec.lang.types import decode_seats, decode_tiles, encode_seats, encode_tiles
from spec.loader import load_spec
from spec.lang.nodes import Name, walk
from spec.model import ROLES, Rule, Spec, Template

from .words import UNTRANSLATED, move_name, named, seat_range, seat_shown, seats_shown, word
from .pycompile import (REJECTIONS, CompiledRule, Emitter, Record, compile_expression, compile_phase_step,
                        compile_rule)


State: TypeAlias = tuple[int, ...]
"""A game state as the type checker sees it: the encoded field values in schema order.
At run time it is an instance of its game's named tuple class (`Game.State`), whose
fields read by name and whose class knows the `Game` (`game_of`)."""


class Move(NamedTuple):
    """A move: the rule's name and its parameters' encoded values, in declaration order."""

    rule: str
    args: tuple[int, ...] = ()


class PhaseKind(IntEnum):
    """What a phase waits for, from the actor of its rules."""

    FORCED = 0      # the game's own move (a win check, a reshuffle, passing candidacy)
    CHANCE = 1      # chance: the deal, a draw
    CHOICE = 2      # a seat or the table (a phase may hold chance beside them: `mixed_phase`)
    OVER = 3        # nothing: the game is over


# Not frozen: Python sets __traceback__ on an exception as it passes through a context
# manager, and a frozen dataclass refuses that assignment.
@dataclass(slots=True, eq=False)
class IllegalMove(Exception):
    """A move the rules forbid: the rule ID that forbids it and the reason in plain words."""

    rule_id: str
    reason: str
    move: Move | None = None
    reason_de: str | None = None     # the reason in German, where the spec or the engine has it

    def __str__(self) -> str:
        return f"{self.rule_id}: {self.reason}"

    def said(self, lang: str = "en") -> str:
        """The reason in `lang`: German where there is one, else the English marked as such."""
        if lang == "en":
            return self.reason
        return self.reason_de if self.reason_de is not None else UNTRANSLATED + self.reason


MAX_FORCED = 1_000
"""The most forced moves in a row: the game's own bookkeeping between two decisions takes
a handful, so a chain this long is rules whose forced moves never hand the turn back (a
forced rule that leaves its phase as it was). Every loop over forced moves stops here,
so such rules are a finding (a deadlock, a refused move), never a hang."""

MAX_MOVES = 20_000
"""The most moves one game is taken to have: random play gives up after it, and a logged
game or trace longer than it is refused before it is replayed. A game of the published
rules takes at most a few hundred (the longest, found by the model checker, well under
that)."""


class Game:
    """A spec compiled for one player count: legal moves, apply, chance, outcomes."""

    def __init__(self, spec: Spec, players: int) -> None:
        self.spec = spec
        self.players = players
        self.values = spec.values_for(players)
        self.field_names = tuple(field.name for field in spec.fields)
        self.State: type = namedtuple("State", self.field_names)  # type: ignore[misc]
        self.State._game = self  # type: ignore[attr-defined]
        emitter = Emitter(spec, players)
        self.rules: tuple[CompiledRule, ...] = tuple(
            compile_rule(emitter, rule, index, self.State) for index, rule in enumerate(spec.rules))
        self.by_name = {compiled.rule.name: compiled for compiled in self.rules}
        phases = spec.enums["phase"]
        self.phase_names = phases
        self.by_phase: tuple[tuple[CompiledRule, ...], ...] = tuple(
            tuple(c for c in self.rules if c.rule.phase == phase) for phase in phases)
        self.phase_index = self.field_names.index("phase")
        self.over_phase = phases.index("over") if "over" in phases else -1
        self.phase_kind: tuple[PhaseKind, ...] = tuple(_phase_kind(rules) for rules in self.by_phase)
        # Phases where chance moves beside the seats (the power phase: Policy Peek).
        self.mixed_phase: tuple[bool, ...] = tuple(
            len({c.rule.actor for c in rules}) > 1 and any(c.rule.actor == "chance" for c in rules)
            for rules in self.by_phase)
        self.steps = tuple(compile_phase_step(emitter, rules) for rules in self.by_phase)
        # What each rule is for the tools (spec.model.ROLES), so none of them names a rule.
        self.by_role: dict[str, tuple[CompiledRule, ...]] = {
            role: tuple(c for c in self.rules if role in c.rule.roles) for role in ROLES}
        self._draws = {c.rule.name: compile_expression(spec, players, c.rule.draws, [p.name for p in c.rule.params])
                       for c in self.rules if c.rule.draws is not None}
        self.init_functions = [compile_expression(spec, players, field.init) for field in spec.fields]
        self._check_ranges()
        self._check_start()

    def _check_ranges(self) -> None:
        """Each int field's range, evaluated for this player count, is a non-empty range of
        bounded width that holds the field's initial value: the codec, the Z3 bit widths and
        the engine's own checks rely on it (a rule set that breaks it is bad input)."""
        for field, init in zip(self.spec.fields, self.init_functions):
            if field.low is None or field.high is None:
                continue
            low = compile_expression(self.spec, self.players, field.low)(None)
            high = compile_expression(self.spec, self.players, field.high)(None)
            check_field_range(field.name, int(low), int(high), int(init(None)), field.where)

    # ------------------------------------------------------------------ states

    def initial_state(self) -> State:
        """The state before the role deal: empty tracks, the full deck (R-S3)."""
        values = tuple(function(None) for function in self.init_functions)
        return self.make_state(values)

    def _check_start(self) -> None:
        """Some rule moves from the phase the game starts in: otherwise no game could
        start, and every search would report a one-state graph."""
        phase = self.initial_state()[self.phase_index]
        if not self.by_phase[phase] and phase != self.over_phase:
            field = next(f for f in self.spec.fields if f.name == "phase")
            raise SpecError(f"no rule moves in the phase '{self.phase_names[phase]}' the game starts in: no game "
                            f"could start", field.where)

    def make_state(self, values: Iterable[int]) -> State:
        """A state of this game from its field values, in schema order."""
        return tuple.__new__(self.State, tuple(values))

    def phase(self, state: State) -> str:
        """The name of the state's phase."""
        return str(self.phase_names[state[self.phase_index]])

    def is_over(self, state: State) -> bool:
        """Whether a win has happened (R-W5: then nothing more is played)."""
        return bool(state[self.phase_index] == self.over_phase)

    def winner(self, state: State) -> str | None:
        """'liberal', 'fascist' or None while the game goes on."""
        return self.outcome_named(state[self.field_names.index("winner")], 0)[0]

    def how(self, state: State) -> str | None:
        """How the game was won: 'policies', 'execution', 'hitler_chancellor', or None."""
        return self.outcome_named(0, state[self.field_names.index("how")])[1]

    def outcome_named(self, winner: int, how: int) -> tuple[str | None, str | None]:
        """The values of the fields `winner` and `how` by their names, None for 'none' (a
        game not over): how every pass over states names an outcome."""
        team, manner = self.spec.enums["team"][winner], self.spec.enums["how"][how]
        return None if team == "none" else team, None if manner == "none" else manner

    def actor(self, state: State) -> str | int | None:
        """Who moves next: a seat, 'table', 'chance', 'game', or None when the game is over."""
        rules = self.by_phase[state[self.phase_index]]
        if not rules:
            return None
        first = rules[0]
        if self.mixed_phase[state[self.phase_index]] and self.chance_outcomes(state):
            return "chance"                     # the power phase: a Policy Peek is chance's move
        if first.actor is not None:
            seat: int = first.actor(state)
            return seat
        return str(first.rule.actor)

    # ------------------------------------------------------------------ moves

    def move(self, rule: str, **params: Any) -> Move:
        """A move from readable parameters: seats as ints, sets as lists, tiles by name."""
        compiled = self.by_name.get(rule)
        if compiled is None:
            raise SpecError(f"no move named {shown(rule)}; moves are {', '.join(self.by_name)}")
        args = []
        for param in compiled.rule.params:
            if param.name not in params:
                raise SpecError(f"move '{rule}' needs parameter '{param.name}' ({param.domain.text})")
            args.append(self.encode(param.type.kind, param.type.enum, params.pop(param.name)))
        if params:
            raise SpecError(f"move '{rule}' has no parameter {shown(next(iter(params)))}")
        return Move(rule, tuple(args))

    def role_move(self, role: str, **params: Any) -> Move:
        """A move of the one rule with `role` (the setup's `deal` and `opening`), from
        readable parameters; a `SpecError` if the rules have no such rule."""
        return self.move(self.spec.role_rule(role).name, **params)

    def vote(self, state: Any, ja: Any) -> Move:
        """The move a vote with these Ja voters (seats, readable) is: the vote rule (role
        `vote`: elected or rejected) whose requirements the count meets (R-E7), in the order
        of the rules file. When none does (a dead seat voted), the first vote rule, so that
        checking the move gives the reason; whether it is the time to vote is left to that
        check too. The one place a vote becomes a move."""
        rules = self.by_role["vote"]
        if not rules:
            raise SpecError(f"rules '{self.spec.name}' have no rule with role 'vote' ({ROLES['vote']})")
        args = (self.encode("seats", None, ja),)
        for compiled in rules:
            if compiled.guard(state, *args):
                return Move(compiled.rule.name, args)
        return Move(rules[0].rule.name, args)

    def draws(self, state: Any, move: Move) -> int:
        """Tiles a move takes from the top of the pile (a rule's `draws`; 0 for other rules)."""
        function = self._draws.get(move.rule)
        return 0 if function is None else int(function(state, *move.args))

    def encode(self, kind: str, enum: str | None, value: Any) -> int:
        """The encoded form of a readable parameter value."""
        if kind == "seats":
            if not isinstance(value, (list, tuple, set, frozenset)) or not all(
                    isinstance(v, int) and not isinstance(v, bool) and 0 <= v < self.players for v in value):
                raise SpecError(f"expected a list of numbers 0..{self.players - 1}, seats as the machine formats "
                                f"count them (from 0: seats {seat_range(self.players)} at the table), got {shown(value)}")
            return encode_seats(list(value))
        if kind == "tiles":
            if not isinstance(value, (list, tuple)) or not all(v in ("liberal", "fascist") for v in value):
                raise SpecError(f"expected a list of 'liberal'/'fascist' tiles, got {shown(value)}")
            return encode_tiles(list(value))
        if kind == "enum":
            members = self.spec.enums[str(enum)]
            if value not in members:
                raise SpecError(f"expected one of {', '.join(members)}, got {shown(value)}")
            return members.index(value)
        if kind == "bool":
            return int(bool(value))
        if not isinstance(value, int) or isinstance(value, bool):
            raise SpecError(f"expected a whole number, got {shown(value)}")
        return value

    def decode(self, kind: str, enum: str | None, value: int) -> Any:
        """The readable form of an encoded value."""
        if kind == "seats":
            return decode_seats(value)
        if kind == "tiles":
            return decode_tiles(value)
        if kind == "enum":
            return None if value < 0 else self.spec.enums[str(enum)][value]
        if kind == "seat":
            return None if value < 0 else value
        if kind == "bool":
            return bool(value)
        return value

    def params_of(self, move: Move) -> dict[str, Any]:
        """The readable parameters of a move."""
        rule = self.by_name[move.rule].rule
        return {p.name: self.decode(p.type.kind, p.type.enum, v) for p, v in zip(rule.params, move.args)}

    def describe(self, state: State) -> dict[str, Any]:
        """Every field of a state, readable."""
        return {field.name: self.decode(field.type.kind, field.type.enum, value)
                for field, value in zip(self.spec.fields, state)}

    def _arg_tuples(self, compiled: CompiledRule, state: State) -> Iterator[tuple[int, ...]]:
        if not compiled.domains:
            yield ()
            return
        yield from product(*(domain(state) for domain in compiled.domains))

    def legal_moves(self, state: State) -> list[Move]:
        """Every move the rules allow now (chance outcomes included, with weight > 0)."""
        moves = []
        for compiled in self.by_phase[state[self.phase_index]]:
            for args in self._arg_tuples(compiled, state):
                if compiled.guard(state, *args) and (compiled.weight is None or compiled.weight(state, *args) > 0):
                    moves.append(Move(compiled.rule.name, args))
        return moves

    def chance_outcomes(self, state: State) -> list[tuple[Move, Fraction]]:
        """The chance moves possible now with their exact probabilities (empty if not chance's turn)."""
        weighted = []
        for compiled in self.by_phase[state[self.phase_index]]:
            if compiled.outcomes is None:
                continue
            for args, weight in compiled.outcomes(state):
                weighted.append((Move(compiled.rule.name, args), weight))
        total = sum(weight for _, weight in weighted)
        return [(move, Fraction(weight, total)) for move, weight in weighted]

    def check(self, state: State, move: Move, by: int | None = None) -> CompiledRule:
        """The compiled rule of a legal move; raise `IllegalMove` (rule ID, reason) otherwise."""
        compiled = self.by_name.get(move.rule)
        if compiled is None:
            raise _illegal("R-W5", move, "no_move", rule=move.rule)
        phase = state[self.phase_index]
        if compiled.rule.phase != self.phase_names[phase]:
            raise self._wrong_time(state, compiled.rule, move)
        rule = compiled.rule
        if len(move.args) != len(rule.params):
            raise _illegal(rule.rule_ids[0] if rule.rule_ids else "R-W5", move, "params", rule=rule.name,
                           count=len(rule.params))
        for param, value, domain in zip(rule.params, move.args, compiled.domains):
            if value not in domain(state):
                raise _illegal(rule.rule_ids[0] if rule.rule_ids else "R-S1", move, "domain",
                               value=self.decode(param.type.kind, param.type.enum, value), param=param.name,
                               domain=param.domain.text)
        if by is not None and compiled.actor is not None:
            expected = compiled.actor(state)
            if by != expected:
                key = "who_" + rule.actor_text
                english = word("en", key) if key in ("who_president", "who_nominee") else rule.actor_text
                german = word("de", key) if key in ("who_president", "who_nominee") else rule.actor_text
                by_shown, expected_shown = seat_shown(by), seat_shown(expected)
                raise IllegalMove(rule.actor_rule, word("en", "not_actor", by=by_shown, who=english,
                                                        expected=expected_shown, what=move_name(rule, "en")), move,
                                  word("de", "not_actor", by=by_shown, who=german, expected=expected_shown,
                                       what=move_name(rule, "de")))
        failing = compiled.first_failure(state, *move.args)
        if failing >= 0:
            requirement = rule.requires[failing]
            raise IllegalMove(requirement.rule_id, self.reason(compiled, failing, state, move.args), move,
                              self.reason(compiled, failing, state, move.args, "de"))
        if compiled.weight is not None and compiled.weight(state, *move.args) <= 0:
            raise _illegal(rule.rule_ids[0] if rule.rule_ids else "R-L1", move, "impossible")
        return compiled

    def _wrong_time(self, state: State, rule: Rule, move: Move | None = None) -> IllegalMove:
        phase = self.phase(state)
        if phase == "over":
            winner, how = self.winner(state), self.how(state)
            return IllegalMove("R-W5", word("en", "game_over", winner=winner, how=how), move,
                               word("de", "game_over", winner=named("de", "team", str(winner)),
                                    how=named("de", "how", str(how))))
        waiting = self.by_phase[state[self.phase_index]]
        names = sorted({c.rule.name for c in waiting})
        names_de = sorted({move_name(c.rule, "de") for c in waiting})
        # The attempted move's own rule says when it may happen (chaos: R-E9); a seat's move
        # with no requirement cites the rule that gives it to that seat (accept_veto: R-V3).
        rule_id = rule.phase_rule or (rule.rule_ids[0] if rule.rule_ids else
                                      rule.actor_rule if rule.actor == "seat" else "R-W5")
        return _illegal(rule_id, move, "wrong_time", rule={"en": rule.name, "de": move_name(rule, "de")}, phase=phase,
                        expected={"en": word("en", "or").join(names) or word("en", "nothing"),
                                  "de": word("de", "or").join(f"„{name}“" for name in names_de) or word("de", "nothing")})

    def reason(self, compiled: CompiledRule, failing: int, state: State, args: tuple[int, ...],
               lang: str = "en") -> str:
        """The plain-words reason of a failing requirement in `lang`, its holes filled in
        (German from `why_de`; without one, the English marked as such)."""
        requirement = compiled.rule.requires[failing]
        return self._text(requirement.why, requirement.why_de, compiled.holes[failing], state, args, lang)

    def says(self, state: State, move: Move, lang: str = "en") -> str:
        """What a move does, in words (the rule's `says`, or in German its `says_de`; without
        one, the English marked as such): its names read in the state before the move, its
        `after_FIELD` in the state the move's effect gives, so that what it says the move
        changed is what the move changed (the loader refuses a sentence working it out again)."""
        compiled = self.by_name[move.rule]
        if compiled.rule.says is None:
            if lang == "de" and compiled.rule.summary_de:
                return compiled.rule.summary_de
            return compiled.rule.summary if lang == "en" else UNTRANSLATED + compiled.rule.summary
        # The effect only where the sentence reads it: the sentence of an illegal move (judge) needs none.
        after = compiled.effect(state, *move.args) if _reads_after(compiled.rule.says) else state
        functions = tuple(partial(_with_after, function, after) for function in compiled.says)
        return self._text(compiled.rule.says, compiled.rule.says_de, functions, state, move.args, lang)

    def _text(self, english: Template, translated: Template | None, functions: tuple[Any, ...], state: State,
              args: tuple[int, ...], lang: str) -> str:
        """A template in `lang`. A translation's holes are holes of the English template (the
        loader checks it), so the English template's compiled functions fill both."""
        if lang == "en":
            return self._render(english, functions, state, args)
        if translated is None:
            return UNTRANSLATED + self._render(english, functions, state, args)
        by_hole = dict(zip((hole for hole, _ in english.holes), functions))
        nodes = dict(english.holes)
        return self._render(translated, tuple(by_hole[hole] for hole, _ in translated.holes), state, args,
                            self.spec.values_de, {hole: nodes[hole] for hole, _ in translated.holes})

    def _render(self, template: Template, functions: tuple[Any, ...], state: State, args: tuple[int, ...],
                values: dict[str, str] | None = None, nodes: dict[str, Any] | None = None) -> str:
        """The template's holes filled in order; `values` words the rules' names (enum members)
        for a translation, whose `nodes` are the English template's (same hole, same type)."""
        text = template.text
        for (hole, node), function in zip(template.holes, functions):
            node = nodes[hole] if nodes is not None else node
            value = seats_shown(node.type.kind, self.decode(node.type.kind, node.type.enum, function(state, *args)))
            text = text.replace("{" + hole + "}", _shown(value, values), 1)
        return text

    def apply(self, state: State, move: Move, by: int | None = None) -> State:
        """The state after a legal move; `IllegalMove` names the rule that forbids it."""
        compiled = self.check(state, move, by)
        return compiled.effect(state, *move.args)

    def reveals(self, state: State, move: Move) -> dict[str, Any]:
        """What the move shows its actor (an investigation's party membership)."""
        compiled = self.by_name[move.rule]
        return {name: self.decode(node.type.kind, node.type.enum, function(state, *move.args))
                for (name, node), (_, function) in zip(compiled.rule.reveals, compiled.reveals)}

    def forced_move(self, state: State) -> Move | None:
        """The game's own move when it is the game's turn (exactly one is legal), else None."""
        rules = self.by_phase[state[self.phase_index]]
        if not rules or rules[0].rule.actor != "game":
            return None
        for compiled in rules:
            if compiled.guard(state):
                return Move(compiled.rule.name, ())
        raise AssertionError(f"no game rule applies in phase {self.phase(state)}")

    def advance(self, state: State) -> tuple[State, list[Move]]:
        """Run the game's forced moves until a seat, the table or chance must act."""
        steps: list[Move] = []
        move = self.forced_move(state)
        while move is not None:
            if len(steps) >= MAX_FORCED:
                raise AssertionError(f"the game's own moves never end: {move.rule} in phase {self.phase(state)} "
                                     f"after {MAX_FORCED} forced moves")
            state = self.by_name[move.rule].effect(state)
            steps.append(move)
            move = self.forced_move(state)
        return state, steps

    # ------------------------------------------------------------------ random play

    def random_step(self, state: State, rng: Random) -> State | None:
        """The state after the move random play makes now, or None when the game is over
        (the fast path of `random_move` + `apply`, compiled per phase: every move it makes
        is legal, chance with its exact weight, choices uniform over the legal moves)."""
        step = self.steps[state[self.phase_index]]
        return None if step is None else step(state, rng)

    def random_next(self, state: State, rng: Random) -> State | None:
        """`random_step`, where a state with no move (a deadlock the rules allow: a broken
        variant or mutant) ends the game as a finished one does, with None: a sampler of
        random games (invariant and ranking inference) needs their states, not a crash."""
        try:
            return self.random_step(state, rng)
        except AssertionError:
            return None

    def recorded_steps(self, record: Record) -> tuple[Callable[..., State | None] | None, ...]:
        """`random_step`'s functions per phase, compiled again to tell `record` the rule
        index and parameters of every move they make (None where the game is over): random
        games whose moves are wanted, without `random_move`'s slower general path."""
        emitter = Emitter(self.spec, self.players)
        return tuple(compile_phase_step(emitter, rules, record) for rules in self.by_phase)

    def random_move(self, state: State, rng: Random) -> Move | None:
        """The move random play makes now: the forced one, a chance outcome with its
        exact probability, or a uniformly random legal choice; None when the game is over."""
        kind = self.phase_kind[state[self.phase_index]]
        if kind is PhaseKind.FORCED:
            return self.forced_move(state)
        if kind is PhaseKind.CHANCE or (self.mixed_phase[state[self.phase_index]] and self.chance_outcomes(state)):
            return self.sample_chance(state, rng)
        if kind is PhaseKind.CHOICE:
            return self.sample_choice(state, rng)
        return None

    def sample_chance(self, state: State, rng: Random) -> Move:
        """A chance move drawn with its exact probability."""
        rules = self.by_phase[state[self.phase_index]]
        if len(rules) == 1 and _uniform(rules[0].rule) and rules[0].domains:
            # Equal weights: draw from the parameter domains until the requirements hold,
            # which is uniform over the legal outcomes.
            compiled = rules[0]
            samplers = compiled.samplers
            guard = compiled.guard
            for _ in range(REJECTIONS):
                args = tuple(draw(state, rng) for draw in samplers)
                if guard(state, *args):
                    return Move(compiled.rule.name, args)
            return self._listed(state, rules, rng, "no chance outcome")
        outcomes = []
        total = 0
        for compiled in rules:
            if compiled.outcomes is None:       # a seat's rule beside chance's (the power phase)
                continue
            for args, weight in compiled.outcomes(state):
                total += weight
                outcomes.append((total, compiled.rule.name, args))
        if not outcomes:
            raise AssertionError(f"no chance outcome in phase {self.phase(state)}")
        point = rng.randrange(total)
        for bound, name, args in outcomes:
            if point < bound:
                return Move(name, args)
        raise AssertionError("unreachable: the point lies below the total weight")

    def sample_choice(self, state: State, rng: Random) -> Move:
        """A uniformly random legal move of a seat or the table.

        Rejection sampling over the union of the phase's rules' parameter domains: a
        (rule, parameters) pair is drawn uniformly and kept if the requirements hold, so
        every legal move has the same probability."""
        rules = self.by_phase[state[self.phase_index]]
        sizes = []
        total = 0
        for compiled in rules:
            size = 1
            for domain_size in compiled.sizes:
                size *= domain_size(state)
            sizes.append(size)
            total += size
        random = rng.random
        for _ in range(REJECTIONS):
            point = int(random() * total)
            for compiled, size in zip(rules, sizes):
                if point < size:
                    args = tuple(draw(state, rng) for draw in compiled.samplers)
                    if compiled.guard(state, *args):
                        return Move(compiled.rule.name, args)
                    break
                point -= size
        return self._listed(state, rules, rng, "no legal move found")

    def _listed(self, state: State, rules: Sequence[CompiledRule], rng: Random, none: str) -> Move:
        """One of the legal moves of `rules`, listed and drawn uniformly: where rejection
        sampling drew `REJECTIONS` times in vain (engine/pycompile.py), most likely because
        there is none, a deadlock, told as `none`."""
        legal = [Move(compiled.rule.name, args) for compiled in rules
                 for args in self._arg_tuples(compiled, state) if compiled.guard(state, *args)]
        if not legal:
            raise AssertionError(f"{none} in phase {self.phase(state)} (deadlock)")
        return legal[int(rng.random() * len(legal))]


def _illegal(rule_id: str, move: Move | None, key: str, **values: object) -> IllegalMove:
    """An illegal move whose reason is the frame's `key` (engine/words.py) in English and in
    German; a value given as {lang: text} is worded per language."""
    def filled(lang: str) -> str:
        return word(lang, key, **{name: value[lang] if isinstance(value, dict) else value
                                  for name, value in values.items()})
    return IllegalMove(rule_id, filled("en"), move, filled("de"))


def _shown(value: Any, words: dict[str, str] | None) -> str:
    """A decoded value in a move sentence: seats and tiles joined by commas, none for an empty
    set; `words` (a translation's) words the rules' names, such as a tile or a power."""
    if isinstance(value, list):
        if not value:
            return "none" if words is None else words.get("none", "none")
        return ", ".join(_shown(item, words) for item in value)
    if words is not None and isinstance(value, str):
        return words.get(value, value)
    return str(value)


def _reads_after(template: Template) -> bool:
    """Whether a sentence shows a field after the move (`after_FIELD`)."""
    return any(isinstance(item, Name) and item.kind == "after" for _, node in template.holes for item in walk(node))


def _with_after(function: Callable[..., Any], after: State, state: State, *args: int) -> Any:
    """A sentence hole's function called as a requirement's is, with the state after the move."""
    return function(state, after, *args)


def _phase_kind(rules: tuple[CompiledRule, ...]) -> PhaseKind:
    """What a phase waits for: decided by the actor of its first rule."""
    if not rules:
        return PhaseKind.OVER
    actor = rules[0].rule.actor
    return PhaseKind.FORCED if actor == "game" else PhaseKind.CHANCE if actor == "chance" else PhaseKind.CHOICE


def _uniform(rule: Rule) -> bool:
    from spec.lang.nodes import Lit

    return isinstance(rule.weight, Lit) and rule.weight.value == 1


@lru_cache(maxsize=None)
def compiled_game(players: int, name: str = "standard") -> Game:
    """The game for `players` under the rules `name` loads, compiled once per process and
    cached: for a name held as data (a trace's, a transcript's, a log's). Below the command
    line verify takes the rules as a value (verify/rules.py `Rules.game`, which compiles
    through this cache, so that a game replayed by the name it records is the same game).
    A process that compiles many rule sets bounds it (verify/scale/tasks.py `forget_games`)."""
    return Game(load_spec(name), players)


def game_of(state: State) -> Game:
    """The `Game` a state belongs to."""
    game: Game = type(state)._game  # type: ignore[attr-defined]  # set on the class by Game.__init__
    return game
