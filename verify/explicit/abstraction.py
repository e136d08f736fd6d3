"""Our states projected onto the SPIN reference abstraction (shared/bench/spin/ABSTRACTION.md).

The SPIN model (sh.pml) stores one state per abstract state: Hitler at seat 0, no
ordinary roles, votes as their outcome, the deck as counts plus the known top, and the
phase as NOMINATE / VOTE / PRES_HAND(f) / CHANC_HAND(f, veto_refused) / VETO_ASKED(f) /
POWER(kind) / OVER(winner, how). Our engine has more phases: the deal, the first
President, the draw and chaos (chance moves SPIN folds into the vote) and the game's
bookkeeping steps (which SPIN runs inside one atomic transition). Those have no abstract
state of their own; every other state of ours projects onto exactly one abstract state,
so the number of distinct projections of our reachable states must equal SPIN's count of
abstract states — a cross-check of both models.

Fields SPIN resets but our rules keep (`veto_refused` outside the Chancellor's hand,
`vetoed`, `enacted`, `by_government`) are dropped by the projection. SPIN's execution win
leaves Hitler in `alive` (it stops before removing him); ours removes him and then sees
the win, so the projection puts Hitler back for that outcome.

This module knows the standard rules' field and phase names: it is a bridge to one
external model, not a part of the checker's semantics.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from engine.game import Game

from .codec import field_bounds
from .keys import pack

SPIN_STATES = {5: 971_147, 6: 2_089_047, 7: 33_971_081, 8: 73_626_898}
"""SPIN's abstract state counts for sh.pml (shared/bench/spin/README.md, "states (abstract)")."""

SPIN_PHASES = ("nominate", "vote", "president_discard", "chancellor_enact", "veto", "power", "over")
"""Our phases that are abstract states; the others are folded into SPIN's transitions."""

PROJECTION_FIELDS = ("alive", "investigated", "president", "nominee", "last_president", "last_chancellor",
                     "special_return", "liberal_policies", "fascist_policies", "election_tracker",
                     "draw_liberal", "draw_fascist", "known_top", "discard_liberal", "discard_fascist",
                     "president_hand", "chancellor_hand", "veto_refused", "power", "winner", "how", "hitler")
"""The fields the projection reads (kept by the cone of influence when projecting)."""

SEAT_FIELDS = ("president", "nominee", "last_president", "last_chancellor", "special_return")
"""The seat fields of an abstract state, rotated so that Hitler sits at seat 0."""

PLAIN_FIELDS = ("liberal_policies", "fascist_policies", "election_tracker", "draw_liberal", "draw_fascist",
                "known_top", "discard_liberal", "discard_fascist")
"""The fields an abstract state takes as they are."""


def projector(game: Game) -> Callable[[Any], tuple[int, ...] | None]:
    """A function from one of our states to its abstract state (a tuple), or None for a
    state of a phase the abstraction folds away."""
    phases = game.phase_names
    index = {name: game.field_names.index(name) for name in PROJECTION_FIELDS + ("phase",)}
    players = game.players
    full = (1 << players) - 1
    phase_code = {phases.index(name): number for number, name in enumerate(SPIN_PHASES)}
    hand_of = {phases.index("president_discard"): index["president_hand"],
               phases.index("chancellor_enact"): index["chancellor_hand"],
               phases.index("veto"): index["chancellor_hand"]}
    chancellor_enact = phases.index("chancellor_enact")
    power_phase = phases.index("power")
    over = phases.index("over")
    execution = game.spec.enums["how"].index("execution")
    seat_fields = [index[name] for name in SEAT_FIELDS]
    mask_fields = [index[name] for name in ("alive", "investigated")]
    plain_fields = [index[name] for name in PLAIN_FIELDS]
    hitler = index["hitler"]

    def project(state: Any) -> tuple[int, ...] | None:
        phase = state[index["phase"]]
        code = phase_code.get(phase)
        if code is None:
            return None
        shift = state[hitler]
        seats = tuple(-1 if state[i] < 0 else (state[i] - shift) % players for i in seat_fields)
        masks = tuple(((state[i] >> shift) | (state[i] << (players - shift))) & full for i in mask_fields)
        alive = masks[0]
        if phase in hand_of:
            parameter: tuple[int, ...] = (state[hand_of[phase]],
                                          int(state[index["veto_refused"]]) if phase == chancellor_enact else 0)
        elif phase == power_phase:
            parameter = (state[index["power"]], 0)
        elif phase == over:
            parameter = (state[index["winner"]], state[index["how"]])
            if state[index["how"]] == execution:
                alive |= 1  # SPIN stops before removing Hitler (seat 0)
        else:
            parameter = (0, 0)
        return (code, alive, masks[1]) + seats + tuple(state[i] for i in plain_fields) + parameter

    return project


