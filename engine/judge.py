"""Judge a logged game move by move: legal or illegal, with the rule ID of the first
illegal move, whether the game reached its end, and who won.

The judge replays a `Transcript` (engine/transcript.py) through the compiled rules.
Every move goes through `Game.check`, so a verdict always rests on a requirement of the
spec and its rule ID. On top of the engine, the judge checks the evidence a log may
carry that the rules constrain but the engine's state does not hold: the order of the
draw pile (`deck` observations: a hand must be the top three tiles, R-L1; chaos enacts
the top tile, R-E9; a peek shows the top three, R-X5), the two tiles passed to the
Chancellor (R-L2) and the membership an investigation showed (R-X3).

Hidden information is never invented. When the setup leaves out the roles or the first
President, the judge follows every deal the transcript allows at once (a *world* each)
and drops a world as soon as the transcript contradicts it (the game went on after a
Chancellor was elected, so that Chancellor is not Hitler). A move is illegal only when
it is illegal in every remaining world; a result that differs between worlds (is the
game over if seat 4 is Hitler?) is reported as undecided, never guessed.

Judging stops at the first illegal move: after it the state of the game is not one the
rules define. Forced moves of the game (win checks, reshuffles, passing candidacy) may
be left out of a transcript (the judge runs them) or written in (then they are checked).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from spec.errors import Location, SpecError, one_line
from spec.identity import content_hash
from spec.lang import nodes
from spec.loader import load_spec, users_file
from spec.model import Spec
from spec.lang.types import decode_tiles

from .game import MAX_FORCED, Game, IllegalMove, Move, compiled_game
from .transcript import DECK, VOTE, Entry, Setup, Transcript
from .words import english, named, seat_shown, word

LEGAL, ILLEGAL, UNSUPPORTED = "legal", "illegal", "unsupported"
NOT_JUDGED = "not judged"
PILE_ROLES = ("draw", "top_policy", "peek")
"""Roles of the moves that take or show tiles from the top of the pile (spec.model.ROLES)."""
AFTER_END = "after the end"


@dataclass(frozen=True, slots=True)
class Violation:
    """An illegal move: the rule ID that forbids it, why, and where it was logged."""

    rule_id: str
    message: str
    line: int | None = None
    ref: Any = None
    message_de: str | None = None     # the message in German, where the spec or the engine has it

    def said(self, lang: str = "en") -> str:
        """The message in `lang`: German where there is one, else the English marked as such."""
        if lang == "en" or self.message_de is None:
            return english(self.message, lang)
        return self.message_de

    def to_json(self) -> dict[str, Any]:
        """The violation as the JSON of `shrules judge --json`."""
        return {"log": self.ref, "line": self.line, "rule": self.rule_id, "message": self.message}


@dataclass(frozen=True, slots=True)
class Step:
    """One transcript entry as judged: its status and, to print it, the move and the state
    before it (in the first world still possible) and the game's forced moves run first."""

    entry: Entry
    status: str
    move: Move | None = None
    before: Any = None
    implied: tuple[tuple[Any, Move], ...] = ()
    violation: Violation | None = None


