"""The Z3 translation of expressions means what the engine's Python compilation means.

Every expression the spec, the catalogue and spec/invariants.toml contain, and a table of
expressions exercising each node kind and builtin at its edges, is evaluated on random
*well-typed* states (each field anywhere in its declared range, reachable or not) by
both compilations: engine/pycompile.py and verify/smt/translate.py (translated with
constant states and simplified). The values must be equal. Well-typed is the contract
of the Z3 side (its bit-widths and tables are sized for it) and is proved by induction
(tests/test_smt_proofs.py).
"""

from __future__ import annotations

from random import Random
from typing import Any

import pytest

from engine.game import Game
from engine.play import random_game
from engine.pycompile import compile_expression
from spec.errors import Location
from spec.invariants import load_invariants
from spec.lang.check import parse
from spec.loader import load_spec
from spec.properties import load_properties, move_scope, state_scope
from verify.smt.system import System

SPEC = load_spec("standard")
STRENGTHENING = load_invariants(SPEC)
EXTENDED = STRENGTHENING.spec

EDGE_EXPRESSIONS = [
    # tile sequences: every code, every cut
    "size(known_top)", "liberals(known_top)", "fascists(known_top)", "first(known_top)",
    "take(known_top, election_tracker)", "drop(known_top, election_tracker)",
    "take(known_top, election_tracker - 2)", "drop(known_top, president_hand - 1)",
    "take(known_top, size(known_top))", "drop(known_top, 5)",
    # bounded tables
    "choose(draw_fascist, election_tracker)", "choose(draw_liberal, president_hand - 1)",
    "perm(draw_liberal, president_hand)", "perm(draw_fascist, election_tracker - 1)",
    "choose(draw_fascist, election_tracker) * perm(draw_liberal, 2) > 0",
    "0 < choose(draw_fascist, election_tracker - 2) * 3",
    "(election_tracker - 2) * (president_hand - 1) > 0",
    "choose(draw_fascist, 3) * choose(draw_liberal, 0) + perm(6, election_tracker)",
    "next_in(alive, president)", "next_in(investigated, president)", "next_in(alive, special_return)",
    "board[fascist_policies - 1]", "board[fascist_policies]", "board[liberal_policies - 3]",
    # arithmetic with Python's floor semantics
    "(draw_fascist - 7) // 2", "(draw_fascist - 7) % 3", "(draw_liberal - 3) // -2", "(draw_liberal - 3) % -4",
    "-draw_liberal + abs(liberal_policies - fascist_policies)", "min(draw_liberal, draw_fascist, 3)",
    "max(draw_liberal - 9, election_tracker, -2)", "2 * count(alive) > alive_count",
    # seat sets and membership
    "count(alive - {president})", "count(alive & investigated)", "count(alive | fascists)",
    "investigated <= alive", "investigated < alive", "president in alive", "nominee not in alive",
    "last_chancellor in investigated", "hitler not in fascists", "{president, hitler} <= alive",
    "phase in ['vote', 'nominate']", "power not in ['none', 'peek']", "enacted == none",
    "'execution' in board", "nominee == last_president if vetoed else nominee != none",
]


def typed_state(game: Game, system: System, rng: Random) -> Any:
    """A state with every field anywhere in its declared range."""
    values: list[int | bool] = []
    for spec_field in game.spec.fields:
        kind = spec_field.type.kind
        if kind == "bool":
            values.append(rng.random() < 0.5)
        elif kind == "seats":
            values.append(rng.randrange(1 << game.players))
        else:
            low, high = system.ranges.fields[spec_field.name]
            values.append(rng.randint(low, high))
    return game.make_state(values)


def states_for(players: int, count: int, seed: int) -> tuple[System, list[Any]]:
    system = System(EXTENDED, players)
    game = system.game
    rng = Random(seed)
    states = list(dict.fromkeys(random_game(game, rng=rng).states))[: count // 2]
    states += [typed_state(game, system, rng) for _ in range(count - len(states))]
    return system, states


def expressions() -> list[tuple[str, Any]]:
    scope = state_scope(EXTENDED)
    out = [(text, parse(text, scope, Location("test"))) for text in EDGE_EXPRESSIONS]
    out += [(f"definition {name}", node) for name, node in EXTENDED.definitions.items()]
    out += [(f"invariant {inv.name}", inv.state) for inv in STRENGTHENING.invariants]
    out += [(f"property {p.name}", p.state) for p in load_properties(SPEC) if p.state is not None and not p.rules]
    for measure in (STRENGTHENING.ranking, STRENGTHENING.distance):
        if measure is not None:
            out.append((f"measure {measure.text}", measure.measure))
    return out


@pytest.mark.parametrize("players", [5, 10])
def test_every_expression_means_the_same_on_typed_states(players: int) -> None:
    system, states = states_for(players, 24, seed=players)
    checked = 0
    for text, node in expressions():
        python = compile_expression(EXTENDED, players, node)
        for state in states:
            try:
                expected = python(state)
            except ValueError:      # Python refuses a shift by a negative seat: no meaning to agree on
                continue
            got = system.evaluate(node, state)
            assert got == expected, (f"{text} on {system.game.describe(state)}: "
                                     f"engine {expected!r}, solver {got!r}")
            checked += 1
    assert checked > 2000


@pytest.mark.parametrize("players", [7])
def test_move_expressions_read_both_states_and_the_parameters(players: int) -> None:
    """`after_FIELD` and the parameters of a move property, on real steps."""
    system, states = states_for(players, 40, seed=players)
    game = system.game
    catalogue = [p for p in load_properties(SPEC) if p.move is not None and not p.rules]
    catalogue_checked = 0
    for state in states[:20]:
        for move in game.legal_moves(state)[:8]:
            after = game.apply(state, move)
            compiled = game.by_name[move.rule]
            params = dict(zip((p.name for p in compiled.rule.params), move.args))
            for prop in catalogue:
                if move.rule not in prop.on:
                    continue
                assert prop.move is not None    # the catalogue above keeps move properties only
                scope = move_scope(SPEC, prop.on, Location("test"))
                names = [name for name, (kind, _) in scope.names.items() if kind == "param"]
                python = compile_expression(SPEC, players, prop.move, names, after=True)
                expected = python(state, after, *[params[n] for n in names])
                ranges = system.ranges.rule_names(compiled.rule)
                got = system.evaluate(prop.move, state, after, {n: params[n] for n in names}, ranges)
                assert got == expected, f"{prop.name} on {move}: engine {expected}, solver {got}"
                catalogue_checked += 1
    assert catalogue_checked > 0
