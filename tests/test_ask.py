"""`shrules ask`: the dispute catalogue answered by the checkers, ad-hoc queries, positions.

Every catalogue entry is answered and compared with its expected answer: witnesses
(answer "yes") at the player count that decides them, one explicit search per count;
proofs (answer "no") for every count the entry concerns by the Z3 backend's k-induction
(skipped while verify/smt is missing), and, marked slow, by a complete explicit search of
5 and 6 players, which must agree. An undecided search is "unknown", never "proved". A
flipped expected answer must fail the check; mistakes in an expression are shown with a
caret; a move is ruled on from a partial game with hidden information.
"""

from __future__ import annotations

import json
import re
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from engine.game import compiled_game
from spec.disputes import DISPUTES_FILE, Dispute, load_disputes
from spec.errors import SpecError
from spec.knowledge import uses_knows
from spec.loader import load_spec
from spec.properties import Property
from verify.lawyer import ask
from verify.lawyer.answers import NO, UNKNOWN, YES, FormalAnswer, PositionAnswer, TextAnswer, as_expected
from verify.lawyer.ask import Budget, _smt_backend, ad_hoc, answer_dispute, answer_many, catalogue, find, search
from verify.lawyer.words import counts_text, render, to_json
from verify.cli import main
from verify.results import Evidence, Limits, PropertyResult, Proved, Refuted, Unknown, Unwitnessed, Witnessed
from verify.rules import Rules

STANDARD_RULES = Rules.named("standard")

RULE_ID = re.compile(r"\b(R-[SELXVW]\d+|D-\d+)\b")
CATALOGUE = catalogue(STANDARD_RULES)
BY_ID = {d.id: d for d in CATALOGUE}
DISPUTES = tuple(d for d in CATALOGUE if d.query is None or not uses_knows(d.query.state))
"""The entries the model checkers decide; those asking what a player knows are decided over
beliefs and checked in tests/test_knowledge.py."""
PROOF_COUNTS = sorted({d.decides for d in DISPUTES
                       if d.query is not None and d.decides is not None and d.answer == NO})
EXPLICIT_PROOF_LIMIT = 6
"""Above this count a complete explicit search is out of reach; a proof needs k-induction."""


def run(*args: str) -> Any:
    """`shrules ask ARGS` through click: the exit code, `stdout` and `stderr` apart."""
    return CliRunner().invoke(main, ["ask", *args], catch_exceptions=False)


# ---------------------------------------------------------------------- the catalogue


def test_catalogue_is_large_and_well_formed() -> None:
    assert len(CATALOGUE) >= 30
    book = load_spec().rulebook
    for dispute in CATALOGUE:
        assert dispute.rule_ids and all(r in book for r in dispute.rule_ids), dispute.id
        assert dispute.answer in (YES, NO)
        assert dispute.question.endswith("?"), dispute.id
        if dispute.question_de is not None:
            assert dispute.explanation_de, f"{dispute.id}: a German question needs the German answer too"


def test_catalogue_covers_the_seeds() -> None:
    sources = " | ".join(d.source for d in CATALOGUE)
    for item in range(1, 16):  # every "Leicht vergessen" item of the German refresher
        assert re.search(rf"Leicht vergessen {item}\b", sources), f"004 Leicht vergessen {item} is missing"
    for dispute_id in ("D-1", "D-2", "D-3", "D-4"):
        assert any(dispute_id in d.rule_ids for d in CATALOGUE), dispute_id
    assert sum("§09 FAQ" in d.source for d in CATALOGUE) >= 6
    assert sum("§06 Rules to double-check" in d.source for d in CATALOGUE) >= 5
    assert sum("worked example" in d.source for d in CATALOGUE) >= 4
    mistakes = [d for d in CATALOGUE if d.mistake_de]
    assert len(mistakes) >= 8, "every ✗ reading of 004 is set against its ✓ reading"
    assert all(d.explanation_de for d in mistakes)


def test_hidden_information_is_marked_as_rule_text() -> None:
    for ident in ("hitler-knows-you-large", "discards-revealed", "execution-reveals-role", "lying-allowed"):
        answer = answer_dispute(BY_ID[ident], rules=STANDARD_RULES)
        assert isinstance(answer, TextAnswer)
        text = render(answer)
        assert "answered from the rule text" in text and "not proved" in text
        assert "proved for" not in text