@dataclass(frozen=True, slots=True)
class Judgement:
    """The verdict on one game."""

    game_id: str
    source: str
    rules: str
    verdict: str
    complete: bool
    winner: str | None
    how: str | None
    violations: tuple[Violation, ...] = ()
    steps: tuple[Step, ...] = ()
    reason: str | None = None
    notes: tuple[str, ...] = ()
    game: Game | None = field(default=None, repr=False, compare=False)
    rules_hash: str | None = None
    """The content hash of the rules judged by (spec/identity.py)."""
    rules_file: str | None = None
    """The file the rules were read from when it is not a shipped one."""
    rules_asked: str | None = None
    """The rules the log named when it was judged by others (`judge --rules`)."""

    def to_json(self) -> dict[str, Any]:
        """One JSON object: the line `shrules judge --json` prints for this game."""
        out: dict[str, Any] = {"game": self.game_id, "verdict": self.verdict, "complete": self.complete,
                               "winner": self.winner, "how": self.how, "rules": self.rules,
                               "rules_hash": self.rules_hash, "rules_file": self.rules_file,
                               "rules_asked": self.rules_asked,
                               "violations": [v.to_json() for v in self.violations]}
        if self.reason:
            out["reason"] = self.reason
        if self.notes:
            out["notes"] = list(self.notes)
        return out

    def summary(self, lang: str = "en") -> str:
        """One line: the verdict and what decided it, in `lang`; every value from the log
        escaped (`one_line`), so that no control sequence reaches the terminal."""
        return one_line(self._summary(lang))

    def rules_said(self, lang: str = "en") -> str:
        """The rules judged by, as the output names them: a shipped name alone; a file of
        the user's with its path and content hash; the rules the log asked for, if others."""
        said = self.rules
        if self.rules_file is not None:
            said += word(lang, "rules_file", file=self.rules_file, hash=self.rules_hash)
        if self.rules_asked is not None:
            said += word(lang, "rules_asked", asked=self.rules_asked)
        return one_line(said)

    def _summary(self, lang: str) -> str:
        if self.verdict == UNSUPPORTED:
            return word(lang, "unsupported", reason=english(str(self.reason), lang))
        if self.verdict == ILLEGAL:
            first = self.violations[0]
            where = _where(first.line, first.ref, lang)
            return word(lang, "illegal_at", where=where, rule=first.rule_id, message=first.said(lang))
        if self.complete:
            return word(lang, "complete", winner=named(lang, "team", str(self.winner)),
                        how=named(lang, "how", str(self.how)))
        return word(lang, "incomplete")

    def lines(self, lang: str = "en") -> list[str]:
        """The game move by move, each with its verdict, then the overall verdict, in `lang`."""
        out = [word(lang, "judge_header", game=self.game_id, source=self.source, rules=self.rules_said(lang))]
        for step in self.steps:
            where = _where(step.entry.line, step.entry.ref, lang)
            if self.game is not None:
                for before, move in step.implied:
                    if not self.game.by_name[move.rule].rule.quiet:
                        out.append(f"  {'':>10}  {word(lang, 'by_game'):<10} {self.game.says(before, move, lang)}")
            text = self._text(step, lang)
            if step.violation is not None:
                out.append(f"  {where:>10}  {word(lang, 'status_illegal'):<10} {text}")
                out.append(f"  {'':>10}             {step.violation.rule_id}: {step.violation.said(lang)}")
            else:
                out.append(f"  {where:>10}  {word(lang, 'status_' + step.status):<10} {text}")
        out.extend("  " + word(lang, "note", note=english(note, lang)) for note in self.notes)
        out.append(word(lang, "verdict", summary=self.summary(lang)))
        return [one_line(line) for line in out]

    def _text(self, step: Step, lang: str = "en") -> str:
        entry = step.entry
        if entry.kind == DECK:
            return word(lang, "deck") + ", ".join(tile[0].upper() for tile in entry.tiles or ())
        if step.move is not None and step.before is not None and self.game is not None:
            return self.game.says(step.before, step.move, lang)
        params = ", ".join(f"{k}={v}" for k, v in entry.params.items())
        by = word(lang, "by_seat", seat=seat_shown(entry.by)) if entry.by is not None else ""
        return f"'{entry.rule}({params})'{by}" if lang != "en" else f"{entry.rule}({params}){by}"


def _where(line: int | None, ref: Any, lang: str = "en") -> str:
    parts = []
    if line is not None:
        parts.append(word(lang, "line", line=line))
    if ref is not None:
        parts.append(word(lang, "log", ref=ref))
    return ", ".join(parts) or word(lang, "setup")


# ---------------------------------------------------------------------- worlds


class _World:
    """One possible course of the game: a state and what is known of the pile's order."""

    __slots__ = ("state", "top", "full", "hand", "unclaimed", "visited", "draws")

    def __init__(self, state: Any) -> None:
        self.state = state
        self.top: tuple[str, ...] = ()          # tiles known to lie on top of the pile, top first
        self.full = False                       # `top` is the whole pile
        self.hand: tuple[str, ...] | None = None  # the President's hand, when the log shows it
        self.unclaimed: tuple[str, ...] = ()    # forced moves run ahead of a written game move
        self.visited: list[tuple[Any, str]] = []  # forced moves since the last written move
        self.draws = 0                          # tiles taken from the pile so far


