"""The search for a game that breaks a property once its induction failed, and how it is told.

Every kind the solver decides ends the same way when its proof by induction does not
close: the shortest game to a breach is searched for (`reach`, `Backend.search`); found,
it refutes (a reachable counterexample is real); ruled out at every length (the proved
distance bound, `Ended.UNREACHABLE`, or k-induction asked as the search goes, `KProbe`),
it proves; otherwise the verdict is unknown, with the counterexample to induction and
how far the search got (`how_far`, `unreached`), and the search's `Ended.stop` as the
verdict's `StopReason`. The words of those verdicts' notes are here too, so that every
kind says them alike.
"""

from __future__ import annotations

import math
import time
from typing import Any

from spec.properties import Property

from ..budgets import CTI_SECONDS, K_INDUCTION_SECONDS, K_INDUCTION_SHARE
from ..results import Evidence, Limits, Proved, Refuted, StopReason, Verdict, played
from .backend import Backend
from .bmc import Ended, Search, Target
from .induction import Outcome

K_INDUCTION_FIRST = 2
"""The first k tried; each next one doubles it (a proof for k holds for any larger k, so
doubling reaches a k that works in a few queries, each dearer than the last)."""

K_INDUCTION_LARGEST = 64
"""The largest k a search's probe tries (`KProbe`): a query's path grows with k, and with
neither this bound nor a time limit one (a move invariant of the tie_passes mutant at 6
players, asked before the search) grew to 17 GB in ten minutes."""


REACHED = "the property's violation is reachable: the shortest game to it, found once induction failed"


def deadline_of(limits: Limits) -> float | None:
    """The `time.perf_counter()` value by which a property's time runs out (None: no limit)."""
    return None if limits.time_limit is None else time.perf_counter() + limits.time_limit


def how_far(found: Search, what: str) -> str:
    """How far a BMC search that found nothing got, and why it stopped."""
    if found.ended is Ended.DEPTH:
        return f"no {what} within {found.depth} moves (the depth limit)"
    return f"no {what} in fewer than {found.depth} moves; stopped at {found.depth} moves ({found.stopped})"


def unproved(outcome: Outcome, game: Any, lead: str) -> str:
    """`lead`, then why the induction did not close: its counterexample to induction in
    words, or the solver's reason when it has none."""
    if outcome.counterexample is None:
        return f"{lead}: {outcome.unknown or 'no proof'}"
    return lead + "; counterexample to induction:\n" + "\n".join(outcome.counterexample.lines(game))


def stop_of(outcome: Outcome, found: Search | None = None) -> StopReason:
    """Why a verdict the induction `outcome` did not prove, and the search `found` (if
    one was made) did not decide, is unknown: the limit the search hit, if it hit one,
    else the induction's (the solver gave up, no ranking declared, or it did not close)."""
    if found is not None and found.stop is not StopReason.INDUCTION:
        return found.stop
    return outcome.stop


def kept_invariants(backend: Backend) -> str:
    """How many strengthening invariants the proof stands on, and how many were inferred."""
    support = backend.induction.support()
    inferred = sum(1 for c in support.kept if c.origin == "inferred")
    return (f"{len(support.kept)} proved strengthening invariants"
            + (f" ({inferred} of them inferred)" if inferred else ""))


def inferred_note(backend: Backend) -> str:
    """What a proof's note adds when the support it used has inferred invariants (none: nothing)."""
    inferred = sum(1 for c in backend.induction.support().kept if c.origin == "inferred")
    return f" ({inferred} of them inferred from played games)" if inferred else ""


def refuted_by(found: Search, seconds: float, message: str, note: str = "") -> Refuted:
    """The refutation by the game a search found, saying how it was found when not by the
    plain search (along a random game, `Backend._played`) and then, when it is not proved
    a shortest, from what length on one may be (`found.lower_bound`)."""
    return Refuted(Evidence("bmc", depth=found.depth, seconds=seconds, note=found.note or note), played(found.trace),
                   message, lower_bound=found.lower_bound)


def decided_by_search(found: Search, seconds: float, refuted: str, proved: str) -> Verdict | None:
    """A state property's verdict from the search for a state breaking it: refuted by the
    game found, proved when no path of any length reaches one, None when the search
    stopped at a limit."""
    if found.trace is not None:
        return refuted_by(found, seconds, refuted)
    if found.ended is Ended.UNREACHABLE:
        return Proved(Evidence("k-induction", depth=1, seconds=seconds, note=proved))
    return None


def searched_below(found: Search) -> int:
    """The depth up to which a stalled search proved that no path reaches the target:
    every depth up to the one it stopped at when time ran out there, one less when the
    solver gave up on that depth."""
    return found.depth if found.ended is Ended.TIME else found.depth - 1


def k_inductive(backend: Backend, target: Target, covered: int, deadline: float | None) -> int | None:
    """The k for which "no game meets `target`" is k-inductive with the support
    (`Induction.k_induction_of`), k = 2, 4, 8, … up to `covered`: the depth a search showed
    no game of that many moves or fewer meets it, the base case; None when none is
    proved before `deadline`. A thing that never happens, but not inductively in one step,
    is proved by a longer k where a search can only say it found nothing. The same
    doubling as a search's probe (`KProbe`), asked once the search has ended."""
    probe = KProbe(backend, target, math.inf, deadline)
    return probe.proved if probe(covered) else None


