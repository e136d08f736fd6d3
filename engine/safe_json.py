"""JSON from a user, read so that no input can end in a traceback or cost unbounded memory.

`json.loads` raises more than `JSONDecodeError`: a number over 4,300 digits is a plain
`ValueError` (Python's limit on converting long digit strings), and nesting deeper than
the interpreter's stack a `RecursionError`. Every reader of user JSON (transcripts,
secrethitler.io summaries, ITF traces, `ask --move`, baselines) goes through `loads` or
`read_json`, which turn all of them into one `SpecError` naming the input and the line,
and read files through `spec.errors.read_text`, which refuses more than 16 MiB.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from spec.errors import Location, SpecError, read_text

MAX_DIGITS = 4_300
"""Python refuses to convert a longer digit string to an int (sys.get_int_max_str_digits)."""
_LONG_NUMBER = re.compile(r"\d{%d,}" % (MAX_DIGITS + 1))


def loads(text: str, source: str, line: int | None = None) -> Any:
    """The JSON value of `text`, or a `SpecError` at `source` (and `line`: the line of the
    text when it is one line of a file, else the line the parser stopped at)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        where = Location(source, line if line is not None else error.lineno)
        raise SpecError(f"not valid JSON: {error.msg} (column {error.colno})", where) from None
    except ValueError:
        raise SpecError(f"a number of more than {MAX_DIGITS:,} digits; expected a whole number of a few digits",
                        Location(source, line if line is not None else _line_of_long_number(text))) from None
    except RecursionError:
        raise SpecError("JSON nested too deeply; expected objects and lists a few levels deep",
                        Location(source, line)) from None


def read_json(path: str | Path) -> Any:
    """The JSON value of a file: at most 16 MiB of UTF-8, else a `SpecError` naming it."""
    return loads(read_text(path), str(path))


def _line_of_long_number(text: str) -> int | None:
    match = _LONG_NUMBER.search(text)
    return None if match is None else text.count("\n", 0, match.start()) + 1
