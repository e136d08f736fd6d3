"""The explicit backend's verdicts: every selected property for one player count.

`check_players(rules, players, names, limits)` decides the properties for one count;
verify/checker.py runs it for every count (in separate processes) beside the Z3 backend.
For its count it

1. explores the state graph once per group of properties that admit the same reductions
   (verify/explicit/reductions.py; properties with seat literals are explored without
   symmetry), recording the graph when `terminates` is asked, so state, move and graph
   properties are decided by one search;
2. runs a 0-1 BFS over elections for the `sometimes` properties that report elections
   (the four wins): the fewest elected governments each one needs;
3. turns what the searches found into typed `PropertyResult`s (`Proved | Refuted |
   Witnessed | Unwitnessed | Vacuous | Unknown`), each `Refuted`/`Witnessed` with the
   shortest game as its moves (verify/results.py `Played`: it crosses process
   boundaries and is replayed through the engine when read). A search stopped by a limit
   gives `Unknown("limit ...")` with its `StopReason`, never a proof.

Each search is breadth-first (explore.py, the default) or, with `explorer="sweep"`, the
sweep-line search by the ranking (sweep.py): the same verdicts and shortest traces with
a few layers of states in memory. Where the ranking does not fit (a move that does not
lower it: games that can go round), the layered sweep takes its layers breadth-first over
a set of every state taken (layers.py `BREADTH_FIRST`), the others fall back to the
breadth-first search, and the evidence's note says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from engine.game import Game, compiled_game
from engine.trace import Trace
from spec.errors import SpecError, shown
from spec.loader import load_spec
from spec.model import Spec
from spec.order import is_monitored
from spec.premises import PREMISE, premises
from spec.properties import Property, load_properties

from ..clock import Budget
from ..results import (Evidence, Facts, halted_by, Limits, Played, PropertyResult, Proved, Refuted, StopReason, Unknown,
                       Unwitnessed, Vacuous, Verdict, Witnessed, moves_of, replay, rules_name)
from ..rules import Rules
from .explore import Exploration, explore, resident_mib, trace_along, walk
from .cycles import Lasso, find_cycle
from .graphs import GraphFacts, analyse
from .model import Model
from .reductions import Reductions, cone, dealt_fields, symmetry_blockers
from .layered_check import LayeredExploration, layered_exploration
from .layers import BREADTH_FIRST
from .sweep import Swept, compiled_measure, measure_failed, sweep

GRAPH_KINDS = ("terminates", "deadlock_free", "in_range")
CYCLE_PROBE = 2_000
"""States the depth-first search for a game that goes round may visit before the layered
sweep by the ranking (cycles.py): 0.04 s where there is none; the veto that costs nothing
shows one within 122 at 5 players, 199 at 7."""
EXPLORERS = ("layers", "bfs", "sweep")
"""The searches the backend can run: the sweep-line search a whole rank at a time over
arrays (layers.py, layered_check.py), breadth-first (explore.py) or the sweep-line search
a state at a time (sweep.py)."""

DEFAULT_EXPLORER = "layers"
"""The search every command runs unless told otherwise: at 5 players it decides the
catalogue in a tenth of the breadth-first search's time (bench); the breadth-first
search stays the reference it is tested against, and takes over where the rules hold a
value the arrays cannot (where no ranking fits, the layers go breadth-first)."""


__all__ = ["DEFAULT_EXPLORER", "EXPLORERS", "GRAPH_KINDS", "STANDARD", "check_game", "check_players", "moves_of",
           "probe_game", "replay", "select"]


def select(rules: Rules, names: tuple[str, ...] | None = None) -> tuple[Property, ...]:
    """The catalogue's properties for these rules, optionally only those named."""
    spec = rules.spec
    overrides = getattr(spec, "properties", None) or None   # a variant's [properties] / [expect]
    catalogue = load_properties(spec, overrides=overrides)
    if not names:
        return catalogue
    known = {p.name: p for p in catalogue}
    missing = [name for name in names if name not in known]
    if missing:
        raise SpecError(f"no property named {shown(missing[0])}; properties are {', '.join(sorted(known))}")
    return tuple(known[name] for name in names)


