"""The answers of `shrules ask` in words (English, German) and as JSON.

German output is German throughout: the frame here, the rule titles (`[rules_de]` of
spec/rulebook.toml), the witness games and the reasons of illegal moves (the spec's
`says_de` and `why_de`, the engine's frame in engine/words.py) and the catalogue's German
text. Where a text exists only in English (an entry without German, a variant's rewritten
move sentence), it is shown marked as English, never silently: `UNTRANSLATED` before a
sentence, `english_only` after a catalogue text.
"""

from __future__ import annotations

import textwrap
from typing import Any

from engine.words import UNTRANSLATED, filled
from spec.disputes import Dispute
from spec.loader import load_rule_texts, load_rulebook, load_spec
from spec.moves import ANY, moves_in_words

from ..results import PropertyResult, Unknown
from .answers import NO, YES, Answer, FormalAnswer, PositionAnswer, TextAnswer, as_expected, happens, other_count
from .record import GameRecord, game_record

WORDS: dict[str, dict[str, str]] = {
    "en": {
        "yes": "Yes — this can happen.",
        "shortest": "The shortest game where it does ({players} players, {moves} moves, {elections}):",
        "a_game": "A game where it does, not proved the shortest ({players} players, {moves} moves, {elections}):",
        "elections": "{count} elected government",
        "elections_plural": "{count} elected governments",
        "no": "No — this never happens ({counts} players).",
        "proved_for": "Proved for {proofs}.",
        "how": "How this was decided:",
        "unknown": "Unknown — no game where it happens was found, but that is not a proof:",
        "proved": "proved ({method})",
        "players": "{counts} players",
        "all_states": "all {states:,} reachable states",
        "symmetry": ", up to seat rotation",
        "inferred": " with invariants inferred from played games",
        "found": "Found by {method} after {states:,} states in {seconds:.1f} s.",
        "found_solver": "Found by {method} (depth {depth}) in {seconds:.1f} s.",
        "rests": "Rests on:",
        "rests_witness": "Rests on (the rules of the moves that made it happen in this game):",
        "permitted": "The answering move is legal only through the exception of {rules}.",
        "rests_proof": "Rests on (the requirements the proof needed, from its unsat cores):",
        "rests_search": "Rests on (the requirements that blocked every move into it, in the complete search):",
        "rests_proof_search": "Rests on (the requirements the proofs needed: unsat cores, and the moves they "
                              "blocked in the complete search):",
        "rests_fields": "Rests on (the rules that change what the question reads; not taken from a proof):",
        "why": "In short:",
        "mistake": "The mistake:",
        "expected": "Expected answer: {expected} — {result}.",
        "expected_at": "The catalogue's answer, {expected}, is for {players} players, the count that decides it; "
                       "at other counts the answer may differ.",
        "as_expected": "as expected",
        "not_expected": "NOT as expected",
        "undecided": "not decided",
        "query": "Formally: {kind} {text}",
        "over_moves": " (over the moves {on})",
        "over_any": " (over every move)",
        "text_yes": "Yes — answered from the rule text ({rules}), not proved: the state of the game does not "
                    "model what players know or say.",
        "text_no": "No — answered from the rule text ({rules}), not proved: the state of the game does not "
                   "model what players know or say.",
        "spec_agrees": "The spec agrees: {what}.",
        "spec_disagrees": "The spec says otherwise: it is not so that {what}.",
        "legal": "Yes — legal: {move}.",
        "illegal": "No — {rule}: {reason}.",
        "illegal_move": "The move: {move}.",
        "depends": "It depends on hidden information: legal if {when}; illegal if {unless} — {rule}: {reason}.",
        "every_legal": "Legal in every consistent position ({count}: every deal of roles and every outcome "
                       "of the hidden moves the partial game allows).",
        "every_illegal": "Illegal in every consistent position ({count}: every deal of roles and every outcome "
                         "of the hidden moves the partial game allows).",
        "some": "Legal in {legal} of the {count} consistent positions.",
        "also": "In other positions: {rule}: {reason}.",
        "note": "Note: {note}",
        "english_only": "",
        "unknown_count": "unknown ({reason})",
        "answer_yes": "yes",
        "answer_no": "no",
        "by_solver": "By the solver alone, count by count (inferred invariants, no explicit search):",
        "solver_count": "  {players} players: {what} ({method}, {seconds:.1f} s){why}",
        "solver_yes": "yes, {moves} moves",
        "solver_unknown": "unknown",
        "marked": "▶ marks move {move}, the move that answers the question.",
        "played_on": "The game is played on to its end after the answer by the engine's seeded moves: {moves} more "
                     "moves, not part of the answer.",
        "after_answer": "after the answer, played on to the end:",
        "at_start": "It holds before the first move.",
        "bookkeeping": "· marks the rules' own bookkeeping, not counted as moves.",
        "listed": "{count} questions; `shrules ask ID` answers one.",
    },
    "de": {
        "yes": "Ja — das kann passieren.",
        "shortest": "Das kürzeste Spiel, in dem es passiert ({players} Spieler, {moves} Züge, {elections}):",
        "a_game": ("Ein Spiel, in dem es passiert, nicht als das kürzeste bewiesen ({players} Spieler, {moves} Züge, "
                   "{elections}):"),
        "elections": "{count} gewählte Regierung",
        "elections_plural": "{count} gewählte Regierungen",
        "answer_yes": "ja",
        "answer_no": "nein",
        "by_solver": "Allein vom Solver, Spielerzahl für Spielerzahl (gefolgerte Invarianten, keine explizite Suche):",
        "solver_count": "  {players} Spieler: {what} ({method}, {seconds:.1f} s){why}",
        "solver_yes": "ja, {moves} Züge",
        "solver_unknown": "unbekannt",
        "no": "Nein — das passiert nie ({counts} Spieler).",
        "proved_for": "Bewiesen für {proofs}.",
        "how": "Wie das entschieden wurde:",
        "unknown": "Unbekannt — kein Spiel gefunden, in dem es passiert, aber das ist kein Beweis:",
        "proved": "bewiesen ({method})",
        "players": "{counts} Spieler",
        "all_states": "alle {states:,} erreichbaren Zustände",
        "symmetry": ", bis auf Drehung der Plätze",
        "inferred": " mit aus gespielten Partien gefundenen Invarianten",
        "found": "Gefunden durch {method} nach {states:,} Zuständen in {seconds:.1f} s.",
        "found_solver": "Gefunden durch {method} (Tiefe {depth}) in {seconds:.1f} s.",
        "rests": "Beruht auf:",
        "why": "Kurz:",
        "mistake": "✗ Nicht:",
        "expected": "Erwartete Antwort: {expected} — {result}.",
        "expected_at": "Die Antwort des Katalogs, {expected}, gilt für {players} Personen, die Zahl, die die Frage "
                       "entscheidet; bei anderen Zahlen kann sie anders lauten.",
        "as_expected": "wie erwartet",
        "not_expected": "NICHT wie erwartet",
        "undecided": "nicht entschieden",
        "query": "Formal: {kind} {text}",
        "over_moves": " (über die Züge {on})",
        "text_yes": "Ja — aus dem Regeltext beantwortet ({rules}), nicht bewiesen: der Spielzustand bildet nicht "
                    "ab, was Spieler wissen oder sagen.",
        "text_no": "Nein — aus dem Regeltext beantwortet ({rules}), nicht bewiesen: der Spielzustand bildet "
                   "nicht ab, was Spieler wissen oder sagen.",
        "spec_agrees": "Die Spezifikation stimmt zu: {what}.",
        "spec_disagrees": "Die Spezifikation sagt anderes: nicht erfüllt: {what}.",
        "legal": "Ja — zulässig: {move}.",
        "illegal": "Nein — {rule}: {reason}.",
        "illegal_move": "Der Zug: {move}.",
        "depends": "Das hängt von verborgener Information ab: zulässig, wenn gilt: {when}; unzulässig, wenn gilt: "
                   "{unless} — {rule}: {reason}.",
        "every_legal": "Zulässig in jeder damit vereinbaren Stellung ({count}: jede Rollenverteilung und jeder "
                       "Ausgang der verdeckten Züge, die die Partie zulässt).",
        "every_illegal": "Unzulässig in jeder damit vereinbaren Stellung ({count}: jede Rollenverteilung und jeder "
                         "Ausgang der verdeckten Züge, die die Partie zulässt).",
        "some": "Zulässig in {legal} der {count} damit vereinbaren Stellungen.",
        "also": "In anderen Stellungen: {rule}: {reason}.",
        "note": "Hinweis: {note}",
        "english_only": "(keine deutsche Fassung — englischer Text)",
        "unknown_count": "unbekannt ({reason})",
        "rests_witness": "Beruht auf (die Regeln der Züge, die es in diesem Spiel herbeiführten):",
        "permitted": "Der antwortende Zug ist nur durch die Ausnahme von {rules} erlaubt.",
        "rests_proof": "Beruht auf (die Bedingungen, die der Beweis brauchte, aus seinen unerfüllbaren Kernen):",
        "rests_search": "Beruht auf (die Bedingungen, die in der vollständigen Suche jeden Zug dorthin verboten):",
        "rests_proof_search": "Beruht auf (die Bedingungen, die die Beweise brauchten: unerfüllbare Kerne und die "
                              "Züge, die sie in der vollständigen Suche verboten):",
        "rests_fields": "Beruht auf (die Regeln, die ändern, was die Frage liest; nicht aus einem Beweis):",
        "over_any": " (über jeden Zug)",
        "marked": "▶ markiert Zug {move}, den Zug, der die Frage beantwortet.",
        "played_on": "Nach der Antwort spielt die Engine das Spiel mit festen Zufallszügen zu Ende: {moves} weitere "
                     "Züge, nicht Teil der Antwort.",
        "after_answer": "nach der Antwort, zu Ende gespielt:",
        "at_start": "Das gilt schon vor dem ersten Zug.",
        "bookkeeping": "· markiert die Buchführung der Regeln selbst, nicht als Züge gezählt.",
        "listed": "{count} Fragen; `shrules ask ID` beantwortet eine.",
    },
}

