"""The atlas of a sweep: `atlas.json` and `atlas.html`, written from the results as data.

`atlas.json` holds the space, one entry per rule set (its settings, player count, verdict,
the properties it breaks or leaves unknown, its graph facts, its behaviour group), the
classes of broken rule sets (those breaking the same properties) with the shortest game of
each, and nothing that differs from run to run: no seconds, no dates, sorted. So a run
interrupted and resumed, or one that lost a worker, writes the same bytes as an
undisturbed one. `atlas.html` is one self-contained page (inline CSS and SVG, no script,
no network): the classes, and a picture of the board space per player count, a cell per
board (rows: slots 1-2, columns: slots 3-5), coloured by verdict and, for sound boards,
by the fewest elected governments the slowest win needs; the published boards (R-X7, read
from the standard rules) and the popular custom boards (popular.toml) are outlined.

An atlas is a file someone else may have made (a colleague's, a CI artefact): `check
--atlas` matches its entries by the rules' content hash at the count (not their name, so
an atlas made before a rules file was edited does not answer for it), the code version
and the properties' text (`stamp`), replays the game kept with each broken property, and
believes "sound" or "unknown" (which no game shows) only from an atlas.json the user owns
and no one else can write; otherwise it says why in one line and checks instead. The page
escapes every value it shows.

Rule sets are grouped twice: `same rules` (the canonical form of the rules at that count
is equal: they make the same moves) and `same behaviour` (the same verdicts and graph
facts: reachable states, longest game, fewest elections per win; observed, not proved
equal).
"""

from __future__ import annotations

import json
import tomllib
from collections import defaultdict
from html import escape
from pathlib import Path
from typing import Any

from spec import files
from spec.errors import SpecError, shown
from spec.loader import load_spec
from spec.properties import Property
from spec.settings import POWERS, SLOTS, parse_value

from ..explicit.check import select
from ..results import VerdictKind
from ..rules import Rules
from .sweep import BASE, BoardVerdict, Space, Verdict, games_of, read_verdict, soundness_properties
from .tasks import code_version, content_hash, properties_digest
from .trust import NotBelieved, can_show, checked, replayed, shows

POPULAR_FILE = Path(__file__).with_name("popular.toml")
ATLAS_VERSION = 2


def published_boards() -> dict[int, tuple[str, ...]]:
    """The board of each player count in the standard rules (R-X7)."""
    spec = load_spec("standard")
    return {count: tuple(str(power) for power in board) for count, board in spec.tables["board"].items()
            if isinstance(board, tuple)}


def popular_boards() -> dict[int, list[tuple[str, str]]]:
    """Custom boards played on the site (popular.toml), per count: (powers, where seen)."""
    data = tomllib.loads(POPULAR_FILE.read_text(encoding="utf-8"))
    out: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for entry in data.get("board", []):
        powers = ",".join(parse_value("powers", entry["powers"]))
        for count in entry.get("players", []):
            out[int(count)].append((powers, str(entry.get("seen", ""))))
    return dict(out)


def build(space: Space, results: list[dict[str, Any]]) -> dict[str, Any]:
    """The atlas as plain data (module docstring)."""
    verdicts = [read_verdict(result) for result in results]
    signatures: dict[tuple[Any, ...], int] = {}
    forms: dict[tuple[int, str], int] = {}
    entries = []
    for verdict, result in sorted(zip(verdicts, results), key=lambda pair: (pair[0].players, pair[0].rules)):
        signature = (verdict.players, verdict.broken, verdict.unknown, json.dumps(verdict.facts, sort_keys=True))
        behaviour = signatures.setdefault(signature, len(signatures))
        same_rules = forms.setdefault((verdict.players, verdict.form), len(forms))
        games = {item["property"]: item["played"] for item in result["results"]
                 if item["as_expected"] is False and item.get("played")}
        entries.append({"rules": verdict.rules, "players": verdict.players, "settings": settings_of(verdict.rules),
                        "rules_hash": result["stamp"]["rules_hash"],
                        "verdict": verdict.verdict.value, "broken": list(verdict.broken),
                        "unknown": list(verdict.unknown),
                        "facts": verdict.facts, "fewest_elections": verdict.fewest_elections,
                        "games": dict(sorted(games.items())), "same_rules": same_rules, "same_behaviour": behaviour})
    return {"atlas": ATLAS_VERSION, "stamp": atlas_stamp(soundness_properties(), Rules.named(BASE)), "space": space.describe(),
            "rule_sets": entries,
            "classes": classes(verdicts, results),
            "counts": {verdict.value: sum(1 for e in entries if _verdict(e) is verdict) for verdict in BoardVerdict},
            "groups": {"same_rules": len(forms), "same_behaviour": len(signatures)}}


