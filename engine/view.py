"""A seat's view of a played game: what one player was shown, round by round (`shrules view`).

A game is read in any of the formats the project reads — a transcript or a
secrethitler.io log (through the judge, engine/judge.py) or an ITF trace (through
`replay_itf`) — and replayed by the engine. What the seat saw then comes from the rules
alone (engine/observe.py): the move's rule and the public fields after it, which every
seat sees, and each `shows` entry (and a rule's `reveals`) whose `to` holds the seat, with
the rule ID it cites (RULES.md R-S5, R-L1-R-L4, R-X3, R-X5). Nothing else of the state is
read for the seat: a move's sentence (`says`) is shown only when every name it reads is
public or shown to the seat, else the move's public name stands in for it.

A log may leave hidden facts out: a transcript without roles is judged in every deal it
allows (engine/judge.py) and replayed here in the first of them. Whatever depends on the
deal — the seat's role, its teammates, an investigation's party the log does not state,
and whether the seat is shown such a value at all — is then "not recorded", never taken
from that one deal.
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from spec.errors import SpecError, shown
from spec.lang.nodes import Name, Node, walk
from spec.lang.types import Type
from spec.observations import VIEWER as OBSERVER
from spec.model import Rule

from .game import Game, Move, State
from .judge import ILLEGAL, LEGAL, UNSUPPORTED, judge
from .observe import observer
from .pycompile import compile_expression
from .trace import replay_itf
from .transcript import DECK, Transcript
from .words import named, seat_shown, word

FORMATS = ("auto", "native", "secrethitler-io", "itf")
"""The formats `shrules view` reads: the judge's two and the ITF traces `replay` reads."""

TRACKS = (("liberal_policies", "liberal_track_length"), ("fascist_policies", "fascist_track_length"),
          ("election_tracker", "tracker_limit"))
"""The public fields of the trackers on the table and the constants that bound them: a line
shows them whenever a move changes one (R-L3, R-L6, R-E8)."""

WIDTH = 100
"""The width the table's public part is wrapped to."""

VIEWER = frozenset({OBSERVER})
"""The name a `shows` entry reads for the seat it is shown to (spec/observations.py)."""

HAND_SIZES = {"fascist_tiles": "hand_size", "chancellor_hand": "chancellor_hand_size", "hand": "hand_tiles"}
"""What a shown count of Fascist tiles is counted out of (a constant or a definition of the
rules): the President's hand, the two tiles passed, the hand a seat holds now."""


class Unsupported(Exception):
    """A game the rules cannot express (Avalon roles, 3 players): nothing to replay."""


@dataclass(frozen=True, slots=True)
class Played:
    """A game replayed by the engine: every move with the states around it."""

    game: Game
    game_id: str
    source: str
    steps: tuple[tuple[State, Move, State, str | None], ...]   # before, move, after, the log's party
    roles_recorded: bool
    notes: tuple[str, ...] = ()
    stopped: bool = False          # the end depends on roles the log does not record


@dataclass(frozen=True, slots=True)
class Seen:
    """One thing a seat saw: the move's rule, the rule ID that lets it see it, what it is (a
    `shows` entry's name, `move` for the move itself, `tracks` for the trackers after it),
    its value (seats from 0, as in the machine formats) and the line a person reads."""

    rule: str
    rule_id: str
    what: str
    value: Any
    text: str
    public: bool = True
    recorded: bool = True

    def to_json(self) -> dict[str, Any]:
        """The observation as `shrules view --json` gives it (docs/reference/view.md)."""
        return {"rule": self.rule, "rule_id": self.rule_id, "what": self.what, "value": self.value,
                "public": self.public, "recorded": self.recorded, "text": self.text}


