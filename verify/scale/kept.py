"""The mutation analysis on the runner with its outcomes kept: `mutate --scheduler/--cache`.

`analyse` (verify/diff/mutate.py) hands its mutants to a `Spread`: a function deciding one
mutant at one count, and the arguments of each. `kept_spread` wraps another spread (a
Dask cluster, or local processes) so that each call's outcome is kept in the cache
(cache.py) under a key over everything that decides it: the digest of the shipped spec
and code, what the rules name stands for, the function and its arguments (the mutant's
number, the count, the rules' own verdicts, the limits and the budget). A repeated
analysis reads its outcomes back; one stopped midway runs only what it had not finished,
since each outcome is kept the moment it arrives. A kept outcome is JSON, read back as
data (`Outcome.from_json`), never evaluated; one that does not read back is run again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from typing import Any

from spec.errors import SpecError

from ..diff.mutate import Outcome, Spread, local_spread
from .cache import Cache
from .tasks import KEY_VERSION, code_digest, rules_digest


def call_key(function: Callable[..., Any], arguments: tuple[Any, ...]) -> str:
    """The key of one call: the code, the rules (its first argument) and the arguments."""
    material = json.dumps([KEY_VERSION, code_digest(), rules_digest(str(arguments[0])),
                           getattr(function, "__name__", "call"), repr(arguments)])
    return hashlib.sha256(material.encode()).hexdigest()


def _read(cache: Cache, key: str) -> Outcome | None:
    """The outcome kept under `key`; None when there is none or it is damaged (run again)."""
    found = cache.get(key)
    if found is None or not isinstance(found.get("outcome"), dict):
        return None
    try:
        return Outcome.from_json(found["outcome"])
    except SpecError:
        return None


def kept_spread(inner: Spread, cache: Cache) -> Spread:
    """`inner`, with each outcome kept in `cache` and a kept one not run again."""
    def spread(function: Callable[..., Outcome], arguments: list[tuple[Any, ...]]) -> Iterator[Outcome]:
        keys = [call_key(function, args) for args in arguments]
        kept = [_read(cache, key) for key in keys]
        fresh = inner(function, [args for args, found in zip(arguments, kept) if found is None])
        for key, found in zip(keys, kept):
            if found is not None:
                yield found
                continue
            outcome = next(fresh)
            cache.put(key, {"key": key, "outcome": outcome.to_json()})
            yield outcome
    return spread
