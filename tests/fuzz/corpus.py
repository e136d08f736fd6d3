"""The valid inputs that mutations start from, gathered when the fuzzer runs.

Nothing is copied into the project: example transcripts and variants are read from the
project itself, ITF traces are made by `shrules play --trace` into a temporary directory,
and real secrethitler.io logs are read from the shared data folder beside the checkout
(skipped, with the reason, where it is absent).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
"""The project checkout."""

SHIO_DIR = Path(os.environ.get("SHRULES_FUZZ_SHIO_DIR", ROOT.parent / "shared" / "data" / "secrethitler-io"))
"""Real secrethitler.io game summaries (the same folder tests/test_secrethitler_io.py reads)."""

TRACE_GAMES = ((5, 1), (7, 2))
"""(players, seed) of the random games whose ITF traces the ITF cases tamper with."""


@dataclass
class Corpus:
    """Valid inputs by kind. `shio_files` is empty when the folder is absent; `shio_skip`
    then says why."""

    transcripts: dict[str, bytes] = field(default_factory=dict)
    variants: dict[str, bytes] = field(default_factory=dict)
    traces: dict[str, Any] = field(default_factory=dict)
    shio_files: list[Path] = field(default_factory=list)
    shio_skip: str = ""
    disputes: bytes = b""
    positions: dict[str, bytes] = field(default_factory=dict)

    def shio(self, index: int) -> Any:
        """One real secrethitler.io game summary, parsed."""
        return json.loads(self.shio_files[index % len(self.shio_files)].read_text(encoding="utf-8"))


def _read_dir(folder: Path, pattern: str) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.glob(pattern))}


def make_trace(python: str, players: int, seed: int) -> Any:
    """A valid ITF trace of a random game, made by the tool itself."""
    with tempfile.TemporaryDirectory(prefix="shrules-fuzz-corpus-") as folder:
        subprocess.run([python, "-P", "-m", "verify", "play", "--players", str(players), "--seed", str(seed), "-q",
                        "--trace", "game.itf.json"], cwd=folder, check=True, capture_output=True, timeout=120)
        return json.loads((Path(folder) / "game.itf.json").read_text(encoding="utf-8"))


def build(python: str = sys.executable, with_traces: bool = True) -> Corpus:
    """Gather every valid input the generators start from."""
    corpus = Corpus()
    corpus.transcripts = _read_dir(ROOT / "engine" / "examples", "*.jsonl")
    corpus.variants = {"standard.toml": (ROOT / "spec" / "rules" / "standard.toml").read_bytes()}
    corpus.variants.update(_read_dir(ROOT / "spec" / "variants", "*.toml"))
    corpus.disputes = (ROOT / "spec" / "disputes.toml").read_bytes()
    corpus.positions = _read_dir(ROOT / "spec" / "positions", "*.jsonl")
    if with_traces:
        corpus.traces = {f"{n}p-seed{s}.itf.json": make_trace(python, n, s) for n, s in TRACE_GAMES}
    if SHIO_DIR.is_dir():
        corpus.shio_files = sorted(SHIO_DIR.glob("*.json"))
    if not corpus.shio_files:
        corpus.shio_skip = (f"no secrethitler.io logs at {SHIO_DIR} (a checkout beside ../shared is needed, "
                            f"or set SHRULES_FUZZ_SHIO_DIR)")
    return corpus