@dataclass(slots=True)
class Round:
    """A round of the game as a seat saw it (round 0: the deal, before the first nomination)."""

    number: int
    president: int | None
    seen: list[Seen] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class History:
    """What a seat saw of a whole game, and its view at the end."""

    played: Played
    seat: int
    lang: str
    rounds: tuple[Round, ...]
    public: tuple[tuple[str, Any], ...]
    items: tuple[tuple[str, str, Any, bool], ...]       # name, rule ID, value, recorded
    moves: tuple[tuple[str, tuple[int, ...]], ...]

    def lines(self) -> list[str]:
        """The history in words, round by round, then the seat's view now."""
        game, lang = self.played.game, self.lang
        out = [word(lang, "view_header", seat=seat_shown(self.seat), game=self.played.game_id,
                    source=self.played.source, players=game.players, rules=game.spec.name)]
        if not self.played.roles_recorded:
            out.append("  " + word(lang, "view_roles_unknown"))
        for round_ in self.rounds:
            if round_.number == 0:
                out.append(word(lang, "view_before"))
            else:
                out.append(word(lang, "round", number=round_.number, seat=seat_shown(round_.president or 0)))
            for seen in round_.seen:
                if seen.text:
                    out.append(("  " if seen.what == "move" else "      ") + seen.text)
        end = self.played.steps[-1][2] if self.played.steps else game.initial_state()
        if self.played.stopped:
            out.append(word(lang, "view_stopped"))
        elif game.is_over(end):
            winner = game.winner(end)
            out.append(word(lang, "over_none") if winner is None else word(
                lang, "over", winner=named(lang, "team", winner), how=named(lang, "how", str(game.how(end)))))
        out.append(word(lang, "view_now", seat=seat_shown(self.seat)))
        public = word(lang, "view_public") + "; ".join(f"{_label(name, lang)}: {text}"
                                                       for name, text in self._public_words())
        out.extend(textwrap.wrap(public, WIDTH, initial_indent="  ", subsequent_indent="    ",
                                 break_on_hyphens=False))
        for name, rule_id, value, recorded in self.items:
            text = _item_text(game, name, value, recorded, lang, end)
            out.append(f"  {text} [{rule_id}]")
        out.extend("  " + line for line in self._move_lines())
        return out

    def _public_words(self) -> list[tuple[str, str]]:
        game = self.played.game
        types = _public_types(game)
        return [(name, _value_text(game, types[name], value, self.lang)) for name, value in self.public]

    def _move_lines(self) -> list[str]:
        game, lang = self.played.game, self.lang
        if not self.moves:
            return [word(lang, "view_no_moves")]
        lines = []
        by_rule: dict[str, list[tuple[int, ...]]] = {}
        for rule, args in self.moves:
            by_rule.setdefault(rule, []).append(args)
        for rule_name, choices in by_rule.items():
            if rule_name.startswith("table:"):
                lines.append(word(lang, "view_may_vote"))
                continue
            chosen = game.by_name[rule_name].rule
            if len(chosen.params) == 1 and chosen.params[0].type.kind == "seat":     # the seats to choose from
                what = _value_text(game, Type("seats"), [args[0] for args in choices], lang)
                lines.append(word(lang, "view_may", move=_move_name(chosen, lang) + ": " + what)
                             + f" [{', '.join(chosen.cited)}]")
                continue
            what = "; ".join(", ".join(_value_text(game, param.type, value, lang)
                                       for param, value in zip(chosen.params, game.params_of(Move(rule_name, args))
                                                               .values()))
                             for args in choices if args)
            name = _move_name(chosen, lang)
            lines.append(word(lang, "view_may", move=name + (": " + what if what else ""))
                         + f" [{', '.join(chosen.cited)}]")
        return lines

    def to_json(self) -> dict[str, Any]:
        """The history as `shrules view --json` gives it (docs/reference/view.md)."""
        game = self.played.game
        end = self.played.steps[-1][2] if self.played.steps else game.initial_state()
        over = game.is_over(end) and not self.played.stopped
        return {
            "game": self.played.game_id, "source": self.played.source, "rules": game.spec.name,
            "players": game.players, "seat": self.seat, "roles_recorded": self.played.roles_recorded,
            "rounds": [{"round": r.number, "president": r.president, "observations": [s.to_json() for s in r.seen]}
                       for r in self.rounds],
            "over": over, "winner": game.winner(end) if over else None, "how": game.how(end) if over else None,
            "stopped": self.played.stopped,
            "view": {"public": dict(self.public),
                     "items": [{"name": name, "rule_id": rule_id, "value": value, "recorded": recorded}
                               for name, rule_id, value, recorded in self.items],
                     "moves": [{"rule": rule.removeprefix("table:"), "table": rule.startswith("table:"),
                                "params": {} if rule.startswith("table:") else
                                game.params_of(Move(rule, args))} for rule, args in self.moves]},
            "notes": list(self.played.notes),
        }

    def text(self) -> str:
        """`lines` joined."""
        return "\n".join(self.lines())

    def dumps(self) -> str:
        """The JSON of `to_json` as one string."""
        return json.dumps(self.to_json(), ensure_ascii=False)


