"""A rebalance search: the custom-game settings whose odds of a Liberal win are closest to a target.

secrethitler.io rebalanced 6, 7 and 9 players by hand from the win rates of played games
(a Fascist policy enacted before the first round, one Fascist tile fewer). Here the same
knobs are searched against the exact odds under a strategy profile (verify/explicit/odds.py):

- the deck: the Liberal and Fascist tiles of the whole game (R-S3), a few either side of
  the rules' own;
- a policy enacted before the first round: none, one Fascist, or one Liberal;
- the board (R-X7): the powers of any player count's board of the rules;
- the Hitler zone (R-W3): the Fascist policies after which electing Hitler Chancellor wins,
  one or two either side of the rules' own. The deck alone moves the odds in steps too
  coarse to land near one half at some counts (docs/benchmarks.md, the rebalances); the
  zone moves the Fascists' likeliest win.

The odds are not proved to move monotonically with these knobs, so the search claims no
global optimum: it walks from the rules' own settings to the neighbour closest to the
target (one tile more or fewer of either party or both, one traded for the other, the
other starts, the other boards, the zone one either way) until no neighbour is closer or
one is within the tolerance, and it reports every candidate it evaluated. A candidate
whose odds a limit stopped, or whose game deadlocks or does not lower the ranking (a deck
too small to play), is dropped with the reason: it is never taken as a figure. The settings found are written as an overlay on the `custom` variant,
and the figure written beside them is recomputed from that file, not carried over.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from engine.batched import HandOver
from engine.game import Game
from spec.errors import SpecError
from spec.loader import load_spec
from spec.model import Spec
from spec.settings import format_value, settings_name
from spec.strategies import load_strategy

from ..explicit.odds import Odds
from ..explicit.odds_layers import Unbatchable, fast_odds
from ..explicit.odds_played import PLAYED, played_odds, side_intervals, wilson

STARTS: tuple[tuple[str, int], ...] = (("", 0), ("start_fascist", 1), ("start_liberal", 1))
"""The policy enacted before the first round: none, one Fascist, one Liberal."""

DECK_REACH = 4
"""How far from the rules' own number of tiles of each party the deck may go."""

ZONE_REACH = 2
"""How far from the rules' own Hitler zone the zone may go (and never to 0 or the track's end)."""

DECK_STEPS: tuple[tuple[int, int], ...] = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1), (1, 1), (-1, -1))
"""A neighbour's deck: one Liberal or Fascist tile more or fewer, one traded for the other,
or one more or fewer of each. The last keep the difference between the parties, and so
move the odds by less than the others do."""

Settings = tuple[tuple[str, Any], ...]
"""A candidate: setting names and values (spec/settings.py), sorted, hashable."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """One evaluated candidate: its settings, and its odds or why it has none."""

    settings: Settings
    odds: Odds | None
    dropped: str = ""

    @property
    def liberal(self) -> float | None:
        """The probability of a Liberal win (None: dropped)."""
        if self.odds is None or not self.odds.complete:
            return None
        return float(self.odds.sides().get("liberal", 0))

    @property
    def interval(self) -> tuple[float, float] | None:
        """Where the probability of a Liberal win lies: the 99% interval of played odds,
        the proved error bound of computed ones (None: dropped)."""
        share = self.liberal
        if share is None:
            return None
        assert self.odds is not None
        if self.odds.method == PLAYED:
            return side_intervals(self.odds).get("liberal", wilson(0, self.odds.games))
        bound = self.odds.error_bound * share
        return share - bound, share + bound

    def within(self, target: float, tolerance: float) -> bool:
        """Whether the Liberal odds lie within `tolerance` of `target`: all of the
        interval, so that played odds do not pass on a lucky draw."""
        interval = self.interval
        return interval is not None and target - tolerance <= interval[0] and interval[1] <= target + tolerance

    def rules(self) -> str:
        """The candidate's rules name, `custom[...]`, as `--rules` takes it."""
        return settings_name("custom", plain(self.settings))


@dataclass(slots=True)
class Search:
    """The walk and what it found."""

    players: int
    strategy: str
    target: float
    tolerance: float
    start: Candidate | None = None
    evaluated: list[Candidate] = field(default_factory=list)
    best: Candidate | None = None
    stopped: str = ""               # why the walk ended

    @property
    def within(self) -> bool:
        return self.best is not None and self.best.within(self.target, self.tolerance)


Evaluate = Callable[[Settings], Odds]


