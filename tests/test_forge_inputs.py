"""Inputs that tried to choose their own verdict: a transcript naming a rules file that
drops a requirement, a variant calling itself `standard`, a game id that rewrites the
terminal, a scheduler reached in the clear. Each is judged by the rules the user chose,
refused with one line, or shown escaped; every output that states a verdict names the
rules and their content hash. All fast: no search runs longer than its tiny limit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from spec.errors import SpecError
from spec.identity import content_hash
from spec.loader import RULES_DIR, load_spec
from verify.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "engine" / "examples"
LENIENT = 'extends = "standard"\nname = "lenient"\n\n[[requirement]]\nrule = "nominate"\nid = "R-E3"\ndrop = true\n'
"""A variant without the Chancellor's term limit (R-E3): under it the example's illegal
nomination at line 9 is legal."""


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def one_error_line(result: Result) -> str:
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith("shrules: error: "), \
        (result.exit_code, result.stderr)
    return lines[0]


@pytest.fixture()
def lenient_game(tmp_path: Path) -> Path:
    """The illegal term-limit example, its setup naming the lenient rules file beside it."""
    (tmp_path / "lenient.toml").write_text(LENIENT, encoding="utf-8")
    text = (EXAMPLES / "illegal_term_limit.jsonl").read_text(encoding="utf-8")
    game = tmp_path / "game.jsonl"
    game.write_text(text.replace('"rules": "standard"', '"rules": "lenient.toml"', 1), encoding="utf-8")
    return game


# ---------------------------------------------------------------------- a transcript's rules


def test_a_transcript_cannot_choose_lenient_rules_when_the_rules_are_pinned(lenient_game: Path) -> None:
    result = run("judge", str(lenient_game), "--rules", "standard")
    assert result.exit_code == 1, result.output
    assert "verdict: ILLEGAL at line 9: R-E3" in result.stdout
    assert f"the log names the rules {lenient_game.parent / 'lenient.toml'}" in result.stdout


def test_pinned_rules_are_never_opened_from_the_transcript(tmp_path: Path) -> None:
    """A rules file the log names that could not even be read (here: a folder) does not
    matter once the rules are pinned."""
    text = (EXAMPLES / "legal_game.jsonl").read_text(encoding="utf-8").splitlines()
    setup = json.loads(text[0])
    setup["setup"]["rules"] = "missing/nowhere.toml"
    game = tmp_path / "game.jsonl"
    game.write_text("\n".join([json.dumps(setup), *text[1:]]) + "\n", encoding="utf-8")
    assert run("judge", str(game)).exit_code == 2
    result = run("judge", str(game), "--rules", "standard", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["rules_asked"] == "missing/nowhere.toml"


def test_judge_json_names_the_rules_and_their_content_hash(lenient_game: Path) -> None:
    pinned = json.loads(run("judge", str(lenient_game), "--rules", "standard", "--json").stdout)
    assert pinned["verdict"] == "illegal"
    assert pinned["rules"] == "standard" and pinned["rules_hash"] == content_hash(load_spec("standard"))
    assert pinned["rules_file"] is None and pinned["rules_asked"] == str(lenient_game.parent / "lenient.toml")
    own = json.loads(run("judge", str(lenient_game), "--json").stdout)
    lenient = lenient_game.parent / "lenient.toml"
    assert own["verdict"] == "legal" and own["rules"] == "lenient" and own["rules_asked"] is None
    assert own["rules_file"] == str(lenient) and own["rules_hash"] == content_hash(load_spec(str(lenient)))
    assert own["rules_hash"] != pinned["rules_hash"]


def test_a_rules_file_a_transcript_names_is_shown_with_its_hash(lenient_game: Path) -> None:
    result = run("judge", str(lenient_game))
    header = result.stdout.splitlines()[0]
    lenient = lenient_game.parent / "lenient.toml"
    assert f"rules: lenient (file {lenient}, sha256 {content_hash(load_spec(str(lenient)))})" in header


def test_the_content_hash_ignores_where_the_file_is_but_not_what_it_says(tmp_path: Path) -> None:
    standard = (RULES_DIR / "standard.toml").read_text(encoding="utf-8")
    copy = tmp_path / "copy.toml"
    copy.write_text("# a comment moves every line\n" + standard.replace('name = "standard"', 'name = "copy"', 1),
                    encoding="utf-8")
    assert content_hash(load_spec(str(copy))) == content_hash(load_spec("standard"))
    lenient = tmp_path / "lenient.toml"
    lenient.write_text(LENIENT, encoding="utf-8")
    assert content_hash(load_spec(str(lenient))) != content_hash(load_spec("standard"))


# ---------------------------------------------------------------------- shipped names


def test_a_variant_calling_itself_standard_is_refused_with_its_line(tmp_path: Path) -> None:
    variant = tmp_path / "mine.toml"
    variant.write_text(LENIENT.replace('name = "lenient"', '# looks harmless\nname = "standard"'), encoding="utf-8")
    with pytest.raises(SpecError, match=r"mine\.toml:3: the rules call themselves 'standard', the name of a shipped"):
        load_spec(str(variant))
    line = one_error_line(run("check", "--rules", str(variant), "--players", "5", "--max-states", "10"))
    assert f"{variant}:3:" in line


@pytest.mark.parametrize("stem", ["standard", "rebalance", "tie_passes"])
def test_a_file_named_like_a_shipped_rule_set_needs_a_name_of_its_own(tmp_path: Path, stem: str) -> None:
    variant = tmp_path / f"{stem}.toml"
    variant.write_text('extends = "standard"\n', encoding="utf-8")
    with pytest.raises(SpecError, match=r"the file's name gives the rules the name"):
        load_spec(str(variant))
    variant.write_text(f'extends = "standard"\nname = "{stem}_at_home"\n', encoding="utf-8")
    assert load_spec(str(variant)).name == f"{stem}_at_home"


def test_a_report_of_a_users_rules_file_is_written_after_the_run(tmp_path: Path) -> None:
    """A rules file whose name is not a shipped one: the report was refused only after the
    whole run (its name was loaded again as if shipped). Now written, naming the hash."""
    variant = tmp_path / "lenient.toml"
    variant.write_text(LENIENT, encoding="utf-8")
    out = tmp_path / "report"
    result = run("check", "--rules", str(variant), "--players", "5", "--property", "tracks_in_range",
                 "--max-states", "100", "--quiet", "--report", str(out))
    assert result.exit_code == 3, result.output          # the tiny limit: unknown, never a pass
    document = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert document["rules"] == "lenient" and document["rules_hash"] == content_hash(load_spec(str(variant)))
    assert document["rules_hash"] in (out / "junit.xml").read_text(encoding="utf-8")
    assert document["rules_hash"] in (out / "report.md").read_text(encoding="utf-8")
    assert document["rules_hash"] in (out / "report.html").read_text(encoding="utf-8")


def test_a_report_of_rules_with_a_shipped_name_is_refused_before_the_run(tmp_path: Path) -> None:
    variant = tmp_path / "variant.toml"
    variant.write_text(LENIENT.replace('name = "lenient"', 'name = "standard"'), encoding="utf-8")
    out = tmp_path / "report"
    one_error_line(run("check", "--rules", str(variant), "--players", "5", "--report", str(out),
                       "--baseline", "reports"))
    assert not out.exists()


# ---------------------------------------------------------------------- the terminal


ESCAPE = "\u001b[2K\r\u001b[31mverdict: ILLEGAL"


def test_a_game_id_with_control_sequences_is_printed_escaped(tmp_path: Path) -> None:
    game = tmp_path / "game.jsonl"
    game.write_text(json.dumps({"setup": {"game": "g" + ESCAPE, "players": 5}}) + "\n"
                    + json.dumps({"move": "nominate", "by": 0, "chancellor": 1, "ref": ESCAPE}) + "\n",
                    encoding="utf-8")
    for args in (("judge", str(game)), ("judge", str(game), str(game))):
        result = run(*args)
        assert result.exit_code == 0, result.output
        assert "\u001b" not in result.output and "\r" not in result.output
        assert "g\\x1b[2K\\r\\x1b[31mverdict: ILLEGAL" in result.stdout


def test_a_rules_file_with_a_control_character_is_refused(tmp_path: Path) -> None:
    variant = tmp_path / "loud.toml"
    variant.write_text('extends = "standard"\nname = "loud"\ndescription = "a\\u001b[31m red line"\n',
                       encoding="utf-8")
    line = one_error_line(run("play", "--rules", str(variant), "-n", "5"))
    assert "description: a control character '\\x1b'" in line


# ---------------------------------------------------------------------- the cluster


def test_a_bad_scheduler_security_file_is_one_line_before_the_work(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.toml"
    line = one_error_line(run("check", "--players", "5", "--scheduler", "tls://127.0.0.1:1",
                              "--scheduler-security", str(missing)))
    assert f"--scheduler-security {missing}" in line
    security = tmp_path / "tls.toml"
    security.write_text('ca_file = "ca.pem"\ncert_file = "client.pem"\n', encoding="utf-8")
    line = one_error_line(run("sweep", "--players", "5", "--dry-run", "--scheduler", "tls://127.0.0.1:1",
                              "--scheduler-security", str(security)))
    assert "'ca_file' names" in line and "which is not a file" in line
    security.write_text('ca = "ca.pem"\n', encoding="utf-8")
    assert "unknown key 'ca'" in one_error_line(run("mutate", "--players", "5", "--scheduler", "tls://127.0.0.1:1",
                                                    "--scheduler-security", str(security)))


def test_a_scheduler_neither_tls_nor_loopback_is_warned_about(tmp_path: Path) -> None:
    from verify.scale.run import exposed

    assert exposed("tcp://10.0.0.5:8786") and exposed("10.0.0.5:8786") and exposed("tcp://scheduler.example:8786")
    assert not exposed("tls://10.0.0.5:8786") and not exposed("tcp://127.0.0.1:8786")
    assert not exposed("localhost:8786") and not exposed("tcp://[::1]:8786")
    result = run("sweep", "--players", "5", "--dry-run", "--scheduler", "tcp://10.0.0.5:8786")
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("shrules: warning:")]
    assert len(warnings) == 1 and "can run code on the workers" in warnings[0]
    quiet = run("sweep", "--players", "5", "--dry-run", "--scheduler", "tcp://127.0.0.1:8786")
    assert "warning" not in quiet.stderr
