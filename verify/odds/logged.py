"""How logged games ended: the observed win rates beside the odds of a strategy profile.

A profile's odds (verify/explicit/odds.py) say how often each side wins when every seat
plays a declared way; logged games (secrethitler.io summaries, native transcripts) say
how often it won when people played. Each game is judged move by move first
(engine/judge.py), so a game counts only where the rules it names were followed and the
end is known from the moves, not from the log's word: an illegal game, one the rules
cannot read, or one that stops before a win is counted apart, never as a result. Games
are grouped by player count and by the content hash of the rules they were judged by, so
that odds are compared only with games of the same rules at the same count.

Nothing is fitted: the shares are counted, with a 95% Wilson interval (it stays within
[0, 1] and is honest for the small groups real logs give).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.importers import game_files
from engine.judge import LEGAL, judge_file, rules_identity
from spec.errors import SpecError

from ..explicit.odds import Odds
from ..explicit.odds_played import wilson as wilson_at

Outcome = tuple[str | None, str | None]
"""(winner, how), as the odds key them."""

Z_95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval."""


@dataclass(slots=True)
class Group:
    """The logged games of one player count under one set of rules."""

    players: int
    rules: str
    rules_hash: str
    outcomes: Counter[Outcome] = field(default_factory=Counter)
    unfinished: int = 0

    @property
    def finished(self) -> int:
        return sum(self.outcomes.values())

    def sides(self) -> Counter[str]:
        """Games won by each side."""
        out: Counter[str] = Counter()
        for (winner, _), games in self.outcomes.items():
            if winner is not None:
                out[winner] += games
        return out


@dataclass(slots=True)
class Logged:
    """Every logged game read: grouped where judged legal, counted apart otherwise."""

    groups: dict[tuple[int, str], Group] = field(default_factory=dict)
    illegal: int = 0
    unreadable: dict[str, str] = field(default_factory=dict)     # file -> why

    def group(self, players: int, rules_hash: str) -> Group | None:
        return self.groups.get((players, rules_hash))

    def others(self, players: int, rules_hash: str) -> int:
        """Games judged legal under other rules or at another count."""
        return sum(g.finished + g.unfinished for key, g in self.groups.items() if key != (players, rules_hash))


def read_logged(paths: list[Path], fmt: str = "auto") -> Logged:
    """Judge every game file under `paths` (files or folders) and group the legal ones.
    A path that does not exist is bad input (`SpecError`); a file that cannot be read as
    a game is counted as unreadable, with why, as `judge` reports it."""
    logged = Logged()
    for path in paths:
        if not path.exists():
            raise SpecError(f"{path}: no such file or folder of logged games")
        for file in game_files(path, fmt):
            try:
                judged = judge_file(file, fmt)
            except SpecError as error:
                logged.unreadable[str(file)] = str(error)
                continue
            if judged.game is None:         # rules these games cannot be judged by
                logged.unreadable[str(file)] = judged.reason or judged.verdict
                continue
            if judged.verdict != LEGAL:
                logged.illegal += 1
                continue
            players = judged.game.players
            digest = judged.rules_hash or rules_identity(judged.rules, judged.game.spec)[1]
            group = logged.groups.get((players, digest))
            if group is None:
                group = logged.groups[players, digest] = Group(players, judged.rules, digest)
            if judged.complete and judged.winner is not None:
                group.outcomes[judged.winner, judged.how] += 1
            else:
                group.unfinished += 1
    return logged


def wilson(successes: int, trials: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a share (0, 1 when there are no trials)."""
    return wilson_at(successes, trials, Z_95)


def compared(odds: Odds, logged: Logged, rules_hash: str) -> dict[str, Any]:
    """The logged games of the odds' count and rules beside the odds (`odds --against`'s
    JSON): each side's and each outcome's share, its interval, the profile's odds and
    whether they fall inside it."""
    group = logged.group(odds.players, rules_hash)
    games = group.finished if group is not None else 0
    out: dict[str, Any] = {"players": odds.players, "rules": odds.rules, "rules_hash": rules_hash,
                           "games": games, "unfinished": group.unfinished if group is not None else 0,
                           "other_rules_or_counts": logged.others(odds.players, rules_hash),
                           "illegal": logged.illegal, "unreadable": len(logged.unreadable)}
    sides = group.sides() if group is not None else Counter[str]()
    predicted = odds.sides() if odds.complete else {}

    def row(count: int, expected: Any) -> dict[str, Any]:
        low, high = wilson(count, games)
        item: dict[str, Any] = {"games": count, "share": count / games if games else None,
                                "interval": [low, high]}
        if odds.complete:
            item["odds"] = float(expected)
            item["inside"] = bool(games) and low <= float(expected) <= high
        return item

    out["sides"] = {side: row(sides[side], predicted.get(side, 0))
                    for side in sorted(set(sides) | set(predicted))}
    outcomes = group.outcomes if group is not None else Counter[Outcome]()
    keys = sorted(set(outcomes) | (set(odds.outcomes) if odds.complete else set()), key=str)
    out["outcomes"] = [{"winner": winner, "how": how, **row(outcomes[winner, how], odds.outcomes.get((winner, how), 0))}
                       for winner, how in keys]
    return out


def compared_lines(data: dict[str, Any], sources: list[str]) -> list[str]:
    """`compared` for a reader: a line per side and outcome, `!` where the odds fall outside
    the logged games' 95% interval."""
    games = data["games"]
    lines = [f"Logged games ({', '.join(sources)}): {games} finished at {data['players']} players under "
             f"{data['rules']}; apart: {data['unfinished']} unfinished, {data['other_rules_or_counts']} under other "
             f"rules or counts, {data['illegal']} illegal, {data['unreadable']} unreadable"]
    if not games:
        lines.append("  no finished game to compare with")
        return lines

    def line(label: str, item: dict[str, Any]) -> str:
        low, high = item["interval"]
        text = (f"  {label}: logged {100 * item['share']:.1f}% ({item['games']} of {games}; "
                f"95% interval {100 * low:.1f}-{100 * high:.1f}%)")
        if "odds" in item:
            text += f", odds {100 * item['odds']:.1f}%" + ("" if item["inside"] else " !")
        return text

    for side, item in data["sides"].items():
        lines.append(line(f"{side} win", item))
    for item in data["outcomes"]:
        lines.append(line(f"{item['winner']} win by {item['how']}", item))
    return lines
