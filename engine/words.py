"""The few words the engine writes itself, in English and German, in one table.

A move sentence and the reason of an illegal move come from the spec (`says`, `why`, and
their German `says_de`, `why_de`); what is written here is the frame around them in a
game record ("chance: …", "Round 3 · President seat 2", "Game over: …") and the
reasons the engine gives that no requirement states (a move at the wrong time, by the
wrong seat). German output never shows English silently: a sentence the spec has only
in English is shown after `UNTRANSLATED`.
"""

from __future__ import annotations

import string
from typing import Any

from spec.model import Rule

LANGS = ("en", "de")
"""The languages of the game record; English is the spec's and the default."""

SEAT_BASE = 1
"""People count seats from 1: the first seat at the table is "seat 1" in every sentence a
person reads (traces, answers, the book, judge and illegal-move messages, errors). The
machine formats (ITF, JSON output, transcripts, the states) number them from 0, as the
spec's seat values are; `seat_shown` is the one place the two meet."""


def seat_shown(seat: int) -> int:
    """The number a person reads for the spec's seat `seat` (0-based)."""
    return seat + SEAT_BASE


def seats_shown(kind: str, value: object) -> object:
    """A decoded value of type `kind` as a person reads it: a seat (or each of a set of
    seats) counted from 1; anything else, and no seat (None), unchanged."""
    if kind == "seat" and isinstance(value, int):
        return seat_shown(value)
    if kind == "seats" and isinstance(value, list):
        return [seat_shown(seat) for seat in value]
    return value


def move_name(rule: Rule, lang: str) -> str:
    """A move as a person names it: its rule's `summary`, in German its `summary_de`
    (without one, the English marked as such), first letter lower-case to run on in a
    sentence ("the Chancellor proposes a veto", „der Kanzler schlägt ein Veto vor“), never
    the rule's name in the spec ('propose_veto')."""
    text = rule.summary_de if lang == "de" and rule.summary_de else rule.summary
    text = text[:1].lower() + text[1:]
    return UNTRANSLATED + text if lang != "en" and not (lang == "de" and rule.summary_de) else text


def seat_range(players: int) -> str:
    """The seats of a game as people number them, for messages: `1..7`."""
    return f"{seat_shown(0)}..{seat_shown(players - 1)}"


UNTRANSLATED = "[en] "
"""Put before an English sentence in German output: the spec (a variant's override, say)
has no German for it. Tests read it as the one mark allowed before English words."""

