"""A fuzzer of hostile input for the `shrules` command line.

The project's security rule: nothing a file says ever runs. Specs, variants, transcripts,
ITF traces, dispute and property catalogues and command lines come from strangers, so
every bad input must end in one line on stderr with exit status 2 (or a verdict: 0, 1,
3) — never a traceback, never a hang, and nothing outside the run's own directory may
change. This package makes such inputs (seeded, deterministic: `generate.py`), runs each
through `python -m verify` in a fresh directory under limits (`runner.py`) and reports
what went wrong (`report.py`). `python -m tests.fuzz --help` runs it at any size;
tests/test_fuzz.py runs a small slice of it with the rest of the tests.
"""

from .model import BAD_OUTCOMES, KINDS, OUTCOMES, Case, Result

__all__ = ["BAD_OUTCOMES", "KINDS", "OUTCOMES", "Case", "Result"]