def test_the_spec_agrees_with_what_it_can_check_of_rule_text() -> None:
    for dispute in DISPUTES:
        if dispute.kind == "rule_text":
            answer = answer_dispute(dispute, rules=STANDARD_RULES)
            assert isinstance(answer, TextAnswer)
            assert all(ok for _, ok in answer.checks), (dispute.id, answer.checks)
            assert as_expected(answer) is True
    answer = answer_dispute(BY_ID["four-players"], rules=STANDARD_RULES)
    assert isinstance(answer, TextAnswer)
    assert answer.checks == (("the rules refuse a game of 4 players", True),)


# ---------------------------------------------------------------------- witnesses (fast)


SLOW_WITNESSES = frozenset({"vetoed-session-then-chaos", "president-twice-in-a-row"})
"""Temporal entries whose search takes 30-90 s on a 2-core machine (each temporal entry is
searched under its own monitored rules, so it shares no search with the others): checked
with `-m slow`, the rest on every run."""
YES_ENTRIES = [d.id for d in DISPUTES if d.query is not None and d.answer == YES]
assert SLOW_WITNESSES <= set(YES_ENTRIES), "a slow witness entry left the catalogue"


def _witnesses(idents: set[str]) -> dict[str, Any]:
    """The "yes" entries `idents` answered at their deciding count, one search per count."""
    groups: dict[int, list[Dispute]] = defaultdict(list)
    for dispute in DISPUTES:
        if dispute.id in idents:
            groups[dispute.decides or 0].append(dispute)
    answers: dict[str, Any] = {}
    for count, members in groups.items():
        answers.update(answer_many(tuple(members), count, Budget(seconds=600), rules=STANDARD_RULES))
    return answers


@pytest.fixture(scope="module")
def witnessed() -> dict[str, Any]:
    """Every "yes" entry but the slow ones answered at its deciding count."""
    return _witnesses(set(YES_ENTRIES) - SLOW_WITNESSES)


@pytest.fixture(scope="module")
def witnessed_slowly() -> dict[str, Any]:
    """The slow "yes" entries answered at their deciding count."""
    return _witnesses(set(YES_ENTRIES) & SLOW_WITNESSES)


@pytest.mark.slow
@pytest.mark.parametrize("ident", sorted(set(YES_ENTRIES) & SLOW_WITNESSES))
def test_slow_yes_answers_come_with_the_shortest_game(witnessed_slowly: dict[str, Any], ident: str) -> None:
    test_yes_answers_come_with_the_shortest_game(witnessed_slowly, ident)


@pytest.mark.parametrize("ident", [i for i in YES_ENTRIES if i not in SLOW_WITNESSES])
def test_yes_answers_come_with_the_shortest_game(witnessed: dict[str, Any], ident: str) -> None:
    answer = witnessed[ident]
    assert isinstance(answer, FormalAnswer)
    assert answer.verdict == YES and as_expected(answer) is True
    witness = answer.witness
    assert witness is not None and witness.players == BY_ID[ident].decides
    assert isinstance(witness.verdict, (Witnessed, Refuted))
    trace = witness.verdict.trace
    assert trace is not None
    query = BY_ID[ident].query
    game = compiled_game(witness.players, query.rules if query is not None and query.rules else "standard")
    state = game.initial_state()
    for move, after in trace.steps:  # the game replays move by move through the engine
        state = game.apply(state, move)
        assert state == after
    text = render(answer)
    assert text.splitlines()[1].startswith("Yes — this can happen. The shortest game where it does")
    assert "Rests on: " + BY_ID[ident].rule_ids[0] in text
    assert RULE_ID.search("\n".join(trace.lines(False)))


def test_positions_of_the_catalogue() -> None:
    for dispute in DISPUTES:
        if dispute.kind == "position":
            answer = answer_dispute(dispute, rules=STANDARD_RULES)
            assert isinstance(answer, PositionAnswer)
            assert as_expected(answer) is True, (dispute.id, answer.ruling)
            assert RULE_ID.search(render(answer))


# ---------------------------------------------------------------------- proofs


def _query(ident: str) -> Property:
    """The formal query of a dispute that has one."""
    query = BY_ID[ident].query
    assert query is not None, ident
    return query


NO_ENTRIES = [d.id for d in DISPUTES if d.query is not None and d.answer == NO]
STATE_ENTRIES = [ident for ident in NO_ENTRIES if not _query(ident).rules]
"""The "no" entries without temporal functions. A temporal one (spec/temporal.py) is a
property of the game's history, which k-induction does not prove within this budget:
tests/test_temporal.py checks what the search proves of them and that none is "yes"."""