def by_k_induction(backend: Backend, k: int, covered: int) -> str:
    """How a k-induction proof with its base case is told."""
    return (f"{k}-inductive with the proved strengthening invariants{inferred_note(backend)}, and no game "
            f"reaches it in {covered} moves or fewer")


def k_seconds(limits: Limits) -> float:
    """The seconds of a property's time given to k-induction (0: none; with no time limit,
    `K_INDUCTION_SECONDS`: a k-induction query for a large k may run for hours, and the
    search after it may refute the property in seconds)."""
    if limits.time_limit is None:
        return K_INDUCTION_SECONDS
    if limits.time_limit < CTI_SECONDS + K_INDUCTION_SECONDS:
        return 0.0
    return max(K_INDUCTION_SECONDS, K_INDUCTION_SHARE * limits.time_limit)


class KProbe:
    """k-induction of "no game meets `target`" as a search goes deeper (`Backend.search`'s
    `probe`): once the search has ruled out every game of `covered` moves or fewer, k = 2,
    4, 8, … up to `covered` (and `K_INDUCTION_LARGEST`) are tried, within `seconds` of
    solver time in all; a k proved with that base case proves that no game ever meets
    it. Asked as the search goes rather than after it, a property no game breaks is
    proved by a small k in seconds where the search would spend its whole time finding
    nothing (under veto_chaos_first at 5 players a draw after a veto's chaos finds three
    tiles: 16-inductive, proved in 39 s where the search had found nothing in 225 s),
    and one a short game breaks costs only the k below that game's length."""

    def __init__(self, backend: Backend, target: Target, seconds: float, deadline: float | None) -> None:
        self.backend, self.target, self.left, self.deadline = backend, target, seconds, deadline
        self.k = K_INDUCTION_FIRST
        self.proved: int | None = None
        self.done = False

    def __call__(self, covered: int) -> bool:
        """Whether "no game meets the target" is proved, every game of `covered` moves or
        fewer having been ruled out."""
        while not self.done and self.k <= min(covered, K_INDUCTION_LARGEST):
            budget = self.left if self.deadline is None else min(self.left, self.deadline - time.perf_counter())
            if budget < 1:
                self.done = True
                break
            began = time.perf_counter()
            timeout = 0 if budget == math.inf else int(budget * 1000)    # 0: no timeout
            outcome = self.backend.induction.k_induction_of(self.target, self.k, timeout)
            self.left -= time.perf_counter() - began
            if outcome.proved:
                self.proved = self.k
                return True
            if outcome.unknown:
                self.done = True
                break
            self.k *= 2
        return False


def probe_for(backend: Backend, target: Target | None, limits: Limits, deadline: float | None) -> KProbe | None:
    """The k-induction a search for `target` asks as it goes, when the property's time
    holds it (`k_seconds`)."""
    seconds = k_seconds(limits)
    return None if target is None or not seconds else KProbe(backend, target, seconds, deadline)


def k_proved(found: Search, probe: KProbe | None, backend: Backend, seconds: float, absence: str) -> Proved | None:
    """The proof a search ended by its probe's k-induction gives (None if it did not)."""
    if probe is None or found.ended is not Ended.K_INDUCTIVE or probe.proved is None:
        return None
    return Proved(Evidence("k-induction", depth=probe.proved, seconds=seconds,
                           note=f"{absence}: its absence is {by_k_induction(backend, probe.proved, found.depth)}"))


def reach(backend: Backend, target: Target | None, limits: Limits, play: Property | None = None,
          probe: KProbe | None = None) -> Search:
    """The search for the shortest game from the initial state to `target`, bounded by
    `CTI_SECONDS` (none when there is no target to search for) and the time `probe` may
    take for its k-induction as the search goes; `play`, the property the target breaks,
    for random games to lead a search the solver's time stops (`Backend.search`)."""
    if target is None:
        return Search(None, 0, 0.0, 0, Ended.NOT_SEARCHED, "not searched: too many parameter values to spell out")
    seconds = CTI_SECONDS if limits.time_limit is None else min(CTI_SECONDS, limits.time_limit)
    if probe is not None:
        seconds += probe.left
    return backend.search(target, Limits(max_depth=limits.max_depth, k=limits.k), time.perf_counter() + seconds,
                          play=play, probe=probe)


def unreached(found: Search, state: str = "such a state") -> str:
    """What the search for a counterexample to induction's state (`state`, in words)
    showed when it found no game."""
    if found.ended is Ended.UNREACHABLE:
        return f" (no game reaches {state}: the induction lacks an invariant)"
    if found.ended is Ended.NOT_SEARCHED:
        return f" ({found.stopped})"
    return f" (no game reaches {state} in fewer than {found.depth} moves; the search stopped: {found.stopped})"
