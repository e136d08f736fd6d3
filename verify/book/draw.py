"""A witness game drawn round by round in HTML and CSS: no script, no image, no network.

Each round is a card: the President and the Chancellor, the vote, what was enacted and
the power used, then the Liberal and the Fascist track as rows of boxes filled up to the
count (the Fascist boxes name the power of their slot on this count's board) and the
Election Tracker as dots. The boxes wrap at a phone's width instead of scrolling. The
moves in the spec's words fold away on a screen and are printed unfolded (a closed
<details> prints closed, and no script may open it)."""

from __future__ import annotations

from html import escape

from engine.words import UNTRANSLATED, seat_shown

from .frame import FRAME, say
from .rounds import Game, Round

LIBERAL = "#1f5fa8"
FASCIST = "#b3261e"
TRACKER = "#404040"

STYLE = f"""
.round{{border:1px solid #ccc;border-radius:6px;background:#fff;padding:8px 10px;margin:10px 0;break-inside:avoid}}
.round h3{{margin:0 0 4px;font-size:1.05em}}
.round dl{{display:grid;grid-template-columns:max-content 1fr;gap:2px 10px;margin:4px 0}}
.round dt{{font-weight:600}}.round dd{{margin:0;min-width:0;overflow-wrap:anywhere}}
.track{{display:flex;flex-wrap:wrap;align-items:center;gap:4px;margin:4px 0}}
.track .label{{flex:0 0 100%;font-size:.85em;color:#444}}
.slot{{width:2.9em;height:2.9em;border:2px solid;border-radius:3px;display:flex;align-items:center;
justify-content:center;text-align:center;overflow:hidden;background:#fff}}
.slot small{{font-size:.6em;line-height:1.05;hyphens:auto;overflow-wrap:anywhere}}
.lib .slot{{border-color:{LIBERAL}}}.lib .slot.on{{background:{LIBERAL};color:#fff}}
.fas .slot{{border-color:{FASCIST}}}.fas .slot.on{{background:{FASCIST};color:#fff}}
.dot{{width:1.1em;height:1.1em;border-radius:50%;border:2px solid {TRACKER};background:#fff}}
.dot.on{{background:{TRACKER}}}
details.moves{{margin-top:4px}}.round ol{{margin:4px 0;padding-left:1.4em}}
ol.print{{display:none}}
.round.answered{{border:2px solid #1848a0}}
li.answer{{font-weight:600;background:#eef3fc}}.mark{{color:#1848a0}}
@media print{{details.moves{{display:none}}ol.print{{display:block;font-size:.85em}}}}
"""


def _track(css: str, label: str, count: int, length: int, names: tuple[str, ...] = ()) -> str:
    boxes = []
    for slot in range(length):
        text = f"<small>{escape(names[slot])}</small>" if slot < len(names) and names[slot] else ""
        on = " on" if slot < count else ""
        boxes.append(f'<span class="slot{on}" title="{slot + 1}">{text}</span>')
    return (f'<div class="track {css}" role="img" aria-label="{escape(label)}: {count} / {length}">'
            f'<span class="label">{escape(label)}: {count} / {length}</span>{"".join(boxes)}</div>')


def _tracker(label: str, count: int, limit: int) -> str:
    dots = "".join(f'<span class="dot{" on" if i < count else ""}"></span>' for i in range(limit))
    return (f'<div class="track trk" role="img" aria-label="{escape(label)}: {count} / {limit}">'
            f'<span class="label">{escape(label)}: {count} / {limit}</span>{dots}</div>')


def power_name(power: str, lang: str, kind: str = "power") -> str:
    """A power's name in `lang` (`slot`: the short one that fits a box of the track); a
    power the frame does not know (a variant's) as the spec names it."""
    return say(lang, f"{kind}_{power}") if f"{kind}_{power}" in FRAME["en"] else power