METHODS = {"explicit": {"en": "explicit search", "de": "explizite Suche"},
           "k-induction": {"en": "k-induction", "de": "k-Induktion"},
           "bmc": {"en": "bounded model checking", "de": "beschränkte Modellprüfung"},
           "beliefs": {"en": "a search of what the player can know", "de": "Suche über das, was die Person wissen kann"}}


def counts_text(counts: tuple[int, ...] | list[int], lang: str = "en") -> str:
    """`5–10`, `5–6 and 8`, `7`: player counts, runs joined with an en dash."""
    runs: list[list[int]] = []
    for value in sorted(set(counts)):
        if runs and value == runs[-1][-1] + 1:
            runs[-1].append(value)
        else:
            runs.append([value])
    parts = [str(run[0]) if len(run) == 1 else f"{run[0]}–{run[-1]}" for run in runs]
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + (" und " if lang == "de" else " and ") + parts[-1]


def _say(lang: str, key: str, **values: Any) -> str:
    """The text of `key` in `lang` (in English where that language has none yet)."""
    return filled(WORDS.get(lang, {}).get(key, WORDS["en"][key]), lang, **values)


def _method(result: PropertyResult, lang: str) -> str:
    evidence = result.verdict.evidence
    if evidence.method == "explicit" and evidence.states is not None:
        text = _say(lang, "all_states", states=evidence.states)
        if "rotation symmetry" in evidence.note:
            text += _say(lang, "symmetry")
        return text
    text = METHODS.get(evidence.method, {}).get(lang, evidence.method)
    if evidence.method == "beliefs" and evidence.note:      # how many beliefs, to what depth
        text += f" ({_english(evidence.note, lang)})"
    if evidence.method == "k-induction" and "inferred" in evidence.note:   # the solver's note says so
        text += _say(lang, "inferred")
    return text


