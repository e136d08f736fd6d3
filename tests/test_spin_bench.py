"""`shrules bench --explore` beside SPIN: reading pan's output, running the anchor's run.sh,
and the cross-check that our states projected onto SPIN's abstraction are SPIN's states.

The samples below are pan's and GNU time's own output (run.sh 5 and 7 on this project's
kind of machine), cut to the lines that are read. The one real SPIN run (5 players, about
two minutes with our search) needs spin, gcc and the anchor folder ../shared/bench/spin
beside the repository (or $SHRULES_SPIN_DIR); it is skipped, saying which, where absent.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from verify.cli import main
from verify.explicit import spin
from verify.explicit.bench import ExploreFigure
from verify.explicit.side_by_side import DIFFERENT, EQUAL, SideBySide, describe, side_by_side
from verify.explicit.spin import SPIN_DIR_ENV, SpinDirError, availability, locate, parse_verify, run_spin

PAN_5 = """\
(Spin Version 6.5.2 -- 6 December 2019)

Full statespace search for:
\tnever claim         \t- (none specified)
\tassertion violations\t+
\tcycle checks       \t- (disabled by -DSAFETY)
\tinvalid end states\t+

State-vector 20 byte, depth reached 258, errors: 0
   971148 states, stored
  1244004 states, matched
  2215152 transitions (= stored+matched)
  4480230 atomic steps
hash conflicts:    143376 (resolved)

Stats on memory usage (in Megabytes):
   38.821\ttotal actual memory usage

pan: elapsed time 1.51 seconds
pan: rate 643144.37 states/second
"""

TIME_5 = """\
\tCommand being timed: "timeout -s INT 120 ./pan -m10000 -w21"
\tUser time (seconds): 1.08
\tSystem time (seconds): 0.06
\tPercent of CPU this job got: 75%
\tElapsed (wall clock) time (h:mm:ss or m:ss): 0:01.53
\tMaximum resident set size (kbytes): 41036
\tExit status: 0
"""

PAN_7_INTERRUPTED = """\
Interrupted

(Spin Version 6.5.2 -- 6 December 2019)
Warning: Search not completed

State-vector 0 byte, depth reached 0, errors: 0
        0 states, stored
        0 states, matched
        0 transitions (= stored+matched)

