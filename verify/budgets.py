"""Every time budget of the checkers, in one place: what each bounds and why that value.

A budget spread over the module that reads it hid how the commands share the machine:
the rules lawyer, the catalogue check, the mutation analysis and the benchmarks each
held their own seconds and shares. They are kept here, each with the measurement that
chose it; the modules that read one import it by its name (a test patching a module's
constant patches the name that module reads at call time, as before).

`tests/test_pipeline.py` holds it so: no `*_SECONDS`, `*_SHARE` or `*_RESERVE` constant is
assigned anywhere else in verify/. This room imports nothing but the standard library.

Two clocks read these seconds. The explicit searches' time limit (`Limits.time_limit`
given to verify/explicit) is seconds of work, the CPU time of the searching process
(verify/clock.py), with a wall-clock backstop of `WALL_BACKSTOP` times it: on a machine
whose other cores are busy, a search waiting for a core does no work, and its answer
should not turn into "unknown" for the wait. Everything else is wall-clock time: the Z3
solver's timeouts (the solver's own timer, which counts wall time; left as it is), the
question's and the count's time shared between backends, the odds and the knowledge
searches.
"""

from __future__ import annotations

# ---------------------------------------------------------------------- the work clock

WALL_BACKSTOP = 3.0
"""An explicit search given T seconds of work (CPU time, verify/clock.py) also stops after
this many times T of wall time, so that a process starved of the CPU, or asleep, never
hangs its caller: at 3, a search sharing its core with two others still gets its work
done, where one stopped (suspended, or swapped out) gives up within three times its
limit. Its stop says which clock ran out ("limit: time 20 s of work", or "limit: time
20 s (wall backstop 60 s)")."""

# ---------------------------------------------------------------------- shrules ask

QUESTION_SECONDS = 120.0
"""Time for one question (`shrules ask`, and each question of `bench --questions`): 5
players are searched completely well within it, 7 are not."""

KNOWLEDGE_SECONDS = 60.0
"""Time for one knowledge question per player count (`shrules ask` with knows(), over a
seat's beliefs, verify/knowledge): the goal that a 5-player question is answered within a
minute on a two-core machine. A search that has not finished by then is "unknown", never
"no". A question time asked for (`shrules ask --seconds`) replaces it."""

KNOWLEDGE_BELIEFS = 3_000_000
"""Beliefs a knowledge search stores before it stops with "unknown": about 2 GiB at 5
players (a belief holds a few hidden parts besides its public part)."""

ALL_SECONDS = 900.0
"""Time per player count for `ask --all`, whose 5- and 6-player searches are complete ones."""

COUNT_SECONDS = 900.0
"""Time per player count for `shrules book`, as for `shrules ask --all`: the 5- and
6-player searches finish."""

SMT_FIRST_SECONDS = 20.0
"""Time the Z3 backend gets first for a `never` query: its one-step and k-induction proofs
take about a second at any player count, where a complete explicit search of 7 players
is out of reach."""

INFER_SHARE = 0.75
"""Of the time left once the hinted proof of a `never` query failed, the share inference
gets before the count's explicit search: from 7 players on that search cannot finish,
and where it can (5, 6) inference from the cache is quick and the search keeps the rest."""

SEARCH_FIRST_STATES = 4_000_000
"""A budget of work, not of time: the states the layered search may store for a `never`
question whose hinted proof failed, before invariants are inferred for it. Above the
6-player graph (2,656,434 states for "the same President twice in a row"), which it
searches in about 2 s of CPU where inference took 10 to 20 s; a larger count's graph stops
it within a few seconds. Counted in states, so a busy machine does not cut it short."""

INFER_AFTER_SECONDS = 5.0
"""The prover begins to infer no sooner than this after the question was asked: most
questions whose answer is yes are answered by then, and inference beside the search
would only have slowed it down."""

QUICK_SHARE = 3
"""Without a deciding count, a first quick pass gives each count 1/(3 n) of the time: a
game that needs 7 players is not starved by a complete search of 5."""

