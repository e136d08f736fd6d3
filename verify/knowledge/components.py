"""The hidden fields a knowledge question must keep apart, read from the typed tree.

A belief is a set of states sharing their public part. The hidden fields fall into
*components*: two fields are in one component when some expression of the rules reads
(or assigns) both, directly or through a parameter, a `let` or a definition: a
requirement, an assignment with the field it assigns, a chance weight, what a move shows
and to whom, what it reveals, a `[public]` count, a `[view]` item, a parameter's domain.
Public fields and the move's rule do not join components: every state of a belief agrees
on them.

Across components nothing couples two states of a belief: which moves are legal, what
they change and what they show are, for each component, functions of that component, the
public part and the move. So a belief is the product of its public part and one set per
component, and the part of a belief on a set of components closed this way changes, move
by move, as a function of that part, the public part and what the seat is shown. That is
what lets the search (search.py) merge beliefs alike on the components a question reads:
the merged belief's part there is the same, and so is every successor's.
"""

from __future__ import annotations

from collections.abc import Iterable

from spec.lang import nodes as n
from spec.model import Rule, Spec


class _Union:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, item: str) -> str:
        self.parent.setdefault(item, item)
        while self.parent[item] != item:
            self.parent[item] = self.parent[self.parent[item]]
            item = self.parent[item]
        return item

    def join(self, items: Iterable[str]) -> None:
        items = list(items)
        for item in items[1:]:
            self.parent[self.find(item)] = self.find(items[0])


def _names(node: n.Node | None, definitions: dict[str, n.Node], lets: dict[str, set[str]]) -> set[str]:
    """The fields (through definitions) and the parameters (`param:NAME`, through lets) an
    expression reads."""
    if node is None:
        return set()
    out = set(n.fields_read([node], definitions))
    for item in n.walk(node):
        if isinstance(item, n.Name) and item.kind == "param":
            out.add(f"param:{item.name}")
        elif isinstance(item, n.Name) and item.kind == "let":
            out |= lets.get(item.name, set())
    return out


def _rule_groups(rule: Rule, definitions: dict[str, n.Node]) -> list[set[str]]:
    """The sets of names each expression of a rule reads together."""
    lets: dict[str, set[str]] = {}
    for name, node in rule.lets:
        lets[name] = _names(node, definitions, lets)
    groups = [_names(req.when, definitions, lets) for req in rule.requires]
    groups += [_names(node, definitions, lets) | {field} for field, node in rule.effect]
    groups += [_names(rule.weight, definitions, lets), _names(rule.actor_seat, definitions, lets)]
    groups += [_names(show.to, definitions, lets) | _names(show.what, definitions, lets) for show in rule.shows]
    groups += [_names(node, definitions, lets) for _, node in rule.reveals]
    groups += [_names(rule.draws, definitions, lets)]
    for param in rule.params:
        groups.append(_names(param.domain.of, definitions, lets) | {f"param:{param.name}"})
    return [{f"{rule.name}:{name}" if name.startswith("param:") else name for name in group} for group in groups]


def components(spec: Spec) -> list[frozenset[str]]:
    """The components of the hidden fields (module docstring), sorted."""
    hidden = {field.name for field in spec.fields if field.seen == "hidden"}
    union = _Union()
    for name in hidden:
        union.find(name)
    groups: list[set[str]] = []
    for rule in spec.rules:
        groups += _rule_groups(rule, spec.definitions)
    groups += [set(n.fields_read([node], spec.definitions)) for node in spec.public.values()]
    groups += [set(n.fields_read([item.to, item.what], spec.definitions)) for item in spec.view]
    for group in groups:
        # a parameter joins what it is read with; a public field joins nothing
        union.join(sorted(name for name in group if name in hidden or ":param:" in name))
    found: dict[str, set[str]] = {}
    for name in hidden:
        found.setdefault(union.find(name), set()).add(name)
    return sorted((frozenset(group) for group in found.values()), key=sorted)


def closure(spec: Spec, reads: Iterable[str]) -> frozenset[str]:
    """The hidden fields of every component that holds one of `reads`."""
    wanted = set(reads)
    return frozenset().union(*(group for group in components(spec) if group & wanted))