# ---------------------------------------------------------------------- reading a game


def detect(path: Path) -> str:
    """The format of a game file: `.jsonl` a transcript; `.json` an ITF trace when it has
    ITF's `states` and `vars`, else a secrethitler.io summary."""
    if path.name.endswith(".jsonl"):
        return "native"
    if path.name.endswith(".json"):
        try:
            with path.open("rb") as handle:
                head = handle.read(4096).decode("utf-8", errors="replace")
        except OSError as error:
            raise SpecError(f"{path}: cannot read: {error.strerror}") from None
        return "itf" if '"vars"' in head and '"states"' in head or '"format": "ITF"' in head else "secrethitler-io"
    raise SpecError(f"{path}: cannot tell the format from the file name; expected .jsonl (a transcript) or "
                    f".json (an ITF trace or a secrethitler.io summary), or give --format")


def read_played(path: str | Path, fmt: str = "auto", rules: str | None = None) -> Played:
    """A game file replayed by the engine; `SpecError` for malformed input, an illegal game
    or a trace that does not replay; `Unsupported` for a game the rules cannot express."""
    from .importers import read_game

    path = Path(path)
    if fmt == "auto":
        fmt = detect(path)
    if fmt == "itf":
        return _played_trace(path, rules)
    if fmt not in FORMATS:
        raise SpecError(f"unknown format {shown(fmt)}; expected {', '.join(FORMATS)}")
    return played_transcript(read_game(path, fmt, rules))


def _played_trace(path: Path, rules: str | None) -> Played:
    result = replay_itf(path, rules)
    if not result.ok:
        raise SpecError(f"{path}: the trace does not replay: {result.message}")
    trace = result.trace
    game = trace.game
    steps, before = [], trace.start
    for move, after in trace.steps:
        steps.append((before, move, after, None))
        before = after
    if not steps or "deal" not in game.by_name[steps[0][1].rule].rule.roles:
        raise SpecError(f"{path}: the trace does not start with the deal; a seat's view starts there (R-S5)")
    return Played(game, path.stem, str(path), tuple(steps), True)


def played_transcript(transcript: Transcript) -> Played:
    """A transcript judged and replayed: the deal and the first President of its setup, then
    every move the judge ran, the game's forced moves included."""
    judgement = judge(transcript)
    if judgement.verdict == UNSUPPORTED:
        raise Unsupported(f"{transcript.source}: unsupported: {judgement.reason}")
    if judgement.verdict == ILLEGAL:
        first = judgement.violations[0]
        where = ", ".join(part for part in (f"line {first.line}" if first.line is not None else "",
                                            f"log {first.ref}" if first.ref is not None else "") if part) or "setup"
        raise SpecError(f"{transcript.source}: {where}: the game is illegal ({first.rule_id}: {first.message}); "
                        f"a seat's view follows legal play only (`shrules judge` says more)")
    game = judgement.game
    assert game is not None
    setup = transcript.setup
    roles_recorded = setup.hitler is not None and setup.fascists is not None
    first_move = next((entry for entry in transcript.entries if entry.kind != DECK), None)
    nominations = {rule.name for rule in game.spec.with_role("nomination")}
    if setup.first_president is None and (first_move is None or first_move.rule not in nominations
                                          or first_move.by is None):
        raise SpecError(f"{transcript.source}: the log records neither the first President (R-S6) nor who made "
                        f"the first nomination; every round's President rests on it, so a seat's view cannot be "
                        f"shown without inventing it (give first_president in the setup)")
    moved: list[tuple[State, Move, str | None]] = []
    for step in judgement.steps:
        if step.status != LEGAL:
            continue
        moved.extend((before, move, None) for before, move in step.implied)
        if step.move is not None and step.before is not None:
            moved.append((step.before, step.move, step.entry.party))
    start = moved[0][0] if moved else None
    steps = _deal_steps(game, start, setup.hitler, setup.fascists, setup.first_president)
    # Without roles the judge's moves come from the deals still possible at each line, which
    # differ in the roles alone: they are replayed here in one deal, and followed on what the
    # table sees (with roles, on the whole state).
    state = steps[-1][2]
    public = observer(game).public
    for before, move, party in moved:
        if (before != state) if roles_recorded else (public(before) != public(state)):
            raise AssertionError(f"the judge's moves do not follow one another at {move.rule}")
        after = game.by_name[move.rule].effect(state, *move.args)
        steps.append((state, move, after, party))
        state = after
    stopped = False
    role_names = _role_names(game)
    forced = game.forced_move(state)
    while forced is not None:
        rules = game.by_phase[game.phase_names.index(game.phase(state))]
        if not roles_recorded and any(_reads(requirement.when, role_names, game)
                                      for compiled in rules for requirement in compiled.rule.requires):
            # Which forced move comes rests on the roles: only the end the judge found in
            # every deal still possible may be shown.
            ending = [Move(compiled.rule.name, ()) for compiled in rules if judgement.complete
                      and _ends(game, compiled.effect(state), judgement.winner, judgement.how)]
            if not ending:
                stopped = True
                break
            forced = ending[0]
        after = game.by_name[forced.rule].effect(state, *forced.args)
        steps.append((state, forced, after, None))
        state, forced = after, game.forced_move(after)
    return Played(game, judgement.game_id, judgement.source, tuple(steps), roles_recorded,
                  judgement.notes, stopped)


