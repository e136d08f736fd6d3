"""One direction of imports (ARCHITECTURE.md): spec uses only the standard library,
engine imports spec, verify imports both. Inside verify, each room imports only the rooms
ROOMS allows it and only the libraries LIBRARIES allows it; no room imports the command
line, and no command imports another command."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STDLIB = set(sys.stdlib_module_names)

ROOMS: dict[str, set[str]] = {
    # room        rooms it may import besides itself (spec and engine are always allowed)
    "verify":   set(),                                      # verify/__init__.py: a docstring
    "budgets":  set(),                                      # every time budget (any room may import it)
    "clock":    set(),                                      # the work clock a search's time limit is read on (any room)
    "rules":    set(),                                      # the rules as a value (any room may import it)
    "results":  set(),                                      # the typed verdicts and exit statuses
    "workers":  set(),                                      # local worker processes that end with their parent
    "explicit": {"results", "workers"},                     # the explicit-state checker
    "smt":      {"results", "workers"},                     # the Z3 backend
    "portfolio": {"results", "workers", "explicit", "smt"},  # which backend decides, in what order
    "checker":  {"results", "workers", "explicit", "smt", "portfolio"},  # the catalogue, by either backend
    "lawyer":   {"results", "workers", "explicit", "smt", "portfolio", "knowledge"},  # shrules ask (--solver: worker processes)
    "diff":     {"results", "workers", "explicit", "smt", "checker", "portfolio"},  # shrules diff, mutation score
    "knowledge": {"results", "explicit", "smt"},              # what a seat can know; the no-leak certificate
    "report":   {"results"},                                # report files, the baseline gate
    "peer":     set(),                                      # a peer engine's random play, for bench --peer
    "book":     {"results", "lawyer"},                      # the rulings book's pages
    "odds":     {"results", "explicit"},                    # logged games beside the odds, the rebalance search
    "scale":    {"results", "workers", "explicit", "smt", "checker", "diff", "portfolio"},  # tasks, their runner and cache, the sweep
    "cli":      {"results", "workers", "explicit", "smt", "checker", "lawyer", "diff", "report", "peer", "book",
                 "scale", "portfolio", "knowledge", "odds"},
}
"""Which room of verify may import which. The command line (cli) is above every other room
and none imports it; explicit and smt, the two backends, do not know of each other."""

LIBRARIES: dict[str, set[str]] = {
    "smt": {"z3"},
    "explicit": {"networkx", "numpy"},   # graphs.py: the export and its facts; layers.py: a layer as arrays
    "cli": {"click"},
    "scale": {"distributed", "dask"},   # run.py: a Dask cluster, imported on use
}
"""The third-party libraries a room may import: z3 only the Z3 backend, networkx only the
explicit checker's graphs, click only the command line."""

EVERY_ROOM = {"budgets", "clock", "rules"}
"""Rooms every room may import, as spec and engine: the budgets are numbers and their reasons,
the clock how a search's time limit is read;
the rules are what every room works under, passed down as a value (verify/rules.py)."""

COMMAND_SHARED = {"verify.cli.options", "verify.cli.outputs"}
"""What a command module may import from the command line's own package."""


