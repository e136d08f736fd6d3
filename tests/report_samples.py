"""Hand-made checker results for the report tests: every verdict, real traces, no checking.

The traces are real games of the engine (`random_game(compiled_game(n), seed=...)`), cut
short where a shortest witness would be short, so the report code meets the traces the
checker will hand it; the verdicts and evidence are made up and say nothing about the rules.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from engine.game import compiled_game
from engine.play import random_game
from engine.trace import Trace
from verify.report import RunInfo
from verify.results import Evidence, Facts, Played, PropertyResult, Proved, Refuted, Unknown, Unwitnessed, Verdict, Witnessed

PLAYERS = (5, 6)
STATES = {5: 182_000, 6: 1_450_000}
RUN = RunInfo("standard", PLAYERS, "explicit")


@lru_cache(maxsize=None)
def game_trace(players: int, seed: int = 1, moves: int | None = None) -> Trace:
    """A random game of the engine, the first `moves` moves of it when given."""
    trace = random_game(compiled_game(players), seed=seed)
    if moves is not None:
        trace = Trace(trace.game, trace.start, trace.steps[:moves])
    return trace


def sample_results(seconds: float = 1.0) -> list[PropertyResult]:
    """Two player counts × six properties: proved, witness, refuted (twice: once expected),
    no-witness (not as expected), unknown; `seconds` scales every timing."""
    out = []
    for n in PLAYERS:
        whole = Facts(reachable_states=STATES[n], reductions=("symmetry", "cone"))
        out += [
            PropertyResult("deck_conservation_liberal", n, "always", ("R-S3", "R-L5"), "holds",
                           Proved(Evidence("explicit", STATES[n], 3 * STATES[n], 60, 2.0 * n * seconds)),
                           replace(whole, description="Liberal tiles are conserved", group="soundness")),
            PropertyResult("liberal_policy_win", n, "sometimes", ("R-W1",), "holds",
                           Witnessed(Evidence("explicit", STATES[n] // 3, None, 30, 0.5 * seconds),
                                     Played.of(game_trace(n, 1)), elections=game_trace(n, 1).elections()),
                           replace(whole, fewest_elections=4 + n % 2, fewest_elections_game=Played.of(game_trace(n, 4)))),
            PropertyResult("fascist_hitler_win", n, "sometimes", ("R-W4", "R-E10"), "holds",
                           Witnessed(Evidence("bmc", None, None, 25, 3.0 * seconds), Played.of(game_trace(n, 2, 40)),
                                     elections=4)),
            PropertyResult("terminates", n, "terminates", ("R-W5",), "holds",
                           Proved(Evidence("graph", STATES[n], None, None, 0.25 * seconds), value=140 + n)),
            PropertyResult("veto_sets_off_chaos", n, "sometimes", ("R-V3", "R-E9"), "holds",
                           Unwitnessed(Evidence("explicit", STATES[n], None, None, 1.5 * seconds))),
        ]
    out += [
        PropertyResult("nominee_eligible", 5, "always", ("R-E2", "R-E3"), "holds",
                       Refuted(Evidence("explicit", 1234, None, 12, 0.125 * seconds), Played.of(game_trace(5, 3, 25)),
                               "seat 2 was nominated while term-limited"), Facts(group="conformance")),
        PropertyResult("nominee_eligible", 6, "always", ("R-E2", "R-E3"), "fails",
                       Refuted(Evidence("k-induction", None, None, 3, 0.75 * seconds), Played.of(game_trace(6, 3, 20)))),
        PropertyResult("chaos_finds_a_tile", 5, "always", ("R-E9", "R-L5"), "holds",
                       Proved(Evidence("k-induction", None, None, 2, 0.5 * seconds))),
        PropertyResult("chaos_finds_a_tile", 6, "always", ("R-E9", "R-L5"), "holds",
                       Unknown(Evidence("explicit", 5_000_000, None, 40, 30.0 * seconds),
                               "state limit 5,000,000 reached")),
    ]
    return out


def all_as_expected() -> list[PropertyResult]:
    """Results whose verdicts are all as expected (no unknown)."""
    return [r for r in sample_results() if r.as_expected is True]


def with_verdict(results: list[PropertyResult], name: str, players: int, verdict: Verdict) -> list[PropertyResult]:
    """The same results with one verdict replaced."""
    return [replace(r, verdict=verdict) if (r.property, r.players) == (name, players) else r for r in results]