def chosen_from(catalogue: tuple[Property, ...], names: tuple[str, ...] | None) -> tuple[Property, ...]:
    """`select` over a catalogue already loaded: loading it again (the rules, the
    catalogue's file, each property's expressions checked) was a tenth of a sweep's
    small board, done three times per check."""
    if not names:
        return catalogue
    known = {p.name: p for p in catalogue}
    return tuple(known[name] for name in names)


def _evidence(exploration: Exploration, note: str, depth: int | None = None) -> Evidence:
    return Evidence("explicit", exploration.states, exploration.transitions,
                    exploration.depth if depth is None else depth, round(exploration.seconds, 3), note)


def _result(prop: Property, players: int, verdict: Verdict, **facts: object) -> PropertyResult:
    """The typed result of `prop`, with its description and class and the `facts` given."""
    return PropertyResult(prop.name, players, prop.kind, prop.rule_ids, prop.expect, verdict,
                          Facts(prop.description, prop.group, **facts))  # type: ignore[arg-type]


def _stopped(exploration: Exploration) -> Unknown:
    """What a search cut short decides: nothing, and which limit stopped it."""
    return Unknown(_evidence(exploration, ""), exploration.limit or "limit: search stopped", exploration.stop)


def _unknown(exploration: Exploration, note: str) -> Unknown:
    return replace(_stopped(exploration), evidence=_evidence(exploration, note))


def check_players(rules: Rules, players: int, names: tuple[str, ...] | None, limits: Limits,
                  reductions: Reductions = Reductions(), progress: Callable[[str], None] | None = None,
                  explorer: str = DEFAULT_EXPLORER, *, catalogue: tuple[Property, ...] | None = None,
                  stop_on: frozenset[str] = frozenset(), fewest_elections: bool = True) -> list[PropertyResult]:
    """Every selected property for one player count (see module docstring).
    `catalogue`: the rules' catalogue when the caller has it (`select` again otherwise);
    `stop_on`, `fewest_elections`: as for `check_game`."""
    game = rules.game(players)
    chosen = select(rules, names) if catalogue is None else chosen_from(catalogue, names)
    props = tuple(p for p in chosen if players in p.players)
    return check_game(game, props, limits, reductions, progress, stop_on=stop_on, fewest_elections=fewest_elections,
                      explorer=explorer)


@dataclass(frozen=True, slots=True)
class Searched:
    """One search's exploration, its graph facts when asked and complete, and a note on
    how it was searched."""

    exploration: Exploration
    facts: GraphFacts | None
    note: str
    lasso: Lasso | None = None      # a game that comes back to a state (cycles.py), when looked for


