"""The rulings book (`shrules book DIR`): a few entries answered at 5 players, written as
pages, then checked as a reader would meet them: every link leads to a written page, a
rule's page lists the entries that rest on it, a German page has no English frame and
says where the catalogue has no German text, nothing from the catalogue runs, and in a
real headless chromium an entry page fits a phone's width and shows the tracks' colours
(the browser tests are skipped where chromium is absent)."""

from __future__ import annotations

import os
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from test_report_browser import BROWSER, browser, png_pixels, png_rows
from verify.book.draw import FASCIST, LIBERAL
from verify.book.frame import FRAME
from verify.cli import main
from spec.disputes import DISPUTES_FILE
from verify.lawyer import ask
from verify.lawyer.ask import catalogue
from verify.rules import Rules

STANDARD_RULES = Rules.named("standard")

IDS = ("hitler-elected-wins", "dead-candidate", "four-players", "veto-by-president", "hitler-knows-fascists-small")
WITH_GAME = "hitler-elected-wins"         # a yes with its shortest game; its German text taken out below
WITH_GERMAN = "hitler-knows-fascists-small"
needs_browser = pytest.mark.skipif(BROWSER is None, reason="no chromium on PATH: install it with "
                                   "`apt-get install -y chromium` (.ci/run does) to check the book in a browser")


def run(*args: str) -> Any:
    return CliRunner().invoke(main, ["book", *args], catch_exceptions=False)


