"""The mutation analysis on the runner with its outcomes kept: `mutate --scheduler/--cache`.

`analyse` (verify/diff/mutate.py) hands its mutants to a `Spread`: a function deciding one
mutant at one count, and the arguments of each. `kept_spread` wraps another spread (a
Dask cluster, or local processes) so that each call's outcome is kept in the cache
(cache.py) under a key over everything that decides it: the digest of the shipped spec
and code, the content hash of the rules, the function and its arguments (the mutant's
number, the count, the rules' own verdicts, the limits and the budget). A repeated
analysis reads its outcomes back; one stopped midway runs only what it had not finished,
since each outcome is kept the moment it arrives. A kept outcome is JSON, read back as
data (`Outcome.from_json`), never evaluated, and never taken for what it says
(trust.py): its stamp must be this run's; a "killed" is believed only when the game kept
with it replays under the mutant and shows a verdict that differs from the rules' own
(one killed by a proof, with no game, is decided again); "equivalent", "survived",
"unknown" and "invalid", which no game shows, only from a cache no one else can write.
An outcome a worker returns is checked the same way, its own word taken for the rest.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from engine.game import Game
from spec.errors import SpecError, shown
from spec.loader import load_spec

from ..diff.mutate import Outcome, Spread, _decide_numbered, catalogue, monitored
from ..diff.operators import Mutant, mutants
from .cache import Cache
from .tasks import KEY_VERSION, code_digest, rules_digest, stamp
from ..results import MutantStatus, VerdictKind
from .trust import NotBelieved, can_show, checked, plain, replayed, shows, verdict_named


def call_key(function: Callable[..., Any], arguments: tuple[Any, ...]) -> str:
    """The key of one call: the code, the rules (its first argument) and the arguments."""
    material = json.dumps([KEY_VERSION, code_digest(), rules_digest(str(arguments[0])),
                           getattr(function, "__name__", "call"), repr(arguments)])
    return hashlib.sha256(material.encode()).hexdigest()


def call_stamp(arguments: tuple[Any, ...]) -> dict[str, Any]:
    """What a kept outcome is for (tasks.py `stamp`): the rules' content hash at the count,
    the count, the text of the properties whose verdicts it was decided against, the code."""
    rules, players, verdicts = str(arguments[0]), int(arguments[2]), dict(arguments[3])
    return stamp(rules, players, catalogue(load_spec(rules), players, tuple(sorted(verdicts))))


@lru_cache(maxsize=8)
def _mutants(rules: str, operators: tuple[str, ...] | None, rule_filter: tuple[str, ...] | None
             ) -> dict[int, Mutant]:
    """The mutants of a run by number, made again as `_decide_numbered` makes them."""
    return {mutant.number: mutant for mutant in mutants(load_spec(rules), operators, rule_filter)}


def believed(outcome: Outcome, arguments: tuple[Any, ...], kill: Any, untrusted: str | None) -> Outcome:
    """`outcome` of the call with `arguments` once it checks (module docstring), else
    `NotBelieved`; `kill`: the killing game as kept (`Outcome.kill_json`), `untrusted`: why
    its file may not be believed on its owner's word (None: it may, or a worker's)."""
    def check() -> Outcome:
        rules, number, players, verdicts = str(arguments[0]), int(arguments[1]), int(arguments[2]), arguments[3]
        operators, rule_filter = arguments[6], arguments[7]
        mutant = _mutants(rules, operators, rule_filter).get(number)
        if mutant is None or (outcome.number, outcome.players) != (number, players):
            raise NotBelieved("it is for another mutant or count")
        if (outcome.operator, outcome.rule, outcome.rule_ids, outcome.description) != (
                mutant.operator, mutant.rule, mutant.rule_ids, mutant.description):
            raise NotBelieved(f"it does not describe mutant #{number}")
        plain(outcome.detail, "its detail")
        for line in outcome.game:
            plain(line, "its game")
        if outcome.status is not MutantStatus.KILLED:
            if untrusted is not None:
                raise NotBelieved(untrusted, "untrusted")
            return outcome
        if not isinstance(kill, dict):
            raise NotBelieved("killed with no game to replay: decided again", "stale")
        name, verdict = kill["property"], verdict_named(kill["verdict"])
        before = verdicts.get(name) if isinstance(name, str) else None
        watched = monitored(mutant.spec)        # the order of play's monitor, as the mutant was checked
        props = {prop.name: prop for prop in catalogue(watched, players, tuple(verdicts))}
        if before in (None, VerdictKind.UNKNOWN) or name not in props or verdict is before \
                or not can_show(props[name], verdict):
            raise NotBelieved(f"its kill ({shown(name)}: {shown(before)} -> {shown(verdict)}) is no kill")
        trace = replayed(Game(watched, players), kill["moves"])
        if not shows(trace, props[name], verdict):
            raise NotBelieved(f"its game does not show {name} {verdict}")
        outcome.game = [f"{move.rule}{tuple(move.args)}" for move, _ in trace.steps]
        outcome.kill = (name, verdict, tuple((move.rule, tuple(move.args)) for move, _ in trace.steps))
        return outcome
    result: Outcome = checked(check)
    return result


def _read(cache: Cache, key: str, arguments: tuple[Any, ...]) -> Outcome | None:
    """The outcome kept under `key` once it checks; None when there is none or it does not
    (a warning line said why, but for an outcome of other rules or code: decided again)."""
    found = cache.get(key)
    if found is None:
        return None
    try:
        if found.get("stamp") != call_stamp(arguments):
            return None
        if not isinstance(found.get("outcome"), dict):
            raise NotBelieved("it holds no outcome")
        outcome = Outcome.from_json(found["outcome"])
        return believed(outcome, arguments, found.get("kill"), cache.untrusted_because(key))
    except SpecError as error:
        cache.warn(f"warning: a kept mutation outcome is not read ({error.message}); deciding it again")
    except NotBelieved as refusal:
        if refusal.kind == "untrusted":
            cache.warn(f"warning: mutants no game shows killed are not believed from the cache "
                       f"{shown(str(cache.folder))}, as {refusal.reason}; deciding them again", once_as="untrusted")
        elif refusal.kind != "stale":
            cache.warn(f"warning: the kept outcome of mutant #{arguments[1]} at {arguments[2]} players is not "
                       f"believed ({refusal.reason}); deciding it again")
    return None


def kept_spread(inner: Spread, cache: Cache) -> Spread:
    """`inner`, with each outcome kept in `cache` and a kept one not run again."""
    def spread(function: Callable[..., Outcome], arguments: list[tuple[Any, ...]]) -> Iterator[Outcome]:
        if function is not _decide_numbered:
            raise ValueError("kept_spread keeps the outcomes of verify.diff.mutate._decide_numbered only")
        keys = [call_key(function, args) for args in arguments]
        kept = [_read(cache, key, args) for key, args in zip(keys, arguments)]
        fresh = inner(function, [args for args, found in zip(arguments, kept) if found is None])
        for key, args, found in zip(keys, arguments, kept):
            if found is not None:
                yield found
                continue
            outcome = next(fresh)
            try:
                outcome = believed(outcome, args, outcome.kill_json(), None)
            except NotBelieved as refusal:
                if refusal.kind != "stale":
                    raise SpecError(f"a worker's outcome of mutant #{args[1]} does not check ({refusal.reason}): "
                                    f"it runs another version of shrules, or it is not to be trusted") from None
            cache.put(key, {"key": key, "stamp": call_stamp(args), "outcome": outcome.to_json(),
                            "kill": outcome.kill_json()})
            yield outcome
    return spread
