"""The rules as a value: loaded once at the command line's edge and passed down.

A name says little about rules: a file keeps its name when edited, and an overlay (a
temporal query's monitors) is registered in one process only. So a command loads the
rules it is given once (`Rules.named`), and every room below it takes the `Rules` value,
never a name to load again: the `Spec`, the name it was loaded by (kept as data, for
reports and the games' replays), its content hash (spec/identity.py) and the overlay
registered under that name in this process, if any.

`Rules` crosses into worker processes as its name, content hash and overlay: a worker
started by `spawn` loads the same rules and refuses them if they changed meanwhile
(a rules file edited while being checked). Every room may import this one, as it may
`budgets`: it imports only spec/ and engine/.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.game import Game, compiled_game
from spec.errors import SpecError, shown
from spec.identity import content_hash
from spec.loader import load_spec, overlay_of, restore_overlay
from spec.model import Spec


@dataclass(frozen=True, slots=True)
class Rules:
    """Rules loaded once: the `Spec`, the name that loads it, its content hash, and the
    overlay registered under that name in this process, if any (module docstring)."""

    spec: Spec = field(compare=False, repr=False)
    name: str
    hash: str
    overlay: tuple[str, dict[str, Any]] | None = field(default=None, compare=False, repr=False)
    games: dict[int, Game] = field(default_factory=dict, compare=False, repr=False)
    owned: dict[str, Rules] = field(default_factory=dict, compare=False, repr=False)
    in_memory: bool = field(default=False, compare=False, repr=False)

    @classmethod
    def named(cls, name: str) -> Rules:
        """The rules a name loads (a file, a shipped name, settings, a registered overlay):
        what a command's edge calls once, with the name its user gave."""
        spec = _loaded(name)
        return cls(spec, name, content_hash(spec), overlay_of(name))

    @classmethod
    def loaded(cls, name: str, spec: Spec) -> Rules:
        """The rules `spec`, which the caller has just loaded by `name` (no second load)."""
        return cls(spec, name, content_hash(spec), overlay_of(name))

    @classmethod
    def built(cls, spec: Spec, *games: Game) -> Rules:
        """Rules built in memory, which no name loads (a mutant of the mutation analysis,
        verify/diff/mutate.py), with the games already compiled from them: decided in
        this process only, at those counts only. Their name (the spec's) loads other
        rules, so a game at another count, a property's own rules and a worker process
        are refused (`SpecError`), never read under the rules the name loads."""
        return cls(spec, spec.name, content_hash(spec), None, {game.players: game for game in games},
                   in_memory=True)

    def game(self, players: int) -> Game:
        """The compiled game of these rules at `players`: the process's one game of the name
        (engine/game.py `compiled_game`, which replays a game's moves by the name it records,
        so both are states of the same game), compiled again where the process compiled the
        name before its file was edited, and refused if the file no longer holds these rules
        (edited since they were loaded). An R-S1 `SpecError` for a count the rules do not have."""
        game = self.games.get(players)
        if game is None and self.in_memory:
            raise _built(self.name, f"no game of them was compiled for {players} players")
        if game is None:
            game = compiled_game(players, self.name)
            if game.spec is not self.spec and content_hash(game.spec) != self.hash:
                # This process compiled the name before its file was edited, and these
                # rules were loaded since: compile the name again, now, so that a game
                # replayed by it is of these rules too.
                compiled_game.cache_clear()
                game = compiled_game(players, self.name)
                if content_hash(game.spec) != self.hash:
                    raise _changed(self.name, self.hash)
            self.games[players] = game
        return game

    def own(self, name: str | None) -> Rules:
        """The rules a property or question of these rules names as its own (`Property.rules`:
        these rules with a monitor, spec/order.py, or a temporal query's overlay,
        spec/temporal.py), loaded once by that name: a name the catalogue holds as data,
        not one passed down. These rules where it names none, or these."""
        if not name or name == self.name:
            return self
        if self.in_memory:
            raise _built(self.name, f"their properties cannot name rules of their own ({shown(name)})")
        if name not in self.owned:
            self.owned[name] = Rules.named(name)
        return self.owned[name]

    def __reduce__(self) -> tuple[Callable[..., Rules], tuple[str, str, tuple[str, dict[str, Any]] | None]]:
        # A worker gets the name, the hash and the overlay, not the compiled tree: it
        # loads them itself, and compiles its own games (a game's states are classes
        # made per process).
        if self.in_memory:
            raise _built(self.name, "they cannot be sent to another process")
        return (_restored, (self.name, self.hash, self.overlay))


def _loaded(name: str) -> Spec:
    """The rules of a name, loaded now (not cached: a file may change between two checks)."""
    return load_spec(name)


def _built(name: str, why: str) -> SpecError:
    return SpecError(f"the rules {shown(name)} were built in memory (`Rules.built`): {why}")


def _changed(name: str, digest: str) -> SpecError:
    return SpecError(f"the rules {shown(name)} changed while they were being checked: "
                     f"their content hash is no longer {digest[:12]}")


_RESTORED: dict[tuple[str, str], Rules] = {}
"""The rules other processes sent, by name and hash: a worker is sent the same rules with
each task, and keeps one value of them (so its games, and the solver's support built on
the `Spec`, are kept from one task to the next)."""


def _restored(name: str, digest: str, overlay: tuple[str, dict[str, Any]] | None) -> Rules:
    """The rules another process sent (`Rules.__reduce__`), loaded here: the overlay
    registered again first; a `SpecError` if they no longer hash the same (a file edited
    since the check began, however often they were sent before); the value kept from an
    earlier task otherwise."""
    if overlay is not None:
        restore_overlay(name, *overlay)
    spec = _loaded(name)
    if content_hash(spec) != digest:
        raise _changed(name, digest)
    kept = _RESTORED.get((name, digest))
    if kept is None:
        kept = _RESTORED[(name, digest)] = Rules(spec, name, digest, overlay)
    return kept
