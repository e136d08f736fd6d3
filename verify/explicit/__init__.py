"""The explicit-state checker: the reachable states of the engine's game, one by one.

- model.py: the engine's compiled rules under exact reductions (no second copy of the
  rules), the transitions the explorer walks;
- reductions.py: which reductions are sound for a spec and a set of properties (seat
  rotation, vote representatives, the cone of influence, fused forced moves) and why;
- codec.py: states packed into integers, rotated to their canonical seat;
- explore.py: breadth-first search with the property checks (engine/propcheck.py) on the fly, limits, shortest traces;
- sweep.py: the sweep-line search by the ranking: the same findings with a few layers of
  states in memory instead of the whole graph (`shrules check --explorer sweep`);
- graphs.py: what the recorded graph says (acyclic, longest game, deadlocks, states that
  cannot end) and its export to networkx;
- check.py: the backend's verdicts for one player count (`check_players`), typed results
  whose games cross processes as moves;
- abstraction.py, bench.py: the projection onto the SPIN reference model, and the
  benchmark against it (`shrules bench --explore`);
- spin.py, side_by_side.py: SPIN's run.sh run in the same session (located, timed, read),
  and its figures set beside ours with the projection's cross-check.

It imports spec, engine and verify/results.py; never the Z3 backend or the command line.
"""
