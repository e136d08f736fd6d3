"""A planted invariant cache saves work or is a miss: it never changes a verdict.

The invariant cache (verify/smt/infer.py) holds the texts of the candidates the fixpoint
kept last time. Anyone who can write to it (a shared CI cache, a colleague's folder) can
plant entries. The mutant tests/mutants/reshuffle_loses_tile.toml loses a Fascist tile at
the reshuffle, so `deck_conservation_fascist` is refuted at 5 players (by a game of about
fifty moves); a cache entry claiming the property itself, with the label of the `deal`
phase beside it (a phase no rule moves into), used to be checked in the initial state
only, and the property came out "proved". Here the forged entry must be dropped by the
fixpoint and the verdict must stay refuted or unknown; damaged files are a miss with one
warning line; writing the cache never follows a planted link.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import verify.smt.infer as infer
from spec.errors import Location
from spec.invariants import Invariant, Strengthening, guard_phase, load_invariants
from spec.lang.check import parse
from spec.lang.types import BOOL
from spec.loader import load_spec
from spec.properties import load_properties, state_scope
from verify.cli import main
from verify.results import Limits, Proved
from verify.smt.backend import Backend
from verify.smt.check import check_property
from verify.smt.induction import Induction
from verify.smt.system import System

MUTANT = str(Path(__file__).parent / "mutants" / "reshuffle_loses_tile.toml")
PROPERTY = "deck_conservation_fascist"
PLAYERS = 5
SECONDS = 90
"""No damaged file may keep a read waiting longer than this (a FIFO, an endless device).
The slowest test here takes 4 s on an idle machine; with both cores shared four ways it
took over 20 s of wall time, which is no hang: the alarm is for a read that never ends."""


@pytest.fixture
def deadline() -> Iterator[None]:
    """Fail instead of hanging: an alarm interrupts the test after `SECONDS`."""
    def expired(signum: int, frame: Any) -> None:
        raise TimeoutError(f"still running after {SECONDS} s: a damaged cache file made a read wait")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache of this test's own, as $SHRULES_CACHE."""
    root = tmp_path / "cache"
    monkeypatch.setenv("SHRULES_CACHE", str(root))
    return root


def _forge(spec_name: str, prop_name: str) -> tuple[Path, str]:
    """Plant, for the key the solver will look up, the strongest forgery the cache format
    allows: the property's own text, labelled with the `deal` phase where the format keeps
    a label beside each text (up to version 6), the text alone where it keeps none.
    Returns the file and the forged text."""
    spec = load_spec(spec_name)
    prop = next(p for p in load_properties(spec) if p.name == prop_name)
    assert prop.kind == "always"
    entry: Any = ["deal", prop.text] if int(infer.CACHE_VERSION) <= 6 else prop.text
    path = infer.cache_dir() / f"{infer.cache_key(load_invariants(spec), PLAYERS)}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"version": infer.CACHE_VERSION, "invariants": [entry]}))
    return path, prop.text


# ---------------------------------------------------------------- the forged proof


def test_a_forged_entry_is_dropped_and_the_property_is_not_proved(cache: Path, deadline: None) -> None:
    """The attack through the library: the forged candidate is read (the cache is hit) and
    then proved again against every rule, which drops it; the verdict is not "proved"."""
    _, text = _forge(MUTANT, PROPERTY)
    spec = load_spec(MUTANT)
    backend = Backend(spec, PLAYERS, infer=True)
    forged = [c.name for c in backend.induction.candidates if c.origin == "inferred" and c.text == text]
    assert forged, "the planted entry was read back"
    support = backend.induction.support()
    assert all(name in support.dropped for name in forged)
    prop = next(p for p in backend.catalogue if p.name == PROPERTY)
    assert PROPERTY in support.dropped
    verdict = check_property(spec, prop, PLAYERS, Limits(max_depth=4, k=2), infer=True)
    assert not isinstance(verdict, Proved), verdict


def test_prove_does_not_prove_a_refuted_property_from_a_forged_cache(cache: Path, deadline: None) -> None:
    """The attack as a user meets it: `shrules prove --infer` with the planted cache. A
    short depth keeps the test fast: the verdict is unknown (exit 3), never proved."""
    _forge(MUTANT, PROPERTY)
    result = CliRunner().invoke(main, ["prove", PROPERTY, "--rules", MUTANT, "-n", str(PLAYERS), "--infer",
                                       "--depth", "4", "--k", "2"])
    assert f"{PLAYERS} players: proved" not in result.output, result.output
    assert result.exit_code in (1, 3), result.output