@lru_cache(maxsize=None)
def _reach(game: Game) -> dict[str, frozenset[int]]:
    """For each rule, the phases its effect can lead to through the game's forced moves."""
    phase_names = game.phase_names

    def targets(rule_name: str) -> set[int]:
        rule = game.by_name[rule_name].rule
        for name, node in rule.effect:
            if name == "phase":
                return set(_phase_literals(node))
        return {phase_names.index(rule.phase)}

    reach: dict[str, frozenset[int]] = {}
    for compiled in game.rules:
        seen: set[int] = set()
        todo = list(targets(compiled.rule.name))
        while todo:
            phase = todo.pop()
            if phase in seen:
                continue
            seen.add(phase)
            rules = game.by_phase[phase]
            if rules and rules[0].rule.actor == "game":
                for other in rules:
                    todo.extend(targets(other.rule.name))
        reach[compiled.rule.name] = frozenset(seen)
    return reach


def _phase_literals(node: nodes.Node) -> list[int]:
    found = []
    if isinstance(node, nodes.Lit) and node.type.kind == "enum" and node.type.enum == "phase":
        found.append(int(node.value))
    for child in nodes.children(node):
        found.extend(_phase_literals(child))
    return found


@lru_cache(maxsize=None)
def _shuffles(game: Game) -> frozenset[str]:
    """The game's forced moves that refill the draw pile (a reshuffle): order knowledge ends."""
    return frozenset(c.rule.name for c in game.rules
                     if c.rule.actor == "game" and any(name in ("draw_liberal", "draw_fascist")
                                                       for name, _ in c.rule.effect))


def _run_forced(game: Game, world: _World, until: str | None = None) -> tuple[list[tuple[Any, Move]], bool]:
    """Run the game's forced moves (up to and including `until`, if it comes); return them
    and whether `until` was run."""
    implied: list[tuple[Any, Move]] = []
    shuffles = _shuffles(game)
    state = world.state
    forced = game.forced_move(state)
    while forced is not None:
        if len(implied) >= MAX_FORCED:
            raise AssertionError(f"the game's own moves never end: {forced.rule} in phase {game.phase(state)}")
        after = game.by_name[forced.rule].effect(state)
        implied.append((state, forced))
        world.visited.append((state, forced.rule))
        if forced.rule in shuffles:
            world.top, world.full = (), False
        state = after
        if forced.rule == until:
            world.state = state
            return implied, True
        forced = game.forced_move(state)
    world.state = state
    return implied, False


def _explain(game: Game, world: _World, move: Move, error: IllegalMove) -> IllegalMove:
    """A wrong-time move explained by the forced move that led elsewhere: a power after a
    Liberal policy is illegal because no power was granted (R-X1), not because a
    nomination was due."""
    compiled = game.by_name.get(move.rule)
    if compiled is None:
        return error
    target = game.phase_names.index(compiled.rule.phase)
    if world.state[game.phase_index] == target or game.is_over(world.state):
        return error
    reach = _reach(game)
    for state, applied in world.visited:
        if target in reach[applied]:
            continue
        for other in game.by_phase[state[game.phase_index]]:
            if other.rule.name != applied and target in reach[other.rule.name]:
                failing = other.first_failure(state)
                if failing >= 0:
                    requirement = other.rule.requires[failing]
                    reason = game.reason(other, failing, state, ())
                    reason_de = game.reason(other, failing, state, (), "de")
                    return IllegalMove(requirement.rule_id, f"'{move.rule}' is not possible now: {reason}", move,
                                       f"'{move.rule}' ist jetzt nicht möglich: {reason_de}")
    return error


def _check_actor(game: Game, state: Any, move: Move, by: int | None) -> None:
    """The seat that made a move must be the one whose move it is (R-E1 for the President,
    R-L3 for the Chancellor: the rule's `actor_rule`), checked when the log says who moved."""
    compiled = game.by_name.get(move.rule)
    if by is None or compiled is None or compiled.actor is None or game.phase(state) != compiled.rule.phase:
        return
    expected = compiled.actor(state)
    if by != expected:
        rule = compiled.rule
        who = {"president": "President", "nominee": "Chancellor"}.get(rule.actor_text, rule.actor_text)
        wer = {"president": "Präsident", "nominee": "Kanzler"}.get(rule.actor_text, f"'{rule.actor_text}'")
        expected, by = seat_shown(expected), seat_shown(by)
        raise IllegalMove(rule.actor_rule, f"the {who} now is seat {expected}, not seat {by}", move,
                          f"{wer} ist jetzt Platz {expected}, nicht Platz {by}")


