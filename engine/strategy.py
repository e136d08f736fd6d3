"""A strategy profile (spec/strategies.py) compiled for one game: the odds of every choice.

`Policy.choices(state)` gives the moves of a seat or of the table at a choice state with
their probabilities under the profile, as exact fractions: each legal move of the actor
weighs what its rule's weight says (1 if the profile does not list the rule), read from
what the actor sees (engine/observe.py: its `[view]` items, the public fields and counts).

The table's vote (R-E6, R-E7) is every living seat voting on its own: voter v says Ja
with probability ja(v) / (ja(v) + nein(v)), independently, so a set of Ja voters has the
product of its voters' odds. Under `uniform` (both weights 1) that is every legal vote
alike, as random play draws it. Where the vote rule reads its Ja set only through its size
(verify/explicit/reductions.py (b) argues why the successor is then the same), the sets
are summed by size, one polynomial product over the voters instead of 2**n sets.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache
from typing import Any

from spec.errors import SpecError
from spec.lang.nodes import Call, Compare, Name, Node, walk
from spec.strategies import Strategy, Weight, profile_names

from .game import Game, Move, State
from .observe import observer
from .pycompile import compile_expression

Choice = tuple[Move, Fraction]

EVEN = Fraction(1, 2)
"""A voter's odds of Ja when the profile gives no vote weights (Ja and Nein alike)."""


class Policy:
    """The choices of one game under one profile, with their exact probabilities."""

    def __init__(self, game: Game, strategy: Strategy) -> None:
        self.game = game
        self.strategy = strategy
        self.observer = observer(game)
        spec, players = strategy.spec, game.players
        self.parameters = tuple(strategy.parameters.values())
        names = profile_names(game.spec)

        def compiled(weight: Weight, params: list[str]) -> Callable[..., Any]:
            return compile_expression(spec, players, weight.node, [*params, *names, *strategy.parameters])

        self.weights: dict[str, Callable[..., Any]] = {
            rule: compiled(weight, [param.name for param in game.by_name[rule].rule.params])
            for rule, weight in strategy.moves.items() if rule in game.by_name}
        self.ja = None if strategy.ja is None else compiled(strategy.ja, [])
        self.nein = None if strategy.nein is None else compiled(strategy.nein, [])
        self.unshown = tuple(_nothing(item.what.type.kind) for item in game.spec.view)
        self.voters: dict[str, Callable[..., int]] = {}
        self.by_size: dict[str, bool] = {}
        for compiled_rule in game.rules:
            rule = compiled_rule.rule
            if rule.actor != "table":
                continue
            if len(rule.params) != 1 or rule.params[0].domain.kind != "subset" or rule.params[0].domain.of is None:
                raise SpecError(f"rule '{rule.name}': a strategy weighs a vote whose one parameter is a subset of "
                                f"the voters (subset(alive)); this one has {len(rule.params)} parameters")
            self.voters[rule.name] = compile_expression(game.spec, players, rule.params[0].domain.of)
            self.by_size[rule.name] = _counted_only(rule.params[0].name, rule)

    def _seen(self, state: State, seat: int) -> tuple[Any, ...]:
        """What `seat` reads besides the public fields: itself, its view items (and whether
        it is shown each), the public counts, the profile's parameters."""
        values, known = [], []
        for (item, to, what), nothing in zip(self.observer.view_items, self.unshown):
            shown = bool(to(state) >> seat & 1)
            values.append(what(state, seat) if shown else nothing)
            known.append(shown)
        counts = tuple(count(state) for count in self.observer.counts)
        return (seat, *values, *known, *counts, *self.parameters)

    def choices(self, state: State) -> list[Choice]:
        """The moves at a choice state (a seat's or the table's) with their probabilities,
        which sum to 1; a `SpecError` if the profile weighs every legal move 0."""
        game = self.game
        rules = game.by_phase[state[game.phase_index]]
        if rules and rules[0].rule.actor == "table":
            return self._vote(state)
        weighted: list[tuple[Move, int]] = []
        seen: tuple[Any, ...] | None = None
        for move in game.legal_moves(state):
            compiled = game.by_name[move.rule]
            if compiled.rule.actor == "chance":
                continue
            function = self.weights.get(move.rule)
            if function is None:
                weighted.append((move, 1))
                continue
            if seen is None:
                assert compiled.actor is not None
                seen = self._seen(state, compiled.actor(state))
            weight = int(function(state, *move.args, *seen))
            if weight < 0:
                raise SpecError(f"strategy '{self.strategy.name}': the weight of {move.rule} is {weight}, below 0",
                                self.strategy.moves[move.rule].where)
            weighted.append((move, weight))
        total = sum(weight for _, weight in weighted)
        if total <= 0:
            raise SpecError(f"strategy '{self.strategy.name}' weighs every legal move 0 in phase {game.phase(state)}")
        return [(move, Fraction(weight, total)) for move, weight in weighted if weight]

    def ja_odds(self, state: State, voter: int) -> Fraction:
        """The probability that `voter` says Ja to the government on the table."""
        if self.ja is None and self.nein is None:
            return EVEN
        seen = self._seen(state, voter)
        ja = 1 if self.ja is None else int(self.ja(state, *seen))
        nein = 1 if self.nein is None else int(self.nein(state, *seen))
        if ja < 0 or nein < 0 or ja + nein == 0:
            raise SpecError(f"strategy '{self.strategy.name}': a voter's weights are ja {ja}, nein {nein}; each must "
                            f"be >= 0 and not both 0")
        return Fraction(ja, ja + nein)

    def _vote(self, state: State) -> list[Choice]:
        game = self.game
        out: list[Choice] = []
        asked: dict[int, tuple[list[int], tuple[Fraction, ...]]] = {}    # voters' odds, asked once per state
        for compiled in game.by_phase[state[game.phase_index]]:
            rule = compiled.rule.name
            mask = self.voters[rule](state)
            if mask not in asked:
                voters = [seat for seat in range(game.players) if mask >> seat & 1]
                asked[mask] = voters, tuple(self.ja_odds(state, voter) for voter in voters)
            voters, odds = asked[mask]
            if self.by_size[rule]:
                sizes = _sizes(odds)
                for size, probability in enumerate(sizes):
                    ja = sum(1 << seat for seat in voters[:size])
                    if probability and compiled.guard(state, ja):
                        out.append((Move(rule, (ja,)), probability))
                continue
            for subset in range(1 << len(voters)):
                ja = sum(1 << seat for index, seat in enumerate(voters) if subset >> index & 1)
                if not compiled.guard(state, ja):
                    continue
                probability = Fraction(1)
                for index, chance in enumerate(odds):
                    probability *= chance if subset >> index & 1 else 1 - chance
                if probability:
                    out.append((Move(rule, (ja,)), probability))
        return out


