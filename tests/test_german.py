"""German throughout: `--lang de` shows no English sentence unless it is marked as English.

The German of the rules lives in spec/ beside the English: the rule titles (`[rules_de]` of
spec/rulebook.toml), each rule's move sentence (`says_de`) and each requirement's reason
(`why_de`); the engine's own frame is in engine/words.py. These tests render German game
records and reasons from played games, so every rule's `says_de` and many `why_de` are
shown, and look for English words outside what is marked `[en]`, the catalogue's note
"(keine deutsche Fassung …)", rule IDs and the formal query.
"""

from __future__ import annotations

import re
from pathlib import Path
from random import Random

import pytest
from click.testing import CliRunner

from engine.game import IllegalMove, Move, compiled_game
from engine.play import random_game
from engine.words import UNTRANSLATED
from spec.disputes import DISPUTES_FILE
from spec.errors import SpecError
from spec.loader import HOLE, load_rulebook, load_spec
from verify.cli import main
from verify.lawyer.ask import catalogue
from verify.lawyer.words import WORDS
from verify.rules import Rules

STANDARD_RULES = Rules.named("standard")

ENGLISH = re.compile(
    r"\b(the|is|are|seat|seats|President|Presidential|Chancellor|Election|Tracker|policy|policies|tile|"
    r"tiles|votes?|players?|Round|chance|game|wins?|not|and|to|of|has|only|draws|enacts?|discards?|"
    r"nominates?|elected|rejected|Liberals|Fascists|Game|over|no|none|Yes|No|candidacy|pile)\b")
"""Words of the English move sentences, reasons and frame that German text never uses."""

PLAIN = re.compile(r"'[^']*'|\[(?:R-|D-)[^\]]*\]|\((?:R-|D-)[A-Z0-9-]+\)|\b[a-z0-9]+(?:-[a-z0-9]+)+\b")
"""What may stand in German text without being English: a rule or phase name in quotes,
rule IDs in brackets, a catalogue entry's id (`four-players`)."""


def english_in(text: str) -> list[str]:
    """The English words of `text`, leaving out lines marked as English, the formal query
    and the names and IDs of PLAIN."""
    found = []
    note = WORDS["de"]["english_only"]
    for line in text.splitlines():
        if UNTRANSLATED.strip() in line or note in line or line.strip().startswith(("Formal:", "Formally:")):
            continue
        found += ENGLISH.findall(PLAIN.sub(" ", line))
    return found


def run(*args: str) -> str:
    done = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return done.output


# ---------------------------------------------------------------------- the spec's German


def test_every_frame_word_has_its_german() -> None:
    """The Python-written frames (engine, answers, book) fall back to English for a missing
    key, silently: so none may be missing."""
    from engine.words import FRAME
    from verify.book.frame import FRAME as BOOK

    for table in (FRAME, WORDS, BOOK):
        assert set(table["en"]) <= set(table["de"]), sorted(set(table["en"]) - set(table["de"]))


def test_every_rule_id_has_a_german_title() -> None:
    english, german = load_rulebook(), load_rulebook("de")
    assert list(german) == list(english)
    assert all(german[rule_id] != english[rule_id] for rule_id in english if rule_id != "R-S1")
    assert load_spec().titles("de") == german


def test_a_rulebook_without_a_german_title_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import spec.loader as loader

    text = (loader.SPEC_DIR / "rulebook.toml").read_text(encoding="utf-8")
    (tmp_path / "rulebook.toml").write_text(re.sub(r'(?m)^"R-E3" = "Sperren.*\n', "", text), encoding="utf-8")
    monkeypatch.setattr(loader, "SPEC_DIR", tmp_path)
    with pytest.raises(SpecError, match="no title for R-E3"):
        load_rulebook("de")


def test_every_rule_and_requirement_of_the_rules_speaks_german() -> None:
    for rule in load_spec().rules:
        assert rule.says is not None and rule.says_de is not None, rule.name
        english = set(HOLE.findall(rule.says.text))
        assert set(HOLE.findall(rule.says_de.text)) <= english, rule.name
        for requirement in rule.requires:
            assert requirement.why_de is not None, (rule.name, requirement.text)
            assert set(HOLE.findall(requirement.why_de.text)) <= set(HOLE.findall(requirement.why.text))


@pytest.mark.parametrize("says_de, message", [
    ("Platz {hitler} nominiert", "shows {hitler}, which the English one does not"),
    ("Platz {__import__('os')}", "is not a builtin"),
    ("", "non-empty"),
])
def test_a_german_template_shows_only_the_english_ones_values(tmp_path: Path, says_de: str, message: str) -> None:
    variant = tmp_path / "v.toml"
    variant.write_text(f'extends = "standard"\nname = "v"\n\n[[rule]]\nname = "nominate"\nsays_de = "{says_de}"\n',
                       encoding="utf-8")
    with pytest.raises(SpecError, match=re.escape(message)):
        load_spec(str(variant))


