"""The product of two engines for `shrules diff`: one pair of states, compared and expanded.

`Side` is one rule set compiled for the search (candidate moves with vote
representatives, legality by the seat that makes the move, forced chains); a
`ProductSearch` compares a pair of states — legality, outcome, the game's visible forced
moves, revelations, odds, in that order of importance — and expands it breadth-first,
one level per decision, keyed by both states packed (verify/explicit/codec.py) in a
common frame. It also plays random games in lockstep, and rebuilds a distinguishing game
through both engines, every move re-checked. compare.py drives it over the player counts.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from random import Random
from typing import Any

from engine.game import MAX_FORCED, Game, IllegalMove, Move
from engine.pycompile import CompiledRule, compile_expression
from engine.trace import Trace

from ..clock import Budget as Clock
from ..explicit.codec import Codec, OutOfRange
from .reductions import dead_masker, hidden_fields, rotate_args, rotator, subset_representatives
from ..explicit.reductions import representatives, symmetry_blockers

KINDS = ("legality", "outcome", "forced", "reveal", "odds")
"""Kinds of difference, most important first."""

CACHE_PAIRS = 50_000
"""Pairs whose comparison random play remembers (the deal and the first rounds recur)."""

Actor = int | str
Choice = tuple[Actor, Move]



@dataclass(frozen=True, slots=True)
class Parting:
    """Where the two rule sets part ways, in words, with the rule IDs involved."""

    kind: str
    choice: Choice | None
    legal_under: str | None         # "a" or "b": the rule set that allows the move (legality)
    rule_ids: tuple[str, ...]
    says: str                       # the move or event in words
    under_a: str                    # what rule set A says about it
    under_b: str                    # what rule set B says about it


@dataclass(slots=True)
class Difference:
    """A game that tells the rule sets apart: the common moves, then where they part."""

    players: int
    parting: Parting
    trace_a: Trace                  # the common game under A (with the parting move if A allows it)
    trace_b: Trace
    decisions: int                  # decisions before the parting (the BFS depth)
    shortest: bool                  # found by the complete breadth-first search of shorter games
    searched: int                   # every pair reached in fewer decisions was compared
    state_change: str = ""          # where the shared fields first differ, if before the parting
    common: int = 0                 # steps of the traces before the parting move

    def common_trace(self) -> Trace:
        """The moves both rule sets allow, up to where they part (under the rule set that
        allows the parting move)."""
        trace = self.legal_trace
        return Trace(trace.game, trace.start, list(trace.steps[:self.common]))

    @property
    def legal_trace(self) -> Trace:
        """The game under the rule set that allows every move of it."""
        return self.trace_b if self.parting.legal_under == "b" else self.trace_a



class Side:
    """One rule set compiled for the search: candidate moves, legality, forced chains."""

    def __init__(self, game: Game, label: str, counted: dict[str, set[int]]) -> None:
        self.game = game
        self.label = label
        self.phase_index = game.phase_index
        self.rules_by_name = game.by_name
        self.counted = counted
        self.of = {}
        for compiled in game.rules:
            for position in counted.get(compiled.rule.name, ()):
                node = compiled.rule.params[position].domain.of
                assert node is not None
                self.of[(compiled.rule.name, position)] = compile_expression(game.spec, game.players, node)

    def kind(self, state: Any) -> str:
        """over | game | chance | choice."""
        actor = self.game.actor(state)
        if actor is None:
            return "over"
        if actor in ("game", "chance"):
            return str(actor)
        return "choice"

    def domain_values(self, compiled: CompiledRule, position: int, state: Any, other: "Side", other_state: Any
                      ) -> list[int]:
        key = (compiled.rule.name, position)
        if key in self.of:
            mine = self.of[key](state)
            theirs = other.of[key](other_state) if key in other.of else None
            return subset_representatives(mine, theirs)
        return list(compiled.domains[position](state))

    def candidates(self, state: Any, other: "Side", other_state: Any) -> Iterator[tuple[CompiledRule, tuple[int, ...]]]:
        """Every (rule, parameters) of the phase worth trying."""
        for compiled in self.game.by_phase[state[self.phase_index]]:
            if not compiled.domains:
                yield compiled, ()
                continue
            pools = [self.domain_values(compiled, position, state, other, other_state)
                     for position in range(len(compiled.domains))]
            for args in product(*pools):
                yield compiled, args

    def actor_of(self, compiled: CompiledRule, state: Any) -> Actor:
        return compiled.actor(state) if compiled.actor is not None else compiled.rule.actor

    def legal(self, state: Any, choice: Choice) -> bool:
        """Whether the move, by that actor, is legal now (parameters in their domains too)."""
        actor, move = choice
        compiled = self.rules_by_name.get(move.rule)
        if compiled is None or compiled.rule.phase != self.game.phase_names[state[self.phase_index]]:
            return False
        if self.actor_of(compiled, state) != actor or len(move.args) != len(compiled.domains):
            return False
        for value, domain in zip(move.args, compiled.domains):
            if value not in domain(state):
                return False
        if not compiled.guard(state, *move.args):
            return False
        return compiled.weight is None or compiled.weight(state, *move.args) > 0

    def refusal(self, state: Any, choice: Choice) -> tuple[str, str]:
        """The rule ID and reason this rule set gives for refusing the move."""
        actor, move = choice
        try:
            self.game.check(state, move, by=actor if isinstance(actor, int) else None)
        except IllegalMove as error:
            return error.rule_id, error.reason
        compiled = self.rules_by_name.get(move.rule)
        if compiled is not None and self.actor_of(compiled, state) != actor:
            return compiled.rule.actor_rule, f"it is not {actor}'s move"
        return "", "the move is not offered"

    def forced(self, state: Any) -> tuple[list[tuple[Move, Any]], Any, str]:
        """The forced chain from `state` to the next decision: (moves with states after,
        final state, '' or why the chain got stuck)."""
        chain: list[tuple[Move, Any]] = []
        game = self.game
        while game.actor(state) == "game":
            if len(chain) >= MAX_FORCED:
                return chain, state, f"the game's own moves never end at phase '{game.phase(state)}'"
            try:
                move = game.forced_move(state)
            except AssertionError:
                return chain, state, f"no rule of the game applies at phase '{game.phase(state)}'"
            assert move is not None
            state = self.rules_by_name[move.rule].effect(state)
            chain.append((move, state))
        return chain, state, ""

    def visible(self, chain: list[tuple[Move, Any]]) -> list[str]:
        """The names of the chain's moves that are not quiet bookkeeping."""
        return [move.rule for move, _ in chain if not self.rules_by_name[move.rule].rule.quiet]