def search(model: Model, props: tuple[Property, ...], limits: Callable[[], Limits], explorer: str, *,
           deadlocks: bool = True, graph: bool = False, by_elections: bool = False,
           stop_on: frozenset[str] = frozenset(), progress: Callable[[int, int], object] | None = None,
           elections: bool = False, cycle_alone: bool = False) -> Searched:
    """One search of `model` by `explorer`; `limits()` gives what is left of the budget
    (a sweep the ranking does not fit is searched again breadth-first with the rest);
    `progress(states, layer)` now and then (the layer is the depth, or the rank swept).
    `elections`: the layered sweep also finds the fewest elections of each win (a
    breadth-first search needs a search of its own for them: `by_elections`)."""
    note = ""
    lasso: Lasso | None = None
    looked = False
    if explorer == "layers":
        # Only the layered checker enumerates dealt fields: the others keep them.
        plain = Model(model.game, props, replace(model.plan.reductions, deals=False)) if model.plan.dealt else model
        # A game that goes round shows within a few hundred states depth-first: then no
        # ranking can fit, and the sweep by it is not tried (it ran a quarter of the graph).
        probed = find_cycle(plain, max_states=CYCLE_PROBE)
        handed_over = False
        if probed is None:
            layered = layered_exploration(model, props, limits(), deadlocks=deadlocks, graph=graph,
                                          elections=elections or by_elections, stop_on=stop_on,
                                          progress=progress)
            halt = halted_by(layered.limit)
            if halt not in (StopReason.NO_RANKING, StopReason.ARRAYS):
                return Searched(layered, layered.facts, "layered sweep by the ranking")
            stopped = f"the sweep by the ranking stopped: {layered.limit.removeprefix('limit: ')}"
            handed_over = halt is StopReason.ARRAYS
        else:
            stopped = "no ranking fits: a game comes back to a state"
        note = f"breadth-first: {stopped}"
        if not handed_over:
            cyclic = _over_visited(model, plain, props, limits, stopped, probed, deadlocks=deadlocks, graph=graph,
                                   by_elections=by_elections, stop_on=stop_on, progress=progress,
                                   cycle_alone=cycle_alone)
            if isinstance(cyclic, Searched):
                return cyclic
            # Looked for already: a lasso, or none (the graph is then recorded below).
            lasso, looked, graph = cyclic, graph, graph and cyclic is None
            if lasso is not None:
                note += f"; a game that comes back to a state found depth-first ({lasso.states:,} states)"
        model = plain
    elif explorer == "sweep":
        measure = compiled_measure(model.game)
        if measure is not None:
            swept = sweep(model, props, limits(), measure=measure, deadlocks=deadlocks, by_elections=by_elections,
                          longest=graph, stop_on=stop_on, progress=progress)
            if not measure_failed(swept):
                return Searched(swept, swept.facts, "sweep-line search by the ranking")
            note = f"breadth-first: the sweep stopped ({swept.limit.removeprefix('limit: ')})"
        else:
            note = "breadth-first: no ranking to sweep by"
    if graph and note and not looked:
        lasso = find_cycle(model, budget=Budget.started(limits().time_limit))
        if lasso is not None:
            note += f"; a game that comes back to a state found depth-first ({lasso.states:,} states)"
            graph = False
            if cycle_alone:
                return Searched(Exploration(model, props, states=lasso.states, seconds=lasso.seconds),
                                None, note, lasso)
    exploration = explore(model, props, limits(), deadlocks=deadlocks, record_edges=graph, stop_on=stop_on,
                          by_elections=by_elections, progress=progress)
    facts = analyse(exploration.graph) if exploration.graph is not None else None
    return Searched(exploration, facts, note, lasso)


def _over_visited(model: Model, plain: Model, props: tuple[Property, ...], limits: Callable[[], Limits],
                  stopped: str, lasso: Lasso | None, *, deadlocks: bool, graph: bool, by_elections: bool,
                  stop_on: frozenset[str], progress: Callable[[int, int], object] | None,
                  cycle_alone: bool) -> Searched | Lasso | None:
    """Rules the ranking does not fit (games that can go round), searched by the layered
    sweep breadth-first over a set of every state taken (layers.py `BREADTH_FIRST`):
    the same hits, as shallow, as the reference's breadth-first search. `terminates`
    (`graph`) is refuted by a game that comes back to a state, found depth-first on
    `plain` (the model without the dealt fields enumerated) before the sweep, unless
    `lasso` is one already; without one, the whole graph must be recorded: None, for the
    breadth-first search to decide (or the lasso, when the layered sweep could not go on)."""
    note = f"layered sweep {BREADTH_FIRST} ({stopped})"
    lasso = lasso if graph else None
    if graph and lasso is None:
        lasso = find_cycle(plain, budget=Budget.started(limits().time_limit))
        if lasso is None:
            return None
    if graph and lasso is not None:
        note += f"; a game that comes back to a state found depth-first ({lasso.states:,} states)"
        if cycle_alone:
            return Searched(Exploration(model, props, states=lasso.states, seconds=lasso.seconds), None, note, lasso)
    layered = layered_exploration(model, props, limits(), deadlocks=deadlocks, graph=graph, stop_on=stop_on,
                                  progress=progress, breadth_first=True, by_elections=by_elections)
    if halted_by(layered.limit) is StopReason.ARRAYS:
        return lasso if graph else None
    if by_elections:
        note += "; its layers by the fewest elections first"
    return Searched(layered, None, note, lasso)


