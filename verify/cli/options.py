"""What the commands share: player counts, the rules and their settings, limits, the report.

Every `shrules` command takes its common options from here, so that `--players 5-7` or
`--set NAME=VALUE` mean the same to each of them and no command module imports another:

- player counts: `parse_counts` (`5-7`, `5,6,8`, `6`), `counts_among` (the same, checked
  against the counts something is stated for) and `players_option` (one count);
- the rules: `rules_option` (`--rules NAME`), `variant_options` (`--set NAME=VALUE`,
  `--settings FILE`) and `rules_name`, which folds the settings into the rules name in its
  canonical form, `custom[deck_fascist=10; powers=...]`: every command and the engine's
  cache load it like any other name, and a saved trace that records it replays;
- limits: `max_states_option`, `time_limit_option` (`--time-limit`, the one name of a time
  limit; `--seconds` still works), `memory_limit_option`;
- processes and output: `workers_option`, `json_option`, `lang_option`, `langs_option`;
- the report: `report_options` (`--report DIR`, `--baseline DIR`, `--update-baseline`) hands
  the command one `ReportRequest`, whose `finish` writes the report, compares with (or
  rewrites) the baseline, prints what changed, and returns the exit status:

      @click.command()
      @report_options
      def check(..., report: ReportRequest) -> None:
          report.validate(rules_name)                 # bad baseline: exit 2 before the long run
          results = ...                               # list[PropertyResult]
          raise SystemExit(report.finish(results, RunInfo(rules_name, counts, backend)))

  0 every verdict as expected and none changed; 1 a verdict not as expected or changed
  since the baseline; 3 a limit was hit (unknown) and nothing else went wrong. Bad input
  (an unreadable or malformed baseline, a missing one without --update-baseline) raises
  `SpecError`, which the shrules group turns into exit 2.
"""

from __future__ import annotations

import functools
import io
import json
import math
import os
import re
import shutil
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO, TypeVar

import click

from engine.words import LANGS
from spec.errors import Location, SpecError, one_line, shown
from spec.identity import content_hash
from spec.loader import SETTINGS_NAME, load_spec
from spec.settings import describe_settings, load_settings_file, parse_assignments, parse_value, settings_name
from verify.results import EXIT_BAD_INPUT, PropertyResult

from ..report import baseline
from ..report.records import RunInfo, exit_status
from ..report.writer import REPORT_FILES, TRACES_DIR, write_report
from ..scale.run import TlsFiles, exposed, load_security
from .outputs import writable

FC = TypeVar("FC", bound=Callable[..., Any])


# ---------------------------------------------------------------------- player counts


MAX_PLAYERS = 99
"""The most players any command accepts when no rules bound the count."""


def parse_counts(text: str | None, allowed: Sequence[int] | None = None, option: str = "--players",
                 of: str = "the rules", rule: str | None = "R-S1") -> tuple[int, ...] | None:
    """`5-7`, `5,6,8` or `6` as a tuple of player counts (None: the rules' counts).

    Every command's --players goes through here. Each count and range is checked against
    `allowed` (the counts of the rules or the property, `of` in the message) before it is
    expanded, so `1-1000000000` is refused at once instead of filling memory, and a
    reversed range `7-5` is a mistake rather than a silent 5-7. `rule` is the rule ID
    that sets the counts (R-S1 for rules; None for a property's own counts)."""
    if not text:
        return None
    low_all, high_all = (min(allowed), max(allowed)) if allowed else (1, MAX_PLAYERS)
    cite = f"{rule}: " if rule else ""
    counts: list[int] = []
    for part in text.split(","):
        match = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", part)
        if not match:
            raise SpecError(f"expected player counts like 5-7 or 5,6,8, got {shown(text)}", Location(option))
        low, high = (_count(digits) for digits in (match.group(1), match.group(2) or match.group(1)))
        if low > high:
            raise SpecError(f"the range {low}-{high} is reversed; expected the smaller count first ({high}-{low})",
                            Location(option))
        if low < low_all or high > high_all:
            said = shown(part.strip(), 20).strip("'")
            verb = "is not a player count of" if match.group(2) is None else "goes outside the player counts of"
            raise SpecError(f"{said} {verb} {of} ({cite}stated for {low_all}-{high_all} players)", Location(option))
        counts.extend(range(low, high + 1))
    bad = [count for count in counts if allowed and count not in allowed]
    if bad:
        raise SpecError(f"{bad[0]} is not a player count of {of} ({cite}stated for "
                        f"{', '.join(map(str, allowed or ()))} players)", Location(option))
    return tuple(sorted(set(counts)))


