"""Mutation analysis: is every rule pinned down by the property catalogue?

Each mutant (operators.py: one small change to the typed tree of the rules) is decided
for one player count:

1. its rules are compiled (`Game`), with the order of play's monitor compiled into them
   (`monitored`), so the whole catalogue is asked of the mutant, the order of play
   included; a mutant whose numbers break the state's declared ranges is `invalid` (not
   counted);
2. equal semantic signatures (diff/reductions.py) mean the change cannot matter for the
   count: `equivalent`; so does a change to one rule that the solver proves can never
   fire at the count, as written or mutated (`only_rule_changed`, smt `rules_never_fire`:
   an investigation where no board of 5 players has one), or makes the same moves with
   the same effects wherever the rules' strengthening invariants hold (smt
   `rule_makes_the_same_moves`: a requirement the others imply);
3. random games under the mutant (explicit/check.py `probe_game`, a few hundred, seconds)
   check the catalogue on every state and move: a refutation or witness of a property
   whose verdict under the rules differs is `killed` at once, with that game;
   then the solver searches a relation between the states of the two that every move
   keeps and under which they make the same moves (smt/relational.py): found, the
   mutant is `equivalent` at that count, whatever its number of states; failing that,
   the solver checks the catalogue under the mutant for a minute (one-step proofs and
   bounded model checking, the properties about the changed rule first): a verdict that
   differs from the rules' own is `killed`, with the game it found;
4. the product search of `shrules diff` (compare.py): a complete search with no
   difference proves the mutant `equivalent`;
5. otherwise the catalogue is checked under the mutant through the portfolio
   (verify/portfolio.py `decide`, `search_only`: the same search as `shrules check`, on
   the mutant's compiled game, `Rules.built`), each search stopping at the first hit of a
   property the rules prove (or leave without a witness): a verdict that differs from the
   rules' own is `killed`, with the shortest game; none is `survived`, with the shortest
   game telling the two apart that step 4 found (the catalogue has a gap there);
6. a check or a search stopped by a limit leaves the mutant `unknown`, never counted as
   killed or equivalent.

The score is killed / (killed + survived); unknown mutants and those not run (a cap) are
reported beside it, so a cut-short run never reads as 100%.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from engine.game import Game
from spec.errors import SpecError
from spec.identity import content_hash
from spec.loader import load_rulebook, load_spec
from spec.model import Rule, Spec
from spec.order import with_monitor
from spec.properties import Property, load_properties

from .. import portfolio
from ..budgets import (GUIDE_SECONDS, LONG_PROBE_SECONDS, MUTANT_SOLVER_SECONDS as SOLVER_SECONDS, MUTATE_DIFF_SECONDS,
                       MUTATE_RANDOM_SECONDS, PROBE_SECONDS, SOLVER_ONLY_EACH_SECONDS,
                       RELATIONAL_SECONDS, SOLVER_ONLY_DEEP_SHARE, SOLVER_ONLY_PLAYED_SHARE, SOLVER_ONLY_SECONDS,
                       SOLVER_ONLY_SHALLOW_SHARE)
from ..explicit.check import check_game, moves_of, probe_game
from ..explicit.explore import Limits
from ..portfolio import Backend, ExplicitBackend, Request, SolverBackend
from ..results import MutantStatus, PropertyResult, Refuted, Unknown, UnknownName, Vacuous, VerdictKind, Witnessed
from ..rules import Rules
from ..workers import WorkerPool
from .compare import Budget, diff
from .operators import ALL_OPERATORS, Mutant, mutants
from .reductions import semantic_signature

STATUSES = tuple(MutantStatus)
DECISIVE = (VerdictKind.PROVED, VerdictKind.NO_WITNESS)
"""Base verdicts a single hit under the mutant overturns: the search can stop there."""

MUTATE_DIFF = Budget(max_pairs=3_000_000, seconds=MUTATE_DIFF_SECONDS, random_games=200,
                     random_seconds=MUTATE_RANDOM_SECONDS, first_only=True)
"""The product search deciding equivalent or survived: complete when it can be."""


PROBE_GAMES = 400
"""Random games under a mutant before any complete search (within `PROBE_SECONDS`): most
rule bugs show within a few hundred games, and a game that shows one kills the mutant in
seconds."""

LONG_PROBE_GAMES = 4_000
"""Without the complete stages (`complete=False`: the CI gate's random-games run), more
random games (within `LONG_PROBE_SECONDS`) before the solver's timed queries: a kill by games counted is the same on
a busy machine as on an idle one, while a query's 60 s may not be. A mutant of the chaos
rule that uses the pile's counts where one tile of it is known needs about 2,000 games
(5 s on an idle core); decided by the solver within its time on an idle machine only, it
made the gate's verdict depend on the load."""


Kill = tuple[str, str, tuple[tuple[str, tuple[int, ...]], ...]]
"""The game that killed a mutant, as plain data a kept outcome is checked by: the property,
its verdict under the mutant (refuted or witness) and the moves of the game."""


@dataclass(slots=True)
class Outcome:
    """What became of one mutant at one player count."""

    number: int
    operator: str
    rule: str
    rule_ids: tuple[str, ...]
    description: str
    players: int
    status: MutantStatus
    detail: str = ""
    game: list[str] = field(default_factory=list)      # the distinguishing game (survived) or the killing trace
    decisions: int | None = None
    seconds: float = 0.0
    undecided: list[str] | None = None      # solver only: the properties it left unknown under the mutant
    kill: Kill | None = None                # killed by a game: what replays it (not in to_json's report data)

    @property
    def line(self) -> str:
        """The mutant and its outcome in one line."""
        rule_ids = ", ".join(self.rule_ids) or "-"
        return f"#{self.number} [{rule_ids}] {self.operator} {self.rule}: {self.description} — {self.status}" + (
            f" ({self.detail})" if self.detail else "")

    def to_json(self) -> dict[str, Any]:
        """The outcome as plain data."""
        return {"number": self.number, "operator": self.operator, "rule": self.rule, "rule_ids": list(self.rule_ids),
                "description": self.description, "players": self.players, "status": self.status.value,
                "detail": self.detail, "game": self.game, "decisions": self.decisions,
                "seconds": round(self.seconds, 3),
                **({} if self.undecided is None else {"undecided": self.undecided})}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Outcome":
        """An outcome from `to_json`'s data (a kept result, verify/scale/kept.py); a field of
        the wrong type is a `SpecError`, so a damaged file is never taken for a verdict."""
        try:
            outcome = cls(int(data["number"]), str(data["operator"]), str(data["rule"]),
                          tuple(str(i) for i in data["rule_ids"]), str(data["description"]), int(data["players"]),
                          MutantStatus.parse(data["status"]), str(data["detail"]), [str(line) for line in data["game"]],
                          None if data["decisions"] is None else int(data["decisions"]), float(data["seconds"]),
                          None if data.get("undecided") is None else [str(name) for name in data["undecided"]])
        except UnknownName as error:
            raise SpecError(f"a kept mutation outcome is damaged ({error}): remove it from the cache") from None
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError, RecursionError) as error:
            raise SpecError(f"a kept mutation outcome is damaged ({type(error).__name__}): remove it from the "
                            f"cache") from None
        return outcome

    def kill_json(self) -> dict[str, Any] | None:
        """The killing game as plain data (`kill`), kept beside the outcome so that a kept
        "killed" is replayed before it is believed (verify/scale/kept.py)."""
        if self.kill is None:
            return None
        name, verdict, moves = self.kill
        return {"property": name, "verdict": verdict, "moves": [[rule, list(args)] for rule, args in moves]}