def check_game(game: Game, props: tuple[Property, ...], limits: Limits, reductions: Reductions = Reductions(),
               progress: Callable[[str], None] | None = None, *, stop_on: frozenset[str] = frozenset(),
               fewest_elections: bool = True, explorer: str = DEFAULT_EXPLORER, vacuity: bool = True
               ) -> list[PropertyResult]:
    """The properties for one compiled game (the rules need not be a file: the mutation
    analysis checks rule sets built in memory). `stop_on`: properties whose first hit ends
    a search (explore.py); `fewest_elections`: also count the elections of each win;
    `explorer`: one of EXPLORERS; `vacuity`: each property's premise (spec/premises.py) is
    asked in the same searches, a `sometimes` beside the others, and a property proved
    whose premise no complete search reaches is `vacuous` (`judge_premises`). A property
    over monitored rules (its `rules`: the order of play, spec/order.py) is decided by a
    search of those rules of its own, its premise with it."""
    budget = Budget.started(limits.time_limit)
    questions = premises(props) if vacuity else {}
    props = props + tuple(questions.values())

    def remaining() -> Limits:
        """`limits` with the seconds of work left (`Budget.left`: the wall-clock backstop's too)."""
        left = budget.left()
        return limits if left is None else Limits(limits.max_states, left, limits.memory_limit)

    own = tuple(p for p in props if not p.rules or is_monitored(game.spec))
    monitored = tuple(p for p in props if p not in own)
    out: list[PropertyResult] = []
    for number, rules in enumerate(dict.fromkeys(p.rules for p in monitored)):
        shared = tuple(p for p in monitored if p.rules == rules)
        watched = monitored_game(game, rules)
        if watched is None:
            note = ("the order of play is followed on rules loaded by name, with its monitor; these rules were "
                    "built in memory")
            evidence = Evidence("explicit", 0, 0, 0, 0.0, note)
            out += [_result(p, game.players, Unknown(evidence, note, StopReason.NOT_SEARCHED)) for p in shared]
            continue
        # The monitor only adds a field no rule reads: the rules' own properties are searched
        # on the same graph, the monitored properties joining their largest cone (one search
        # instead of two; the traces are replayed under each property's own rules).
        checked = _check_game(watched, own if number == 0 else (), remaining(), reductions, progress,
                              stop_on=stop_on, fewest_elections=fewest_elections, explorer=explorer, joining=shared)
        mine = {p.name for p in own} if number == 0 else set()
        out += [_under(result, rules_name(game)) if result.property in mine else result for result in checked]
        own = () if number == 0 else own
    if own:
        out += _check_game(game, own, remaining(), reductions, progress, stop_on=stop_on,
                           fewest_elections=fewest_elections, explorer=explorer)
    return judge_premises(game, out, questions, remaining) if questions else out


def _under(result: PropertyResult, rules: str) -> PropertyResult:
    """`result` with its games replayed under `rules`: a game of the monitored rules is,
    move for move, a game of the rules they watch (the monitor adds a field no rule reads)."""
    def moved(game: Played | None) -> Played | None:
        return None if game is None else Played(rules, game.players, game.moves)
    verdict = result.verdict
    if isinstance(verdict, (Refuted, Witnessed)):
        verdict = replace(verdict, played=moved(verdict.played))
    facts = replace(result.facts, fewest_elections_game=moved(result.facts.fewest_elections_game),
                    longest_game=moved(result.facts.longest_game))
    return replace(result, verdict=verdict, facts=facts)


def monitored_game(game: Game, rules: str) -> Game | None:
    """The game of the monitored rules `rules` for the same count, when they are `game`'s
    own rules with the monitor added (None for rules built in memory, which the name
    cannot load again)."""
    base = load_spec(game.spec.source if game.spec.source.endswith(".toml") else game.spec.name) \
        if game.spec.source else None
    if base is None or base != game.spec:
        return None
    return compiled_game(game.players, rules)


