"""The operators of the shapes small edits missed (verify/diff/shapes.py): each makes valid
mutants of the standard rules that play differently; they are numbered after the small
edits, whose numbers (and the mutation gate's record) stay as they were; they run only when
asked for; a mutant the language would refuse is reported invalid, never a crash."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from engine.game import Game
from spec.errors import SpecError
from spec.lang import nodes as n
from spec.lang.types import SEATS
from spec.loader import load_spec
from verify.diff.compare import Budget, diff
from verify.diff.gate import load_record, names, record_of
from verify.diff.mutate import Outcome, Run, decide
from verify.diff.operators import ALL_OPERATORS, DEFAULT_OPERATORS, OPERATORS, Mutant, expand, mutants
from verify.diff.shapes import ESCAPED, PER_RULE
from verify.diff.welltyped import spec_error
from verify.explicit.explore import Limits
from verify.results import MutantStatus

BASE = load_spec("standard")
RECORD = Path(__file__).resolve().parent.parent / "reports" / "standard" / "mutation-5.json"
ESCAPED_SHAPES = Path(__file__).resolve().parent / "mutants" / "escaped_shapes.json"

QUICK = Budget(max_pairs=50_000, seconds=20.0, random_games=200, random_seconds=5.0, first_only=True)
"""A short product search: each sample below is told apart from the rules within a few moves."""

SAMPLES = [
    ("redirect_effect", "deal_roles", "effect fascists = fascist_seats written to alive", 2),
    ("skip_phase", "nominate", "effect phase: 'vote' -> 'elected' (skips a step)", 3),
    ("earlier_phase", "nominate", "effect phase: 'vote' -> 'power' (goes back)", 3),
    ("repeat_step", "reject", "effect phase: 'next_round' -> 'vote' (the step repeats)", 4),
    ("neighbour_read", "nominate", "requirement: reads fascists for alive", 2),
    ("move_effect", "elect", "effect last_chancellor = nominee moved to hitler_elected", 7),
    ("param_domain", "draw_hand", "parameter fascist_tiles: 0..hand_size -> 0..hand_size - 1 (narrowed)", 5),
    ("swap_roles", "nominate", "actor: president -> nominee", 2),
]
"""One mutant of each operator, the misreading it models, and the most decisions the
shortest game telling it apart from the rules takes at 5 players."""


def test_every_operator_makes_valid_mutants_of_the_standard_rules() -> None:
    made = mutants(BASE, ("escaped",))
    by_operator = Counter(m.operator for m in made if not m.invalid)
    assert set(by_operator) == set(ESCAPED), by_operator
    assert all(mutant.spec != BASE for mutant in made)
    refused = []
    sample = {m.number: m for m in made[::9] + mutants(BASE, ("param_domain",))}   # compiling all takes 30 s
    for mutant in sample.values():
        try:
            Game(mutant.spec, 5)
        except SpecError as error:       # `decide` reports such a mutant invalid ("does not compile")
            refused.append((mutant.description, str(error)))
    assert [description for description, _ in refused] == \
        ["parameter top: tiles(hand_size) -> tiles(hand_size + 1) (widened)"], refused


def test_each_mutant_is_a_change_and_no_operator_swamps_a_rule() -> None:
    made = mutants(BASE, ("escaped",))
    per_rule = Counter((m.operator, m.rule) for m in made)
    assert max(per_rule.values()) <= PER_RULE
    labels = [(m.operator, m.rule, m.description) for m in made]
    assert len(set(labels)) == len(labels), "two mutants with one name: the gate could not tell them apart"
    assert all(spec_error(m.spec) is None for m in made if not m.invalid)
    every = mutants(BASE, ("all",))
    rules_of = [(m.spec.rules, tuple(m.spec.definitions.items()), tuple(m.spec.constants.items()),
                 repr(m.spec.tables)) for m in every]
    assert len(set(rules_of)) == len(rules_of), "two operators made the same mutant"


@pytest.mark.parametrize("operator, rule, description, decisions", SAMPLES, ids=[s[0] for s in SAMPLES])
def test_a_sample_mutant_plays_differently_within_a_few_moves(operator: str, rule: str, description: str,
                                                               decisions: int) -> None:
    (mutant,) = [m for m in mutants(BASE, (operator,), (rule,)) if m.description == description]
    assert not mutant.invalid
    result = diff(BASE, mutant.spec, [5], QUICK)
    assert result.differences, f"{mutant.label}: no game tells it apart"
    assert result.differences[0].decisions <= decisions


def test_existing_mutants_keep_their_numbers_and_the_gate_sees_nothing_new() -> None:
    default = mutants(BASE)
    assert DEFAULT_OPERATORS == OPERATORS and {m.operator for m in default} <= set(OPERATORS)
    assert [m.number for m in default] == list(range(1, len(default) + 1))
    everything = mutants(BASE, ("all",))
    assert [m.number for m in everything] == list(range(1, len(everything) + 1))
    assert [(m.number, m.description) for m in everything[:len(default)]] == \
        [(m.number, m.description) for m in default]
    assert all(m.operator in ESCAPED for m in everything[len(default):])
    assert [m.operator for m in everything] == sorted((m.operator for m in everything), key=ALL_OPERATORS.index)
    record = load_record(RECORD)
    named = names(BASE)
    assert all(record.knows(name) for name in named.values()), "the gate would run a mutant it does not know"
    first = mutants(BASE, ("escaped",))
    again = mutants(BASE, ("redirect_effect", "swap_roles"))
    assert [m.label for m in again] == [m.label for m in first if m.operator in ("redirect_effect", "swap_roles")]


def test_operator_sets_expand_in_numbering_order() -> None:
    assert expand(("escaped",)) == ESCAPED
    assert expand(("swap_roles", "negate", "default")) == OPERATORS + ("swap_roles",)
    assert expand(("all",)) == ALL_OPERATORS
    with pytest.raises(ValueError, match="no operator"):
        expand(("rename_everything",))


def test_an_ill_typed_mutant_is_reported_invalid_not_run() -> None:
    enact = BASE.rules.index(BASE.rule("enact"))
    tracker = dict(BASE.rule("enact").effect)["election_tracker"]
    wrong = replace(BASE.rule("enact"), effect=BASE.rule("enact").effect + (("alive", tracker),))
    spec = replace(BASE, rules=BASE.rules[:enact] + (wrong,) + BASE.rules[enact + 1:])
    problem = spec_error(spec)
    assert problem is not None and "effect alive" in problem
    read = n.Name(SEATS, "no_such_field", "field")
    nominate = BASE.rule("nominate")
    bad = replace(nominate, requires=(replace(nominate.requires[0], when=n.Compare(
        nominate.requires[0].when.type, "<=", read, read)),))
    index = BASE.rules.index(nominate)
    unknown = replace(BASE, rules=BASE.rules[:index] + (bad,) + BASE.rules[index + 1:])
    assert "not in scope" in (spec_error(unknown) or "")
    mutant = Mutant(10_000, "move_effect", "enact", ("R-L3",), "made for the test", spec, None, problem)
    outcome = decide(BASE, mutant, 5, {}, Limits(None, 5.0, None))
    assert outcome.status == "invalid" and "ill-typed" in outcome.detail


def test_the_shipped_rule_sets_are_well_typed_by_the_mutants_check() -> None:
    for name in ("standard", "custom", "strict_term_limits", "mistakes/dead_vote"):
        assert spec_error(load_spec(name)) is None, name


def test_a_record_names_the_new_operators_mutants_the_gate_does_not_run() -> None:
    """`mutate --operator escaped --record FILE` names its mutants (to merge into the gate's
    record when the operators are turned on); the gate's own names leave them out."""
    (mutant,) = [m for m in mutants(BASE, ("swap_roles",), ("nominate",)) if m.description.startswith("actor")]
    run = Run("standard", (5,))
    run.outcomes.append(Outcome(mutant.number, mutant.operator, mutant.rule, mutant.rule_ids, mutant.description,
                                5, MutantStatus.KILLED))
    record = record_of(run, 5, names(BASE, ("all",)))
    assert record["killed"] == ["swap_roles nominate: actor: president -> nominee"]
    assert mutant.number not in names(BASE)


