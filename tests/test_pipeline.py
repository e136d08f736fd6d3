"""One decision pipeline: the budgets in one module, the portfolio's strategies, rules as values.

The budgets (verify/budgets.py) are assigned there and nowhere else in verify/; the
portfolio (verify/portfolio.py) runs backends in the order its strategy names, and an
undecided backend's result is unknown, never proved; a check runs in a worker started by
`spawn`, which copies nothing of the parent (the rules travel as a value).
"""

from __future__ import annotations

import ast
import multiprocessing
import re
import time
from pathlib import Path
from dataclasses import replace

import pytest

from engine.game import compiled_game
from spec.disputes import query
from spec.identity import content_hash
from spec.loader import load_spec, overlay_of
from verify import portfolio
from verify.budgets import CROSS_CHECK_FLOOR_SECONDS, CROSS_CHECK_SECONDS
from verify.checker import _in_processes, check
from verify.explicit.check import DEFAULT_EXPLORER, select
from verify.explicit.reductions import Reductions
from verify.portfolio import Backend, Deadline, ExplicitBackend, Request, SolverBackend, decide
from verify.portfolio import explore as portfolio_explore
from verify.rules import Rules
from verify.results import Evidence, Limits, Played, PropertyResult, Proved, Refuted, Unknown, Verdict, Witnessed

STANDARD_RULES = Rules.named("standard")

ROOT = Path(__file__).resolve().parents[1]
BUDGET = re.compile(r"_(SECONDS|SHARE|RESERVE)$")


