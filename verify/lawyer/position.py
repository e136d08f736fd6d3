"""Rule on the next move from the table's actual position: legal, illegal, or it depends.

The position is a partial game in the native transcript format (engine/transcript.py,
engine/TRANSCRIPT.md). What the table does not know may be left out:

- the roles and the first President: then every deal the setup allows is followed (the
  first President is the seat that makes the first nomination, when a line says so);
- the hidden moves: the President's draw and a Policy Peek (chance, R-L1, R-X5) and the
  President's face-down discard (R-L2, R-L4). A line may follow such a move directly; every
  outcome of the skipped moves (at most `MAX_IMPLIED` in a row) is followed.

Each way the hidden facts could be is a *position* (a state; equal states are merged). A
line the rules forbid in a position removes that position: the table's game is taken as
played, so that position is not the real one. If a line is illegal in every position, the
partial game itself is not legal and nothing is ruled (`SpecError`, naming the line).

The move asked about is then checked in every remaining position: legal in all, illegal
in all (with the rule ID and the reason), or legal in some and illegal in others, where
the ruling names the hidden fact that makes the difference ("legal if seat 4 is not
Hitler"). Evidence a line may carry is used where it constrains the position: the party an
investigation showed (R-X3) and the two tiles passed (R-L2); `deck` observations are not
(noted in the ruling; `shrules judge` checks them).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.game import Game, IllegalMove, Move, compiled_game
from engine.safe_json import loads
from engine.words import UNTRANSLATED, move_name, seat_shown, seats_shown, word
from engine.transcript import DECK, VOTE, Entry, Setup, Transcript, parse_transcript, read_transcript, setup_json
from spec.errors import Location, SpecError

from ..explicit.reductions import fields_read

HIDDEN_ROLES = ("discard",)
"""Roles of the seat moves the table does not see (R-L2, R-L4: the discard is face down);
with every chance move, these may be left out of a partial game."""

MAX_IMPLIED = 4
"""Hidden moves a line may skip in a row (a draw and a discard; a peek before them)."""

MAX_POSITIONS = 250_000
"""Consistent positions followed at most; beyond, the question needs more of the game."""

FIELD_WORDS: dict[str, tuple[str, str]] = {
    "hitler": ("Hitler is seat {}", "Hitler is not seat {}"),
    "fascists": ("seat {} is an ordinary Fascist", "seat {} is not an ordinary Fascist"),
    "president_hand": ("the President drew {} Fascist {}", ""),
    "chancellor_hand": ("the Chancellor holds {} Fascist {}", ""),
    "draw_fascist": ("the draw pile holds {} Fascist {}", ""),
    "draw_liberal": ("the draw pile holds {} Liberal {}", ""),
    "discard_fascist": ("the discard pile holds {} Fascist {}", ""),
    "discard_liberal": ("the discard pile holds {} Liberal {}", ""),
}
"""How a hidden fact reads aloud, true and false (a count: the quantity, then tile/tiles);
any other field reads as 'FIELD is VALUE'."""

FIELD_WORDS_DE: dict[str, tuple[str, str]] = {
    "hitler": ("Hitler ist Platz {}", "Hitler ist nicht Platz {}"),
    "fascists": ("Platz {} ist ein einfacher Faschist", "Platz {} ist kein einfacher Faschist"),
    "president_hand": ("vom Präsidenten gezogene faschistische Gesetze: {}", ""),
    "chancellor_hand": ("faschistische Gesetze auf der Hand des Kanzlers: {}", ""),
    "draw_fascist": ("faschistische Gesetze im Stapel: {}", ""),
    "draw_liberal": ("liberale Gesetze im Stapel: {}", ""),
    "discard_fascist": ("faschistische Gesetze in der Ablage: {}", ""),
    "discard_liberal": ("liberale Gesetze in der Ablage: {}", ""),
}
"""FIELD_WORDS in German: a count reads as 'WHAT: mindestens N' (no noun to inflect); any
other field as "'FIELD' ist VALUE"."""


@dataclass(frozen=True, slots=True)
class Ruling:
    """The ruling on one move in every consistent position."""

    move: str
    verdict: str                              # legal | illegal | depends
    positions: int
    legal: int
    reasons: tuple[tuple[str, str], ...]      # (rule ID, reason) where illegal, most frequent first
    rule_ids: tuple[str, ...]                 # the rules the ruling rests on
    condition: tuple[str, str] | None = None  # (legal if ..., illegal if ...) when it depends
    notes: tuple[str, ...] = ()
    move_de: str = ""                         # the move in German (from says_de), "" if none
    reasons_de: tuple[str, ...] = ()          # each reason of `reasons` in German (from why_de)
    condition_de: tuple[str, str] | None = None   # `condition` in German

    def said(self, lang: str) -> tuple[str, tuple[tuple[str, str], ...]]:
        """The move and the reasons in `lang`; English marked as such where German is missing."""
        if lang == "en":
            return self.move, self.reasons
        reasons = tuple((rule_id, german or UNTRANSLATED + reason) for (rule_id, reason), german
                        in zip(self.reasons, self.reasons_de + ("",) * len(self.reasons)))
        return self.move_de or UNTRANSLATED + self.move, reasons

    def to_json(self) -> dict[str, Any]:
        """The ruling as JSON."""
        out: dict[str, Any] = {"move": self.move, "verdict": self.verdict, "positions": self.positions,
                               "legal_in": self.legal, "rules": list(self.rule_ids),
                               "reasons": [{"rule": rule_id, "reason": reason} for rule_id, reason in self.reasons]}
        if self.condition is not None:
            out["legal_if"], out["illegal_if"] = self.condition
        if self.notes:
            out["notes"] = list(self.notes)
        return out


# ---------------------------------------------------------------------- following the game


def _advance(game: Game, state: Any) -> tuple[Any, tuple[str, ...]]:
    state, forced = game.advance(state)
    return state, tuple(move.rule for move in forced)


def _hidden(game: Game, state: Any) -> list[Move]:
    """The moves due now that the table cannot see: chance, and the hidden choices."""
    moves = game.legal_moves(state)
    if all(game.by_name[m.rule].rule.actor == "chance" or _hidden_choice(game.by_name[m.rule].rule.roles)
           for m in moves):
        return moves
    return []


def _hidden_choice(roles: tuple[str, ...]) -> bool:
    return any(role in HIDDEN_ROLES for role in roles)


def _reaching(game: Game, state: Any, phase: str) -> Iterator[Any]:
    """The state itself if it is at `phase`; else every state at `phase` that hidden moves
    lead to (at most MAX_IMPLIED of them); else the state itself (the move is then judged
    at the wrong time, with the rules' own reason)."""
    found = False
    layer = [state]
    for _ in range(MAX_IMPLIED + 1):
        following = []
        for current in layer:
            if game.phase(current) == phase:
                found = True
                yield current
                continue
            for move in _hidden(game, current):
                following.append(_advance(game, game.apply(current, move))[0])
        layer = list(dict.fromkeys(following))
        if not layer:
            break
    if not found:
        yield state


def _move_of(game: Game, state: Any, entry: Entry) -> Move:
    """The engine move of an entry; a vote is whichever vote rule its count meets
    (`Game.vote`, R-E7)."""
    if entry.kind != VOTE:
        return game.move(entry.rule, **entry.params)
    return game.vote(state, entry.params["ja"])


def _evidence_holds(game: Game, before: Any, move: Move, after: Any, entry: Entry) -> bool:
    """Whether what the line shows (an investigation's party, the tiles passed) fits."""
    if entry.party is not None and game.reveals(before, move).get("party") not in (None, entry.party):
        return False
    if entry.passed is not None and after.chancellor_hand != entry.passed.count("fascist"):
        return False
    return True


@dataclass(frozen=True, slots=True)
class Attempt:
    """One line tried in one position (after the hidden moves it skips): the state and
    move, and the state after it or why it is illegal there."""

    before: Any
    move: Move
    after: Any = None
    error: IllegalMove | None = None


def _attempts(game: Game, state: Any, entry: Entry) -> list[Attempt]:
    """The line tried in every position the state leads to through hidden moves."""
    compiled = game.by_name.get(entry.rule)
    if compiled is not None and compiled.rule.actor == "game":
        # a forced move written in: it must be among those that run now
        after, ran = _advance(game, state)
        move = Move(entry.rule, ())
        if entry.rule in ran:
            return [Attempt(state, move, after)]
        return [Attempt(state, move, None, IllegalMove("R-W5", f"'{entry.rule}' is not the game's move now", move))]
    state, _ = _advance(game, state)
    # a vote: the phase of the vote rules (whichever its count meets)
    phase = compiled.rule.phase if compiled is not None else \
        game.by_name[game.vote(state, entry.params["ja"]).rule].rule.phase
    out = []
    for current in _reaching(game, state, phase):
        move = _move_of(game, current, entry)
        try:
            after = game.apply(current, move, by=entry.by)
        except IllegalMove as problem:
            out.append(Attempt(current, move, None, problem))
            continue
        if _evidence_holds(game, current, move, after, entry):
            out.append(Attempt(current, move, after))
        else:
            rule_id = "R-X3" if entry.party is not None else "R-L2"
            out.append(Attempt(current, move, None, IllegalMove(rule_id, "what the line shows does not fit", move)))
    return out


def _deals(game: Game, setup: Setup, entries: tuple[Entry, ...]) -> list[Any]:
    """The positions after the setup: every deal and first President it allows."""
    state = game.initial_state()
    first = setup.first_president
    if first is None:
        opening = next((e for e in entries if e.kind != DECK), None)
        nominations = {rule.name for rule in game.spec.with_role("nomination")}
        if opening is not None and opening.rule in nominations and opening.by is not None:
            first = opening.by
    out = []
    for deal in game.legal_moves(state):
        params = game.params_of(deal)
        if setup.hitler is not None and params.get("hitler_seat") != setup.hitler:
            continue
        if setup.fascists is not None and sorted(params.get("fascist_seats", [])) != sorted(setup.fascists):
            continue
        dealt = game.apply(state, deal)
        for opening_move in game.legal_moves(dealt):
            if first is None or game.params_of(opening_move).get("candidate") == first:
                out.append(game.apply(dealt, opening_move))
    if not out:
        raise SpecError("no deal of roles matches the roles given in the setup (R-S2)",
                        Location("setup", setup.line))
    return out


def follow(transcript: Transcript) -> tuple[Game, list[Any], tuple[str, ...]]:
    """Every position consistent with a partial game, after its last line (forced moves run)."""
    setup = transcript.setup
    game = compiled_game(setup.players, setup.rules)
    notes: list[str] = []
    positions = _deals(game, setup, transcript.entries)
    for entry in transcript.entries:
        if entry.kind == DECK:
            notes.append(f"{entry.where}: the observation of the draw pile is not used here (shrules judge checks it)")
            continue
        attempts = [attempt for state in positions for attempt in _attempts(game, state, entry)]
        following = [attempt.after for attempt in attempts if attempt.error is None]
        first_error = next((attempt.error for attempt in attempts if attempt.error is not None), None)
        positions = list(dict.fromkeys(following))
        if not positions:
            assert first_error is not None
            raise SpecError(f"the partial game is not legal at {entry.where}: {first_error.rule_id}: "
                            f"{first_error.reason} (shrules judge shows the whole game)",
                            Location(transcript.source, entry.line))
        if len(positions) > MAX_POSITIONS:
            raise SpecError(f"more than {MAX_POSITIONS:,} positions are consistent with the partial game at "
                            f"{entry.where}; give the roles or the hidden moves", Location(transcript.source, entry.line))
    positions = list(dict.fromkeys(_advance(game, state)[0] for state in positions))
    return game, positions, tuple(notes)


# ---------------------------------------------------------------------- the move asked about


def parse_move(text: str, setup: Setup, option: str = "--move") -> Entry:
    """The move asked about, one line of the transcript format, checked like a transcript line."""
    try:
        loads(text, option)
    except SpecError as error:
        raise SpecError(f"not JSON: {error.message}; expected e.g. "
                        "'{\"move\": \"nominate\", \"by\": 2, \"chancellor\": 5}'", Location(option)) from None
    try:
        parsed = parse_transcript(json.dumps(setup_json(setup)) + "\n" + text, option)
    except SpecError as error:
        raise SpecError(error.message, Location(option)) from None
    if len(parsed.entries) != 1:
        raise SpecError("expected exactly one move line", Location(option))
    return parsed.entries[0]


def rule(game: Game, positions: list[Any], entry: Entry, notes: tuple[str, ...] = ()) -> Ruling:
    """Check the move in every position (and every outcome of the hidden moves it skips)."""
    attempts = list({(a.before, a.move): a for state in positions for a in _attempts(game, state, entry)}.values())
    legal = [a for a in attempts if a.error is None]
    illegal = [a for a in attempts if a.error is not None]
    reasons = tuple(key for key, _ in Counter((a.error.rule_id, a.error.reason) for a in illegal
                                               if a.error is not None).most_common())
    german = {(a.error.rule_id, a.error.reason): a.error.reason_de or "" for a in illegal if a.error is not None}
    reasons_de = tuple(german[key] for key in reasons)
    move_de = ""
    at_its_time = [a for a in attempts if game.phase(a.before) == game.by_name[a.move.rule].rule.phase]
    shown = legal[0] if legal else at_its_time[0] if at_its_time else None
    compiled = game.by_name.get(shown.move.rule) if shown is not None else None
    if shown is not None and compiled is not None and compiled.actor is not None and entry.by is not None \
            and compiled.actor(shown.before) != entry.by:
        move_text = word("en", "would_move", by=seat_shown(entry.by), what=move_name(compiled.rule, "en"))
        move_de = word("de", "would_move", by=seat_shown(entry.by), what=move_name(compiled.rule, "de"))
    elif shown is not None:
        move_text = game.says(shown.before, shown.move)
        move_de = game.says(shown.before, shown.move, "de")
    else:
        params = ", ".join(f"{key}={value}" for key, value in entry.params.items())
        by = seat_shown(entry.by) if entry.by is not None else None
        move_text = f"{entry.rule}({params})" + (word("en", "by_seat", seat=by) if by is not None else "")
        move_de = f"'{entry.rule}({params})'" + (word("de", "by_seat", seat=by) if by is not None else "")
    rule_ids = tuple(dict.fromkeys(r for r, _ in reasons)) or game.by_name[attempts[0].move.rule].rule.rule_ids
    total = len(attempts)
    if not illegal:
        return Ruling(move_text, "legal", total, total, (), rule_ids, None, notes, move_de)
    if not legal:
        return Ruling(move_text, "illegal", total, 0, reasons, rule_ids, None, notes, move_de, reasons_de)
    condition, condition_de = _condition(game, [a.before for a in legal], [a.before for a in illegal],
                                         _read(game, illegal))
    return Ruling(move_text, "depends", total, len(legal), reasons, rule_ids, condition, notes, move_de, reasons_de,
                  condition_de)


def _read(game: Game, illegal: list[Attempt]) -> list[str]:
    """The fields the failing requirements read: the first places to look for the difference."""
    out: dict[str, None] = {}
    for attempt in illegal:
        compiled = game.by_name[attempt.move.rule]
        if game.phase(attempt.before) != compiled.rule.phase:
            continue
        failing = compiled.first_failure(attempt.before, *attempt.move.args)
        if failing >= 0:
            for name in fields_read(compiled.rule.requires[failing].when, game.spec):
                out.setdefault(name, None)
    return list(out)


def rule_position(game_file: str | Path, move_text: str, option: str = "--move") -> Ruling:
    """Read a partial game and rule on the move given as one line of JSON."""
    transcript = read_transcript(game_file)
    entry = parse_move(move_text, transcript.setup, option)
    game, positions, notes = follow(transcript)
    return rule(game, positions, entry, notes)


# ---------------------------------------------------------------------- what makes the difference


def _quantity(template: str, quantity: str) -> str:
    return template.format(quantity, "tile" if quantity in ("no", "at least 1", "1") else "tiles")


Fact = tuple[str, str, str, str, Any]
"""A candidate hidden fact: true and false in English, the same in German, and its test."""


def _facts(game: Game, states: list[Any], first: list[str]) -> Iterator[Fact]:
    """Candidate hidden facts, (true in words, false in words, both in German, test), for
    each field that differs between the positions: the fields in `first`, then the hidden
    facts of FIELD_WORDS, then the others in state order."""
    order = first + [name for name in FIELD_WORDS if name not in first]
    fields = list(enumerate(game.spec.fields))
    fields.sort(key=lambda item: order.index(item[1].name) if item[1].name in order else len(order))
    german = game.spec.values_de
    for index, spec_field in fields:
        values = sorted({state[index] for state in states})
        if len(values) < 2:
            continue
        name = spec_field.name
        spaced = name.replace("_", " ")
        kind = spec_field.type.kind
        if kind == "int":
            template = FIELD_WORDS.get(name, (spaced + " is {}{}", ""))[0]
            template_de = FIELD_WORDS_DE.get(name, (f"'{name}': {{}}", ""))[0]
            for value in values[1:]:
                below = "no" if value == 1 else f"fewer than {value}"
                below_de = "keines" if value == 1 else f"weniger als {value}"
                yield (_quantity(template, f"at least {value}"), _quantity(template, below),
                       template_de.format(f"mindestens {value}"), template_de.format(below_de),
                       lambda s, i=index, v=value: s[i] >= v)
            continue
        yes, no = FIELD_WORDS.get(name, (spaced + " is {}", spaced + " is not {}"))
        if kind == "seats":
            yes_de, no_de = FIELD_WORDS_DE.get(name, (f"Platz {{}} gehört zu '{name}'",
                                                      f"Platz {{}} gehört nicht zu '{name}'"))
            for seat in range(game.players):
                person = seat_shown(seat)
                yield (yes.format(person), no.format(person), yes_de.format(person), no_de.format(person),
                       lambda s, i=index, b=seat: s[i] >> b & 1 == 1)
        else:
            yes_de, no_de = FIELD_WORDS_DE.get(name, (f"'{name}' ist {{}}", f"'{name}' ist nicht {{}}"))
            for value in values:
                shown = seats_shown(kind, game.decode(kind, spec_field.type.enum, value))
                word_de = german.get(str(shown), str(shown))
                yield (yes.format(shown), no.format(shown), yes_de.format(word_de), no_de.format(word_de),
                       lambda s, i=index, v=value: s[i] == v)


def _condition(game: Game, legal: list[Any], illegal: list[Any],
               first: list[str]) -> tuple[tuple[str, str], tuple[str, str]]:
    """(legal if ..., illegal if ...), in English and in German: the first hidden fact that
    tells the two groups apart, or the counts when no single fact does."""
    for true, false, true_de, false_de, test in _facts(game, legal + illegal, first):
        if all(test(s) for s in legal) and not any(test(s) for s in illegal):
            return (true, false), (true_de, false_de)
        if all(test(s) for s in illegal) and not any(test(s) for s in legal):
            return (false, true), (false_de, true_de)
    total = len(legal) + len(illegal)
    return ((f"in {len(legal)} of the {total} consistent positions", f"in the other {len(illegal)}"),
            (f"in {len(legal)} der {total} damit vereinbaren Stellungen", f"in den übrigen {len(illegal)}"))
