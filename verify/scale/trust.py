"""Verdicts read back from elsewhere (the task cache, the mutation cache, an atlas, a
worker), believed only as far as they can be checked here.

Whoever can write a kept file can write any verdict into it, with the right key. So a kept
or imported verdict is never taken for what it says:

- its stamp (the rules' content hash at the count, the count, the properties' text, the
  code version: tasks.py `stamp`) must be this run's, else it is a miss;
- a refutation or a witness is replayed through the engine from the moves kept with it,
  and the game must show what is claimed (the property fires on one of its states or
  moves, the last state is a deadlock, the game comes back to a state): a game that does
  not replay or shows nothing is a miss, with a warning;
- what no game can show (proved, no witness, unknown, a minimum or a longest game, an
  equivalent mutant) is believed only from a file the user owns and no one else can write
  (spec.files.untrusted_because); from any other it is computed again, after one warning
  line saying why.

Nothing here runs anything a file says: entries are JSON data, and a game is only ever
moves handed to the engine, which checks each one.
"""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.game import Game, IllegalMove, compiled_game
from engine.propcheck import compile_allowances, compile_checks
from engine.trace import Trace
from spec.errors import SpecError, shown
from spec.properties import PERMISSIONS, Property

from ..explicit.codec import Codec, OutOfRange
from ..explicit.check import STANDARD as VACUOUS_RULES, replay, select
from ..results import Evidence, VerdictKind
from ..rules import Rules

MAX_MOVES = 100_000
"""Moves a kept game may hold: far beyond the longest game of any shipped rules."""

STATE_KINDS = ("always", "never", "shows", "sometimes")
"""Kinds a state or a move of a game can show broken (or, `sometimes`, happening)."""


class NotBelieved(Exception):
    """A kept or returned verdict that is not taken: `reason` in words; `kind` is `stale`
    (made for other rules, properties or code: a quiet miss), `damaged` (it does not read
    or does not check) or `untrusted` (it claims what only its owner's word backs, and the
    file is not the user's alone)."""

    def __init__(self, reason: str, kind: str = "damaged") -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind


def warn(line: str) -> None:
    """One line on stderr (this room does not import click)."""
    sys.stderr.write(line.rstrip("\n") + "\n")
    sys.stderr.flush()


def plain(value: Any, what: str) -> str:
    """`value` when it is text with no control character (it may reach a terminal or a
    page), else `NotBelieved`."""
    if not isinstance(value, str):
        raise NotBelieved(f"{what} is not text")
    if any(unicodedata.category(char) in ("Cc", "Cf") and char not in "\n" for char in value):
        raise NotBelieved(f"{what} holds control characters")
    return value


def parse_moves(data: Any) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Kept moves `[[rule, [arg, ...]], ...]` as the engine's plain moves, or `NotBelieved`."""
    if not isinstance(data, list) or len(data) > MAX_MOVES:
        raise NotBelieved("its game is not a list of moves")
    out = []
    for item in data:
        if (not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], str)
                or not isinstance(item[1], list)
                or not all(isinstance(arg, int) and not isinstance(arg, bool) and -2**31 < arg < 2**31
                           for arg in item[1])):
            raise NotBelieved("its game holds something that is not a move")
        out.append((item[0], tuple(item[1])))
    return tuple(out)


def replayed(game: Game, data: Any) -> Trace:
    """The kept moves replayed through the engine, or `NotBelieved` naming why not."""
    moves = parse_moves(data)
    try:
        return replay(game, moves)
    except IllegalMove as error:
        raise NotBelieved(f"its game does not replay: {str(error).splitlines()[0][:120]}") from None
    except (SpecError, ValueError, TypeError, IndexError, KeyError, OverflowError, AssertionError) as error:
        raise NotBelieved(f"its game does not replay ({type(error).__name__})") from None


def verdict_named(name: Any) -> VerdictKind:
    """The verdict a kept file names, or `NotBelieved` saying what it names instead."""
    try:
        return VerdictKind.parse(name)
    except ValueError as error:
        raise NotBelieved(str(error)) from None