def _resolve(game: Game, state: Any, entry: Entry) -> Move:
    """The move of an entry; a vote by its Ja list is whichever vote rule its count meets
    (`Game.vote`, R-E7)."""
    if entry.kind != VOTE:
        return game.move(entry.rule, **entry.params)
    return game.vote(state, entry.params["ja"])


def _constant(game: Game, name: str) -> int:
    value = game.values[name]
    assert isinstance(value, int), name
    return value


def _tiles_text(tiles: tuple[str, ...] | list[str]) -> str:
    return ", ".join(tiles) if tiles else "no tiles"


TILES_DE = {"liberal": "liberal", "fascist": "faschistisch"}
"""A tile as the German reasons of the pile's evidence name it."""


def _tiles_de(tiles: tuple[str, ...] | list[str]) -> str:
    return ", ".join(TILES_DE.get(tile, tile) for tile in tiles) if tiles else "keine Gesetze"


def _judge_entry(game: Game, world: _World, entry: Entry) -> tuple[str, Move | None, Any, list[tuple[Any, Move]]]:
    """Judge one entry in one world (mutating it); raise `IllegalMove` if it is illegal there."""
    if entry.kind == DECK:
        implied, _ = _run_forced(game, world)
        world.unclaimed += tuple(move.rule for _, move in implied)
        if game.is_over(world.state):
            return AFTER_END, None, world.state, implied
        _observe_deck(game, world, entry)
        return LEGAL, None, world.state, implied
    compiled = game.by_name.get(entry.rule)
    if compiled is not None and compiled.rule.actor == "game":
        return _judge_forced(game, world, entry)
    implied, _ = _run_forced(game, world)
    world.unclaimed = ()
    state = world.state
    move = _resolve(game, state, entry)
    try:
        compiled = game.check(state, move)
    except IllegalMove as error:
        _check_actor(game, state, move, entry.by)
        raise _explain(game, world, move, error) from None
    _check_actor(game, state, move, entry.by)
    if entry.passed is not None:
        _check_passed(game, world, state, move, entry)
    if entry.party is not None:
        shown = game.reveals(state, move).get("party")
        if shown is not None and shown != entry.party:
            target = entry.params.get("target")
            target = seat_shown(target) if isinstance(target, int) else target
            raise IllegalMove("R-X3", f"seat {target} is of the {shown} party, so the President sees {shown}; "
                                      f"the log says {entry.party}", move,
                              f"Platz {target} ist in der Partei '{shown}', also sieht der Präsident '{shown}'; "
                              f"das Protokoll sagt '{entry.party}'")
    after = compiled.effect(state, *move.args)
    _follow_pile(game, world, state, move, entry)
    world.state = after
    world.visited = []
    return LEGAL, move, state, implied


def _judge_forced(game: Game, world: _World, entry: Entry) -> tuple[str, Move | None, Any, list[tuple[Any, Move]]]:
    """A game move written in the transcript: it must be the forced move now (or be one the
    judge already ran after a `deck` observation)."""
    move = Move(entry.rule, ())
    if entry.rule in world.unclaimed:
        world.unclaimed = world.unclaimed[world.unclaimed.index(entry.rule) + 1:]
        return LEGAL, move, None, []
    world.unclaimed = ()
    start = world.state
    implied, found = _run_forced(game, world, until=entry.rule)
    if found:
        before = implied.pop()[0]
        return LEGAL, move, before, implied
    phase = game.by_name[entry.rule].rule.phase
    for state, _ in world.visited:
        if game.phase(state) == phase:
            game.check(state, move)
    game.check(world.state if implied else start, move)
    raise IllegalMove("R-W5", f"'{entry.rule}' is not the game's move now", move,  # pragma: no cover
                      f"'{entry.rule}' ist jetzt nicht der Zug des Spiels")


