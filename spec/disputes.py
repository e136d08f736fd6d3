"""The dispute catalogue, as data: the rules questions tables argue about, each a formal query.

spec/disputes.toml lists `[[dispute]]` entries. Every entry has

- `id` (lower-case words joined by '-'), `source` (where the question comes from: a seed
  file and section, or a dispute of RULES.md), `question` in English and, where the seed
  has it, `question_de`; for the "Leicht vergessen" items of the German refresher also the
  mistaken reading (`mistake`, `mistake_de`: the seed's "✗ Nicht");
- `rules`: the rule IDs of RULES.md the answer rests on;
- `answer`: the expected answer to "can this happen?" (`yes` or `no`); for a position, to
  "is this move legal there?";
- `explanation` (and `explanation_de`): the answer in a few plain words;
- `kind`, one of
  * `sometimes` / `never`: a formal query in the format of spec/properties.toml: `state =
    "..."` over states, or `move = "..."` with `on = [rule names]` over moves (names before
    the move, `after_FIELD` after it, parameters by name, and what the move `reveals` by
    its name, e.g. `party` of an investigation), and the temporal functions of
    spec/LANGUAGE.md over the game so far (`previous`, `times`, `in_a_row`, `then`; the
    property is then stated over the rules with the query's monitors, `Property.rules`).
    `players` (default: every count) are the counts the question concerns; `decides` is the count that settles the answer fastest
    (the smallest with a witness, or the smallest to search completely);
  * `position`: a partial game (`game`, a native transcript, JSON Lines, found beside the
    catalogue or under spec/) and the move asked about (`next_move`, one line of the same
    format);
  * `rule_text`: hidden information the state does not model (who knows whom, what is
    said at the table). Such an answer is read from the rule text, never "proved"; what
    the spec can check about it is listed: `refused_players` (counts the rules refuse),
    `silent` (rules that reveal nothing to anyone), `not_revealed` (fields no rule
    reveals).

A `sometimes` entry expected `yes`, or a `never` entry expected `no`, claims what its kind
says; the other two combinations claim the opposite (the property's `expect = "fails"`).
The checkers receive each formal entry as an ordinary `Property`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import Location, SpecError, read_toml
from .lang import nodes as n
from .lang.check import Scope, parse
from .lang.types import BOOL
from .loader import load_spec
from .model import Spec
from .properties import Property, move_scope, parse_players, state_scope
from .knowledge import check_question
from .temporal import KNOWLEDGE_CALLS, base_name, calls, monitor, uses_temporal

DISPUTES_FILE = Path(__file__).parent / "disputes.toml"
KINDS = ("sometimes", "never", "position", "rule_text")
ANSWERS = ("yes", "no")
REVEAL = "reveal"
"""The kind of a name that stands for what a move reveals (substituted before checking)."""

_COMMON = {"id", "source", "question", "question_de", "mistake", "mistake_de", "rules", "answer",
           "explanation", "explanation_de", "kind", "players"}
_KEYS = {
    "sometimes": _COMMON | {"state", "move", "on", "decides"},
    "never": _COMMON | {"state", "move", "on", "decides"},
    "position": _COMMON | {"game", "next_move"},
    "rule_text": _COMMON | {"refused_players", "silent", "not_revealed"},
}


@dataclass(frozen=True, slots=True)
class Dispute:
    """One catalogue entry: the question, its expected answer and how it is decided."""

    id: str
    kind: str
    source: str
    question: str
    answer: str
    rule_ids: tuple[str, ...]
    explanation: str
    players: tuple[int, ...]
    where: Location
    question_de: str | None = None
    explanation_de: str | None = None
    mistake: str | None = None
    mistake_de: str | None = None
    query: Property | None = None         # sometimes / never: the formal query
    decides: int | None = None
    game: Path | None = None              # position
    next_move: str | None = None
    refused_players: tuple[int, ...] = ()  # rule_text
    silent: tuple[str, ...] = ()
    not_revealed: tuple[str, ...] = ()

    def text(self, name: str, lang: str = "en") -> str | None:
        """A text field in the language asked for, or None when the catalogue lacks it."""
        if lang == "de":
            return getattr(self, f"{name}_de", None)
        return getattr(self, name)  # type: ignore[no-any-return]


def expect_of(kind: str, answer: str) -> str:
    """The property's `expect` for a formal entry: `holds` when the answer agrees with the kind."""
    return "holds" if (kind == "sometimes") == (answer == "yes") else "fails"


# ---------------------------------------------------------------------- queries


