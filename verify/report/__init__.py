"""Verification reports and the regression gate (issue 8).

From a list of `verify.results.PropertyResult` and the run's `RunInfo`, `write_report`
writes a report directory: report.json (the verdicts, byte-stable; schema in
report.schema.json and SCHEMA.md), timings.json (the seconds), junit.xml, report.md (a CI
job summary), report.html (one self-contained page with charts) and traces/ (ITF JSON of
every witness and counterexample). `write_mutation_report` writes a mutation analysis
(`shrules mutate --report`): mutation.json (schema in mutation.schema.json), mutation.md
and mutation.html. `baseline` compares verdicts with the committed
`reports/<rules>/verdicts.json`. The command line's --report, --baseline and
--update-baseline options are in verify/cli/options.py; nothing here imports click.
"""

from .baseline import Change, compare, load_baseline, update
from .records import FACT_FIELDS, RunInfo, exit_status, report_document
from .writer import WrittenReport, report_texts, write_mutation_report, write_report

__all__ = ["FACT_FIELDS", "Change", "RunInfo", "WrittenReport", "compare", "exit_status",
           "load_baseline", "report_document", "report_texts", "update", "write_mutation_report", "write_report"]
