"""`shrules smt-bench`: how long the Z3 backend takes to prove the catalogue, and how fast
the engine and the solver are compared (verify/smt/bench.py)."""

from __future__ import annotations

import click

from ..results import EXIT_FAILED
from ..rules import Rules
from .options import counts_among, counts_option, rules_option, workers_option


@click.command(name="smt-bench")
@counts_option(help_text="Player counts, e.g. 5-7 or 5,7 (default: every count of the rules, R-S1).")
@rules_option()
@click.option("--witnesses", is_flag=True, help="Also find the shortest witness of every `sometimes` property.")
@click.option("--hints/--no-hints", default=True, show_default=True,
              help="Use spec/invariants.toml; --no-hints infers the support instead, from an empty invariant "
                   "cache (the figures of a first run; the cache of later runs is not touched).")
@workers_option(1, help_text="Decide the player counts in this many processes, the largest first (the total is then "
                   "also given as wall time).")
@click.option("--agreement", "states", type=click.IntRange(0, 1_000_000), default=0, show_default=True,
              help="Also compare engine and solver on this many reachable states per player count.")
def smt_bench(players_text: str | None, rules: str, witnesses: bool, hints: bool, workers: int, states: int) -> None:
    """Time the Z3 proofs of the catalogue's invariants (cold start per player count), and
    optionally the witnesses and the engine-vs-solver agreement check."""
    # verify.smt is imported here, not at the top: it imports z3 (a noticeable part of a
    # second), and the group imports every command module on each `shrules` run.
    from ..smt.bench import DECIDED, INVARIANT_KINDS, bench_agreement, bench_proofs

    loaded = Rules.named(rules)
    spec = loaded.spec
    counts = counts_among(players_text, tuple(spec.player_counts), of=f"the {spec.name} rules")
    proofs = bench_proofs(loaded, counts, INVARIANT_KINDS + (("sometimes",) if witnesses else ()), 1800, hints, workers)
    for line in proofs.lines():
        click.echo(line)
    failed = [f for f in proofs.figures if f.verdict not in DECIDED]
    if states:
        for figure in bench_agreement(loaded, counts, states):
            click.echo(f"agreement, {figure.players} players: {figure.states} states, {figure.successors} successors, "
                       f"{figure.moves} judged moves in {figure.seconds:.1f} s "
                       f"({figure.states_per_second:.0f} states/s), {figure.differences} differences")
            if figure.differences:
                raise SystemExit(EXIT_FAILED)
    if failed:
        raise SystemExit(EXIT_FAILED)


COMMANDS = (smt_bench,)
