"""`shrules mutate --report DIR`: mutation.json (valid against its published schema, the
same run `--json` prints), mutation.md and mutation.html (tables in rulebook order, every
survivor with its game, every unknown with its reason, data escaped), and a bad DIR
refused before any mutant is decided. The real run is kept to three mutants at 5 players
decided by random games alone (seconds)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from verify.cli import main
from verify.diff.mutate import STATUSES, Outcome, Run
from verify.results import MutantStatus
from verify.report import write_mutation_report
from verify.report import mutation
from verify.report.schema import SchemaViolation, mutation_schema, validate_mutation

REPORT_DIR = Path(__file__).resolve().parents[1] / "verify" / "report"
SMALL_RUN = ["mutate", "-n", "5", "--operator", "boundary", "--operator", "swap_branches", "--rule", "R-E4",
             "--rule", "R-E6", "--random-only"]
"""Three mutants: one of R-E4 (the five-alive boundary, which the catalogue's permission
five_alive_frees_the_last_president kills), two of both R-E6 and R-E7."""


@pytest.fixture(scope="module")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Result]:
    """One real analysis, printed as JSON and written as a report."""
    directory = tmp_path_factory.mktemp("mutation") / "report"
    return directory, CliRunner().invoke(main, [*SMALL_RUN, "--json", "--report", str(directory)])


def _document(directory: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((directory / "mutation.json").read_text(encoding="utf-8"))
    return data


def test_the_report_writes_three_files_and_mutation_json_is_the_run_json_prints(
        small_run: tuple[Path, Result]) -> None:
    directory, result = small_run
    assert result.exit_code in (0, 3), result.output
    assert sorted(path.name for path in directory.iterdir()) == ["mutation.html", "mutation.json", "mutation.md"]
    document = _document(directory)
    validate_mutation(document)
    assert document == json.loads(result.stdout)
    assert f"report written to {directory}: mutation.html, mutation.json, mutation.md" in result.stderr
    assert document["exit_status"] == result.exit_code


def test_the_tables_add_up_to_the_mutants_run(small_run: tuple[Path, Result]) -> None:
    """Players and operators partition the outcomes; a mutant touching several rule IDs is
    counted under each, so the rule-ID rows add up to the (mutant, rule ID) pairs."""
    document = json.loads((small_run[0] / "mutation.json").read_text(encoding="utf-8"))
    outcomes = document["outcomes"]
    assert len(outcomes) == 3 and document["total"] == 3
    pairs = sum(len(o["rule_ids"]) or 1 for o in outcomes)
    assert pairs == 5      # R-E4 once, R-E6 and R-E7 twice each
    for key, expected in (("by_players", len(outcomes)), ("by_operator", len(outcomes)), ("by_rule_id", pairs)):
        rows = document[key]
        assert sum(row["mutants"] for row in rows) == expected, key
        for row in rows:
            assert row["mutants"] == sum(row[status] for status in STATUSES), row
    assert [row["rule_id"] for row in document["by_rule_id"]] == ["R-E4", "R-E6", "R-E7"]
    by_id = {row["rule_id"]: row["mutants"] for row in document["by_rule_id"]}
    assert by_id == {"R-E4": 1, "R-E6": 2, "R-E7": 2}
    for status in STATUSES:
        assert sum(row[status] for row in document["by_players"]) == document["counts"][status]


def test_the_markdown_and_the_page_show_the_tables_and_every_unknown(small_run: tuple[Path, Result]) -> None:
    directory = small_run[0]
    document = json.loads((directory / "mutation.json").read_text(encoding="utf-8"))
    markdown = (directory / "mutation.md").read_text(encoding="utf-8")
    page = (directory / "mutation.html").read_text(encoding="utf-8")
    assert "| players | mutants | killed | equivalent | survived | unknown | invalid | score |" in markdown
    assert markdown.index("| R-E4 |") < markdown.index("| R-E6 |") < markdown.index("| R-E7 |")
    assert "| `boundary` | 2 |" in markdown and "| `swap_branches` | 1 |" in markdown
    for outcome in document["outcomes"]:
        if outcome["status"] == "unknown":
            assert f"| #{outcome['number']} | 5 |" in markdown and outcome["detail"] in markdown
            assert f"<td>#{outcome['number']}</td>" in page
    (boundary,) = [o for o in document["outcomes"] if o["rule_ids"] == ["R-E4"]]
    assert boundary["status"] == "killed", boundary


def test_mutation_json_validates_with_a_full_json_schema_implementation(small_run: tuple[Path, Result]) -> None:
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed: the own validator ran")
    jsonschema.Draft202012Validator.check_schema(mutation_schema())
    jsonschema.validate(_document(small_run[0]), mutation_schema())


@pytest.mark.parametrize("make", ["file", "under a file"])
def test_a_bad_report_directory_exits_2_before_any_mutant(tmp_path: Path, make: str) -> None:
    blocker = tmp_path / "taken"
    blocker.write_text("not a directory\n", encoding="utf-8")
    target = blocker if make == "file" else blocker / "report"
    result = CliRunner().invoke(main, [*SMALL_RUN, "--report", str(target)])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("shrules: error: ") and result.output.count("\n") == 1, result.output
    assert "Traceback" not in result.output and "--report" in result.output and "mutation analysis" not in result.output
    assert blocker.read_text(encoding="utf-8") == "not a directory\n"


# ---------------------------------------------------------------- the pages, from a hand-made run

HOSTILE = '<script>alert("x")</script> & <b>bold</b>'


def _outcome(number: int, rule_ids: tuple[str, ...], status: str, description: str = "requirement dropped",
             detail: str = "", game: list[str] | None = None, operator: str = "negate") -> Outcome:
    return Outcome(number, operator, "nominate", rule_ids, description, 5, MutantStatus.parse(status), detail,
                   game or [])


def hand_made_run() -> Run:
    """Every status, rule IDs a string sort misorders, and data that looks like markup."""
    run = Run("standard", (5,), total=7, seconds=2.0)
    run.outcomes = [
        _outcome(1, ("R-E10",), "killed", detail="p: proved -> refuted"),
        _outcome(2, ("R-E9",), "survived", description=f"x < y -> {HOSTILE}", detail="told apart <here>",
                 game=["deal_roles(0, 8)", "nominate(<2>,)", "elect(31,)"], operator="boundary"),
        _outcome(3, (), "equivalent", detail="complete product search"),
        _outcome(4, ("D-1",), "unknown", detail=f"limit {HOSTILE}"),
        _outcome(5, ("R-S2", "R-E9"), "invalid", detail="does not compile"),
        _outcome(6, ("R-W1",), "killed"),
    ]
    run.not_run = 1
    return run


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []
        self.ids: set[str] = set()
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += attrs
        self.ids |= {value for name, value in attrs if name == "id" and value}

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_the_page_escapes_descriptions_reasons_and_moves() -> None:
    html = mutation.mutation_html(hand_made_run().to_json())
    page = _Page()
    page.feed(html)
    assert "script" not in page.tags
    assert "<script" not in html and "<b>bold" not in html and "<here>" not in html
    assert "x &lt; y -&gt; &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in html
    text = "".join(page.text)
    assert f"x < y -> {HOSTILE}" in text and "nominate(<2>,)" in text and f"limit {HOSTILE}" in text


def test_the_page_is_self_contained_with_every_link_inside_it() -> None:
    html = mutation.mutation_html(hand_made_run().to_json())
    page = _Page()
    page.feed(html)
    assert not {"script", "link", "img", "iframe"} & set(page.tags)
    assert not [value for name, value in page.attributes if name in ("src", "srcset")]
    hrefs = [value or "" for name, value in page.attributes if name == "href"]
    assert hrefs and all(h.startswith("#") and h[1:] in page.ids for h in hrefs), hrefs
    assert "url(" not in html and "@import" not in html and "http:" not in html and "https:" not in html


def test_the_survivor_is_shown_with_its_rule_id_its_mutation_and_its_numbered_game() -> None:
    document = hand_made_run().to_json()
    markdown = mutation.mutation_markdown(document)
    html = mutation.mutation_html(document)
    assert "### #2 R-E9, 5 players" in markdown
    assert f"`boundary` on `nominate`: `x < y -> {HOSTILE}`" in markdown
    assert "Told apart: told apart &lt;here&gt;" in markdown
    assert "```text\n1. deal_roles(0, 8)\n2. nominate(<2>,)\n3. elect(31,)\n```" in markdown
    assert ('<ol class="game"><li><code>deal_roles(0, 8)</code></li>'
            "<li><code>nominate(&lt;2&gt;,)</code></li>") in html
    assert f"| #4 | 5 | D-1 | `negate` | `nominate: requirement dropped` | limit {mutation.plain(HOSTILE)} |" in markdown


def test_markdown_keeps_every_piece_of_markup_like_data_in_code() -> None:
    markdown = mutation.mutation_markdown(hand_made_run().to_json())
    outside_code = re.sub(r"```.*?```", "", markdown, flags=re.S)
    outside_code = re.sub(r"`[^`]*`", "", outside_code)
    assert "<" not in outside_code, [line for line in outside_code.splitlines() if "<" in line]


def test_rule_ids_are_in_rulebook_order_and_the_score_leaves_out_what_was_not_decided() -> None:
    document = hand_made_run().to_json()
    assert [row["rule_id"] for row in document["by_rule_id"]] == ["R-S2", "R-E9", "R-E10", "R-W1", "D-1", "-"]
    rows = {row["rule_id"]: row for row in document["by_rule_id"]}
    assert (rows["R-E9"]["survived"], rows["R-E9"]["invalid"], rows["R-E9"]["score"]) == (1, 1, 0.0)
    assert rows["D-1"]["score"] is None and rows["R-W1"]["score"] == 1.0
    assert [row["operator"] for row in document["by_operator"]] == ["negate", "boundary"]   # operators' order
    (players,) = document["by_players"]
    assert (players["mutants"], players["score"]) == (6, round(2 / 3, 4))
    markdown = mutation.mutation_markdown(document)
    starts = [markdown.index(f"\n| {rule_id} |") for rule_id in ("R-S2", "R-E9", "R-E10", "R-W1", "D-1", "-")]
    assert starts == sorted(starts)
    assert "| 5 | 6 | 2 | 1 | 1 | 1 | 1 | 2/3 (66.7%) |" in markdown
    summary = hand_made_run().summary()
    assert [line.split()[0] for line in summary[summary.index("per rule ID:") + 1:][:6]] == [
        "R-S2", "R-E9", "R-E10", "R-W1", "D-1", "-"]


def test_a_document_that_breaks_the_schema_writes_nothing(tmp_path: Path) -> None:
    document = hand_made_run().to_json()
    document["outcomes"][0]["status"] = "maybe"
    with pytest.raises(SchemaViolation, match=r"outcomes\[0\]\.status"):
        write_mutation_report(document, tmp_path / "report")
    assert not (tmp_path / "report").exists()


def test_the_statuses_the_schema_the_pages_and_the_analysis_know_are_the_same() -> None:
    assert mutation.STATUSES == STATUSES
    assert tuple(mutation_schema()["properties"]["counts"]["required"]) == STATUSES
    assert tuple(mutation_schema()["$defs"]["outcome"]["properties"]["status"]["enum"]) == STATUSES


def test_schema_doc_lists_every_field_of_mutation_json() -> None:
    doc = (REPORT_DIR / "SCHEMA.md").read_text(encoding="utf-8")
    section = doc[doc.index("## The mutation analysis"):]
    schema = mutation_schema()
    for key in [*schema["properties"], *schema["$defs"]["outcome"]["properties"],
                *schema["$defs"]["players_row"]["properties"], "rule_id", "operator"]:
        assert f"`{key}`" in section, key
    assert set(hand_made_run().to_json()) == set(schema["required"]) == set(schema["properties"])
