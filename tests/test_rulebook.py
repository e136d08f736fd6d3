"""The rulebook in the box and the vocabulary of questions.

Every rule ID cited anywhere in spec/ has its full text in English and German with its
sources in the seed documents (spec/rulebook/, spec/ruletext.py); `shrules rules` prints
it; `ask` shows a citation's short text; `shrules words` lists every name a question may
use with what it means, and a name used by meaning (`chancellor`) is answered with the
name that means it. All fast: no question here needs a search.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from spec import ruletext
from spec.errors import SpecError
from spec.lang.check import BUILTINS
from spec.loader import load_rule_texts, load_rulebook, load_spec
from spec.moves import ANY, table_words
from spec.properties import state_scope
from spec.ruletext import load_seeds
from spec.temporal import FUNCTIONS
from spec.vocabulary import load_meanings, vocabulary
from verify.cli import main

SPEC = Path(__file__).resolve().parents[1] / "spec"
CITED = re.compile(r"\b(R-[SELXVW]\d+|D-\d+)\b")
MISTAKES = {"R-E99"}
"""IDs spec/ writes as examples of a wrong citation (the loader's message), not as citations."""


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


# ---------------------------------------------------------------------- the texts


def test_every_rule_id_has_a_text_in_both_languages_and_a_source() -> None:
    texts = load_rule_texts()
    assert list(texts) == list(load_rulebook()), "the texts follow the rulebook's IDs and order"
    for rule_id, text in texts.items():
        for lang in ("en", "de"):
            assert text.paragraphs[lang] and all(p.strip() for p in text.paragraphs[lang]), (rule_id, lang)
            assert text.full(lang).startswith(text.short(lang))
        assert text.short("en") != text.short("de"), f"{rule_id}: the German is the English"
        assert text.sources and all(s.at.strip() for s in text.sources), rule_id
    assert {s.seed.key for t in texts.values() for s in t.sources} == set(load_seeds())


def test_every_rule_id_cited_anywhere_in_spec_has_a_text() -> None:
    texts = load_rule_texts()
    cited: dict[str, str] = {}
    for path in sorted(SPEC.rglob("*")):
        if path.is_file() and path.suffix in (".toml", ".md", ".py", ".jsonl"):
            for rule_id in CITED.findall(path.read_text(encoding="utf-8")):
                cited.setdefault(rule_id, str(path.relative_to(SPEC)))
    assert len(cited) >= 40, "the scan found too few citations to mean anything"
    missing = {rule_id: where for rule_id, where in cited.items() if rule_id not in texts and rule_id not in MISTAKES}
    assert not missing, f"rule IDs cited in spec/ without a text: {missing}"


def _words(text: str, run: int) -> set[str]:
    """Every run of `run` words of `text`, lower-cased."""
    words = re.findall(r"[\w'-]+", text.lower())
    return {" ".join(words[i:i + run]) for i in range(len(words) - run + 1)}


def test_the_texts_are_our_own_words_not_the_rulebook_s() -> None:
    found = [path for path in (SPEC.parents[1] / "shared" / "RULES.md", SPEC.parent / "RULES.md") if path.is_file()]
    if not found:
        pytest.skip("RULES.md not beside the repository; cannot compare the wording")
    rulebook = _words(found[0].read_text(encoding="utf-8"), 7)
    for rule_id, text in load_rule_texts().items():
        # the boards of R-X7 and the counts of R-S2 are tables of facts, the same in any words
        prose = [p for p in text.paragraphs["en"] if not (rule_id == "R-X7" and p[0].isdigit())]
        copied = sorted(run for run in _words(" ".join(prose), 7) & rulebook if not re.fullmatch(r"[\d ]+", run))
        assert not copied, f"{rule_id} repeats RULES.md word for word: {copied[:3]}"


def _texts_in(folder: Path, body: str) -> None:
    (folder / "x.toml").write_text(body, encoding="utf-8")
    ruletext._load_texts(("R-S1",), folder)


@pytest.mark.parametrize("body, said", [
    ('["R-S1"]\nsources = ["rules: Setup"]\nen = "Five to ten."\n', "no text in 'de'"),
    ('["R-S1"]\nsources = ["rules: Setup"]\nen = "Five to ten."\nde = "  "\n', "no text in 'de'"),
    ('["R-S1"]\nsources = []\nen = "Five."\nde = "Fünf."\n', "no sources"),
    ('["R-S1"]\nsources = ["manual: page 3"]\nen = "Five."\nde = "Fünf."\n', "names no seed document"),
    ('["R-S1"]\nsources = ["rules: Setup"]\nen = "Five."\nde = "Fünf."\n["R-Z9"]\nen = "x"\n',
     "not a rule ID of spec/rulebook.toml"),
    ("", "no text for R-S1"),
])
def test_a_text_missing_a_language_a_source_or_an_id_is_refused(tmp_path: Path, body: str, said: str) -> None:
    with pytest.raises(SpecError, match=re.escape(said)):
        _texts_in(tmp_path, body)


# ---------------------------------------------------------------------- shrules rules


def test_rules_prints_r_e4_in_english_and_german_with_its_sources() -> None:
    code, out, _ = run("rules", "R-E4")
    text = load_rule_texts()["R-E4"]
    assert code == 0
    flat = " ".join(out.split())
    assert text.short("en") in flat and text.short("de") in flat
    assert load_rulebook()["R-E4"] in out and load_rulebook("de")["R-E4"] in out
    assert "five or fewer" in flat and "fünf oder weniger" in flat
    assert "handbook" in out and "001_76f46cffa2eba924.txt" in out


def test_rules_in_one_language_and_as_json() -> None:
    code, out, _ = run("rules", "R-E4", "--lang", "de")
    assert code == 0 and "Solange fünf oder weniger" in out and "While five or fewer" not in out
    code, out, _ = run("rules", "R-E4", "R-X4", "--json", "--lang", "en")
    data = json.loads(out)
    assert code == 0 and [d["id"] for d in data] == ["R-E4", "R-X4"]
    assert set(data[0]["text"]) == {"en"} and data[0]["sources"][0]["seed"] == "handbook"


def test_rules_alone_lists_every_id_with_its_title() -> None:
    code, out, _ = run("rules")
    assert code == 0
    for rule_id, title in load_rulebook().items():
        assert re.search(rf"^{re.escape(rule_id)}\s+{re.escape(title)}$", out, re.M), rule_id


@pytest.mark.parametrize("asked, closest", [("R-E44", "R-E4"), ("R-X77", "R-X7"), ("D-9", "D-")])
def test_an_unknown_rule_id_is_one_line_with_the_closest_exit_2(asked: str, closest: str) -> None:
    code, out, err = run("rules", "R-E4", asked)
    assert code == 2 and out == "", "nothing is printed before every ID is known"
    assert len(err.strip().splitlines()) == 1
    assert f"unknown rule ID '{asked}'. Did you mean '{closest}" in err


def test_rules_refuses_a_language_it_does_not_have() -> None:
    code, _, err = run("rules", "R-E4", "--lang", "fr")
    assert code == 2 and "--lang 'fr'" in err


def test_ask_with_a_rule_id_points_at_the_rule() -> None:
    code, _, err = run("ask", "R-E4")
    assert code == 2 and "`shrules rules R-E4`" in err and "five-alive-last-president" in err


# ---------------------------------------------------------------------- ask shows what a citation says


def test_ask_shows_each_cited_rule_s_short_text_under_rests_on() -> None:
    code, out, _ = run("ask", "four-players")
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Rests on: R-S1 ("))
    below = " ".join(line.strip() for line in lines[at + 1:at + 4])
    assert code == 0 and below.startswith("R-S1  " + load_rule_texts()["R-S1"].short("en")[:40])
    code, out, _ = run("ask", "four-players", "--json")
    assert json.loads(out)["rules"][0]["short"] == load_rule_texts()["R-S1"].short("en")


# ---------------------------------------------------------------------- the vocabulary


def test_words_lists_nominee_with_its_meaning_in_both_languages() -> None:
    code, out, _ = run("words")
    meaning = load_meanings()["names"]["nominee"]
    flat = " ".join(out.split())
    assert code == 0 and re.search(r"^  nominee  \(seat\?\)$", out, re.M)
    assert meaning.text["en"] in flat and meaning.text["de"] in flat
    assert "sitting Chancellor" in meaning.text["en"]
    code, out, _ = run("words", "--json", "--lang", "de")
    fields = {e["name"]: e for e in json.loads(out)["field"]}
    assert fields["nominee"]["meaning"] == {"de": meaning.text["de"]}
    assert fields["election_tracker"]["range"] == "0..tracker_limit (3)"


def test_every_name_of_the_standard_rules_has_a_meaning_and_every_meaning_a_name() -> None:
    spec = load_spec()
    listed = vocabulary(spec)
    without = [f"{e.kind} {e.name}" for entries in listed.values() for e in entries
               if e.meaning is None and e.name != "after_FIELD"]
    assert not without, f"names without a meaning in spec/vocabulary.toml: {without}"
    meanings = load_meanings()
    variants = [load_spec(path.stem) for path in sorted((SPEC / "variants").glob("*.toml"))]
    names = set().union(*(state_scope(rules).names for rules in [spec, *variants]))
    assert set(meanings["names"]) - names == set(), "meanings for names no shipped rules have"
    for rules in variants:
        assert all(e.meaning for e in vocabulary(rules)["field"]), f"a field of {rules.name} without a meaning"
    rule_params = {f"{r.name}.{p}" for r in spec.rules for p in [q.name for q in r.params] + [k for k, _ in r.reveals]}
    assert set(meanings["params"]) - rule_params == set()
    assert set(meanings["words"]) == set(table_words(spec)) | {ANY}
    assert set(meanings["functions"]) == set(BUILTINS) | set(FUNCTIONS)


@pytest.mark.parametrize("expression, meant", [
    ("president == chancellor", "nominee"),
    ("president == Kanzler", "nominee"),
    ("tracker == 2", "election_tracker"),
    ("count(dead) == 1", "alive"),
])
def test_a_name_used_by_its_meaning_is_answered_with_the_name_that_means_it(expression: str, meant: str) -> None:
    code, out, err = run("ask", "--players", "5", "--can", expression)
    assert code == 2 and out == ""
    assert f"`{meant}` is {load_meanings()['names'][meant].text['en']}" in err


def test_a_misspelt_name_is_still_answered_by_spelling() -> None:
    code, _, err = run("ask", "--players", "5", "--can", "last_chancelor == 2")
    assert code == 2 and "Did you mean 'last_chancellor'?" in err


def test_a_name_of_the_move_is_not_taken_for_a_word() -> None:
    # over the nomination `chancellor` is the move's own parameter: it must parse, not be corrected
    from spec.disputes import query
    prop = query(load_spec(), "q", "sometimes", "chancellor == last_president", ("nominate",))
    assert prop.move is not None


def test_the_vocabulary_file_is_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from spec import vocabulary as module

    bad = tmp_path / "vocabulary.toml"
    bad.write_text('[names.nominee]\nen = "the Chancellor"\n', encoding="utf-8")
    monkeypatch.setattr(module, "VOCABULARY_FILE", bad)
    module.load_meanings.cache_clear()
    try:
        with pytest.raises(SpecError, match="no meaning in 'de'"):
            module.load_meanings()
    finally:
        module.load_meanings.cache_clear()
