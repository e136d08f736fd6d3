"""Hostile command lines: bad option values, huge or inverted ranges, negative limits,
inline settings, odd input paths (a FIFO, /dev/zero, a folder) and output paths that
cannot be written (/proc, a path whose parent is a file, /dev/full).

Output paths are only ever inside the case's directory or kernel files that cannot be
changed by writing: the fuzzer runs as whoever runs it, possibly root.
"""

from __future__ import annotations

import random

from .commands import SMALL_ASK, SMALL_CHECK, SMALL_DIFF, SMALL_GRAPH, SMALL_PROVE
from .corpus import Corpus
from .model import Case, Content
from .mutate import giant_int_text

BAD_COUNTS = ("1-1000000000", "7-5", "0", "-5", "5-", ",", "5,,6", "99", "1000000", "5-6-7", "", " ", "x",
              "0-0", "16", "17", "4", "1-100000000000000000000", "5," * 10_000, "٥", "\u202e5")
BAD_INTS = ("-1", "0", "x", "", "1e3", "nan", "1" + "0" * 30, "9" * 5000, "-9" * 3, "0x10", " 5", "5 ")
BAD_FLOATS = ("-1", "nan", "inf", "-inf", "x", "", "1e400", "-0", "9" * 5000)
UNWRITABLE = ("/proc/x", "/proc/self/x/y", "afile/out", "afile/sub/out", "/dev/full", ".", "adir", "",
              "adir/", "/sys/x", "/proc/self/mem")
BAD_SETTINGS = ("powers=__import__('os')", "powers=" + ",".join(["none"] * 1000), "deck_fascist=1000000000",
                "deck_fascist=" + "9" * 5000, "deck_fascist=-1", "players=1-1000000000", "players=7-5",
                "players=", "=5", "nonsense", "__class__=1", "hitler_zone=1e9", "tracker_limit=0",
                "powers=none,none,none,none,none,none", "few_alive=nan", "hitler_knows_fascists=maybe")
BAD_INLINE = ("custom[players=1-1000000000]", "custom[deck_fascist=1000000000]", "custom[powers=__class__]",
              "custom[", "custom[]", "custom[x]", "custom[deck_fascist=10; deck_fascist=11]",
              "standard[deck_fascist=" + "9" * 5000 + "]", "custom[players=" + "[" * 5000 + "]",
              "../custom[deck_fascist=10]", "/etc/passwd", "/dev/zero", "/proc/self/environ", "", ".", "/",
              "x" * 100_000, "mistakes/../../../../etc/hosts", "standard.toml", "~", "$HOME")
EMPTY_FILES: tuple[tuple[str, Content], ...] = (("afile", b"not a folder\n"), ("adir/keep", b""))