def _grouped(results: list[tuple[int, str]], lang: str) -> str:
    """'5 players (all N reachable states) and 6–10 players (k-induction)'."""
    groups: list[tuple[list[int], str]] = []
    for count, text in results:
        if groups and groups[-1][1] == text and "states" not in text and "Zustände" not in text:
            groups[-1][0].append(count)
        else:
            groups.append(([count], text))
    parts = [f"{_say(lang, 'players', counts=counts_text(counts, lang))} ({text})" for counts, text in groups]
    joiner = " und " if lang == "de" else " and "
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + joiner + parts[-1]


RULE_WIDTH = 92
"""Columns the short text of a cited rule is wrapped to under "Rests on"."""


def _rules(rule_ids: tuple[str, ...], lang: str, grounds: str = "") -> str:
    """The rule IDs with their titles, after what they were taken from (verify/lawyer/grounds.py),
    then under it each rule's short text (spec/rulebook/), so the answer says what a
    citation means without the rulebook at hand; `shrules rules ID` prints the whole rule."""
    book = load_rulebook(lang)
    texts = load_rule_texts()
    head = _say(lang, f"rests_{grounds}" if grounds else "rests")
    lines = [head + " " + "; ".join(f"{rule_id} ({book.get(rule_id, '')})" for rule_id in rule_ids)]
    width = max((len(rule_id) for rule_id in rule_ids), default=0)
    for rule_id in rule_ids:
        text = texts.get(rule_id)
        if text is not None:
            lines += textwrap.wrap(text.short(lang), RULE_WIDTH, initial_indent=f"    {rule_id:<{width}}  ",
                                   subsequent_indent=" " * (width + 6), break_on_hyphens=False)
    return "\n".join(lines)