@pytest.mark.parametrize("ident", STATE_ENTRIES)
def test_no_answers_are_proved_for_every_count(ident: str) -> None:
    if _smt_backend() is None:
        pytest.skip("needs the Z3 backend's k-induction (verify.smt.check_property)")
    dispute = BY_ID[ident]
    answer = answer_dispute(dispute, Budget(seconds=300), rules=STANDARD_RULES)
    assert answer.verdict == NO and as_expected(answer) is True
    text = render(answer)
    assert text.startswith(f"{dispute.question}  [{dispute.id}]\nNo — this never happens")
    assert f"\n  Proved for {counts_text(dispute.players)} players (k-induction)" in text
    assert "Rests on: " + dispute.rule_ids[0] in text


@pytest.fixture(scope="module")
def searched() -> dict[str, Any]:
    """Every "no" entry a complete explicit search can decide, one search per count."""
    out: dict[str, Any] = {}
    for count in PROOF_COUNTS:
        if count <= EXPLICIT_PROOF_LIMIT:
            props = tuple(d.query for d in DISPUTES if d.query is not None and d.answer == NO and d.decides == count)
            for rules in dict.fromkeys(STANDARD_RULES.own(prop.rules) for prop in props):   # a temporal query's own
                shared = tuple(prop for prop in props if STANDARD_RULES.own(prop.rules) == rules)
                unlimited = Budget(max_states=None, seconds=None)
                out.update(search(shared, count, unlimited.limits(unlimited.start()), rules))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("ident", NO_ENTRIES)
def test_complete_search_agrees_with_the_proofs(searched: dict[str, Any], ident: str) -> None:
    dispute = BY_ID[ident]
    if dispute.decides is None or dispute.decides > EXPLICIT_PROOF_LIMIT:
        pytest.skip(f"a complete search of {dispute.decides} players is out of reach")
    result = searched[ident]
    assert isinstance(result.verdict, Proved), result.verdict
    answer = FormalAnswer(_query(ident), dispute.rule_ids, (result,), {}, dispute)
    assert as_expected(answer) is True
    assert re.search(r"No — this never happens \(\d+ players\)\.\n(.*\n)*How this was decided:\n  Proved for \d+ players "
                     r"\(all [\d,]+ reachable states", render(answer))


def test_unknown_is_never_called_proved(monkeypatch: pytest.MonkeyPatch) -> None:
    # Without the Z3 backend, a 7-player complete search cannot finish: the answer says so.
    monkeypatch.setattr(ask, "_smt_backend", lambda: None)
    answer = answer_dispute(BY_ID["special-election-passes-on"], Budget(max_states=20_000, seconds=30), (7, 8), rules=STANDARD_RULES)
    assert isinstance(answer, FormalAnswer)
    assert answer.verdict == UNKNOWN and as_expected(answer) is None
    text = render(answer)
    assert text.splitlines()[1].startswith("Unknown")
    assert "proved for" not in text and "limit: 20,000 states" in text
    assert "8 players: not searched: the search for 7 players already hit its limit" in text
    assert isinstance(answer.results[0].verdict, Unknown)
    assert to_json(answer)["as_expected"] is None


# ---------------------------------------------------------------------- a wrong expectation fails


def _flipped(tmp_path: Path, ident: str) -> Path:
    text = DISPUTES_FILE.read_text(encoding="utf-8")
    start = text.index(f'id = "{ident}"')
    end = text.find("[[dispute]]", start)
    end = len(text) if end < 0 else end
    entry = text[start:end]
    answer = re.search(r'^answer = "(yes|no)"$', entry, re.M)
    assert answer is not None
    flipped = entry.replace(answer.group(0), f'answer = "{"no" if answer.group(1) == "yes" else "yes"}"')
    path = tmp_path / "disputes.toml"
    path.write_text(text[:start] + flipped + text[end:], encoding="utf-8")
    return path


@pytest.mark.slow
def test_d5_asked_under_its_other_reading_is_yes_with_the_game() -> None:
    """The D-5 entry is answered "no" under the rules (k-induction, above); under the
    variant that reads D-5 the other way, the same question is "yes", with a game the
    variant's engine replays that ends in chaos before any reshuffle of a short pile."""
    dispute = BY_ID["veto-chaos-takes-the-old-pile"]
    answer = answer_dispute(dispute, Budget(seconds=600), (5,), rules=Rules.named("veto_chaos_first"))
    assert isinstance(answer, FormalAnswer) and answer.verdict == YES
    assert as_expected(answer) is False, "the variant breaks the rules' expected answer"
    witness = answer.witness
    assert witness is not None and isinstance(witness.verdict, (Witnessed, Refuted))
    trace = witness.verdict.trace
    assert trace is not None
    game = compiled_game(5, "veto_chaos_first")
    state = game.initial_state()
    for move, after in trace.steps:
        state = game.apply(state, move)
        assert state == after
    rules = [move.rule for move, _ in trace.steps]
    veto = len(rules) - 1 - rules[::-1].index("accept_veto")
    assert rules[-1] == "veto_chaos" and "reshuffle" not in rules[veto:], rules[veto:]