def reveal_nodes(spec: Spec, rules: tuple[str, ...]) -> dict[str, n.Node]:
    """What the listed rules reveal, by name: only names every rule reveals the same way,
    from expressions over the state and the move's parameters (no rule-local `let`)."""
    shared: dict[str, n.Node] | None = None
    for name in rules:
        try:
            rule = spec.rule(name)
        except KeyError:
            return {}
        own = {key: node for key, node in rule.reveals
               if not any(isinstance(item, n.Name) and item.kind == "let" for item in n.walk(node))}
        shared = own if shared is None else {k: v for k, v in shared.items() if own.get(k) == v}
    return shared or {}


def substitute(node: n.Node, values: dict[str, n.Node]) -> n.Node:
    """The expression with every reveal name replaced by the expression it stands for."""
    return n.replace_names(node, REVEAL, values)


def query_scope(spec: Spec, on: tuple[str, ...], where: Location) -> tuple[Scope, dict[str, n.Node]]:
    """The names a query may use: the state scope, or for moves the move scope plus what the
    moves reveal (by name); and the reveal expressions to substitute."""
    if not on:
        return state_scope(spec), {}
    scope = move_scope(spec, on, where)
    reveals = {name: node for name, node in reveal_nodes(spec, on).items() if name not in scope.names}
    for name, node in reveals.items():
        scope.add(name, REVEAL, node.type)
    return scope, reveals


def query(spec: Spec, name: str, kind: str, text: str, on: tuple[str, ...] = (),
          players: tuple[int, ...] | None = None, rule_ids: tuple[str, ...] = (), expect: str = "holds",
          where: Location | None = None, description: str = "", show_caret: bool = False) -> Property:
    """A `sometimes` / `never` query over states (no `on`) or over the moves of `on`, as a
    Property the checkers accept; a mistake in `text` is a `SpecError` (with a caret when
    asked) naming what was expected."""
    where = where or Location("<query>")
    if kind not in ("sometimes", "never"):
        raise SpecError(f"a query is 'sometimes' or 'never', got {kind!r}", where)
    if not isinstance(text, str) or not text.strip():
        raise SpecError("expected an expression, e.g. \"phase == 'vote'\"", where)
    checked, rules = text, ""
    knowing = calls(text, KNOWLEDGE_CALLS)
    if knowing and on:
        raise SpecError("knows() belongs to a question over states, not over moves (--on); ask about the state "
                        "after the move, e.g. phase == 'chancellor_enact' and knows(nominee, ...)", where)
    if knowing and uses_temporal(text):
        raise SpecError("knows() and the temporal functions (previous, times, in_a_row, then) are not decided in "
                        "one question: the beliefs are searched over the rules without monitors", where)
    if uses_temporal(text):
        # The query's history is kept by monitors added to the rules (spec/temporal.py): the
        # property is stated over the monitored rules, and checked under them.
        monitored = monitor(spec, base_name(spec), text, where, show_caret, over_moves=bool(on))
        checked, rules = monitored.text, monitored.rules
        spec = load_spec(rules)
    scope, reveals = query_scope(spec, on, where)
    scope.knows = knowing
    node = parse(checked, scope, where, BOOL, show_caret=show_caret)
    if knowing:
        check_question(node, where)
    node = substitute(node, reveals) if reveals else node
    counts = tuple(spec.player_counts) if players is None else players
    state, move = (None, node) if on else (node, None)
    return Property(name, kind, description, rule_ids, counts, expect, state, move, on, text, where, rules=rules)


# ---------------------------------------------------------------------- the catalogue


def load_disputes(spec: Spec, path: Path | None = None) -> tuple[Dispute, ...]:
    """The dispute catalogue checked against `spec`; any mistake is a `SpecError` naming the
    file, the line of the entry and what was expected."""
    path = path or DISPUTES_FILE
    data, text = read_toml(path)
    unknown = set(data) - {"dispute"}
    if unknown:
        raise SpecError(f"{path}: unknown table '{sorted(unknown)[0]}'; the catalogue lists [[dispute]] entries")
    lines = text.splitlines()
    out: list[Dispute] = []
    seen: set[str] = set()
    for entry in data.get("dispute", []):
        ident = str(entry.get("id", ""))
        line = next((i + 1 for i, l in enumerate(lines) if re.fullmatch(rf'\s*id\s*=\s*"{re.escape(ident)}"\s*', l)),
                    None)
        where = Location(str(path), line, f"dispute '{ident}'")
        if ident in seen:
            raise SpecError(f"two disputes have the id '{ident}'", where)
        seen.add(ident)
        out.append(_dispute(spec, entry, where, path.parent))
    return tuple(out)


def _text(entry: dict[str, Any], key: str, where: Location, required: bool = True) -> str | None:
    value = entry.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise SpecError(f"'{key}' must be a non-empty text", where)
    return value.strip()


def _names(entry: dict[str, Any], key: str, where: Location) -> tuple[str, ...]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise SpecError(f"'{key}' must be a list of names", where)
    return tuple(value)


