"""`shrules knows`: the no-leak certificate, that what the engine shows a seat is a function
of what the rules showed it (spec/LANGUAGE.md "Who sees what"; R-S5, R-L1-R-L4, R-X3, R-X5).

Exit status: 0 proved at every count asked, 1 a leak was found (the shortest pair of games
is printed), 3 a limit left a count unknown.
"""

from __future__ import annotations

import json

import click

from ..knowledge.beliefs import stderr_progress
from ..knowledge.run import BACKENDS, certify
from ..results import EXIT_FAILED, EXIT_LIMIT, EXIT_OK, KnowledgeVerdict
from ..rules import Rules
from .options import parse_counts, rules_option, time_limit_option


@click.command("knows")
@click.option("--players", "-n", "players_text", default="5", show_default=True,
              help="Player counts: 5, 5-6 or 5,7.")
@rules_option()
@click.option("--backend", type=click.Choice(BACKENDS), default="auto", show_default=True,
              help="The stepwise proof (a seat's view after a move is a function of its view before and what "
                   "the move shows it): auto by one Z3 query per seat and rule under the proved invariants, "
                   "explicit by one pass over the state graph. Where it does not close, auto follows the "
                   "solver's shortest game taking a rule that does not close, for two games a seat cannot tell "
                   "apart with different views; then (and for explicit) the belief search finds the shortest "
                   "leak. smt: the Z3 proof, then two copies of the game in Z3, BMC to --depth.")
@click.option("--depth", type=click.IntRange(0, 400), default=12, show_default=True,
              help="smt: the moves BMC searches before the induction step.")
@time_limit_option(600.0, "Seconds per player count.")
@click.option("--json", "as_json", is_flag=True, help="Print the certificates as JSON.")
def knows_command(players_text: str, rules: str, backend: str, depth: int, time_limit: float,
                  as_json: bool) -> None:
    """Prove that the view the engine gives a seat is a function of what the seat was shown."""
    counts = parse_counts(players_text, range(5, 11)) or (5,)
    loaded = Rules.named(rules)         # once, here: the certificate takes the value
    certificates = [certify(loaded, players, backend, time_limit or None, depth, progress=stderr_progress)
                    for players in counts]
    if as_json:
        click.echo(json.dumps([c.to_json() for c in certificates], indent=1))
    else:
        for certificate in certificates:
            click.echo("\n".join(certificate.lines()))
    verdicts = {c.verdict for c in certificates}
    raise SystemExit(EXIT_FAILED if KnowledgeVerdict.LEAK in verdicts
                     else EXIT_LIMIT if KnowledgeVerdict.UNKNOWN in verdicts else EXIT_OK)


COMMANDS = (knows_command,)
