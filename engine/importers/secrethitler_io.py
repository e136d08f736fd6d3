"""secrethitler.io game summaries (the site's GameSummary JSON) as transcripts.

A summary has one log entry per election (presidentId, chancellorId, votes, the hands,
the enacted policy, vetoes, the power used, the draw pile at the start of the election).
This module writes down, as moves, what each entry shows, and leaves out nothing the log
does not show; it derives only what the log leaves implicit and the rules determine:

- the vote's outcome: an entry whose government drew a hand was elected (`elect`, so a
  tie that still legislated is caught by R-E7); any other vote is resolved by its count;
- a dead seat's vote entry means nothing (the site keeps a value for every seat), so only
  living seats' votes are kept, the dead being those the log executed;
- the President's discard: the hand less the two tiles passed (the passed tiles are kept
  as evidence, so a Chancellor's hand that is not part of the President's is R-L2);
- on a failed election, an enacted policy is the chaos policy (the judge checks that the
  tracker was at three, R-E9), and after an accepted veto likewise;
- the draw pile of each entry (`deckState`, top first) becomes a `deck` observation, so
  the hands, chaos and peeks are checked against the pile's order (R-L1, R-E9, R-X5).

Everything else — the majority, the tracker, term limits, reshuffles, who is President
next (Special Elections included), whether a power was granted, whether Hitler was
elected, the end of the game and who won — is the judge's to derive from the rules and to
compare with what the log shows. The importer keeps no reading of its own of any of
these (the site's summaries record no winner): a mistake in such a reading would be a
false *illegal*. The site's names become the spec's moves in one table, `SITE_MOVES`.

The site's settings become rules: the rebalanced decks and tracks are variants
(spec/variants/), the two kinds of "no topdecking" too, and a custom game the `custom`
variant with its settings given inline (`custom[deck_fascist=19; ...]`, spec/settings.py). Settings outside the base game (Avalon and
Monarchist roles, the reverse-investigation and peek-and-drop powers) make the game
`unsupported`, with the reason.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from spec.errors import Location, SpecError, shown

from ..game import compiled_game
from ..safe_json import read_json
from ..words import seat_range
from ..transcript import DECK, TILE_NAMES, VOTE, Entry, Setup, Transcript

# ====================================================================== the site's moves
SITE_MOVES: dict[str, str] = {
    "chancellorId": "nominate",                  # the President's nominee
    "votes:legislated": "elect",                 # the votes of a government that drew a hand
    "presidentHand": "draw_hand",                # the three tiles drawn
    "chancellorHand": "president_discard",       # the two tiles passed (the discard is the third)
    "enactedPolicy": "enact",                    # the Chancellor's policy
    "enactedPolicy:chaos": "chaos",              # the policy after a failed election or an accepted veto
    "chancellorVeto": "propose_veto",
    "presidentVeto:true": "accept_veto",
    "presidentVeto:false": "refuse_veto",
    "investigationId": "investigate",
    "policyPeek": "policy_peek",
    "specialElection": "special_election",
    "execution": "execute",
}
"""The site's log fields as the moves of spec/rules/standard.toml: the one place outside
spec/ that names a rule (tests/test_roles.py checks that no other code does). A vote the
log does not show legislating is a `vote` entry: the judge resolves it by its count
(`Game.vote`, R-E7)."""
# ======================================================================

SITE_POWERS = {None: "none", "investigate": "investigate", "deckpeek": "peek", "election": "special_election",
               "bullet": "execution"}
"""The site's names of the Fascist-slot powers (customGameSettings.powers) in the spec's terms."""

UNSUPPORTED_POWERS = {
    "reverseinv": "the reverse-investigation power (a player is shown the President's membership)",
    "peekdrop": "the peek-and-drop power (the President may discard the top tile)",
}
BASE_ROLES = ("liberal", "fascist", "hitler")
NAMED_VARIANTS = ("rebalance6p", "rebalance7p", "rebalance9p")
"""Site settings that are variant files of spec/variants/ (the others are generated)."""

TOPDECKING_VARIANTS = {0: "standard", 1: "no_topdecking", 2: "no_topdecking_twice"}
"""gameSetting.noTopdecking: 1 the third failed election ends the game, 2 the second
chaos in a row (with no government elected in between) does."""


@dataclass(frozen=True, slots=True)
class Settings:
    """The numbers of a game the site lets a table set, in the spec's terms."""

    deck_liberal: int
    deck_fascist: int
    start_liberal_policies: int
    start_fascist_policies: int
    hitler_zone: int
    veto_zone: int
    ordinary_fascists: int
    board: tuple[str, ...]