def without_german(folder: Path, ident: str) -> Path:
    """The catalogue with the German text of entry `ident` left out (every entry of the
    shipped one has German), so the book shows an entry without it."""
    blocks = DISPUTES_FILE.read_text(encoding="utf-8").split("[[dispute]]")
    for number, block in enumerate(blocks):
        if f'\nid = "{ident}"\n' in block:
            blocks[number] = re.sub(r'(?m)^(question|explanation|mistake)_de = .*\n', "", block)
    path = folder / "disputes.toml"
    path.write_text("[[dispute]]".join(blocks), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("book") / "site"
    folder.parent.mkdir(parents=True, exist_ok=True)
    done = run(str(folder), "--players", "5", "--ids", ",".join(IDS), "--seconds", "120",
               "--catalogue", str(without_german(folder.parent, WITH_GAME)))
    assert done.exit_code == 0, done.output
    return folder


class Page(HTMLParser):
    """The links, ids, `lang` attributes and text of a page."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.links: list[str] = []
        self.sources: list[str] = []
        self.ids: set[str] = set()
        self.text: list[str] = []
        self.scripts = 0
        self._english = 0
        self._stack: list[bool] = []
        self.english_text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "a" and values.get("href"):
            self.links.append(str(values["href"]))
        if "src" in values:
            self.sources.append(str(values["src"]))
        if values.get("id"):
            self.ids.add(str(values["id"]))
        if tag == "script":
            self.scripts += 1
        if tag not in ("html", "br", "meta", "link", "img", "input"):
            english = values.get("lang") == "en"
            self._stack.append(english)
            self._english += english

    def handle_endtag(self, tag: str) -> None:
        if tag not in ("html", "br", "meta", "link", "img", "input") and self._stack:
            self._english -= self._stack.pop()

    def handle_data(self, data: str) -> None:
        (self.english_text if self._english else self.text).append(data)

    @property
    def words(self) -> str:
        """The text outside anything marked lang="en"."""
        return " ".join(" ".join(self.text).split())


def pages(book: Path) -> dict[Path, Page]:
    return {path: Page(path.read_text(encoding="utf-8")) for path in sorted(book.rglob("*.html"))}


def test_the_book_has_an_index_and_each_entry_in_both_languages(book: Path) -> None:
    assert (book / "index.html").is_file() and (book / "index.de.html").is_file()
    for ident in IDS:
        for lang in ("en", "de"):
            page = book / lang / f"{ident}.html"
            assert page.is_file(), page
            other = "de" if lang == "en" else "en"
            assert f'href="../{other}/{ident}.html"' in page.read_text(encoding="utf-8")
    index = Page((book / "index.html").read_text(encoding="utf-8"))
    assert {f"en/{ident}.html" for ident in IDS} <= set(index.links)
    assert f"{len(IDS)} of {len(IDS)} answers as expected; 0 not as expected; 0 not decided." in index.words


def test_every_internal_link_resolves_and_nothing_is_fetched(book: Path) -> None:
    for path, page in pages(book).items():
        assert page.sources == [], f"{path} loads {page.sources}"
        for link in page.links:
            assert not re.match(r"[a-z]+:", link), f"{path} links outside the book: {link}"
            target, _, fragment = link.partition("#")
            resolved = (path.parent / target).resolve() if target else path
            assert resolved.is_file(), f"{path}: {link} leads nowhere"
            if fragment:
                assert fragment in pages_cache(resolved).ids, f"{path}: {link} has no such anchor"


_CACHE: dict[Path, Page] = {}


def pages_cache(path: Path) -> Page:
    if path not in _CACHE:
        _CACHE[path] = Page(path.read_text(encoding="utf-8"))
    return _CACHE[path]


def test_every_rule_page_lists_exactly_the_entries_that_rest_on_it(book: Path) -> None:
    disputes = {d.id: d for d in catalogue(STANDARD_RULES) if d.id in IDS}
    rules = {rule_id for d in disputes.values() for rule_id in d.rule_ids}
    assert rules
    index = Page((book / "index.html").read_text(encoding="utf-8"))
    for rule_id in rules:
        assert f"rules/{rule_id}.html" in index.links, f"the index has no link to {rule_id}"
        for suffix, lang in (("", "en"), (".de", "de")):
            page = Page((book / "rules" / f"{rule_id}{suffix}.html").read_text(encoding="utf-8"))
            listed = {Path(link).stem for link in page.links if link.startswith(f"../{lang}/")}
            assert listed == {i for i, d in disputes.items() if rule_id in d.rule_ids}, rule_id


def _pieces(template: str) -> list[str]:
    """The literal parts of a frame string, long enough to be a sentence of the frame."""
    return [part.strip(" .:—()") for part in re.split(r"\{[^}]*\}", template) if len(part.strip(" .:—()")) >= 8]


def test_a_german_page_has_no_english_frame(book: Path) -> None:
    english = Page((book / "en" / f"{WITH_GAME}.html").read_text(encoding="utf-8")).words
    german = Page((book / "de" / f"{WITH_GAME}.html").read_text(encoding="utf-8")).words
    checked = 0
    for key, template in FRAME["en"].items():
        if FRAME["de"].get(key, template) == template:
            continue
        for piece in _pieces(template):
            if piece in english:
                checked += 1
                assert piece not in german, f"the German page says {piece!r} (frame '{key}')"
    assert checked >= 10, "too few frame strings found on the English page to compare"
    for key in ("rests", "game", "tracker", "liberal_track", "fascist_track"):
        assert FRAME["de"][key] in german


def test_an_entry_without_german_text_says_so(book: Path) -> None:
    missing = (book / "de" / f"{WITH_GAME}.html").read_text(encoding="utf-8")
    assert FRAME["de"]["no_german"] in missing
    assert re.search(r'<h1 lang="en">', missing), "the English question is not marked as English"
    dispute = next(d for d in catalogue(STANDARD_RULES) if d.id == WITH_GERMAN)
    present = (book / "de" / f"{WITH_GERMAN}.html").read_text(encoding="utf-8")
    assert FRAME["de"]["no_german"] not in present
    assert dispute.question_de is not None and dispute.question_de in present
    assert FRAME["de"]["no_german"] not in (book / "en" / f"{WITH_GAME}.html").read_text(encoding="utf-8")


def test_the_shortest_game_is_drawn_round_by_round(book: Path) -> None:
    text = (book / "en" / f"{WITH_GAME}.html").read_text(encoding="utf-8")
    cards = len(re.findall(r'<section class="round[ "]', text))
    assert cards >= 5      # the setup and four elected governments
    assert 'class="slot on"' in text and "Election Tracker: 0 / 3" in text
    assert "Fascist track: 3 / 6" in text and "Peek" in text      # the 5-player board's third slot
    assert "@media print" in text and text.count('<ol class="print"') == cards
    assert text.count('<section class="round answered">') == 1     # the answering move's round, marked
    proof = (book / "en" / "dead-candidate.html").read_text(encoding="utf-8")
    assert 'class="round' not in proof and "Proved for" in proof


def test_nothing_from_the_catalogue_runs(tmp_path: Path) -> None:
    hostile = tmp_path / "disputes.toml"
    hostile.write_text('[[dispute]]\nid = "evil"\nsource = "<b>x</b>"\nquestion = "<script>alert(1)</script>?"\n'
                       'question_de = "<img src=x onerror=alert(1)>"\nkind = "rule_text"\nrules = ["R-S1"]\n'
                       'answer = "yes"\nexplanation = "\\"><script>alert(2)</script>"\n', encoding="utf-8")
    done = run(str(tmp_path / "site"), "--catalogue", str(hostile))
    assert done.exit_code == 0, done.output
    for path, page in pages(tmp_path / "site").items():
        assert page.scripts == 0 and page.sources == [], path
    text = (tmp_path / "site" / "de" / "evil.html").read_text(encoding="utf-8")
    assert "&lt;img src=x onerror=alert(1)&gt;" in text and "<img" not in text


def test_bad_input_exits_2(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("", encoding="utf-8")
    for args in ([str(afile)], [str(tmp_path / "b"), "--lang", "fr"], [str(tmp_path / "b"), "--ids", "no-such-entry"],
                 [str(tmp_path / "b"), "--players", "4"]):
        done = run(*args)
        assert done.exit_code == 2, (args, done.output)
    assert not (tmp_path / "b").exists()


# ---------------------------------------------------------------------- in a browser

PHONE = 375
HARNESS = ('<!DOCTYPE html><html><body style="margin:0"><iframe src="{page}" style="width:{width}px;height:2000px;'
           'border:0" onload="var d = this.contentDocument.documentElement; document.body.setAttribute('
           "'data-measured', d.scrollWidth + ' ' + d.clientWidth)\"></iframe></body></html>")


def _overflow(page: Path, extra: str = "") -> tuple[int, int]:
    """The page's scroll width and its visible width in a 375 px wide frame, measured in
    chromium by a harness page beside it (the book itself has no script). A headless
    window is at least 500 px wide, so the phone's width is the frame's."""
    copy = page.with_name(page.stem + ".measured.html")
    copy.write_text(page.read_text(encoding="utf-8").replace("</main>", extra + "</main>"), encoding="utf-8")
    harness = page.with_name(page.stem + ".harness.html")
    harness.write_text(HARNESS.format(page=copy.name, width=PHONE), encoding="utf-8")
    try:
        done = browser("--allow-file-access-from-files", "--dump-dom", "--window-size=800,2000", harness.as_uri())
    finally:
        copy.unlink()
        harness.unlink()
    assert done.returncode == 0, done.stderr[-2000:]
    match = re.search(r'data-measured="(\d+) (\d+)"', done.stdout)
    assert match, "the measuring harness did not run"
    return int(match.group(1)), int(match.group(2))


@needs_browser
def test_an_entry_page_fits_a_phone_width(book: Path) -> None:
    for lang in ("en", "de"):
        scroll, visible = _overflow(book / lang / f"{WITH_GAME}.html")
        assert PHONE - 20 <= visible <= PHONE     # less a scroll bar, if any
        assert scroll <= visible, f"{lang}: the page is {scroll} px wide in {visible} px"
    scroll, visible = _overflow(book / "index.html")
    assert scroll <= visible, f"the index is {scroll} px wide in {visible} px"
    wide, visible = _overflow(book / "en" / f"{WITH_GAME}.html", '<div style="width:600px">x</div>')
    assert wide > visible, "the measurement does not see an overflow it should"


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


@needs_browser
def test_the_screenshot_shows_both_tracks(book: Path, tmp_path: Path) -> None:
    shot = tmp_path / "entry.png"
    page = book / "en" / f"{WITH_GAME}.html"
    done = browser(f"--screenshot={shot}", "--window-size=375,2000", page.as_uri())
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
    width, height, colours = png_pixels(shot)
    assert (width, height) == (375, 2000)
    for name, colour in (("Liberal track", LIBERAL), ("Fascist track", FASCIST)):
        assert _rgb(colour) in colours, f"no {name} colour {colour} in the screenshot"


def test_the_german_index_marks_questions_without_german_text(book: Path) -> None:
    index = (book / "index.de.html").read_text(encoding="utf-8")
    item = re.search(rf'<li id="{WITH_GAME}">.*?</li>', index)
    assert item and FRAME["de"]["english_only"] in item.group(0) and 'lang="en"' in item.group(0)
    item = re.search(rf'<li id="{WITH_GERMAN}">.*?</li>', index)
    assert item and FRAME["de"]["english_only"] not in item.group(0)


def test_a_game_cut_into_rounds_keeps_the_table_s_count() -> None:
    from engine.game import compiled_game
    from engine.play import random_game
    from verify.book.draw import draw_game
    from verify.book.rounds import rounds

    game = compiled_game(7)
    trace = random_game(game, 0)          # rejected governments, a chaos policy, a Special Election
    drawn = rounds(trace)
    nominations = sum(1 for move, _ in trace.steps if move.rule == "nominate")
    assert len(drawn.rounds) == nominations + 1 and drawn.rounds[0].president is None
    end = game.describe(trace.end)
    last = drawn.rounds[-1]
    assert (last.liberal, last.fascist, last.tracker) == (end["liberal_policies"], end["fascist_policies"],
                                                          end["election_tracker"])
    assert drawn.board == ("none", "investigate", "special_election", "execution", "execution")
    assert any(turn.by_chaos for turn in drawn.rounds) and any(turn.elected is False for turn in drawn.rounds)
    for before, turn in zip(drawn.rounds, drawn.rounds[1:]):
        assert turn.liberal >= before.liberal and turn.fascist >= before.fascist
        if turn.elected is False and not turn.by_chaos:
            assert turn.tracker == before.tracker + 1 and turn.enacted is None
        if turn.by_chaos:
            assert turn.tracker == 0 and turn.power is None
    html = draw_game(drawn, "de")
    assert html.count('class="round"') == len(drawn.rounds) and "Sonder" in html and "abgelehnt" in html


def test_every_rule_id_has_a_german_title_on_the_german_pages(book: Path) -> None:
    from spec.loader import load_rulebook

    german = load_rulebook("de")
    assert list(german) == list(load_rulebook()), "a rule ID without a German title (or one the rulebook lacks)"
    page = (book / "rules" / "R-S1.de.html").read_text(encoding="utf-8")
    assert german["R-S1"] in page and load_rulebook()["R-S1"] not in page


def test_an_answer_not_as_expected_exits_1_and_is_marked(tmp_path: Path) -> None:
    wrong = tmp_path / "disputes.toml"
    wrong.write_text('[[dispute]]\nid = "four-is-fine"\nsource = "a test"\nquestion = """Can four\nreally play?"""\n'
                     'kind = "rule_text"\nrefused_players = [4]\nrules = ["R-S1"]\nanswer = "yes"\n'
                     'explanation = "Wrongly expected."\n', encoding="utf-8")
    done = run(str(tmp_path / "site"), "--catalogue", str(wrong), "--lang", "en")
    assert done.exit_code == 1, done.output
    page = (tmp_path / "site" / "en" / "four-is-fine.html").read_text(encoding="utf-8")
    assert 'class="badge no bad"' in page and FRAME["en"]["not_expected"] in page
    box = re.search(r'<div class="answer">.*?</div>', page, re.S)
    assert box and "really play" not in box.group(0), "a line of a two-line question in the answer's words"
    assert not (tmp_path / "site" / "de").exists() and not (tmp_path / "site" / "index.de.html").exists()


def test_an_unknown_answer_exits_3_and_is_never_shown_as_proved(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # Ten stored states and no solver: nothing can decide the question. (With the solver,
    # even a tenth of a second is no sure unknown: every search gets at least half a second,
    # and on a loaded machine a random game of the proved shortest length may lead the
    # solver to the game in that time.)
    monkeypatch.setattr(ask, "_smt_backend", lambda: None)
    done = run(str(tmp_path / "site"), "--ids", WITH_GAME, "--seconds", "0.1", "--max-states", "10", "--lang", "de")
    assert done.exit_code == 3, done.output
    page = (tmp_path / "site" / "de" / f"{WITH_GAME}.html").read_text(encoding="utf-8")
    assert 'class="badge unknown"' in page and "Unbekannt" in page and "bewiesen" not in page


SCREENSHOTS = Path(__file__).parent / "screenshots"
"""The entry page's screenshots at a phone's width, one per language, kept beside the
tests: the book as a reader saw it, and the structure new screenshots are held to."""
TALL = 6000


def _bands(shot: Path) -> list[str]:
    """A screenshot top to bottom as bands: rows showing the Liberal track's colour (L),
    the Fascist track's (F), both (LF) or neither (-), runs collapsed. That is the
    structure a reader sees (how many tracks are drawn, in which order, and that the page
    ends within the shot), not the pixels, which a font's hinting moves."""
    _, _, rows = png_rows(shot)
    bands: list[str] = []
    for colours in rows:
        mark = ("L" if _rgb(LIBERAL) in colours else "") + ("F" if _rgb(FASCIST) in colours else "") or "-"
        if not bands or bands[-1] != mark:
            bands.append(mark)
    return bands


@needs_browser
@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_entry_page_keeps_the_structure_of_its_screenshot(book: Path, tmp_path: Path, lang: str) -> None:
    shot = tmp_path / "entry.png"
    page = book / lang / f"{WITH_GAME}.html"
    done = browser(f"--screenshot={shot}", f"--window-size={PHONE},{TALL}", page.as_uri())
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
    reference = SCREENSHOTS / f"book-{WITH_GAME}-{lang}-phone.png"
    if os.environ.get("SHRULES_UPDATE_GOLDEN") == "1":
        SCREENSHOTS.mkdir(exist_ok=True)
        shutil.copyfile(shot, reference)
    assert reference.is_file(), f"no screenshot {reference.name}: write it with SHRULES_UPDATE_GOLDEN=1"
    bands = _bands(shot)
    assert bands == _bands(reference), f"{lang}: the page's tracks are laid out otherwise than in {reference.name}"
    assert bands[-1] == "-" and bands.count("LF") + bands.count("L") >= 2, "the shot holds the whole game's tracks"