def count_projection(exploration: Any) -> int:
    """The number of distinct abstract states among the stored states of a complete
    exploration (to compare with `SPIN_STATES`)."""
    model = exploration.model
    project = projector(model.game)
    decode = model.codec.decode
    seen = set()
    for key in exploration.keys:
        image = project(decode(key))
        if image is not None:
            seen.add(image)
    return len(seen)


def batch_projector(game: Game) -> Callable[[Any], Any]:
    """`projector` over a batch of states (a numpy column per state): the abstract states
    of the states in SPIN's phases, packed into key words (layers.pack), or None when no
    state of the batch is in one."""
    phases = game.phase_names
    index = {name: game.field_names.index(name) for name in PROJECTION_FIELDS + ("phase",)}
    players = game.players
    full = (1 << players) - 1
    codes = np.full(len(phases), -1, dtype=np.int64)
    for number, name in enumerate(SPIN_PHASES):
        codes[phases.index(name)] = number
    hands = np.full(len(phases), -1, dtype=np.int64)
    for name, hand in (("president_discard", "president_hand"), ("chancellor_enact", "chancellor_hand"),
                       ("veto", "chancellor_hand")):
        hands[phases.index(name)] = index[hand]
    chancellor_enact, power_phase, over = (phases.index(name) for name in ("chancellor_enact", "power", "over"))
    execution = game.spec.enums["how"].index("execution")
    seat_fields = [index[name] for name in SEAT_FIELDS]
    plain_fields = [index[name] for name in PLAIN_FIELDS]
    plain_bounds = [field_bounds(game, field) for field in plain_fields]
    parameter_bits = max((high - low).bit_length() for low, high in (
        field_bounds(game, index[name]) for name in ("president_hand", "chancellor_hand", "power", "winner")))
    how_bits = max(1, (field_bounds(game, index["how"])[1] + 1).bit_length())
    seat_bits = players.bit_length()

    def project(states: Any) -> Any:
        code = codes[states[index["phase"]]]
        inside = code >= 0
        if not inside.any():
            return None
        states = np.compress(inside, states, axis=1)
        code = code[inside]
        phase = states[index["phase"]]
        shift = states[index["hitler"]]

        def rotated(mask: Any) -> Any:
            return ((mask >> shift) | (mask << (players - shift))) & full

        alive, investigated = rotated(states[index["alive"]]), rotated(states[index["investigated"]])
        seats = [np.where(states[field] < 0, 0, (states[field] - shift) % players + 1) for field in seat_fields]
        first = np.zeros(len(phase), dtype=np.int64)
        second = np.zeros(len(phase), dtype=np.int64)
        hand = hands[phase]
        holding = hand >= 0
        if holding.any():
            at = np.flatnonzero(holding)
            first[at] = states[hand[at], at]
            enact = holding & (phase == chancellor_enact)
            second[enact] = states[index["veto_refused"], enact]
        powered = phase == power_phase
        first[powered] = states[index["power"], powered]
        ended = phase == over
        first[ended] = states[index["winner"], ended] + 1
        second[ended] = states[index["how"], ended] + 1
        alive = np.where(ended & (states[index["how"]] == execution), alive | 1, alive)  # as projector does
        columns = [(code, 3), (alive, players), (investigated, players)]
        columns += [(seat, seat_bits) for seat in seats]
        columns += [(states[field] - low, (high - low).bit_length()) for field, (low, high) in
                    zip(plain_fields, plain_bounds)]
        columns += [(first, parameter_bits + 1), (second, how_bits + 1)]
        return pack(columns)

    return project
