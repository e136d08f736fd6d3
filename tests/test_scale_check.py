"""`shrules check --cache/--scheduler`: the catalogue per count as tasks of the runner gives
the verdicts of the plain check, and a repeated check reads them back."""

from __future__ import annotations

import json
from pathlib import Path


def test_check_on_the_runner_gives_the_verdicts_of_check(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from verify.cli import main
    args = ["check", "-n", "5", "--rules", "custom[deck_liberal=1; deck_fascist=1]", "-p", "draw_finds_three",
            "-p", "terminates", "-p", "fascist_policy_win", "--json"]
    plain = CliRunner().invoke(main, args)
    cached = CliRunner().invoke(main, [*args, "--cache", str(tmp_path)])
    again = CliRunner().invoke(main, [*args, "--cache", str(tmp_path)])
    assert plain.exit_code == cached.exit_code == again.exit_code == 1

    def verdicts(text: str) -> list[tuple[str, str]]:
        return [(item["property"], item["verdict"]) for item in json.loads(text)]
    assert verdicts(plain.stdout) == verdicts(cached.stdout) == verdicts(again.stdout)
    assert len(list(tmp_path.rglob("*.json"))) == 1
    refused = CliRunner().invoke(main, [*args, "--cache", str(tmp_path), "--no-cone"])
    assert refused.exit_code == 2 and "not with --no-* reductions" in refused.stderr


def test_the_solver_backend_on_the_runner_gives_the_verdicts_of_check(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from verify.cli import main
    args = ["check", "-n", "5", "-p", "deck_conservation_liberal", "-p", "majority_elects", "--backend", "smt", "--json"]
    plain = CliRunner().invoke(main, args)
    cached = CliRunner().invoke(main, [*args, "--cache", str(tmp_path)])
    again = CliRunner().invoke(main, [*args, "--cache", str(tmp_path)])
    assert plain.exit_code == cached.exit_code == again.exit_code == 0, cached.output

    def decided(text: str) -> list[tuple[str, str, str]]:
        return [(item["property"], item["verdict"], item["evidence"]["method"]) for item in json.loads(text)]
    assert decided(plain.stdout) == decided(cached.stdout) == decided(again.stdout)
    assert {method for _, _, method in decided(plain.stdout)} - {"explicit"}, "the solver decided them"
    assert len(list(tmp_path.rglob("*.json"))) == 1