def fits(prop: Property, verdict: VerdictKind) -> bool:
    """Whether `verdict` is one a property of this kind can have: witness or no witness for
    a `sometimes`, proved or refuted for the others; unknown for any."""
    if verdict is VerdictKind.UNKNOWN:
        return True
    if prop.kind == "sometimes":
        return verdict in (VerdictKind.WITNESS, VerdictKind.NO_WITNESS)
    # vacuous: a premise never reached
    return verdict in (VerdictKind.PROVED, VerdictKind.REFUTED, VerdictKind.VACUOUS)


def can_show(prop: Property, verdict: VerdictKind) -> bool:
    """Whether a game alone can show this verdict of this property (else only its
    owner's word backs it): a refutation of a state, move or permission property, of
    deadlock freedom or termination (a deadlock, a cycle), or of the declared ranges (a
    state with a field outside its range); a witness of a `sometimes`."""
    if verdict is VerdictKind.WITNESS:
        return prop.kind == "sometimes"
    if verdict is VerdictKind.REFUTED:
        return prop.kind in ("always", "never", "shows", "deadlock_free", "terminates", "in_range", *PERMISSIONS)
    return False


def shows(trace: Trace, prop: Property, verdict: VerdictKind) -> bool:
    """Whether the replayed game shows `verdict` of `prop` (`can_show`): True, False when
    the claim is one no game settles (a termination refuted by states that cannot reach
    the end: believed on its owner's word only); `NotBelieved` when it should and does not."""
    game = trace.game
    states = [trace.start] + [state for _, state in trace.steps]
    if prop.kind in STATE_KINDS:
        if _fires(game, prop, trace, states):
            return True
    elif prop.kind in PERMISSIONS:
        if _permission_fires(game, prop, states):
            return True
    elif prop.kind == "in_range":
        codec = Codec(game)
        for state in states:
            try:
                codec.encode(state)
            except OutOfRange:
                return True
    elif prop.kind in ("deadlock_free", "terminates"):
        end = states[-1]
        if not game.is_over(end) and not game.legal_moves(end):
            return True
        if prop.kind == "terminates":
            if end in states[:-1]:
                return True
            return False
    raise NotBelieved(f"its game does not show {prop.name} {verdict}")


def _fires(game: Game, prop: Property, trace: Trace, states: list[Any]) -> bool:
    """Whether the property fires on a state or a move of the game (engine/propcheck.py)."""
    checks = compile_checks(game, (prop,))
    phase = game.phase_index
    if prop.state is not None:
        for state in states:
            check = checks.state[state[phase]]
            if check is not None and check(state):
                return True
        return False
    before = trace.start
    for move, after in trace.steps:
        check = checks.move[game.by_name[move.rule].index]
        if check is not None and check(before, after, *move.args):
            return True
        before = after
    return False


def _permission_fires(game: Game, prop: Property, states: list[Any]) -> bool:
    """Whether, in a state of the game where a seat or the table moves, the permission is
    wanted and no legal move gives it (`allows`), or one legal move breaks it (`only`),
    as the search fires them (verify/explicit/explore.py `permissions`)."""
    allowances = compile_allowances(game, (prop,))
    phase = game.phase_index
    for state in states:
        wanted_in = allowances.wanted[state[phase]]
        if wanted_in is None or not wanted_in(state) or game.forced_move(state) is not None:
            continue
        given_any = False
        for move in game.legal_moves(state):
            compiled = game.by_name[move.rule]
            allowed = allowances.given[compiled.index]
            given = bool(allowed(state, compiled.effect(state, *move.args), *move.args)) if allowed else False
            given_any = given_any or given
            if prop.kind == "only" and not given:
                return True
        if prop.kind == "allows" and not given_any:
            return True
    return False


def as_expected(prop: Property, verdict: VerdictKind) -> bool | None:
    """Whether `verdict` is what `prop` expects (verify/results.py), None when unknown."""
    if verdict is VerdictKind.UNKNOWN:
        return None
    if verdict is VerdictKind.VACUOUS:
        return False                # never a pass, whatever the property expects (verify/results.py)
    holds = verdict in (VerdictKind.PROVED, VerdictKind.WITNESS)
    return holds == (prop.expect == "holds")