def read_summary(path: str | Path) -> Transcript:
    """Read a GameSummary JSON file as a transcript; `SpecError` if it is malformed."""
    path = Path(path)
    return import_summary(read_json(path), str(path))


class _Reader:
    """Typed access to the summary with `SpecError`s that name the field."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, field: str, message: str) -> SpecError:
        return SpecError(message, Location(self.source, None, field))

    def seat(self, value: Any, players: int, field: str) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < players:
            raise self.fail(field, f"expected 0..{players - 1}, the number of a seat in the log (which counts from "
                                   f"0: seats {seat_range(players)} at the table), got {shown(value)}")
        return value

    def tiles(self, value: Any, field: str) -> list[str]:
        if value is None:
            return []
        if not isinstance(value, list) or not all(item in TILE_NAMES for item in value):
            raise self.fail(field, f"expected a list of 'liberal'/'fascist', got {shown(value)}")
        return value


def import_summary(data: Any, source: str = "<summary>") -> Transcript:
    """A GameSummary (parsed JSON) as a transcript whose refs are indexes into `logs`."""
    read = _Reader(source)
    if not isinstance(data, dict):
        raise read.fail("", "expected a GameSummary object")
    players_data = data.get("players")
    if not isinstance(players_data, list) or not players_data:
        raise read.fail("players", "expected the list of players")
    logs = data.get("logs")
    if not isinstance(logs, list) or not all(isinstance(log, dict) for log in logs):
        raise read.fail("logs", "expected the list of log entries")
    players = len(players_data)
    roles = [p.get("role") if isinstance(p, dict) else None for p in players_data]
    game_id = str(data.get("_id", Path(source).stem))
    unsupported = [f"role '{role}' is not a role of the base game" for role in sorted({str(r) for r in roles})
                   if role not in BASE_ROLES]
    rules, settings, reasons, notes = site_rules(data, players)
    unsupported += reasons
    hitler = roles.index("hitler") if roles.count("hitler") == 1 else None
    fascists = tuple(seat for seat, role in enumerate(roles) if role == "fascist")
    first = None
    if logs:
        first = read.seat(logs[0].get("presidentId"), players, "logs[0].presidentId")
    setup = Setup(players, rules, hitler, fascists if hitler is not None else None, first, game_id)
    if unsupported:
        return Transcript(setup, (), source, "; ".join(unsupported), tuple(notes))
    if hitler is None:
        raise read.fail("players", "expected exactly one player with role 'hitler'")
    assert settings is not None
    hand_size = compiled_game(players, rules).spec.constants["hand_size"]
    entries, log_notes = _entries(read, logs, players, hitler, hand_size, data)
    return Transcript(setup, tuple(entries), source, None, tuple(notes + log_notes))


# ---------------------------------------------------------------------- settings


def site_rules(data: dict[str, Any], players: int) -> tuple[str, Settings | None, list[str], list[str]]:
    """The rules a summary's settings call for: a rules name or overlay path, the numbers,
    the reasons the game is outside the spec (if any), and notes."""
    reasons: list[str] = []
    notes: list[str] = []
    setting = data.get("gameSetting") or {}
    if not isinstance(setting, dict):
        setting = {}
    if setting.get("avalonSH"):
        reasons.append("avalonSH: Merlin, Percival and Morgana and the assassination of Merlin are not the base game")
    if setting.get("monarchistSH"):
        reasons.append("monarchistSH: the Monarchist role is not the base game")
    if setting.get("rerebalance9p"):
        reasons.append("rerebalance9p: the site's first deck of this 9-player variant is not the one its "
                       "later reshuffles assume, so no rules describe it")
    topdecking = setting.get("noTopdecking") or 0
    base = TOPDECKING_VARIANTS.get(topdecking) if isinstance(topdecking, int) else None
    if base is None:
        reasons.append(f"noTopdecking = {topdecking!r} is not a setting the site documents")
        base = "standard"
    standard = _variant_settings(base, players)
    if standard is None:
        return base, None, reasons + [f"R-S1: the rules have no game of {players} players"], notes
    custom = data.get("customGameSettings")
    if isinstance(custom, dict) and custom.get("powers") is not None:
        settings, custom_reasons = _from_custom(custom)
        reasons += custom_reasons
        if not custom.get("enabled"):
            expected = _flag_settings(standard, setting, players)
            if settings is not None and settings != expected:
                reasons.append("customGameSettings disagree with the game's settings although custom settings "
                               f"are off: {_difference(expected, settings)}")
    else:
        settings = _flag_settings(standard, setting, players)
    if reasons or settings is None:
        return base, None, reasons, notes
    knows = bool(custom.get("hitKnowsFas")) if isinstance(custom, dict) and custom.get("enabled") else None
    return _rules_for(base, settings, players, knows), settings, [], notes


def _spec_settings(spec: Any, players: int) -> Settings:
    constants = spec.constants
    return Settings(constants["deck_liberal"], constants["deck_fascist"], constants["start_liberal_policies"],
                    constants["start_fascist_policies"], constants["hitler_zone"], constants["veto_zone"],
                    int(spec.tables["ordinary_fascists"][players]), tuple(spec.tables["board"][players]))


def _flag_settings(standard: Settings, setting: dict[str, Any], players: int) -> Settings:
    """The numbers the rebalance flags give (each applies only to its player count)."""
    values = _as_dict(standard)
    if setting.get("rebalance6p") and players == 6:
        values["start_fascist_policies"] += 1
    if (setting.get("rebalance7p") and players == 7) or (setting.get("rebalance9p") and players == 9):
        values["deck_fascist"] -= 1
    return Settings(**values)


def _from_custom(custom: dict[str, Any]) -> tuple[Settings | None, list[str]]:
    """The numbers of customGameSettings, or the reasons they are outside the spec."""
    try:
        powers = list(custom["powers"])
        deck, track = custom["deckState"], custom["trackState"]
        numbers = [deck["lib"], deck["fas"], track["lib"], track["fas"], custom["hitlerZone"], custom["vetoZone"],
                   custom["fascistCount"]]
    except (KeyError, TypeError):
        return None, ["customGameSettings lack deckState, trackState, hitlerZone, vetoZone, fascistCount or powers"]
    if not all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 100 for n in numbers):
        return None, [f"customGameSettings hold numbers that are not whole numbers 0..100: {numbers}"]
    reasons = [f"custom power '{p}': {UNSUPPORTED_POWERS[p]} is not in the base game"
               for p in powers if p in UNSUPPORTED_POWERS]
    unknown = [p for p in powers if p not in SITE_POWERS and p not in UNSUPPORTED_POWERS]
    if unknown or len(powers) != 5:
        reasons.append(f"custom powers {powers} are not five of {', '.join(str(k) for k in SITE_POWERS if k)}")
    if reasons:
        return None, reasons
    board = tuple(SITE_POWERS[p] for p in powers)
    deck_liberal, deck_fascist, start_liberal, start_fascist, hitler_zone, veto_zone, fascists = numbers
    return Settings(deck_liberal, deck_fascist, start_liberal, start_fascist, hitler_zone, veto_zone, fascists,
                    board), []


def _as_dict(settings: Settings) -> dict[str, Any]:
    return {name: getattr(settings, name) for name in Settings.__slots__}


def _difference(expected: Settings, actual: Settings) -> str:
    have, want = _as_dict(actual), _as_dict(expected)
    return ", ".join(f"{name} {have[name]!r} (expected {want[name]!r})" for name in want if have[name] != want[name])


SETTING_NAMES = {"deck_liberal": "deck_liberal", "deck_fascist": "deck_fascist",
                 "start_liberal_policies": "start_liberal", "start_fascist_policies": "start_fascist",
                 "hitler_zone": "hitler_zone", "veto_zone": "veto_zone", "ordinary_fascists": "fascists",
                 "board": "powers"}
"""Each number of `Settings` as the custom-game setting of spec/settings.py that sets it."""


def _rules_for(base: str, settings: Settings, players: int, hitler_knows: bool | None = None) -> str:
    """A rules name for the settings: the base, a named variant, or a variant with the
    settings that differ given inline, the loader's form for a custom game (an overlay
    made in memory, never a file). A custom game (`hitler_knows` given) is the `custom`
    variant with its settings, what Hitler knows included:
    `custom[deck_fascist=19; hitler_knows_fascists=true; hitler_zone=4; powers=...]`."""
    host = base
    if hitler_knows is not None and base == "standard" and _variant_settings("custom", players) is not None:
        host = "custom"
    standard = _variant_settings(host, players)
    assert standard is not None
    values: dict[str, Any] = {}
    if host == "custom" and hitler_knows != _hitler_knows_by_default(players):
        values["hitler_knows_fascists"] = hitler_knows
    if settings == standard and not values:
        return host
    if host == "standard":
        for name in NAMED_VARIANTS:
            if settings == _variant_settings(name, players):
                return name
    from spec.settings import settings_name

    have, want = _as_dict(settings), _as_dict(standard)
    values.update({SETTING_NAMES[key]: list(value) if isinstance(value, tuple) else value
                   for key, value in have.items() if value != want[key]})
    return settings_name(host, values)


@lru_cache(maxsize=None)
def _hitler_knows_by_default(players: int) -> bool | None:
    """Whether Hitler knows the Fascists in the `custom` variant unless a game says (R-S5)."""
    table = compiled_game(players, "custom").spec.tables.get("hitler_knows_fascists", {})
    value = table.get(players)
    return None if value is None else bool(value)


@lru_cache(maxsize=None)
def _variant_settings(name: str, players: int) -> Settings | None:
    """The numbers of a named rules file for a player count (None if it is not for it)."""
    try:
        return _spec_settings(compiled_game(players, name).spec, players)
    except SpecError:
        return None


# ---------------------------------------------------------------------- the logs


class _Stop(Exception):
    """The log ends inside an entry (only the last may): what it stops before, and the
    moves the entry recorded up to there."""

    def __init__(self, what: str, moves: list[Entry]) -> None:
        super().__init__(what)
        self.what, self.moves = what, moves


def _entries(read: _Reader, logs: list[dict[str, Any]], players: int, hitler: int, hand_size: int,
             data: dict[str, Any]) -> tuple[list[Entry], list[str]]:
    """The moves of the logs (`SITE_MOVES`) and notes."""
    entries: list[Entry] = []
    notes: list[str] = []
    dead: set[int] = set()
    last = len(logs) - 1
    for k, log in enumerate(logs):
        try:
            entries.extend(_log_entries(read, log, k, k == last, players, hand_size, dead, notes))
        except _Stop as stop:
            if k != last:
                raise read.fail(f"logs[{k}].presidentId", f"the log stops {stop.what}, but later log entries follow")
            entries.extend(stop.moves)
            notes.append(f"log {k}: the game stops {stop.what}")
            break
        execution = log.get("execution")
        if isinstance(execution, int):
            dead.add(execution)
            if execution != hitler and all(seat in dead or seat == hitler or seat in _fascist_seats(data)
                                           for seat in range(players)):
                notes.append(f"log {k}: no Liberal is left alive; the site ends a custom game there, the rules do not")
    return entries, notes


def _log_entries(read: _Reader, log: dict[str, Any], k: int, is_last: bool, players: int, hand_size: int,
                 dead: set[int], notes: list[str]) -> list[Entry]:
    """The moves of one log entry, a government from nomination to its powers; `_Stop`
    where the log ends inside it."""
    out: list[Entry] = []
    deck = read.tiles(log.get("deckState"), f"logs[{k}].deckState")
    if "deckState" in log:
        out.append(Entry(DECK, DECK, ref=k, tiles=tuple(deck)))
    president = read.seat(log.get("presidentId"), players, f"logs[{k}].presidentId")
    if log.get("chancellorId") is None:
        raise _Stop("before a Chancellor is nominated", out)
    chancellor = read.seat(log.get("chancellorId"), players, f"logs[{k}].chancellorId")
    out.append(Entry("move", SITE_MOVES["chancellorId"], {"chancellor": chancellor}, by=president, ref=k))
    votes = log.get("votes") or []
    if not isinstance(votes, list) or not all(isinstance(v, bool) for v in votes):
        raise read.fail(f"logs[{k}].votes", f"expected a list of true/false, got {shown(votes)}")
    if not votes:
        raise _Stop("before the vote", out)
    if len(votes) != players:
        raise read.fail(f"logs[{k}].votes", f"expected {players} votes, one per seat, got {len(votes)}")
    ja = [seat for seat in range(players) if seat not in dead and votes[seat]]
    hand = read.tiles(log.get("presidentHand"), f"logs[{k}].presidentHand")
    passed = read.tiles(log.get("chancellorHand"), f"logs[{k}].chancellorHand")
    enacted = log.get("enactedPolicy")
    if enacted is not None and enacted not in TILE_NAMES:
        raise read.fail(f"logs[{k}].enactedPolicy", f"expected 'liberal' or 'fascist', got {shown(enacted)}")
    legislated = bool(hand or passed or log.get("chancellorVeto") is True)
    out.append(Entry("move" if legislated else VOTE, SITE_MOVES["votes:legislated"] if legislated else VOTE,
                     {"ja": ja}, ref=k))
    if not legislated:
        if enacted is not None:
            out.append(Entry("move", SITE_MOVES["enactedPolicy:chaos"], {"tile": enacted}, ref=k))
    else:
        out.extend(_legislation(read, log, k, is_last, president, chancellor, hand, passed, enacted, hand_size,
                                notes, out))
    out.extend(_powers(read, log, k, players, president, hand_size))
    return out


def _legislation(read: _Reader, log: dict[str, Any], k: int, is_last: bool, president: int, chancellor: int,
                 hand: list[str], passed: list[str], enacted: str | None, hand_size: int, notes: list[str],
                 before: list[Entry]) -> list[Entry]:
    """An elected government's session (R-L2-R-L4, R-V1-R-V3): the President's hand and
    discard, the veto, the enacted policy; `_Stop` (with `before` and what was read) where
    the log ends inside it."""
    out: list[Entry] = []

    def stop(what: str) -> _Stop:
        return _Stop(what, before + out)

    if hand or passed:
        if len(hand) != hand_size:
            raise read.fail(f"logs[{k}].presidentHand", f"expected the {hand_size} tiles drawn, got {shown(hand)}")
        out.append(Entry("move", SITE_MOVES["presidentHand"], {"fascist_tiles": hand.count("fascist")}, ref=k,
                         tiles=tuple(hand)))
        if not passed:
            raise stop("before the President discards")
        out.append(Entry("move", SITE_MOVES["chancellorHand"], {"tile": _discard(hand, passed)}, by=president,
                         ref=k, passed=tuple(passed)))
    chancellor_veto, president_veto = log.get("chancellorVeto"), log.get("presidentVeto")
    if chancellor_veto is True:
        out.append(Entry("move", SITE_MOVES["chancellorVeto"], by=chancellor, ref=k))
        if president_veto is True:
            out.append(Entry("move", SITE_MOVES["presidentVeto:true"], by=president, ref=k))
            if enacted is not None:
                out.append(Entry("move", SITE_MOVES["enactedPolicy:chaos"], {"tile": enacted}, ref=k))
        elif president_veto is False:
            out.append(Entry("move", SITE_MOVES["presidentVeto:false"], by=president, ref=k))
            if enacted is not None:
                out.append(Entry("move", SITE_MOVES["enactedPolicy"], {"tile": enacted}, by=chancellor, ref=k))
        else:
            raise stop("before the President answers the veto")
    elif enacted is not None:
        out.append(Entry("move", SITE_MOVES["enactedPolicy"], {"tile": enacted}, by=chancellor, ref=k))
    elif not is_last:
        # Summaries written before vetoes were recorded: the site reads an elected
        # government that enacted nothing as a veto proposed and accepted.
        notes.append(f"log {k}: no policy enacted and no veto recorded: read as an accepted veto")
        out.append(Entry("move", SITE_MOVES["chancellorVeto"], by=chancellor, ref=k))
        out.append(Entry("move", SITE_MOVES["presidentVeto:true"], by=president, ref=k))
    else:
        notes.append(f"log {k}: the game stops before the Chancellor enacts")
    return out


def _powers(read: _Reader, log: dict[str, Any], k: int, players: int, president: int,
            hand_size: int) -> list[Entry]:
    """The executive actions an entry records, as moves by the President who used them."""
    out = []
    if log.get("investigationId") is not None:
        target = read.seat(log["investigationId"], players, f"logs[{k}].investigationId")
        investigator = log.get("investigatorId")
        by = president if investigator is None else read.seat(investigator, players, f"logs[{k}].investigatorId")
        out.append(Entry("move", SITE_MOVES["investigationId"], {"target": target}, by=by, ref=k))
    peek = read.tiles(log.get("policyPeek"), f"logs[{k}].policyPeek")
    if peek:
        if len(peek) != hand_size:
            raise read.fail(f"logs[{k}].policyPeek", f"expected the {hand_size} tiles seen, got {shown(peek)}")
        out.append(Entry("move", SITE_MOVES["policyPeek"], {"top": peek}, ref=k))
    if log.get("specialElection") is not None:
        candidate = read.seat(log["specialElection"], players, f"logs[{k}].specialElection")
        out.append(Entry("move", SITE_MOVES["specialElection"], {"candidate": candidate}, by=president, ref=k))
    if log.get("execution") is not None:
        target = read.seat(log["execution"], players, f"logs[{k}].execution")
        out.append(Entry("move", SITE_MOVES["execution"], {"target": target}, by=president, ref=k))
    return out


def _discard(hand: list[str], passed: list[str]) -> str:
    """The tile the President discarded: the hand less the tiles passed. When the passed
    tiles are not part of the hand, a tile that is not passed (the judge then finds the
    passed tiles wrong, R-L2)."""
    rest = Counter(hand) - Counter(passed)
    for tile in hand:
        if rest[tile]:
            return tile
    return hand[0]


def _fascist_seats(data: dict[str, Any]) -> set[int]:
    return {seat for seat, player in enumerate(data.get("players", []))
            if isinstance(player, dict) and player.get("role") == "fascist"}
