"""Temporal queries (spec/temporal.py): monitors that watch the game and change no move.

The monitors are checked against the game itself: on random games of the standard rules
the monitored and the plain rules offer the same moves with the same odds, and each
temporal function's value is computed again here, independently, from the recorded
states of the plain game. The three questions of the issue get the same verdict from
the explicit search and from the solver, and bad input is one clear error.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from random import Random

import pytest

from engine.game import Game, compiled_game
from engine.pycompile import compile_expression
from spec.disputes import load_disputes, query
from spec.errors import Location, SpecError
from spec.loader import load_spec
from spec.temporal import base_name, monitor
from verify.lawyer.ask import search
from verify.results import Limits, Proved, Refuted, Unwitnessed, Witnessed
from verify.rules import Rules

STANDARD_RULES = Rules.named("standard")

ROOT = Path(__file__).resolve().parent.parent
STANDARD = load_spec("standard")
EVERY_FUNCTION = ("in_a_row(president == previous(president)) >= 1 or times(phase == 'chaos') >= 2 "
                  "or then(phase == 'chaos', vetoed, without=phase == 'elected') "
                  "or previous(enacted, at=phase == 'enacted') == 'fascist'")


def _games(players: int, count: int, seed: int) -> list[list[tuple[int, ...]]]:
    """`count` random games of the plain rules, each the list of its states."""
    game = compiled_game(players)
    rng = Random(seed)
    out = []
    for _ in range(count):
        state = game.initial_state()
        states = [state]
        while (move := game.random_move(state, rng)) is not None:
            state = game.apply(state, move)
            states.append(state)
        out.append(states)
    return out


def _moves(game: Game, state: tuple[int, ...]) -> set[tuple[str, tuple[int, ...], object]]:
    odds = dict(game.chance_outcomes(state))
    return {(move.rule, move.args, odds.get(move)) for move in game.legal_moves(state)}


@pytest.mark.parametrize("players", [5, 7, 10])
def test_monitors_change_no_legal_move(players: int) -> None:
    """In corresponding states (equal once the monitor fields are dropped) the monitored
    rules allow exactly the moves of the plain rules, with the same odds, and lead to
    corresponding states."""
    monitored = monitor(STANDARD, base_name(STANDARD), EVERY_FUNCTION, Location("<test>"))
    assert len(monitored.monitors) >= 6
    plain, watched = compiled_game(players), compiled_game(players, monitored.rules)
    width = len(plain.spec.fields)
    assert [f.name for f in watched.spec.fields[:width]] == [f.name for f in plain.spec.fields]
    assert {f.name for f in watched.spec.fields[width:]} == set(monitored.monitors)
    rng = Random(players)
    for _ in range(15):
        state, shadow = plain.initial_state(), watched.initial_state()
        while True:
            assert tuple(shadow[:width]) == tuple(state)
            moves = _moves(plain, state)
            assert _moves(watched, shadow) == moves
            move = plain.random_move(state, rng)
            if move is None:
                break
            state, shadow = plain.apply(state, move), watched.apply(shadow, move)


# ---------------------------------------------------------------------- values against the history


def _value(players: int, text: str) -> tuple[Game, Callable[..., int]]:
    """The monitored game of a query with one temporal call, and the function that reads
    that call's value (its definition) in a monitored state."""
    monitored = monitor(STANDARD, base_name(STANDARD), text, Location("<test>"))
    game = compiled_game(players, monitored.rules)
    names = [node.id for node in ast.walk(ast.parse(monitored.text, mode="eval"))
             if isinstance(node, ast.Name) and node.id.endswith("_value")]
    assert len(names) == 1
    return game, compile_expression(game.spec, players, game.spec.definitions[names[0]])


def _index(name: str) -> int:
    return STANDARD.field_index(name)


PHASES = STANDARD.enums["phase"]
NOMINATE, ELECTED, CHAOS, ENACTED = (PHASES.index(p) for p in ("nominate", "elected", "chaos", "enacted"))
PHASE, PRESIDENT, NOMINEE = _index("phase"), _index("president"), _index("nominee")
FASCIST = 1


def _begins(states: list[tuple[int, ...]], held: Callable[[tuple[int, ...]], bool]) -> list[bool]:
    """Where a condition begins: it holds, and did not in the state before (or none was)."""
    return [held(s) and (i == 0 or not held(states[i - 1])) for i, s in enumerate(states)]


def _previous(states: list[tuple[int, ...]], begins: list[bool], field: int) -> list[int]:
    out = []
    for i in range(len(states)):
        starts = [j for j in range(i + 1) if begins[j]]
        out.append(states[starts[-2]][field] if len(starts) >= 2 else -1)
    return out


