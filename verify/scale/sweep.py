"""The custom-game space: which rule sets a sweep checks, and what it found, per rule set.

A rule set of the sweep is the `custom` variant (spec/variants/custom.toml) with settings
of spec/settings.py at one player count: its rules name is the one `--set` makes
(`custom[powers=none,none,peek,execution,execution]`), loaded through the same settings
and overlay machinery as every other command, so no rule is written here. The default
space is every board (each of the five Fascist slots any of the five powers) with the
standard deck and zones, at every count 5-10; `vary` widens it by other settings (the
deck, the zones, the Fascists, the starting tracks), `fixed` pins settings, and `sample`
takes an even random sample of it (seeded, so two runs sample the same rule sets).

Each rule set is checked for the soundness class of the catalogue (spec/properties.toml:
termination, deadlock freedom, deck conservation, every win reachable, values in range)
and keeps the graph facts the checker gives with them (the longest game, the fewest
elected governments per win). `Verdict` reads one task's result back: sound, broken
(which properties, and the shortest game that shows each) or unknown (a limit was hit:
never counted as sound).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from spec.errors import SpecError
from spec.loader import load_spec
from spec.settings import POWERS, SLOTS, parse_value, settings_name

from ..explicit.check import DEFAULT_EXPLORER, select
from ..results import Named, VerdictKind
from ..rules import Rules
from .tasks import Task

BASE = "custom"
"""The variant every rule set of the sweep is a setting of."""

WIDENED = ("deck_liberal", "deck_fascist", "start_liberal", "start_fascist", "hitler_zone", "veto_zone", "fascists",
           "few_alive", "tracker_limit")
"""Settings `--vary` may widen the space by (spec/settings.py); `powers` has `--powers`."""


def soundness_properties() -> tuple[str, ...]:
    """The catalogue's soundness class, in catalogue order (never listed here by hand)."""
    return tuple(p.name for p in select(Rules.named(BASE)) if p.group == "soundness")


def custom_counts() -> tuple[int, ...]:
    """The player counts the custom game is defined for (R-S1, read from the rules)."""
    return tuple(load_spec(BASE).player_counts)


@dataclass(frozen=True, slots=True)
class Space:
    """The rule sets of a sweep (module docstring)."""

    counts: tuple[int, ...] = field(default_factory=custom_counts)
    powers: tuple[str, ...] = POWERS               # what each slot may hold
    vary: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    fixed: tuple[tuple[str, Any], ...] = ()
    sample: int | None = None
    seed: int = 1

    def boards(self) -> list[tuple[str, ...]]:
        """Every board of the space, in order (slot 1 slowest)."""
        return list(itertools.product(self.powers, repeat=SLOTS))

    def settings(self) -> list[dict[str, Any]]:
        """Every combination of settings of the space (the player count aside), unsampled."""
        names = [name for name, _ in self.vary]
        combinations = list(itertools.product(*(values for _, values in self.vary)))
        return [{**dict(self.fixed), "powers": list(board), **dict(zip(names, values))}
                for board in self.boards() for values in combinations]

    def rule_sets(self) -> list[tuple[dict[str, Any], int]]:
        """Every (settings, player count) of the space, sampled when asked."""
        every = [(values, count) for count in self.counts for values in self.settings()]
        if self.sample is not None and self.sample < len(every):
            chosen = sorted(random.Random(self.seed).sample(range(len(every)), self.sample))
            every = [every[number] for number in chosen]
        return every

    def size(self) -> int:
        """How many rule sets the whole space holds (before sampling)."""
        combinations = 1
        for _, values in self.vary:
            combinations *= len(values)
        return len(self.counts) * int(pow(len(self.powers), SLOTS)) * combinations

    def describe(self) -> dict[str, Any]:
        """The space as plain data, for the atlas."""
        return {"counts": list(self.counts), "powers": list(self.powers),
                "vary": {name: list(values) for name, values in self.vary},
                "fixed": {name: value for name, value in self.fixed}, "sample": self.sample, "seed": self.seed,
                "size": self.size()}


def parse_powers(text: str | None) -> tuple[str, ...]:
    """`--powers none,execution`: the powers each slot may hold, each checked as the
    `powers` setting checks it (the site's names understood)."""
    words = [word.strip() for word in (text or "").split(",") if word.strip()]
    try:
        return tuple(dict.fromkeys(parse_value("powers", [word] * SLOTS)[0] for word in words)) or POWERS
    except SpecError as error:
        raise SpecError(f"--powers {text}: {error.message}") from None