def settings_of(rules: str) -> dict[str, str]:
    """The settings of a sweep rules name, `custom[a=1; b=x]` → {a: 1, b: x}, as text."""
    inner = rules.partition("[")[2].rstrip("]")
    return dict(part.strip().partition("=")[::2] for part in inner.split(";") if part.strip())


def classes(verdicts: list[Verdict], results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The broken rule sets by the properties they break, each class with how many rule
    sets per count and, per property, the shortest game that breaks it in the class."""
    by_class: dict[tuple[str, ...], list[tuple[Verdict, dict[str, Any]]]] = defaultdict(list)
    for verdict, result in zip(verdicts, results):
        if verdict.broken:
            by_class[verdict.broken].append((verdict, result))
    out = []
    for broken, members in sorted(by_class.items(), key=lambda item: (-len(item[1]), item[0])):
        per_count: dict[str, int] = defaultdict(int)
        for verdict, _ in members:
            per_count[str(verdict.players)] += 1
        shortest: dict[str, dict[str, Any]] = {}
        why: dict[str, str] = {}
        for verdict, result in sorted(members, key=lambda pair: (pair[0].players, pair[0].rules)):
            for item in result["results"]:
                if item["as_expected"] is False and item.get("message"):
                    why.setdefault(item["property"], f"{item['verdict']}: {item['message']}")
        for verdict, result in sorted(members, key=lambda pair: (pair[0].players, pair[0].rules)):
            for name, moves, lines in games_of(result):
                if name not in shortest or moves < shortest[name]["moves"]:
                    shortest[name] = {"rules": verdict.rules, "players": verdict.players, "moves": moves,
                                      "game": lines}
        out.append({"broken": list(broken), "rule_sets": len(members), "per_count": dict(sorted(per_count.items())),
                    "example": min((v.players, v.rules) for v, _ in members)[1],
                    "shortest": dict(sorted(shortest.items())), "why": dict(sorted(why.items()))})
    return out


def atlas_stamp(names: tuple[str, ...], rules: Rules) -> dict[str, Any]:
    """What an atlas's verdicts are for beside each entry's rules: the code version and the
    text of the properties checked (as the rules `rules` state them)."""
    return {"code": code_version(), "properties": properties_digest(select(rules, names))}


def write(folder: Path, atlas: dict[str, Any]) -> list[Path]:
    """`atlas.json` and `atlas.html` in `folder` (each written atomically, never through a
    link: spec/files.py); the paths written."""
    paths = [folder / "atlas.json", folder / "atlas.html"]
    try:
        files.write_atomic(paths[0], json.dumps(atlas, indent=1, sort_keys=True) + "\n", root=folder)
        files.write_atomic(paths[1], page(atlas), root=folder)
    except OSError as error:
        raise SpecError(f"cannot write the atlas into {shown(str(folder))}: {error.strerror or error}") from None
    return paths


def load(folder: Path) -> tuple[dict[str, Any], str | None]:
    """A saved atlas (atlas.json in `folder`), read as JSON data only through the capped
    reader, and why it may not be believed on its owner's word (None: it may)."""
    path = folder / "atlas.json" if folder.is_dir() else folder
    try:
        data = json.loads(files.read_kept(path))
    except SpecError as error:
        raise SpecError(f"--atlas {shown(str(folder))}: {error.message}") from None
    except (ValueError, RecursionError) as error:
        raise SpecError(f"--atlas {shown(str(folder))}: {path.name} is not JSON: "
                        f"{str(error).splitlines()[0][:100] if isinstance(error, ValueError) else 'nested too deeply'}"
                        ) from None
    if not isinstance(data, dict) or data.get("atlas") != ATLAS_VERSION or not isinstance(data.get("rule_sets"), list):
        raise SpecError(f"--atlas {shown(str(folder))}: {path.name} is not an atlas of this shrules "
                        f"(version {ATLAS_VERSION})")
    return data, files.untrusted_because(path, path.parent)


def look_up(atlas: dict[str, Any], rules: Rules, players: int) -> dict[str, Any] | None:
    """The atlas entry of these rules at this count, or None: matched by the content hash
    of the rules at the count (not by name) and by the atlas's stamp (code, properties)."""
    names = soundness_properties() if rules.name.startswith("custom") else tuple(
        p.name for p in select(rules) if p.group == "soundness")
    if atlas.get("stamp") != atlas_stamp(names, rules):
        return None
    wanted = content_hash(rules.name, players)
    return next((entry for entry in atlas["rule_sets"] if isinstance(entry, dict)
                 and entry.get("rules_hash") == wanted and entry.get("players") == players), None)


def believed_lines(entry: dict[str, Any], rules: Rules, players: int, untrusted: str | None) -> list[str]:
    """The lines `check --atlas` prints for one entry once what it claims checks: each game
    kept with a broken property replays and shows it broken; what no game shows (sound,
    unknown, a property broken by no witness, the graph facts) is believed only when
    `untrusted` is None; from another atlas a broken entry is read for the properties its
    games show (one suffices for the verdict). `NotBelieved` otherwise."""
    def check() -> list[str]:
        props = {prop.name: prop for prop in select(rules) if prop.group == "soundness"}
        broken, unknown = list(entry["broken"]), list(entry["unknown"])
        try:
            verdict = BoardVerdict.parse(entry["verdict"])
        except ValueError as error:
            raise NotBelieved(f"its entry is not a verdict of these properties ({error})") from None
        if (verdict is BoardVerdict.BROKEN) != bool(broken) or any(name not in props for name in broken + unknown):
            raise NotBelieved("its entry is not a verdict of these properties")
        if verdict is not BoardVerdict.BROKEN:
            if untrusted is not None:
                raise NotBelieved(f"'{verdict}' is shown by no game and {untrusted}", "untrusted")
        game = rules.game(players)
        shown_broken = []           # the broken properties a game of the entry shows broken
        for name in broken:
            claimed = _broken_verdict(props[name])
            if can_show(props[name], claimed) and name in entry["games"] \
                    and shows(replayed(game, entry["games"][name]), props[name], claimed):
                shown_broken.append(name)
        if verdict is BoardVerdict.BROKEN and untrusted is not None and not shown_broken:
            raise NotBelieved(f"no game of it shows {', '.join(broken)} broken, and {untrusted}", "untrusted")
        shown_entry = {"rules": rules.name, "players": players, "verdict": verdict, "broken": shown_broken}
        if untrusted is None:
            shown_entry.update(broken=broken, unknown=unknown, facts=entry.get("facts", {}))
        return describe_entry(shown_entry)
    lines: list[str] = checked(check)
    return lines


def _broken_verdict(prop: Property) -> VerdictKind:
    """The verdict by which a soundness property is not as expected."""
    if prop.kind == "sometimes":
        return VerdictKind.NO_WITNESS if prop.expect == "holds" else VerdictKind.WITNESS
    return VerdictKind.REFUTED if prop.expect == "holds" else VerdictKind.PROVED


def describe_entry(entry: dict[str, Any]) -> list[str]:
    """An atlas entry in words, as `check --atlas` prints it."""
    lines = [f"{entry['rules']}, {entry['players']} players: {entry['verdict']} (from the atlas)"]
    lines += [f"  broken: {name}" for name in entry.get("broken", [])]
    lines += [f"  unknown: {name}" for name in entry.get("unknown", [])]
    facts = entry.get("facts", {})
    if "longest_moves" in facts:
        lines.append(f"  longest possible game: {int(facts['longest_moves'])} moves, "
                     f"{_number(facts.get('longest_elections'))} elections")
    wins = facts.get("fewest_elections") or {}
    if wins:
        lines.append("  fewest elected governments per win: " + "; ".join(
            f"{shown(name) if not str(name).isidentifier() else name} {_number(value)}"
            for name, value in sorted(wins.items())))
    return lines


def _number(value: Any) -> str:
    """A whole number from a file as text, anything else as `?`."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else "?"


# ---------------------------------------------------------------------- the page

STYLE = """
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1b;margin:0;background:#fafafa}
main{max-width:1200px;margin:0 auto;padding:16px 24px 48px}
h1{font-size:24px;margin:8px 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;background:#fff}td,th{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
.tiles{display:flex;gap:10px;flex-wrap:wrap;margin:12px 0}
.tile{background:#fff;border:1px solid #ddd;border-radius:6px;padding:6px 14px;min-width:96px}.tile b{display:block;font-size:20px}
pre{background:#fff;border:1px solid #ddd;padding:8px;overflow-x:auto;font-size:12px;max-height:360px}
.legend span{display:inline-block;width:14px;height:14px;vertical-align:middle;margin:0 4px 0 12px;border:1px solid #999}
svg{background:#fff;border:1px solid #ddd;max-width:100%;height:auto}
"""

BROKEN, UNKNOWN, NOT_RUN = "#d73027", "#bdbdbd", "#ffffff"
SOUND = ("#1a9850", "#66bd63", "#a6d96a", "#d9ef8b", "#fee08b")
"""Sound boards by the fewest elections the slowest win needs: fewest (dark green) to most."""
CELL = 7


def _text(value: Any) -> str:
    """A value from the results as page text, escaped (quotes too: safe in an attribute);
    a whole number with thousands separators."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return escape(str(value), quote=True)


def sound_colour(fewest: int | None, scale: tuple[int, int]) -> str:
    """A sound board's colour on the scale of the count's fewest elections."""
    if fewest is None:
        return SOUND[-1]
    low, high = scale
    step = 0 if high == low else round((fewest - low) * (len(SOUND) - 1) / (high - low))
    return SOUND[step]


def page(atlas: dict[str, Any]) -> str:
    """atlas.html (module docstring)."""
    counts = atlas["counts"]
    space = atlas["space"]
    parts = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
             "<meta name='viewport' content='width=device-width,initial-scale=1'>",
             f"<title>shrules atlas of custom games</title><style>{STYLE}</style></head><body><main>",
             "<h1>The atlas of custom games</h1>",
             f"<p>{len(atlas['rule_sets'])} rule sets checked of a space of {_text(space['size'])}"
             f"{' (a sample)' if space.get('sample') else ''}; each checked for the soundness properties "
             f"of the catalogue. Unknown means a limit was hit: never counted as sound.</p><div class='tiles'>"]
    for verdict in BoardVerdict:
        parts.append(f"<div class='tile'>{verdict}<b id='count-{verdict}'>{_text(counts[verdict])}</b></div>")
    groups = atlas["groups"]
    parts.append(f"<div class='tile'>same rules<b>{_text(groups['same_rules'])}</b></div>"
                 f"<div class='tile'>same behaviour<b>{_text(groups['same_behaviour'])}</b></div></div>")
    parts += grids(atlas)
    parts += class_table(atlas)
    parts.append("</main></body></html>\n")
    return "".join(parts)


def _verdict(entry: dict[str, Any]) -> BoardVerdict:
    """An entry's verdict, read from an atlas's JSON (`ValueError` naming it when it is none)."""
    return BoardVerdict.parse(entry["verdict"])


def grids(atlas: dict[str, Any]) -> list[str]:
    """One SVG per player count: a cell per board of slots 1-2 (rows) × slots 3-5 (columns)."""
    powers = list(atlas["space"]["powers"]) or list(POWERS)
    published = published_boards()
    popular = popular_boards()
    out = ["<h2>The board space</h2><p class='legend'>Rows: the powers of slots 1 and 2; columns: slots 3, 4, 5 "
           f"(in the order {', '.join(escape(p) for p in powers)}). Colours:"
           f"<span style='background:{BROKEN}'></span>broken<span style='background:{UNKNOWN}'></span>unknown"
           f"<span style='background:{SOUND[0]}'></span>sound, fewest elections"
           f"<span style='background:{SOUND[-1]}'></span>sound, most elections (for the slowest win)"
           f"<span style='background:{NOT_RUN}'></span>not in the run. Outlined: the published board (R-X7, "
           "thick) and popular custom boards (thin).</p>"]
    by_count: dict[int, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for entry in atlas["rule_sets"]:
        by_count[entry["players"]][entry["settings"].get("powers", "")].append(entry)
    size = len(powers)
    rows, columns = size ** 2, size ** (SLOTS - 2)
    for count in sorted(by_count):
        boards = by_count[count]
        elections = [e["fewest_elections"] for entries in boards.values() for e in entries
                     if _verdict(e) is BoardVerdict.SOUND and e["fewest_elections"] is not None]
        scale = (min(elections), max(elections)) if elections else (0, 0)
        width, height = columns * CELL + 2, rows * CELL + 2
        cells = [f"<h3>{_text(count)} players</h3><svg id='grid-{_text(count)}' xmlns='http://www.w3.org/2000/svg' "
                 f"width='{width * 2}' height='{height * 2}' viewBox='0 0 {width} {height}' role='img' "
                 f"aria-label='board space at {_text(count)} players'>"]
        marks = {",".join(published.get(count, ())): 0.9, **{p: 0.5 for p, _ in popular.get(count, [])}}
        for index, board in enumerate(_boards(powers)):
            row, column = divmod(index, columns)
            entries = boards.get(board, [])
            colour = NOT_RUN
            if any(_verdict(e) is BoardVerdict.BROKEN for e in entries):
                colour = BROKEN
            elif any(_verdict(e) is BoardVerdict.UNKNOWN for e in entries):
                colour = UNKNOWN
            elif entries:
                colour = sound_colour(max((e["fewest_elections"] for e in entries
                                           if e["fewest_elections"] is not None), default=None), scale)
            title = f"{board}: " + ("; ".join(
                f"{e['verdict']}{' ' + ','.join(map(str, e['broken'])) if e['broken'] else ''}" for e in entries)
                or "not in the run")
            stroke = f" stroke='#000' stroke-width='{marks[board]}'" if board in marks else ""
            cells.append(f"<rect x='{1 + column * CELL}' y='{1 + row * CELL}' width='{CELL}' height='{CELL}' "
                         f"fill='{colour}'{stroke}><title>{escape(title)}</title></rect>")
        cells.append("</svg>")
        if elections and scale[0] == scale[1]:
            # A flat scale is a finding, not a colour: say so rather than "from 1 to 1".
            cells.append(f"<p>Every sound board at {_text(count)} players: the slowest win needs at fewest "
                         f"{_text(scale[0])} "
                         "elected governments, so they share one colour.</p>")
        elif elections:
            cells.append(f"<p>Sound boards at {_text(count)} players: the slowest win needs at fewest "
                         f"{_text(scale[0])} to {_text(scale[1])} elected governments.</p>")
        out += cells
    return out


def _boards(powers: list[str]) -> list[str]:
    """Every board over `powers`, slot 1 slowest, as the text of the `powers` setting."""
    boards = [""]
    for _ in range(SLOTS):
        boards = [f"{board},{power}" if board else power for board in boards for power in powers]
    return boards


def class_table(atlas: dict[str, Any]) -> list[str]:
    """The broken classes: which settings break which properties, and the shortest games."""
    out = ["<h2>What breaks</h2>"]
    if not atlas["classes"]:
        return out + ["<p>No rule set of the run breaks a soundness property.</p>"]
    out.append("<table><tr><th>properties broken</th><th>rule sets</th><th>per player count</th>"
               "<th>for example</th></tr>")
    for number, item in enumerate(atlas["classes"]):
        per = ", ".join(f"{count}p: {n}" for count, n in item["per_count"].items())
        out.append(f"<tr><td><a href='#class-{number}'>{escape(', '.join(map(str, item['broken'])))}</a></td>"
                   f"<td>{_text(item['rule_sets'])}</td><td>{escape(per)}</td>"
                   f"<td><code>{_text(item['example'])}</code></td></tr>")
    out.append("</table>")
    for number, item in enumerate(atlas["classes"]):
        out.append(f"<h3 id='class-{number}'>{escape(', '.join(map(str, item['broken'])))}</h3><ul>")
        out += [f"<li>{_text(name)}: {_text(text)}</li>" for name, text in item["why"].items()]
        out.append("</ul>")
        for name, game in item["shortest"].items():
            out.append(f"<details><summary>{_text(name)}: the shortest game, {_text(game['moves'])} moves, "
                       f"<code>{_text(game['rules'])}</code> at {_text(game['players'])} players</summary>"
                       f"<pre>{escape(chr(10).join(map(str, game['game'])))}</pre></details>")
    return out