def monitored(spec: Spec) -> Spec:
    """The rules a mutant's catalogue is checked on: the mutant with the order-of-play
    monitor compiled into its own rules (spec/order.py `with_monitor`), as the rules
    themselves are checked with it, so the `order_after_*` and `order_goes_on_after_*`
    properties are decided under the mutant like every other, not left unknown for rules
    built in memory. The monitor reads only which rule fired: it changes no legal move,
    so the comparisons of the two rule sets (signatures, relations, the product search)
    are made without it."""
    return with_monitor(spec)


def catalogue(spec: Spec, players: int, names: tuple[str, ...] | None = None) -> tuple[Property, ...]:
    """The catalogue's properties for `players` under `spec` (optionally only those named)."""
    props = tuple(p for p in load_properties(spec) if players in p.players)
    return props if not names else tuple(p for p in props if p.name in names)


def baseline_verdicts(entries: dict[tuple[str, int], Any], base: Spec, players: tuple[int, ...],
                      names: tuple[str, ...] | None = None) -> dict[int, dict[str, VerdictKind]]:
    """The rules' own verdicts read from a baseline (verify/report/baseline.py entries),
    for each count where it has every property asked of the catalogue (other counts are
    left out, and checked instead). A verdict the baseline records as unknown (the solver
    decides no `in_range` at 7 players and more) stays unknown: that property cannot kill
    a mutant there, and the run says so."""
    out: dict[int, dict[str, VerdictKind]] = {}
    for count in players:
        wanted = [p.name for p in catalogue(base, count, names)]
        got = {name: entries[(name, count)].verdict for name in wanted if (name, count) in entries}
        if len(got) == len(wanted):
            out[count] = got
    return out


def search_backend(stop_on: frozenset[str] = frozenset()) -> dict[str, Backend]:
    """The portfolio's search as the mutation analysis asks it: no elections counted, each
    search stopping at the first hit of a property in `stop_on`."""
    return {"explicit": ExplicitBackend(stop_on=stop_on, fewest_elections=False)}


def solver_backend(props: tuple[Property, ...]) -> dict[str, Backend]:
    """The portfolio's solver as the mutation analysis asks it: each property on its own
    (verify/smt `one_by_one`), invariants inferred, none written by hand."""
    from ..smt.check import one_by_one   # on use: it loads the solver

    return {"smt": SolverBackend(one_by_one(props), infer=True, hints=False)}


def base_verdicts(base: Spec, players: int, limits: Limits, names: tuple[str, ...] | None = None
                  ) -> dict[str, VerdictKind]:
    """The rules' own verdict of every property, computed once per count through the
    portfolio (`search_only`), on the game compiled from `base` as given."""
    props = catalogue(base, players, names)
    request = Request(Rules.built(base, Game(base, players)), players, props, limits)
    decision = portfolio.decide(request, None, strategy="search_only", backends=search_backend())
    return {result.property: result.verdict.verdict for result in decision.results}