def _count(digits: str) -> int:
    """A count of at most six digits (longer ones are out of range anyway, and a digit
    string over 4,300 characters cannot even be converted)."""
    return int(digits) if len(digits) <= 6 else 10 ** 6


def counts_among(text: str | None, allowed: Sequence[int], of: str = "the rules",
                 rule: str | None = "R-S1") -> tuple[int, ...]:
    """The player counts `text` names, checked against `allowed` (every allowed one
    without it); `of` says whose counts they are, e.g. "this property" (rule None)."""
    return parse_counts(text, allowed, of=of, rule=rule) or tuple(allowed)


def lang_option(help_text: str = "The language of the output: English, or German in the refresher's words "
                                   "(what the spec has only in English is marked [en]).") -> Callable[[FC], FC]:
    """`--lang en|de`: the language of game records, reasons and answers (engine/words.py)."""
    return click.option("--lang", type=click.Choice(list(LANGS)), default="en", show_default=True, help=help_text)


def langs_option(help_text: str) -> Callable[[FC], FC]:
    """`--lang en|de|en,de` (default both): the languages a reference (`rules`, `words`) is
    printed in, received as `langs`, a tuple in the order given."""
    def parse(ctx: click.Context, param: click.Parameter, text: str) -> tuple[str, ...]:
        langs = tuple(part.strip() for part in text.split(","))
        if not all(lang in LANGS for lang in langs) or len(set(langs)) != len(langs):
            raise SpecError(f"--lang {shown(text)}: expected {', '.join(LANGS)} or {','.join(LANGS)}")
        return langs
    return click.option("--lang", "langs", default=",".join(LANGS), show_default=True, metavar="en|de|en,de",
                        callback=parse, help=help_text)


def players_option(default: int | None = 7, required: bool = False) -> Callable[[FC], FC]:
    """`--players/-n N`: one player count."""
    return click.option("--players", "-n", type=click.IntRange(1, MAX_PLAYERS), default=default,
                        show_default=default is not None, required=required,
                        help="Number of players (R-S1: 5-10 in the standard rules).")


def counts_option(dest: str = "players_text", default: str | None = None,
                  help_text: str = "Player counts, e.g. 7, 5-7 or 5,6,8 (default: every count of the rules, "
                                   "R-S1).") -> Callable[[FC], FC]:
    """`--players/-n COUNTS`: player counts as text (`5-7`, `5,6,8`, `6`), received as
    `dest` and read by `parse_counts` or `counts_among` against what the command checks."""
    return click.option("--players", "-n", dest, default=default, show_default=default is not None,
                        metavar="COUNTS", help=help_text)


def json_option(help_text: str, dest: str = "as_json") -> Callable[[FC], FC]:
    """`--json`: the command's output as JSON, received as `dest`; its bad input is then
    JSON on stdout as well (verify/cli/__init__.py)."""
    return click.option("--json", dest, is_flag=True, help=help_text)


# ---------------------------------------------------------------------- the rules and their settings


def rules_option(*aliases: str, dest: str = "rules", help_text: str = "Rules file or variant name.",
                 default: str | None = "standard") -> Callable[[FC], FC]:
    """`--rules NAME` (default: the standard rules; None: the command decides), received as `dest`."""
    return click.option("--rules", *aliases, dest, default=default, show_default=default is not None,
                        help=help_text)


DEFAULT_VARIANT = "custom"
"""The variant `--set` applies to when the rules named are the standard ones."""


def variant_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """Add `--set NAME=VALUE` (repeatable) and `--settings FILE` to a click command; the
    command receives them as `sets` (a tuple of texts) and `settings_file`."""
    help_text = ("A custom-game setting, e.g. --set powers=investigate,none,peek,execution,execution "
                 "(repeatable; applies to the custom variant unless the rules named are another). Settings: "
                 + "; ".join(describe_settings()))

    @click.option("--set", "sets", multiple=True, metavar="NAME=VALUE", help=help_text)
    @click.option("--settings", "settings_file", type=click.Path(dir_okay=False), default=None,
                  help="A TOML file of settings (name = value, at the top or under [settings]).")
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return function(*args, **kwargs)
    return wrapper