def _observe_deck(game: Game, world: _World, entry: Entry) -> None:
    """Check an observation of the whole draw pile against the state and what is known."""
    state = world.state
    tiles = tuple(entry.tiles or ())
    known = decode_tiles(state.known_top)
    liberal = state.draw_liberal + known.count("liberal")
    fascist = state.draw_fascist + known.count("fascist")
    shown_liberal, shown_fascist = tiles.count("liberal"), tiles.count("fascist")
    if (shown_liberal, shown_fascist) != (liberal, fascist):
        rule_id = "R-S3" if world.draws == 0 else "R-L5"
        raise IllegalMove(rule_id, f"the draw pile holds {liberal} Liberal and {fascist} Fascist tiles; the log "
                                   f"shows {shown_liberal} Liberal and {shown_fascist} Fascist", None,
                          f"im Stapel liegen liberal: {liberal}, faschistisch: {fascist}; das Protokoll zeigt "
                          f"liberal: {shown_liberal}, faschistisch: {shown_fascist}")
    expected = world.top
    if expected and (tiles != expected if world.full else tiles[:len(expected)] != expected):
        raise IllegalMove("R-L5", f"the draw pile changed without a reshuffle: it was {_tiles_text(expected)}"
                                  f"{'' if world.full else ' on top'}; the log shows {_tiles_text(tiles)}", None,
                          f"der Stapel hat sich ohne Mischen geändert: {'' if world.full else 'oben '}lag "
                          f"{_tiles_de(expected)}; das Protokoll zeigt {_tiles_de(tiles)}")
    world.top, world.full = tiles, True


def _check_passed(game: Game, world: _World, state: Any, move: Move, entry: Entry) -> None:
    """R-L2: the Chancellor gets the President's hand less the discarded tile: as many
    tiles as `chancellor_hand_size`, as many of them Fascist as the discard rule's effect
    leaves the Chancellor holding (the field `chancellor_hand`)."""
    compiled = game.by_name[move.rule]
    size = _constant(game, "chancellor_hand_size")
    expected = compiled.effect(state, *move.args)[game.field_names.index("chancellor_hand")]
    held = state[game.field_names.index("president_hand")]
    tile = game.params_of(move)[compiled.rule.params[0].name]
    passed = tuple(entry.passed or ())
    if len(passed) != size or passed.count("fascist") != expected:
        hand = _tiles_text(world.hand) if world.hand is not None else \
            f"{held} Fascist and {_constant(game, 'hand_size') - held} Liberal tiles"
        leaves = size - expected
        hand_de = _tiles_de(world.hand) if world.hand is not None else \
            f"faschistisch: {held}, liberal: {_constant(game, 'hand_size') - held}"
        raise IllegalMove("R-L2", f"the President held {hand} and discarded a {tile} tile, which leaves "
                                  f"{expected} Fascist and {leaves} Liberal for the Chancellor; "
                                  f"the log shows {_tiles_text(passed)}", move,
                          f"der Präsident hielt {hand_de} und legte ein {TILES_DE.get(tile, tile)}es Gesetz ab; "
                          f"dem Kanzler bleiben faschistisch: {expected}, liberal: {leaves}; das Protokoll zeigt "
                          f"{_tiles_de(passed)}")