def base_verdicts_by_solver(base: Spec, players: int, limits: Limits, names: tuple[str, ...] | None = None
                            ) -> dict[str, VerdictKind]:
    """The rules' own verdicts by the solver alone (invariants inferred, none written by
    hand) through the portfolio (`solver_only`), within `limits.time_limit` seconds in all
    (the deadline: each property gets what is left); what it leaves unknown cannot kill."""
    props = catalogue(base, players, names)
    deadline = None if limits.time_limit is None else time.perf_counter() + limits.time_limit
    decision = portfolio.decide(Request(Rules.built(base), players, props, limits), deadline,
                                strategy="solver_only", backends=solver_backend(props))
    return {result.property: result.verdict.verdict for result in decision.results}


def _moves(moves: Any) -> list[str]:
    return [f"{rule}{tuple(args)}" for rule, args in (moves or ())]


def decide(base: Spec, mutant: Mutant, players: int, verdicts: dict[str, VerdictKind], limits: Limits,
           budget: Budget = MUTATE_DIFF, complete: bool = True, solver_only: bool = False,
           until_killed: bool = False) -> Outcome:
    """One mutant at one player count (see the module docstring); `solver_only`: by the
    solver alone (`_by_the_solver`), stopping at the first property that kills the mutant
    when `until_killed`."""
    started = time.monotonic()
    outcome = Outcome(mutant.number, mutant.operator, mutant.rule, mutant.rule_ids, mutant.description, players,
                      MutantStatus.UNKNOWN)

    def done(status: MutantStatus, detail: str = "", game: list[str] | None = None,
             decisions: int | None = None) -> Outcome:
        outcome.status, outcome.detail = status, detail
        outcome.game = game or []
        outcome.decisions = decisions
        outcome.seconds = time.monotonic() - started
        return outcome

    if mutant.invalid:
        return done(MutantStatus.INVALID, f"ill-typed: {mutant.invalid[:100]}")
    if mutant.counts is not None and players not in mutant.counts:
        return done(MutantStatus.EQUIVALENT, f"the change is for {mutant.counts[0]}-{mutant.counts[-1]} players only")
    try:
        watched = monitored(mutant.spec)
        game = Game(watched, players)
    except (SpecError, ValueError, KeyError, IndexError) as error:
        return done(MutantStatus.INVALID, f"does not compile: {str(error)[:100]}")
    if semantic_signature(mutant.spec, players) == semantic_signature(base, players):
        return done(MutantStatus.EQUIVALENT, "the same rules and numbers for this count")
    hints = not solver_only
    if only_rule_changed(base, mutant.spec, mutant.rule):
        # The solver is loaded here, not with the module: every command imports this one.
        from ..smt.equivalence import rule_makes_the_same_moves, rule_stops_a_quiet_step_short, rules_never_fire
        written, mutated = base.rule(mutant.rule), mutant.spec.rule(mutant.rule)
        support = "strengthening invariants" if hints else "inferred invariants"
        if rules_never_fire(base, players, [written, mutated], hints):
            return done(MutantStatus.EQUIVALENT,
                        f"'{mutant.rule}' never fires at {players} players, as written or mutated "
                        f"(proved from the rules' {support})")
        if same_shape(written, mutated) and rule_makes_the_same_moves(base, players, written, mutated, hints):
            return done(MutantStatus.EQUIVALENT,
                        f"'{mutant.rule}' makes the same moves at {players} players, as written or "
                        f"mutated, in every state the rules' {support} allow (proved)")
        if same_shape(written, mutated) and rule_stops_a_quiet_step_short(base, players, written, mutated, hints):
            return done(MutantStatus.EQUIVALENT,
                        f"'{mutant.rule}' as mutated stops one quiet bookkeeping move short, which "
                        f"the game then makes, at {players} players (proved): the same games")
    props = catalogue(watched, players, tuple(verdicts))
    if solver_only:
        return _by_the_solver(base, mutant, watched, players, props, verdicts, limits, done, until_killed)
    stop_on = frozenset(name for name, verdict in verdicts.items() if verdict in DECISIVE)
    killer = _killer(probe_game(game, props, PROBE_GAMES, PROBE_SECONDS, mutant.number, stop_on=stop_on), verdicts)
    if killer is None and not complete:
        killer = _killer(probe_game(game, props, LONG_PROBE_GAMES, LONG_PROBE_SECONDS, mutant.number,
                                    stop_on=stop_on), verdicts)
    if killer is not None:
        return _killed(done, *killer, "a random game")
    # An effect moved from one rule to another (shapes.py `move_effect`) changes two rules:
    # asked after the catalogue had its chance to kill it (a frame sees stale bookkeeping
    # the same games leave behind).
    changed = rules_changed(base, mutant.spec)
    if changed is not None and len(changed) > 1:
        from ..smt.equivalence import rule_makes_the_same_moves, rules_never_fire
        support = "strengthening invariants" if hints else "inferred invariants"
        said = []
        for name in changed:
            written, mutated = base.rule(name), mutant.spec.rule(name)
            if rules_never_fire(base, players, [written, mutated], hints):
                said.append(f"'{name}' never fires")
            elif same_shape(written, mutated) and rule_makes_the_same_moves(
                    base, players, written, mutated, hints, [mutant.spec.rule(other) for other in changed]):
                said.append(f"'{name}' makes the same moves")
            else:
                break
        else:
            return done(MutantStatus.EQUIVALENT,
                        f"{' and '.join(said)} at {players} players, as written or mutated, in every "
                        f"state the rules' {support} allow (proved)")
    from ..smt.equivalence import rule_sets_play_the_same_games
    relation = rule_sets_play_the_same_games(base, mutant.spec, players, RELATIONAL_SECONDS)
    if relation.proved:
        differ = relation.fields_that_differ()
        return done(MutantStatus.EQUIVALENT, f"the same games at {players} players, proved by a relational inductive "
                                  f"invariant" + (f" (may differ: {', '.join(differ)})" if differ else ""))
    killed = _solver_killer(mutant, watched, players, props, verdicts)
    if killed is not None:
        name, before, after, moves, played = killed
        outcome = done(MutantStatus.KILLED,
                       f"{name}: {before} -> {after} (the solver, {len(moves)} moves)", moves, len(moves))
        outcome.kill = (name, after, played) if played else None
        return outcome
    if not complete:
        return done(MutantStatus.UNKNOWN, f"not killed by random games or the solver; no relation proved "
                               f"({relation.reason}); no complete search asked")
    result = diff(base, mutant.spec, [players], budget)
    (entry,) = result.counts
    if entry.difference is None and entry.complete:
        return done(MutantStatus.EQUIVALENT, f"complete product search, {entry.pairs:,} pairs")
    raws = list(portfolio.decide(Request(Rules.built(watched, game), players, props, limits), None,
                                 strategy="search_only", backends=search_backend(stop_on)).results)
    killer = _killer(raws, verdicts)
    if killer is not None:
        return _killed(done, *killer, "the shortest game")
    unknown = [(raw.property, raw.verdict.reason) for raw in raws if isinstance(raw.verdict, Unknown)]
    if unknown:
        return done(MutantStatus.UNKNOWN, f"{unknown[0][0]}: {unknown[0][1]}")
    if entry.difference is not None:
        difference = entry.difference
        parting = difference.parting
        moves = [str(step) for step in difference_moves(difference)]
        kind = "shortest" if difference.shortest else "by random play"
        return done(MutantStatus.SURVIVED,
                    f"{parting.kind} after {difference.decisions} decisions ({kind}): {parting.says}; "
                    f"{', '.join(parting.rule_ids) or '-'}", moves, difference.decisions)
    return done(MutantStatus.UNKNOWN, f"product search stopped at depth {entry.depth} ({entry.pairs:,} pairs)")


