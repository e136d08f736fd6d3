"""One direction of imports: spec uses only the standard library, engine imports spec,
verify imports both; only verify imports z3 and networkx (STYLE.md, DESIGN.md)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STDLIB = set(sys.stdlib_module_names)


def imports_of(package: str) -> list[tuple[Path, str]]:
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found += [(path, alias.name.split(".")[0]) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.append((path, node.module.split(".")[0]))
    return found


@pytest.mark.parametrize("package,allowed", [
    ("spec", {"spec"}),
    ("engine", {"spec", "engine"}),
    ("verify", {"spec", "engine", "verify", "z3", "networkx", "click"}),
])
def test_imports_go_one_way(package: str, allowed: set[str]) -> None:
    wrong = [(p.relative_to(ROOT), name) for p, name in imports_of(package)
             if name not in STDLIB and name not in allowed]
    assert not wrong, f"{package} imports outside its layer: {wrong}"


def test_rule_text_is_never_executed_by_the_loader() -> None:
    for path in (ROOT / "spec").rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        assert "eval(" not in source and "exec(" not in source, path