SOLVER_SECONDS = 300.0
"""Seconds the solver gets per question and player count with `ask --solver` (inference
included): the longest of the catalogue's mutants took 315 s at 10 players, most a few
seconds."""

FRONTIER_SECONDS = 30.0
"""How long the scan of a complete search's frontier may take (verify/explicit/frontier.py)."""

CORE_SECONDS = 30.0
"""How long all the cores of one proof may take (past it there is no answer, and "Rests
on" falls back to the fields read): a hinted proof's always, an inferred one's at least
this, however little of the question's time is left."""

CORES_WAIT_SECONDS = 60.0
"""How long `decide` waits for the prover process's cores before it takes them itself."""

INFERRED_CORES_SECONDS = 120.0
"""The most the cores of a proof with inferred invariants may take: its support holds
thousands of them (7,783 for three Presidencies in a row at 5 players), and following
each one the proof used to the proof of that invariant took 53 s there, past the 30 s
a hinted proof's cores get (`CORE_SECONDS`)."""

# ---------------------------------------------------------------------- shrules check

BOTH_SEARCH_SHARE = 0.25
"""`both`: the share of a count's time limit the search gets before the solver. Where the
search completes (the layered search decides the 5- and 6-player catalogues in 6 and 13
s) this changes nothing; where it cannot (7 players and more: the whole 7-player
catalogue took 166 s on the complete graph), a sweep cut short proves nothing and its
traces are not known to be the shortest, so the solver decides the count anyway and the
time the search would spend is the main job's waste. Breadth-first, a half was the
measured best (132 s with the whole limit for the search at 6 players, 68 s with half)."""

CROSS_CHECK_SECONDS = 30.0
"""`both`: the solver's seconds for the cross-check of one property the search decided. The
standard rules' cross-checks are proofs by induction of a second or two each; where the
solver has to search instead (a variant's refutation 63 moves deep by bounded model
checking, 137 s; the unreachability of a premise, 440 s) it would multiply the check's time
to confirm what the complete search settled already: the search's verdict then stands
unconfirmed, as it stands when the solver gives up for any other reason."""

CROSS_CHECK_FLOOR_SECONDS = 5.0
"""`both`: a property's cross-check also stops once it has taken as long as the search it
checks (the count's whole search), but never below these seconds: a check of a variant
whose games go round spent 30 s confirming that a premise the complete search never
reached is unreachable (the solver gave up, and the search's verdict stood), more than the
whole search took; the standard rules' cross-checks take a second or two each."""

# ---------------------------------------------------------------------- the Z3 backend

PLAYOUT_RESERVE = 20.0
"""A `sometimes` property's time limit keeps back the lesser of `PLAYOUT_RESERVE` seconds
and `PLAYOUT_SHARE` of it from the plain search for a shortest witness: where that search
stalls (the bound the found distance proves is looser than the written one, and each
depth below the shortest is a whole unsatisfiable query), the reserve goes to random games
and the solver's paths along them (verify/smt/backend.py `Backend._played`), so the
property is decided, with how far the path may be from a shortest, instead of unknown."""

PLAYOUT_SHARE = 0.25
"""The share of a `sometimes` property's time kept back for random games (with
`PLAYOUT_RESERVE`, the lesser of the two)."""

K_INDUCTION_SHARE = 0.25
"""Of a `sometimes` property's time, the share kept for k-induction of its negation once
the search for a witness found none: a thing that never happens, but whose negation is
not inductive in one step, is proved by a longer k (at 6 players, "the last President
nominates again" at k = 13, in 14 s) where a search can only say it found nothing. Of
an invariant's or a permission's, the share its search's k-induction may take
(verify/smt/reach.py `k_seconds`, `KProbe`)."""

CTI_SECONDS = 30.0
"""The most the search for a reachable violation may take once induction failed (or what
is left of the property's time limit, if less): it tells a real counterexample from an
artefact of the induction; stopped, the verdict stays unknown."""