def checked(check: Callable[[], Any]) -> Any:
    """`check()`, any slip of a malformed entry (a missing key, a wrong type) a `NotBelieved`."""
    try:
        return check()
    except NotBelieved:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError, OverflowError) as error:
        raise NotBelieved(f"it is malformed ({type(error).__name__})") from None
    except SpecError as error:
        raise NotBelieved(error.message) from None


def _stamped(entry: dict[str, Any], expected: dict[str, Any]) -> None:
    if entry.get("stamp") != expected:
        raise NotBelieved("it was made for other rules, properties or code", "stale")


def _need_trust(untrusted: str | None, what: str) -> None:
    """`NotBelieved` (untrusted, its reason `untrusted`) when `what` is claimed from a file
    that may not be believed on its owner's word."""
    if untrusted is not None:
        raise NotBelieved(untrusted, "untrusted")


# ---------------------------------------------------------------- the task cache


def check_summary(task: Any, result: Any, untrusted: str | None) -> dict[str, Any]:
    """A kept or returned `run_task` result for `task`, every claim checked (module
    docstring); `untrusted`: why its file may not be believed on its owner's word (None:
    it may). The result returned has its games' lines and `as_expected` made here."""
    from .tasks import stamp
    return dict(checked(lambda: _check_summary(task, result, untrusted, stamp)))


def _check_summary(task: Any, result: Any, untrusted: str | None, stamp: Callable[..., dict[str, Any]]
                   ) -> dict[str, Any]:
    if not isinstance(result, dict) or result.get("key") != task.key:
        raise NotBelieved("it is for another task")
    rules = Rules.named(task.rules)     # a task names its rules (its key): loaded here once
    props = select(rules, task.properties or None)
    _stamped(result, stamp(task.rules, task.players, props))
    if result["rules"] != task.rules or result["players"] != task.players or not isinstance(result["results"], list):
        raise NotBelieved("it is for other rules")
    by_name = {prop.name: prop for prop in props}
    items = [dict(item) for item in result["results"]]
    if sorted(item["property"] for item in items) != sorted(by_name):
        raise NotBelieved("its properties are not the task's")
    game = rules.game(task.players)
    for item in items:
        prop = by_name[item["property"]]
        verdict = verdict_named(item["verdict"])
        if not fits(prop, verdict):
            raise NotBelieved(f"{shown(verdict)} is not a verdict of {prop.name}")
        expected = as_expected(prop, verdict)
        if item["as_expected"] != expected:
            raise NotBelieved(f"it says {prop.name} is {'not ' if not item['as_expected'] else ''}as expected")
        for name in ("message", "class"):
            if item.get(name) is not None:
                plain(item[name], f"its {name}")
        if not isinstance(item.get("rules", []), list) or item.get("rules", []) != list(prop.rule_ids):
            raise NotBelieved(f"its rule IDs of {prop.name} are not the property's")
        facts = [name for name in ("fewest_elections", "longest_moves", "longest_elections") if name in item]
        if can_show(prop, verdict):
            trace = replayed(_game_of(task.players, prop, game), item.get("played"))
            if not shows(trace, prop, verdict):
                _need_trust(untrusted, f"{prop.name} {verdict}")
            item["moves"], item["elections"] = len(trace.steps), trace.elections()
            item.pop("game", None)
            if expected is False:
                item["game"] = trace.lines(changes=False)
        else:
            _need_trust(untrusted, f"{prop.name} {verdict}")
            item.pop("game", None)
        if facts:
            _need_trust(untrusted, f"what {prop.name} measures ({', '.join(facts)})")
        for name in ("states", *facts):
            value = item.get(name)
            if value is not None and not (isinstance(value, int) and not isinstance(value, bool)):
                raise NotBelieved(f"its {name} is not a whole number")
    return {**result, "form": plain(result["form"], "its form"), "results": items}