def catalogue_text(dispute: Dispute, name: str, lang: str) -> str | None:
    """A catalogue text (`question`, `explanation`, `mistake`) in `lang`; where the entry has
    it only in English, the English followed by a note saying so (None: no such text)."""
    own = dispute.text(name, lang)
    if own:
        return own
    english = dispute.text(name, "en")
    if not english or lang == "en":
        return english or None
    return f"{english} {_say(lang, 'english_only')}"


def listed(count: int, lang: str) -> str:
    """The line under the catalogue's listing: how many questions, and how to ask one."""
    return _say(lang, "listed", count=count)


def _dispute_head(dispute: Dispute | None, lang: str) -> list[str]:
    if dispute is None:
        return []
    return [f"{catalogue_text(dispute, 'question', lang)}  [{dispute.id}]"]


def _dispute_tail(answer: Answer, lang: str) -> list[str]:
    dispute = answer.dispute
    if dispute is None:
        return []
    out = []
    mistake = catalogue_text(dispute, "mistake", lang)
    if mistake:
        out.append(f"{_say(lang, 'mistake')} {mistake}")
    out.append(f"{_say(lang, 'why')} {catalogue_text(dispute, 'explanation', lang)}")
    deciding = other_count(answer)
    if deciding is not None:
        out.append(_say(lang, "expected_at", expected=_say(lang, f"answer_{dispute.answer}"), players=deciding))
        return out
    verdict = as_expected(answer)
    result = {True: "as_expected", False: "not_expected", None: "undecided"}[verdict]
    out.append(_say(lang, "expected", expected=_say(lang, f"answer_{dispute.answer}"), result=_say(lang, result)))
    return out


def render(answer: Answer, lang: str = "en", changes: bool = False) -> str:
    """The answer in plain words: the verdict and its game or reason first, what it rests
    on, the catalogue's words, and last, under "How this was decided", the method, its
    figures and the formal query, which a player does not need to read the answer."""
    how: list[str] = []
    if isinstance(answer, FormalAnswer):
        body, how = _formal(answer, lang, changes)
    elif isinstance(answer, TextAnswer):
        body = _text(answer, lang)
    else:
        body = _position(answer, lang)
    grounds = answer.grounds if isinstance(answer, FormalAnswer) else ""
    section = [_say(lang, "how"), *("  " + line for line in how)] if how else []
    return "\n".join(_dispute_head(answer.dispute, lang) + body + [_rules(answer.rule_ids, lang, grounds)]
                     + _dispute_tail(answer, lang) + section)


