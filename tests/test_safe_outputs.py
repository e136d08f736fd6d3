"""Output folders are written without following links planted inside them.

A report, an atlas, a rulings book, saved traces or an exported graph go into a folder
the user names; what is already inside it may not be theirs (a shared folder, a link
left there). A link at a file's name inside the folder is replaced by the new file, never written
through; a link where a sub-folder should be is refused with one line and exit status 2,
before anything is written or removed through it. A single file the user names
(`--trace FILE`, `-o FILE`) that is a link is refused the same way. In every case a victim file outside the
folder, which a planted link points at, is unchanged.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import networkx as nx
import pytest
from click.testing import CliRunner

from report_samples import RUN, game_trace, sample_results
from test_mutate_report import hand_made_run
from spec.errors import SpecError
from spec.files import write_atomic
from verify.book import write_book
from verify.cli import main
from verify.explicit.graphs import Export, write_export
from verify.report import write_report
from verify.report.baseline import baseline_path, update
from verify.report.writer import write_mutation_report
from verify.scale import atlas
from verify.scale.sweep import Space

PRECIOUS = "precious: not to be overwritten\n"


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A file of the user's outside every output folder."""
    path = tmp_path / "victim.txt"
    path.write_text(PRECIOUS)
    return path


def _planted(folder: Path, name: str, target: Path) -> Path:
    """A link called `name` inside `folder` (made), pointing at `target`."""
    link = folder / name
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)
    return link


def _replaced(link: Path, victim: Path) -> None:
    """The planted link is now a regular file of shrules' own, and the victim is as it was."""
    assert victim.read_text() == PRECIOUS
    assert not link.is_symlink() and link.is_file()
    assert link.read_text() != PRECIOUS


# ---------------------------------------------------------------- the report


@pytest.mark.parametrize("name", ["report.json", "report.html", "junit.xml", "report.md", "timings.json"])
def test_the_report_replaces_a_planted_file_link(name: str, tmp_path: Path, victim: Path) -> None:
    folder = tmp_path / "report"
    link = _planted(folder, name, victim)
    write_report(sample_results(), folder, RUN)
    _replaced(link, victim)


def test_the_report_refuses_a_linked_traces_folder(tmp_path: Path) -> None:
    """`traces/` linked to a folder of the user's: the report would have removed the
    "stale" traces there and written its own; it is refused instead, nothing touched."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "kept-5.itf.json").write_text(PRECIOUS)
    folder = tmp_path / "report"
    _planted(folder, "traces", elsewhere)
    with pytest.raises(SpecError, match="symbolic link"):
        write_report(sample_results(), folder, RUN)
    assert [p.name for p in elsewhere.iterdir()] == ["kept-5.itf.json"]
    assert (elsewhere / "kept-5.itf.json").read_text() == PRECIOUS


def test_check_report_with_a_linked_traces_folder_is_one_line_and_exit_2(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "kept-5.itf.json").write_text(PRECIOUS)
    folder = tmp_path / "report"
    _planted(folder, "traces", elsewhere)
    result = CliRunner().invoke(main, ["check", "-n", "5", "-p", "tracks_in_range", "--max-states", "2000",
                                       "--report", str(folder)])
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("shrules: error:")]
    assert len(errors) == 1 and "symbolic link" in errors[0], result.output
    assert "Traceback" not in result.output
    assert (elsewhere / "kept-5.itf.json").read_text() == PRECIOUS


@pytest.mark.parametrize("name", ["mutation.json", "mutation.md", "mutation.html"])
def test_the_mutation_report_replaces_a_planted_file_link(name: str, tmp_path: Path, victim: Path) -> None:
    folder = tmp_path / "report"
    link = _planted(folder, name, victim)
    write_mutation_report(hand_made_run().to_json(), folder)
    _replaced(link, victim)


def test_the_baseline_refuses_a_linked_rules_folder(tmp_path: Path) -> None:
    """`--update-baseline` writes `<rules>/baseline.json` below the baseline folder: a
    link planted where the rules' folder should be is refused, nothing written there."""
    baselines = tmp_path / "baselines"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    path = baseline_path(baselines, RUN.rules)
    _planted(baselines, path.parent.name, elsewhere)
    with pytest.raises(SpecError, match="symbolic link"):
        update(baselines, sample_results(), RUN)
    assert list(elsewhere.iterdir()) == []


# ---------------------------------------------------------------- the atlas and the book


@pytest.mark.parametrize("name", ["atlas.json", "atlas.html"])
def test_the_atlas_replaces_a_planted_file_link(name: str, tmp_path: Path, victim: Path) -> None:
    folder = tmp_path / "atlas"
    link = _planted(folder, name, victim)
    atlas.write(folder, atlas.build(Space(counts=(5,), sample=1), []))
    _replaced(link, victim)
    if name == "atlas.json":
        assert json.loads(link.read_text())["atlas"] == atlas.ATLAS_VERSION


def test_the_book_replaces_a_planted_file_link(tmp_path: Path, victim: Path) -> None:
    folder = tmp_path / "book"
    written = write_book([], folder)
    index = next(path for path in written if path.name == "index.html")
    index.unlink()
    link = _planted(index.parent, index.name, victim)
    write_book([], folder)
    _replaced(link, victim)