def _dispute(spec: Spec, entry: dict[str, Any], where: Location, folder: Path) -> Dispute:
    ident = str(entry.get("id", ""))
    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", ident):
        raise SpecError("an id is lower-case words joined by '-', e.g. 'tie-is-no'", where)
    kind = entry.get("kind")
    if kind not in KINDS:
        raise SpecError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}", where)
    allowed = _KEYS[kind]
    extra = sorted(set(entry) - allowed)
    if extra:
        raise SpecError(f"unknown key '{extra[0]}' for a {kind} entry; it has {', '.join(sorted(allowed))}", where)
    answer = entry.get("answer")
    if answer not in ANSWERS:
        raise SpecError(f"answer must be 'yes' or 'no', got {answer!r}", where)
    rule_ids = _names(entry, "rules", where)
    if not rule_ids:
        raise SpecError("'rules' must name the rule IDs the answer rests on", where)
    for rule_id in rule_ids:
        if rule_id not in spec.rulebook:
            raise SpecError(f"'{rule_id}' is not a rule ID of RULES.md", where)
    players = parse_players(entry.get("players"), spec, where)
    fields: dict[str, Any] = {
        "id": ident, "kind": kind, "source": _text(entry, "source", where), "question": _text(entry, "question", where),
        "answer": answer, "rule_ids": rule_ids, "explanation": _text(entry, "explanation", where),
        "players": players, "where": where,
    }
    for key in ("question_de", "explanation_de", "mistake", "mistake_de"):
        fields[key] = _text(entry, key, where, required=False)
    if kind in ("sometimes", "never"):
        fields.update(_formal(spec, entry, ident, kind, answer, rule_ids, players, where))
    elif kind == "position":
        fields.update(_position(entry, where, folder))
    else:
        fields.update(_rule_text(spec, entry, where))
    return Dispute(**fields)


def _formal(spec: Spec, entry: dict[str, Any], ident: str, kind: str, answer: str, rule_ids: tuple[str, ...],
            players: tuple[int, ...], where: Location) -> dict[str, Any]:
    if ("state" in entry) == ("move" in entry):
        raise SpecError(f"a {kind} entry has exactly one of state = \"...\" or move = \"...\"", where)
    on = _names(entry, "on", where)
    if "move" in entry and not on:
        raise SpecError("a move query needs on = [rule names]", where)
    if "state" in entry and on:
        raise SpecError("'on' belongs to a move query; a state query has none", where)
    text = entry["state"] if "state" in entry else entry["move"]
    prop = query(spec, ident, kind, text, on, players, rule_ids, expect_of(kind, answer), where,
                 str(entry.get("question", "")))
    decides = entry.get("decides", players[0])
    if decides not in players:
        raise SpecError(f"decides = {decides!r} is not one of the entry's player counts {list(players)}", where)
    return {"query": prop, "decides": decides}


def _position(entry: dict[str, Any], where: Location, folder: Path) -> dict[str, Any]:
    game = _text(entry, "game", where)
    next_move = _text(entry, "next_move", where)
    assert game is not None and next_move is not None
    path = next((base / game for base in (folder, DISPUTES_FILE.parent) if (base / game).is_file()), None)
    if path is None:
        raise SpecError(f"the partial game {game} does not exist (beside the catalogue, or under {DISPUTES_FILE.parent})",
                        where)
    try:
        parsed = json.loads(next_move)
    except json.JSONDecodeError as error:
        raise SpecError(f"next_move is not JSON: {error.msg}", where) from None
    except (ValueError, RecursionError):    # a number over 4,300 digits, nesting past the stack
        raise SpecError("next_move is not one move line: a number too long or nesting too deep", where) from None
    if not isinstance(parsed, dict) or "move" not in parsed:
        raise SpecError("next_move must be one move line, e.g. '{\"move\": \"nominate\", \"by\": 0, \"chancellor\": 2}'",
                        where)
    return {"game": path, "next_move": next_move}


def _rule_text(spec: Spec, entry: dict[str, Any], where: Location) -> dict[str, Any]:
    refused = entry.get("refused_players", [])
    if not isinstance(refused, list) or not all(isinstance(c, int) and not isinstance(c, bool) for c in refused):
        raise SpecError("refused_players must be a list of player counts", where)
    silent = _names(entry, "silent", where)
    for name in silent:
        try:
            spec.rule(name)
        except KeyError:
            raise SpecError(f"silent names no rule '{name}'", where) from None
    hidden = _names(entry, "not_revealed", where)
    known = {field.name for field in spec.fields}
    for name in hidden:
        if name not in known:
            raise SpecError(f"not_revealed names no state field '{name}'", where)
    return {"refused_players": tuple(refused), "silent": silent, "not_revealed": hidden}