def rules_name(rules: str, sets: tuple[str, ...] = (), settings_file: str | None = None) -> str:
    """The rules name with the settings folded in (the name itself when there are none).
    Settings given for the standard rules apply to the `custom` variant; settings of the
    file come first, `--set` overrides them. Raises `SpecError` for a bad setting."""
    values: dict[str, Any] = {}
    if settings_file:
        values.update(load_settings_file(settings_file))
    values.update(parse_assignments(list(sets)))
    if not values:
        return rules
    base = rules
    match = SETTINGS_NAME.match(rules)
    if match:
        base = match.group(1)
        inline = parse_assignments([part for part in match.group(2).split(";") if part.strip()], f"{base}[...]:")
        values = {**inline, **values}
    if base == "standard":
        base = DEFAULT_VARIANT
    if not re.fullmatch(r"[A-Za-z0-9_/.-]+", base):
        raise SpecError(f"settings need a rules name or path without spaces or brackets, got {shown(base)}")
    for name, value in values.items():
        parse_value(name, value)
    return settings_name(base, values)


# ---------------------------------------------------------------------- colour


def color_option(function: FC) -> FC:
    """`--no-color`: plain text even on a terminal (as the `NO_COLOR` variable asks too)."""
    return click.option("--no-color", "no_color", is_flag=True,
                        help="No colour, even on a terminal (NO_COLOR in the environment does the same).")(function)


def use_color(no_color: bool = False, stream: TextIO | None = None) -> bool:
    """Whether to colour what goes to `stream` (stdout): only on a terminal, and never with
    `--no-color` or a non-empty `NO_COLOR` (no-color.org), so a pipe, a file or a log reads
    plain text."""
    stream = stream if stream is not None else sys.stdout
    return not no_color and not os.environ.get("NO_COLOR") and stream.isatty()


VERDICT_COLOURS = {"yes": "green", "ja": "green", "no": "red", "nein": "red", "proved": "green",
                   "witness": "green", "no-witness": "red", "refuted": "red", "unknown": "yellow",
                   "unbekannt": "yellow"}
"""The colour of a verdict's word (verify/results.py, and an answer's yes or no): green
proved or found, red refuted or never, yellow undecided. A cell not as expected is marked
`!` besides, so the colour is never the only sign."""


def coloured(text: str, colour: bool) -> str:
    """`text` with its verdict words coloured (`VERDICT_COLOURS`), when `colour` is on."""
    if not colour:
        return text
    def paint(match: re.Match[str]) -> str:
        word = match.group(0)
        return click.style(word, fg=VERDICT_COLOURS[word.lower()], bold=True)
    words = "|".join(sorted(map(re.escape, VERDICT_COLOURS), key=len, reverse=True))
    return re.sub(r"(?<![\w-])(" + words + r")(?![\w-])", paint, text, flags=re.IGNORECASE)


# ---------------------------------------------------------------------- errors


def refuse(message: str, as_json: bool = False) -> int:
    """Bad input reported: one error line on stderr (and with `as_json` the same as JSON on stdout); the exit
    status of bad input."""
    # Each line escaped on its own: a `SpecError` is its one line, then the caret under the
    # expression it quotes, and a control sequence in either is shown, never sent.
    shown_lines = "\n".join(one_line(line) for line in message.split("\n"))
    click.echo(f"shrules: error: {shown_lines}", err=True)
    if as_json:
        click.echo(json.dumps({"error": message, "exit": EXIT_BAD_INPUT}, ensure_ascii=False))
    return EXIT_BAD_INPUT


# ---------------------------------------------------------------------- progress


