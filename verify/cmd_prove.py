"""`shrules prove` and `shrules smt-bench`: the Z3 backend on the command line.

`prove PROPERTY` decides one catalogue property (or a strengthening invariant of
spec/invariants.toml) with the solver for each player count asked, and prints the
outcome with its size: k and solver time for a proof, the shortest trace for a
refutation or a witness, the counterexample to induction when the induction does not
close. `smt-bench` prints how long the catalogue's proofs take and how fast the engine
and the solver are compared.
"""

from __future__ import annotations


import click

from spec.errors import SpecError, shown
from spec.loader import load_spec
from spec.model import Spec
from spec.properties import Property

from .cli import EXIT_FAILED, EXIT_LIMIT, SECONDS
from .cmd_check import parse_counts
from .outputs import writable
from .results import Proved, Refuted, Unknown, Unwitnessed, Verdict, Witnessed


def _counts(text: str | None, allowed: tuple[int, ...], of: str = "this property") -> tuple[int, ...]:
    if text is None:
        return allowed
    return parse_counts(text, allowed, of=of, rule=None if of == "this property" else "R-S1") or allowed


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
        return f"witnessed: shortest game of {evidence.depth} moves{elections} (BMC, {seconds})"
    if isinstance(verdict, Unwitnessed):
        return f"never happens ({evidence.note or evidence.method}, {seconds})"
    assert isinstance(verdict, Unknown)
    first, _, rest = verdict.reason.partition("\n")
    return f"unknown after {seconds}: {first}" + (f"\n{rest}" if rest else "")


@click.command()
@click.argument("name")
@click.option("--players", "-n", "players_text", default=None,
              help="Player count or range a-b (default: every count the property is stated for).")
@click.option("--rules", default="standard", show_default=True, help="Rules file or variant name.")
@click.option("--depth", type=click.IntRange(0, 2000), default=160, show_default=True,
              help="Longest path BMC looks at for a witness or a counterexample.")
@click.option("--k", "k", type=click.IntRange(1, 20), default=3, show_default=True,
              help="Largest k tried by k-induction.")
@click.option("--seconds", type=SECONDS, default=None, help="Give up on a player count after this many seconds.")
@click.option("--trace", "trace_path", type=click.Path(dir_okay=False, writable=True),
              help="Save the witness or counterexample as ITF JSON (the last player count's).")
@click.option("--changes/--no-changes", default=False, help="Print the fields each move of a trace changes.")
def prove(name: str, players_text: str | None, rules: str, depth: int, k: int, seconds: float | None,
          trace_path: str | None, changes: bool) -> None:
    """Decide a property with Z3: k-induction, BMC, a ranking function.

    NAME is a property of spec/properties.toml (or a strengthening invariant of
    spec/invariants.toml). Exit status 0 when every verdict is as the catalogue expects,
    1 when one is not, 3 when a limit left one unknown.
    """
    from .smt import Limits, check_property
    from .smt.check import catalogue_of

    writable(trace_path, "--trace")
    spec = load_spec(rules)
    catalogue = {prop.name: prop for prop in catalogue_of(spec)}
    if name not in catalogue:
        _prove_invariant(spec, name, players_text, catalogue)
        return
    prop = catalogue[name]
    status = 0
    for count in _counts(players_text, prop.players):
        verdict = check_property(spec, prop, count, Limits(depth, k, seconds))
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


def _prove_invariant(spec: Spec, name: str, players_text: str | None, catalogue: dict[str, Property]) -> None:
    """`prove` for a strengthening invariant: is it in the proved support?"""
    from .smt import backend_for

    counts = _counts(players_text, tuple(spec.player_counts))
    status = 0
    for count in counts:
        backend = backend_for(spec, count)
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


@click.command(name="smt-bench")
@click.option("--players", "-n", "players_text", default="5-10", show_default=True, help="Player counts a-b.")
@click.option("--rules", default="standard", show_default=True, help="Rules file or variant name.")
@click.option("--witnesses", is_flag=True, help="Also find the shortest witness of every `sometimes` property.")
@click.option("--agreement", "states", type=click.IntRange(0, 1_000_000), default=0, show_default=True,
              help="Also compare engine and solver on this many reachable states per player count.")
def smt_bench(players_text: str, rules: str, witnesses: bool, states: int) -> None:
    """Time the Z3 proofs of the catalogue's invariants (cold start per player count), and
    optionally the witnesses and the engine-vs-solver agreement check."""
    from .smt.bench import DECIDED, INVARIANT_KINDS, bench_agreement, bench_proofs

    spec = load_spec(rules)
    counts = _counts(players_text, tuple(spec.player_counts), f"the {spec.name} rules")
    proofs = bench_proofs(rules, counts, INVARIANT_KINDS + (("sometimes",) if witnesses else ()), 1800)
    for line in proofs.lines():
        click.echo(line)
    failed = [f for f in proofs.figures if f.verdict not in DECIDED]
    if states:
        for figure in bench_agreement(rules, counts, states):
            click.echo(f"agreement, {figure.players} players: {figure.states} states, {figure.successors} successors, "
                       f"{figure.moves} judged moves in {figure.seconds:.1f} s "
                       f"({figure.states_per_second:.0f} states/s), {figure.differences} differences")
            if figure.differences:
                raise SystemExit(EXIT_FAILED)
    if failed:
        raise SystemExit(EXIT_FAILED)


COMMANDS = (prove, smt_bench)
