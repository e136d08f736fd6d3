"""Command lines that feed an input to the tool with every search kept small.

A hostile input must be refused or judged quickly; a legitimate search the input asks
for must not be what makes a case slow. So every command that searches gets small
limits here, and only the input is hostile.
"""

from __future__ import annotations

import random

SMALL_CHECK = ("-p", "deck_conservation_liberal", "--time-limit", "3", "--max-states", "3000", "--workers", "1", "-q")
SMALL_DIFF = ("--time-limit", "2", "--max-pairs", "3000", "--random-games", "5", "--random-time", "1",
              "--no-properties", "--workers", "1")
SMALL_ASK = ("--seconds", "3", "--max-states", "3000")
SMALL_GRAPH = ("--max-states", "2000", "--time-limit", "3")
SMALL_PROVE = ("--depth", "3", "--k", "1", "--seconds", "4")


def with_rules(rules: str, rng: random.Random, players: str = "5") -> tuple[tuple[str, ...], str]:
    """A command that loads and runs rules `rules`, and its name. Play is the cheapest
    and compiles every rule, so it is the most frequent."""
    choice = rng.choices(("play", "check", "graph", "diff", "ask", "prove"), weights=(6, 1, 1, 1, 1, 1))[0]
    if choice == "play":
        return ("play", "--rules", rules, "--players", players, "--seed", str(rng.randrange(100)), "-q"), choice
    if choice == "check":
        return ("check", "--rules", rules, "--players", players, *SMALL_CHECK), choice
    if choice == "graph":
        return ("graph", "--rules", rules, "--players", players, *SMALL_GRAPH), choice
    if choice == "diff":
        return ("diff", "standard", rules, "--players", players, *SMALL_DIFF), choice
    if choice == "ask":
        return ("ask", "--rules", rules, "--players", players, "--can", "phase == 'over'", *SMALL_ASK), choice
    return ("prove", "deck_conservation_liberal", "--rules", rules, "--players", players, *SMALL_PROVE), choice
