"""`shrules mutate`: mutation analysis of the rules against the property catalogue.

Generates the mutants of the rules (verify/diff/operators.py), checks the catalogue under
each at each player count asked, and reports each as killed (a verdict changed),
equivalent (no game tells it apart: proved), survived (the shortest game telling it
apart, the rule ID, the mutation in one line) or unknown (a limit). A progress bar on
stderr; the summary on stdout: the score killed/(killed+survived) per player count, per
operator and per rule ID, every survivor in one line. `--json` prints the whole run;
`--report DIR` writes it as DIR/mutation.json, mutation.md and mutation.html
(verify/report/mutation.py), the directory checked before the run starts.

Exit status: 0 every mutant killed or equivalent, 1 a survivor, 2 bad input, 3 a mutant
unknown or left out by --cap. `--record FILE` keeps what a run found; `--gate FILE` is
the CI gate over such a record (verify/diff/gate.py): exit 0 passed, 1 failed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from click.core import ParameterSource

from spec import files
from spec.errors import SpecError, shown
from spec.loader import load_spec
from spec.model import Spec

from ..diff.compare import Budget
from ..diff.gate import explain, judge, load_record, names, record_of, to_run
from ..diff.mutants import run_mutants
from ..diff.mutate import MUTATE_DIFF, Outcome, Spread, analyse, baseline_verdicts, local_spread, rules_hash
from ..diff.operators import ALL_OPERATORS, OPERATOR_SETS, Mutant, mutants
from ..explicit.explore import Limits
from ..report.baseline import REPOSITORY_BASELINES, baseline_path, load_baseline
from ..report.writer import MUTATION_FILES, write_mutation_report
from ..rules import Rules
from ..scale.cache import Cache
from ..scale.kept import kept_spread
from ..scale.run import TlsFiles, spread_on_dask
from .options import (COUNT, SECONDS, cache_option, counts_among, counts_option, json_option, max_states_option,
                      parse_counts, rules_option, scheduler_option, time_limit_option, workers_option)
from .outputs import writable


REPORTS = REPOSITORY_BASELINES


def _generated(spec: Spec, operators: tuple[str, ...], rule_filter: tuple[str, ...]) -> list[Mutant]:
    return mutants(spec, operators or None, rule_filter or None)


@click.command("mutate")
@rules_option()
@counts_option(default="5", help_text="Player counts, e.g. 5 or 5,7,9.")
@click.option("--operator", "operators", multiple=True, type=click.Choice(ALL_OPERATORS + tuple(OPERATOR_SETS)),
              help="Only mutants of this operator (repeatable), or of a set: 'escaped' the operators of the "
                   "shapes small edits missed (not run by default, nor by the gate), 'all' every one, "
                   "'default' those run when none is named.")
@click.option("--rule", "rule_filter", multiple=True,
              help="Only mutants of this rule name or rule ID, e.g. nominate or R-E7 (repeatable).")
@click.option("--mutant", "mutant_numbers", multiple=True, type=click.IntRange(1),
              help="Only the mutant of this number, as a run lists it, e.g. #39 (repeatable).")
@click.option("--property", "properties", multiple=True,
              help="Check only this property of the catalogue (repeatable; default: all).")
@click.option("--cap", type=COUNT, default=None, help="At most this many mutants per player count; "
              "the rest are counted as not run.")
@max_states_option(None)
@time_limit_option(600.0, "Seconds per catalogue check of one mutant.")
@click.option("--base-time-limit", type=SECONDS, default=1800.0, show_default=True,
              help="Seconds for the catalogue check of the rules themselves (when the baseline has no "
                   "verdicts for them).")
@click.option("--baseline", "baseline_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Read the rules' own verdicts from DIRECTORY/RULES/verdicts.json where it decides every "
                   "property (default: the repository's reports/ for the standard rules).")
@click.option("--no-baseline", is_flag=True, help="Check the rules themselves instead of reading the baseline.")
@click.option("--diff-time", type=SECONDS, default=MUTATE_DIFF.seconds, show_default=True,
              help="Seconds of product search deciding equivalent or survived.")
@click.option("--max-pairs", type=COUNT, default=MUTATE_DIFF.max_pairs, show_default=True,
              help="State pairs the product search may store.")
@workers_option(1, "Processes deciding mutants in parallel.")
@click.option("--random-only", is_flag=True,
              help="No complete search: only the random games under each mutant and the solver's proofs of "
                   "equivalence (seconds each); a mutant neither decides is left unknown, never counted as "
                   "survived.")
@click.option("--solver-only", is_flag=True,
              help="Only the solver, with no strengthening invariant written by hand (each inferred for the "
                   "mutant's rules): every property of the catalogue within --time-limit per mutant, the ones it "
                   "leaves unknown named; no search, and no random game decides anything (the solver may follow "
                   "one's rules, or the rules' own games, toward a witness or a violation, which it then finds itself). "
                   "Not killed and not proved equivalent, a "
                   "mutant is unknown. The rules' own verdicts, where no baseline has them, by the solver too.")
@click.option("--until-killed", is_flag=True,
              help="With --solver-only: stop each mutant's check at the first property whose verdict differs "
                   "from the rules' own (one kills it); the properties not asked are not counted as undecided.")
@json_option("Print the run as JSON.", "json_output")
@click.option("--record", "record_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write what the run found (killed, and the status of the others) as the mutation gate's "
                   "record FILE (one player count).")
@click.option("--gate", "gate_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The CI gate: random games only, on the mutants FILE records as killed (each must still "
                   "be killed) and on those it does not know (each must be killed); exit 1 otherwise, with "
                   "the game telling each apart.")
@click.option("--report", "report_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write mutation.json, mutation.md and mutation.html into this directory.")
@click.option("--mistakes", is_flag=True,
              help="The score over the hand-written mistakes of spec/variants/mistakes/ instead: each must be told "
                   "apart from the standard rules by a property it breaks or by shrules diff "
                   "(verify/diff/mutants.py); with -n, its properties at those counts (default: every count).")
@click.option("--quick", is_flag=True, help="With --mistakes: invariants on 5 players and a small diff only.")
@scheduler_option
@cache_option
def mutate_command(rules: str, players_text: str, operators: tuple[str, ...], rule_filter: tuple[str, ...],
                   properties: tuple[str, ...], cap: int | None, max_states: int | None, time_limit: float,
                   diff_time: float, max_pairs: int,
                   workers: int, json_output: bool, base_time_limit: float = 1800.0,
                   baseline_dir: Path | None = None, no_baseline: bool = False, random_only: bool = False,
                   solver_only: bool = False, until_killed: bool = False,
                   record_file: Path | None = None, gate_file: Path | None = None,
                   report_dir: Path | None = None, mutant_numbers: tuple[int, ...] = (),
                   scheduler: str | None = None, cache_dir: str | None = None,
                   scheduler_security: TlsFiles | None = None, mistakes: bool = False,
                   quick: bool = False) -> None:
    """Mutation analysis: does the catalogue notice every small change to the rules?

    With --scheduler or --cache, each mutant's outcome at each count is kept in the cache
    (default folder with --scheduler alone) and read back by a repeated run."""
    if quick and not mistakes:
        raise click.BadParameter("--quick is an effort of --mistakes", param_hint="--quick")
    if mistakes:
        given = click.get_current_context().get_parameter_source("players_text") != ParameterSource.DEFAULT
        raise SystemExit(mistakes_score(rules, players_text if given else None, workers, quick))
    writable(report_dir, "--report", directory=True, inside=MUTATION_FILES)   # refused now, not after an hour
    writable(record_file, "--record")
    loaded = Rules.named(rules)         # once, here: the analysis takes the value
    spec = loaded.spec
    rules_hash(rules)                   # the hash the report gives, of the rules as they are now, before the run
    counts = counts_among(players_text, list(spec.player_counts))
    record, numbers, named = None, None, names(spec)
    if solver_only and (random_only or gate_file is not None):
        raise click.BadParameter("--solver-only decides mutants by the solver alone: not with --random-only "
                                 "or --gate", param_hint="--solver-only")
    if until_killed and not solver_only:
        raise click.BadParameter("--until-killed stops the solver alone at the first kill: only with --solver-only",
                                 param_hint="--until-killed")
    if (record_file or gate_file) and len(counts) != 1:
        raise click.BadParameter("a mutation record is for one player count, e.g. -n 5", param_hint="--players")
    if gate_file is not None:
        try:
            record = load_record(gate_file)
        except SpecError as error:
            raise click.BadParameter(str(error), param_hint="--gate") from None
        if (record.rules, record.players) != (rules, counts[0]):
            raise click.BadParameter(f"{gate_file} records {record.rules} at {record.players} players, not "
                                     f"{rules} at {counts[0]}", param_hint="--gate")
        if operators or rule_filter or cap is not None:
            raise click.BadParameter("the gate runs every mutant its record asks for: no --operator, --rule "
                                     "or --cap", param_hint="--gate")
        if mutant_numbers:
            raise click.BadParameter("the gate runs every mutant its record asks for: no --mutant",
                                     param_hint="--gate")
        numbers, random_only = to_run(record, named), True
    elif mutant_numbers:
        operators = operators or ("all",)      # a number names one mutant of any operator
        numbers = frozenset(mutant_numbers)
        missing = sorted(numbers - {m.number for m in _generated(spec, operators, rule_filter)})
        if missing:
            raise click.BadParameter(f"no mutant #{missing[0]} of {rules} (with the filters given)",
                                     param_hint="--mutant")
    limits = Limits(max_states, time_limit, None)
    verdicts = None
    if baseline_dir is None and rules == "standard":
        baseline_dir = REPORTS
    if baseline_dir is not None and not no_baseline:
        try:
            entries = load_baseline(baseline_path(baseline_dir, rules))
        except SpecError as error:
            raise click.BadParameter(error.message, param_hint="--baseline") from None
        if entries:
            verdicts = baseline_verdicts(entries, spec, counts, properties or None)
    budget = Budget(max_pairs, diff_time, MUTATE_DIFF.random_games, MUTATE_DIFF.random_seconds,
                    first_only=True)
    tty = sys.stderr.isatty()

    def progress(done: int, total: int, outcome: Outcome | None) -> None:
        if outcome is None:
            click.echo(f"checking the catalogue under {rules} ...", err=True)
            return
        width = 30
        filled = width * done // max(total, 1)
        bar = f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total} #{outcome.number} {outcome.status}"
        if tty:
            click.echo("\r" + bar.ljust(70), nl=done == total, err=True)
        elif done == total or done % max(1, total // 20) == 0:   # a log: every 5%, not every mutant
            click.echo(bar, err=True)

    run = analyse(loaded, counts, operators=operators or None, rule_filter=rule_filter or None, cap=cap,
                  limits=limits, budget=budget, workers=workers, properties=properties or None,
                  verdicts=verdicts, base_limits=Limits(max_states, base_time_limit, None),
                  complete=not random_only, progress=progress, numbers=numbers,
                  spread=_spread(scheduler, cache_dir, workers, scheduler_security), solver_only=solver_only,
                  until_killed=until_killed)
    if record is not None:
        verdict = judge(run, record, named)
        explain(spec, verdict.lost + verdict.new, record.players)
        for line in verdict.lines():
            click.echo(line)
        raise SystemExit(0 if verdict.passed else 1)
    if record_file is not None:
        try:    # never through a link (spec/files.py): a link at the name the user gave is refused
            files.write_named(record_file, json.dumps(record_of(run, counts[0], names(spec, ("all",))), indent=1)
                              + "\n")
        except OSError as error:
            raise SpecError(f"cannot write the mutation record {shown(str(record_file))}: "
                            f"{error.strerror or error}") from None
        click.echo(f"mutation record written to {record_file}", err=True)
    if json_output:
        click.echo(json.dumps(run.to_json(), indent=1))
    else:
        for line in run.summary():
            click.echo(line)
    if report_dir is not None:
        written = write_mutation_report(run.to_json(), report_dir)
        click.echo(f"report written to {report_dir}: {', '.join(written.files)}", err=json_output)
    raise SystemExit(run.exit_status)


COMMANDS = (mutate_command,)


def mistakes_score(rules: str, players_text: str | None, workers: int, quick: bool) -> int:
    """`--mistakes`: the score over the hand-written mistakes, which are variants of the
    standard rules; its exit status (0 every mistake told apart, 1 one is not)."""
    if rules != "standard":
        raise click.BadParameter("the hand-written mistakes are variants of the standard rules: no --rules with "
                                 "--mistakes", param_hint="--rules")
    counts = None if players_text is None else parse_counts(players_text, load_spec("standard").player_counts,
                                                            of="the standard rules")
    return run_mutants(counts, workers, quick, click.echo)


def _spread(scheduler: str | None, cache_dir: str | None, workers: int,
            security: TlsFiles | None = None) -> Spread | None:
    """Where the mutants run: local processes as before, unless a cluster or a cache is
    named; then on the cluster (or local processes), each outcome kept (verify/scale/kept.py)."""
    if scheduler is None and cache_dir is None:
        return None
    inner = spread_on_dask(scheduler, security=security) if scheduler is not None else local_spread(workers)
    return kept_spread(inner, Cache(Path(cache_dir) if cache_dir else None))