def test_the_book_refuses_a_linked_sub_folder_before_writing_a_page(tmp_path: Path) -> None:
    folder = tmp_path / "book"
    sub_folders = {path.parent for path in write_book([], tmp_path / "first")} - {tmp_path / "first"}
    assert sub_folders, "the book has sub-folders (rules/)"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    _planted(folder, sorted(sub_folders)[0].name, elsewhere)
    with pytest.raises(SpecError, match="symbolic link"):
        write_book([], folder)
    assert list(elsewhere.iterdir()) == []
    assert [path.name for path in folder.iterdir()] == [sorted(sub_folders)[0].name]


# ---------------------------------------------------------------- traces and graphs


def test_a_trace_in_a_traces_folder_replaces_a_planted_link(tmp_path: Path, victim: Path) -> None:
    """`check --traces DIR`: each trace inside the folder the user named, a link at its
    name replaced."""
    folder = tmp_path / "traces"
    link = _planted(folder, "game.itf.json", victim)
    game_trace(5, moves=6).save_itf(link, root=folder)
    _replaced(link, victim)
    assert json.loads(link.read_text())["#meta"]["players"] == 5


def test_play_trace_refuses_a_planted_link(tmp_path: Path, victim: Path) -> None:
    """`--trace FILE` names one file: a link at that name (planted in a shared folder) is
    refused with one line, exit 2; the file it points at was never named."""
    link = _planted(tmp_path, "game.itf.json", victim)
    result = CliRunner().invoke(main, ["play", "-n", "5", "--seed", "1", "--quiet", "--trace", str(link)])
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("shrules: error:")]
    assert len(errors) == 1 and "symbolic link" in errors[0], result.output
    assert victim.read_text() == PRECIOUS and link.is_symlink()


def test_play_trace_writes_a_new_file_and_a_named_fifo(tmp_path: Path) -> None:
    """What a user names is still written: a new file, atomically; a FIFO with no reader is
    one line, never a hang."""
    path = tmp_path / "game.itf.json"
    assert CliRunner().invoke(main, ["play", "-n", "5", "--seed", "1", "-q", "--trace", str(path)]).exit_code == 0
    assert json.loads(path.read_text())["#meta"]["players"] == 5
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    result = CliRunner().invoke(main, ["play", "-n", "5", "--seed", "1", "-q", "--trace", str(fifo)])
    assert result.exit_code == 2 and "cannot write" in result.output, result.output


def test_an_atomic_write_replaces_a_fifo_and_never_a_device(tmp_path: Path) -> None:
    """A FIFO planted at a kept or output file's name is replaced (never opened: no hang);
    a device is refused: renaming over it would put a regular file in its place (as root,
    `--trace /dev/full` once replaced the device node)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    write_atomic(fifo, "x", root=tmp_path)
    assert fifo.read_text() == "x" and not stat.S_ISFIFO(os.lstat(fifo).st_mode)
    device = tmp_path / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o600, os.makedev(1, 3))     # what /dev/null is
    except (PermissionError, AttributeError):
        pytest.skip("making a device node needs root")
    with pytest.raises(SpecError, match="device"):
        write_atomic(device, "x", root=tmp_path)
    assert stat.S_ISCHR(os.lstat(device).st_mode)


@pytest.mark.parametrize("output_format", ["dot", "graphml"])
def test_a_graph_export_refuses_a_planted_link(output_format: str, tmp_path: Path, victim: Path) -> None:
    graph: Export = nx.DiGraph()
    graph.add_edge(0, 1, moves=1)
    path = tmp_path / f"graph.{output_format}"
    write_export(graph, path, output_format)
    assert "0" in path.read_text()
    link = _planted(tmp_path, f"linked.{output_format}", victim)
    with pytest.raises(SpecError, match="symbolic link"):
        write_export(graph, link, output_format)
    assert victim.read_text() == PRECIOUS


# ---------------------------------------------------------------- refused before the run


@pytest.mark.parametrize(("args", "plant"), [
    (["check", "-n", "5", "-p", "tracks_in_range", "--max-states", "2000", "--report", "{out}"], "fifo:report.json"),
    (["check", "-n", "5", "-p", "tracks_in_range", "--max-states", "2000", "--report", "{out}"], "file:traces"),
    (["book", "{out}", "--ids", "four-players"], "link:rules"),
    (["book", "{out}", "--ids", "four-players"], "folder:index.html"),
    (["sweep", "-n", "5", "--powers", "none,execution", "--sample", "1", "--max-states", "2000", "--cache", "{kept}",
      "--report", "{out}"], "fifo:atlas.html"),
])
def test_what_the_writers_cannot_replace_is_refused_before_the_run(args: list[str], plant: str,
                                                                   tmp_path: Path) -> None:
    """A FIFO or a folder where an output file goes, a link or a file where a sub-folder
    goes: refused at the start in one line, exit 2, nothing written (no progress first)."""
    out = tmp_path / "out"
    out.mkdir()
    how, name = plant.split(":")
    if how == "fifo":
        os.mkfifo(out / name)
    elif how == "file":
        (out / name).write_text(PRECIOUS)
    elif how == "folder":
        (out / name).mkdir()
    else:
        (tmp_path / "elsewhere").mkdir()
        (out / name).symlink_to(tmp_path / "elsewhere")
    before = sorted(p.name for p in out.iterdir())
    argv = [arg.replace("{out}", str(out)).replace("{kept}", str(tmp_path / "kept")) for arg in args]
    result = CliRunner().invoke(main, argv)
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and result.output.startswith("shrules: error:"), result.output
    assert name in result.output
    assert sorted(p.name for p in out.iterdir()) == before
