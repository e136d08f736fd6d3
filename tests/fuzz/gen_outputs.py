"""Output folders with something planted in them: links, FIFOs, files and folders where
the command's outputs go.

A report, an atlas, a rulings book or a trace is written into a folder the user names;
someone else may have been there first. Each case plants a few things at the names the
command writes (`report.json`, `traces/`, `atlas.html`, `rules/`, the trace file) and
runs it. A link points into the canary directory (a write through it creates a canary
file: an escape) or at an input of the case (a write through it changes the input: an
escape). The run must end in a verdict or one error line; replacing what was planted is
allowed, writing through it is not.
"""

from __future__ import annotations

import random

from .corpus import Corpus
from .model import CANARY, IDENT, Case, Content

OUT = "out"
VICTIM = "victim.txt"
"""An input of every case that a link may point at: it must be unchanged afterwards."""

COMMANDS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    # name: (arguments, files it writes in OUT, folders it writes in OUT)
    "report": (("check", "-n", "5", "-p", "tracks_in_range", "--max-states", "2000", "--workers", "1", "-q",
                "--report", OUT),
               ("report.json", "report.html", "report.md", "junit.xml", "timings.json"), ("traces",)),
    "atlas": (("sweep", "-n", "5", "--set", "start_fascist=4", "--set", "start_liberal=4", "--powers",
               "none,execution", "--sample", "1", "--seed", "3", "--max-states", "20000", "--cache", "kept",
               "--report", OUT),
              ("atlas.json", "atlas.html"), ()),
    "book": (("book", OUT, "--ids", "four-players"),
             ("index.html", "index.de.html"), ("rules", "en", "de")),
    "trace": (("play", "-n", "5", "--seed", "1", "-q", "--trace", f"{OUT}/game.itf.json"),
              ("game.itf.json",), ()),
}


def generate(rng: random.Random, ident: str, corpus: Corpus) -> Case:
    """One output-folder case: a command and one to three things planted where it writes."""
    command = rng.choice(sorted(COMMANDS))
    args, names, folders = COMMANDS[command]
    files: list[tuple[str, Content]] = [(VICTIM, b"an input a planted link points at\n")]
    links: list[tuple[str, str]] = []
    fifos: list[str] = []
    hows: list[str] = []
    for _ in range(rng.randrange(1, 4)):
        at_folder = bool(folders) and rng.random() < 0.4
        name = f"{OUT}/{rng.choice(folders if at_folder else names)}"
        if any(name == taken for taken, _ in files) or name in fifos or any(name == taken for taken, _ in links):
            continue
        how = rng.choice(("link-outside", "link-to-input", "link-dangling", "fifo", "other-kind") if not at_folder
                         else ("link-outside", "link-to-input-folder", "a-file"))
        hows.append(f"{'folder' if at_folder else 'file'}:{how}")
        if how == "link-outside":
            links.append((name, f"{CANARY}/PWNED_{IDENT}"))
        elif how == "link-to-input":
            links.append((name, f"../{VICTIM}"))
        elif how == "link-to-input-folder":
            files.append(("inputs/keep.itf.json", b"{}\n"))
            links.append((name, "../inputs"))
        elif how == "link-dangling":
            links.append((name, "../nowhere/x"))
        elif how == "fifo":
            fifos.append(name)
        elif how == "other-kind":
            files.append((f"{name}/keep", b""))       # a folder where a file goes
        else:
            files.append((name, b"not a folder\n"))    # a file where a folder goes
    outputs = (f"{OUT}/*", "kept/*") if command != "trace" else (f"{OUT}/*",)
    return Case("outputs", ident, f"{command}:{'+'.join(sorted(set(hows))) or 'none'}", args, tuple(files),
                outputs=outputs, fifos=tuple(fifos), links=tuple(links), note=command)