class StatusLine:
    """One line on a terminal's stderr saying what is being decided and the time left,
    redrawn every half second in place and erased at the end: on a terminal a question
    that takes two minutes is not two minutes of silence. Where stderr is not a terminal
    (a script, a CI log, a test) it writes nothing at all.

        with StatusLine("can liberal_policies > 5 happen?", seconds=120) as status:
            status.update("5 players: searching")
    """

    TICK = 0.5

    def __init__(self, what: str, seconds: float | None = None, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty()
        self.what = what
        self.detail = ""
        self.seconds = seconds
        self.started = time.monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "StatusLine":
        if self.enabled:
            self._thread = threading.Thread(target=self._run, name="status line", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop drawing and erase the line (before the answer is printed below it)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
            self.stream.write("\r\x1b[K")
            self.stream.flush()

    def update(self, detail: str) -> None:
        """What the work is doing now (shown after what is being decided)."""
        self.detail = detail

    def text(self) -> str:
        """The line as drawn: what, the step now, the time spent and left."""
        spent = time.monotonic() - self.started
        left = f", {max(0.0, self.seconds - spent):.0f} s left" if self.seconds is not None else ""
        detail = f" — {self.detail}" if self.detail else ""
        return f"… {spent:.0f} s{left} · {self.what}{detail}"     # the time first: a narrow terminal cuts the end

    def _run(self) -> None:
        while not self._stop.wait(self.TICK):
            width = shutil.get_terminal_size((100, 20)).columns - 1
            self.stream.write("\r\x1b[K" + self.text()[:width])
            self.stream.flush()


LOG_EVERY = 60.0
"""Seconds between two progress lines when stderr is not a terminal."""


def progress_stream() -> TextIO:
    """Where a progress bar draws: stderr on a terminal; nowhere otherwise, so a script or
    a CI log reads only results and, on bad input found during the run, one error line."""
    return sys.stderr if sys.stderr.isatty() else io.StringIO()


# ---------------------------------------------------------------------- where many checks run


def scheduler_option(function: FC) -> FC:
    """`--scheduler ADDRESS` and `--scheduler-security FILE`: run the tasks on a Dask
    cluster (verify/scale/run.py), over TLS with the files FILE names; the command
    receives `scheduler` (the address) and `scheduler_security` (`TlsFiles` or None).
    An address that is neither TLS nor on this machine is warned about in one line."""
    function = click.option("--scheduler-security", "scheduler_security", metavar="FILE", default=None,
                            callback=_security_file, expose_value=True,
                            help="A TOML file naming the TLS files to reach the scheduler with: ca_file, "
                                 "cert_file, key_file (paths relative to the file). Without it, Dask's own "
                                 "configuration applies. The scheduler and its workers can run code here: "
                                 "SECURITY.md.")(function)
    return click.option("--scheduler", metavar="ADDRESS", default=None, callback=_scheduler_address,
                        help="Run the checks on the Dask cluster whose scheduler listens here, e.g. "
                             "tls://10.0.0.5:8786 (README: running on a Dask cluster).")(function)


def _security_file(context: click.Context, parameter: click.Parameter, value: str | None) -> TlsFiles | None:
    """The TLS files of `--scheduler-security`, checked before the work starts."""
    return None if value is None else load_security(value)


def _scheduler_address(context: click.Context, parameter: click.Parameter, value: str | None) -> str | None:
    """The scheduler's address, with one warning line when it is exposed (`exposed`)."""
    if value is not None and exposed(value):
        click.echo(f"shrules: warning: --scheduler {one_line(shown(value))} is neither TLS nor on this machine: "
                   f"whoever can reach it can run code on the workers and in shrules (use tls:// with "
                   f"--scheduler-security, a private network or loopback; SECURITY.md)", err=True)
    return value


def cache_option(function: FC) -> FC:
    """`--cache DIR`: where task results are kept between runs (verify/scale/cache.py)."""
    return click.option("--cache", "cache_dir", type=click.Path(file_okay=False), default=None,
                        help="Where results are kept between runs (default: $SHRULES_CACHE/tasks, else "
                             "~/.cache/shrules/tasks).")(function)


MAX_WORKERS = 256
"""The most local worker processes any command starts."""


def workers_option(default: int = 2, help_text: str = "Local worker processes (they start as "
                                                        "SHRULES_START_METHOD says, else the platform's way).",
                   ) -> Callable[[FC], FC]:
    """`--workers N`: local worker processes (verify/workers.py), 1 to `MAX_WORKERS`."""
    return click.option("--workers", type=click.IntRange(1, MAX_WORKERS), default=default, show_default=True,
                        help=help_text)


def scale_options(function: FC) -> FC:
    """`--workers`, `--scheduler`, `--cache`: where the tasks run and where results are kept."""
    function = cache_option(scheduler_option(function))
    return workers_option(2, "Local processes (without --scheduler).")(function)


# ---------------------------------------------------------------------- limits


class Seconds(click.FloatRange):
    """A time limit: a finite number of seconds above 0. Zero or less would stop every
    search before it starts (or, where 0 once meant "no limit", hide a typo), and `nan`
    compares false with every clock reading, so a search given it would never stop."""

    name = "seconds"

    def __init__(self, low: float = 0.0) -> None:
        super().__init__(min=low, min_open=low == 0.0)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{shown(value)} is not a finite number of seconds", param, ctx)
        return number


class Share(click.FloatRange):
    """A probability or a share of one: a finite number from 0 to 1. `nan` passes a range
    (it compares false with both ends) and would make every comparison with it false: a
    search for the closest odds to it would take none as closer."""

    name = "share"

    def __init__(self) -> None:
        super().__init__(min=0.0, max=1.0)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{shown(value)} is not a number from 0 to 1", param, ctx)
        return number


SECONDS = Seconds()
"""The type of every time limit (`time_limit_option`, and the limits of one part of a run).""" 
COUNT = click.IntRange(min=1)
"""The type of every limit that counts (--max-states, --max-pairs): at least 1."""


def max_states_option(default: int | None) -> Callable[[FC], FC]:
    """`--max-states N`: stored states per search (None: no limit)."""
    return click.option("--max-states", type=COUNT, default=default, show_default=default is not None,
                        help="Stored states per search.")


class AliasedOption(click.Option):
    """An option whose names after the first are old spellings that still work: `--help`
    (and so docs/reference/commands.md) shows the first alone."""

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        names = self.opts
        self.opts = names[:1]
        try:
            return super().get_help_record(ctx)
        finally:
            self.opts = names

    def get_error_hint(self, ctx: click.Context | None) -> str:
        """The option's name in an error: its own, which its old spelling stands for."""
        return f"'{self.opts[0]}'"


OLD_TIME_LIMIT = "--seconds"
"""The name some commands gave their time limit before `--time-limit` was the one name;
kept working, unlisted, so that older scripts still run (docs/reference/README.md)."""


def time_limit_option(default: float | None, help_text: str, dest: str = "time_limit") -> Callable[[FC], FC]:
    """`--time-limit SECONDS` (a finite number above 0; `nan`, `inf`, 0 and less are bad
    input), received as `dest`; `--seconds` is the same option under its old name. None:
    no default (the command says in `help_text` what it does without one)."""
    return click.option("--time-limit", OLD_TIME_LIMIT, dest, cls=AliasedOption, type=SECONDS, default=default,
                        show_default=default is not None, metavar="SECONDS", help=help_text)


def memory_limit_option(default: int | None,
                        help_text: str = "Resident MiB per search process at which a search stops (its "
                                         "verdicts unknown).") -> Callable[[FC], FC]:
    """`--memory-limit MIB`: at least 64 (None: no limit)."""
    return click.option("--memory-limit", type=click.IntRange(64), default=default, show_default=default is not None,
                        metavar="MIB", help=help_text)


# ---------------------------------------------------------------------- the report and the baseline

DEFAULT_BASELINE = Path("reports")


@dataclass(frozen=True, slots=True)
class ReportRequest:
    """What the command line asked for: a report directory, a baseline to compare with or
    to rewrite. All empty: nothing is written and the exit status is the verdicts' own."""

    report_dir: Path | None = None
    baseline_dir: Path | None = None
    update_baseline: bool = False

    @property
    def baseline_root(self) -> Path | None:
        """The baseline directory in use: --baseline, or reports/ for a bare --update-baseline."""
        if self.baseline_dir is not None:
            return self.baseline_dir
        return DEFAULT_BASELINE if self.update_baseline else None

    def validate(self, rules: str) -> None:
        """Refuse a report or baseline that cannot be used, before any checking is done.
        `rules` is the name or path the rules are loaded by (what --rules gave)."""
        rules = rules_identity(rules)[0]  # loads the rules now, before the run: finish reuses name and hash
        writable(self.report_dir, "--report", directory=True, inside=(*REPORT_FILES, f"{TRACES_DIR}/"))
        root = self.baseline_root
        if self.update_baseline:
            writable(root, "--baseline", directory=True)
        if root is None:
            return
        if root.exists() and not root.is_dir():
            raise SpecError(f"--baseline {root}: not a directory")
        path = baseline.baseline_path(root, rules)
        found = baseline.load_baseline(path)        # SpecError when malformed
        if found is None and not self.update_baseline:
            raise SpecError(f"no baseline for the {rules} rules: {path} does not exist; "
                            f"create it with --baseline {root} --update-baseline")

    def finish(self, results: Sequence[PropertyResult], run: RunInfo,
               echo: Callable[[str], Any] = click.echo) -> int:
        """Write the report, compare with or update the baseline, print the changes; the exit status.
        `run.rules` is the name or path the rules were loaded by; the report names them by
        their own name and their content hash."""
        self.validate(run.rules)
        name, digest = rules_identity(run.rules)
        run = replace(run, rules=name, rules_hash=digest)
        changes: list[baseline.Change] = []
        root = self.baseline_root
        if root is not None and self.update_baseline:
            path, written = baseline.update(root, results, run)
            echo(f"baseline {path}: rewritten, {_changes(len(written))}")
            for change in written:
                echo(f"  {change}")
        elif root is not None:
            path = baseline.baseline_path(root, run.rules)
            found = baseline.load_baseline(path) or {}
            changes = baseline.compare(found, results, run)
            if changes:
                echo(f"baseline {path}: {_changes(len(changes))} (old → new):")
                for change in changes:
                    echo(f"  {change}")
                echo(f"if the change is intended, rewrite the baseline with --baseline {root} --update-baseline")
            else:
                echo(f"baseline {path}: no verdict changed ({len(results)} compared)")
        if self.report_dir is not None:
            written_report = write_report(results, self.report_dir, run, changes)
            traces = sum(1 for name in written_report.files if name.startswith("traces/"))
            echo(f"report written to {self.report_dir}: report.md, report.html, junit.xml, report.json, "
                 f"timings.json, {traces} trace{'' if traces == 1 else 's'}")
        return exit_status(results, changes)


@functools.lru_cache(maxsize=64)
def rules_identity(rules: str) -> tuple[str, str]:
    """The rules' own name (`spec/variants/rebalance.toml` → `rebalance`), which names the
    baseline directory and the report, and their content hash (spec/identity.py), which
    the report gives beside it; `SpecError` when the rules do not load. Cached, so the
    name and hash found before a run are those after it, whatever happens to the files."""
    spec = load_spec(rules)
    return spec.name, content_hash(spec)


def rules_own_name(rules: str) -> str:
    """The rules' own name (`rules_identity`)."""
    return rules_identity(rules)[0]


def _changes(count: int) -> str:
    return "no verdict changed" if count == 0 else f"{count} verdict{'' if count == 1 else 's'} changed"


REPORT_OPTIONS = (
    click.option("--report", "report_dir", type=click.Path(file_okay=False, path_type=Path),
                 help="Write report.json, junit.xml, report.md, report.html, timings.json and traces/ "
                      "into this directory."),
    click.option("--baseline", "baseline_dir", type=click.Path(file_okay=False, path_type=Path),
                 help="Compare the verdicts with DIR/<rules>/verdicts.json; any change exits 1 "
                      "and is printed as property, players: old → new."),
    click.option("--update-baseline", is_flag=True,
                 help="Rewrite the baseline (--baseline DIR, default reports/) with this run's verdicts."),
)


def report_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """Add --report, --baseline and --update-baseline to a click command; the command
    receives them as one keyword argument `report: ReportRequest`."""
    @functools.wraps(function)
    def wrapper(*args: Any, report_dir: Path | None, baseline_dir: Path | None, update_baseline: bool,
                **kwargs: Any) -> Any:
        return function(*args, report=ReportRequest(report_dir, baseline_dir, update_baseline), **kwargs)

    decorated: Callable[..., Any] = wrapper
    for option in reversed(REPORT_OPTIONS):
        decorated = option(decorated)
    return decorated