def test_a_variant_that_rewrites_says_without_german_shows_marked_english() -> None:
    spec = load_spec("mistakes/dead_vote")
    assert spec.rule("elect").says_de is None and spec.rule("nominate").says_de is not None
    game = compiled_game(5, "mistakes/dead_vote")
    lines = random_game(game, seed=3).lines(changes=False, lang="de")
    votes = [line for line in lines if "Ja" in line and "Nein" in line]
    assert votes and all(line.strip().startswith(UNTRANSLATED.strip()) for line in votes)
    assert not english_in("\n".join(lines))


def test_a_requirement_rewritten_without_german_is_marked(tmp_path: Path) -> None:
    variant = tmp_path / "v.toml"
    variant.write_text('extends = "standard"\nname = "v"\n\n[[requirement]]\nrule = "nominate"\nid = "R-E2"\n'
                       'why = "the candidate may not pick himself"\n', encoding="utf-8")
    from engine import new_game

    state = new_game(5, seed=1, rules=str(variant))
    game = compiled_game(5, str(variant))
    president = state[game.spec.field_index("president")]
    with pytest.raises(IllegalMove) as caught:
        game.check(state, Move("nominate", (president,)))
    assert caught.value.said("de") == UNTRANSLATED + "the candidate may not pick himself"


# ---------------------------------------------------------------------- no English in German output


def test_german_game_records_and_reasons_have_no_english() -> None:
    """Random games at every count in German, each rule's move sentence (the rare ones, a veto,
    on the game's last state), and at some states a random move of each rule of the phase
    tried, its reason in German."""
    shown: set[str] = set()
    reasons = 0
    rng = Random(7)
    for players, seed in [(5, 1), (6, 2), (7, 3), (8, 4), (9, 5), (10, 6), (5, 7), (7, 8), (10, 9), (6, 10)] * 2:
        game = compiled_game(players)
        trace = random_game(game, seed=seed + 100 * players)
        text = trace.text(changes=False, lang="de")
        assert not english_in(text), (players, seed, english_in(text)[:5])
        shown |= {move.rule for move, _ in trace.steps}
        for before in trace.states[::3]:
            for move in game.legal_moves(before):
                assert not english_in(game.says(before, move, "de")), move
                shown.add(move.rule)
            for compiled in game.by_phase[before[game.phase_index]]:
                domains = [list(domain(before)) for domain in compiled.domains]
                if not all(domains):
                    continue
                args = tuple(rng.choice(values) for values in domains)
                try:
                    game.check(before, Move(compiled.rule.name, args), by=rng.randrange(players))
                except IllegalMove as error:
                    reasons += 1
                    assert error.reason_de is not None and not english_in(error.said("de")), error.said("de")
        for compiled in game.by_name.values():   # every rule's says_de, the rare ones too (a veto)
            args = tuple(min(domain(trace.end), default=0) for domain in compiled.domains)
            assert not english_in(game.says(trace.end, Move(compiled.rule.name, args), "de")), compiled.rule.name
    assert len(shown) > 20
    assert reasons > 100


def test_ask_in_german_has_no_english_sentence() -> None:
    """A witness game, two rulings on a move (one by the wrong seat), a rule-text answer and
    the catalogue listing: German throughout, nothing even marked as English."""
    for args in (["tie-rejects"], ["last-president-chancellor-seven"], ["veto-by-president"], ["four-players"], []):
        text = run("ask", *args, "--lang", "de")
        assert not english_in(text) and UNTRANSLATED not in text, (args, english_in(text))
    # which seats the shortest game uses is the search's choice; the sentence is German
    assert re.search(r"Platz \d+ nominiert Platz \d+ als Kanzler", run("ask", "tie-rejects", "--lang", "de"))


def test_play_and_judge_in_german_have_no_english_sentence() -> None:
    text = run("play", "-n", "7", "-s", "3", "--lang", "de")
    assert text.startswith("Ein Spiel mit 7 Personen") and not english_in(text), english_in(text)[:5]
    examples = Path(__file__).parent.parent / "engine" / "examples"
    text = run("judge", str(examples / "illegal_term_limit.jsonl"), "--lang", "de")
    assert "R-E3: Platz 2 wurde zuletzt zum Kanzler gewählt und ist gesperrt" in text
    assert not english_in(text) and UNTRANSLATED not in text, english_in(text)[:5]


def test_every_catalogue_entry_has_german_text() -> None:
    for dispute in catalogue(STANDARD_RULES):
        assert dispute.question_de and dispute.explanation_de, dispute.id
        assert not dispute.mistake or dispute.mistake_de, dispute.id


def test_a_catalogue_entry_without_german_says_so(tmp_path: Path) -> None:
    text = DISPUTES_FILE.read_text(encoding="utf-8")
    block = next(b for b in text.split("[[dispute]]") if '\nid = "four-players"\n' in b)
    path = tmp_path / "disputes.toml"
    path.write_text(text.replace(block, re.sub(r"(?m)^\w+_de = .*\n", "", block)), encoding="utf-8")
    entry = next(d for d in catalogue(STANDARD_RULES, path=path) if d.id == "four-players")
    assert entry.question_de is None
    said = run("ask", entry.id, "--lang", "de", "--catalogue", str(path))
    assert f"{entry.question} {WORDS['de']['english_only']}" in said
    assert f"{entry.explanation} {WORDS['de']['english_only']}" in said
    assert not english_in(said)