def _formal(answer: FormalAnswer, lang: str, changes: bool) -> tuple[list[str], list[str]]:
    """The answer's lines, and apart the lines of how it was decided."""
    prop = answer.query
    out: list[str] = []
    how: list[str] = []
    verdict = answer.verdict
    if verdict == YES:
        witness, trace = answer.witness, answer.game
        assert witness is not None and trace is not None
        record = game_record(trace, prop, changes, lang)
        count = record.elections
        elections = _say(lang, "elections" if count == 1 else "elections_plural", count=count)
        which = "a_game" if getattr(witness.verdict, "lower_bound", None) is not None else "shortest"
        out.append(_say(lang, "yes") + " " + _say(lang, which, players=witness.players, moves=record.table_moves,
                                                  elections=elections))
        out += _record_lines(record, lang)
        out.append(_say(lang, "marked", move=record.answer_move) if record.answer >= 0 else _say(lang, "at_start"))
        if record.permitted_by:
            book = load_rulebook(lang)
            out.append(_say(lang, "permitted", rules=", ".join(f"{rule_id} ({book.get(rule_id, '')})"
                                                                for rule_id in record.permitted_by)))
        if record.played_on:
            out.append(_say(lang, "played_on", moves=record.played_on))
        if changes:
            out.append(_say(lang, "bookkeeping"))
        evidence = witness.verdict.evidence
        method = METHODS.get(evidence.method, {}).get(lang, evidence.method)
        if evidence.states is not None:
            how.append(_say(lang, "found", method=method, states=evidence.states, seconds=evidence.seconds))
        else:
            how.append(_say(lang, "found_solver", method=method, depth=evidence.depth, seconds=evidence.seconds))
    elif verdict == NO:
        proofs = [(r.players, _method(r, lang)) for r in sorted(answer.results, key=lambda r: r.players)]
        out.append(_say(lang, "no", counts=counts_text([r.players for r in answer.results], lang)))
        how.append(_say(lang, "proved_for", proofs=_grouped(proofs, lang)))
    else:
        out.append(_say(lang, "unknown"))
        lines: dict[str, list[int]] = {}
        for result in answer.results:
            if isinstance(result.verdict, Unknown):
                text = _say(lang, "unknown_count", reason=_english(result.verdict.reason, lang))
            else:
                text = _say(lang, "proved", method=_method(result, lang))
            lines.setdefault(text, []).append(result.players)
        for count, why in answer.not_searched.items():
            lines.setdefault(_english(why, lang), []).append(count)
        for text, counts in sorted(lines.items(), key=lambda item: min(item[1])):
            out.append(f"  {_say(lang, 'players', counts=counts_text(counts, lang))}: {text}")
    moves = moves_in_words(load_spec(prop.rules or "standard"), prop.on) if prop.on else ""
    on = "" if not moves else _say(lang, "over_any") if moves == ANY else _say(lang, "over_moves", on=moves)
    how.append(_say(lang, "query", kind=prop.kind, text=prop.text) + on)
    return out, how


def _record_lines(record: GameRecord, lang: str) -> list[str]:
    """The game's lines, the answering move marked ▶, the moves played on after it set apart."""
    out: list[str] = []
    after = False
    for row in record.rows:
        if row.step is not None and row.step > record.answer and not after and row.kind != "over":
            after = True
            out.append("  " + _say(lang, "after_answer"))
        mark = "▶ " if row.kind == "move" and row.step == record.answer else "  "
        out.append(mark + row.text)
    return out


def solver_lines(answer: FormalAnswer, lang: str = "en") -> list[str]:
    """`ask --solver`: the solver's verdict at each count, a line each, with its method and
    the count's wall time (inference included where the count's support was built)."""
    out = [_say(lang, "by_solver")]
    for result in answer.results:
        verdict = result.verdict
        outcome = happens(verdict)
        trace = getattr(verdict, "trace", None)
        why = ""
        if isinstance(verdict, Unknown):
            what, why = _say(lang, "solver_unknown"), ": " + _english(verdict.reason.splitlines()[0], lang)
        elif outcome and trace is not None:
            what = _say(lang, "solver_yes", moves=len(trace.steps))
        else:
            what = _say(lang, "answer_yes" if outcome else "answer_no")
        method = METHODS.get(verdict.evidence.method, {}).get(lang, verdict.evidence.method)
        out.append(_say(lang, "solver_count", players=result.players, what=what, method=method,
                        seconds=verdict.evidence.seconds if result.facts.wall_seconds is None
                        else result.facts.wall_seconds, why=why))
    return out


def _english(text: str, lang: str) -> str:
    """Text the tools write only in English (a limit's reason, a check of the spec, a hidden
    fact), marked as English in any other language."""
    return text if lang == "en" else UNTRANSLATED + text


def _text(answer: TextAnswer, lang: str) -> list[str]:
    key = "text_yes" if answer.verdict == YES else "text_no"
    out = [_say(lang, key, rules=", ".join(answer.rule_ids))]
    german = answer.checks_de if lang == "de" and len(answer.checks_de) == len(answer.checks) else ()
    for number, (what, agrees) in enumerate(answer.checks):
        shown = german[number] if german else _english(what, lang)
        out.append(_say(lang, "spec_agrees" if agrees else "spec_disagrees", what=shown))
    return out


