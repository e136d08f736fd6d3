"""The no-leak certificate (verify/knowledge): the view the engine gives a seat is a function
of what the seat was shown (R-S5, R-L1-R-L4, R-X3, R-X5). Each seeded leak of
spec/variants/leaks/ is caught with the shortest pair of games, at the smallest count that
shows it; a view that only repeats what the seat saw is not called a leak."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.game import Game
from engine.observe import observer
from spec.loader import load_spec
from engine.trace import Trace
from verify.knowledge.beliefs import roots, search
from verify.knowledge.certificate import Leak
from verify.knowledge.directed import along, directed, replayed
from verify.knowledge.run import certify
from verify.rules import Rules

LEAKS = Path(__file__).resolve().parents[1] / "spec" / "variants" / "leaks"


@pytest.mark.parametrize("name, item, moves", [
    ("hand_to_government", "hand", 6),      # the Chancellor sees the three drawn tiles (R-L1, R-L2)
    ("discards_to_table", "discards", 7),   # the first discard is shown to all (R-L4)
])
def test_a_seeded_leak_is_caught_at_5_players_with_the_shortest_pair(name: str, item: str, moves: int) -> None:
    certificate = certify(Rules.named(str(LEAKS / f"{name}.toml")), 5, "explicit", time_limit=120)
    assert certificate.verdict == "leak" and certificate.exit_status == 1
    leak = certificate.leak
    assert leak is not None and leak.difference.item == item
    assert len(leak.first.steps) == len(leak.second.steps) == moves
    _assert_an_honest_pair(leak)
    text = "\n".join(leak.lines())
    assert "Round 1" in text and f"'{item}'" in text and "[R-L" in text


def test_the_solver_finds_the_same_shortest_leak_as_the_search() -> None:
    certificate = certify(Rules.named(str(LEAKS / "hand_to_government.toml")), 5, "smt", time_limit=120, depth=8)
    assert certificate.verdict == "leak" and certificate.leak is not None
    assert len(certificate.leak.first.steps) == 6
    assert certificate.leak.difference.item == "hand"


@pytest.mark.slow
def test_hitler_shown_his_fascists_at_7_is_caught_after_the_deal() -> None:
    certificate = certify(Rules.named(str(LEAKS / "hitler_knows_fascists_at_7.toml")), 7, "smt", time_limit=120, depth=3)
    assert certificate.verdict == "leak" and certificate.leak is not None
    assert certificate.leak.difference.item == "fascists" and certificate.leak.difference.rule_id == "R-S5"
    assert len(certificate.leak.first.steps) == 1
    # ... and the same view at 6 players is what R-S5 allows: no leak within the deal.
    six = certify(Rules.named(str(LEAKS / "hitler_knows_fascists_at_7.toml")), 6, "smt", time_limit=120, depth=2)
    assert six.verdict != "leak"


def test_seat_0_stands_for_every_seat_only_under_rotation(tmp_path: Path) -> None:
    game = Game(load_spec("standard"), 5)
    starts, why = roots(game)
    assert {seat for seat, _ in starts} == {0} and len(starts) == 5 and "rotation" in why
    path = tmp_path / "seat_literal.toml"
    path.write_text('extends = "standard"\nname = "seat_literal"\n[add.view.first_seat]\nrule = "R-S5"\n'
                    'to = "{0}"\nwhat = "hitler"\n')
    blocked = Game(load_spec(str(path)), 5)
    starts, why = roots(blocked)
    assert {seat for seat, _ in starts} == set(range(5)) and "seat literal" in why


def test_a_limit_is_unknown_never_proved() -> None:
    certificate = search(Game(load_spec("standard"), 5), "standard", time_limit=2)
    assert certificate.verdict == "unknown" and certificate.exit_status == 3


def test_the_command_prints_json_and_exits_1_on_a_leak() -> None:
    done = subprocess.run([sys.executable, "-m", "verify", "knows", "-n", "5", "--json", "--time-limit", "60",
                           "--backend", "explicit", "--rules", str(LEAKS / "hand_to_government.toml")],
                          capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    data = json.loads(done.stdout)
    assert data[0]["verdict"] == "leak" and data[0]["leak"]["item"] == "hand"


@pytest.mark.slow
def test_the_peeked_top_shown_to_the_table_is_caught_at_5_players() -> None:
    certificate = certify(Rules.named(str(LEAKS / "known_top_to_table.toml")), 5, "explicit", time_limit=1200)
    assert certificate.verdict == "leak" and certificate.leak is not None
    assert certificate.leak.difference.item == "known_top"


def test_the_stepwise_proof_does_not_close_on_a_seeded_leak() -> None:
    from verify.smt.stepwise import decide
    proof = decide(load_spec(str(LEAKS / "hand_to_government.toml")), 5, time_limit=300)
    assert proof.verdict == "unknown" and "draw_hand" in proof.reason     # never "leak" without a pair
    assert proof.open == ["draw_hand"] and not proof.complete              # it stopped at the first


@pytest.mark.slow
def test_auto_lists_every_open_rule_and_finds_the_shortest_pair_along_the_shortest_game_taking_one() -> None:
    certificate = certify(Rules.named(str(LEAKS / "hand_to_government.toml")), 5, "auto", time_limit=300)
    assert certificate.verdict == "leak" and certificate.leak is not None
    assert len(certificate.leak.first.steps) == 6 and certificate.leak.difference.item == "hand"
    assert "open: draw_hand;" in certificate.reason and "shortest: every leak ends" in certificate.reason
    _assert_an_honest_pair(certificate.leak)


def _assert_an_honest_pair(leak: Leak) -> None:
    """Both games replay in the engine from the first state, show the seat the same
    observations move by move, and end in different views of it."""
    game = leak.first.game
    watch = observer(game)
    for trace in (leak.first, leak.second):
        state = game.initial_state()
        for move, after in trace.steps:
            state = game.apply(state, move)
            assert state == after
    seen = [[watch.observation(b, m, a, leak.seat) for b, (m, a) in zip(t.states, t.steps)]
            for t in (leak.first, leak.second)]
    assert seen[0] == seen[1]
    assert watch.view(leak.first.end, leak.seat) != watch.view(leak.second.end, leak.seat)


def _first_game_to(game: Game, rule: str) -> Trace:
    """A game of the engine's first legal moves, until one of `rule` is taken."""
    trace = Trace(game, game.initial_state())
    while not trace.steps or trace.steps[-1][0].rule != rule:
        moves = game.legal_moves(trace.end)
        move = next((m for m in moves if m.rule == rule), moves[0])
        trace.append(move, game.apply(trace.end, move))
    return trace