pan: elapsed time 1.72e+07 seconds
"""

TIME_7_INTERRUPTED = """\
\tUser time (seconds): 0.03
\tSystem time (seconds): 0.77
\tElapsed (wall clock) time (h:mm:ss or m:ss): 0:03.25
\tExit status: 124
"""


def figure(projected: int | None, cpu: float = 50.0, complete: bool = True) -> ExploreFigure:
    return ExploreFigure(5, 1_237_754, 2_270_929, complete, 100.0, cpu, projected, 971_147, 0.7)


# ---------------------------------------------------------------- reading pan


def test_a_complete_run_is_read_as_summarize_py_reads_it() -> None:
    run = parse_verify(5, PAN_5, TIME_5)
    assert run.complete and run.status == "complete"
    assert (run.stored, run.abstract_states, run.transitions) == (971_148, 971_147, 2_215_152)
    assert (run.depth, run.errors, run.approximate) == (258, 0, False)
    assert run.wall_seconds == pytest.approx(1.53)
    assert run.cpu_seconds == pytest.approx(1.14)
    assert run.peak_mib == pytest.approx(40.1)


def test_a_run_stopped_by_the_time_cap_is_incomplete_with_its_real_clock() -> None:
    run = parse_verify(7, PAN_7_INTERRUPTED, TIME_7_INTERRUPTED)
    assert not run.complete and run.status == "incomplete (time cap)"
    assert run.wall_seconds == pytest.approx(3.25)       # not pan's bogus 1.72e+07


def test_the_memory_cap_and_huge_counts_are_not_taken_for_exact_complete_figures() -> None:
    capped = parse_verify(9, PAN_5.replace("pan: elapsed", "pan: reached -DMEMLIM bound\npan: elapsed"))
    assert capped.status == "incomplete (memory cap)"
    huge = parse_verify(9, PAN_5.replace("   971148 states, stored", "4.3470001e+08 states, stored"))
    assert huge.complete and huge.approximate and huge.stored == 434_700_010
    assert SideBySide(figure(434_700_009), huge).projection is None    # rounded: not compared
    # 8 players: the transitions pass 1e8 and are rounded, the states are still exact.
    eight = parse_verify(8, PAN_5.replace("   971148 states, stored", "73626899 states, stored")
                         .replace("2215152 transitions", "2.0725422e+08 transitions"))
    assert eight.approximate and not eight.states_approximate and eight.transitions == 207_254_220
    assert SideBySide(figure(73_626_898), eight).projection == EQUAL
    assert SideBySide(figure(73_626_897), eight).projection == DIFFERENT
    assert "73,626,899 states stored" in describe(SideBySide(figure(73_626_898), eight))
    assert parse_verify(5, "").status == "no output"
    assert parse_verify(5, PAN_5.replace("errors: 0", "errors: 1")).status == "stopped at an error (1 errors)"


def test_without_gnu_time_the_wall_clock_is_pans_own() -> None:
    run = parse_verify(5, PAN_5)
    assert run.wall_seconds == pytest.approx(1.51) and run.cpu_seconds is None


# ---------------------------------------------------------------- side by side


def test_the_projection_is_compared_with_spins_abstract_states_from_this_run() -> None:
    spin = parse_verify(5, PAN_5, TIME_5)
    same, other = SideBySide(figure(971_147), spin), SideBySide(figure(971_146), spin)
    assert same.projection == EQUAL and other.projection == DIFFERENT
    assert same.spin_cpu_over_ours == pytest.approx(1.14 / 50.0)
    text = describe(same)
    assert "SPIN (measured in this run): 971,148 states stored (971,147 abstract + INIT)" in text
    assert "ours 971,147, SPIN's 971,147: equal" in text and "ours takes 44x SPIN's CPU" in text
    assert "ours 971,146, SPIN's 971,147: DIFFERENT" in describe(other)
    data = same.as_dict()
    json.dumps(data)
    spin_run = data["spin_run"]
    assert data["projection_vs_spin_run"] == EQUAL and isinstance(spin_run, dict)
    assert spin_run["abstract_states"] == 971_147


def test_nothing_is_compared_where_either_search_did_not_finish() -> None:
    spin = parse_verify(7, PAN_7_INTERRUPTED, TIME_7_INTERRUPTED)
    pair = SideBySide(figure(33_971_081), spin)
    assert pair.projection is None and pair.spin_cpu_over_ours is None
    assert "not compared (SPIN's search did not finish)" in describe(pair)
    ours_unfinished = SideBySide(figure(None, complete=False), parse_verify(5, PAN_5, TIME_5))
    assert "not compared (ours did not finish)" in describe(ours_unfinished)
    assert ours_unfinished.spin_cpu_over_ours is None and "ratio" not in describe(ours_unfinished)


def test_without_spin_the_readme_figures_are_marked_not_measured() -> None:
    text = describe(SideBySide(figure(971_147), None, "spin not found"))
    assert "SPIN not run: spin not found" in text
    assert "SPIN per its README (not measured in this run): 971,147 abstract states, 0.7 s" in text
    assert "ratio" not in text


# ---------------------------------------------------------------- locating and running SPIN


def fake_anchor(folder: Path, pan_output: str) -> Path:
    """An anchor folder whose run.sh writes canned pan output where run.sh writes it."""
    folder.mkdir()
    (folder / "sh.pml").write_text("/* not used */\n")
    script = folder / "run.sh"
    script.write_text('#!/usr/bin/env bash\nd="$OUTDIR/runs/N$1"; mkdir -p "$d"\n'
                      'echo "$LIMIT" > "$OUTDIR/limit"; cat > "$d/verify.out" <<\'END\'\n' + pan_output + "END\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return folder


def test_run_spin_runs_the_anchors_run_sh_in_a_temporary_outdir(tmp_path: Path) -> None:
    run = run_spin(5, fake_anchor(tmp_path / "spin", PAN_5), limit=2.5)
    assert run.complete and run.abstract_states == 971_147
    assert not (tmp_path / "spin" / "runs").exists()      # the anchor folder is left as it was


def test_a_named_folder_that_is_not_the_anchor_is_bad_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(SpinDirError, match="no such folder"):
        locate(str(tmp_path / "absent"))
    with pytest.raises(SpinDirError, match="not the SPIN anchor"):
        locate(str(tmp_path))
    monkeypatch.setenv(SPIN_DIR_ENV, str(fake_anchor(tmp_path / "spin", PAN_5)))
    assert locate() == (tmp_path / "spin").resolve()
    assert availability(False) == (None, "--no-spin was given")


def test_without_the_anchor_beside_the_repository_spin_is_not_run_and_says_where_it_looked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SPIN_DIR_ENV, raising=False)
    monkeypatch.setattr(spin, "BESIDE_REPOSITORY", tmp_path / "shared" / "bench" / "spin")
    folder, why = availability(True)
    assert folder is None and why is not None
    assert f"no SPIN anchor folder at {tmp_path}" in why and "--spin-dir" in why


def bench(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["bench", *args])
    return result.exit_code, result.stdout, result.stderr


def test_the_command_refuses_a_bad_spin_folder_in_one_line(tmp_path: Path) -> None:
    code, _, err = bench("--explore", "-n", "5", "--spin-dir", str(tmp_path / "absent"))
    assert code == 2 and err.count("\n") == 1 and "--spin-dir" in err and "Traceback" not in err
    code, _, err = bench("--spin-dir", str(tmp_path))
    assert code == 2 and "--spin-dir applies to --explore only" in err


def test_the_command_without_spin_says_so_and_labels_the_readme_figures(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))             # no spin, no gcc
    monkeypatch.setenv(SPIN_DIR_ENV, str(fake_anchor(tmp_path / "spin", PAN_5)))
    code, out, err = bench("--explore", "-n", "5", "--seconds", "1", "--no-catalogue")
    assert code == 0, err
    assert "SPIN not run: spin, gcc" in out and "not measured in this run" in out
    code, out, _ = bench("--explore", "-n", "5", "--seconds", "1", "--no-catalogue", "--json")
    data = json.loads(out)
    assert data["spin_run"] is None and "spin" in data["spin_not_run"] and data["spin_states"] == 971_147


# ---------------------------------------------------------------- SPIN itself


@pytest.mark.slow
def test_five_players_side_by_side_spin_finishes_and_counts_our_projection() -> None:
    """SPIN and our explorer in one run: SPIN finishes 5 players, and its abstract states
    are exactly our states projected onto its abstraction."""
    try:
        folder, not_run = availability(True)
    except SpinDirError as error:
        pytest.skip(str(error))
    if folder is None:
        pytest.skip(f"SPIN cannot run here: {not_run}")
    pair = side_by_side(5, 900.0, folder, None, catalogue=False)
    assert pair.spin is not None and pair.spin.complete, pair.spin
    assert pair.ours.complete
    assert pair.projection == EQUAL, describe(pair)
    assert pair.spin_cpu_over_ours is not None