def test_the_guard_phase_is_read_from_the_expression() -> None:
    """`guard_phase` is the one place a candidate's phase comes from: only a top-level
    `phase != 'p'` (either side, any operand of an `or`) exempts it from the rules that do
    not move into p; anything else is unguarded and checked against every rule."""
    spec = load_spec("standard")
    scope = state_scope(spec)

    def guard(text: str) -> str | None:
        return guard_phase(spec, parse(text, scope, Location("<test>"), BOOL))

    assert guard("phase != 'vote' or election_tracker <= 2") == "vote"
    assert guard("election_tracker <= 2 or 'veto' != phase") == "veto"
    assert guard("phase != 'deal'") == "deal"
    assert guard("phase == 'vote' or election_tracker <= 2") is None
    assert guard("phase != 'vote' and election_tracker <= 2") is None
    assert guard("not (phase == 'vote') or election_tracker <= 2") is None
    assert guard("election_tracker <= 2") is None


def test_a_name_cannot_guard_an_invariant() -> None:
    """An inferred invariant named after a phase (as the cache's candidates are) is still
    checked against every rule when its text has no guard: the solver reads the phase from
    the text alone."""
    base = load_invariants(load_spec("standard"))
    spec = base.spec
    text = "election_tracker <= 2"
    node = parse(text, state_scope(spec), Location("<test>"), BOOL)
    planted = Invariant("found_0_deal", "planted", (), node, text, (), Location("<test>"), "inferred")
    induction = Induction(System(spec, PLAYERS), Strengthening(spec, (planted,), base.ranking, base.distance), ())
    assert induction.candidate("found_0_deal").phase is None


# ---------------------------------------------------------------- damaged files