def _ends(game: Game, state: State, winner: str | None, how: str | None) -> bool:
    return game.is_over(state) and game.winner(state) == winner and game.how(state) == how


def _deal_steps(game: Game, start: State | None, hitler: int | None, fascists: tuple[int, ...] | None,
                first: int | None) -> list[tuple[State, Move, State, str | None]]:
    """The deal and the first President as moves: as the setup gives them, or (where it
    leaves them out) as in the deal the judge replayed first, whose role-dependent values
    the view then never shows."""
    deal, opening = game.spec.role_rule("deal"), game.spec.role_rule("opening")
    initial = game.initial_state()
    if start is not None:                   # the deal of the state the judge's first move starts from
        params = {}
        for name, node in deal.effect:
            if isinstance(node, Name) and node.kind == "param":
                index = game.field_names.index(name)
                kind = game.spec.fields[index].type
                params[node.name] = game.decode(kind.kind, kind.enum, start[index])
        move = game.move(deal.name, **params)
        first = start[game.field_names.index(opening_field(game))]
    elif hitler is not None and fascists is not None:
        move = game.move(deal.name, hitler_seat=hitler, fascist_seats=list(fascists))
    else:                                   # no move at all: any deal the setup allows
        move = next(m for m in game.legal_moves(initial) if m.rule == deal.name)
    dealt = game.apply(initial, move)
    assert first is not None
    opened = game.move(opening.name, **{opening.params[0].name: first})
    return [(initial, move, dealt, None), (dealt, opened, game.apply(dealt, opened), None)]


# ---------------------------------------------------------------------- what a seat saw


def seat_history(played: Played, seat: int, lang: str = "en") -> History:
    """What `seat` (from 0) saw of the game, round by round, and its view at the end."""
    game = played.game
    if not 0 <= seat < game.players:
        raise SpecError(f"--seat {seat_shown(seat)}: the game has {game.players} seats, "
                        f"{seat_shown(0)} to {seat_shown(game.players - 1)}")
    watcher = _Watcher(played, seat, lang)
    rounds = [Round(0, None)]
    nominations = {rule.name for rule in game.spec.with_role("nomination")}
    for before, move, after, party in played.steps:
        if move.rule in nominations:
            rounds.append(Round(len(rounds), int(before[game.field_names.index(opening_field(game))])))
        rounds[-1].seen.extend(watcher.move(before, move, after, party))
    end = played.steps[-1][2] if played.steps else game.initial_state()
    view = observer(game).view(end, seat)
    public = _public(game, end)
    items = watcher.items(end)
    moves = () if played.stopped else view.moves
    return History(played, seat, lang, tuple(rounds), public, items, moves)


@dataclass(frozen=True, slots=True)
class _Entry:
    """One `shows` entry (or reveal) of a move shown to the seat."""

    name: str
    rule_id: str
    node: Node
    value: Any
    public: bool
    recorded: bool
    maybe: bool = False             # whether the seat is shown it rests on an unrecorded deal