def _asking_order(mutant: Mutant, prop: Property) -> int:
    """The order the solver is asked a mutant's properties in: those about the changed
    rule's moves first, then the other invariants, the witnesses (each a bounded model
    check) last."""
    if mutant.rule in prop.on:
        return 0
    return 2 if prop.kind == "sometimes" else 1


def _solver_killer(mutant: Mutant, watched: Spec, players: int, props: tuple[Property, ...],
                   verdicts: dict[str, VerdictKind]
                   ) -> tuple[str, str, str, list[str], tuple[tuple[str, tuple[int, ...]], ...]] | None:
    """The first property whose verdict the solver finds different under the mutant (a
    counterexample or witness as a game from the start, or a proof where the rules had
    none), within SOLVER_SECONDS: the properties about the changed rule's moves first,
    then the state properties, the witnesses last (each a bounded model check), asked
    of the mutant with the order-of-play monitor (`watched`)."""
    from ..smt.passes import verdicts_under

    decided = sorted((p for p in props if verdicts.get(p.name, VerdictKind.UNKNOWN) is not VerdictKind.UNKNOWN),
                     key=lambda prop: _asking_order(mutant, prop))
    for prop, verdict in verdicts_under(watched, players, decided, SOLVER_SECONDS):
        if isinstance(verdict, Unknown) or verdict.verdict == verdicts[prop.name]:
            continue
        trace = getattr(verdict, "trace", None)
        moves = [f"{move.rule}{tuple(move.args)}" for move, _ in trace.steps] if trace is not None else []
        played = moves_of(trace) if trace is not None else ()
        return prop.name, verdicts[prop.name], verdict.verdict, moves, played
    return None