def _follow_pile(game: Game, world: _World, state: Any, move: Move, entry: Entry) -> None:
    """Keep the known order of the pile up to date; check draws, chaos and peeks against it.
    The rules' roles say which moves take tiles from the top (`draw`, `top_policy`, and
    how many: `draws`) and which show them (`peek`); each such rule has one parameter, what
    the tiles were."""
    rule = game.by_name[move.rule].rule
    if not rule.roles or not any(role in PILE_ROLES for role in rule.roles):
        return
    value = game.params_of(move)[rule.params[0].name]
    taken = game.draws(state, move)
    if "draw" in rule.roles:
        drawn = value                           # the Fascist tiles among those drawn
        world.draws += taken
        world.hand = entry.tiles
        if len(world.top) >= taken:
            top = world.top[:taken]
            if top.count("fascist") != drawn:
                shown = _tiles_text(entry.tiles) if entry.tiles else f"{drawn} Fascist tiles"
                shown_de = _tiles_de(entry.tiles) if entry.tiles else f"faschistisch: {drawn}"
                raise IllegalMove("R-L1", f"the President draws the top {taken} tiles of the pile, "
                                          f"{_tiles_text(top)}; the log shows {shown}", move,
                                  f"der Präsident zieht die obersten {taken} Gesetze des Stapels: {_tiles_de(top)}; "
                                  f"das Protokoll zeigt {shown_de}")
            world.top = world.top[taken:]
        else:
            world.top, world.full = (), False
    elif "top_policy" in rule.roles:
        world.draws += taken
        if world.top:
            if world.top[0] != value:
                raise IllegalMove("R-E9", f"chaos enacts the top tile of the pile, a {world.top[0]} tile; "
                                          f"the log shows {value}", move,
                                  f"das Chaos erlässt das oberste Gesetz des Stapels: "
                                  f"{TILES_DE.get(world.top[0], world.top[0])}; das Protokoll zeigt "
                                  f"{TILES_DE.get(str(value), value)}")
            world.top = world.top[taken:]
    elif "peek" in rule.roles:
        seen = tuple(value)
        known = world.top[:len(seen)]
        if known and seen[:len(known)] != known:
            raise IllegalMove("R-X5", f"the top tiles of the pile are {_tiles_text(known)}; "
                                      f"the log shows the peek saw {_tiles_text(seen)}", move,
                              f"oben im Stapel liegen {_tiles_de(known)}; laut Protokoll zeigte die "
                              f"Gesetzesvorschau {_tiles_de(seen)}")
        if len(world.top) < len(seen):
            world.top, world.full = seen, False


# ---------------------------------------------------------------------- the judge


def _deal(game: Game, setup: Setup, entries: tuple[Entry, ...]) -> tuple[list[_World], IllegalMove | None]:
    """The worlds after the setup: one per deal of roles and first President it allows.

    A first President left out is the seat that makes the first nomination, when the
    transcript says who made it (every other seat would be refused there, R-E1)."""
    state = game.initial_state()
    first_president = setup.first_president
    deal_rule, opening = game.spec.role_rule("deal"), game.spec.role_rule("opening")
    nominations = {rule.name for rule in game.spec.with_role("nomination")}
    if first_president is None:
        first_move = next((entry for entry in entries if entry.kind != DECK), None)
        if first_move is not None and first_move.rule in nominations and first_move.by is not None:
            first_president = first_move.by
    if setup.hitler is not None and setup.fascists is not None:
        deals = [game.move(deal_rule.name, hitler_seat=setup.hitler, fascist_seats=list(setup.fascists))]
    else:
        deals = [move for move in game.legal_moves(state)
                 if move.rule == deal_rule.name and _matches(game, move, setup)]
    worlds = []
    for deal in deals:
        try:
            dealt = game.apply(state, deal)
        except IllegalMove as error:
            return [], error
        if first_president is not None:
            firsts = [game.move(opening.name, **{opening.params[0].name: first_president})]
        else:
            firsts = [m for m in game.legal_moves(dealt) if m.rule == opening.name]
        for first in firsts:
            try:
                worlds.append(_World(game.apply(dealt, first)))
            except IllegalMove as error:
                return [], error
    if not worlds:
        return [], IllegalMove("R-S2", "no deal of roles matches the roles given in the setup", None,
                               "keine Rollenverteilung passt zu den Rollen der Vorbereitung")
    return worlds, None


def _matches(game: Game, move: Move, setup: Setup) -> bool:
    params = game.params_of(move)
    if setup.hitler is not None and params["hitler_seat"] != setup.hitler:
        return False
    return setup.fascists is None or sorted(params["fascist_seats"]) == sorted(setup.fascists)


_IDENTITIES: dict[str, tuple[str, str, str | None]] = {}
"""`rules_identity` by rules name: a folder of logs names a few rule sets many times."""


def rules_identity(rules: str, spec: Spec | None = None) -> tuple[str, str, str | None]:
    """The rules' own name, their content hash and, for a file of the user's, its path:
    what every verdict names beside the rules (spec/identity.py). `spec`: the rules
    already loaded under that name (a compiled game's), so they are not loaded again."""
    known = _IDENTITIES.get(rules)
    if known is None:
        spec = spec if spec is not None else load_spec(rules)
        known = _IDENTITIES[rules] = (spec.name, content_hash(spec), users_file(spec))
        if len(_IDENTITIES) > 256:
            _IDENTITIES.pop(next(iter(_IDENTITIES)))
    return known