class _Watcher:
    """The seat's eye on each move: what the rules show it, in words and as data."""

    def __init__(self, played: Played, seat: int, lang: str) -> None:
        self.game, self.seat, self.lang = played.game, seat, lang
        self.recorded = played.roles_recorded
        self.observer = observer(self.game)
        self.roles = _role_names(self.game)
        self.everyone = (1 << self.game.players) - 1
        self.public_fields = set(self.game.spec.seen_fields("public"))
        self.public_nodes = tuple(self.game.spec.public.values())

    def _unknown(self, node: Node, rule: Rule | None = None) -> bool:
        """Whether a value rests on the deal the log does not record."""
        return not self.recorded and _reads(node, self.roles, self.game, rule)

    def move(self, before: State, move: Move, after: State, party: str | None) -> list[Seen]:
        """What the seat saw of one move: the move (its sentence where the seat may read all
        of it, else its public name), each entry shown to it, and the trackers it changed."""
        game, lang = self.game, self.lang
        rule = game.by_name[move.rule].rule
        entries = self._entries(before, move, after, party, rule)
        known = self._known_params(before, move, rule)
        holes = [node for _, node in rule.says.holes] if rule.says is not None else []
        tell = rule.says is not None and all(self._knowable(node, known, rule) for node in holes)
        told = {node.name for hole in holes for node in walk(hole) if isinstance(node, Name) and node.kind == "param"}
        if rule.quiet and all(entry.public for entry in entries):
            return []
        folded = [entry for entry in entries
                  if entry.public or (tell and entry.recorded and _bare_param(entry.node) in told)]
        ids = list(dict.fromkeys(entry.rule_id for entry in folded)) or list(rule.cited)
        who = word(lang, "chance") if rule.actor == "chance" else ""
        sentence = game.says(before, move, lang) if tell else _move_name(rule, lang)
        mark = word(lang, "view_to_you") if any(not entry.public for entry in folded) else ""
        out = [Seen(move.rule, ids[0], "move", None, f"{who}{sentence} [{', '.join(ids)}]{mark}")]
        for entry in entries:
            text = "" if entry in folded else _shown_text(game, rule.name, entry, lang, before)
            if text and entry.maybe:
                text = word(lang, "view_if_shown") + text
            out.append(Seen(move.rule, entry.rule_id, entry.name, _json(entry.value),
                            f"{text} [{entry.rule_id}]" if text else "", entry.public, entry.recorded))
        tracks = self._tracks(before, after)
        if tracks is not None:
            values, text = tracks
            out.append(Seen(move.rule, ids[0], "tracks", values, text))
        return out

    def _entries(self, before: State, move: Move, after: State, party: str | None, rule: Rule) -> list[_Entry]:
        """The rule's `shows` entries (and reveals) shown to the seat, with their values; an
        entry resting on a deal the log does not record, as not recorded."""
        game, out = self.game, []
        for item in self.observer.shows[move.rule]:
            show = item.show
            if show is None:                    # a reveal: to the actor alone (R-X3)
                node = dict(rule.reveals)[item.name]
                if not item.to(before, *move.args) >> self.seat & 1:
                    continue
                if self._unknown(node, rule):
                    out.append(_Entry(item.name, rule.actor_rule, node, party, False, party is not None))
                else:
                    value = item.what(before, after, *move.args, self.seat)
                    out.append(_Entry(item.name, rule.actor_rule, node,
                                      game.decode(node.type.kind, node.type.enum, value), False, True))
                continue
            name = _entry_name(show.what, show.what.type)
            if self._unknown(show.to, rule):
                out.append(_Entry(name, show.rule_id, show.what, None, False, False, True))
                continue
            mask = item.to(before, *move.args)
            if not mask >> self.seat & 1:
                continue
            if self._unknown(show.what, rule):
                out.append(_Entry(name, show.rule_id, show.what, None, False, False))
                continue
            value = item.what(before, after, *move.args, self.seat)
            public = mask == self.everyone and not _reads(show.what, VIEWER, game, rule)   # each seat its own role
            out.append(_Entry(name, show.rule_id, show.what,
                              game.decode(show.what.type.kind, show.what.type.enum, value), public, True))
        return out

    def _known_params(self, before: State, move: Move, rule: Rule) -> set[str]:
        """The move's parameters shown to the seat as they are: an entry whose `what` is the
        parameter itself. (An entry's `of` is not enough: each seat's own role is `of` the
        whole deal, yet it shows a Liberal no other seat's role.)"""
        out: set[str] = set()
        for item in self.observer.shows[move.rule]:
            show = item.show
            bare = _bare_param(show.what) if show is not None else None
            if show is None or bare is None or self._unknown(show.to, rule) or self._unknown(show.what, rule):
                continue
            if item.to(before, *move.args) >> self.seat & 1:
                out.add(bare)
        return out

    def _knowable(self, node: Node, known: set[str], rule: Rule, depth: int = 0) -> bool:
        """Whether the seat may read everything `node` reads: public fields and counts,
        constants, and the parameters shown to it."""
        if any(node == count for count in self.public_nodes) or depth > 50:
            return depth <= 50
        if isinstance(node, Name):
            if node.kind == "param":
                return node.name in known
            if node.kind in ("field", "after"):
                name = node.name.removeprefix("after_") if node.kind == "after" else node.name
                return name in self.public_fields
            if node.kind == "let":
                return self._knowable(dict(rule.lets)[node.name], known, rule, depth + 1)
            if node.kind == "definition":
                return self._knowable(self.game.spec.definitions[node.name], known, rule, depth + 1)
            return True
        from spec.lang.nodes import children

        return all(self._knowable(child, known, rule, depth + 1) for child in children(node))

    def _tracks(self, before: State, after: State) -> tuple[dict[str, int], str] | None:
        names = self.game.field_names
        if not all(field_name in names and bound in self.game.values for field_name, bound in TRACKS):
            return None
        if all(before[names.index(f)] == after[names.index(f)] for f, _ in TRACKS):
            return None
        values = {f: int(after[names.index(f)]) for f, _ in TRACKS}
        bounds = [self.game.values[bound] for _, bound in TRACKS]
        text = word(self.lang, "view_tracks", liberal=values[TRACKS[0][0]], liberal_max=bounds[0],
                    fascist=values[TRACKS[1][0]], fascist_max=bounds[1], tracker=values[TRACKS[2][0]],
                    tracker_max=bounds[2])
        return values, text

    def items(self, state: State) -> tuple[tuple[str, str, Any, bool], ...]:
        """The `[view]` items the seat is shown now; an item resting on an unrecorded deal
        as not recorded."""
        out = []
        for item, to, what in self.observer.view_items:
            if self._unknown(item.to) or self._unknown(item.what):
                out.append((item.name, item.rule_id, None, False))
            elif to(state) >> self.seat & 1:
                value = self.game.decode(item.what.type.kind, item.what.type.enum, what(state, self.seat))
                out.append((item.name, item.rule_id, _json(value), True))
        return tuple(out)