def test_the_measured_outcomes_name_todays_mutants() -> None:
    """tests/mutants/escaped_shapes.json (the score of each new operator at 5 players and
    the rulebook fact each mutant left standing breaks) still names the mutants the
    operators make, by number, so the catalogue's work can be checked against it."""
    data = json.loads(ESCAPED_SHAPES.read_text(encoding="utf-8"))
    made = {m.number: m for m in mutants(BASE, ("escaped",))}
    assert data["total"] == len(made)
    per_operator = Counter(m.operator for m in made.values())
    assert [row["operator"] for row in data["operators"]] == list(ESCAPED)
    for row in data["operators"]:
        assert row["mutants"] == per_operator[row["operator"]], row["operator"]
        assert row["run"] == sum(row[s] for s in ("killed", "equivalent", "survived", "unknown", "invalid"))
        assert row["run"] <= row["mutants"] and (row["run"] == row["mutants"]) == ("sample" not in row)
    for entry in data["not_killed"] + data["rerun_unknown"]["mutants"]:
        mutant = made[entry["number"]]
        assert (mutant.operator, mutant.rule, mutant.description) == \
            (entry["operator"], entry["rule"], entry["description"])
        assert entry["rule_id"] in BASE.rulebook and entry["breaks"]


def _formerly_unknown() -> list[dict[str, object]]:
    data = json.loads(ESCAPED_SHAPES.read_text(encoding="utf-8"))
    return list(data["rerun_unknown"]["mutants"])