def python_files(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> list[str]:
    """Every module the file imports, relative imports resolved, at any depth of the file
    (an import inside a function counts as much as one at the top)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                assert node.module is not None
                found.append(node.module)
                continue
            base = package.split(".")
            base = base[:len(base) - (node.level - 1)]
            if node.module:
                found.append(".".join(base + [node.module]))
            else:  # `from . import smt`: each name is a module of that package
                found += [".".join(base + [alias.name]) for alias in node.names]
    return found


def room_of(module: str) -> str:
    """The room of a verify module: its subpackage, or a top-level module's name."""
    parts = module.split(".")
    if len(parts) == 1:
        return "verify"
    return "cli" if parts[1] == "__main__" else parts[1]


@pytest.mark.parametrize("package,allowed", [
    ("spec", {"spec"}),
    ("engine", {"spec", "engine", "numpy"}),
    ("verify", {"spec", "engine", "verify", "z3", "networkx", "click", "distributed", "dask", "numpy"}),
])
def test_imports_go_one_way(package: str, allowed: set[str]) -> None:
    wrong = [(str(path.relative_to(ROOT)), name) for path in python_files(package) for name in imported_modules(path)
             if name.split(".")[0] not in STDLIB | allowed]
    assert not wrong, f"{package} imports outside its layer: {wrong}"


def test_every_room_is_in_the_table() -> None:
    rooms = {room_of(module_name(path)) for path in python_files("verify")}
    assert rooms == set(ROOMS), f"rooms without an entry in ROOMS: {rooms - set(ROOMS)}; " \
                                f"entries without a room: {set(ROOMS) - rooms}"


def test_rooms_import_only_what_the_table_allows() -> None:
    wrong = []
    for path in python_files("verify"):
        room = room_of(module_name(path))
        for name in imported_modules(path):
            top = name.split(".")[0]
            if top == "verify":
                other = room_of(name)
                if other != room and other not in ROOMS[room] | EVERY_ROOM:
                    wrong.append(f"{path.relative_to(ROOT)} ({room}) imports {name} ({other})")
            elif top not in STDLIB | {"spec", "engine"} and top not in LIBRARIES.get(room, set()):
                wrong.append(f"{path.relative_to(ROOT)} ({room}) imports the library {top}")
    assert not wrong, "imports the layering does not allow:\n" + "\n".join(wrong)


def test_no_command_imports_another_command() -> None:
    wrong = []
    for path in python_files("verify/cli"):
        if path.stem in ("__init__", "options", "outputs"):
            continue
        wrong += [f"{path.relative_to(ROOT)} imports {name}" for name in imported_modules(path)
                  if name.startswith("verify.cli") and name not in COMMAND_SHARED]
    assert not wrong, "a command imports another command (shared options go in verify/cli/options.py):\n" + \
        "\n".join(wrong)


def test_the_command_line_starts_without_z3_or_networkx() -> None:
    """Every `shrules` run imports all command modules: z3, networkx and Dask wait until used."""
    loaded = subprocess.run([sys.executable, "-c", "import sys, verify.cli; "
                             "print(sorted({'z3', 'networkx', 'dask', 'distributed'} & set(sys.modules)))"],
                            capture_output=True, text=True, check=True, cwd=ROOT).stdout.strip()
    assert loaded == "[]", f"importing verify.cli loaded {loaded}"


def test_rule_text_is_never_executed_by_the_loader() -> None:
    for path in (ROOT / "spec").rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        assert "eval(" not in source and "exec(" not in source, path


def sibling_imports(package: str, source: str, module: str) -> tuple[list[str], list[str]]:
    """The modules of `package` that `module` (its source) imports at the top of its body,
    and those it imports anywhere else (inside a function, a class or an `if`)."""
    parent = module if module == package else module.rpartition(".")[0]
    tree = ast.parse(source)
    top = {id(node) for node in tree.body}
    at_top: list[str] = []
    inside: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or node.level == 0 and not (node.module or "").startswith(package):
            continue
        if node.level == 0:
            names = [node.module or ""]
        else:
            base = parent.split(".")[:len(parent.split(".")) - (node.level - 1)]
            names = ([".".join(base + [node.module])] if node.module
                     else [".".join(base + [alias.name]) for alias in node.names])
        wanted = [name for name in names if name.startswith(package + ".") and name != module]
        (at_top if id(node) in top else inside).extend(wanted)
    return at_top, inside


def import_cycle(graph: dict[str, list[str]]) -> list[str]:
    """A cycle of imports in `graph` (module -> the modules it imports), as the modules
    along it, or [] when there is none."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(module: str) -> list[str]:
        state[module] = "open"
        path.append(module)
        for other in graph.get(module, []):
            if state.get(other) == "open":
                return path[path.index(other):] + [other]
            if other not in state:
                found = visit(other)
                if found:
                    return found
        state[module] = "done"
        path.pop()
        return []
    for module in sorted(graph):
        if module not in state:
            found = visit(module)
            if found:
                return found
    return []


def test_the_cycle_finder_finds_a_cycle_and_an_import_inside_a_function() -> None:
    sources = {"p.a": "from .b import x\n", "p.b": "def f():\n    from .c import y\n", "p.c": "from .a import z\n"}
    found = {name: sibling_imports("p", source, name) for name, source in sources.items()}
    assert found["p.b"] == ([], ["p.c"])
    assert import_cycle({name: top + inside for name, (top, inside) in found.items()}) == ["p.a", "p.b", "p.c", "p.a"]
    assert import_cycle({"p.a": ["p.b"], "p.b": [], "p.c": ["p.a"]}) == []


@pytest.mark.parametrize("package", ["verify.smt"])
def test_a_package_imports_its_own_modules_at_the_top_and_in_one_direction(package: str) -> None:
    """Every import of a sibling is at the top of its module, and no module imports one
    that imports it back (an import put inside a function to break a cycle hides the
    cycle; verify/smt/backend.py holds what its deciding modules share instead)."""
    graph: dict[str, list[str]] = {}
    hidden = []
    for path in python_files(package.replace(".", "/")):
        name = module_name(path)
        at_top, inside = sibling_imports(package, path.read_text(encoding="utf-8"), name)
        graph[name] = at_top + inside
        hidden += [f"{path.relative_to(ROOT)} imports {other} inside a function or a block" for other in inside]
    assert not hidden, "\n".join(hidden)
    cycle = import_cycle(graph)
    assert not cycle, "an import cycle: " + " -> ".join(cycle)
