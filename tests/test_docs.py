"""The README and docs/ kept true: short, their examples run, their links resolve, their
commands name only options the commands have, and the commands reference is the `--help`
of today's command line.

A runnable example is a fenced block with the info string `console`: each line that
starts with `$ shrules ` is run (as `python -m verify`, in a scratch folder shared by the
block, so one line may read what an earlier one wrote), and must exit 0 unless the line
ends in `# exits N`; every other non-blank line of the block, up to the next `$ ` line,
must appear in that command's output (as part of a line, in order; `...` skips). An
argument naming a file of the repository is given its path in the repository. Blocks
marked `sh` are commands to read, never run here: the two README commands and anything
that takes more than seconds.

`SHRULES_UPDATE_DOCS=1` rewrites docs/reference/commands.md from the command line."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from verify.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
COMMANDS_PAGE = ROOT / "docs" / "reference" / "commands.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]
README_MAX_LINES = 150
EXAMPLE_SECONDS = 120
HELP_COLUMNS = "80"


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


# --- 1. the README is read in two minutes ------------------------------------------------

def test_readme_is_at_most_150_lines() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, (
        f"README.md has {len(lines)} lines; at most {README_MAX_LINES}: move the detail into docs/")


# --- 2. the examples run -----------------------------------------------------------------

@dataclass
class Example:
    """One `$ shrules ...` line of a console block, with what it must print and exit with."""

    line: int
    command: str
    status: int = 0
    expected: list[str] = field(default_factory=list)


@dataclass
class Block:
    page: Path
    line: int
    examples: list[Example]

    @property
    def name(self) -> str:
        return f"{relative(self.page)}:{self.line}"


EXITS = re.compile(r"\s+#\s*exits\s+(\d+)\s*$")


def console_blocks(page: Path) -> list[Block]:
    """Every ```console block of a page, parsed into its examples."""
    blocks: list[Block] = []
    current: Block | None = None
    for number, text in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
        stripped = text.strip()
        if current is None:
            if stripped == "```console":
                current = Block(page, number, [])
            continue
        if stripped.startswith("```"):
            blocks.append(current)
            current = None
        elif stripped.startswith("$ "):
            command = stripped[2:]
            status = 0
            found = EXITS.search(command)
            if found:
                status, command = int(found.group(1)), command[:found.start()]
            current.examples.append(Example(number, command.strip(), status))
        elif stripped and stripped not in ("...", "…"):
            assert current.examples, f"{relative(page)}:{number}: output before any `$ ` line"
            current.examples[-1].expected.append(stripped)
    assert current is None, f"{relative(page)}: a ```console block is not closed"
    return blocks


BLOCKS = [block for page in PAGES for block in console_blocks(page)]


def test_there_are_examples_to_run() -> None:
    assert len(BLOCKS) >= 5 and all(block.examples for block in BLOCKS)


def in_repository(argument: str) -> str:
    """The argument, or the repository's path of the file or folder it names."""
    if argument.startswith("-") or "/" not in argument and "." not in argument:
        return argument
    candidate = ROOT / argument
    return str(candidate) if candidate.exists() else argument


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("shrules-cache")


@pytest.mark.parametrize("block", BLOCKS, ids=[block.name for block in BLOCKS])
def test_console_examples_run(block: Block, tmp_path: Path, cache: Path) -> None:
    environment = {**os.environ, "SHRULES_CACHE": str(cache), "COLUMNS": HELP_COLUMNS, "NO_COLOR": "1"}
    for example in block.examples:
        where = f"{relative(block.page)}:{example.line}: `{example.command}`"
        words = shlex.split(example.command)
        assert words[0] == "shrules", f"{where}: a runnable example runs shrules"
        run = subprocess.run([sys.executable, "-m", "verify", *map(in_repository, words[1:])],
                             cwd=tmp_path, env=environment, capture_output=True, text=True,
                             timeout=EXAMPLE_SECONDS)
        output = (run.stdout + run.stderr).splitlines()
        assert run.returncode == example.status, (
            f"{where} exited {run.returncode}, the page says {example.status}:\n{run.stdout}{run.stderr}")
        at = 0
        for wanted in example.expected:
            hits = [index for index in range(at, len(output)) if wanted in output[index]]
            assert hits, f"{where}: the output has no line with {wanted!r} (after line {at}):\n" + \
                "\n".join(output)
            at = hits[0] + 1


# --- 3. links resolve --------------------------------------------------------------------

LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*)$")


def anchors(page: Path) -> set[str]:
    """The anchors of a page's headings, as a Markdown renderer makes them."""
    found = set()
    for text in without_code(page.read_text(encoding="utf-8")).splitlines():
        heading = HEADING.match(text)
        if heading:
            title = re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower())
            found.add(title.replace(" ", "-"))
    return found