def _expected(kind: str, states: list[tuple[int, ...]]) -> list[int]:
    """The value of each tested call in each state, from the states alone."""
    phase = [s[PHASE] for s in states]
    rounds = _begins(states, lambda s: s[PHASE] == NOMINATE)
    if kind == "previous_president":
        return _previous(states, rounds, PRESIDENT)
    if kind == "previous_chancellor":
        return _previous(states, _begins(states, lambda s: s[PHASE] == ELECTED), NOMINEE)
    if kind == "times_chaos":
        chaos = _begins(states, lambda s: s[PHASE] == CHAOS)
        return [min(sum(chaos[:i + 1]), 3) for i in range(len(states))]
    if kind == "times_fascist_enacted":
        enacted = _begins(states, lambda s: s[PHASE] == ENACTED)
        at = [b and s[_index("enacted")] == FASCIST for b, s in zip(enacted, states)]
        return [min(sum(at[:i + 1]), 4) for i in range(len(states))]
    if kind == "in_a_row_tracker":
        out = []
        for i in range(len(states)):
            starts = [j for j in range(i + 1) if rounds[j]]
            run = 0
            for j in reversed(starts):
                if states[j][_index("election_tracker")] != 0:
                    break
                run += 1
            out.append(min(run, 3))
        return out
    if kind == "then_chaos_vote":
        out = []
        for i in range(len(states)):
            earlier = [t for t in range(i) if phase[t] == CHAOS
                       and not any(phase[u] == ELECTED for u in range(t + 1, i))]
            out.append(int(bool(earlier) and phase[i] == PHASES.index("vote")))
        return out
    raise AssertionError(kind)


VALUES = {
    "previous_president": "previous(president) == 0",
    "previous_chancellor": "previous(nominee, at=phase == 'elected') == 0",
    "times_chaos": "times(phase == 'chaos') >= 2",
    "times_fascist_enacted": "times(enacted == 'fascist', at=phase == 'enacted') == 3",
    "in_a_row_tracker": "in_a_row(election_tracker == 0) > 2",
    "then_chaos_vote": "then(phase == 'chaos', phase == 'vote', without=phase == 'elected')",
}


@pytest.mark.parametrize("kind", sorted(VALUES))
def test_values_follow_the_history(kind: str) -> None:
    """Each function's value in every state of recorded random games is the one computed
    from the plain game's states (counters saturated one above the number compared with)."""
    players = 7
    game, value = _value(players, VALUES[kind])
    plain = compiled_game(players)
    width = len(plain.spec.fields)
    seen_other = False
    for states in _games(players, 12, seed=len(kind)):
        watched = [game.initial_state()]
        for before, after in zip(states, states[1:]):
            move = next(m for m in plain.legal_moves(before) if plain.apply(before, m) == after)
            watched.append(game.apply(watched[-1], move))
        assert [tuple(s[:width]) for s in watched] == states
        got = [int(value(s)) for s in watched]
        assert got == _expected(kind, states)
        seen_other |= len(set(got)) > 1
    assert seen_other, "the games never changed the value: the test would prove nothing"


# ---------------------------------------------------------------------- the three questions