def _position(answer: PositionAnswer, lang: str) -> list[str]:
    ruling = answer.ruling
    book = load_rulebook(lang)
    move, reasons = ruling.said(lang)
    out: list[str] = []
    if ruling.verdict == "legal":
        out.append(_say(lang, "legal", move=move))
    else:
        rule_id, reason = reasons[0]
        rule = f"{rule_id} ({book.get(rule_id, '')})"
        if ruling.verdict == "illegal":
            out.append(_say(lang, "illegal", rule=rule, reason=reason))
            out.append(_say(lang, "illegal_move", move=move))
        else:
            assert ruling.condition is not None
            when, unless = ruling.condition_de if lang == "de" and ruling.condition_de else \
                (_english(ruling.condition[0], lang), _english(ruling.condition[1], lang))
            out.append(_say(lang, "depends", when=when, unless=unless, rule=rule, reason=reason))
            out.append(_say(lang, "illegal_move", move=move))
        for other_id, other_reason in reasons[1:4]:
            out.append(_say(lang, "also", rule=other_id, reason=other_reason))
    if ruling.verdict == "depends":
        out.append(_say(lang, "some", legal=ruling.legal, count=ruling.positions))
    elif ruling.positions > 1:
        out.append(_say(lang, f"every_{ruling.verdict}", count=ruling.positions))
    out += [_say(lang, "note", note=_english(note, lang)) for note in ruling.notes]
    return out


# ---------------------------------------------------------------------- JSON


def _result_json(result: PropertyResult) -> dict[str, Any]:
    verdict = result.verdict
    evidence = verdict.evidence
    out: dict[str, Any] = {"players": result.players, "verdict": verdict.verdict, "method": evidence.method,
                           "states": evidence.states, "seconds": evidence.seconds, "reductions": evidence.note}
    if isinstance(verdict, Unknown):
        out["reason"] = verdict.reason
    if result.facts.wall_seconds is not None:      # `ask --solver`: the count's time, inference included
        out["wall_seconds"] = result.facts.wall_seconds
    trace = getattr(verdict, "trace", None)
    if trace is not None:
        out["moves"] = len(trace.steps)
        out["elections"] = trace.elections()
    return out


def to_json(answer: Answer) -> dict[str, Any]:
    """The answer as JSON for tools: the verdict, the rule IDs, per-count evidence, the game."""
    book, texts = load_rulebook(), load_rule_texts()
    out: dict[str, Any] = {"answer": answer.verdict,
                           "rules": [{"id": r, "title": book.get(r, ""), "short": texts[r].short() if r in texts else ""}
                                     for r in answer.rule_ids]}
    if isinstance(answer, FormalAnswer) and answer.grounds:
        out["rules_from"] = answer.grounds
    dispute = answer.dispute
    if dispute is not None:
        out = {"id": dispute.id, "question": dispute.question, "question_de": dispute.question_de,
               "kind": dispute.kind, "expected": dispute.answer, "as_expected": as_expected(answer), **out,
               "explanation": dispute.explanation}
    if isinstance(answer, FormalAnswer):
        prop = answer.query
        out["query"] = {"kind": prop.kind, ("move" if prop.on else "state"): prop.text, "on": list(prop.on)}
        out["players"] = [_result_json(r) for r in sorted(answer.results, key=lambda r: r.players)]
        out["not_searched"] = {str(count): why for count, why in sorted(answer.not_searched.items())}
        witness, trace = answer.witness, answer.game
        if witness is not None and trace is not None:
            record = game_record(trace, prop, False)
            out["witness"] = {"players": witness.players, "lines": [row.text for row in record.rows],
                              "answer_step": record.answer, "answer_move": record.answer_move,
                              "table_moves": record.table_moves, "played_on": record.played_on,
                              "permitted_by": list(record.permitted_by), "itf": trace.to_itf()}
    elif isinstance(answer, TextAnswer):
        out["from"] = "rule text"
        out["spec_checks"] = [{"check": what, "agrees": ok} for what, ok in answer.checks]
    else:
        out["ruling"] = answer.ruling.to_json()
    return out


def listing(disputes: tuple[Dispute, ...], lang: str = "en") -> list[str]:
    """The catalogue, one entry a line: id, kind, expected answer, question."""
    width = max(len(d.id) for d in disputes)
    out = []
    for dispute in disputes:
        question = catalogue_text(dispute, "question", lang)
        answer = _say(lang, f"answer_{dispute.answer}")
        out.append(f"{dispute.id:<{width}}  {dispute.kind:<9}  {answer:<{4 if lang == 'de' else 3}}  {question}")
    return out

