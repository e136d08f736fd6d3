"""Roles: a rule says what it is for the tools (spec/LANGUAGE.md, "Roles"), the loader
refuses an unknown role or one on a rule of the wrong shape with file and line, a vote
becomes a move in one place, and no code in engine/ or verify/ names a rule of the spec
except the secrethitler.io importer's declared table of the site's names."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.game import compiled_game
from engine.importers.secrethitler_io import SITE_MOVES
from helpers import BAD_VARIANT_HEADER as HEADER, line_of, write_bad_variant as write
from spec.errors import SpecError
from spec.loader import load_spec
from spec.model import ROLES
from verify.cli import main

ROOT = Path(__file__).resolve().parents[1]
STANDARD = ROOT / "spec" / "rules" / "standard.toml"

DECLARED_MAPPING = ("engine/importers/secrethitler_io.py", "SITE_MOVES")
"""The one table outside spec/ that may name rules: the site's log fields as the spec's moves."""

HOMONYMS: dict[tuple[str, str], tuple[set[str], str]] = {
    ("engine/importers/secrethitler_io.py", "SITE_POWERS"): (
        {"investigate", "special_election"}, "members of the power enum (the board's powers)"),
    ("engine/transcript.py", "FIRST_PRESIDENT"): (
        {"first_president"}, "the native setup line's key (engine/TRANSCRIPT.md)"),
    ("verify/explicit/abstraction.py", "SPIN_PHASES"): (
        {"nominate", "president_discard"}, "phases: the states of the SPIN model"),
    ("verify/explicit/abstraction.py", "projector"): ({"president_discard"}, "a phase"),
    ("verify/explicit/abstraction.py", "batch_projector"): ({"president_discard"}, "a phase"),
}
"""Places where a word that is also a rule's name names something else, with the words
allowed there and what they name (each must be a member of an enum of the spec or a key
of a log format, never a rule)."""


def rule_names() -> set[str]:
    data = tomllib.loads(STANDARD.read_text(encoding="utf-8"))
    return {str(rule["name"]) for rule in data["rule"]}


def _owner(tree: ast.Module, node: ast.AST) -> str:
    """The top-level definition a node is in: the name assigned, or the function or class."""
    for statement in tree.body:
        if any(inner is node for inner in ast.walk(statement)):
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                return statement.name
            targets = statement.targets if isinstance(statement, ast.Assign) else \
                [statement.target] if isinstance(statement, ast.AnnAssign) else []
            names = [target.id for target in targets if isinstance(target, ast.Name)]
            return names[0] if names else f"line {statement.lineno}"
    return "?"


def test_no_code_outside_spec_names_a_rule() -> None:
    names = rule_names()
    found: list[str] = []
    for room in ("engine", "verify"):
        for path in sorted((ROOT / room).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names):
                    continue
                owner = _owner(tree, node)
                if (relative, owner) == DECLARED_MAPPING:
                    continue
                allowed, _ = HOMONYMS.get((relative, owner), (set(), ""))
                if node.value in allowed:
                    continue
                found.append(f"{relative}:{node.lineno} ({owner}): '{node.value}'")
    assert not found, "rule names in code outside spec/ (ask the spec for a role instead):\n" + "\n".join(found)


def test_the_homonyms_name_something_else() -> None:
    spec = load_spec("standard")
    members = {member for enum in spec.enums.values() for member in enum}
    for (path, owner), (words, what) in HOMONYMS.items():
        assert words <= members | {"first_president"}, (path, owner, what)
        text = (ROOT / path).read_text(encoding="utf-8")
        assert owner in text, f"{path} has no {owner} any more: drop it from HOMONYMS"


def test_the_site_table_names_moves_of_the_spec() -> None:
    names = rule_names()
    assert set(SITE_MOVES.values()) <= names
    assert set(SITE_MOVES.values()) == names & set(SITE_MOVES.values())


# ---------------------------------------------------------------------- the spec's roles


def test_standard_gives_each_role_the_rules_the_tools_need() -> None:
    spec = load_spec("standard")
    held = {role: [rule.name for rule in spec.with_role(role)] for role in ROLES}
    assert all(held.values()), {role: rules for role, rules in held.items() if not rules}
    assert len(held["vote"]) == 2 and held["election"][0] in held["vote"]
    assert spec.constants["chancellor_hand_size"] == spec.constants["hand_size"] - 1




BAD_ROLES = [
    ('[[rule]]\nname = "nominate"\nroles = ["nomination", "elction"]\n', "roles = ",
     "unknown role 'elction'. Did you mean 'election'?"),
    ('[[rule]]\nname = "nominate"\nroles = ["vote"]\n', "roles = ", "role 'vote'"),
    ('[[rule]]\nname = "draw_hand"\nroles = ["draw"]\ndraws = "hand_size + nominee"\n', "draws = ",
     "must be int"),
    ('[[rule]]\nname = "enact"\ndraws = "1"\n', "draws = ", "only a rule with role 'draw' or 'top_policy'"),
    ('[[rule]]\nname = "enact"\nroles = "election"\n', "roles = ", "roles is a list of role names"),
    ('[[rule]]\nname = "first_president"\nroles = ["deal"]\n', None, "both have role 'deal'"),
]


@pytest.mark.parametrize("body,needle,words", BAD_ROLES, ids=[b[2] for b in BAD_ROLES])
def test_a_bad_role_is_refused_with_its_line(tmp_path: Path, body: str, needle: str | None, words: str) -> None:
    path = write(tmp_path, body)
    with pytest.raises(SpecError) as caught:
        load_spec(str(path))
    error = caught.value
    assert words in str(error), str(error)
    if needle is not None:
        assert error.where is not None and error.where.file == str(path), str(error)
        assert error.where.line == line_of(path, needle), str(error)


def test_a_bad_role_is_exit_2(tmp_path: Path) -> None:
    path = write(tmp_path, '[[rule]]\nname = "nominate"\nroles = ["nominee"]\n')
    result = CliRunner().invoke(main, ["play", "-q", "-n", "5", "--rules", str(path)])
    assert result.exit_code == 2, result.output
    assert f"{path}:{line_of(path, 'roles = ')}" in result.output and "unknown role 'nominee'" in result.output


def test_the_roles_follow_a_rule_a_variant_renames(tmp_path: Path) -> None:
    """A variant whose vote outcome is another rule is still judged by the roles."""
    path = write(tmp_path, 'remove_rules = ["elect"]\n\n[[add.rule]]\nname = "government_elected"\n'
                           'phase = "vote"\nactor = "table"\nroles = ["vote", "election"]\n'
                           'params = { ja = "subset(alive)" }\nrequires = [\n'
                           '  { rule = "R-E7", when = "2 * count(ja) > alive_count", why = "not a majority" },\n]\n'
                           'effect = { last_president = "president", last_chancellor = "nominee", phase = "\'elected\'" }\n'
                           'shows = [{ rule = "R-E6", to = "all_seats", what = "ja" }]\n')
    game = compiled_game(5, str(path))
    state = game.initial_state()
    state = game.apply(state, game.legal_moves(state)[0])
    state = game.apply(state, game.legal_moves(state)[0])
    state = game.apply(state, game.legal_moves(state)[0])
    assert game.phase(state) == "vote"
    assert game.vote(state, [0, 1, 2]).rule == "government_elected"
    assert game.vote(state, [0, 1]).rule == "reject"