@pytest.fixture
def mined(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Records each time the candidates are mined (a cache miss), mining nothing."""
    calls: list[int] = []

    def recorder(spec: Any, players: int, *args: Any, **kwargs: Any) -> list[Invariant]:
        calls.append(players)
        return []

    monkeypatch.setattr(infer, "candidates", recorder)
    return calls


def _key_path() -> tuple[Strengthening, Path]:
    base = load_invariants(load_spec("standard"))
    return base, infer.cache_dir() / f"{infer.cache_key(base, PLAYERS)}.json"


def _body(entries: Any, version: Any = None) -> str:
    return json.dumps({"version": infer.CACHE_VERSION if version is None else version, "invariants": entries})


def _plant(kind: str, path: Path, outside: Path) -> None:
    """Damage of one kind where the cache file (or its folder) should be."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "not json":
        path.write_text("{not json")
    elif kind == "a json list":
        path.write_text("[1, 2]")
    elif kind == "not a list":
        path.write_text(_body({"phase": "deal"}))
    elif kind == "not texts":
        path.write_text(_body([1, None]))
    elif kind == "labelled":
        path.write_text(_body([["deal", "election_tracker <= 2"]]))
    elif kind == "unparsable":
        path.write_text(_body(["phase != 'vote' or ("]))
    elif kind == "not a condition":
        path.write_text(_body(["election_tracker + 1"]))
    elif kind == "code":
        path.write_text(_body(["__import__('os').system('false')"]))
    elif kind == "nested":
        path.write_text("[" * 100_000 + "]" * 100_000)
    elif kind == "not utf-8":
        path.write_bytes(b"\xff\xfe" * 10)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "endless device":
        path.symlink_to("/dev/zero")
    elif kind == "link to a good file":
        outside.write_text(_body(["election_tracker <= 2"]))
        path.symlink_to(outside)
    elif kind == "folder":
        path.mkdir()
    elif kind == "linked folder":
        outside.mkdir()
        (outside / path.name).write_text(_body(["election_tracker <= 2"]))
        path.parent.rmdir()
        path.parent.symlink_to(outside)
    elif kind == "cache is a file":
        path.parent.rmdir()
        path.parent.write_text("")
    else:
        raise AssertionError(kind)


DAMAGE = ["not json", "a json list", "not a list", "not texts", "labelled", "unparsable", "not a condition", "code",
          "nested", "not utf-8", "fifo", "endless device", "link to a good file", "folder", "linked folder",
          "cache is a file"]


BLOCKING = ["fifo", "endless device"]
"""Damage that would make a careless read wait forever or read until memory runs out:
tried in a child process with a time limit and a memory limit, so that a regression
fails the test instead of hanging it or exhausting the machine."""

CHILD = """
import sys
import verify.smt.infer as infer
from spec.invariants import load_invariants
from spec.loader import load_spec
mined = []
infer.candidates = lambda spec, players, *a, **k: mined.append(players) or []
found, _ = infer.strengthen(load_invariants(load_spec("standard")), int(sys.argv[1]))
print(mined, sum(1 for i in found.invariants if i.origin == "inferred"))
"""


def _limited() -> None:
    limit = 2 * 1024 ** 3
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


@pytest.mark.parametrize("kind", BLOCKING)
def test_a_blocking_cache_file_is_a_miss_with_one_warning(kind: str, cache: Path, tmp_path: Path) -> None:
    if kind == "fifo" and not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    _, path = _key_path()
    _plant(kind, path, tmp_path / "outside")
    child = subprocess.run([sys.executable, "-c", CHILD, str(PLAYERS)], capture_output=True, text=True,
                           timeout=SECONDS * 3, preexec_fn=_limited, env=dict(os.environ))
    assert child.returncode == 0, child.stderr[-2000:]
    assert child.stdout.split() == [f"[{PLAYERS}]", "0"], child.stdout
    assert child.stderr.count("\n") == 1 and child.stderr.startswith("shrules: warning: invariant cache"), child.stderr


@pytest.mark.parametrize("kind", [kind for kind in DAMAGE if kind not in BLOCKING])
def test_a_damaged_cache_file_is_a_miss_with_one_warning(kind: str, cache: Path, tmp_path: Path, mined: list[int],
                                                         deadline: None, capsys: pytest.CaptureFixture[str]) -> None:
    base, path = _key_path()
    _plant(kind, path, tmp_path / "outside")
    found, _ = infer.strengthen(base, PLAYERS)
    assert mined == [PLAYERS], "a damaged file is a miss: the candidates are mined again"
    assert not [i for i in found.invariants if i.origin == "inferred"]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("shrules: warning: invariant cache"), err
    assert "Traceback" not in err


def test_another_versions_file_is_a_silent_miss(cache: Path, mined: list[int],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    base, path = _key_path()
    path.parent.mkdir(parents=True)
    path.write_text(_body([["deal", "election_tracker <= 2"]], version="6"))
    infer.strengthen(base, PLAYERS)
    assert mined == [PLAYERS] and capsys.readouterr().err == ""


def test_what_is_remembered_is_read_back(cache: Path, mined: list[int], capsys: pytest.CaptureFixture[str]) -> None:
    """The cache does save work: the texts written are read back, and nothing is mined."""
    base, path = _key_path()
    spec = base.spec
    texts = ["phase != 'vote' or election_tracker <= 2", "election_tracker >= 0"]
    kept = [Invariant(f"found_{i}", "", (), parse(t, state_scope(spec), Location("<test>"), BOOL), t, (),
                      Location("<test>"), "inferred") for i, t in enumerate(texts)]
    infer.remember(infer.cache_key(base, PLAYERS), kept)
    found, _ = infer.strengthen(base, PLAYERS)
    assert mined == []
    assert [i.text for i in found.invariants if i.origin == "inferred"] == texts
    assert [i.name for i in found.invariants if i.origin == "inferred"] == ["found_0_vote", "found_1_any"]
    assert capsys.readouterr().err == ""


# ---------------------------------------------------------------- planted links on write


def _kept(spec_name: str = "standard") -> tuple[str, list[Invariant]]:
    base = load_invariants(load_spec(spec_name))
    text = "election_tracker >= 0"
    node = parse(text, state_scope(base.spec), Location("<test>"), BOOL)
    return infer.cache_key(base, PLAYERS), [Invariant("found_0_any", "", (), node, text, (), Location("<test>"),
                                                      "inferred")]


@pytest.mark.parametrize("planted", ["tmp", "json"])
def test_writing_the_cache_never_follows_a_planted_link(planted: str, cache: Path, tmp_path: Path) -> None:
    """A link planted at the old fixed temporary name `<key>.tmp`, or at `<key>.json`
    itself, pointing at a file of the user's: the write replaces or ignores the link, the
    file it points at is unchanged."""
    key, kept = _kept()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    folder = infer.cache_dir()
    folder.mkdir(parents=True)
    link = folder / f"{key}.{planted}"
    link.symlink_to(victim)
    infer.remember(key, kept)
    assert victim.read_text() == "precious\n"
    written = folder / f"{key}.json"
    assert not written.is_symlink()
    assert json.loads(written.read_text())["invariants"] == ["election_tracker >= 0"]


def test_a_linked_cache_folder_is_not_written_through(cache: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    key, kept = _kept()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    cache.mkdir()
    (cache / "invariants").symlink_to(elsewhere)
    infer.remember(key, kept)
    assert list(elsewhere.iterdir()) == []
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not written" in err and "symbolic link" in err, err