def _check_game(game: Game, props: tuple[Property, ...], limits: Limits, reductions: Reductions = Reductions(),
                progress: Callable[[str], None] | None = None, *, stop_on: frozenset[str] = frozenset(),
                fewest_elections: bool = True, explorer: str = DEFAULT_EXPLORER,
                joining: tuple[Property, ...] = ()) -> list[PropertyResult]:
    """`check_game` for properties over `game`'s own fields; `joining`: properties (of
    monitor fields, which no rule reads, so no symmetry is lost) searched with the first
    cone group rather than in a search of their own."""
    budget = Budget.started(limits.time_limit)
    props = props + joining
    players = game.players
    out: list[PropertyResult] = []
    graph_props = [p for p in props if p.kind in GRAPH_KINDS]
    state_props = tuple(p for p in props if p.kind not in GRAPH_KINDS)
    symmetric = tuple(p for p in state_props if not symmetry_blockers(game.spec, (p,)))
    plain = tuple(p for p in state_props if p not in symmetric)
    groups: list[tuple[tuple[Property, ...], Reductions]] = []
    if explorer == "layers":
        # The layered checker enumerates dealt fields (reductions.py (e)): a property that
        # reads who the ordinary Fascists are joins the others' search.
        reductions = replace(reductions, deals=True)
    dealt = frozenset(dealt_fields(game.spec)) if reductions.deals and reductions.cone else frozenset()
    parts = by_cone(game.spec, tuple(p for p in symmetric if p not in joining), dealt) \
        if explorer == "layers" and reductions.cone else [tuple(p for p in symmetric if p not in joining)]
    parts[0] += tuple(p for p in symmetric if p in joining)
    if parts[0] or graph_props:
        groups.append((parts[0], reductions))
    groups += [(part, reductions) for part in parts[1:]]
    if plain:
        groups.append((plain, replace(reductions, symmetry=False)))

    def remaining() -> Limits:
        """`limits` with the seconds of work left (`Budget.left`: the wall-clock backstop's too)."""
        left = budget.left()
        return limits if left is None else Limits(limits.max_states, left, limits.memory_limit)

    wins = tuple(p for p in state_props if p.kind == "sometimes" and p.report == "elections"
                 and fewest_elections)
    elected: dict[str, Trace] = {}      # the layered sweep finds the fewest elections as it goes
    counted: set[str] = set()           # ... for the wins it checked
    # `groups` grows while it is walked: a property that fired for a dealt value is
    # searched again, with the field kept, for its verdict and shortest game.
    for number, (group, group_reductions) in enumerate(groups):
        with_graph = number == 0 and bool(graph_props)
        if progress:
            progress(f"{players} players: exploring for {len(group) + (len(graph_props) if with_graph else 0)} "
                     f"properties")
        model = Model(game, group, group_reductions)
        record = with_graph and any(p.kind == "terminates" for p in graph_props)
        searched = search(model, group, remaining, explorer, deadlocks=with_graph, graph=record, stop_on=stop_on,
                          elections=explorer == "layers" and any(p in wins for p in group),
                          progress=layers(players, progress, explorer),
                          cycle_alone=with_graph and not group and [p.kind for p in graph_props] == ["terminates"])
        exploration = searched.exploration
        if isinstance(exploration, LayeredExploration) and not exploration.breadth_first:
            counted.update(p.name for p in group if p in wins)
            # Cut short, a later layer may hold a game with fewer elections: none is claimed
            # (settled, none can: `PropertyWatch.settled`).
            exact = exploration.complete or exploration.settled
            for name, hit in exploration.elected.items() if exact else ():
                elected[name] = exploration.trace_of(exploration.elected_ids[name], hit)
        # A sweep by rank meets shallow and deep states in any order: cut short, what it
        # found is a true trace but not known to be the shortest.
        cut = isinstance(exploration, Swept) or (isinstance(exploration, LayeredExploration)
                                                  and not exploration.settled and not exploration.breadth_first)
        unsure = ("traces found are not known to be the shortest: the sweep was cut short"
                  if cut and not exploration.complete else "")
        note = "; ".join(part for part in (model.plan.describe(game.spec), searched.note, unsure) if part)
        start = len(out)
        fired = set(exploration.dealt_fired if isinstance(exploration, LayeredExploration) else ())
        if fired:
            groups.append((tuple(p for p in group if p.name in fired), replace(group_reductions, deals=False)))
        out += _state_verdicts(exploration, tuple(p for p in group if p.name not in fired), note)
        if with_graph:
            out += _graph_verdicts(exploration, graph_props, searched.facts, note, searched.lasso)
        whole = exploration.states if exploration.complete and number == 0 else None
        out[start:] = [replace(result, facts=replace(result.facts, reductions=tuple(model.plan.labels()),
                                                     reachable_states=whole)) for result in out[start:]]
    out = [_fewest(result, elected[result.property]) if result.property in elected else result for result in out]
    wins = tuple(p for p in wins if p.name not in counted)
    if wins:
        if progress:
            progress(f"{players} players: fewest elections for {len(wins)} properties")
        model = Model(game, wins, reductions)
        by_elections = search(model, wins, remaining, explorer, deadlocks=False, by_elections=True,
                              progress=layers(players, progress, explorer)).exploration
        out = [_fewest(result, by_elections.trace_to(by_elections.hits[result.property]))
               if result.property in by_elections.hits else result for result in out]
    return out