K_INDUCTION_SECONDS = 30.0
"""The least time given to the k-induction of "no game meets the target" as the search for
such a game goes (`KProbe`), where one step of induction failed: a quarter of the
property's time (`K_INDUCTION_SHARE`), at least this, and only when the property's time
holds both this and the search's own window (`CTI_SECONDS`). With less, the search, which
can refute, has the time alone: the mutation analysis gives a mutant's whole catalogue a
minute in one pass, and a permission's proof taking the rest of it (one that can only
confirm the rules' own verdict) cost it the deck conservation refutation that kills
mutant 219 at 5 players."""

PLAYOUT_SECONDS = 2.0
"""The most random play may take for one property once the search stalled (about 5,000
complete games at 5 players, each state and move checked)."""

PLAYOUT_FIRST_SECONDS = 2.0
"""The most random play may take before the deep query at a tight lower bound: a game
exactly that long saves the query (at 7 players 4 of the catalogue's 7 witnesses come
this way within 2 s, 3 within 1 s; the policy wins and the veto's chaos not within 4 s),
and a miss costs this."""

# ---------------------------------------------------------------------- shrules mutate

RELATIONAL_SECONDS = 120.0
"""The solver's search for a relation making a mutant and the rules play the same games."""

MUTANT_SOLVER_SECONDS = 60.0
"""The solver's time per mutant for a verdict that differs from the rules' own
(verify/diff/mutate.py reads it as `SOLVER_SECONDS`)."""

SOLVER_ONLY_SECONDS = 600.0
"""The solver's time per mutant for the whole catalogue when no time limit is given
(`decide` with `solver_only`): inference for the mutant's rules included."""

SOLVER_ONLY_DEEP_SHARE = 0.4
"""The share of a mutant's time by the solver alone that goes, after the first pass, to
violations along the rules' own games (verify/smt/deep.py), every property still unknown
asked at once (120 s of 300): what three of twelve sampled mutants at 5 players break lies
42 to 97 moves deep, where the plain search takes minutes per property. A share, not a
fixed number of seconds, so that a longer time limit reaches deeper too: with 120 s
whatever the limit, mutant 156 (a track-full check that lets play go on at six Fascist
policies, R-W5) stayed unknown at 5 players given 900 s; with its share of the 900 s it is
killed in 157 s, by a game of 67 moves."""

SOLVER_ONLY_SHALLOW_SHARE = 1 / 30
"""The share of a mutant's time by the solver alone for the shortest games of its bare
rules breaking a state or move invariant, before its invariants are inferred
(verify/smt/shallow.py; 10 s of 300): at 6 players that asks every depth to about 18
moves, and half of the first 28 mutants killed there are killed by a game of 13 moves or
fewer, which inference (ten seconds and more per mutant) does not help find."""

SOLVER_ONLY_PLAYED_SHARE = 1 / 10
"""Then, for the state and move invariants the shortest games did not break, the share
for the rules of random games breaking them, each followed by one query on the bare rules
(verify/smt/shallow.py; 30 s of 300). Random play takes at most 2 s of it; the rest goes
to queries only when a game broke a property, along which a path then nearly always
exists."""

GUIDE_SECONDS = 120.0
"""The explicit search's time for the rules' own witnesses, kept as guides for the
mutants' (`_guides_from_the_rules`), once per process and count."""

PROBE_SECONDS = 10.0
"""Random play under a mutant before any complete search (`PROBE_GAMES` games at most):
most rule bugs show within a few hundred games, and a game that shows one kills the
mutant in seconds."""

LONG_PROBE_SECONDS = 60.0
"""Random play under a mutant without the complete stages (`complete=False`: the CI gate's
random-games run; `LONG_PROBE_GAMES` games at most) before the solver's timed queries: a
kill by games counted is the same on a busy machine as on an idle one, while a query's
60 s may not be. A mutant of the chaos rule that uses the pile's counts where one tile of
it is known needs about 2,000 games (5 s on an idle core)."""

# ---------------------------------------------------------------------- check, sweep, diff

CHECK_SECONDS = 600.0
"""`shrules check --time-limit`'s default: seconds of work of the explicit search per player
count. 5 and 6 players finish well within it; 7 to 10 do not. The Z3 backend gives each
property this long (`check_players` asks them one at a time), so a count it checks can
take many times this."""