def parse_vary(items: tuple[str, ...]) -> tuple[tuple[str, tuple[Any, ...]], ...]:
    """`--vary deck_fascist=10,11,12` or `--vary deck_fascist=9-12`: the values a setting takes."""
    out: dict[str, tuple[Any, ...]] = {}
    for item in items:
        name, equals, text = item.partition("=")
        name = name.strip()
        if not equals or name not in WIDENED:
            raise SpecError(f"--vary {item.strip()!r}: write NAME=A,B,... or NAME=A-B with NAME one of "
                            f"{', '.join(WIDENED)}")
        parts = [part.strip() for part in text.split(",") if part.strip()]
        if len(parts) == 1 and "-" in parts[0]:
            low, _, high = parts[0].partition("-")
            if not (low.strip().isdigit() and high.strip().isdigit()) or int(low) > int(high):
                raise SpecError(f"--vary {item.strip()}: {parts[0]!r} is not a range A-B")
            parts = [str(number) for number in range(int(low), int(high) + 1)]
        try:
            out[name] = tuple(dict.fromkeys(parse_value(name, part) for part in parts))
        except SpecError as error:
            raise SpecError(f"--vary {item.strip()}: {error.message}") from None
        if not out[name]:
            raise SpecError(f"--vary {item.strip()}: give at least one value")
    return tuple(out.items())


def rules_of(values: dict[str, Any]) -> str:
    """The rules name of one rule set (the canonical name `--set` makes)."""
    return settings_name(BASE, values)


def sweep_tasks(space: Space, properties: tuple[str, ...], *, max_states: int | None, time_limit: float | None,
                memory_limit: int | None, explorer: str = DEFAULT_EXPLORER) -> list[Task]:
    """One task per rule set of the space."""
    return [Task(rules_of(values), count, properties, "explicit", explorer, max_states, time_limit, memory_limit)
            for values, count in space.rule_sets()]


class BoardVerdict(Named):
    """What one task found about its rule set (`Verdict.verdict`), as an atlas writes it."""

    SOUND = "sound"
    BROKEN = "broken"
    UNKNOWN = "unknown"

    @classmethod
    def noun(cls) -> str:
        return "rule set's verdict"


@dataclass(frozen=True, slots=True)
class Verdict:
    """What one task found about its rule set: sound, broken or unknown, and its facts."""

    rules: str
    players: int
    form: str
    broken: tuple[str, ...]
    unknown: tuple[str, ...]
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def verdict(self) -> BoardVerdict:
        """`broken` when a property is not as expected, else `unknown` when a limit left
        one undecided, else `sound`."""
        return BoardVerdict.BROKEN if self.broken else BoardVerdict.UNKNOWN if self.unknown else BoardVerdict.SOUND

    @property
    def fewest_elections(self) -> int | None:
        """The most elected governments the quickest route to any one win needs: how long
        the fastest game of the slowest win is (None when some win was not measured)."""
        wins = self.facts.get("fewest_elections", {})
        values = [value for value in wins.values() if value is not None]
        return max(values) if values and len(values) == len(wins) else None


def read_verdict(result: dict[str, Any]) -> Verdict:
    """A task's result as a `Verdict`."""
    # A soundness property whose premise a board never reaches (a Peek on a board without
    # one) is vacuous there: not a pass, and no break either; the board lacks the power.
    verdicts = [VerdictKind.parse(item["verdict"]) for item in result["results"]]
    broken = tuple(item["property"] for item, verdict in zip(result["results"], verdicts)
                   if item["as_expected"] is False and verdict is not VerdictKind.VACUOUS)
    unknown = tuple(item["property"] for item, verdict in zip(result["results"], verdicts)
                    if verdict is VerdictKind.UNKNOWN)
    facts: dict[str, Any] = {"fewest_elections": {}}
    for item in result["results"]:
        states = item.get("states")
        if states is not None:
            facts["states"] = max(facts.get("states", 0), states)
        if "longest_moves" in item:
            facts["longest_moves"] = item["longest_moves"]
            facts["longest_elections"] = item.get("longest_elections")
        if "fewest_elections" in item and item["as_expected"] is not False:
            facts["fewest_elections"][item["property"]] = item["fewest_elections"]
    return Verdict(result["rules"], result["players"], result["form"], broken, unknown, facts)


def games_of(result: dict[str, Any]) -> Iterator[tuple[str, int, list[str]]]:
    """The shortest game of each broken property of one result: (property, moves, lines)."""
    for item in result["results"]:
        if item["as_expected"] is False and VerdictKind.parse(item["verdict"]) is not VerdictKind.VACUOUS \
                and item.get("game"):
            yield item["property"], int(item.get("moves", len(item["game"]))), list(item["game"])