FRAME: dict[str, dict[str, str]] = {
    "en": {
        "chance": "chance: ",
        "round": "Round {number} · President seat {seat}",
        "sees": " — sees ",
        "over": "Game over: the {winner}s win by {how}.",
        "over_none": "Game over, with no winner.",
        "no_move": "there is no move '{rule}' in these rules",
        "params": "'{rule}' takes {count} parameter(s)",
        "domain": "{value!r} is not a possible {param} ({domain})",
        "not_actor": "seat {by} is not the {who}; seat {expected} is, and only the {who} may make this move ({what})",
        "impossible": "this chance outcome is impossible",
        "game_over": "the game is over ({winner} win by {how}); nothing more is played",
        "wrong_time": "it is not the time for '{rule}': the game is at '{phase}' and waits for {expected}",
        "or": " or ",
        "nothing": "nothing",
        "none": "none",
        "who_president": "President",
        "who_nominee": "Chancellor",
        # shrules play and judge
        "play_header": "A game of {players} players under the {rules} rules, seed {seed}",
        "saved": "trace saved to {path}",
        "outcome": "{winner} win by {how}",
        "no_winner": "no winner",
        "after_moves": "{outcome} after {moves} moves",
        "many_header": "{games} random games of {players} players under the {rules} rules, seed {seed} ({seconds} s CPU)",
        "many_share": "{outcome}: {share} % ± {interval}",
        "many_sides": "{side} win {share} % ± {interval} of the games",
        "many_length": "{moves} moves per game on average",
        "many_deadlocks": "{count} games reached a state with no legal move (a deadlock)",
        "many_unfinished": "{count} games had not ended after {limit} moves",
        "judge_header": "game {game} ({source}), rules: {rules}",
        "rules_file": " (file {file}, sha256 {hash})",
        "rules_asked": "; the log names the rules {asked}",
        "line": "line {line}",
        "log": "log {ref}",
        "setup": "setup",
        "by_game": "(game)",
        "status_legal": "legal",
        "status_illegal": "ILLEGAL",
        "status_not judged": "not judged",
        "status_after the end": "after the end",
        "deck": "draw pile, top first: ",
        "by_seat": " by seat {seat}",
        "would_move": "seat {by} would make the move '{what}'",
        "replayed": "replayed {moves} moves: every move legal, every state as recorded",
        "confirmed": "confirmed: {message}",
        "not_confirmed": "NOT confirmed: {message}",
        "note": "note: {note}",
        "verdict": "verdict: {summary}",
        "unsupported": "unsupported: {reason}",
        "illegal_at": "ILLEGAL at {where}: {rule}: {message}",
        "complete": "legal, complete: {winner} win by {how}",
        "incomplete": "legal, incomplete: the log ends before the game is decided",
        "judged": "judged {judged} games: {legal} legal, {illegal} illegal, {unsupported} unsupported{bad} in "
                  "{seconds:.2f} s{rate}",
        "malformed": ", {count} malformed",
        "rate": ", {rate:,.0f} games/s",
        # shrules view: what one seat saw (engine/view.py)
        "view_header": "What seat {seat} saw: game {game} ({source}), {players} players, rules: {rules}",
        "view_roles_unknown": "the log does not record the roles: whatever rests on them is not recorded here",
        "view_before": "Before the first round",
        "view_stopped": "The log ends here; whether the game is over rests on roles it does not record.",
        "view_now": "Now, as seat {seat} sees it",
        "view_public": "the table sees: ",
        "view_no_moves": "you have no move to make now",
        "view_may_vote": "you may vote Ja or Nein on the government [R-E6]",
        "view_may": "you may: {move}",
        "view_to_you": " (shown to you)",
        "view_tracks": "Liberal policies {liberal}/{liberal_max} · Fascist policies {fascist}/{fascist_max} · "
                       "Election Tracker {tracker}/{tracker_max}",
        "view_not_recorded": "not recorded",
        "view_if_shown": "if the rules show it to you (the log does not record whether): ",
        "view_seat": "seat {seat}",
        "view_seats": "seats {seats}",
        "view_yes": "yes",
        "view_no": "no",
        "shown": "you see {name}: {value}",
        "shown_role": "you see your role: {value}",
        "shown_hitler_seat": "you see who is Hitler: {value}",
        "shown_fascist_seats": "you see the ordinary Fascists: {value}",
        "shown_fascist_tiles": "you see your hand: {fascist} Fascist, {liberal} Liberal",
        "shown_president_discard_tile": "you see the tile you discard: {value}",
        "shown_chancellor_hand": "you see the two tiles passed to you: {fascist} Fascist, {liberal} Liberal",
        "shown_top": "you see the top tiles, top first: {value}",
        "shown_party": "you see the party: {value}",
        "item_role": "your role: {value}",
        "item_hitler": "Hitler: {value}",
        "item_fascists": "the ordinary Fascists: {value}",
        "item_hand": "your hand: {fascist} Fascist, {liberal} Liberal",
        "value_role_liberal": "Liberal",
        "value_role_fascist": "ordinary Fascist",
        "value_role_hitler": "Hitler",
        "value_liberal": "Liberal",
        "value_fascist": "Fascist",
        "public_phase": "phase",
        "public_alive": "alive",
        "public_investigated": "investigated",
        "public_president": "President",
        "public_nominee": "Chancellor",
        "public_last_president": "last elected President",
        "public_last_chancellor": "last elected Chancellor",
        "public_special_return": "back after the Special Election to",
        "public_liberal_policies": "Liberal policies",
        "public_fascist_policies": "Fascist policies",
        "public_election_tracker": "Election Tracker",
        "public_veto_refused": "veto refused",
        "public_vetoed": "vetoed",
        "public_enacted": "enacted this round",
        "public_by_government": "by a government",
        "public_power": "power",
        "public_winner": "winner",
        "public_how": "won by",
        "public_pile_size": "draw pile",
        "public_discard_size": "discards",
        "public_peeked_size": "top tiles known from a peek",
    },
    "de": {
        "chance": "Zufall: ",
        "round": "Runde {number} · Präsident Platz {seat}",
        "sees": " — sieht ",
        "over": "Spielende: {winner} gewinnen durch {how}.",
        "over_none": "Spielende ohne Sieger.",
        "no_move": "diese Regeln kennen keinen Zug '{rule}'",
        "params": "'{rule}' hat {count} Parameter",
        "domain": "{value!r} ist kein möglicher Wert für '{param}' ('{domain}')",
        "not_actor": "Platz {by} ist nicht der {who}; das ist Platz {expected}, und nur der {who} darf diesen Zug "
                     "machen ({what})",
        "impossible": "dieser Ausgang des Zufalls ist unmöglich",
        "game_over": "das Spiel ist vorbei ({winner} gewinnen durch {how}); danach wird nichts mehr gespielt",
        "wrong_time": "jetzt ist nicht die Zeit für den Zug „{rule}“: das Spiel steht bei '{phase}' und wartet auf "
                      "{expected}",
        "or": " oder ",
        "nothing": "nichts",
        "none": "keine",
        "who_president": "Präsident",
        "who_nominee": "Kanzler",
        "team_liberal": "die Liberalen",
        "team_fascist": "die Faschisten",
        "how_policies": "Gesetze",
        "how_execution": "die Hinrichtung Hitlers",
        "how_hitler_chancellor": "Hitlers Wahl zum Kanzler",
        "play_header": "Ein Spiel mit {players} Personen nach den Regeln '{rules}', Startwert {seed}",
        "saved": "Spur gespeichert unter {path}",
        "outcome": "{winner} gewinnen durch {how}",
        "no_winner": "kein Sieger",
        "after_moves": "{outcome} nach {moves} Zügen",
        "many_header": "{games} zufällige Spiele mit {players} Personen nach den Regeln '{rules}', Startwert {seed} ({seconds} s CPU)",
        "many_share": "{outcome}: {share} % ± {interval}",
        "many_sides": "{side} gewinnen {share} % ± {interval} der Spiele",
        "many_length": "im Mittel {moves} Züge je Spiel",
        "many_deadlocks": "{count} Spiele erreichten eine Lage ohne erlaubten Zug (eine Blockade)",
        "many_unfinished": "{count} Spiele waren nach {limit} Zügen nicht zu Ende",
        "judge_header": "Spiel '{game}' ('{source}'), Regeln: '{rules}'",
        "rules_file": " (Datei '{file}', sha256 {hash})",
        "rules_asked": "; das Protokoll nennt die Regeln '{asked}'",
        "line": "Zeile {line}",
        "log": "Protokoll {ref}",
        "setup": "Vorbereitung",
        "by_game": "(Spiel)",
        "status_legal": "zulässig",
        "status_illegal": "UNZULÄSSIG",
        "status_not judged": "ungeprüft",
        "status_after the end": "nach Ende",
        "deck": "Stapel, oberstes zuerst: ",
        "by_seat": " von Platz {seat}",
        "would_move": "Platz {by} würde den Zug „{what}“ machen",
        "replayed": "{moves} Züge nachgespielt: jeder Zug zulässig, jeder Zustand wie aufgezeichnet",
        "confirmed": "bestätigt: {message}",
        "not_confirmed": "NICHT bestätigt: {message}",
        "note": "Hinweis: {note}",
        "verdict": "Urteil: {summary}",
        "unsupported": "nicht prüfbar: {reason}",
        "illegal_at": "UNZULÄSSIG bei {where}: {rule}: {message}",
        "complete": "zulässig, vollständig: {winner} gewinnen durch {how}",
        "incomplete": "zulässig, unvollständig: das Protokoll endet, bevor das Spiel entschieden ist",
        "judged": "{judged} Spiele geprüft: {legal} zulässig, {illegal} unzulässig, {unsupported} nicht prüfbar{bad} "
                  "in {seconds:.2f} s{rate}",
        "malformed": ", {count} fehlerhaft",
        "rate": ", {rate:,.0f} Spiele/s",
        "view_header": "Was Platz {seat} gesehen hat: Spiel '{game}' ('{source}'), {players} Personen, Regeln: '{rules}'",
        "view_roles_unknown": "das Protokoll verzeichnet die Rollen nicht: was von ihnen abhängt, ist hier nicht "
                              "aufgezeichnet",
        "view_before": "Vor der ersten Runde",
        "view_stopped": "Hier endet das Protokoll; ob das Spiel vorbei ist, hängt von Rollen ab, die es nicht "
                        "verzeichnet.",
        "view_now": "Jetzt, wie Platz {seat} es sieht",
        "view_public": "der Tisch sieht: ",
        "view_no_moves": "du bist jetzt nicht am Zug",
        "view_may_vote": "du darfst mit Ja oder Nein über die Regierung abstimmen [R-E6]",
        "view_may": "du darfst: {move}",
        "view_to_you": " (dir gezeigt)",
        "view_tracks": "Liberale Gesetze {liberal}/{liberal_max} · Faschistische Gesetze {fascist}/{fascist_max} · "
                       "Wahlzähler {tracker}/{tracker_max}",
        "view_not_recorded": "nicht aufgezeichnet",
        "view_if_shown": "falls die Regeln es dir zeigen (das Protokoll verzeichnet nicht, ob): ",
        "view_seat": "Platz {seat}",
        "view_seats": "Plätze {seats}",
        "view_yes": "ja",
        "view_no": "nein",
        "shown": "du siehst '{name}': {value}",
        "shown_role": "du siehst deine Rolle: {value}",
        "shown_hitler_seat": "du siehst, wer Hitler ist: {value}",
        "shown_fascist_seats": "du siehst die einfachen Faschisten: {value}",
        "shown_fascist_tiles": "du siehst deine Hand: {fascist} faschistisch, {liberal} liberal",
        "shown_president_discard_tile": "du siehst das Gesetz, das du ablegst: {value}",
        "shown_chancellor_hand": "du siehst die zwei Gesetze, die du bekommst: {fascist} faschistisch, "
                                 "{liberal} liberal",
        "shown_top": "du siehst die obersten Gesetze, oberstes zuerst: {value}",
        "shown_party": "du siehst die Partei: {value}",
        "item_role": "deine Rolle: {value}",
        "item_hitler": "Hitler: {value}",
        "item_fascists": "die einfachen Faschisten: {value}",
        "item_hand": "deine Hand: {fascist} faschistisch, {liberal} liberal",
        "value_role_liberal": "Liberaler",
        "value_role_fascist": "einfacher Faschist",
        "value_role_hitler": "Hitler",
        "value_liberal": "liberal",
        "value_fascist": "faschistisch",
        "public_phase": "Phase",
        "public_alive": "am Leben",
        "public_investigated": "geprüft",
        "public_president": "Präsident",
        "public_nominee": "Kanzler",
        "public_last_president": "zuletzt gewählter Präsident",
        "public_last_chancellor": "zuletzt gewählter Kanzler",
        "public_special_return": "nach der Sonderwahl zurück an",
        "public_liberal_policies": "liberale Gesetze",
        "public_fascist_policies": "faschistische Gesetze",
        "public_election_tracker": "Wahlzähler",
        "public_veto_refused": "Veto abgelehnt",
        "public_vetoed": "Veto angenommen",
        "public_enacted": "in dieser Runde erlassen",
        "public_by_government": "von einer Regierung",
        "public_power": "Macht",
        "public_winner": "Sieger",
        "public_how": "gewonnen durch",
        "public_pile_size": "Stapel",
        "public_discard_size": "abgelegt",
        "public_peeked_size": "durch Vorschau bekannte oberste Gesetze",
    },
}