class ProductSearch:
    """The breadth-first search over pairs of states for one player count."""

    def __init__(self, a: Game, b: Game, reductions: bool = True, odds: bool = True) -> None:
        self.players = a.players
        self.with_odds = odds
        counted: dict[str, set[int]] = {}
        self.blind: dict[str, tuple[int, ...]] = {}   # parameters no effect or weight reads
        rules_b = {rule.name: rule for rule in b.spec.rules}
        for rule in a.spec.rules:
            if rule.name in rules_b and reductions:
                reps_a, reps_b = representatives(rule), representatives(rules_b[rule.name])
                both = set(reps_a) & set(reps_b)
                if both:
                    counted[rule.name] = both
                    blind = tuple(sorted(p for p in both if reps_a[p].one and reps_b[p].one))
                    if blind:
                        self.blind[rule.name] = blind
        self.a = Side(a, a.spec.name, counted)
        self.b = Side(b, b.spec.name, counted)
        self.hidden = hidden_fields(a.spec, b.spec) if reductions else frozenset()
        blockers = symmetry_blockers(a.spec) + symmetry_blockers(b.spec) if reductions else ["reductions off"]
        pivot = next((f.name for f in a.spec.fields if f.type.kind == "seat" and not f.type.optional), None)
        names_b = [f.name for f in b.spec.fields]
        self.symmetric = not blockers and pivot is not None and pivot in names_b
        self.pivot_a = a.field_names.index(pivot) if self.symmetric and pivot else -1
        self.pivot_b = b.field_names.index(pivot) if self.symmetric and pivot else -1
        self.rotate_a = rotator(a)
        self.rotate_b = rotator(b)
        kept_a = frozenset(a.field_names) - self.hidden
        kept_b = frozenset(b.field_names) - self.hidden
        self.codec_a = Codec(a, kept_a)
        self.codec_b = Codec(b, kept_b)
        self.bits_b = self.codec_b.bits + 1
        self.mask_a = dead_masker(a) if reductions else None
        self.mask_b = dead_masker(b) if reductions else None
        parts = []
        if self.symmetric:
            parts.append("rotation symmetry")
        if counted:
            parts.append("vote representatives")
        if self.hidden:
            parts.append("hidden fields (" + ", ".join(sorted(self.hidden)) + ")")
        if self.mask_a or self.mask_b:
            parts.append("dead fields per phase")
        parts.append("forced moves fused")
        self.reductions = ", ".join(parts) if reductions else "forced moves fused only"
        # search state
        self.index: dict[Any, int] = {}
        self.parent: list[int] = []
        self.choice: list[Choice | None] = []
        self.frontier: list[tuple[int, Any, Any]] = []
        self.depth = 0
        self.started = False
        self.exhausted = False
        self.compared: dict[tuple[Any, Any], Any] = {}   # random play: the pairs near the start recur

    # -------------------------------------------------------------- keys

    def canonical(self, state_a: Any, state_b: Any) -> tuple[Any, Any]:
        """Both states rotated by the same amount (A's pivot seat to 0), when sound."""
        if self.pivot_a >= 0:
            r = state_a[self.pivot_a]
            if r and state_b[self.pivot_b] == r:
                return self.rotate_a(state_a, r), self.rotate_b(state_b, r)
        return state_a, state_b

    def key(self, state_a: Any, state_b: Any) -> int:
        """The pair's key: both packed (hidden fields left out, fields dead at their phase
        reset); the low bit says whether the pair is in the canonical frame (a pair whose
        pivots disagree is kept as is)."""
        rotated = self.pivot_a >= 0 and state_a[self.pivot_a] == 0 and state_b[self.pivot_b] == 0
        if self.mask_a is not None:
            state_a = self.mask_a(state_a)
        if self.mask_b is not None:
            state_b = self.mask_b(state_b)
        return ((self.codec_a.encode(state_a) << self.bits_b) | (self.codec_b.encode(state_b) << 1)) | int(rotated)

    def rotation(self, state_a: Any, state_b: Any) -> int:
        """How far the actual pair is rotated from its stored canonical frame."""
        if self.pivot_a >= 0 and state_b[self.pivot_b] == state_a[self.pivot_a]:
            return int(state_a[self.pivot_a])
        return 0

    # -------------------------------------------------------------- comparing one pair

    def compare(self, state_a: Any, state_b: Any) -> tuple[Parting | None, Parting | None, list[tuple[Choice, Any, Any]]]:
        """(the most important difference at this pair, an odds difference, the common
        moves with the pair after each and its forced chain)."""
        side_a, side_b = self.a, self.b
        kind_a, kind_b = side_a.kind(state_a), side_b.kind(state_b)
        if kind_a == "over" or kind_b == "over":
            return self.outcome(state_a, state_b), None, []
        legal_a = self.legal_choices(side_a, state_a, side_b, state_b)
        legal_b = self.legal_choices(side_b, state_b, side_a, state_a)
        set_a, set_b = set(legal_a), set(legal_b)
        only_a = [c for c in legal_a if c not in set_b and not side_b.legal(state_b, c)]
        only_b = [c for c in legal_b if c not in set_a and not side_a.legal(state_a, c)]
        if only_a or only_b:
            return self.legality(state_a, state_b, only_a, only_b), None, []
        common = legal_a + [c for c in legal_b if c not in set_a]
        odds = None
        if self.with_odds and any(actor == "chance" for actor, _ in common):
            odds = self.odds(state_a, state_b)
        steps = []
        done: set[Choice] = set()
        blind = self.blind
        for choice in common:
            actor, move = choice
            if move.rule in blind:
                # The effect does not read these parameters: one successor stands for all.
                args = list(move.args)
                for position in blind[move.rule]:
                    args[position] = -1
                same = (actor, Move(move.rule, tuple(args)))
                if same in done:
                    continue
                done.add(same)
            compiled_a = side_a.rules_by_name[move.rule]
            compiled_b = side_b.rules_by_name[move.rule]
            if compiled_a.reveals or compiled_b.reveals:
                seen_a, seen_b = side_a.game.reveals(state_a, move), side_b.game.reveals(state_b, move)
                if seen_a != seen_b:
                    return self.reveal(state_a, choice, seen_a, seen_b), None, []
            after_a = compiled_a.effect(state_a, *move.args)
            after_b = compiled_b.effect(state_b, *move.args)
            chain_a, final_a, stuck_a = side_a.forced(after_a)
            chain_b, final_b, stuck_b = side_b.forced(after_b)
            visible_a, visible_b = side_a.visible(chain_a), side_b.visible(chain_b)
            if visible_a != visible_b or bool(stuck_a) != bool(stuck_b):
                return self.forced_difference(state_a, choice, visible_a, visible_b, stuck_a, stuck_b), None, []
            steps.append((choice, final_a, final_b))
        return None, odds, steps

    def legal_choices(self, side: Side, state: Any, other: Side, other_state: Any) -> list[Choice]:
        out: list[Choice] = []
        seen: set[Choice] = set()
        for compiled, args in side.candidates(state, other, other_state):
            if compiled.guard(state, *args) and (compiled.weight is None or compiled.weight(state, *args) > 0):
                choice = (side.actor_of(compiled, state), Move(compiled.rule.name, args))
                if choice not in seen:
                    seen.add(choice)
                    out.append(choice)
        return out

    def outcome(self, state_a: Any, state_b: Any) -> Parting | None:
        game_a, game_b = self.a.game, self.b.game
        over_a, over_b = game_a.is_over(state_a), game_b.is_over(state_b)
        result_a = (game_a.winner(state_a), game_a.how(state_a)) if over_a else None
        result_b = (game_b.winner(state_b), game_b.how(state_b)) if over_b else None
        if result_a == result_b:
            return None

        def words(result: tuple[str | None, str | None] | None, side: Side, state: Any) -> str:
            if result is None:
                return f"the game goes on ({side.game.phase(state)})"
            return f"the game is over: the {result[0]}s win by {result[1]}"
        rule_ids = ("R-W5",)
        return Parting("outcome", None, None, rule_ids, "the end of the game",
                       words(result_a, self.a, state_a), words(result_b, self.b, state_b))

    def legality(self, state_a: Any, state_b: Any, only_a: list[Choice], only_b: list[Choice]) -> Parting:
        if only_a:
            choice, here, there, here_state, there_state, label = only_a[0], self.a, self.b, state_a, state_b, "a"
        else:
            choice, here, there, here_state, there_state, label = only_b[0], self.b, self.a, state_b, state_a, "b"
        rule_id, reason = there.refusal(there_state, choice)
        compiled = here.rules_by_name[choice[1].rule]
        says = _who(choice[0]) + here.game.says(here_state, choice[1])
        allowed = f"legal [{', '.join(compiled.rule.rule_ids) or compiled.rule.actor_rule}]"
        refused = f"illegal — {rule_id}: {reason}" if rule_id else f"illegal — {reason}"
        ids = tuple(dict.fromkeys([rule_id] + list(compiled.rule.rule_ids) if rule_id else compiled.rule.rule_ids))
        under_a, under_b = (allowed, refused) if label == "a" else (refused, allowed)
        return Parting("legality", choice, label, ids, says, under_a, under_b)

    def reveal(self, state_a: Any, choice: Choice, seen_a: dict[str, Any], seen_b: dict[str, Any]) -> Parting:
        compiled = self.a.rules_by_name[choice[1].rule]
        says = _who(choice[0]) + self.a.game.says(state_a, choice[1])

        def words(seen: dict[str, Any]) -> str:
            return "shows " + (", ".join(f"{k} {v}" for k, v in sorted(seen.items())) or "nothing")
        return Parting("reveal", choice, None, compiled.rule.rule_ids, says, words(seen_a), words(seen_b))

    def forced_difference(self, state_a: Any, choice: Choice, visible_a: list[str], visible_b: list[str],
                          stuck_a: str, stuck_b: str) -> Parting:
        says = _who(choice[0]) + self.a.game.says(state_a, choice[1])
        ids: list[str] = []
        for side, names in ((self.a, visible_a), (self.b, visible_b)):
            for name in names:
                ids += list(side.rules_by_name[name].rule.rule_ids)

        def words(names: list[str], stuck: str, side: Side) -> str:
            text = "then " + (", ".join(f"{name} [{', '.join(side.rules_by_name[name].rule.rule_ids)}]"
                                        for name in names) or "nothing is forced")
            return text + (f"; then stuck: {stuck}" if stuck else "")
        return Parting("forced", choice, None, tuple(dict.fromkeys(ids)), says,
                       words(visible_a, stuck_a, self.a), words(visible_b, stuck_b, self.b))

    def odds(self, state_a: Any, state_b: Any) -> Parting | None:
        odds_a = dict(self.a.game.chance_outcomes(state_a))
        odds_b = dict(self.b.game.chance_outcomes(state_b))
        if odds_a == odds_b:
            return None
        for move in sorted(set(odds_a) | set(odds_b)):
            if odds_a.get(move, Fraction(0)) != odds_b.get(move, Fraction(0)):
                compiled = self.a.rules_by_name[move.rule]
                return Parting("odds", ("chance", move), None, compiled.rule.rule_ids,
                               "chance: " + self.a.game.says(state_a, move),
                               f"probability {odds_a.get(move, 0)}", f"probability {odds_b.get(move, 0)}")
        return None

    # -------------------------------------------------------------- breadth-first

    def start(self) -> Parting | None:
        """Store the initial pair (after any forced moves)."""
        self.started = True
        initial_a, initial_b = self.a.game.initial_state(), self.b.game.initial_state()
        chain_a, final_a, stuck_a = self.a.forced(initial_a)
        chain_b, final_b, stuck_b = self.b.forced(initial_b)
        final_a, final_b = self.canonical(final_a, final_b)
        self.index[self.key(final_a, final_b)] = 0
        self.parent.append(-1)
        self.choice.append(None)
        self.frontier = [(0, final_a, final_b)]
        return None

    def level(self, max_pairs: int, budget: Clock) -> tuple[tuple[int, Parting] | None, tuple[int, Parting] | None, bool]:
        """Expand one level: (a difference: node id and parting; an odds difference; whether
        the budget, seconds of work with a wall backstop (verify/clock.py), ran out before
        the level was done)."""
        if not self.started:
            self.start()
        following: list[tuple[int, Any, Any]] = []
        odds_found: tuple[int, Parting] | None = None
        for count, (node, state_a, state_b) in enumerate(self.frontier):
            if count % 256 == 0 and (len(self.parent) > max_pairs or budget.spent()):
                return None, odds_found, True
            parting, odds, steps = self.compare(state_a, state_b)
            if parting is not None:
                return (node, parting), odds_found, False
            if odds is not None and odds_found is None:
                odds_found = (node, odds)
            for choice, final_a, final_b in steps:
                final_a, final_b = self.canonical(final_a, final_b)
                try:
                    key: Any = self.key(final_a, final_b)
                except OutOfRange:
                    key = (final_a, final_b)  # a value the spec's ranges do not allow: kept unpacked
                if key in self.index:
                    continue
                self.index[key] = len(self.parent)
                self.parent.append(node)
                self.choice.append(choice)
                following.append((len(self.parent) - 1, final_a, final_b))
        self.frontier = following
        self.depth += 1
        if not following:
            self.exhausted = True
        return None, odds_found, False

    def path(self, node: int) -> list[Choice]:
        """The choices (in the stored frames) from the initial pair to `node`."""
        out: list[Choice] = []
        while node > 0:
            choice = self.choice[node]
            assert choice is not None
            out.append(choice)
            node = self.parent[node]
        out.reverse()
        return out

    # -------------------------------------------------------------- rebuilding the game

    def replay(self, choices: list[Choice], parting: Parting, decisions: int, shortest: bool, searched: int,
               canonical_frames: bool = True) -> Difference:
        """Both games rebuilt move by move through the engines (every move re-checked)."""
        game_a, game_b = self.a.game, self.b.game
        state_a, state_b = game_a.initial_state(), game_b.initial_state()
        trace_a, trace_b = Trace(game_a, state_a), Trace(game_b, state_b)
        state_a, state_b = self._forced_into(trace_a, state_a), self._forced_into(trace_b, state_b)
        by = 0
        for actor, move in choices:
            if canonical_frames:
                by = self.rotation(state_a, state_b)
            actor, move = self._rotated(actor, move, by)
            state_a = game_a.apply(state_a, move, by=actor if isinstance(actor, int) else None)
            state_b = game_b.apply(state_b, move, by=actor if isinstance(actor, int) else None)
            trace_a.append(move, state_a)
            trace_b.append(move, state_b)
            state_a, state_b = self._forced_into(trace_a, state_a), self._forced_into(trace_b, state_b)
        if canonical_frames:
            by = self.rotation(state_a, state_b)
        choice = parting.choice
        if choice is not None and by:
            choice = self._rotated(choice[0], choice[1], by)
            says = _who(choice[0]) + (self.b if parting.legal_under == "b" else self.a).game.says(
                state_b if parting.legal_under == "b" else state_a, choice[1])
            parting = Parting(parting.kind, choice, parting.legal_under, parting.rule_ids, says,
                              *self._rewords(parting, state_a, state_b, choice))
        common = len(trace_b.steps) if parting.legal_under == "b" else len(trace_a.steps)
        if choice is not None and parting.kind != "odds":
            for game, trace, state, label in ((game_a, trace_a, state_a, "a"), (game_b, trace_b, state_b, "b")):
                if parting.kind == "legality" and parting.legal_under != label:
                    continue
                after = game.apply(state, choice[1], by=choice[0] if isinstance(choice[0], int) else None)
                trace.append(choice[1], after)
                chain, _, _ = (self.a if label == "a" else self.b).forced(after)
                for forced, forced_state in chain:
                    trace.append(forced, forced_state)
        change = first_state_change(trace_a, trace_b, len(choices))
        return Difference(self.players, parting, trace_a, trace_b, decisions, shortest, searched, change, common)

    def _rewords(self, parting: Parting, state_a: Any, state_b: Any, choice: Choice) -> tuple[str, str]:
        """The per-rule-set words of a parting, recomputed for the actual (rotated) move."""
        if parting.kind != "legality":
            return parting.under_a, parting.under_b
        there, there_state = (self.b, state_b) if parting.legal_under == "a" else (self.a, state_a)
        rule_id, reason = there.refusal(there_state, choice)
        refused = f"illegal — {rule_id}: {reason}" if rule_id else f"illegal — {reason}"
        return (parting.under_a, refused) if parting.legal_under == "a" else (refused, parting.under_b)

    def _rotated(self, actor: Actor, move: Move, by: int) -> Choice:
        if not by:
            return actor, move
        compiled = self.a.rules_by_name.get(move.rule) or self.b.rules_by_name[move.rule]
        players = self.players
        rotated_actor = (actor + by) % players if isinstance(actor, int) else actor
        return rotated_actor, Move(move.rule, rotate_args(compiled, move.args, by, players))

    def _forced_into(self, trace: Trace, state: Any) -> Any:
        side = self.a if trace.game is self.a.game else self.b
        chain, final, _ = side.forced(state)
        for move, after in chain:
            trace.append(move, after)
        return final

    # -------------------------------------------------------------- random play in lockstep

    def random_game(self, rng: Random, max_decisions: int = 400) -> tuple[list[Choice], Parting] | None:
        """One random game through both engines; the choices up to where they part, if they do."""
        state_a, state_b = self.a.forced(self.a.game.initial_state())[1], self.b.forced(self.b.game.initial_state())[1]
        choices: list[Choice] = []
        cache = self.compared
        for _ in range(max_decisions):
            pair = (state_a, state_b)
            known = cache.get(pair)
            if known is None:
                known = self.compare(state_a, state_b)
                if len(cache) < CACHE_PAIRS:
                    cache[pair] = known
            parting, odds, steps = known
            if parting is not None:
                return choices, parting
            if odds is not None:
                return choices, odds
            if not steps:
                return None
            if self.a.kind(state_a) == "chance":
                move = self.a.game.sample_chance(state_a, rng)
                step = next(s for s in steps if s[0][1] == move)
            else:
                step = steps[rng.randrange(len(steps))]
            choice, state_a, state_b = step
            choices.append(choice)
        return None