class Space:
    """The settings a rebalance may take at one player count, read from the rules (their
    deck and boards), and each candidate's neighbours."""

    def __init__(self, spec: Spec, players: int) -> None:
        self.deck = {"liberal": spec.constants["deck_liberal"], "fascist": spec.constants["deck_fascist"]}
        boards: list[tuple[str, ...]] = []
        for count in spec.player_counts:
            board = spec.tables["board"][count]
            assert isinstance(board, tuple)
            if board not in boards:
                boards.append(board)
        own = spec.tables["board"][players]
        assert isinstance(own, tuple)
        self.own_board = own
        self.boards = boards
        self.zone = int(spec.constants["hitler_zone"])
        self.zones = range(max(1, self.zone - ZONE_REACH),
                           min(int(spec.constants["fascist_track_length"]) - 1, self.zone + ZONE_REACH) + 1)

    def origin(self, players: int) -> Settings:
        """The rules' own game at this count, as settings."""
        return _settings(players, self.deck["liberal"], self.deck["fascist"], ("", 0), self.own_board, None)

    def neighbours(self, candidate: Settings) -> Iterator[Settings]:
        values = dict(candidate)
        players = int(str(values["players"]))
        liberal, fascist = int(values["deck_liberal"]), int(values["deck_fascist"])
        start = next(((name, 1) for name, _ in STARTS[1:] if values.get(name)), ("", 0))
        board = tuple(values["powers"])
        zone = values.get("hitler_zone")
        for d_lib, d_fas in DECK_STEPS:
            lib, fas = liberal + d_lib, fascist + d_fas
            if abs(lib - self.deck["liberal"]) <= DECK_REACH and abs(fas - self.deck["fascist"]) <= DECK_REACH \
                    and lib >= 1 and fas >= 1:
                yield _settings(players, lib, fas, start, board, zone)
        for other in STARTS:
            if other != start:
                yield _settings(players, liberal, fascist, other, board, zone)
        for other_board in self.boards:
            if other_board != board:
                yield _settings(players, liberal, fascist, start, other_board, zone)
        now = self.zone if zone is None else int(zone)
        for step in (1, -1):
            if now + step in self.zones:
                yield _settings(players, liberal, fascist, start, board,
                                None if now + step == self.zone else now + step)


def _settings(players: int, liberal: int, fascist: int, start: tuple[str, int], board: tuple[str, ...],
              zone: int | None) -> Settings:
    """A candidate's settings; the Hitler zone only where it is not the rules' own (None)."""
    values: dict[str, Any] = {"players": str(players), "deck_liberal": liberal, "deck_fascist": fascist,
                              "powers": list(board)}
    if start[0]:
        values[start[0]] = start[1]
    if zone is not None:
        values["hitler_zone"] = zone
    return tuple(sorted((name, tuple(v) if isinstance(v, list) else v) for name, v in values.items()))


def plain(settings: Settings) -> dict[str, Any]:
    """Settings as spec/settings.py takes them (lists, not tuples)."""
    return {name: list(value) if isinstance(value, tuple) else value for name, value in settings}


@dataclass(frozen=True, slots=True)
class OddsOf:
    """The evaluation of a candidate: its odds in floats under `strategy`, within `seconds`
    and `memory_mib` resident MiB (a candidate past either is dropped, with why). A value,
    not a closure, so that a worker process can be handed it."""

    players: int
    strategy: str
    seconds: float | None
    memory_mib: int | None = None
    games: int | None = None        # played odds from this many games (odds_played.py), not computed ones
    seed: int = 0

    def __call__(self, settings: Settings) -> Odds:
        return self.of(load_spec(settings_name("custom", plain(settings))))

    def of(self, spec: Spec) -> Odds:
        """The odds of rules already loaded (the file a search wrote, read back)."""
        game = Game(spec, self.players)
        if self.games is not None:
            # Every candidate from the same seed: their games differ only where the
            # settings make them differ, so two candidates compare more closely than
            # their intervals alone say (common random numbers).
            return played_odds(game, load_strategy(spec, self.strategy), self.games, seed=self.seed,
                               seconds=self.seconds, memory_mib=self.memory_mib)
        return fast_odds(game, load_strategy(spec, self.strategy), exact=False, seconds=self.seconds,
                         memory_mib=self.memory_mib,
                         within=False)   # only the sides' odds are compared: no split by rounds


def odds_of(players: int, strategy: str, seconds: float | None, memory_mib: int | None = None,
            games: int | None = None, seed: int = 0) -> OddsOf:
    """`OddsOf` these (the evaluation `search` is given by the command)."""
    return OddsOf(players, strategy, seconds, memory_mib, games, seed)