def word(lang: str, key: str, **values: object) -> str:
    """The frame's `key` in `lang` (English for a language the table lacks), filled in."""
    table = FRAME.get(lang, FRAME["en"])
    return filled(table.get(key, FRAME["en"].get(key, key)), lang, **values)


class _GermanNumbers(string.Formatter):
    """`str.format` with numbers written the German way: `{:,}` groups thousands with a
    point and a decimal comma stands for the point (143.762 Zustände in 4,4 s)."""

    SWAP = str.maketrans(",.", ".,")

    def format_field(self, value: Any, format_spec: str) -> Any:
        text = super().format_field(value, format_spec)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return text.translate(self.SWAP)
        return text


GERMAN_NUMBERS = _GermanNumbers()


def filled(template: str, lang: str, **values: object) -> str:
    """`template` filled in, its numbers in the way of `lang` (German: 143.762 and 4,4);
    every sentence with a number in it, in the engine, the answers and the book, is filled
    in here."""
    return GERMAN_NUMBERS.format(template, **values) if lang == "de" else template.format(**values)


def english(text: str, lang: str) -> str:
    """Text the tools have only in English (a note, a log's own words), marked as such in
    any other language."""
    return text if lang == "en" else UNTRANSLATED + text


def named(lang: str, kind: str, name: str) -> str:
    """A team or a way of winning (`kind` team/how) in `lang`: German from the table, English
    as the rules name it (`liberal`, `policies`)."""
    if lang == "en":
        return name
    return FRAME.get(lang, {}).get(f"{kind}_{name}", name)
