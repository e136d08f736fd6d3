"""`shrules prove`: one property decided by the Z3 backend.

`prove PROPERTY` decides one catalogue property (or a strengthening invariant of
spec/invariants.toml) with the solver for each player count asked, and prints the
outcome with its size: k and solver time for a proof, the shortest trace for a
refutation or a witness, the counterexample to induction when the induction does not
close.

A catalogue property is decided through the portfolio (verify/portfolio.py `decide`,
the strategy `solver_only`, the backends `solver_backends` gives): the solver's verdict
on the property alone (verify/smt `one_by_one`), as a check's with `--backend smt`
would be but with no premise judged, so the command says how the solver decided it.
A strengthening invariant (`_prove_invariant`) and `--show-invariants` stay with the
solver's own support (verify/smt `backend_for`): an invariant of spec/invariants.toml is
no catalogue property, so no backend of the portfolio is asked about one; what is shown
is whether the support's fixpoint keeps it, not a verdict a backend returns.
"""

from __future__ import annotations

import click

from spec.errors import SpecError, shown
from spec.loader import load_spec
from spec.model import Spec
from spec.properties import Property

from ..portfolio import Backend, Request, SolverBackend, decide
from ..results import (EXIT_FAILED, EXIT_LIMIT, Evidence, Limits, Proved, Refuted, Unknown, Unwitnessed, Verdict,
                       Witnessed)
from ..rules import Rules
from .options import counts_among, counts_option, rules_option, time_limit_option
from .outputs import writable


def describe(verdict: Verdict) -> str:
    """One line: the verdict with the size of its evidence."""
    evidence = verdict.evidence
    seconds = f"{evidence.seconds:.2f} s"
    if isinstance(verdict, Proved):
        how = {"ranking": "by a ranking function", "k-induction": f"by induction (k = {evidence.depth})"}
        text = f"proved {how.get(evidence.method, evidence.method)}, {seconds}"
        return text + (f"; {evidence.note}" if evidence.note else "")
    if isinstance(verdict, Refuted):
        return f"refuted: a game of {evidence.depth} moves breaks it (BMC, {seconds})"
    if isinstance(verdict, Witnessed):
        elections = f", {verdict.elections} elected governments" if verdict.elections is not None else ""
        what = "shortest game" if verdict.lower_bound is None else "a game (not proved the shortest)"
        text = f"witnessed: {what} of {evidence.depth} moves{elections} (BMC, {seconds})"
        return text + (f"; {evidence.note}" if evidence.note else "")
    if isinstance(verdict, Unwitnessed):
        return f"never happens ({evidence.note or evidence.method}, {seconds})"
    assert isinstance(verdict, Unknown)
    first, _, rest = verdict.reason.partition("\n")
    return f"unknown after {seconds}: {first}" + (f"\n{rest}" if rest else "")


@click.command()
@click.argument("name", required=False)
@counts_option(help_text="Player counts, e.g. 7, 5-7 or 5,6 (default: every count the property is stated for).")
@rules_option()
@click.option("--depth", type=click.IntRange(0, 2000), default=160, show_default=True,
              help="Longest path BMC looks at for a witness or a counterexample.")
@click.option("--k", "k", type=click.IntRange(1, 20), default=3, show_default=True,
              help="Largest k tried by k-induction.")
@time_limit_option(None, "Give up on a player count after this many seconds (default: no limit).", dest="seconds")
@click.option("--trace", "trace_path", type=click.Path(dir_okay=False, writable=True),
              help="Save the witness or counterexample as ITF JSON (the last player count's).")
@click.option("--changes/--no-changes", default=False, help="Print the fields each move of a trace changes.")
@click.option("--infer", is_flag=True,
              help="Add invariants found in played games (kept only where induction proves them) to the "
                   "strengthening invariants of spec/invariants.toml.")
@click.option("--hints/--no-hints", default=True, show_default=True,
              help="Use spec/invariants.toml; --no-hints proves with inferred invariants and a found ranking alone.")
@click.option("--show-invariants", is_flag=True,
              help="Print the inferred invariants the proof keeps, in the spec's expression language, with "
                   "the rule IDs of the fields they relate (implies --infer).")