def _by_the_solver(base: Spec, mutant: Mutant, watched: Spec, players: int, props: tuple[Property, ...],
                   verdicts: dict[str, VerdictKind], limits: Limits, done: Callable[..., Outcome],
                   until_killed: bool = False) -> Outcome:
    """A mutant decided by the solver alone, with no strengthening invariant written by
    hand (each inferred for the mutant's rules): every property of the catalogue is
    checked within the mutant's time limit, the changed rule's first, and every one the
    solver leaves unknown is named (`Outcome.undecided`), so a run measures how much of
    the catalogue the solver decides by itself. A verdict that differs from the rules'
    own kills the mutant, with the solver's game when it has one. Not killed, the solver
    looks for a relation making the two play the same games (`equivalent`); failing
    that the mutant is `unknown`: with no search for a game telling the two apart, a
    mutant the catalogue cannot see is never called survived."""
    from ..smt.equivalence import rule_sets_play_the_same_games
    from ..smt.passes import verdicts_under

    _guides_from_the_rules(base, players, props)
    checked = sorted(props, key=lambda prop: _asking_order(mutant, prop))
    seconds = limits.time_limit if limits.time_limit is not None else SOLVER_ONLY_SECONDS
    decided: dict[str, Any] = {}
    for prop, verdict in verdicts_under(watched, players, checked, seconds, hints=False, any_guide=True,
                                        each=SOLVER_ONLY_EACH_SECONDS, deep=SOLVER_ONLY_DEEP_SHARE * seconds,
                                        shallow=SOLVER_ONLY_SHALLOW_SHARE * seconds,
                                        played=SOLVER_ONLY_PLAYED_SHARE * seconds):
        if not isinstance(verdict, Unknown):
            decided[prop.name] = verdict
            if until_killed and verdicts.get(prop.name, VerdictKind.UNKNOWN) not in (VerdictKind.UNKNOWN,
                                                                                     verdict.verdict):
                break
    undecided: list[str] | None = [prop.name for prop in checked if prop.name not in decided]
    killers = [prop for prop in checked if prop.name in decided
               and verdicts.get(prop.name, VerdictKind.UNKNOWN) not in (VerdictKind.UNKNOWN,
                                                                        decided[prop.name].verdict)]
    outcome: Outcome
    if killers:
        name = killers[0].name
        trace = getattr(decided[name], "trace", None)
        moves = [f"{move.rule}{tuple(move.args)}" for move, _ in trace.steps] if trace is not None else []
        outcome = done(MutantStatus.KILLED, f"{name}: {verdicts[name]} -> {decided[name].verdict} (the solver alone"
                                 + (f", {len(moves)} moves)" if moves else ")"), moves, len(moves) if moves else None)
        outcome.kill = (name, decided[name].verdict, moves_of(trace)) if trace is not None and moves else None
        if until_killed:
            undecided = None
    else:
        relation = rule_sets_play_the_same_games(base, mutant.spec, players, RELATIONAL_SECONDS, hints=False)
        if relation.proved:
            outcome = done(MutantStatus.EQUIVALENT,
                           f"the same games at {players} players, proved by a relational inductive "
                           f"invariant over inferred invariants")
        else:
            outcome = done(MutantStatus.UNKNOWN,
                           f"the solver alone: {len(decided)} of {len(checked)} properties decided, "
                           f"none differs from the rules' own; no relation proved ({relation.reason}); "
                           f"no search for a game telling them apart")
    outcome.undecided = undecided
    return outcome


def _guides_from_the_rules(base: Spec, players: int, props: tuple[Property, ...]) -> None:
    """The rules' own witnesses of the `sometimes` properties among `props`, found once
    per process and count by the explicit search (the complete graph at 5 and 6 players
    in seconds; at larger counts what it finds within GUIDE_SECONDS), kept as guides for
    the solver (verify/smt/guides.py; a mutant's rules are stored under the rules' name,
    so its witness searches try them first). With no distance written by hand there is
    no lower bound, and the plain search climbs from one move: at 5 players it took 87-130
    s for each of two witnesses of a mutant; along the rules' games, where the mutant
    still plays them, each of its five witnesses took 3-4 s. A guide is only a guess: a
    path it leads to is a real path of the mutant, a wrong one costs one quick query,
    and no verdict depends on it."""
    from ..smt.guides import keep_guide
    key = (base.name, base.source, base.overlays, players)
    wanted = tuple(p for p in props if p.kind == "sometimes" and (*key, p.name) not in _GUIDED)
    if wanted:
        for prop in wanted:
            _GUIDED[(*key, prop.name)] = ()
        for result in check_game(Game(base, players), wanted, Limits(time_limit=GUIDE_SECONDS),
                                 fewest_elections=False):
            if isinstance(result.verdict, Witnessed) and result.verdict.played is not None:
                _GUIDED[(*key, result.property)] = tuple(rule for rule, _ in result.verdict.played.moves)
    # Kept again before every mutant: the store keeps a few guides per property, and
    # earlier mutants' own witnesses could have pushed the rules' out.
    for prop in props:
        rules = _GUIDED.get((*key, prop.name))
        if rules:
            keep_guide(base, prop.name, rules)


_GUIDED: dict[tuple[str, str, tuple[str, ...], int, str], tuple[str, ...]] = {}
"""The rules' own witnesses this process found, as guides, by rules, count and property
(empty where the search found none)."""