def test_a_flipped_expected_answer_fails(tmp_path: Path) -> None:
    path = _flipped(tmp_path, "term-limited-president")
    wrong = find(load_disputes(load_spec(), path), "term-limited-president")
    assert wrong.answer == NO
    answer = answer_dispute(wrong, Budget(seconds=120), (5,), rules=STANDARD_RULES)
    assert answer.verdict == YES and as_expected(answer) is False
    assert "NOT as expected" in render(answer)
    result = run("term-limited-president", "--players", "5", "--catalogue", str(path))
    assert result.exit_code == 1, result.stdout
    assert "NOT as expected" in result.stdout


def test_a_flipped_position_and_checked_rule_text_fail(tmp_path: Path) -> None:
    for ident in ("tie-eight-players", "chaos-fifth-unlocks-veto", "four-players", "discards-revealed"):
        wrong = find(load_disputes(load_spec(), _flipped(tmp_path, ident)), ident)
        assert as_expected(answer_dispute(wrong, rules=STANDARD_RULES)) is False


def test_catalogue_mistakes_are_reported_with_the_entry(tmp_path: Path) -> None:
    text = DISPUTES_FILE.read_text(encoding="utf-8").replace('"R-E11", "R-L6"', '"R-E11", "R-L66"', 1)
    path = tmp_path / "disputes.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError, match=r"disputes.toml:\d+ dispute 'election-resets-tracker': 'R-L66' is not"):
        load_disputes(load_spec(), path)
    bad = DISPUTES_FILE.read_text(encoding="utf-8").replace("after_election_tracker != election_tracker",
                                                           "after_election_tracker != election_trackr", 1)
    path.write_text(bad, encoding="utf-8")
    with pytest.raises(SpecError, match="Did you mean 'election_tracker'"):
        load_disputes(load_spec(), path)


# ---------------------------------------------------------------------- the command line


def test_ask_lists_the_catalogue() -> None:
    result = run()
    assert result.exit_code == 0
    assert f"{len(CATALOGUE)} questions" in result.stdout
    assert "tie-rejects" in result.stdout
    german = run("--lang", "de")
    assert "Ist Gleichstand ein Nein?" in german.stdout


def test_ask_one_entry_in_words_json_and_german() -> None:
    result = run("term-limited-president", "--players", "5")
    assert result.exit_code == 0, result.stdout
    assert "Yes — this can happen. The shortest game where it does (5 players" in result.stdout
    assert "Rests on: R-E5" in result.stdout
    data = json.loads(run("term-limited-president", "--players", "5", "--json").stdout)
    assert data["answer"] == "yes" and data["as_expected"] is True
    assert data["rules"][0]["id"] == "R-E5" and data["witness"]["itf"]["#meta"]["players"] == 5
    german = run("tie-rejects", "--lang", "de")
    assert german.exit_code == 0, german.stdout
    assert german.stdout.startswith("Ist Gleichstand ein Nein?")
    assert "Ja — das kann passieren. Das kürzeste Spiel, in dem es passiert (6 Spieler" in german.stdout
    assert "Kurz: Bei Gleichstand scheitert die Wahl" in german.stdout


def test_ask_refuses_counts_the_entry_does_not_concern() -> None:
    result = run("special-election-twice", "--players", "5")
    assert result.exit_code == 2
    assert "concerns 7–10 players, not 5" in result.stderr
    assert "did you mean tie-rejects" in run("tie-reject").stderr


def test_ask_all_at_one_count() -> None:
    result = run("--all", "--players", "8")
    assert result.exit_code == 0, result.stdout
    assert re.search(r"^ok\s+tie-eight-players-rejects\s+answer yes", result.stdout, re.M)


# ---------------------------------------------------------------------- ad-hoc questions


def test_ad_hoc_can_gives_the_shortest_game() -> None:
    result = run("--players", "5", "--can", "liberal_policies == 2")
    assert result.exit_code == 0, result.stdout
    assert result.stdout.startswith("Yes — this can happen. The shortest game where it does (5 players")
    assert "enacts a liberal policy [R-L3]" in result.stdout
    assert "Rests on" in result.stdout and RULE_ID.search(result.stdout.split("Rests on")[1])