def _killed_by_the_catalogue(number: int, killer: str) -> None:
    from verify.diff.mutate import baseline_verdicts
    from verify.report.baseline import baseline_path, load_baseline

    entries = load_baseline(baseline_path(RECORD.parent.parent, "standard"))
    assert entries is not None
    verdicts = baseline_verdicts(entries, BASE, (5,))[5]
    (mutant,) = [m for m in mutants(BASE, ("escaped",)) if m.number == number]
    outcome = decide(BASE, mutant, 5, verdicts, Limits(time_limit=300), complete=False)
    assert outcome.status == "killed" and outcome.detail.startswith(f"{killer}:"), outcome.detail


@pytest.mark.parametrize("number, killer", [
    (637, "order_after_dealt"),                      # the first candidate's draw skipped (R-S6)
    (862, "nobody_has_won_while_play_goes_on"),      # a Fascist winner recorded at every election (R-W5)
    (881, "a_proposed_veto_is_not_yet_refused"),     # the refusal recorded at the proposal (R-V3)
    (947, "frame_peek"),                             # the Policy Peek shows two tiles (R-X5)
])
def test_the_catalogue_kills_what_the_escaped_shapes_left_unknown(number: int, killer: str) -> None:
    """A mutant of each kind the earlier catalogue left unknown is killed by random games
    under the property that states the rulebook's fact it breaks, with the order of play's
    monitor compiled into the mutant (seconds each)."""
    _killed_by_the_catalogue(number, killer)


@pytest.mark.slow
@pytest.mark.parametrize("entry", _formerly_unknown(), ids=lambda entry: f"#{entry['number']}")
def test_every_mutant_the_escaped_shapes_left_unknown_is_killed(entry: dict[str, object]) -> None:
    """Every one of the 26 (tests/mutants/escaped_shapes.json `rerun_unknown`), by the
    property recorded there."""
    number, killer = entry["number"], entry["killed_by"]
    assert isinstance(number, int) and isinstance(killer, str)
    _killed_by_the_catalogue(number, killer)