SWEEP_SECONDS = 600.0
"""`shrules sweep --time-limit`'s default: seconds per rule set; a 5-player board finishes
well within it, most at 7-10 do not."""

MUTATE_DIFF_SECONDS = 300.0
"""The mutation analysis's product search (`diff`) deciding a mutant equivalent or
survived: breadth-first seconds, complete when it can be (`mutate --diff-time`)."""

MUTATE_RANDOM_SECONDS = 20.0
"""The random games after that product search stopped short, per mutant."""

MISTAKES_DIFF_SECONDS = 20.0
"""The hand-written mistakes' score (`mutate --mistakes`): the small product search that
answers yes or no quickly, then as long for random play (`MISTAKES_RANDOM_SECONDS`)."""

MISTAKES_RANDOM_SECONDS = 20.0
"""`mutate --mistakes`: the random games after its small product search, per mistake."""

MISTAKES_PROPERTY_SECONDS = 20.0
"""`mutate --mistakes`: each property's check under a mistake, and the catalogue's."""

QUICK_DIFF_SECONDS = 10.0
"""`mutate --mistakes --quick`: the smaller product search (and the catalogue's check), then
`QUICK_RANDOM_SECONDS` of random play; `QUICK_PROPERTY_SECONDS` for each invariant at 5
players."""

QUICK_RANDOM_SECONDS = 15.0
"""`mutate --mistakes --quick`: the random games after its product search."""

QUICK_PROPERTY_SECONDS = 3.0
"""`mutate --mistakes --quick`: each invariant at 5 players (their counterexamples come early)."""

EXPLAIN_SECONDS = 60.0
"""The mutation gate's product search showing a failing mutant's game: short, it only
illustrates; then `EXPLAIN_RANDOM_SECONDS` of random play."""

EXPLAIN_RANDOM_SECONDS = 20.0
"""The mutation gate's random games showing a failing mutant's game, after its product search."""

SOLVER_ONLY_EACH_SECONDS = (5.0, 30.0)
"""The seconds one property may take of a mutant's time by the solver alone, in two passes
(verify/diff/mutate.py `verdicts_under`): every property first gets at most 5 s, then those
left unknown at most 30 s each. At 5 players one mutant's deck conservation was still
undecided after 150 s, and with 300 s for the whole mutant the solver left 85 of its 88
properties unknown. With 30 s for each in one pass, another mutant's nine properties the
solver could not decide took 270 of its 300 s, and most of the 70 it left unknown were
never asked."""


# ---------------------------------------------------------------------- benchmarks

PEER_SECONDS = 10.0
"""CPU seconds per count and engine with `bench --peer`: PEERS.md's peer figures take at
least 10."""

BUILD_SECONDS = 600.0
"""Time allowed for `spin -a` and the C compile on top of SPIN's verification's own limit."""

PROGRESS_SECONDS = 10.0
"""How often a long search of `shrules knows` says how far it is (on stderr)."""

SPIN_SECONDS = {5: 0.7, 6: 2.0, 7: 40.0, 8: 102.0}
"""Not a budget but a measured figure kept beside them for its name: SPIN's verification
time per player count (shared/bench/spin/README.md), shown, marked as not measured, only
where SPIN cannot run beside us (verify/explicit/side_by_side.py)."""


# ---------------------------------------------------------------------- shrules odds

ODDS_MEMORY_MIB = 12_000
"""Resident MiB at which one computation of odds stops, its odds unknown (`shrules odds`,
each candidate of `rebalance`): the goal is 10 players within 12 GiB, and without a
bound a pass that outgrows the machine is ended by the system with nothing said (a
6-player rebalance, 55 minutes in, at 16 GiB)."""

ODDS_SECONDS = 3600.0
"""Time for one computation of exact odds (`shrules odds`, and each rule set and count of
`diff --balance exact`): the complete graph is walked once, so this bounds a pass that
would otherwise take as long as the graph is large (8 players and up)."""