def only_rule_changed(base: Spec, spec: Spec, rule: str) -> bool:
    """Whether `spec` is `base` but for the rule named `rule` (same numbers, fields,
    definitions and every other rule): then, if that rule never fires in any state the
    rules' strengthening invariants allow, neither as written nor mutated, the two rule
    sets have the same reachable states and moves, and the mutant is equivalent. (The
    invariants are inductive for the rules; from a state satisfying them every move of
    the mutant is a move of the rules, so its states satisfy them too.)"""
    same = (spec.constants, spec.tables, spec.enums, spec.fields, spec.definitions) == (
        base.constants, base.tables, base.enums, base.fields, base.definitions)
    names = [r.name for r in base.rules]
    if not same or rule not in names or [r.name for r in spec.rules] != names:
        return False
    return all(mine == theirs for mine, theirs in zip(spec.rules, base.rules) if mine.name != rule)


def rules_changed(base: Spec, spec: Spec) -> tuple[str, ...] | None:
    """The rules `spec` changes of `base` when it changes nothing else (the same numbers,
    fields, definitions and rule names in the same order), else None. If every one of them,
    in every state the rules' strengthening invariants allow, never fires as written or
    mutated, or makes the same moves either way, the two have the same moves in every
    such state: the invariants are inductive for the rules, so every state the mutant
    reaches satisfies them too, and the two play the same games (`only_rule_changed`'s
    argument, for each changed rule at once)."""
    same = (spec.constants, spec.tables, spec.enums, spec.fields, spec.definitions) == (
        base.constants, base.tables, base.enums, base.fields, base.definitions)
    if not same or [r.name for r in spec.rules] != [r.name for r in base.rules]:
        return None
    return tuple(mine.name for mine, theirs in zip(spec.rules, base.rules) if mine != theirs)


def same_shape(written: Rule, mutated: Rule) -> bool:
    """Whether a mutated rule differs from the written one in its requirements, lets,
    weight, effects and seat of its actor only (what `rule_makes_the_same_moves`
    compares): not in its phase, kind of actor, parameters, what it reveals or draws."""
    seat_to_seat = written.actor == mutated.actor == "seat"
    return replace(mutated, requires=written.requires, lets=written.lets, weight=written.weight,
                   effect=written.effect,
                   actor_seat=written.actor_seat if seat_to_seat else mutated.actor_seat,
                   actor_text=written.actor_text if seat_to_seat else mutated.actor_text) == written


def _killed(done: Callable[..., Outcome], result: PropertyResult, before: str, found_by: str) -> Outcome:
    verdict = result.verdict
    game = verdict.played if isinstance(verdict, (Refuted, Witnessed, Vacuous)) else None
    moves = game.moves if game is not None else ()
    size = f", {len(moves)} moves" if moves else ""
    outcome = done(MutantStatus.KILLED,
                   f"{result.property}: {before} -> {verdict.verdict} ({found_by}{size})", _moves(moves),
                   len(moves) if moves else None)
    outcome.kill = (result.property, verdict.verdict, moves) if moves else None
    return outcome


def difference_moves(difference: Any) -> list[str]:
    """The moves of the game telling the two apart, under the rule set that allows them all."""
    return [f"{move.rule}{tuple(move.args)}" for move, _ in difference.legal_trace.steps]


def _killer(results: list[PropertyResult], verdicts: dict[str, VerdictKind]) -> tuple[PropertyResult, str] | None:
    """The first result whose verdict differs from the rules' own (`verdicts`: by the
    names a baseline keeps), neither unknown."""
    for result in results:
        before = verdicts.get(result.property)
        if before is None or isinstance(result.verdict, Unknown) or before == Unknown.verdict:
            continue
        if result.verdict.verdict != before:
            return result, before
    return None


# ---------------------------------------------------------------- a run