@lru_cache(maxsize=4096)
def _sizes(odds: tuple[Fraction, ...]) -> list[Fraction]:
    """The probability of each number of Ja votes, voters independent (a product of
    polynomials (1 - p) + p x); kept, as a profile's voters give few distinct odds."""
    sizes = [Fraction(1)]
    for chance in odds:
        grown = [Fraction(0)] * (len(sizes) + 1)
        for count, probability in enumerate(sizes):
            grown[count] += probability * (1 - chance)
            grown[count + 1] += probability * chance
        sizes = grown
    return sizes


def _counted_only(name: str, rule: Any) -> bool:
    """Whether a vote rule reads its Ja set `name` only through `count(name)` or in the
    domain test `name <= S`, in every requirement, let, weight and effect: then every set
    of one size gives the same legality and successor (reductions.py (b))."""
    nodes: list[Node] = [req.when for req in rule.requires] + [node for _, node in rule.lets]
    nodes += [node for _, node in rule.effect] + ([rule.weight] if rule.weight is not None else [])
    for root in nodes:
        allowed: set[int] = set()
        for item in walk(root):
            if isinstance(item, Call) and item.function == "count":
                allowed.update(id(arg) for arg in item.args)
            if isinstance(item, Compare) and item.op == "<=":
                allowed.add(id(item.left))
        for item in walk(root):
            if isinstance(item, Name) and item.kind == "param" and item.name == name and id(item) not in allowed:
                return False
    return True


def _nothing(kind: str) -> int:
    """The value a `[view]` item the actor is not shown reads as (spec/strategies.py)."""
    return -1 if kind == "seat" else 0
