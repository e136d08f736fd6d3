"""`shrules judge`: judge logged games move by move (engine/judge.py).

One game file prints move by move, each legal or illegal with the rule ID; several (or
a folder) print one line per game and a summary. `--json` prints one JSON object per
game. Exit status: 0 every game judged and legal, 1 a game is illegal, 2 a file is
malformed (one line naming the file and the line; the other files are still judged), 3
no game is illegal but one could not be judged (unsupported: a setting the rules cannot
express, such as 3 or 11 players or Avalon roles), so that a CI gate never passes a game
nobody checked. The worst wins: 2 over 1 over 3.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from engine.importers import FORMATS, game_files
from engine.judge import ILLEGAL, LEGAL, UNSUPPORTED, Judgement, judge_file, rules_identity
from engine.words import word
from spec.errors import SpecError, one_line

from ..results import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_LIMIT, EXIT_OK
from .options import json_option, lang_option, refuse, rules_name, rules_option, variant_options


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path),
                metavar="FILE_OR_DIR...")
@click.option("--format", "fmt", type=click.Choice(["auto", *FORMATS]), default="auto", show_default=True,
              help="Log format: native JSON Lines (.jsonl, engine/TRANSCRIPT.md) or a secrethitler.io game "
                   "summary (.json); auto tells them apart by the extension.")
@json_option("Print one JSON object per game.")
@rules_option(default=None, help_text="Judge by these rules (a rules file or variant name), whatever a log names; "
                                      "a log that names others is judged by these and says so. Default: the "
                                      "rules each log names (a file of the user's is shown with its content hash).")
@variant_options
@lang_option()
def judge(paths: tuple[Path, ...], fmt: str, as_json: bool, rules: str | None, sets: tuple[str, ...],
          settings_file: str | None, lang: str) -> None:
    """Judge logged games move by move against the rules: legal, illegal (with the rule ID
    and the log entry), or unsupported (a setting the rules cannot express).

    Exit status: 0 every game judged and legal, 1 a game is illegal, 2 a file is
    malformed, 3 none illegal but a game could not be judged (unsupported).
    """
    if rules is not None or sets or settings_file:
        rules = rules_name(rules or "standard", sets, settings_file)
        rules_identity(rules)                       # rules that do not load: refused before any game
    files = [file for path in paths for file in game_files(path, fmt)]
    if not files:
        raise SpecError(f"no game files in {', '.join(map(str, paths))} (expected .jsonl or .json)")
    single = len(files) == 1 and not any(path.is_dir() for path in paths)
    counts = {LEGAL: 0, ILLEGAL: 0, UNSUPPORTED: 0}
    malformed = 0
    start = time.perf_counter()
    for file in files:
        try:
            result = judge_file(file, fmt, rules)
        except SpecError as error:
            malformed += 1
            refuse(str(error), as_json)
            continue
        counts[result.verdict] += 1
        if as_json:
            click.echo(json.dumps(result.to_json()))
        elif single:
            for line in result.lines(lang):
                click.echo(line)
        else:
            click.echo(_one_line(result, lang))
    elapsed = time.perf_counter() - start
    if not as_json and not single:
        judged = sum(counts.values())
        rate = word(lang, "rate", rate=judged / elapsed) if elapsed > 0 and judged else ""
        bad = word(lang, "malformed", count=malformed) if malformed else ""
        click.echo(word(lang, "judged", judged=judged, legal=counts[LEGAL], illegal=counts[ILLEGAL],
                        unsupported=counts[UNSUPPORTED], bad=bad, seconds=elapsed, rate=rate))
    if malformed:
        raise SystemExit(EXIT_BAD_INPUT)
    raise SystemExit(EXIT_FAILED if counts[ILLEGAL] else EXIT_LIMIT if counts[UNSUPPORTED] else EXIT_OK)


def _one_line(result: Judgement, lang: str) -> str:
    """A game's line in a run over several: its id, the verdict, and the rules when the
    log asked for others or they came from a file of the user's; every value escaped."""
    rules = f"  [{result.rules_said(lang)}]" if result.rules_asked or result.rules_file else ""
    return one_line(f"{result.game_id}  {result.summary(lang)}{rules}")


COMMANDS = (judge,)