def test_the_german_golden_files_have_no_english_sentence() -> None:
    """The German goldens (tests/test_golden.py compares them with the commands' output):
    a whole record with the fields each move changed, a replay's confirmation, a ruling."""
    files = sorted((Path(__file__).parent / "golden").glob("*-de.txt"))
    assert len(files) >= 3
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert not english_in(text) and UNTRANSLATED not in text, (path.name, english_in(text)[:5])


def test_a_ruling_that_depends_on_hidden_roles_reads_in_german(tmp_path: Path) -> None:
    """Five players, roles unknown, seat 0 executed after four Fascist policies: whether the
    next nomination is legal depends on whether seat 0 was Hitler; the hidden fact, the
    reason and the move are German."""
    import json

    lines: list[dict[str, object]] = [{"setup": {"players": 5, "first_president": 0}}]
    for president in range(4):
        lines += [{"move": "nominate", "by": president, "chancellor": president + 1},
                  {"move": "vote", "ja": [0, 1, 2, 3, 4]}, {"move": "enact", "by": president + 1, "tile": "fascist"}]
    lines.append({"move": "execute", "by": 3, "target": 0})
    game = tmp_path / "game.jsonl"
    game.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    text = run("ask", "--game", str(game), "--move", '{"move": "nominate", "by": 4, "chancellor": 1}', "--lang", "de")
    assert text.startswith("Das hängt von verborgener Information ab: zulässig, wenn gilt: Hitler ist nicht Platz 1; "
                           "unzulässig, wenn gilt: Hitler ist Platz 1 — R-W5"), text
    assert "das Spiel ist vorbei" in text and not english_in(text) and UNTRANSLATED not in text, english_in(text)


def test_every_illegal_move_the_judge_finds_is_told_in_german() -> None:
    """The judge's table of illegal moves (tests/test_judge.py): each violation, from a
    requirement or from the evidence of the pile, and the whole record, in German."""
    from test_judge import ILLEGAL_CASES, verdict_of

    for name, lines, _, rule_id in ILLEGAL_CASES:
        result = verdict_of(*lines)
        [violation] = result.violations
        assert violation.rule_id == rule_id and violation.message_de is not None, name
        text = "\n".join(result.lines("de"))
        assert not english_in(text) and UNTRANSLATED not in text, (name, english_in(text)[:5], text[-300:])


def test_every_shipped_house_rule_speaks_german() -> None:
    """The house rules and rebalanced decks of spec/variants/ (the mistakes of
    spec/variants/mistakes/ are for telling apart, and may show marked English): each
    rewritten move sentence and reason has its German."""
    folder = Path(__file__).parent.parent / "spec" / "variants"
    for path in sorted(folder.glob("*.toml")):
        for rule in load_spec(str(path)).rules:
            assert rule.says_de is not None, (path.name, rule.name)
            assert all(req.why_de is not None for req in rule.requires), (path.name, rule.name)


ENGLISH_NUMBER = re.compile(r"\d,\d{3}\b|\d\.\d+ s\b")
"""A number written the English way: a thousands comma, a decimal point before seconds."""


def test_german_numbers_are_written_the_german_way() -> None:
    text = run("ask", "--players", "5", "--can", "liberal_policies >= 1", "--lang", "de")
    assert re.search(r"Gefunden durch explizite Suche nach [\d.]+ Zuständen in \d+,\d s\.", text), text
    assert not ENGLISH_NUMBER.search(text), ENGLISH_NUMBER.findall(text)
    judged = run("judge", str(Path(__file__).parents[1] / "engine" / "examples"), "--lang", "de")
    assert re.search(r"in \d+,\d\d s", judged) and not ENGLISH_NUMBER.search(judged), judged


def test_german_names_moves_in_german_never_by_the_rule_s_name() -> None:
    text = run("ask", "veto-by-president", "--lang", "de")
    assert "den Zug „der Kanzler schlägt ein Veto vor“" in text
    names = {rule.name for rule in load_spec().rules}
    assert not [name for name in names if f"'{name}'" in text]
    for rule in load_spec().rules:
        assert rule.summary_de and not ENGLISH.search(rule.summary_de), rule.name


def test_german_footers_and_the_how_section_are_german() -> None:
    listing = run("ask", "--lang", "de").rstrip().splitlines()
    assert listing[-1].endswith("Fragen; `shrules ask ID` beantwortet eine.")
    text = run("ask", "--players", "5", "--can", "liberal_policies > 5", "--lang", "de")
    assert "Wie das entschieden wurde:" in text and "How this was decided" not in text
    assert not english_in(text), english_in(text)
