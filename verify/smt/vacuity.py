"""Vacuity for the solver's verdicts: a proof whose premise the rules never reach tests nothing.

The explicit search asks each property's premise (spec/premises.py) in the same search
as the property; the solver proves a property by induction, which says nothing of
whether its premise is ever reached. So each proved property's premise is asked here,
cheapest first: random games of the engine, one set of games for every premise at once,
ended as soon as each premise is reached (playouts.py `played_breaches`, each premise as
the `never` a game that reaches it breaks; `check_players` asks every property of a
count together, so that is one set of games per count); a premise no game reached goes to the solver as the `sometimes` it is (its
shortest witness by BMC, guided by random games, or a proof that it never happens).

The verdict is then: proved (the premise is reached), `Vacuous` (the solver proved the
premise never happens), or `Unknown` (neither within the limits: it may hold vacuously,
and that is never a pass). A vacuous verdict of the solver carries no game of the
standard rules (the explicit search's does).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from engine.game import Game
from spec.model import Spec
from spec.premises import premises
from spec.properties import Property

from ..results import PropertyResult, Proved, StopReason, Unknown, Unwitnessed, Vacuous, Verdict, Witnessed
from .playouts import played_breaches


def judge_premises(spec: Spec, players: int, results: list[tuple[Property, PropertyResult]],
                   decide: Callable[[Property], Verdict]) -> list[PropertyResult]:
    """`results` with each proved property judged by its premise (see the module
    docstring); `decide` is the solver's verdict on a `sometimes` property."""
    questions = premises(tuple(prop for prop, result in results if isinstance(result.verdict, Proved)))
    if not questions:
        return [result for _, result in results]
    reached = played_breaches(Game(spec, players), [replace(q, kind="never") for q in questions.values()],
                              shortest=False)
    out = []
    for prop, result in results:
        question = questions.get(prop.name)
        if question is None or question.name in reached:
            out.append(result)
            continue
        answer = decide(question)
        verdict: Verdict = result.verdict
        if isinstance(answer, Unwitnessed):
            verdict = Vacuous(answer.evidence, question.text)
        elif not isinstance(answer, Witnessed):
            reason = answer.reason if isinstance(answer, Unknown) else answer.verdict
            verdict = Unknown(result.verdict.evidence, f"proved, but the solver did not reach its premise "
                                                       f"({question.text}): {reason}; it may hold vacuously",
                              answer.stop if isinstance(answer, Unknown) else StopReason.OTHER)
        out.append(replace(result, verdict=verdict))
    return out