def _fewest(result: PropertyResult, trace: Trace) -> PropertyResult:
    """`result` with the game reaching its witness with the fewest elections."""
    return replace(result, facts=replace(result.facts, fewest_elections=trace.elections(),
                                         fewest_elections_game=Played.of(trace)))


STANDARD = "standard"
"""The rules whose shortest game to a premise a vacuous verdict shows (spec/rules/standard.toml)."""


def judge_premises(game: Game, out: list[PropertyResult], questions: dict[str, Property],
                   limits: Callable[[], Limits]) -> list[PropertyResult]:
    """The verdicts without the premise questions, each property judged by its premise's
    answer: proved with its premise never reached (a complete search found no game) is
    `vacuous`, with the shortest game of the standard rules that reaches it; proved with
    the premise's search cut short is `unknown` (it may be vacuous: not a pass). A premise
    reached leaves the verdict as it was; so does a refutation, which reaches it."""
    answers = {result.property: result.verdict for result in out if result.property.endswith(PREMISE)}
    kept = [result for result in out if not result.property.endswith(PREMISE)]
    vacuous = [result.property for result in kept if isinstance(result.verdict, Proved)
               and result.property in questions and isinstance(answers.get(questions[result.property].name),
                                                               Unwitnessed)]
    games = standard_games(game, tuple(vacuous), limits) if vacuous else {}
    judged: list[PropertyResult] = []
    for result in kept:
        question = questions.get(result.property)
        answer = answers.get(question.name) if question is not None else None
        proved = result.verdict
        if question is None or not isinstance(proved, Proved):
            judged.append(result)
        elif isinstance(answer, Unwitnessed):
            judged.append(replace(result, verdict=Vacuous(proved.evidence, question.text,
                                                          games.get(result.property))))
        elif isinstance(answer, Unknown):
            judged.append(replace(result, verdict=Unknown(proved.evidence, (
                f"proved, but the search for its premise ({question.text}) stopped: "
                f"{answer.reason or 'limit'}; it may hold vacuously"), answer.stop)))
        else:
            judged.append(result)
    return judged


def standard_games(game: Game, names: tuple[str, ...], limits: Callable[[], Limits]) -> dict[str, Played]:
    """The shortest game of the standard rules reaching each named property's premise (its
    premise as the standard catalogue states it), by property name; none under the
    standard rules themselves, nor for a property they do not have."""
    if game.spec.name == STANDARD or game.players not in load_spec(STANDARD).player_counts:
        return {}
    found = _standard_premise_games(game.players, limits())
    return {name: found[name] for name in names if name in found}


_STANDARD_GAMES: dict[int, dict[str, Played]] = {}
"""`_standard_premise_games` by player count: the standard rules do not change within a run,
and the mutation analysis asks again for every mutant."""


def _standard_premise_games(players: int, limits: Limits) -> dict[str, Played]:
    """Every premise of the standard catalogue at `players` and the shortest game of the
    standard rules reaching it: one search for all of them, run to the end (a search cut
    short finds true games, not known to be the shortest), kept for the process."""
    if players not in _STANDARD_GAMES:
        standard = Rules.named(STANDARD)    # the shipped rules every variant is compared with
        catalogue = tuple(p for p in select(standard) if players in p.players)
        asked = premises(catalogue)
        results = check_game(standard.game(players), tuple(asked.values()), limits,
                             fewest_elections=False, vacuity=False)
        found = {result.property.removesuffix(PREMISE): result.verdict.played for result in results
                 if isinstance(result.verdict, Witnessed) and result.verdict.played is not None}
        if not any(isinstance(result.verdict, Unknown) for result in results):
            _STANDARD_GAMES[players] = found
        return found
    return _STANDARD_GAMES[players]