def _who(actor: Actor) -> str:
    return "chance: " if actor == "chance" else ""


def first_state_change(trace_a: Trace, trace_b: Trace, decisions: int) -> str:
    """Where the fields both rule sets share first differ, in words ('' if they never do)."""
    shared = [name for name in trace_a.game.field_names if name in trace_b.game.field_names]
    index_a = [trace_a.game.field_names.index(name) for name in shared]
    index_b = [trace_b.game.field_names.index(name) for name in shared]
    game_a, game_b = trace_a.game, trace_b.game

    def differing(after_a: Any, after_b: Any) -> list[str]:
        parts = []
        for name, i, j in zip(shared, index_a, index_b):
            if after_a[i] != after_b[j]:
                field_a, field_b = game_a.spec.fields[i], game_b.spec.fields[j]
                value_a = game_a.decode(field_a.type.kind, field_a.type.enum, after_a[i])
                value_b = game_b.decode(field_b.type.kind, field_b.type.enum, after_b[j])
                parts.append(f"{name} {_plain(value_a)} / {_plain(value_b)}")
        return parts
    parts = differing(trace_a.start, trace_b.start)
    if parts:
        return "from the start: " + ", ".join(parts)
    count = min(len(trace_a.steps), len(trace_b.steps))
    for step in range(count):
        (move_a, after_a), (move_b, after_b) = trace_a.steps[step], trace_b.steps[step]
        if move_a != move_b:
            return ""
        parts = differing(after_a, after_b)
        if parts:
            return f"after move {step + 1} ({move_a.rule}): " + ", ".join(parts)
    return ""


def _plain(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, list):
        return "{" + " ".join(str(v) for v in value) + "}"
    return str(value)