def test_ad_hoc_over_moves_with_what_they_reveal() -> None:
    answer = ad_hoc("target in fascists and party == 'fascist'", "sometimes", (7,), ("investigate",), rules=STANDARD_RULES)
    assert answer.verdict == YES
    assert "sees party fascist" in render(answer)


def test_ad_hoc_never_that_fails_is_a_decided_no_exit_0() -> None:
    result = run("--players", "5", "--never", "tile == 'fascist'", "--on", "enact")
    assert result.exit_code == 0
    assert "Yes — this can happen" in result.stdout


def test_ad_hoc_limit_is_unknown_not_proved(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ask, "_smt_backend", lambda: None)  # explicit search only: it cannot finish
    result = run("--players", "6", "--never", "liberal_policies > 5", "--max-states", "2000")
    assert result.exit_code == 3, result.stdout
    assert result.stdout.startswith("Unknown — no game where it happens was found, but that is not a proof")
    assert "limit: 2,000 states" in result.stdout


NEVER_POWER_OUT_OF_TURN = "power != 'none' and phase != 'power'"
"""A state no game reaches (a power is held only in its own phase), whose explicit search
does not finish at 5 players in seconds but whose negation is inductive."""
HITLER_PRESIDENT = "phase == 'draw' and president == hitler and fascist_policies >= hitler_zone"
"""A state the explicit search reaches at 5 players within seconds."""


def _search_finishing_unless_stopped(calls: list[int]) -> Any:
    """A stand-in for the explicit search that ends complete without a hit, so that the
    answer would read "all states searched", unless its progress hook stops it first (or
    at once without a hook): whichever decides first is what the answer shows."""
    def complete(props: tuple[Property, ...], players: int, limits: Limits, rules: Rules = STANDARD_RULES,
                 progress: Any = None, frontiers: Any = None) -> dict[str, PropertyResult]:
        calls.append(players)
        give_up = time.perf_counter() + 120
        while progress is not None and time.perf_counter() < give_up:
            progress(0, 0)
            time.sleep(0.02)
        return {p.name: PropertyResult(p.name, players, p.kind, p.rule_ids, p.expect,
                                       Unwitnessed(Evidence("explicit", 1, 0, 0, 0.0, "")))
                for p in props}
    return complete


def test_can_that_never_happens_is_decided_by_the_proof_not_a_search(monkeypatch: pytest.MonkeyPatch) -> None:
    # Even where a complete search would answer, the solver's cheap proof comes first.
    calls: list[int] = []
    monkeypatch.setattr(ask, "search", _search_finishing_unless_stopped(calls))
    answer = ad_hoc("veto_refused", "sometimes", (5, 6), ("propose_veto",), rules=STANDARD_RULES)
    assert answer.verdict == NO and not answer.not_searched
    for result in answer.results:
        evidence = result.verdict.evidence
        assert isinstance(result.verdict, Unwitnessed) and evidence.method == "k-induction", result
        assert evidence.note == "no step from a state satisfying the proved invariants is such a move"
    assert set(calls) <= {5}, calls  # only the first count's search runs beside the proof
    assert render(answer).startswith("No — this never happens (5–6 players).")
    assert "How this was decided:\n  Proved for 5–6 players (k-induction)." in render(answer)


def test_can_and_never_give_the_same_proof() -> None:
    can = ad_hoc(NEVER_POWER_OUT_OF_TURN, "sometimes", (5, 6), rules=STANDARD_RULES)
    never = ad_hoc(NEVER_POWER_OUT_OF_TURN, "never", (5, 6), rules=STANDARD_RULES)
    assert can.verdict == NO and [type(r.verdict) for r in can.results] == [Unwitnessed] * 2
    assert all(r.verdict.evidence.note == "its negation is inductive with the proved strengthening invariants"
               for r in can.results)
    said, told = render(can).splitlines(), render(never).splitlines()
    assert said[0] == told[0] == "No — this never happens (5–6 players)."
    # all but the formal statement, "sometimes" against "never", and what the proof rests on:
    # both from the proof's unsat cores, which z3 need not give alike twice (a core is one
    # sufficient set), but both with the requirement that grants powers (R-X1)
    rests = [line for line in said + told if line.startswith("Rests on")]
    # (each cited rule's short text is indented under "Rests on", and goes with it)
    assert [line for line in said[1:] if line not in rests and not line.startswith(("    ", "  Formally:"))] == \
        [line for line in told[1:] if line not in rests and not line.startswith(("    ", "  Formally:"))]
    assert all(line.startswith("Rests on (the requirements the proof needed") and "R-X1 (" in line for line in rests)