def check_raws(task: Any, result: Any, untrusted: str | None) -> dict[str, Any]:
    """A kept or returned `run_raws` result for `task` (checks.py), every claim checked as
    `check_summary` checks its own; what `from_data` replays is replayed here first."""
    from .tasks import stamp
    return dict(checked(lambda: _check_raws(task, result, untrusted, stamp)))


def _check_raws(task: Any, result: Any, untrusted: str | None, stamp: Callable[..., dict[str, Any]]
                ) -> dict[str, Any]:
    if not isinstance(result, dict) or result.get("key") != task.key:
        raise NotBelieved("it is for another task")
    rules = Rules.named(task.rules)     # a task names its rules (its key): loaded here once
    props = select(rules, task.properties or None)
    _stamped(result, stamp(task.rules, task.players, props))
    if result["players"] != task.players or not isinstance(result["raws"], list):
        raise NotBelieved("it is for another count")
    by_name = {prop.name: prop for prop in props}
    game = rules.game(task.players)
    seen: list[str] = []
    for item in result["raws"]:
        raw = _Kept(**item)
        if not isinstance(raw.evidence, dict) or not isinstance(raw.extra, dict):
            raise NotBelieved("its evidence is malformed")
        Evidence(**raw.evidence)
        for name in ("method", "note"):
            if raw.evidence.get(name) is not None:
                plain(raw.evidence[name], f"its evidence's {name}")
        prop = by_name[raw.property]
        seen.append(prop.name)
        verdict = verdict_named(raw.verdict)
        if raw.players != task.players or not fits(prop, verdict):
            raise NotBelieved(f"its verdict of {prop.name} is not one of this count and kind")
        plain(raw.message, "its message")
        played = _game_of(task.players, prop, game, verdict, raw.extra)
        trace = replayed(played, _listed(raw.moves)) if raw.moves is not None else None   # from_data replays it
        if can_show(prop, verdict):
            if trace is None or not shows(trace, prop, verdict):
                _need_trust(untrusted, f"{prop.name} {verdict}")
        else:
            _need_trust(untrusted, f"{prop.name} {verdict}")
        for name in ("fewest_elections_moves", "longest_game_moves"):
            if name in raw.extra:
                replayed(game, _listed(raw.extra[name]))
        facts = sorted(set(raw.extra) & {"fewest_elections", "longest_moves", "longest_elections", "stuck_states",
                                          "shortest_at_least"})
        if facts or raw.value is not None:
            _need_trust(untrusted, f"what {prop.name} measures")
        for key, value in raw.extra.items():
            if isinstance(value, str):
                plain(value, f"its {key}")
    if sorted(seen) != sorted(by_name):
        raise NotBelieved("its properties are not the task's")
    return dict(result)


@dataclass(frozen=True, slots=True)
class _Kept:
    """A kept verdict's fields (checks.py `as_data`), as read from JSON: no other key."""

    property: str
    players: int
    verdict: str
    evidence: Any
    moves: Any = None
    message: Any = ""
    value: Any = None
    extra: Any = None

    def __post_init__(self) -> None:
        if self.extra is None:
            object.__setattr__(self, "extra", {})


def _game_of(players: int, prop: Property, game: Any, verdict: VerdictKind | None = None, extra: Any = None) -> Any:
    """The game a verdict's moves are replayed in, as checks.py `from_data` replays them: a property
    over monitored rules (the order of play) in those rules; a vacuous verdict's game, the
    standard rules' game reaching the premise, in the standard rules (no other name is
    taken from a kept file)."""
    if verdict is VerdictKind.VACUOUS:
        named = extra.get("premise_rules") if isinstance(extra, dict) else None
        if named != VACUOUS_RULES:
            raise NotBelieved("its vacuous verdict names other rules than the standard ones")
        return compiled_game(players, VACUOUS_RULES)
    return compiled_game(players, prop.rules) if prop.rules else game


def _listed(moves: Any) -> Any:
    """Kept moves as lists (JSON gives lists; a worker's own result gives tuples)."""
    if isinstance(moves, (list, tuple)):
        return [[move[0], list(move[1])] if isinstance(move, (list, tuple)) and len(move) == 2
                and isinstance(move[1], (list, tuple)) else move for move in moves]
    return moves
