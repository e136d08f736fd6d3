"""Verification reports: deterministic bytes, a valid schema, JUnit that CI parses,
Markdown and HTML that say what failed, and traces that replay (verify/report/)."""

from __future__ import annotations

import json
import random
from dataclasses import fields, replace
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from engine.trace import replay_itf
from report_samples import PLAYERS, RUN, all_as_expected, sample_results, with_verdict
from verify.report import RunInfo, exit_status, report_document, write_report
from verify.report.markdown import report_markdown
from verify.report.records import FACT_FIELDS, result_record
from verify.report.schema import SchemaViolation, report_schema, validate, validate_report
from verify.results import (EXIT_BAD_INPUT, EXIT_FAILED, EXIT_LIMIT, EXIT_OK, Evidence, Facts, PropertyResult, Proved,
                            Unknown)

REPORT_DIR = Path(__file__).resolve().parents[1] / "verify" / "report"


def files_of(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("report")
    write_report(sample_results(), directory, RUN)
    return directory


# ------------------------------------------------------------------ determinism

def test_the_same_results_give_the_same_bytes_in_every_file(written: Path, tmp_path: Path) -> None:
    shuffled = sample_results()
    random.Random(7).shuffle(shuffled)
    write_report(shuffled, tmp_path, RUN)
    assert files_of(tmp_path) == files_of(written)


def test_other_timings_change_only_the_timed_files(written: Path, tmp_path: Path) -> None:
    write_report(sample_results(seconds=3.0), tmp_path, RunInfo("standard", PLAYERS, "explicit", total_seconds=99.0))
    before, after = files_of(written), files_of(tmp_path)
    changed = {name for name in before if before[name] != after[name]}
    assert changed == {"timings.json", "junit.xml", "report.md", "report.html"}
    assert json.loads(after["timings.json"])["run_seconds"] == 99.0


def test_no_absolute_path_and_no_timestamp_in_the_report(written: Path) -> None:
    for name, data in files_of(written).items():
        text = data.decode("utf-8")
        assert str(written) not in text and str(Path.home()) not in text, name
    document = json.loads((written / "report.json").read_text(encoding="utf-8"))
    assert "seconds" not in json.dumps(document)


def test_report_json_has_sorted_keys_and_entries(written: Path) -> None:
    text = (written / "report.json").read_text(encoding="utf-8")
    document = json.loads(text)
    assert text == json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    keys = [(r["property"], r["players"]) for r in document["results"]]
    assert keys == sorted(keys) and len(keys) == len(sample_results())


def test_stale_traces_of_an_earlier_run_are_removed(tmp_path: Path) -> None:
    write_report(sample_results(), tmp_path, RUN)
    (tmp_path / "traces" / "gone-5.itf.json").write_text("{}", encoding="utf-8")
    write_report(all_as_expected(), tmp_path, RUN)
    names = {p.name for p in (tmp_path / "traces").iterdir()}
    assert "gone-5.itf.json" not in names and "nominee_eligible-5.itf.json" not in names
    assert "liberal_policy_win-5.itf.json" in names


def test_two_results_for_one_check_are_refused() -> None:
    results = sample_results()
    with pytest.raises(ValueError, match="two results for property 'terminates' with 5 players"):
        report_document(results + [r for r in results if (r.property, r.players) == ("terminates", 5)], RUN)


# ------------------------------------------------------------------ report.json and its schema

def test_report_json_validates_against_the_published_schema(written: Path) -> None:
    validate_report(json.loads((written / "report.json").read_text(encoding="utf-8")))


def test_report_json_validates_with_a_full_json_schema_implementation(written: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed: the own validator ran")
    jsonschema.Draft202012Validator.check_schema(report_schema())
    jsonschema.validate(json.loads((written / "report.json").read_text(encoding="utf-8")), report_schema())


def test_every_record_key_is_in_the_schema_and_required() -> None:
    record_schema = report_schema()["$defs"]["result"]
    for result in sample_results():
        assert set(result_record(result)) == set(record_schema["required"]) == set(record_schema["properties"])


@pytest.mark.parametrize("path,value,message", [
    (("results", 0, "verdict"), "maybe", "expected one of"),
    (("results", 0, "players"), "5", "expected integer"),
    (("results", 0, "as_expected"), 1, "expected boolean or null"),
    (("summary", "checks"), -1, "below the minimum"),
    (("results", 0, "trace"), "/tmp/x.itf.json", "does not match"),
    (("version",), 2, "expected 1"),
])
def test_the_validator_catches_a_wrong_value(path: tuple[object, ...], value: object, message: str) -> None:
    document = report_document(sample_results(), RUN)
    target: Any = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(SchemaViolation, match=message):
        validate_report(document)


def test_the_validator_catches_a_missing_and_an_unknown_key() -> None:
    document = report_document(sample_results(), RUN)
    del document["results"][0]["method"]
    with pytest.raises(SchemaViolation, match=r"\$.results\[0\]: the key 'method' is missing"):
        validate_report(document)
    document = report_document(sample_results(), RUN)
    document["results"][0]["seconds"] = 1.0
    with pytest.raises(SchemaViolation, match="'seconds' is not in the schema"):
        validate_report(document)
    with pytest.raises(SchemaViolation, match="does not know"):
        validate({}, {"oneOf": []})


def test_the_records_carry_verdict_evidence_and_trace_links(written: Path) -> None:
    document = json.loads((written / "report.json").read_text(encoding="utf-8"))
    by_key = {(r["property"], r["players"]): r for r in document["results"]}
    refuted = by_key[("nominee_eligible", 5)]
    assert (refuted["verdict"], refuted["as_expected"], refuted["status"]) == ("refuted", False, "not-as-expected")
    assert refuted["trace"] == "traces/nominee_eligible-5.itf.json" and refuted["trace_moves"] == 25
    assert refuted["message"] == "seat 2 was nominated while term-limited"
    expected_failure = by_key[("nominee_eligible", 6)]
    assert (expected_failure["expect"], expected_failure["status"]) == ("fails", "as-expected")
    unknown = by_key[("chaos_finds_a_tile", 6)]
    assert (unknown["verdict"], unknown["as_expected"], unknown["reason"]) == (
        "unknown", None, "state limit 5,000,000 reached")
    fewest = by_key[("liberal_policy_win", 5)]
    assert (fewest["fewest_elections"], fewest["fewest_elections_trace"]) == (
        5, "traces/liberal_policy_win-5.fewest-elections.itf.json")
    witness = by_key[("fascist_hitler_win", 5)]
    assert (witness["method"], witness["depth"], witness["elections"]) == ("bmc", 25, 4)
    proved = by_key[("deck_conservation_liberal", 6)]
    assert (proved["states"], proved["reachable_states"], proved["reductions"]) == (
        1_450_000, 1_450_000, ["cone", "symmetry"])
    assert proved["description"] == "Liberal tiles are conserved"
    assert by_key[("terminates", 5)]["value"] == 145
    assert document["reachable_states"] == [{"players": 5, "states": 182_000}, {"players": 6, "states": 1_450_000}]
    assert document["summary"] == {"checks": 14, "as_expected": 10, "not_as_expected": 3, "unknown": 1,
                                   "verdicts": {"proved": 5, "witness": 4, "refuted": 2, "no-witness": 2,
                                                "vacuous": 0, "unknown": 1}}
    assert document["exit_status"] == 1


def test_facts_outside_the_documented_ones_do_not_reach_the_report() -> None:
    results = sample_results()
    noisy = [replace(r, facts=replace(r.facts, wall_seconds=12.5, backend="smt", longest_moves=3))
             for r in results]
    assert report_document(noisy, RUN) == report_document(results, RUN)
    assert {"description", "group", "reachable_states", "reductions", "fewest_elections",
            "fewest_elections_game"} == set(FACT_FIELDS) <= {f.name for f in fields(Facts)}


# ------------------------------------------------------------------ exit status

@pytest.mark.parametrize("case,expected", [
    ("all as expected", 0),
    ("one unknown", 3),
    ("one not as expected", 1),
    ("not as expected and unknown", 1),
    ("a baseline change", 1),
])
def test_exit_status(case: str, expected: int) -> None:
    good = all_as_expected()
    unknown = Unknown(Evidence("explicit", 10, None, 3), "depth limit 3")
    results = {"all as expected": good,
               "one unknown": with_verdict(good, "terminates", 5, unknown),
               "one not as expected": [r for r in sample_results() if r.as_expected is not None],
               "not as expected and unknown": sample_results(),
               "a baseline change": good}[case]
    assert exit_status(results, ["changed"] if case == "a baseline change" else []) == expected


def test_the_exit_statuses_are_those_the_readme_promises() -> None:
    # one definition for the reports and every command (verify/results.py)
    assert (EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_LIMIT) == (0, 1, 2, 3)


# ------------------------------------------------------------------ traces

def test_every_witness_and_counterexample_has_an_itf_trace_that_replays(written: Path) -> None:
    names = sorted(p.name for p in (written / "traces").iterdir())
    assert names == ["fascist_hitler_win-5.itf.json", "fascist_hitler_win-6.itf.json",
                     "liberal_policy_win-5.fewest-elections.itf.json", "liberal_policy_win-5.itf.json",
                     "liberal_policy_win-6.fewest-elections.itf.json", "liberal_policy_win-6.itf.json",
                     "nominee_eligible-5.itf.json", "nominee_eligible-6.itf.json"]
    for name in names:
        result = replay_itf(written / "traces" / name)
        assert result.ok, (name, result.message)
    meta = json.loads((written / "traces" / "nominee_eligible-5.itf.json").read_text(encoding="utf-8"))["#meta"]
    assert meta["players"] == 5 and "counterexample to nominee_eligible" in meta["description"]


# ------------------------------------------------------------------ junit.xml

def test_junit_has_one_case_per_check_failures_with_traces_and_skips_with_reasons(written: Path) -> None:
    root = ET.parse(written / "junit.xml").getroot()
    suite = root.find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    assert len(cases) == len(sample_results())
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped"), suite.get("errors")) == ("14", "3", "1", "0")
    by_name = {case.get("name"): case for case in cases}
    failure = by_name["nominee_eligible[5 players]"].find("failure")
    assert failure is not None and failure.text is not None
    assert "refuted, expected holds" in (failure.get("message") or "")
    assert "Round 1 · President seat" in failure.text and "term-limited" in failure.text
    no_witness = by_name["veto_sets_off_chaos[6 players]"].find("failure")
    assert no_witness is not None and no_witness.get("type") == "no-witness"
    skipped = by_name["chaos_finds_a_tile[6 players]"].find("skipped")
    assert skipped is not None and skipped.get("message") == "unknown: state limit 5,000,000 reached"
    passed = by_name["nominee_eligible[6 players]"]
    assert passed.find("failure") is None and passed.find("skipped") is None
    assert "Round 1" in (passed.findtext("system-out") or "")
    assert by_name["terminates[6 players]"].get("classname") == "shrules.standard.terminates"


# ------------------------------------------------------------------ report.md

def test_markdown_has_the_outcome_matrix_unknowns_slowest_and_counterexamples(written: Path) -> None:
    text = (written / "report.md").read_text(encoding="utf-8")
    assert text.startswith("# shrules: the standard rules\n")
    assert "**❌ not as expected** — 10 of 14 checks as expected, 3 not as expected, 1 unknown (exit status 1)." in text
    assert "| `nominee_eligible` | conformance | always | ❌ **refuted** | refuted |" in text
    assert "| `deck_conservation_liberal` | soundness | always |" in text
    assert "| `chaos_finds_a_tile` |  | always | proved | ⚠️ unknown |" in text
    assert "| chaos_finds_a_tile | 6 | explicit | state limit 5,000,000 reached |" in text
    slowest = text.split("## Slowest checks")[1]
    assert slowest.index("chaos_finds_a_tile | 6") < slowest.index("deck_conservation_liberal | 6")
    assert "<details open><summary><code>nominee_eligible</code>, 5 players: refuted, expected to hold" in text
    assert "<details><summary><code>nominee_eligible</code>, 6 players: refuted (as expected)" in text
    assert text.count("```text") == 2


def test_checks_decided_by_one_search_are_one_row_of_the_slowest() -> None:
    shared = Evidence("explicit", 1_000, 2_000, 40, 12.5)
    results = [PropertyResult(name, 5, "always", (), "holds", Proved(shared)) for name in ("a", "b", "c")]
    results.append(PropertyResult("d", 5, "always", (), "holds", Proved(Evidence("k-induction", None, None, 2, 1.0))))
    slowest = report_markdown(results, RunInfo("standard", (5,), "explicit")).split("## Slowest checks")[1]
    assert "| 3 properties, one search | 5 | explicit | 1,000 | 12.50 |" in slowest
    assert "| d | 5 | k-induction |  | 1.00 |" in slowest


def test_markdown_of_a_clean_run_says_so() -> None:
    text = report_markdown(all_as_expected(), RUN)
    assert "**✅ every verdict as expected**" in text and "## Counterexamples" in text
    assert "## Unknown verdicts" not in text


# ------------------------------------------------------------------ report.html

class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += attrs
        self.ids |= {value for name, value in attrs if name == "id" and value}


def test_html_is_one_self_contained_page_without_script(written: Path) -> None:
    text = (written / "report.html").read_text(encoding="utf-8")
    page = _Page()
    page.feed(text)
    assert "script" not in page.tags and "link" not in page.tags and "img" not in page.tags
    assert not [value for name, value in page.attributes if name in ("src", "srcset")]
    hrefs = [value or "" for name, value in page.attributes if name == "href"]
    assert all(h.startswith("#") or h.startswith("traces/") for h in hrefs), hrefs
    assert "url(" not in text and "@import" not in text
    assert page.tags.count("svg") == 3
    for href in hrefs:
        if href.startswith("#"):
            assert href[1:] in page.ids, f"dangling link {href}"
        else:
            assert (written / href).is_file(), href


def test_html_shows_the_matrix_the_failures_and_the_traces(written: Path) -> None:
    text = (written / "report.html").read_text(encoding="utf-8")
    assert 'class="v v-refuted s-not-as-expected"' in text and "✗ refuted" in text
    assert 'class="v v-unknown s-unknown"' in text and "reason: state limit 5,000,000 reached" in text
    assert '<details id="trace-nominee_eligible-5" open class="bad">' in text
    assert "Round 1 · President seat" in text
    assert "Reachable states per player count" in text and "Shortest game to each witness" in text
    assert "<title>liberal_policy_win, 5:" in text  # a point of the shortest-game chart


def test_html_of_a_run_without_charts_data_still_renders(tmp_path: Path) -> None:
    results = [r for r in sample_results() if r.property == "chaos_finds_a_tile" and r.players == 5]
    write_report(results, tmp_path, RunInfo("standard", (5,), "k-induction"))
    text = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "no data in this run" in text and "No witness or counterexample in this run." in text


def test_schema_doc_lists_every_extra_key_and_record_field() -> None:
    doc = (REPORT_DIR / "SCHEMA.md").read_text(encoding="utf-8")
    for key in FACT_FIELDS:
        assert f"`facts.{key}`" in doc, key
    for key in report_schema()["$defs"]["result"]["properties"]:
        assert f"`{key}`" in doc, key
    proved = Proved(Evidence("explicit", 1, None, None))
    assert proved.verdict in doc