@dataclass(slots=True)
class Run:
    """A mutation analysis: every outcome, and what was not run."""

    rules: str
    players: tuple[int, ...]
    outcomes: list[Outcome] = field(default_factory=list)
    total: int = 0                  # mutants generated (after filters) times counts
    not_run: int = 0                # left out by the cap
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)   # where the verdicts of the rules came from

    def count(self, status: MutantStatus, outcomes: list[Outcome] | None = None) -> int:
        return sum(1 for o in (self.outcomes if outcomes is None else outcomes) if o.status is status)

    def score(self, outcomes: list[Outcome] | None = None) -> str:
        """killed/(killed+survived) as `k/n (p%)`, with unknown and not-run beside it."""
        killed, survived = self.count(MutantStatus.KILLED, outcomes), self.count(MutantStatus.SURVIVED, outcomes)
        unknown = self.count(MutantStatus.UNKNOWN, outcomes)
        total = killed + survived
        text = f"{killed}/{total} ({100 * killed / total:.1f}%)" if total else "0/0 (-)"
        if unknown:
            text += f", {unknown} unknown"
        if outcomes is None and self.not_run:
            text += f", {self.not_run} not run (cap)"
        return text

    @property
    def exit_status(self) -> int:
        """0 all killed or equivalent, 1 a survivor, 3 unknown or not run."""
        if self.count(MutantStatus.SURVIVED):
            return 1
        if self.count(MutantStatus.UNKNOWN) or self.not_run:
            return 3
        return 0

    def summary(self) -> list[str]:
        """The score per count, operator and rule ID, and every survivor in one line."""
        lines = [f"mutation analysis of {self.rules}: {self.total} mutant checks, {len(self.outcomes)} run "
                 f"in {self.seconds:.0f} s"]
        lines += [f"  {note}" for note in self.notes]
        lines.append("  " + ", ".join(f"{status} {self.count(status)}" for status in STATUSES))
        solved = [o for o in self.outcomes if o.undecided is not None]
        if solved:
            left = [o for o in solved if o.undecided]
            lines.append(f"  the solver alone: {sum(len(o.undecided or ()) for o in solved)} properties unknown, "
                         f"in {len(left)} of the {len(solved)} mutants it checked")
        lines.append(f"score: {self.score()}")
        for players, chosen in self.by_players():
            lines.append(f"  {players} players: {self.score(chosen)}")
        lines.append("per operator:")
        for operator, chosen in self.by_operator():
            lines.append(f"  {operator:18} {self.score(chosen)}")
        lines.append("per rule ID:")
        for rule_id, chosen in self.by_rule_id():
            lines.append(f"  {rule_id:8} {self.score(chosen)}")
        survivors = [o for o in self.outcomes if o.status is MutantStatus.SURVIVED]
        if survivors:
            lines.append("survivors:")
            lines += [f"  {o.players}p {o.line}" for o in survivors]
        unknown = [o for o in self.outcomes if o.status is MutantStatus.UNKNOWN]
        if unknown:
            lines.append("unknown:")
            lines += [f"  {o.players}p {o.line}" for o in unknown]
        return lines

    def by_players(self) -> list[tuple[int, list[Outcome]]]:
        """The outcomes of each player count of the run, ascending."""
        return [(players, [o for o in self.outcomes if o.players == players]) for players in self.players]

    def by_operator(self) -> list[tuple[str, list[Outcome]]]:
        """The outcomes of each operator that made one, in the operators' own order."""
        present = {o.operator for o in self.outcomes}
        names = [name for name in ALL_OPERATORS if name in present] + sorted(present - set(ALL_OPERATORS))
        return [(name, [o for o in self.outcomes if o.operator == name]) for name in names]

    def by_rule_id(self) -> list[tuple[str, list[Outcome]]]:
        """The outcomes touching each rule ID, in rulebook order; `-` gathers the mutants of
        definitions, constants and tables no rule ID names. A mutant touching several rule
        IDs is in each of their groups: it tests each of those rules."""
        ids = sorted({rule_id for o in self.outcomes for rule_id in (o.rule_ids or ("-",))}, key=_id_order)
        return [(rule_id, [o for o in self.outcomes if rule_id in (o.rule_ids or ("-",))]) for rule_id in ids]

    def tables(self) -> dict[str, list[dict[str, Any]]]:
        """The tallies per player count, per rule ID and per operator, for reports and --json."""
        return {"by_players": [{"players": key, **tally(chosen)} for key, chosen in self.by_players()],
                "by_rule_id": [{"rule_id": key, **tally(chosen)} for key, chosen in self.by_rule_id()],
                "by_operator": [{"operator": key, **tally(chosen)} for key, chosen in self.by_operator()]}

    def to_json(self) -> dict[str, Any]:
        """The run as plain data (`shrules mutate --json` and `--report`'s mutation.json;
        schema in verify/report/mutation.schema.json)."""
        return {"schema": "shrules-mutate", "version": 1, "rules": self.rules,
                "rules_hash": rules_hash(self.rules), "players": list(self.players),
                "total": self.total, "not_run": self.not_run, "seconds": round(self.seconds, 1),
                "counts": {status: self.count(status) for status in STATUSES},
                "score": self.score(), "exit_status": self.exit_status, "notes": self.notes,
                **self.tables(), "outcomes": [o.to_json() for o in self.outcomes]}


def tally(outcomes: list[Outcome]) -> dict[str, Any]:
    """How many outcomes there are, how many of each status, and the score
    killed/(killed+survived) as a fraction (None when neither happened: no score, not 0)."""
    counts: dict[str, int] = {status: sum(1 for o in outcomes if o.status is status) for status in STATUSES}
    decided = counts[MutantStatus.KILLED] + counts[MutantStatus.SURVIVED]
    score = round(counts[MutantStatus.KILLED] / decided, 4) if decided else None
    return {"mutants": len(outcomes), **counts, "score": score}


@lru_cache(maxsize=1)
def _rulebook_positions() -> dict[str, int]:
    """Each rule ID's position in spec/rulebook.toml, which lists them as RULES.md does."""
    return {rule_id: index for index, rule_id in enumerate(load_rulebook())}


def _id_order(rule_id: str) -> tuple[int, int, str, int]:
    """The rulebook's order of rule IDs (R-S1 ... R-W5, then D-1 ... D-5; R-E9 before
    R-E10), which a string sort breaks; an ID the rulebook lacks comes after them, and `-`
    (no rule ID) last, so the rules a reader looks up come first."""
    if rule_id == "-":
        return (2, 0, "", 0)
    position = _rulebook_positions().get(rule_id)
    if position is not None:
        return (0, position, "", 0)
    letters = "".join(c for c in rule_id if c.isalpha())
    digits = "".join(c for c in rule_id if c.isdigit())
    return (1, 0, letters, int(digits) if digits else 0)


