"""The solver's verdicts under a rule set seen once (a mutant), in passes within one budget.

The mutation analysis asks the whole catalogue of hundreds of rule sets, each once:
nothing built for one is kept (a backend each would hold hundreds of solvers), and the
properties are asked in passes, the quick ones first, so that one the solver cannot
decide leaves time for the rest (`verdicts_under`). Before the backend is built, the
shortest games of the bare rules breaking a state or move invariant
(verify/smt/shallow.py); between the passes, violations deep in a game along the rules'
own games (verify/smt/deep.py). Each property itself is decided as `check_property`
decides it (verify/smt/check.py `decide`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence

import z3  # type: ignore[import-untyped]

from spec.errors import SpecError
from spec.model import Spec
from spec.order import own_properties
from spec.properties import Property

from ..results import Evidence, Limits, StopReason, Unknown, Verdict
from .backend import new_backend
from .check import IN_MEMORY, decide, noting_inference
from .deep import violations_along_the_rules
from .induction import OutOfTime
from .shallow import violations_within


def verdicts_under(spec: Spec, players: int, props: Sequence[Property], seconds: float, hints: bool = True,
                   any_guide: bool = False, each: float | Sequence[float] | None = None,
                   deep: float | None = None, shallow: float | None = None,
                   played: float | None = None) -> Iterator[tuple[Property, Verdict]]:
    """The solver's verdicts on `props` under a rule set seen once (a mutant), one at a
    time, within `seconds` in all (each property gets what is left); the backend is not
    kept, so a run over hundreds of mutants does not hold hundreds of solvers. A rule set
    the solver cannot encode, or whose invariants are not inferred (no `hints`) in time,
    ends the sequence: nothing is claimed for it. `any_guide`: witnesses are first sought
    along kept guides of any length (`Backend._along_any_guide`). `each`: at most this many
    seconds for one property, so that one the solver cannot decide leaves time for the rest;
    several (shortest first) ask the properties in passes, each pass only those the ones
    before left unknown: the first pass answers every property the solver decides quickly
    before the hard ones take their long turns. `deep` (with two passes or more): between
    the first and the second, at most this many seconds for violations of the properties
    left unknown along the rules' own games (verify/smt/deep.py), which the plain search
    reaches only one slow query per depth. `shallow`: before the backend is built (and its
    invariants inferred), at most this many seconds for the shortest games of the bare
    rules breaking a state or move invariant (verify/smt/shallow.py); `played` (with
    `shallow`): then at most this many seconds more for those still open along the rules of
    random games breaking them. A property's verdict is yielded once, when decided or,
    unknown, after the last pass it was asked in."""
    # A property over monitored rules (the order of play) is not one of a rule set built
    # in memory: asked last, its verdict stays unknown (spec/order.py `own_properties`).
    owned = set(own_properties(spec, props))
    yield from _verdicts_of_own(spec, players, [prop for prop in props if prop in owned], seconds, hints,
                                any_guide, each, deep, shallow, played)
    for prop in props:
        if prop not in owned and players in prop.players:
            yield prop, Unknown(Evidence("k-induction"), IN_MEMORY, StopReason.NOT_SEARCHED)


def _verdicts_of_own(spec: Spec, players: int, props: Sequence[Property], seconds: float, hints: bool,
                     any_guide: bool, each: float | Sequence[float] | None, deep: float | None,
                     shallow: float | None, played: float | None) -> Iterator[tuple[Property, Verdict]]:
    """`verdicts_under` for properties over `spec`'s own fields."""
    deadline = time.perf_counter() + seconds
    caps: list[float | None] = [None] if each is None else [each] if isinstance(each, (int, float)) else list(each)
    asked = [prop for prop in props if players in prop.players]
    try:
        if shallow is not None:
            broken: set[str] = set()
            depths = min(deadline, time.perf_counter() + shallow)
            along = None if played is None else min(deadline, depths + played)
            for prop, refuted in violations_within(spec, players, asked, depths, along):
                broken.add(prop.name)
                yield prop, refuted
            asked = [prop for prop in asked if prop.name not in broken]
        backend = new_backend(spec, players, hints, deadline)
        backend.any_guide = any_guide
        left_unknown: dict[str, Verdict] = {}
        for number, cap in enumerate(caps):
            last = number == len(caps) - 1
            if number == 1 and deep is not None and left_unknown:
                undecided = [prop for prop in asked if prop.name in left_unknown]
                for prop, refuted in violations_along_the_rules(backend, undecided,
                                                                min(deadline, time.perf_counter() + deep)):
                    left_unknown.pop(prop.name, None)
                    yield prop, refuted
            for prop in asked:
                if number and prop.name not in left_unknown:
                    continue
                left = deadline - time.perf_counter()
                if left <= 0:
                    break
                given = left if cap is None else min(left, cap)
                verdict = noting_inference(backend, decide(backend, prop, Limits(time_limit=given)))
                if not isinstance(verdict, Unknown) or last:
                    left_unknown.pop(prop.name, None)
                    yield prop, verdict
                else:
                    left_unknown[prop.name] = verdict
        for prop in asked:
            if prop.name in left_unknown:
                yield prop, left_unknown[prop.name]
    except (SpecError, KeyError, ValueError, TypeError, IndexError, z3.Z3Exception, OutOfTime):
        return