def test_can_that_happens_still_gives_the_shortest_game() -> None:
    answer = ad_hoc(HITLER_PRESIDENT, "sometimes", (5, 6, 7), rules=STANDARD_RULES)
    assert answer.verdict == YES and answer.witness is not None and answer.witness.players == 5
    assert answer.witness.verdict.evidence.method == "explicit"
    shortest = search((answer.query,), 5, Limits(time_limit=60), STANDARD_RULES)[answer.query.name].verdict
    assert isinstance(shortest, Witnessed) and shortest.trace is not None
    assert answer.game is not None and len(answer.game.steps) == len(shortest.trace.steps)
    assert answer.not_searched == {6: "not needed: a game where it happens was found",
                                   7: "not needed: a game where it happens was found"}
    assert ask._proof_of_never(answer.query, 5, STANDARD_RULES) is None  # no proof claims what happens


def test_the_catalogue_leaves_to_the_search_only_what_the_solver_does_not_prove(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    entries = "".join(f"""
[[dispute]]
id = "{ident}"
source = "test"
question = "?"
kind = "sometimes"
state = "{state}"
rules = ["R-X1"]
players = "5"
answer = "{answer}"
explanation = "."
""" for ident, state, answer in (("power-out-of-turn", NEVER_POWER_OUT_OF_TURN, "no"),
                                 ("hitler-president", HITLER_PRESIDENT, "yes")))
    path = tmp_path / "disputes.toml"
    path.write_text(entries, encoding="utf-8")
    disputes = catalogue(STANDARD_RULES, path=path)
    searched: list[str] = []
    real = ask.search

    def recorded(props: tuple[Property, ...], *args: Any, **kwargs: Any) -> dict[str, PropertyResult]:
        searched.extend(p.name for p in props)
        return real(props, *args, **kwargs)
    monkeypatch.setattr(ask, "search", recorded)
    answers = answer_many(disputes, 5, Budget(seconds=60), rules=STANDARD_RULES)
    assert disputes[1].query is not None and searched == [disputes[1].query.name]
    proof, game = answers["power-out-of-turn"], answers["hitler-president"]
    assert isinstance(proof, FormalAnswer) and proof.verdict == NO and as_expected(proof) is True
    assert proof.results[0].verdict.evidence.method == "k-induction"
    assert isinstance(game, FormalAnswer) and game.verdict == YES and as_expected(game) is True


@pytest.mark.parametrize("expression, on, message, column", [
    ("phase == 'vot'", None, "'vot' is not a phase; expected one of deal", 9),
    ("fascist_policy >= 3", None, "unknown name 'fascist_policy'. Did you mean 'fascist_policies'?", 0),
    ("fascist_policies >=", None, "syntax error: the expression ends too early: expected an operand", 19),
    ("fascist_policies + 1", None, "the expression must be bool, got int", 0),
    ("tile == 'liberall'", "enact", "'liberall' is not a tile; expected one of liberal, fascist", 8),
    ("count(ja) > alive_count and after_nominee == chancelor", "elect",
     "unknown name 'chancelor'", 45),
])
def test_ad_hoc_mistakes_point_with_a_caret(expression: str, on: str | None, message: str, column: int) -> None:
    args = ["--players", "5", "--can", expression] + (["--on", on] if on else [])
    result = run(*args)
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert lines[0].startswith("shrules: error: --can expression: ") and message in lines[0], lines[0]
    assert lines[1] == f"  {expression}"
    assert lines[2] == "  " + " " * column + "^"
    assert "Traceback" not in result.stderr


def test_ad_hoc_usage_mistakes() -> None:
    assert run("--on", "enact").exit_code == 2
    assert run("--can", "True", "--never", "False").exit_code == 2
    assert "'enakt' is no move" in run("--can", "True", "--on", "enakt").stderr


# ---------------------------------------------------------------------- the table's position


def _game(tmp_path: Path, *lines: dict[str, Any]) -> str:
    path = tmp_path / "partial.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return str(path)


SEVEN = {"setup": {"players": 7, "first_president": 0}}
ROUND: list[dict[str, Any]] = [{"move": "nominate", "by": 0, "chancellor": 4},
                               {"move": "vote", "ja": [0, 1, 2, 3, 4]},
                               {"move": "enact", "by": 4, "tile": "liberal"}]


def test_move_illegal_in_every_position_names_the_rule(tmp_path: Path) -> None:
    game = _game(tmp_path, SEVEN, *ROUND)
    result = run("--game", game, "--move", '{"move": "nominate", "by": 1, "chancellor": 4}')
    assert result.exit_code == 0, result.stdout
    first = result.stdout.splitlines()[0]
    assert first == ("No — R-E3 (Term limits: the last elected President and Chancellor may not be nominated "
                     "Chancellor): seat 5 was elected Chancellor last and is term-limited.")
    assert "Illegal in every consistent position" in result.stdout


def test_move_legal_in_every_position(tmp_path: Path) -> None:
    game = _game(tmp_path, SEVEN, *ROUND)
    result = run("--game", game, "--move", '{"move": "nominate", "by": 1, "chancellor": 2}')
    assert result.exit_code == 0, result.stdout
    assert result.stdout.startswith("Yes — legal: seat 2 nominates seat 3 as Chancellor.")
    assert "Legal in every consistent position" in result.stdout


def test_move_by_the_wrong_seat(tmp_path: Path) -> None:
    game = _game(tmp_path, SEVEN, *ROUND)
    result = run("--game", game, "--move", '{"move": "nominate", "by": 2, "chancellor": 5}')
    assert result.exit_code == 0
    assert "R-E1" in result.stdout.splitlines()[0] and "seat 3 is not the President" in result.stdout


def test_move_depends_on_the_hidden_hand(tmp_path: Path) -> None:
    game = _game(tmp_path, SEVEN, *ROUND[:2])
    result = run("--game", game, "--move", '{"move": "enact", "by": 4, "tile": "liberal"}')
    assert result.exit_code == 3, result.stdout
    assert result.stdout.splitlines()[0] == (
        "It depends on hidden information: legal if the Chancellor holds fewer than 2 Fascist tiles; illegal if "
        "the Chancellor holds at least 2 Fascist tiles — R-L3 (The Chancellor discards one, face down, and enacts "
        "the other): the Chancellor holds no liberal tile.")
    data = json.loads(run("--game", game, "--move", '{"move": "enact", "by": 4, "tile": "liberal"}',
                          "--json").stdout)
    assert data["answer"] == "depends" and data["ruling"]["verdict"] == "depends"
    assert 0 < data["ruling"]["legal_in"] < data["ruling"]["positions"]


def test_move_depends_on_the_hidden_roles(tmp_path: Path) -> None:
    # Five players, roles unknown; four Fascist policies, then seat 0 is executed. Whether
    # play goes on depends on whether seat 0 was Hitler.
    lines: list[dict[str, Any]] = [{"setup": {"players": 5, "first_president": 0}}]
    for president in range(4):
        chancellor = president + 1
        lines += [{"move": "nominate", "by": president, "chancellor": chancellor},
                  {"move": "vote", "ja": [0, 1, 2, 3, 4]},
                  {"move": "enact", "by": chancellor, "tile": "fascist"}]
    lines.append({"move": "execute", "by": 3, "target": 0})
    game = _game(tmp_path, *lines)
    result = run("--game", game, "--move", '{"move": "nominate", "by": 4, "chancellor": 1}')
    assert result.exit_code == 3, result.stdout
    assert result.stdout.startswith("It depends on hidden information: legal if Hitler is not seat 1; "
                                    "illegal if Hitler is seat 1 — R-W5")
    assert "the game is over" in result.stdout


def test_known_roles_decide(tmp_path: Path) -> None:
    game = _game(tmp_path, {"setup": {"players": 7, "roles": {"hitler": 4, "fascists": [1, 2]},
                                      "first_president": 0}}, *ROUND[:2])
    result = run("--game", game, "--move", '{"move": "enact", "by": 4, "tile": "fascist"}')
    assert result.exit_code == 3  # the hand is still hidden
    assert "Hitler" not in result.stdout.splitlines()[0]


def test_partial_game_that_is_itself_illegal(tmp_path: Path) -> None:
    game = _game(tmp_path, SEVEN, *ROUND, {"move": "nominate", "by": 1, "chancellor": 4})
    result = run("--game", game, "--move", '{"move": "vote", "ja": []}')
    assert result.exit_code == 2
    assert "the partial game is not legal at line 5: R-E3" in result.stderr


def test_bad_move_json(tmp_path: Path) -> None:
    game = _game(tmp_path, SEVEN, *ROUND)
    result = run("--game", game, "--move", '{"move": "nominate", "by": 1')
    assert result.exit_code == 2 and "--move: not JSON" in result.stderr
    result = run("--game", game, "--move", '{"move": "nominate", "by": 1, "chancelor": 2}')
    assert result.exit_code == 2 and "did you mean 'chancellor'" in result.stderr


def test_counts_in_words() -> None:
    assert counts_text((5, 6, 7, 8, 9, 10)) == "5–10"
    assert counts_text((5, 6, 8)) == "5–6 and 8"
    assert counts_text((7,)) == "7"


class _Solver:
    """A Z3 backend that proves nothing with the written hints and everything with
    inferred invariants: what `answer_many` asks of it, and in which order."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, bool]] = []

    def check_property(self, spec: Any, prop: Property, players: int, limits: Limits,
                       infer: bool = False) -> Any:
        self.asked.append(("check", infer))
        if infer:
            return Proved(Evidence("k-induction", note="inferred"))
        return Unknown(Evidence("k-induction"), "not inductive")

    def prove_never_happens(self, spec: Any, prop: Property, players: int, infer: bool = False,
                            seconds: float | None = None) -> Any:
        self.asked.append(("never", infer))
        if infer:
            return Unwitnessed(Evidence("k-induction", note="inferred"))
        return Unknown(Evidence("k-induction"), "not inductive")


@pytest.mark.parametrize("kind", ["never", "sometimes"])
def test_the_catalogue_infers_invariants_for_what_the_search_left_unknown(
        kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`ask --all`: an entry the hinted proof and a cut-short search leave unknown is asked
    again with inferred invariants (a `never` entry directly, with no second hinted check)
    and ends proved, not unknown; with inference switched off it stays unknown."""
    path = tmp_path / "disputes.toml"
    path.write_text(f"""
[[dispute]]
id = "power-out-of-turn"
source = "test"
question = "?"
kind = "{kind}"
state = "{NEVER_POWER_OUT_OF_TURN}"
rules = ["R-X1"]
players = "5"
answer = "no"
explanation = "."
""", encoding="utf-8")
    disputes = catalogue(STANDARD_RULES, path=path)
    for infer in (True, False):
        solver = _Solver()
        monkeypatch.setattr(ask, "_smt_backend", lambda: solver)
        answer = answer_many(disputes, 5, Budget(max_states=50, seconds=60, infer=infer), rules=STANDARD_RULES)["power-out-of-turn"]
        assert isinstance(answer, FormalAnswer)
        if not infer:
            assert answer.verdict == UNKNOWN and ("check", True) not in solver.asked
            continue
        assert answer.verdict == NO and answer.results[0].verdict.evidence.note == "inferred"
        if kind == "never":
            assert solver.asked == [("check", False), ("check", True)]
        else:
            assert solver.asked == [("never", False), ("never", True)]


@pytest.mark.parametrize("lang,words", [("en", "A game where it does, not proved the shortest (5 players"),
                                        ("de", "Ein Spiel, in dem es passiert, nicht als das kürzeste bewiesen (5 ")])
def test_a_witness_not_proved_the_shortest_is_not_called_the_shortest(lang: str, words: str) -> None:
    """A game found by random play beyond the depth the solver proved: the answer says
    it is a game where it happens, never that it is the shortest."""
    import dataclasses

    answer = ad_hoc("liberal_policies == 2", "sometimes", (5,), rules=STANDARD_RULES)
    assert answer.verdict == YES and "The shortest game where it does" in render(answer)
    witness = answer.witness
    assert witness is not None and isinstance(witness.verdict, Witnessed)
    loose = dataclasses.replace(witness, verdict=dataclasses.replace(witness.verdict, lower_bound=3))
    looser = dataclasses.replace(answer, results=tuple(loose if r is witness else r for r in answer.results))
    text = render(looser, lang=lang)
    assert words in text and "shortest game where" not in text and "kürzeste Spiel, in dem" not in text


def test_an_entry_asked_at_a_count_that_does_not_decide_it_is_not_held_to_its_answer() -> None:
    """At 6 players there is no Special Election (R-X7), and two executions leave four alive,
    so candidacy cannot come back round to the last President before the third failed
    election forgets the term limits (R-E9): a right "no", though the catalogue's "yes" is
    for 7 players."""
    result = run("last-president-again", "--players", "6")
    assert result.exit_code == 0, result.stdout
    assert result.stdout.splitlines()[1].startswith("No — this never happens (6 players)")
    assert "The catalogue's answer, yes, is for 7 players" in result.stdout
    assert "NOT as expected" not in result.stdout