THREE = {
    "president_three_in_a_row": ("never", "in_a_row(president == previous(president)) >= 2"),
    "chancellor_twice": ("sometimes", "phase == 'elected' and nominee == previous(nominee, at=phase == 'elected')"),
    "chaos_twice": ("sometimes", "then(phase == 'chaos', phase == 'chaos', without=phase == 'elected')"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(THREE))
def test_explicit_and_solver_agree(name: str) -> None:
    """At 5 players the explicit search and the Z3 backend never disagree. The "no" is
    proved by both: the complete search, and k-induction with invariants inferred from
    played games (no hand-written clause; many minutes). A "yes" needs a witness about
    30 moves deep, which bounded model checking reaches only after a long time: within
    the limit the solver's verdict is the same witness or unknown, never a refutation."""
    from verify.smt import check_property

    kind, text = THREE[name]
    prop = query(STANDARD, name, kind, text, players=(5,))
    explicit = search((prop,), 5, Limits(time_limit=1500), Rules.named(prop.rules))[name].verdict
    if kind == "never":
        solver = check_property(load_spec(prop.rules), prop, 5, Limits(time_limit=1500), infer=True)
        assert isinstance(explicit, Proved) and isinstance(solver, Proved), (explicit, solver)
    else:
        solver = check_property(load_spec(prop.rules), prop, 5, Limits(time_limit=120))
        assert isinstance(explicit, Witnessed), explicit
        assert not isinstance(solver, (Proved, Refuted, Unwitnessed)), solver


# ---------------------------------------------------------------------- the catalogue


def test_catalogue_temporal_entries_compile() -> None:
    """At least ten catalogue entries ask temporal questions, each over its monitored rules."""
    temporal = [d for d in load_disputes(STANDARD) if d.query is not None and d.query.rules]
    assert len(temporal) >= 10
    for dispute in temporal:
        assert dispute.query is not None
        assert load_spec(dispute.query.rules).fields[-1].name.startswith("monitor")


# ---------------------------------------------------------------------- bad input

BAD = [
    ("prev(president) == 0", "'prev' is not a temporal function or a builtin. Did you mean 'previous'?", 0),
    ("previous(president, nominee) == 0", "previous() takes 1 argument", 0),
    ("then(phase == 'chaos')", "then() takes 2 arguments", 0),
    ("then(phase == 'chaos', president)", "must be bool, got seat", 23),
    ("then(phase == 'chaos', vetoed, unless=vetoed)", "then() takes without=, not unless=", 38),
    ("times(phase == 'chaos') >= 500", "a temporal counter counts to at most 64", 27),
    ("times(phase == 'chaos') + 1 >= 2", "must be compared with a number", 0),
    ("previous(election_tracker) == 1", "previous() takes a seat or a value of an enum", 9),
    ("previous(presidnt) == 0", "unknown name 'presidnt'", 9),
]


@pytest.mark.parametrize("text,message,column", BAD)
def test_bad_input_is_one_error_with_a_caret(text: str, message: str, column: int) -> None:
    with pytest.raises(SpecError) as error:
        query(STANDARD, "q", "sometimes", text, where=Location("--can expression"), show_caret=True)
    assert message in error.value.message
    assert error.value.caret is not None
    assert error.value.caret.splitlines()[1].index("^") - 2 == column


def test_bad_input_on_the_command_line_exits_2() -> None:
    result = subprocess.run([str(Path(sys.executable).parent / "shrules"), "ask", "--can", "prev(president) == 0", "-n", "5"],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert "prev(president) == 0" in result.stderr + result.stdout and "^" in result.stderr + result.stdout


TEMPORAL_NO = [d for d in load_disputes(STANDARD) if d.query is not None and d.query.rules and d.answer == "no"]


@pytest.mark.slow
@pytest.mark.parametrize("ident", [d.id for d in TEMPORAL_NO])
def test_temporal_no_entries_are_proved_no(ident: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A "no" entry over several rounds is proved at the count that decides it: at 5 by a
    complete search, from 7 on by the solver with invariants inferred from a cold cache
    (the hints of spec/invariants.toml know nothing of the monitors)."""
    from verify.lawyer.answers import NO
    from verify.lawyer.ask import Budget, answer_dispute
    from verify.lawyer.words import render

    monkeypatch.setenv("SHRULES_CACHE", str(tmp_path))
    dispute = next(d for d in TEMPORAL_NO if d.id == ident)
    assert dispute.query is not None and dispute.decides is not None
    if dispute.decides <= 5:
        result = search((dispute.query,), dispute.decides, Limits(None, 1500.0), Rules.named(dispute.query.rules))[ident]
        assert isinstance(result.verdict, Proved), result.verdict
    else:
        answer = answer_dispute(dispute, Budget(seconds=600), counts=(dispute.decides,), rules=STANDARD_RULES)
        assert answer.verdict == NO, render(answer)


def test_monitor_names_do_not_collide(tmp_path: Path) -> None:
    """Rules that already use the names a monitor would take get monitors named otherwise."""
    variant = tmp_path / "taken.toml"
    variant.write_text('extends = "standard"\nname = "taken"\n[add.state]\n'
                       'monitor1_held = { type = "bool", init = "False", seen = "public" }\n'
                       'monitor1_last = { type = "seat?", init = "none", seen = "public" }\n'
                       '[add.definitions]\nmonitor1_value = "3"\n')
    spec = load_spec(str(variant))
    monitored = monitor(spec, base_name(spec), "previous(president) == 0", Location("<test>"))
    assert not set(monitored.monitors) & {"monitor1_held", "monitor1_last"}
    loaded = load_spec(monitored.rules)
    assert len({f.name for f in loaded.fields}) == len(loaded.fields) == len(spec.fields) + len(monitored.monitors)
    assert loaded.definitions["monitor1_value"] == spec.definitions["monitor1_value"]