def _assigned_names(node: ast.AST) -> list[str]:
    """The plain names an assignment binds (tuples unpacked)."""
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets = [node.target]
    names: list[str] = []
    while targets:
        target = targets.pop()
        if isinstance(target, ast.Name):
            names.append(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            targets += target.elts
    return names


def budgets_assigned(path: Path) -> list[str]:
    """The budget constants (`*_SECONDS`, `*_SHARE`, `*_RESERVE`) a file assigns."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [name for node in ast.walk(tree) for name in _assigned_names(node) if BUDGET.search(name)]


def test_the_finder_sees_a_budget() -> None:
    tree = "A_SECONDS = 1.0\nB, C_SHARE = 2, 0.5\nD: float = 3\nE_RESERVE: float = 4\nseconds = 5\n"
    found = [name for node in ast.walk(ast.parse(tree)) for name in _assigned_names(node) if BUDGET.search(name)]
    assert sorted(found) == ["A_SECONDS", "C_SHARE", "E_RESERVE"]


def test_budgets_are_assigned_only_in_the_budgets_module() -> None:
    home = ROOT / "verify" / "budgets.py"
    elsewhere = {str(path.relative_to(ROOT)): found for path in sorted((ROOT / "verify").rglob("*.py"))
                 if path != home and (found := budgets_assigned(path))}
    assert not elsewhere, f"budget constants outside verify/budgets.py: {elsewhere}"
    assert len(budgets_assigned(home)) >= 30


def test_every_budget_says_why() -> None:
    """Each budget is followed by its docstring: what it bounds and why that value."""
    body = ast.parse((ROOT / "verify" / "budgets.py").read_text(encoding="utf-8")).body
    missing = [name for at, node in enumerate(body) for name in _assigned_names(node)
               if not (at + 1 < len(body) and isinstance(body[at + 1], ast.Expr)
                       and isinstance(getattr(body[at + 1], "value", None), ast.Constant))]
    assert not missing, f"budgets without a docstring: {missing}"


# ---------------------------------------------------------------------- the portfolio


class FakeBackend:
    """A backend that decides what it is told to and leaves the rest unknown, recording
    each request it was asked."""

    def __init__(self, name: str, decides: dict[str, bool], log: list[tuple[str, tuple[str, ...]]]) -> None:
        self.name, self.decides, self.log = name, decides, log
        self.heard_of: list[str] = []

    def decide(self, request: Request, deadline: Deadline) -> list[PropertyResult]:
        self.log.append((self.name, tuple(prop.name for prop in request.properties)))
        out = []
        for prop in request.properties:
            holds = self.decides.get(prop.name)
            verdict: Verdict = (Unknown(Evidence(self.name), "limit: the fake stopped") if holds is None else
                                Proved(Evidence(self.name)) if holds else
                                Refuted(Evidence(self.name), None, "the fake refutes it"))
            out.append(PropertyResult(prop.name, request.players, prop.kind, prop.rule_ids, prop.expect, verdict))
        return out

    def heard(self, request: Request, results: list[PropertyResult]) -> None:
        self.heard_of += [result.property for result in results]


PROPERTIES = ("tracks_in_range", "deck_conservation_liberal", "tracker_in_range")


def _request() -> Request:
    return Request(Rules.named("standard"), 5, select(STANDARD_RULES, PROPERTIES), Limits(time_limit=10.0))


def _fakes(search: dict[str, bool], solver: dict[str, bool]
           ) -> tuple[dict[str, Backend], list[tuple[str, tuple[str, ...]]]]:
    log: list[tuple[str, tuple[str, ...]]] = []
    return {"explicit": FakeBackend("explicit", search, log), "smt": FakeBackend("smt", solver, log)}, log


@pytest.mark.parametrize("strategy,order", [
    ("search_only", ["explicit"]),
    ("search_first", ["explicit", "smt"]),
    ("solver_first", ["smt", "explicit"]),
    ("solver_only", ["smt"]),
])
def test_a_strategy_asks_the_backends_in_its_order_each_for_what_is_left(strategy: str, order: list[str]) -> None:
    first = {"explicit": {"tracks_in_range": True}, "smt": {"deck_conservation_liberal": True}}
    backends, log = _fakes(first["explicit"], first["smt"])
    decision = decide(_request(), None, strategy=strategy, backends=backends)
    assert [name for name, _ in log] == order
    assert log[0][1] == PROPERTIES                      # the first backend is asked everything
    if len(order) > 1:                                  # the second only what the first left unknown
        decided_first = set(first[order[0]])
        assert log[1][1] == tuple(name for name in PROPERTIES if name not in decided_first)
    assert [r.property for r in decision.results] == list(PROPERTIES)
    # tracker_in_range no fake decides: unknown whatever the strategy, never proved
    left = next(r for r in decision.results if r.property == "tracker_in_range")
    assert isinstance(left.verdict, Unknown) and left.as_expected is None
    assert order[-1] in decision.undecided_by


def test_an_undecided_backend_leaves_unknown_never_proved() -> None:
    backends, log = _fakes({}, {})
    decision = decide(_request(), None, strategy="cross_check", backends=backends)
    assert [name for name, _ in log] == ["explicit", "smt"]
    assert all(isinstance(r.verdict, Unknown) for r in decision.results)
    assert decision.undecided_by == {"explicit", "smt"}
    # the last backend asked says why (as `check --backend both` always reported it)
    assert all(r.verdict.evidence.method == "smt" for r in decision.results)


def test_cross_check_asks_the_solver_again_and_a_disagreement_is_the_failing_verdict() -> None:
    backends, log = _fakes({name: True for name in PROPERTIES}, {"tracks_in_range": False})
    decision = decide(_request(), None, strategy="cross_check", backends=backends)
    # the search decided all three; the solver is asked all again (all are cross-checked
    # kinds), in one request, so that one set of random games reaches their premises
    assert log == [("explicit", PROPERTIES), ("smt", PROPERTIES)]
    tracks = next(r for r in decision.results if r.property == "tracks_in_range")
    assert isinstance(tracks.verdict, Refuted) and "the backends disagree" in tracks.verdict.message
    assert all(isinstance(r.verdict, Proved) for r in decision.results if r.property != "tracks_in_range")
    fake_solver = backends["smt"]
    assert isinstance(fake_solver, FakeBackend) and fake_solver.heard_of == list(PROPERTIES)


class Replayed(FakeBackend):
    """A fake search whose refutations come with a game (no moves: the empty game of the
    standard rules, which the engine replays)."""

    def decide(self, request: Request, deadline: Deadline) -> list[PropertyResult]:
        out = super().decide(request, deadline)
        return [replace(r, verdict=replace(r.verdict, played=Played("standard", request.players, ())))
                if isinstance(r.verdict, Refuted) else r for r in out]


def test_cross_check_asks_again_only_what_claims_every_state() -> None:
    """A refutation with its game is checked by the engine's replay, not by the solver
    finding it again; a proof over every state is asked of the solver again."""
    log: list[tuple[str, tuple[str, ...]]] = []
    backends: dict[str, Backend] = {
        "explicit": Replayed("explicit", {"tracks_in_range": False, "deck_conservation_liberal": True}, log),
        "smt": FakeBackend("smt", {}, log)}
    decision = decide(_request(), None, strategy="cross_check", backends=backends)
    assert log == [("explicit", PROPERTIES), ("smt", ("tracker_in_range",)),
                   ("smt", ("deck_conservation_liberal",))]
    tracks = next(r for r in decision.results if r.property == "tracks_in_range")
    assert isinstance(tracks.verdict, Refuted) and tracks.verdict.played is not None


class LimitsSeen(FakeBackend):
    """A fake that also records the time limit of each request."""

    def __init__(self, name: str, decides: dict[str, bool], log: list[tuple[str, tuple[str, ...]]]) -> None:
        super().__init__(name, decides, log)
        self.time_limits: list[float | None] = []

    def decide(self, request: Request, deadline: Deadline) -> list[PropertyResult]:
        self.time_limits.append(request.limits.time_limit)
        return super().decide(request, deadline)


class Working(FakeBackend):
    """A fake search that takes `seconds` of work on the portfolio's clock."""

    def __init__(self, clock: list[float], seconds: float, decides: dict[str, bool],
                 log: list[tuple[str, tuple[str, ...]]]) -> None:
        super().__init__("explicit", decides, log)
        self.clock, self.seconds = clock, seconds

    def decide(self, request: Request, deadline: Deadline) -> list[PropertyResult]:
        self.clock[0] += self.seconds
        return super().decide(request, deadline)


@pytest.mark.parametrize("given,searched,asked", [
    (600.0, 0.0, CROSS_CHECK_FLOOR_SECONDS),        # no longer than the search, but never below the floor
    (600.0, 12.0, 12.0),                            # as long as the search took
    (600.0, 300.0, CROSS_CHECK_SECONDS),            # never above its own budget
    (3.0, 12.0, 3.0),                               # nor above the request's
])
def test_a_cross_check_gets_at_most_its_own_budget_and_an_unsettled_one_leaves_the_search_verdict(
        monkeypatch: pytest.MonkeyPatch, given: float, searched: float, asked: float) -> None:
    clock = [100.0]
    monkeypatch.setattr(portfolio, "work_seconds", lambda: clock[0])
    log: list[tuple[str, tuple[str, ...]]] = []
    solver = LimitsSeen("smt", {}, log)                 # settles nothing within its time
    backends: dict[str, Backend] = {"explicit": Working(clock, searched, {name: True for name in PROPERTIES}, log),
                                    "smt": solver}
    request = replace(_request(), limits=Limits(time_limit=given))
    decision = decide(request, None, strategy="cross_check", backends=backends)
    assert solver.time_limits == [asked]
    assert all(isinstance(r.verdict, Proved) and r.verdict.evidence.method == "explicit" for r in decision.results)


def test_a_deadline_passed_gives_unknown_from_the_real_backends() -> None:
    explicit, solver = ExplicitBackend(), SolverBackend(None)
    request = _request()
    for backend in (explicit, solver):
        results = backend.decide(request, time.perf_counter() - 1)
        assert results and all(isinstance(r.verdict, Unknown) for r in results)


# ---------------------------------------------------------------------- rules as values, spawn


def test_rules_cross_to_a_spawned_process_with_their_overlay() -> None:
    """A temporal query's monitors are an overlay registered in this process; a process
    started by `spawn` has no copy of that registry, and gets the rules from the value."""
    spec = load_spec("standard")
    prop = query(spec, "twice", "sometimes", "president == previous(president)", (),
                 tuple(spec.player_counts))
    assert prop.rules is not None and overlay_of(prop.rules) is not None
    rules = Rules.named(prop.rules)
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        assert pool.apply(_hash_there, (rules,)) == rules.hash


def _hash_there(rules: Rules) -> str:
    return content_hash(rules.spec)


def test_a_check_runs_in_workers_started_by_spawn() -> None:
    """`check -n 5 -p tracks_in_range` in a worker process started by `spawn` (which copies
    nothing of this process): the rules reach it as a value, the verdict and its evidence
    come back as they are here. (`check` itself uses workers only for two counts or more;
    the worker path is called directly to keep the test to one small count.)"""
    prop = select(STANDARD_RULES, ("tracks_in_range",))[0]
    limits = Limits(time_limit=120.0)
    spawned = _in_processes(Rules.named("standard"), (5,), (prop.name,), {prop.name: prop}, limits, Reductions(),
                            DEFAULT_EXPLORER, "explicit", False, True, 2, None,
                            multiprocessing.get_context("spawn"))
    here = check(STANDARD_RULES, (5,), (prop.name,), limits, workers=1)
    assert [(r.property, r.players, r.verdict.verdict, r.verdict.evidence.states) for r in spawned] == \
        [(r.property, r.players, r.verdict.verdict, r.verdict.evidence.states) for r in here]
    assert [r.verdict.verdict for r in here] == ["proved"]


# ---------------------------------------------------------------------- ask through the portfolio


def test_ask_searches_with_the_layered_search_and_finds_the_shortest_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rules lawyer's search is the portfolio's: layered where the rules have a
    ranking (the standard rules do), with the breadth-first search's shortest game."""
    from verify.explicit.explore import explore as breadth_first
    from verify.explicit.layered_check import LayeredExploration
    from verify.explicit.model import Model
    from verify.lawyer import ask

    seen: list[type] = []
    real = portfolio_explore

    def spy(*args: object, **options: object) -> object:
        exploration = real(*args, **options)  # type: ignore[arg-type]
        seen.append(type(exploration))
        return exploration

    monkeypatch.setattr(ask, "explore", spy)
    spec = load_spec("standard")
    prop = query(spec, "q", "sometimes", "fascist_policies == 2", (), (5,))
    result = ask.search((prop,), 5, Limits(time_limit=120.0), STANDARD_RULES)[prop.name]
    assert seen == [LayeredExploration]
    assert isinstance(result.verdict, Witnessed)
    game = compiled_game(5, "standard")
    reference = breadth_first(Model(game, (prop,), Reductions()), (prop,), Limits(time_limit=120.0), deadlocks=False)
    trace = getattr(result.verdict, "trace")
    assert len(trace.steps) == len(reference.trace_to(reference.hits[prop.name]).steps)


def test_rules_changed_since_they_were_sent_are_refused(tmp_path: Path) -> None:
    """A worker loads the rules again by name: a file edited since the check began no
    longer hashes the same, and the worker refuses it instead of checking other rules."""
    import pickle

    from spec.errors import SpecError

    original = (ROOT / "tests" / "mutants" / "one_government.toml").read_text(encoding="utf-8")
    path = tmp_path / "one_government.toml"
    path.write_text(original, encoding="utf-8")
    rules = Rules.named(str(path))
    sent = pickle.dumps(rules)
    assert pickle.loads(sent) == rules                  # unchanged: the same rules, by name and hash
    edited = original.replace("liberal_policies + fascist_policies == 0", "liberal_policies + fascist_policies <= 1")
    assert edited != original
    path.write_text(edited, encoding="utf-8")
    with pytest.raises(SpecError, match="changed while they were being checked"):
        pickle.loads(sent)
