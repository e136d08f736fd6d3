"""The rules lawyer decides each count through the portfolio (verify/portfolio.py).

Stand-in backends are given to `ask.decide` in place of the search and the solver: what
they are asked, in which order and with which limits, is the lawyer's strategy; what they
answer is all the answer can rest on. An unknown from every backend is an unknown answer,
never a "no"; a count is asked of the solver's proofs once, however many passes the
question makes over the counts.
"""

from __future__ import annotations

import time

import pytest

from spec.disputes import query
from spec.properties import Property
from verify.budgets import WALL_BACKSTOP
from verify.lawyer import ask
from verify.lawyer.answers import NO, UNKNOWN, YES
from verify.lawyer.ask import Budget, question_strategy
from verify.portfolio import STRATEGIES, Backend, Deadline, Once, Request
from verify.results import Evidence, Limits, PropertyResult, Proved, Unknown, Verdict, Witnessed
from verify.rules import Rules

STANDARD_RULES = Rules.named("standard")
NEVER_TIE_ELECTS = "phase == 'nominate' and election_tracker > 3"
"""A `never` question over states (the tracker never passes three): "no" by the rulebook."""

Asked = tuple[str, int, Limits]


class Stand:
    """A backend answering from a table by count (`True`: proved, `False`: a game where it
    happens, absent: unknown), recording each request with its limits."""

    def __init__(self, name: str, log: list[Asked], table: dict[int, bool] | None = None) -> None:
        self.name, self.log, self.table = name, log, table or {}

    def decide(self, request: Request, deadline: Deadline) -> list[PropertyResult]:
        self.log.append((self.name, request.players, request.limits))
        out = []
        for prop in request.properties:
            holds = self.table.get(request.players)
            verdict: Verdict = (Unknown(Evidence(self.name), f"limit: {self.name} stopped") if holds is None else
                                Proved(Evidence(self.name)) if holds else Witnessed(Evidence(self.name), None))
            out.append(PropertyResult(prop.name, request.players, prop.kind, prop.rule_ids, prop.expect, verdict))
        return out

    def heard(self, request: Request, results: list[PropertyResult]) -> None:
        """Nothing is kept."""


def _question(kind: str = "never") -> Property:
    return query(STANDARD_RULES.spec, "question", kind, NEVER_TIE_ELECTS, (), tuple(STANDARD_RULES.spec.player_counts))


def _stands(log: list[Asked], smt: dict[int, bool] | None = None, search: dict[int, bool] | None = None,
            bounded: dict[int, bool] | None = None, inferred: dict[int, bool] | None = None) -> dict[str, Backend]:
    return {"smt": Once(Stand("smt", log, smt)), "explicit": Stand("explicit", log, search),
            "bounded": Once(Stand("bounded", log, bounded)), "inferred": Once(Stand("inferred", log, inferred))}


def test_a_never_question_has_the_inductive_proofs_first_then_the_search() -> None:
    log: list[Asked] = []
    answer = ask.decide(_question(), (5,), Budget(seconds=60, infer=False), rules=STANDARD_RULES,
                        backends=_stands(log, search={5: True}))
    assert [(name, count) for name, count, _ in log] == [("smt", 5), ("explicit", 5)]
    first = log[0][2]
    assert first.proof_only and first.time_limit is not None and first.time_limit <= 20
    assert not log[1][2].proof_only
    assert answer.verdict == NO and answer.results[0].verdict.evidence.method == "explicit"


def test_where_inference_may_follow_the_bounded_search_and_the_inferred_proof_come_before_the_search() -> None:
    log: list[Asked] = []
    answer = ask.decide(_question(), (5,), Budget(seconds=60), rules=STANDARD_RULES,
                        backends=_stands(log, inferred={5: True}))
    assert [name for name, _, _ in log] == ["smt", "bounded", "inferred"]
    assert log[1][2].max_states is not None and log[1][2].max_states <= 4_000_000
    assert answer.verdict == NO and answer.results[0].verdict.evidence.method == "inferred"


def test_a_proof_first_leaves_nothing_to_search() -> None:
    log: list[Asked] = []
    answer = ask.decide(_question(), (5, 6), Budget(seconds=60, infer=False), rules=STANDARD_RULES,
                        backends=_stands(log, smt={5: True, 6: True}))
    assert [(name, count) for name, count, _ in log] == [("smt", 5), ("smt", 6)]
    assert answer.verdict == NO


def test_every_backend_undecided_is_unknown_never_no() -> None:
    log: list[Asked] = []
    answer = ask.decide(_question(), (5, 6), Budget(seconds=60), rules=STANDARD_RULES, decides=5,
                        backends=_stands(log))
    assert answer.verdict == UNKNOWN
    assert all(isinstance(result.verdict, Unknown) for result in answer.results)
    # The search of 5 players stopped at its limit: 6 players, a larger graph, is given to
    # the solver's proofs alone, and the proofs of each count are asked once.
    assert [(name, count) for name, count, _ in log] == [
        ("smt", 5), ("bounded", 5), ("inferred", 5), ("explicit", 5), ("smt", 6), ("inferred", 6)]
    assert 6 in answer.not_searched and "hit its limit" in answer.not_searched[6]


def test_a_game_found_at_one_count_answers_yes_and_ends_the_question() -> None:
    log: list[Asked] = []
    answer = ask.decide(_question(), (5, 6, 7), Budget(seconds=60, infer=False), rules=STANDARD_RULES,
                        decides=6, backends=_stands(log, search={6: False}))
    assert answer.verdict == YES
    assert [(name, count) for name, count, _ in log] == [("smt", 6), ("explicit", 6)]


def test_a_second_pass_asks_the_search_again_not_the_proofs() -> None:
    # An ad-hoc question (no deciding count) over two counts gets a quick pass first,
    # each count a share of the time, then the full pass.
    log: list[Asked] = []
    ask.decide(_question(), (5, 6), Budget(seconds=60, infer=False), rules=STANDARD_RULES,
               backends=_stands(log, search={6: True}))
    assert [(name, count) for name, count, _ in log] == [
        ("smt", 5), ("explicit", 5), ("smt", 6), ("explicit", 6), ("explicit", 5)]
    quick, full = log[1][2].time_limit, log[4][2].time_limit
    assert quick is not None and full is not None and quick < full


@pytest.mark.parametrize("kind, searched, expected", [
    ("never", True, "proof_first_inferring"), ("never", False, "proofs_alone_inferring"),
])
def test_the_strategy_is_named_in_the_portfolio(kind: str, searched: bool, expected: str) -> None:
    strategy = question_strategy(_question(kind), Budget(), None, searched=searched)
    assert strategy == expected and strategy in STRATEGIES


def test_a_question_s_time_is_the_work_done_not_the_time_waited() -> None:
    """Waiting (for a CPU the other core's work holds, for the prover beside) does not spend
    the question's time; the wall clock still ends it at its backstop (verify/clock.py)."""
    budget = Budget(seconds=10.0)
    started = budget.start()
    time.sleep(0.6)
    waited = started.elapsed()
    # A wall-clock budget would have 10 - 0.6 left; waiting costs only its share of the
    # backstop (a third), so that a search given what is left still ends by the question's.
    assert budget.left(started) > 10.0 - waited + 0.3
    assert budget.left(started) <= 10.0 - waited / WALL_BACKSTOP
    limits = budget.limits(started)
    assert limits.time_limit is not None and limits.time_limit > 10.0 - waited + 0.3
    assert Budget(seconds=None).left(Budget(seconds=None).start()) == float("inf")