# ---------------------------------------------------------------------- words


def _entry_name(node: Node, kind: Type) -> str:
    """A `shows` entry's name: the parameter or field it shows, else its type's name."""
    bare = _bare_param(node)
    if bare is not None:
        return bare
    if isinstance(node, Name) and node.kind == "after":
        return node.name.removeprefix("after_")
    return kind.enum or kind.kind


def _bare_param(node: Node | None) -> str | None:
    return node.name if isinstance(node, Name) and node.kind == "param" else None


def _move_name(rule: Rule, lang: str) -> str:
    """The move's public name: its summary, first letter lower-case."""
    from .words import move_name

    return move_name(rule, lang)


def _shown_text(game: Game, rule: str, entry: _Entry, lang: str, state: State) -> str:
    """A shown value in words: the frame's sentence for it (by rule and name, or by name),
    else the name and the value."""
    name, kind, value, recorded = entry.name, entry.node.type, entry.value, entry.recorded
    if not recorded:
        text = word(lang, "view_not_recorded")
    elif name in HAND_SIZES and kind.kind == "int":
        size = _size(game, HAND_SIZES[name], state)
        return word(lang, _key(lang, rule, name), fascist=value, liberal=size - int(value))
    else:
        text = _value_text(game, kind, value, lang)
    return word(lang, _key(lang, rule, name), value=text, name=name)


def _key(lang: str, rule: str, name: str) -> str:
    from .words import FRAME

    table = FRAME.get(lang, FRAME["en"])
    for key in (f"shown_{rule}_{name}", f"shown_{name}"):
        if key in table:
            return key
    return "shown"


def _item_text(game: Game, name: str, value: Any, recorded: bool, lang: str, state: State) -> str:
    """A `[view]` item in words."""
    item = next(item for item in game.spec.view if item.name == name)
    kind = item.what.type
    if recorded and name in HAND_SIZES and kind.kind == "int":
        size = _size(game, HAND_SIZES[name], state)
        return word(lang, _item_key(lang, name), fascist=value, liberal=size - int(value))
    text = _value_text(game, kind, value, lang) if recorded else word(lang, "view_not_recorded")
    return word(lang, _item_key(lang, name), value=text, name=name)