def players(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    """A bad player-count list for a command that takes one."""
    counts = rng.choice(BAD_COUNTS)
    command = rng.choice(("check", "diff", "ask", "prove", "smt-bench", "bench"))
    if command == "check":
        return "players:check", ("check", "--players", counts, *SMALL_CHECK)
    if command == "diff":
        return "players:diff", ("diff", "standard", "rebalance", "--players", counts, *SMALL_DIFF)
    if command == "ask":
        return "players:ask", ("ask", "--players", counts, "--can", "phase == 'over'", *SMALL_ASK)
    if command == "prove":
        return "players:prove", ("prove", "deck_conservation_liberal", "--players", counts, *SMALL_PROVE)
    if command == "smt-bench":
        return "players:smt-bench", ("smt-bench", "--players", counts)
    return "players:bench", ("bench", "--players", counts, "--seconds", "0.2")


def numbers(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    """A bad integer or float option value."""
    value_int, value_float = rng.choice(BAD_INTS), rng.choice(BAD_FLOATS)
    options = (
        ("play", ("play", "--players", value_int, "-q")),
        ("play-seed", ("play", "--players", "5", "--seed", rng.choice((value_int, giant_int_text(rng))), "-q")),
        ("check-max-states", ("check", "--players", "5", *SMALL_CHECK[:2], "--max-states", value_int, "--time-limit", "3")),
        ("check-time-limit", ("check", "--players", "5", *SMALL_CHECK[:2], "--time-limit", value_float, "--max-states", "3000")),
        ("check-workers", ("check", "--players", "5", *SMALL_CHECK[:4], "--max-states", "3000", "--workers", value_int)),
        ("check-memory", ("check", "--players", "5", *SMALL_CHECK[:6], "--memory-limit", value_int)),
        ("ask-seconds", ("ask", "--players", "5", "--can", "phase == 'over'", "--seconds", value_float,
                         "--max-states", "3000")),
        ("ask-max-states", ("ask", "--players", "5", "--can", "phase == 'over'", "--seconds", "3",
                            "--max-states", value_int)),
        ("graph-players", ("graph", "--players", value_int, *SMALL_GRAPH)),
        ("graph-limits", ("graph", "--players", "5", "--max-states", value_int, "--time-limit", value_float)),
        ("prove-depth", ("prove", "deck_conservation_liberal", "--players", "5", "--depth", value_int, "--k", "1",
                         "--seconds", "4")),
        ("prove-k", ("prove", "deck_conservation_liberal", "--players", "5", "--depth", "3", "--k", value_int,
                     "--seconds", "4")),
        ("prove-seconds", ("prove", "deck_conservation_liberal", "--players", "5", "--depth", "3", "--k", "1",
                           "--seconds", value_float)),
        ("diff-limits", ("diff", "standard", "rebalance", "--players", "5", "--time-limit", value_float,
                         "--max-pairs", value_int, "--random-games", "5", "--random-time", "1", "--no-properties")),
        ("bench-seconds", ("bench", "--players", "5", "--seconds", value_float)),
        ("smt-bench-agreement", ("smt-bench", "--players", "5", "--agreement", value_int)),
    )
    name, args = rng.choice(options)
    return f"number:{name}", args


OUTPUT_OPTIONS = ("--trace", "--report", "--traces", "--baseline", "-o")


def allowed_outputs(args: tuple[str, ...]) -> tuple[str, ...]:
    """What the command may create: only where it was told to write (all of the working
    directory for '.', the folder for 'adir'), nothing anywhere else."""
    paths = [args[i + 1] for i, arg in enumerate(args[:-1]) if arg in OUTPUT_OPTIONS]
    allowed: list[str] = []
    for path in paths:
        if path == ".":
            allowed.append("*")
        elif path.startswith("adir"):
            allowed.append("adir/*")
    return tuple(allowed)


def outputs(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    """An output path that cannot be written (or, for '.' and a folder, can)."""
    path = rng.choice(UNWRITABLE)
    options = (
        ("play-trace", ("play", "--players", "5", "-q", "--trace", path)),
        ("check-report", ("check", "--players", "5", *SMALL_CHECK, "--report", path)),
        ("check-traces", ("check", "--players", "5", *SMALL_CHECK, "--traces", path)),
        ("check-baseline", ("check", "--players", "5", *SMALL_CHECK, "--baseline", path)),
        ("check-update-baseline", ("check", "--players", "5", *SMALL_CHECK, "--baseline", path, "--update-baseline")),
        ("graph-output", ("graph", "--players", "5", *SMALL_GRAPH, "-o", path)),
        ("diff-trace", ("diff", "standard", "mistakes/tie_passes", "--players", "5", *SMALL_DIFF, "--trace", path)),
        ("prove-trace", ("prove", "deck_conservation_liberal", "--players", "5", *SMALL_PROVE, "--trace", path)),
    )
    name, args = rng.choice(options)
    return f"output:{name}", args


def inputs(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    """An input path that is not a readable file: a FIFO, a device, a folder, nothing."""
    path = rng.choice(("pipe", "/dev/zero", "/dev/urandom", "/proc/self/mem", "adir", "missing", "", "/dev/null",
                       "/proc/self/environ", "afile/x"))
    options = (
        ("replay", ("replay", path)),
        ("judge", ("judge", path)),
        ("judge-shio", ("judge", "--format", "secrethitler-io", path)),
        ("ask-game", ("ask", "--game", path, "--move", '{"move": "nominate", "by": 0, "chancellor": 1}', *SMALL_ASK)),
        ("ask-catalogue", ("ask", "--catalogue", path)),
        ("check-settings", ("check", "--players", "5", *SMALL_CHECK, "--rules", "custom", "--settings", path)),
        ("bench-judge", ("bench", "--judge", path, "--seconds", "0.5")),
        ("rules", ("play", "--players", "5", "-q", "--rules", path)),
    )
    name, args = rng.choice(options)
    return f"input:{name}", args


def settings(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    """Hostile `--set`, `--rules NAME[...]` and variant names."""
    roll = rng.randrange(3)
    if roll == 0:
        return "settings:set", ("check", "--players", "5", *SMALL_CHECK, "--set", rng.choice(BAD_SETTINGS))
    rules = rng.choice(BAD_INLINE)
    if roll == 1:
        return "settings:inline-play", ("play", "--players", "5", "-q", "--rules", rules)
    return "settings:inline-diff", ("diff", rules, "standard", "--players", "5", *SMALL_DIFF)


def misc(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    """Unknown commands and options, missing arguments, contradictory flags."""
    return "misc", rng.choice((
        ("nonsense",), ("play", "--nonsense"), ("ask", "no-such-dispute"), ("ask", "--move", "{}"),
        ("ask", "--game", "afile"), ("ask", "--can", "True", "--never", "False"), ("ask", "--lang", "xx"),
        ("prove", "__class__", "--players", "5", *SMALL_PROVE[:4]), ("prove", "x" * 100_000),
        ("prove", "", "--players", "5"), ("graph", "--players", "5", *SMALL_GRAPH, "--project", "__class__,phase"),
        ("graph", "--players", "5", *SMALL_GRAPH, "--project", ",".join(["phase"] * 10_000)),
        ("graph", "--players", "5", *SMALL_GRAPH, "--project", ""), ("graph", "--players", "5", "--format", "x"),
        ("check", "--players", "5", *SMALL_CHECK, "--backend", "x"), ("check", "-p", "__class__", "--players", "5",
                                                                       "--time-limit", "3"),
        ("check", "--players", "5", *SMALL_CHECK[2:], "-p", "\u202e" + "x" * 10_000),
        ("diff", "standard"), ("diff", "standard", "standard", "--players", "5", *SMALL_DIFF),
        ("judge",), ("--players", "5"), ("-h", "x"), ("play", "--rules"),
    ))


FAMILIES = (players, numbers, outputs, inputs, settings, misc)


def generate(rng: random.Random, ident: str, corpus: Corpus) -> Case:
    """One command-line case. The working directory holds a file, a folder and a FIFO
    for the path cases to point at."""
    maker = rng.choice(FAMILIES)
    family, args = maker(rng)
    allowed = allowed_outputs(args) if maker is outputs else ()
    return Case("cli", ident, family, args, EMPTY_FILES, outputs=allowed, fifos=("pipe",))