def by_cone(spec: Spec, props: tuple[Property, ...], dealt: frozenset[str] = frozenset()
            ) -> list[tuple[Property, ...]]:
    """The properties in groups, each searched with the cone of influence of its own
    members: one property that reads a field no other reads (at 7 players one of 91
    reads who the ordinary Fascists are, which makes the graph more than twelve times
    larger) gets a search of its own instead of making every property wait for the
    larger graph; with `dealt`, the fields the layered checker enumerates (reductions.py
    (e)), it joins the others). The groups are the maximal cones, the one holding most
    properties first; each property goes to the first group whose cone holds its own."""
    if not props:
        return [props]
    cones = {prop.name: cone(spec, (prop,), dealt) for prop in props}
    distinct = set(cones.values())
    maximal = [one for one in distinct if not any(one < other for other in distinct)]
    maximal.sort(key=lambda one: (-sum(cones[p.name] <= one for p in props), sorted(one)))
    groups: list[list[Property]] = [[] for _ in maximal]
    for prop in props:
        groups[next(number for number, one in enumerate(maximal) if cones[prop.name] <= one)].append(prop)
    return [tuple(group) for group in groups if group]


PROGRESS_EVERY = 0.5
"""Seconds between two progress lines of one search."""


def layers(players: int, progress: Callable[[str], None] | None, explorer: str) -> Callable[[int, int], None] | None:
    """A search's `progress(states, layer)` as lines for `progress`: the player count, the
    layer (the depth breadth-first, the rank swept), the states stored, states per second
    and resident memory, at most every `PROGRESS_EVERY` seconds."""
    if progress is None:
        return None
    started = time.perf_counter()
    last = 0.0

    def report(states: int, layer: int) -> None:
        nonlocal last
        now = time.perf_counter()
        if now - last < PROGRESS_EVERY:
            return
        last = now
        rate = states / max(now - started, 1e-9)
        layer_name = "rank" if explorer in ("sweep", "layers") else "depth"
        progress(f"{players} players: {layer_name} {layer}, {states:,} states, {rate:,.0f} states/s, "
                 f"{resident_mib():,.0f} MiB")
    return report


def probe_game(game: Game, props: tuple[Property, ...], walks: int, seconds: float, seed: int = 0, *,
               stop_on: frozenset[str] = frozenset()) -> list[PropertyResult]:
    """What random games find (explore.py `walk`): a refutation, a witness, a deadlock or
    a value out of range, each with the game that found it; every property not hit is
    `unknown` (a walk decides nothing it did not see). Explored without symmetry, so a
    property naming seats is checked as written. Properties over monitored rules (the
    order of play) walk the monitored game with the others, the same moves; on rules
    built in memory they are unknown (`check_game`)."""
    foreign = tuple(p for p in props if p.rules and not is_monitored(game.spec))
    if foreign:
        watched = monitored_game(game, foreign[0].rules)
        if watched is None or any(p.rules != foreign[0].rules for p in foreign):
            note = "the order of play is followed on rules loaded by name, with its monitor"
            evidence = Evidence("explicit", 0, 0, 0, 0.0, note)
            rest = tuple(p for p in props if p not in foreign)
            return probe_game(game, rest, walks, seconds, seed, stop_on=stop_on) + \
                [_result(p, game.players, Unknown(evidence, note, StopReason.NOT_SEARCHED)) for p in foreign]
        game = watched
    model = Model(game, tuple(p for p in props if p.kind not in GRAPH_KINDS), Reductions(symmetry=False))
    exploration = walk(model, tuple(p for p in props if p.kind not in GRAPH_KINDS), walks, seconds, seed,
                       stop_on=stop_on)
    note = f"{walks} random games at most, not a complete search"
    players = game.players
    out: list[PropertyResult] = []
    for prop in props:
        hit = exploration.hits.get(prop.name)
        verdict: Verdict
        if prop.kind == "in_range" and exploration.out_of_range is not None:
            verdict = _range_verdict(exploration, _evidence(exploration, note))
        elif prop.kind in ("deadlock_free", "terminates") and exploration.deadlock is not None:
            trace = exploration.trace_to(exploration.deadlock)
            verdict = Refuted(_evidence(exploration, note, len(trace.steps)), Played.of(trace),
                              f"deadlock: no legal move in phase {game.phase(trace.end)}")
        elif prop.kind == "terminates" and exploration.loop is not None:
            trace = exploration.trace_to(exploration.loop)
            verdict = Refuted(_evidence(exploration, note, len(trace.steps)), Played.of(trace),
                              "a move returns to an earlier state of the same game: the game can go on forever")
        elif hit is not None:
            trace = exploration.trace_to(hit)
            if prop.kind == "sometimes":
                verdict = Witnessed(_evidence(exploration, note, len(trace.steps)), Played.of(trace),
                                    trace.elections())
            else:
                verdict = Refuted(_evidence(exploration, note, len(trace.steps)), Played.of(trace),
                                  f"{prop.kind} {prop.text!r} fails after {len(trace.steps)} moves of a random game")
        else:
            verdict = Unknown(_evidence(exploration, note), exploration.limit, exploration.stop)
        out.append(_result(prop, players, verdict))
    return out