def _facts(turn: Round, lang: str) -> str:
    rows: list[tuple[str, str]] = []
    if turn.president is not None:
        rows.append((say(lang, "president"), say(lang, "seat", seat=seat_shown(turn.president))))
    if turn.chancellor is not None:
        rows.append((say(lang, "chancellor"), say(lang, "seat", seat=seat_shown(turn.chancellor))))
    if turn.ja is not None and turn.voters is not None:
        outcome = say(lang, "elected" if turn.elected else "rejected")
        rows.append((say(lang, "vote"), say(lang, "votes", ja=turn.ja, nein=turn.voters - turn.ja, outcome=outcome)))
    elif turn.number:
        rows.append((say(lang, "vote"), say(lang, "no_vote")))
    if turn.enacted is not None:
        party = say(lang, turn.enacted)
        rows.append((say(lang, "enacted"), say(lang, "enacted_chaos" if turn.by_chaos else "enacted_gov", party=party)))
    elif turn.number:
        rows.append((say(lang, "enacted"), say(lang, "nothing")))
    if turn.power is not None:
        used = power_name(turn.power, lang)
        if turn.target is not None:
            used = say(lang, "power_on", power=used, seat=seat_shown(turn.target))
        rows.append((say(lang, "power"), used))
    if turn.answer is not None:
        rows.append((say(lang, "answer"), say(lang, "answer_move", number=turn.answer + 1)))
    return "<dl>" + "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in rows) + "</dl>"


def _lang_of(text: str, lang: str) -> str:
    """` lang="en"` for a move the spec has only in English (marked by the engine), else ""."""
    return ' lang="en"' if lang != "en" and text.startswith(UNTRANSLATED) else ""


def _answer_class(turn: Round, number: int) -> str:
    return ' class="answer"' if turn.answer == number else ""


def _answer_mark(turn: Round, number: int, lang: str) -> str:
    """▶ before the answering move, with its words for a screen reader."""
    if turn.answer != number:
        return ""
    return f'<span class="mark" aria-label="{escape(say(lang, "answer_mark"))}">▶ </span>'


def draw_game(game: Game, lang: str) -> str:
    """The game as one card per round (the setup first), then how it ended."""
    names = tuple("" if power == "none" else power_name(power, lang, "slot") for power in game.board)
    names += ("",) * (game.fascist_length - len(names))
    out = []
    for turn in game.rounds:
        title = say(lang, "setup") if turn.number == 0 else say(lang, "round", number=turn.number)
        moves = "".join(f"<li{_lang_of(text, lang)}{_answer_class(turn, number)}>{_answer_mark(turn, number, lang)}"
                        f"{escape(text)}" + (f" <small>[{escape(', '.join(ids))}]</small>" if ids else "") + "</li>"
                        for number, (text, ids) in enumerate(turn.moves))
        answered = " answered" if turn.answer is not None else ""
        opened = " open" if turn.answer is not None else ""
        out.append(f'<section class="round{answered}"><h3>{escape(title)}</h3>{_facts(turn, lang)}'
                   + _track("lib", say(lang, "liberal_track"), turn.liberal, game.liberal_length)
                   + _track("fas", say(lang, "fascist_track"), turn.fascist, game.fascist_length, names)
                   + _tracker(say(lang, "tracker"), turn.tracker, game.tracker_limit)
                   + f'<details class="moves"{opened}><summary>{escape(say(lang, "moves"))}</summary>'
                   f"<ol>{moves}</ol></details>"
                   f'<ol class="print">{moves}</ol></section>')
    if game.over:
        if game.winner is None:
            out.append(f"<p><strong>{escape(say(lang, 'over_none'))}</strong></p>")
        else:
            winner = say(lang, f"{game.winner}s") if game.winner in ("liberal", "fascist") else game.winner
            how = say(lang, f"how_{game.how}") if game.how in ("policies", "execution", "hitler_chancellor") \
                else str(game.how)
            out.append(f"<p><strong>{escape(say(lang, 'over', winner=winner, how=how))}</strong></p>")
    return "\n".join(out)
