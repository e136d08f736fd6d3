"""`python -m tests.fuzz`: the long run of the fuzzer, at any size.

    python -m tests.fuzz --cases 1100 --seed 1 --jobs 2 --json fuzz.json

prints one line per case as it ends, then the table of cases per input kind and outcome
and every distinct failure with its smallest example. `--only IDENT --keep DIR` runs one
case again and leaves its directory (inputs, stdout, stderr) in DIR to look at. Exit
status 0 when no case failed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from . import corpus as corpus_module
from . import generate, report, runner
from .model import KINDS, Result

DEFAULT_CASES = 100


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=int(os.environ.get("SHRULES_FUZZ_CASES", DEFAULT_CASES)),
                        help="cases in all, the known ones included (default: $SHRULES_FUZZ_CASES or 100)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the generated cases (default 1)")
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once (default 2)")
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"input kinds, comma-separated: {', '.join(KINDS)}")
    parser.add_argument("--timeout", type=float, default=runner.DEFAULT_TIMEOUT, help="seconds per case (default 20)")
    parser.add_argument("--memory-gib", type=float, default=4.0, help="address-space limit per case (default 4)")
    parser.add_argument("--json", type=Path, help="write every result and the distinct failures here")
    parser.add_argument("--only", action="append", default=[], metavar="IDENT", help="run only this case (repeatable)")
    parser.add_argument("--keep", type=Path, metavar="DIR", help="keep each case's directory under DIR")
    parser.add_argument("--no-known", action="store_true", help="leave out the hand-written known cases")
    parser.add_argument("--quiet", action="store_true", help="no line per case")
    parser.add_argument("--report-from", type=Path, metavar="JSON", help="print the table and failures of a "
                        "run saved with --json, without running anything")
    return parser.parse_args(argv)


def _project_state() -> dict[str, tuple[int, int]]:
    """Size and modification time of every project source file: a run must change none."""
    out: dict[str, tuple[int, int]] = {}
    for folder in ("spec", "engine", "verify"):
        for path in (corpus_module.ROOT / folder).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                info = path.stat()
                out[str(path.relative_to(corpus_module.ROOT))] = (info.st_size, info.st_mtime_ns)
    return out


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    if args.report_from:
        results, info = report.load(args.report_from)
        print(f"{len(results)} cases, seed {info.get('seed')}, {info.get('jobs')} job(s), {info.get('seconds')} s")
        print(report.table(results))
        print()
        print(report.failures(results))
        return 1 if any(r.bad for r in results) else 0
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        print(f"unknown kinds: {', '.join(unknown)}", file=sys.stderr)
        return 2
    data = corpus_module.build(sys.executable, with_traces="itf" in kinds)
    if data.shio_skip and "shio" in kinds:
        print(f"shio cases skipped: {data.shio_skip}", file=sys.stderr)
    if args.only:
        cases = [generate.by_ident(name, data) for name in args.only]
    else:
        cases = generate.cases(args.seed, args.cases, data, kinds, with_known=not args.no_known)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    settings = runner.new_settings(sys.executable, args.timeout, int(args.memory_gib * (1 << 30)),
                                   base=args.keep, keep=args.keep is not None)
    before = _project_state()
    started = time.monotonic()

    def progress(done: int, result: Result) -> None:
        if not args.quiet:
            mark = "" if not result.bad else f"  <- {result.signature}"
            print(f"[{done}/{len(cases)}] {result.ident:<22} {result.family:<34} {result.outcome:<9} "
                  f"{result.seconds:6.1f}s{mark}", flush=True)

    results = runner.run_all(cases, settings, args.jobs, progress)
    elapsed = time.monotonic() - started
    idents = {f"PWNED_{c.ident}" for c in cases}
    strays = [name for name in runner.stray_canaries(settings) if name not in idents]
    changed = sorted(k for k, v in _project_state().items() if before.get(k) != v)
    changed += sorted(set(before) - set(_project_state()))
    runner.cleanup(settings)
    print()
    print(f"{len(results)} cases, seed {args.seed}, {args.jobs} job(s), {elapsed:.0f} s")
    print(report.table(results))
    print()
    print(report.failures(results))
    for name in strays:
        print(f"escape: {name} in the canary directory, created by no case's own process")
    for name in changed:
        print(f"escape: project file {name} changed during the run")
    if args.keep:
        print(f"case directories kept in {settings.base}")
    if args.json:
        report.write_json(args.json, results, {"seed": args.seed, "cases": len(results), "jobs": args.jobs,
                                               "seconds": round(elapsed, 1), "timeout": args.timeout,
                                               "shio_skipped": data.shio_skip, "stray_canaries": strays,
                                               "project_changed": changed})
    return 1 if any(r.bad for r in results) or strays or changed else 0


if __name__ == "__main__":
    sys.exit(main())