def _item_key(lang: str, name: str) -> str:
    from .words import FRAME

    return f"item_{name}" if f"item_{name}" in FRAME.get(lang, FRAME["en"]) else "shown"


def _size(game: Game, name: str, state: State) -> int:
    if name in game.values:
        return int(game.values[name])    # type: ignore[arg-type]
    function: Callable[..., Any] = compile_expression(game.spec, game.players, game.spec.definitions[name])
    return int(function(state))


def _value_text(game: Game, kind: Type, value: Any, lang: str) -> str:
    """A decoded value as the table says it: seats from 1, tiles and roles in words."""
    if value is None:
        return word(lang, "none")
    if kind.kind == "seat":
        return word(lang, "view_seat", seat=seat_shown(int(value)))
    if kind.kind == "seats":
        if not value:
            return word(lang, "none")
        if len(value) == 1:
            return word(lang, "view_seat", seat=seat_shown(int(value[0])))
        return word(lang, "view_seats", seats=", ".join(str(seat_shown(int(seat))) for seat in value))
    if kind.kind == "bool":
        return word(lang, "view_yes" if value else "view_no")
    if isinstance(value, list):
        return ", ".join(_name_word(game, str(item), lang, kind.enum) for item in value) or word(lang, "none")
    if isinstance(value, str):
        return _name_word(game, value, lang, kind.enum)
    return str(value)


def _name_word(game: Game, name: str, lang: str, enum: str | None) -> str:
    """An enum member (a tile, a role, a power) in words: the frame's word for it, in
    German else `[values_de]`, else the rules' own name."""
    from .words import FRAME

    table = FRAME.get(lang, FRAME["en"])
    for key in (f"value_{enum}_{name}", f"{enum}_{name}", f"value_{name}"):
        if key in table:
            return table[key]
    if lang == "en":
        return name
    return game.spec.values_de.get(name, f"'{name}'")     # a name of the rules, quoted as the judge does


def _label(name: str, lang: str) -> str:
    from .words import FRAME

    return FRAME.get(lang, FRAME["en"]).get(f"public_{name}", name)


def _public(game: Game, state: State) -> tuple[tuple[str, Any], ...]:
    """The public fields and counts of a state, decoded (seats from 0)."""
    obs = observer(game)
    values = obs.public(state)
    types = _public_types(game)
    out = []
    for name, value in zip((*obs.public_fields, *obs.count_names), values):
        kind = types[name]
        out.append((name, _json(game.decode(kind.kind, kind.enum, value) if name in obs.public_fields
                                else value)))
    return tuple(out)


def _public_types(game: Game) -> dict[str, Type]:
    types = {field_spec.name: field_spec.type for field_spec in game.spec.fields}
    types.update({name: node.type for name, node in game.spec.public.items()})
    return types


def _json(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_json(item) for item in value]
    if isinstance(value, list):
        return [_json(item) for item in value]
    return value


def opening_field(game: Game) -> str:
    """The field the first President is set in: the one the opening rule's parameter sets
    (`president`), which names the President of every round after."""
    opening = game.spec.role_rule("opening")
    return next(name for name, node in opening.effect
                if isinstance(node, Name) and node.kind == "param" and node.name == opening.params[0].name)


def _role_names(game: Game) -> frozenset[str]:
    """What the deal decides: its parameters and the hidden fields its effect sets."""
    deal = game.spec.role_rule("deal")
    hidden = set(game.spec.seen_fields("hidden"))
    return frozenset({param.name for param in deal.params} | {name for name, _ in deal.effect if name in hidden})


def _reads(node: Node, names: frozenset[str], game: Game, rule: Rule | None = None) -> bool:
    """Whether `node` reads any of `names` (fields, `after_` fields, parameters), through
    the definitions and the rule's lets."""
    stack, expanded = [node], set()
    lets = dict(rule.lets) if rule is not None else {}
    while stack:
        for item in walk(stack.pop()):
            if not isinstance(item, Name):
                continue
            name = item.name.removeprefix("after_") if item.kind == "after" else item.name
            if item.kind in ("field", "after", "param") and name in names:
                return True
            if item.kind == "definition" and name not in expanded:
                expanded.add(name)
                stack.append(game.spec.definitions[name])
            elif item.kind == "let" and name in lets and name not in expanded:
                expanded.add(name)
                stack.append(lets[name])
    return False