def judge(transcript: Transcript) -> Judgement:
    """Judge a transcript; bad rules (an unknown variant) raise `SpecError`."""
    setup = transcript.setup
    game_id, source = transcript.game_id, transcript.source
    game = None if transcript.unsupported else compiled_game(setup.players, setup.rules)
    name, digest, file = rules_identity(setup.rules, None if game is None else game.spec)
    asked = transcript.asked_rules
    pinned = () if transcript.asked_rules is None else (
        f"the log names the rules {transcript.asked_rules}; judged by the rules given with --rules, {name}",)
    if transcript.unsupported:
        return Judgement(game_id, source, name, UNSUPPORTED, False, None, None,
                         reason=transcript.unsupported, notes=pinned + transcript.notes, rules_hash=digest,
                         rules_file=file, rules_asked=asked)
    assert game is not None
    notes = list(pinned + transcript.notes)
    worlds, error = _deal(game, setup, transcript.entries)
    violations: list[Violation] = []
    if error is not None:
        violations.append(Violation(error.rule_id, error.reason, setup.line, None, error.reason_de))
    dealt = len(worlds)
    steps: list[Step] = []
    for entry in transcript.entries:
        if violations:
            steps.append(Step(entry, NOT_JUDGED))
            continue
        survivors: list[_World] = []
        record: tuple[str, Move | None, Any, list[tuple[Any, Move]]] | None = None
        first_error: IllegalMove | None = None
        for world in worlds:
            try:
                outcome = _judge_entry(game, world, entry)
            except IllegalMove as problem:
                first_error = first_error or problem
                continue
            survivors.append(world)
            record = record or outcome
        if record is None:
            assert first_error is not None
            violation = Violation(first_error.rule_id, first_error.reason, entry.line, entry.ref, first_error.reason_de)
            violations.append(violation)
            steps.append(Step(entry, ILLEGAL, first_error.move, None, (), violation))
            continue
        status, move, before, implied = record
        steps.append(Step(entry, status, move, before, tuple(implied)))
        worlds = survivors
    complete, winner, how = False, None, None
    if not violations:
        for world in worlds:
            _run_forced(game, world)
        ends = {(game.winner(w.state), game.how(w.state)) for w in worlds if game.is_over(w.state)}
        over = sum(1 for w in worlds if game.is_over(w.state))
        complete = over == len(worlds)
        if complete and len(ends) == 1:
            winner, how = next(iter(ends))
        elif over:
            notes.append(f"whether and how the game ended depends on the hidden roles: it is over in {over} "
                         f"of the {len(worlds)} deals of roles the transcript allows")
        if dealt > 1:
            notes.append(f"roles or first President not given: judged in every deal the setup allows "
                         f"({dealt}); {len(worlds)} remain consistent with the transcript")
    verdict = ILLEGAL if violations else LEGAL
    if violations:
        complete, winner, how = False, None, None
    return Judgement(game_id, source, name, verdict, complete, winner, how, tuple(violations),
                     tuple(steps), None, tuple(notes), game, digest, file, asked)


def judge_file(path: str | Path, fmt: str = "auto", rules: str | None = None) -> Judgement:
    """Read a game file in a known format and judge it; `SpecError` if it is malformed.
    `rules` pins the rules it is judged by, whatever the log names (`judge --rules`)."""
    from .importers import read_game

    transcript = read_game(path, fmt, rules)
    try:
        return judge(transcript)
    except SpecError as error:
        if error.where is not None:
            raise
        raise SpecError(error.message, Location(str(path))) from None   # e.g. a move the pinned rules lack


def judge_benchmark(directory: str | Path, fmt: str = "secrethitler-io", seconds: float = 2.0) -> float:
    """Games judged per second on one core: every game file of `directory` (read, imported
    and judged) in rounds until `seconds` of CPU time have passed, after one warm-up round
    that compiles the rules."""
    from .importers import game_files

    files = game_files(Path(directory), fmt)
    if not files:
        raise SpecError(f"no game files in {directory} (expected {fmt} files)")
    for path in files:
        judge_file(path, fmt)
    games = 0
    start = time.process_time()
    while True:
        for path in files:
            judge_file(path, fmt)
        games += len(files)
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return games / elapsed
