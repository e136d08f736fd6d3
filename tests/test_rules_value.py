"""The rules travel as a value below the command line, never as a name to load again.

A command loads the rules it is given once, at its edge (verify/cli, `Rules.named`), and
every room below takes the `Rules` value (verify/rules.py): the `Spec`, the name it was
loaded by, its content hash, and the overlay registered for it. A name handed down and
loaded again below would load whatever the file holds by then, and in a worker started
by `spawn` would miss an overlay registered in the parent. The finder below keeps out of
verify/ (the command line and verify/rules.py aside) every parameter `spec_name`, and
every parameter typed `str` that a function passes to a loader (`load_spec`,
`compiled_game`, `Rules.named`). Where a name is data (a task's or a kept entry's key, a
mutant's file) or a command still passes one down (`diff`), the place is listed in
`KNOWN` with why: a place that no longer loads by name must leave the list.
"""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import pytest

from spec.errors import SpecError
from verify.rules import Rules

ROOT = Path(__file__).resolve().parents[1]
VERIFY = ROOT / "verify"
LOADERS = frozenset({"load_spec", "compiled_game"})
STRING = frozenset({"str", "str | None", "None | str", "Optional[str]"})

KNOWN: dict[str, str] = {
    "verify/diff/compare.py:compare_verdicts(a_name)": "shrules diff (verify/cli/diff.py) passes names",
    "verify/diff/compare.py:compare_verdicts(b_name)": "shrules diff (verify/cli/diff.py) passes names",
    "verify/diff/mutants.py:catch_mutant(name)": "a mutant is named by its file (mutant_names)",
    "verify/diff/mutants.py:catch_mutant(base_name)": "the mutants' base, named beside their files",
    "verify/diff/mutate.py:_decide_numbered(rules)": "a numbered mutant's worker task names its base",
    "verify/diff/mutate.py:rules_hash(rules)": "a mutation run's report names its rules (Run.rules)",
    "verify/explicit/check.py:monitored_game(rules)": "a property names its monitored rules (Property.rules)",
    "verify/scale/kept.py:_mutants(rules)": "a kept entry names its rules (its key)",
    "verify/scale/tasks.py:rules_digest(rules)": "a task names its rules (its key)",
    "verify/scale/tasks.py:content_hash(rules)": "a task names its rules; loaded afresh to hash what is there now",
    "verify/scale/tasks.py:canonical_form(rules)": "a task names its rules (its key)",
}
"""Where a name is still loaded below the command line, and why (module docstring)."""