def _state_verdicts(exploration: Exploration, group: tuple[Property, ...], note: str) -> list[PropertyResult]:
    out = []
    players = exploration.model.game.players
    for prop in group:
        hit = exploration.hits.get(prop.name)
        verdict: Verdict
        if hit is not None:
            trace = exploration.trace_to(hit)
            evidence = _evidence(exploration, note, len(trace.steps))
            if prop.kind == "sometimes":
                verdict = Witnessed(evidence, Played.of(trace), trace.elections())
            else:
                verdict = Refuted(evidence, Played.of(trace),
                                  f"{prop.kind} {prop.text!r} fails after {len(trace.steps)} moves")
        elif exploration.complete:
            verdict = Unwitnessed(_evidence(exploration, note)) if prop.kind == "sometimes" else \
                Proved(_evidence(exploration, note))
        else:
            verdict = _unknown(exploration, note)
        out.append(_result(prop, players, verdict))
    return out


def _graph_verdicts(exploration: Exploration, props: list[Property], facts: GraphFacts | None,
                    note: str, lasso: Lasso | None = None) -> list[PropertyResult]:
    out = []
    players = exploration.model.game.players
    for prop in props:
        evidence = _evidence(exploration, note)
        deadlock = exploration.deadlock
        verdict: Verdict
        if prop.kind == "in_range":
            verdict = _range_verdict(exploration, evidence)
        elif prop.kind == "terminates" and lasso is not None:
            out.append(_result(prop, players, Refuted(replace(evidence, depth=len(lasso.trace.steps)),
                                                      Played.of(lasso.trace), lasso.describe()),
                               cycle_moves=lasso.cycle))
            continue
        elif deadlock is not None:
            trace = exploration.trace_to(deadlock)
            verdict = Refuted(evidence, Played.of(trace),
                              f"deadlock: no legal move in phase {exploration.model.game.phase(trace.end)}")
        elif prop.kind == "deadlock_free" and exploration.complete:
            verdict = Proved(evidence)
        elif prop.kind == "terminates" and facts is not None and not facts.acyclic:
            cycle = list(facts.cycle) + [facts.cycle[0]]
            trace = trace_along(exploration, cycle)
            verdict = Refuted(evidence, Played.of(trace),
                              f"a cycle of {len(facts.cycle)} states: the game can go on forever")
        elif prop.kind == "terminates" and facts is not None:
            longest = Played.of(trace_along(exploration, facts.longest_path))
            verdict = Proved(evidence, facts.longest_moves) if facts.terminates and facts.stuck == 0 else \
                Refuted(evidence, longest, f"{facts.stuck} states cannot reach the end")
            out.append(_result(prop, players, verdict, longest_moves=facts.longest_moves,
                               longest_elections=facts.longest_elections, longest_game=longest,
                               stuck_states=facts.stuck))
            continue
        else:
            verdict = _unknown(exploration, note)
        out.append(_result(prop, players, verdict))
    return out


def _range_verdict(exploration: Exploration, evidence: Evidence) -> Verdict:
    """`in_range`: refuted by the shortest game that puts a field outside its declared
    range (the search stops there), proved by a complete search."""
    if exploration.out_of_range is not None:
        trace = exploration.trace_to(exploration.out_of_range)
        return Refuted(replace(evidence, depth=len(trace.steps)), Played.of(trace),
                       f"{exploration.range_error} after {len(trace.steps)} moves")
    if exploration.complete:
        return Proved(evidence)
    return replace(_stopped(exploration), evidence=evidence)
