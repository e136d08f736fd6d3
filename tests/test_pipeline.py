"""One decision pipeline: the budgets in one module, the portfolio's strategies, rules as values.

The budgets (verify/budgets.py) are assigned there and nowhere else in verify/; the
portfolio (verify/portfolio.py) runs backends in the order its strategy names, and an
undecided backend's result is unknown, never proved; a check runs in a worker started by
`spawn`, which copies nothing of the parent (the rules travel as a value).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUDGET = re.compile(r"_(SECONDS|SHARE|RESERVE)$")


def _assigned_names(node: ast.AST) -> list[str]:
    """The plain names an assignment binds (tuples unpacked)."""
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets = [node.target]
    names: list[str] = []
    while targets:
        target = targets.pop()
        if isinstance(target, ast.Name):
            names.append(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            targets += target.elts
    return names


def budgets_assigned(path: Path) -> list[str]:
    """The budget constants (`*_SECONDS`, `*_SHARE`, `*_RESERVE`) a file assigns."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [name for node in ast.walk(tree) for name in _assigned_names(node) if BUDGET.search(name)]


def test_the_finder_sees_a_budget() -> None:
    tree = "A_SECONDS = 1.0\nB, C_SHARE = 2, 0.5\nD: float = 3\nE_RESERVE: float = 4\nseconds = 5\n"
    found = [name for node in ast.walk(ast.parse(tree)) for name in _assigned_names(node) if BUDGET.search(name)]
    assert sorted(found) == ["A_SECONDS", "C_SHARE", "E_RESERVE"]


def test_budgets_are_assigned_only_in_the_budgets_module() -> None:
    home = ROOT / "verify" / "budgets.py"
    elsewhere = {str(path.relative_to(ROOT)): found for path in sorted((ROOT / "verify").rglob("*.py"))
                 if path != home and (found := budgets_assigned(path))}
    assert not elsewhere, f"budget constants outside verify/budgets.py: {elsewhere}"
    assert len(budgets_assigned(home)) >= 30


def test_every_budget_says_why() -> None:
    """Each budget is followed by its docstring: what it bounds and why that value."""
    body = ast.parse((ROOT / "verify" / "budgets.py").read_text(encoding="utf-8")).body
    missing = [name for at, node in enumerate(body) for name in _assigned_names(node)
               if not (at + 1 < len(body) and isinstance(body[at + 1], ast.Expr)
                       and isinstance(getattr(body[at + 1], "value", None), ast.Constant))]
    assert not missing, f"budgets without a docstring: {missing}"