def without_code(text: str) -> str:
    """The text with its fenced blocks blanked (a `# comment` there is no heading)."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.strip().startswith("```"):
            fenced = not fenced
            out.append("")
        else:
            out.append("" if fenced else line)
    return "\n".join(out)


@pytest.mark.parametrize("page", PAGES, ids=[relative(page) for page in PAGES])
def test_relative_links_resolve(page: Path) -> None:
    broken = []
    for target in LINK.findall(without_code(page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):
            continue                                   # https:, mailto: ...
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{target}: no heading #{anchor} in {relative(file)}")
        elif not file.is_relative_to(ROOT):
            broken.append(f"{target}: outside the repository")
    assert not broken, f"{relative(page)}: " + "; ".join(broken)


# --- 4. commands name only options they have ---------------------------------------------

def options_of(command: click.Command) -> set[str]:
    names = {"-h", "--help"}
    for parameter in command.params:
        if isinstance(parameter, click.Option):
            names |= set(parameter.opts) | set(parameter.secondary_opts)
    return names


COMMANDS = {name: options_of(command) for name, command in main.commands.items()}
SPAN = re.compile(r"`([^`\n]+)`")
SEPARATORS = {"&&", "||", "|", ";", ">", ">>", "2>", "<"}


def command_lines(text: str) -> list[tuple[str, bool]]:
    """The code of a page: every line of its fenced blocks and every inline code span, each
    with whether it stands alone (a span may name a command without `shrules`)."""
    found: list[tuple[str, bool]] = []
    fenced = False
    for line in text.splitlines():
        if line.strip().startswith("```"):
            fenced = not fenced
        elif fenced:
            found.append((line.strip().removeprefix("$ "), False))
        else:
            found += [(span, True) for span in SPAN.findall(line)]
    return found


def named_options(code: str, bare: bool) -> list[tuple[str, list[str]]]:
    """Each `shrules COMMAND ...` in a line of code (in an inline span also `COMMAND --x`),
    with the words that follow it up to the end of that shell command."""
    try:
        words = shlex.split(code, comments=True)
    except ValueError:
        words = code.split()
    found = []
    for index, word in enumerate(words):
        starts = word.endswith("shrules") and word.rsplit("/", 1)[-1] == "shrules"
        if starts and index + 1 < len(words) and re.fullmatch(r"[a-z][a-z-]*", words[index + 1]):
            command, rest = words[index + 1], words[index + 2:]
        elif bare and index == 0 and word in COMMANDS and len(words) > 1 and words[1].startswith("--"):
            command, rest = word, words[1:]
        else:
            continue
        tail = []
        for following in rest:
            if following in SEPARATORS or following.endswith("shrules"):
                break
            tail.append(following)
        found.append((command, tail))
    return found


@pytest.mark.parametrize("page", [page for page in PAGES if page != COMMANDS_PAGE],
                         ids=[relative(page) for page in PAGES if page != COMMANDS_PAGE])
def test_commands_name_only_options_they_have(page: Path) -> None:
    wrong = []
    for code, bare in command_lines(page.read_text(encoding="utf-8")):
        for command, words in named_options(code, bare):
            if command not in COMMANDS:
                wrong.append(f"`{code}`: shrules has no command '{command}'")
                continue
            for word in words:
                option = word.split("=", 1)[0]
                if re.fullmatch(r"--?[A-Za-z][\w-]*", option) and option not in COMMANDS[command]:
                    wrong.append(f"`{code}`: shrules {command} has no option {option}")
    assert not wrong, f"{relative(page)}:\n" + "\n".join(wrong)


def test_the_option_check_can_fail() -> None:
    """The parser finds commands and options where the pages write them."""
    assert named_options("shrules check --rules x -n 5 --report out/ && shrules ask --list", False) == \
        [("check", ["--rules", "x", "-n", "5", "--report", "out/"]), ("ask", ["--list"])]
    assert named_options("ask --game --move", True) == [("ask", ["--game", "--move"])]
    assert "--no-such-option" not in COMMANDS["check"] and "--baseline" in COMMANDS["check"]


# --- 5. the commands reference is today's --help -----------------------------------------

def help_of(command: str) -> str:
    result = CliRunner().invoke(main, [command, "--help"], prog_name="shrules", env={"COLUMNS": HELP_COLUMNS})
    assert result.exit_code == 0, result.output
    return result.output.rstrip()


def commands_page() -> str:
    lines = ["# Commands", "",
             "Every `shrules` command with its options: the `--help` of each, generated from the",
             "command line by `SHRULES_UPDATE_DOCS=1 python -m pytest -q tests/test_docs.py`",
             "(`tests/test_docs.py` fails when this page and the command line differ).",
             "`python -m verify` is the same as `shrules`. Exit status, for every command: 0 as",
             "expected, 1 a verdict not as expected, 2 bad input, 3 a limit hit or a game not judged",
             "([README](../../README.md#exit-status)).", "",
             "| command | what it does |", "|---|---|"]
    for name in sorted(main.commands):
        summary = main.commands[name].get_short_help_str(limit=200).replace("|", "\\|")
        lines.append(f"| [`{name}`](#shrules-{name}) | {summary} |")
    for name in sorted(main.commands):
        lines += ["", f"## shrules {name}", "", "```text", help_of(name), "```"]
    return "\n".join(lines) + "\n"


def test_the_commands_reference_is_the_help_of_today() -> None:
    page = commands_page()
    if os.environ.get("SHRULES_UPDATE_DOCS"):
        COMMANDS_PAGE.write_text(page, encoding="utf-8")
    assert COMMANDS_PAGE.read_text(encoding="utf-8") == page, (
        "docs/reference/commands.md is not the --help of today's commands: rewrite it with "
        "SHRULES_UPDATE_DOCS=1 python -m pytest -q tests/test_docs.py and review the diff")


# --- 6. the docs speak of the project only -----------------------------------------------

MACHINE_PATH = re.compile(r"(?<![\w.~$])/(?:work|home|Users|root|mnt|opt|srv)/")
COMMIT = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b")


@pytest.mark.parametrize("page", PAGES, ids=[relative(page) for page in PAGES])
def test_no_machine_paths_or_commit_hashes(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert not MACHINE_PATH.search(text), f"{relative(page)} names a machine's path: {MACHINE_PATH.search(text)}"
    assert not COMMIT.findall(text), f"{relative(page)} names commits: {COMMIT.findall(text)}"