def prove(name: str | None, players_text: str | None, rules: str, depth: int, k: int, seconds: float | None,
          trace_path: str | None, changes: bool, infer: bool, hints: bool, show_invariants: bool) -> None:
    """Decide a property with Z3: k-induction, BMC, a ranking function.

    NAME is a property of spec/properties.toml (or a strengthening invariant of
    spec/invariants.toml); it may be left out with --show-invariants. Exit status 0 when
    every verdict is as the catalogue expects, 1 when one is not, 3 when a limit left one
    unknown, 2 on bad input.
    """
    # verify.smt is imported here, not at the top: it imports z3 (a noticeable part of a
    # second), and the group imports every command module on each `shrules` run.
    from ..smt.backend import catalogue_of

    writable(trace_path, "--trace")
    spec = load_spec(rules)
    infer = infer or show_invariants or not hints
    if name is None:
        if not show_invariants:
            raise click.UsageError("give a property NAME, or --show-invariants")
        _show_invariants(spec, players_text, hints)
        raise SystemExit(0)
    catalogue = {prop.name: prop for prop in catalogue_of(spec)}
    if name not in catalogue:
        _prove_invariant(spec, name, players_text, catalogue, infer, hints)
        return
    prop = catalogue[name]
    status = 0
    loaded = Rules.loaded(rules, spec)
    for count in counts_among(players_text, prop.players, of="this property", rule=None):
        if show_invariants:
            _show_invariants(spec, str(count), hints)
        verdict = solver_verdict(loaded, prop, count,
                                 Limits(max_depth=depth, k=k, time_limit=seconds),
                                 solver_backends(tuple(catalogue.values()), infer, hints))
        expected = verdict.holds == (prop.expect == "holds") if verdict.holds is not None else None
        wanted = "hold" if prop.expect == "holds" else "fail"
        mark = "" if expected is None or expected else f"  [NOT AS EXPECTED: the catalogue expects it to {wanted}]"
        click.echo(f"{prop.name} ({prop.kind}), {count} players: {describe(verdict)}{mark}")
        trace = getattr(verdict, "trace", None)
        if trace is not None:
            click.echo(trace.text(changes=changes))
            if trace_path:
                trace.save_itf(trace_path, f"{prop.name}, {count} players: {verdict.verdict} by BMC")
        if expected is None:
            status = max(status, EXIT_LIMIT)
        elif not expected and status != EXIT_LIMIT:
            status = EXIT_FAILED
    if trace_path:
        click.echo(f"trace saved to {trace_path}")
    raise SystemExit(status)


def solver_backends(catalogue: tuple[Property, ...], infer: bool, hints: bool) -> dict[str, Backend]:
    """The portfolio's solver for `prove`: each property of `catalogue` asked on its own,
    `infer` and `hints` as for verify/smt `backend_for`."""
    from ..smt import one_by_one  # on use, as in prove

    return {"smt": SolverBackend(one_by_one(catalogue), infer=infer, hints=hints)}


def solver_verdict(rules: Rules, prop: Property, count: int, limits: Limits, backends: dict[str, Backend]
                   ) -> Verdict:
    """The verdict the portfolio gives `prop` at `count` by the solver alone (`solver_only`):
    unknown where the backend returned none for it, never proved."""
    decision = decide(Request(rules, count, (prop,), limits), None, strategy="solver_only", backends=backends)
    found = next((result.verdict for result in decision.results if result.property == prop.name), None)
    return found if found is not None else Unknown(Evidence("smt"), f"the solver gave no verdict on {prop.name}")


def _show_invariants(spec: Spec, players_text: str | None, hints: bool) -> None:
    """Print, for each player count, the inferred invariants the fixpoint keeps and the
    ranking the proof of `terminates` uses."""
    from ..smt import backend_for  # on use, as in prove

    for count in counts_among(players_text, tuple(spec.player_counts), of=f"the {spec.name} rules"):
        backend = backend_for(spec, count, True, hints)
        found = backend.inferred()
        support = backend.induction.support()
        click.echo(f"{count} players: {len(found)} inferred invariants proved by induction, together with "
                   f"{len(support.kept) - len(found)} others (support: {support.seconds:.1f} s, "
                   f"{support.queries} queries)")
        for item in found:
            click.echo(f"  {item.text}    [{', '.join(item.rule_ids)}]")
        ranking = backend.strengthening.ranking
        if ranking is not None:
            where = "found in played games" if ranking.where.file == "<ranking>" else "from spec/invariants.toml"
            click.echo(f"  ranking ({where}): {ranking.text}    [{', '.join(ranking.rule_ids)}]")


def _prove_invariant(spec: Spec, name: str, players_text: str | None, catalogue: dict[str, Property],
                     infer: bool = False, hints: bool = True) -> None:
    """`prove` for a strengthening invariant: is it in the proved support?"""
    from ..smt import backend_for  # on use, as in prove

    counts = counts_among(players_text, tuple(spec.player_counts), of=f"the {spec.name} rules")
    status = 0
    for count in counts:
        backend = backend_for(spec, count, infer, hints)
        known = [c.name for c in backend.induction.candidates if c.origin == "invariant"]
        if name not in known:
            words = ", ".join(sorted(list(catalogue) + known))
            raise SpecError(f"no property or invariant named {shown(name)}; known: {words}")
        support = backend.induction.support()
        if name in support.names():
            outcome = backend.induction.consecution(name)
            click.echo(f"invariant {name}, {count} players: proved by induction (k = 1, {outcome.seconds:.2f} s) "
                       f"together with {len(support.kept) - 1} other invariants (support: {support.seconds:.2f} s)")
            continue
        status = EXIT_FAILED
        example = support.dropped.get(name)
        if example is None:
            click.echo(f"invariant {name}, {count} players: false in the initial state")
        else:
            click.echo(f"invariant {name}, {count} players: not inductive; counterexample to induction:")
            click.echo("\n".join(example.lines(backend.game)))
    raise SystemExit(status)


COMMANDS = (prove,)
