"""Rule sequences of witnesses found so far, to guide the search for the next ones.

The shortest witness of a `sometimes` property is found by one deep BMC query at the
proved lower bound (verify/smt/bmc.py `depth_bound`), and that query is slow: the solver
must choose every move's rule as well as its parameters. Player counts that share a
board have witnesses of the same length made of the same rules (deal, first President,
then the same rounds and powers), so once one count's witness is known, the query at the
next count with each step's rule fixed to that sequence is answered in a fraction of a
second.

A guide is only a guess: a path found under it is a real path (replayed through the
engine like any other), and when its length equals the proved lower bound it is a
shortest one. When the guided query finds nothing, the search goes on unguided, so a
wrong guide costs one quick query and changes no verdict.

The store lives in the process: verify/checker.py runs counts that are likely to share
a board one after the other in the same process so that the second finds the first's.
"""

from __future__ import annotations

from collections.abc import Sequence

from spec.model import Spec

Guide = tuple[str, ...]
"""The rules of a witness's moves, in order."""

_GUIDES: dict[tuple[str, str, tuple[str, ...], str], list[Guide]] = {}

MAX_GUIDES = 4
"""Guides kept per property: tried in turn, each a quick query when it does not fit."""


def _key(spec: Spec, name: str) -> tuple[str, str, tuple[str, ...], str]:
    return (spec.name, spec.source, spec.overlays, name)


def keep_guide(spec: Spec, name: str, rules: Sequence[str]) -> None:
    """Keep the rule sequence of a witness of property `name` of `spec` (any count)."""
    kept = _GUIDES.setdefault(_key(spec, name), [])
    guide = tuple(rules)
    if guide not in kept:
        kept.insert(0, guide)
        del kept[MAX_GUIDES:]


def guides_for(spec: Spec, name: str, length: int | None) -> list[Guide]:
    """The kept rule sequences of `length` moves (None: of any length, shortest first) for
    property `name` of `spec`, newest first."""
    kept = _GUIDES.get(_key(spec, name), [])
    if length is None:
        return sorted(kept, key=len)
    return [guide for guide in kept if len(guide) == length]


def forget_guides() -> None:
    """Drop every guide (a benchmark's cold start, a test's clean slate)."""
    _GUIDES.clear()


def every_guide(spec: Spec) -> list[Guide]:
    """Every kept rule sequence of `spec`, whatever property it witnessed, shortest first
    (verify/smt/deep.py follows them to deep states)."""
    wanted = _key(spec, "")[:3]
    found = {guide for key, kept in _GUIDES.items() if key[:3] == wanted for guide in kept}
    return sorted(found, key=lambda guide: (len(guide), guide))