def attempt(evaluate: Evaluate, settings: Settings) -> Odds | str:
    """A candidate's odds, or why the rules refuse its settings, or why its games cannot
    be played over arrays (then it is dropped)."""
    try:
        return evaluate(settings)
    except SpecError as error:
        return f"{type(error).__name__}: {error}"
    except (Unbatchable, HandOver) as why:
        return f"these settings cannot be played over arrays: {why or type(why).__name__}"


def search(space: Space, players: int, strategy: str, evaluate: Evaluate, *, target: float = 0.5,
           tolerance: float = 0.01, max_evaluations: int = 60,
           progress: Callable[[Candidate], None] | None = None, pool: Executor | None = None) -> Search:
    """Walk from the rules' own settings towards `target` (module docstring). With `pool`
    (and `evaluate` a value it can send, `OddsOf`), a step's neighbours are evaluated side
    by side; the walk, its candidates and their order are the same."""
    found = Search(players, strategy, target, tolerance)
    seen: dict[Settings, Candidate] = {}

    def judge_all(batch: list[Settings]) -> None:
        outcomes = (pool.map(partial(attempt, evaluate), batch) if pool is not None and len(batch) > 1
                    else (attempt(evaluate, settings) for settings in batch))
        for settings, outcome in zip(batch, outcomes):
            candidate = (Candidate(settings, None, outcome) if isinstance(outcome, str)
                         else Candidate(settings, outcome, "" if outcome.complete else outcome.limit))
            seen[settings] = candidate
            found.evaluated.append(candidate)
            if progress is not None:
                progress(candidate)

    def judge(settings: Settings) -> Candidate:
        if settings not in seen:
            judge_all([settings])
        return seen[settings]

    def distance(candidate: Candidate) -> float:
        share = candidate.liberal
        return float("inf") if share is None else abs(share - target)

    current = judge(space.origin(players))
    found.start = current
    if current.liberal is None:
        found.best, found.stopped = current, f"the rules' own game has no odds: {current.dropped}"
        return found
    while True:
        if current.within(target, tolerance):
            found.stopped = "within the tolerance"
            break
        best_next = None
        neighbours = list(dict.fromkeys(space.neighbours(current.settings)))
        fresh = [settings for settings in neighbours if settings not in seen]
        room = max(0, max_evaluations - len(found.evaluated))
        if len(fresh) > room:
            found.stopped = f"the limit of {max_evaluations} evaluations"
            fresh = fresh[:room]
        judge_all(fresh)
        for settings in neighbours:
            candidate = seen.get(settings)
            if candidate is not None and candidate.liberal is not None and (
                    best_next is None or distance(candidate) < distance(best_next)):
                best_next = candidate
        if found.stopped:
            if best_next is not None and distance(best_next) < distance(current):
                current = best_next
            break
        if best_next is None or distance(best_next) >= distance(current):
            found.stopped = "no neighbour is closer to the target"
            break
        current = best_next
    found.best = current
    return found


def overlay_text(found: Search, checked: Odds) -> str:
    """The best settings as a variant file on `custom`, with the odds recomputed from it."""
    assert found.best is not None
    values = plain(found.best.settings)
    liberal = float(checked.sides().get("liberal", 0))
    if checked.method == PLAYED:
        low, high = Candidate(found.best.settings, checked).interval or (0.0, 1.0)
        how = f"from {checked.games:,} games played under it, 99% interval {100 * low:.2f}-{100 * high:.2f}%"
        asked = f" --games {checked.games}"
    else:
        how, asked = f"floats, each within {checked.error_bound:.1e}", ""
    lines = [f"# Rebalanced for {found.players} players: a Liberal win with {100 * liberal:.2f}% under the "
             f"strategy profile '{found.strategy}'",
             f"# ({how}; target {100 * found.target:.1f}%). Found by `shrules rebalance -n {found.players} "
             f"--strategy {found.strategy}{asked}`; the search ended: {found.stopped}.",
             'extends = "custom"',
             f'name = "rebalanced_{found.players}p_{_safe(found.strategy)}"',
             f'description = "{found.players} players rebalanced to {100 * liberal:.1f}% Liberal wins under '
             f'{_safe(found.strategy)}"',
             "", "[settings]"]
    for name in sorted(values):
        value = values[name]
        if isinstance(value, list):
            lines.append(f"{name} = [{', '.join(repr(str(v)).replace(chr(39), chr(34)) for v in value)}]")
        elif isinstance(value, str):
            lines.append(f'{name} = "{format_value(value)}"')
        else:
            lines.append(f"{name} = {value}")
    return "\n".join(lines) + "\n"


def _safe(name: str) -> str:
    """A profile's name as it may stand in a variant's name (letters, digits, _)."""
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name)[:40] or "profile"