def _decide_numbered(rules: str, number: int, players: int, verdicts: dict[str, VerdictKind], limits: Limits,
                     budget: Budget, operators: tuple[str, ...] | None, rule_filter: tuple[str, ...] | None,
                     complete: bool, solver_only: bool = False, until_killed: bool = False) -> Outcome:
    """For a worker process: rebuild the mutants (deterministic) and decide number `number`."""
    base = load_spec(rules)
    mutant = next(m for m in mutants(base, operators, rule_filter) if m.number == number)
    return decide(base, mutant, players, verdicts, limits, budget, complete, solver_only, until_killed)


Spread = Callable[[Callable[..., "Outcome"], list[tuple[Any, ...]]], Iterator["Outcome"]]
"""How `analyse` hands its mutants to other machines: the function deciding one mutant and
the arguments of each; the outcomes come back in the order of the arguments."""


def local_spread(workers: int) -> Spread:
    """Local processes as a spread, the outcomes in the order of the arguments (one
    worker: this process)."""
    def spread(function: Callable[..., Outcome], arguments: list[tuple[Any, ...]]) -> Iterator[Outcome]:
        if workers <= 1 or len(arguments) <= 1:
            yield from (function(*args) for args in arguments)
            return
        with WorkerPool(max(1, min(workers, len(arguments)))) as pool:
            futures = [pool.submit(function, *args) for args in arguments]
            for future in futures:
                yield future.result()
    return spread


def analyse(rules: Rules, players: tuple[int, ...], *, operators: tuple[str, ...] | None = None,
            rule_filter: tuple[str, ...] | None = None, cap: int | None = None, limits: Limits = Limits(),
            budget: Budget = MUTATE_DIFF, workers: int = 1, properties: tuple[str, ...] | None = None,
            verdicts: dict[int, dict[str, VerdictKind]] | None = None, base_limits: Limits | None = None,
            complete: bool = True, progress: Callable[[int, int, Outcome | None], None] | None = None,
            numbers: frozenset[int] | None = None, spread: Spread | None = None, solver_only: bool = False,
            until_killed: bool = False) -> Run:
    """Every mutant of `rules` (filtered, only `numbers` when given, at most `cap` per
    count) at every count. The rules' own verdicts come from `verdicts` (e.g. the baseline)
    for the counts it has, or from a check with its own budget `base_limits` (default:
    `limits`), not a mutant's. `spread`, when given, decides the mutants instead of local
    processes (verify/scale/run.py: on a Dask cluster), returning the outcomes in order.
    `solver_only`: the mutants and the rules' own verdicts (where no baseline has them)
    decided by the solver alone, with no strengthening invariant written by hand;
    `until_killed` (with it): each mutant's check stops at the first property killing it."""
    started = time.monotonic()
    base = rules.spec
    chosen = [m for m in mutants(base, operators, rule_filter) if numbers is None or m.number in numbers]
    run = Run(rules.name, players)
    run.total = len(chosen) * len(players)
    jobs: list[tuple[Mutant, int]] = []
    for count in players:
        for_count = chosen if cap is None else chosen[:cap]
        run.not_run += len(chosen) - len(for_count)
        jobs += [(mutant, count) for mutant in for_count]
    base_of: dict[int, dict[str, VerdictKind]] = {}
    for count in players:
        if verdicts and count in verdicts:
            base_of[count] = verdicts[count]
            run.notes.append(f"{count} players: the rules' verdicts read from the baseline")
            unknown = sorted(name for name, verdict in base_of[count].items() if verdict is VerdictKind.UNKNOWN)
            if unknown:
                run.notes.append(f"{count} players: the baseline leaves {len(unknown)} properties unknown "
                                 f"({', '.join(unknown[:3])}): they cannot kill a mutant")
        else:
            if progress:
                progress(0, len(jobs), None)
            base_of[count] = (base_verdicts_by_solver if solver_only else base_verdicts)(
                base, count, base_limits or limits, properties)
            unknown = sorted(name for name, verdict in base_of[count].items() if verdict is VerdictKind.UNKNOWN)
            if unknown:
                run.notes.append(f"{count} players: the rules' own check stopped at a limit, {len(unknown)} "
                                 f"properties unknown ({', '.join(unknown[:3])}) cannot kill a mutant")
    if spread is None and workers > 1:
        spread = local_spread(workers)
    outcomes: Iterator[Outcome]
    if spread is None:   # in this process, with the mutants already built
        outcomes = (decide(base, mutant, count, base_of[count], limits, budget, complete, solver_only, until_killed)
                    for mutant, count in jobs)
    else:                # each task builds its mutant again from its number, under the rules' name (its key)
        outcomes = spread(_decide_numbered, [(rules.name, mutant.number, count, base_of[count], limits, budget, operators,
                                              rule_filter, complete, solver_only, until_killed)
                                             for mutant, count in jobs])
    for done, outcome in enumerate(outcomes, start=1):
        run.outcomes.append(outcome)
        if progress:
            progress(done, len(jobs), outcome)
    run.seconds = time.monotonic() - started
    return run


@lru_cache(maxsize=16)
def rules_hash(rules: str) -> str:
    """The content hash of the rules a run analysed (spec/identity.py), which its report
    gives beside the name: a name alone does not say which rules were mutated."""
    return content_hash(load_spec(rules))