def _loads(call: ast.Call) -> bool:
    """Whether `call` loads rules by a name: `load_spec(...)`, `compiled_game(...)`, `Rules.named(...)`."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in LOADERS
    if isinstance(func, ast.Attribute):
        return func.attr in LOADERS or (func.attr == "named" and isinstance(func.value, ast.Name)
                                        and func.value.id == "Rules")
    return False


def loaded_by_name(source: str) -> list[tuple[str, str, int]]:
    """(function, parameter, line) of each parameter `spec_name`, and of each parameter
    typed `str` that its function passes to a loader (in any argument's expression)."""
    found: list[tuple[str, str, int]] = []
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        arguments = function.args
        every = arguments.posonlyargs + arguments.args + arguments.kwonlyargs
        found += [(function.name, p.arg, function.lineno) for p in every if p.arg == "spec_name"]
        named = {p.arg for p in every if p.annotation is not None and ast.unparse(p.annotation) in STRING} - {"spec_name"}
        for node in ast.walk(function):
            if isinstance(node, ast.Call) and _loads(node):
                for argument in (*node.args, *(keyword.value for keyword in node.keywords)):
                    used = {name.id for name in ast.walk(argument) if isinstance(name, ast.Name)} & named
                    found += [(function.name, parameter, node.lineno) for parameter in sorted(used)]
    return found


def _below_the_command_line() -> dict[str, int]:
    """Every place of verify/ below the command line that loads rules by a name it was
    given, as `path:function(parameter)`, with its line."""
    out: dict[str, int] = {}
    for path in sorted(VERIFY.rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith("verify/cli/") or relative == "verify/rules.py":
            continue
        for function, parameter, line in loaded_by_name(path.read_text(encoding="utf-8")):
            out.setdefault(f"{relative}:{function}({parameter})", line)
    return out


def test_the_finder_sees_a_name_loaded_below() -> None:
    source = ("def a(spec_name: str) -> None: ...\n"
              "def b(rules: str) -> None:\n    load_spec(rules)\n"
              "def c(rules: str | None, players: int) -> None:\n    compiled_game(players, rules or 'standard')\n"
              "def d(name: str) -> None:\n    Rules.named(name)\n"
              "def e(rules: Rules, name: str) -> None:\n    rules.game(5); print(name); load_spec('standard')\n"
              "def f(text: str) -> None:\n    load_spec(prop.rules)\n")
    assert loaded_by_name(source) == [("a", "spec_name", 1), ("b", "rules", 3), ("c", "rules", 5), ("d", "name", 7)]


def test_no_rules_are_loaded_by_a_name_passed_down_below_the_command_line() -> None:
    found = _below_the_command_line()
    new = {place: line for place, line in found.items() if place not in KNOWN}
    assert not new, ("rules loaded by a name passed down below the command line (take `Rules` from "
                     "verify/rules.py, loaded once at the command's edge):\n"
                     + "\n".join(f"{place} (line {line})" for place, line in new.items()))
    gone = sorted(set(KNOWN) - set(found))
    assert not gone, f"no longer loaded by name: take them off KNOWN: {gone}"


def test_rules_cross_to_another_process_as_their_name_hash_and_overlay() -> None:
    rules = Rules.named("standard")
    rules.game(5)
    sent = pickle.dumps(rules)
    assert len(sent) < 1_000, "the compiled tree and games must not cross, only the name, hash and overlay"
    again = pickle.loads(sent)
    assert again == rules and again.hash == rules.hash and again.spec == rules.spec
    assert pickle.loads(sent) is again, "a process loads the same rules sent twice once"


def test_rules_sent_again_after_their_file_changed_are_refused(tmp_path: Path) -> None:
    """A worker keeps one value of the rules it is sent, but checks each time it is sent
    them that the file still holds them (tests/test_pipeline.py: the first time)."""
    original = (ROOT / "tests" / "mutants" / "one_government.toml").read_text(encoding="utf-8")
    path = tmp_path / "one_government.toml"
    path.write_text(original, encoding="utf-8")
    sent = pickle.dumps(Rules.named(str(path)))
    kept = pickle.loads(sent)
    assert pickle.loads(sent) is kept
    path.write_text(original.replace("liberal_policies + fascist_policies == 0",
                                     "liberal_policies + fascist_policies <= 1"), encoding="utf-8")
    with pytest.raises(SpecError, match="changed while they were being checked"):
        pickle.loads(sent)


def test_a_property_naming_its_own_rules_is_asked_under_them() -> None:
    rules = Rules.named("standard")
    assert rules.own(None) is rules and rules.own("standard") is rules
    other = rules.own("no_topdecking")
    assert other.name == "no_topdecking" and other.hash != rules.hash and rules.own("no_topdecking") is other


def test_a_file_edited_within_a_process_gives_its_new_games_and_refuses_the_old_rules(tmp_path: Path) -> None:
    """A process (a test's command runner, a library caller) compiled the file's games by
    name before it was edited: the rules loaded since get games of their own text, and a
    game replayed by the name is of them too; the rules loaded before are refused at a
    count they had not compiled."""
    from engine.game import compiled_game

    original = (ROOT / "tests" / "mutants" / "one_government.toml").read_text(encoding="utf-8")
    path = tmp_path / "one_government.toml"
    path.write_text(original, encoding="utf-8")
    before = Rules.named(str(path))
    before.game(5)
    path.write_text(original.replace("liberal_policies + fascist_policies == 0",
                                     "liberal_policies + fascist_policies <= 1"), encoding="utf-8")
    after = Rules.named(str(path))
    assert after.hash != before.hash
    assert after.game(5).spec == after.spec and compiled_game(5, str(path)) is after.game(5)
    with pytest.raises(SpecError, match="changed while they were being checked"):
        before.game(6)