def test_along_one_game_the_games_a_seat_cannot_tell_from_it_show_the_leak() -> None:
    game = Game(load_spec(str(LEAKS / "hand_to_government.toml")), 5)
    witness = _first_game_to(game, "draw_hand")
    found = along(game, witness, range(5))
    assert found.verdict == "leak" and found.leak is not None
    assert found.leak.difference.item == "hand" and found.leak.first.steps == witness.steps
    assert len(found.leak.second.steps) == len(witness.steps)
    _assert_an_honest_pair(found.leak)
    # The same game under the standard rules: the Chancellor is shown nothing, no seat's view differs.
    standard = Game(load_spec("standard"), 5)
    assert along(standard, replayed(standard, [m for m, _ in witness.steps]), range(5)).verdict == "none"


def test_a_directed_pair_is_not_called_shortest_unless_every_rule_was_asked() -> None:
    spec = load_spec(str(LEAKS / "hand_to_government.toml"))
    found = directed(spec, Game(spec, 5), ["draw_hand"], complete=False, time_limit=300)
    assert found.leak is not None and len(found.leak.first.steps) == 6
    assert "shorter pair may exist: not every rule's step was asked" in found.reason
    _assert_an_honest_pair(found.leak)


def test_a_directed_search_out_of_time_finds_no_pair_and_claims_nothing() -> None:
    spec = load_spec(str(LEAKS / "investigation_to_table.toml"))
    found = directed(spec, Game(spec, 7), ["investigate"], complete=True, time_limit=0.5)
    assert found.leak is None and "in time" in found.reason


SEEDED = [   # each seeded leak, the smallest count that shows it, what the view leaks, its rule, the shortest pair
    ("hand_to_government", 5, "hand", "R-L2", 6),
    ("discards_to_table", 5, "discards", "R-L4", 7),
    ("known_top_to_table", 5, "known_top", "R-X5", 32),
    ("hitler_knows_fascists_at_7", 7, "fascists", "R-S5", 1),
    ("investigation_to_table", 7, "investigated_fascists", "R-X3", 22),   # Investigate Loyalty is a 7+ power
]
NOT_LEAKS = ["president_keeps_hand"]


def test_every_seeded_leak_is_asked_for() -> None:
    assert sorted(p.stem for p in LEAKS.glob("*.toml")) == sorted([s[0] for s in SEEDED] + NOT_LEAKS)


@pytest.mark.slow
@pytest.mark.parametrize("name, players, item, rule_id, moves", SEEDED)
def test_every_seeded_leak_is_caught_with_the_shortest_pair(name: str, players: int, item: str, rule_id: str,
                                                            moves: int) -> None:
    certificate = certify(Rules.named(str(LEAKS / f"{name}.toml")), players, "auto", time_limit=900)
    assert certificate.verdict == "leak" and certificate.exit_status == 1 and certificate.leak is not None
    leak = certificate.leak
    assert leak.difference.item == item and leak.difference.rule_id == rule_id
    assert len(leak.first.steps) == len(leak.second.steps) == moves
    assert "shortest: every leak ends" in certificate.reason
    _assert_an_honest_pair(leak)
    assert f"[{rule_id}]" in "\n".join(leak.lines())


def test_the_explicit_pass_finds_a_conflict_on_a_seeded_leak_and_is_unknown_at_a_limit() -> None:
    from verify.knowledge.stepwise import stepwise
    found = stepwise(Game(load_spec(str(LEAKS / "hand_to_government.toml")), 5), time_limit=120)
    assert found.verdict == "conflict" and found.conflict is not None
    assert found.conflict.move.rule == "draw_hand" and found.conflict.view != found.conflict.other
    limited = stepwise(Game(load_spec("standard"), 5), max_states=2000)
    assert limited.verdict == "unknown" and limited.states > 2000


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["standard", str(LEAKS / "president_keeps_hand.toml")])
def test_the_stepwise_proof_closes_at_5_players(rules: str) -> None:
    certificate = certify(Rules.named(rules), 5, "auto", time_limit=900)
    assert certificate.verdict == "proved" and certificate.exit_status == 0
    assert certificate.figures["queries"] == 5 * len(load_spec(rules).rules)
