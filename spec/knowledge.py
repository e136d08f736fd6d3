"""Knowledge in questions: the shape a question with `knows(WHO, WHAT)` must have.

`knows` is checked like any call by the type checker (spec/lang/check.py, allowed only in
a question's scope); this module says which questions can be decided over one seat's
beliefs (verify/knowledge): the question is asked of one seat at a time, *the knower*,
and holds if it holds for some seat. So

- every `knows` of a question speaks of the same seats (one subject);
- `knows(some(X), E)` stands where the question must be true (under an even number of
  `not`): "some seat of X knows E" is the knower being in X and knowing E;
- `knows(every(X), E)` stands where it must be false (under an odd number of `not`):
  "not every seat of X knows E" is the knower being in X and not knowing E;
- `knows` stands only under `and`, `or` and `not`, whose polarity is clear.

What the other readings would need, every seat's beliefs at once, is not decided; such a
question is refused with what to ask instead (spec/LANGUAGE.md, "Knowledge").
"""

from __future__ import annotations

from .errors import Location, SpecError
from .lang import nodes as n
from .lang.check import KNOWS

__all__ = ["KNOWS", "atoms", "check_question", "uses_knows"]


def atoms(node: n.Node | None) -> list[n.Call]:
    """The `knows` calls of an expression, in reading order."""
    if node is None:
        return []
    return [item for item in n.walk(node) if isinstance(item, n.Call) and item.function == KNOWS]


def uses_knows(node: n.Node | None) -> bool:
    """Whether an expression asks what a seat knows."""
    return bool(atoms(node))


def check_question(node: n.Node, where: Location) -> None:
    """Refuse a question with `knows` that one seat's beliefs cannot decide (module docstring)."""
    found = atoms(node)
    if not found:
        return
    subject = found[0].args[0]
    for atom in found[1:]:
        if atom.args[0] != subject:
            raise SpecError("every knows() of one question must speak of the same seats (the question is asked "
                            "of one knower at a time); ask about the other seats in a second question", where)
    _polarity(node, True, where)


def _polarity(node: n.Node, positive: bool, where: Location) -> None:
    if isinstance(node, n.Call) and node.function == KNOWS:
        quantifier = node.args[0]
        assert isinstance(quantifier, n.Call)
        if quantifier.function == "every" and positive:
            raise SpecError("knows(every(...), ...) where the question must hold needs every seat's beliefs at "
                            "once, which is not decided; ask --never with not knows(every(...), ...) for \"always "
                            "known by all\", or knows(some(...), ...) for \"known by one\"", where)
        if quantifier.function == "some" and not positive:
            raise SpecError("not knows(some(...), ...) says that no seat knows, which needs every seat's beliefs "
                            "at once; write not knows(every(...), ...) for \"some seat does not know\", or ask "
                            "--never with knows(some(...), ...) for \"nobody ever knows\"", where)
        return
    if isinstance(node, n.Unary) and node.op == "not":
        _polarity(node.operand, not positive, where)
        return
    if isinstance(node, n.BoolOp):
        for operand in node.operands:
            _polarity(operand, positive, where)
        return
    if atoms(node):
        raise SpecError("knows() may stand only under and, or and not (its meaning under a comparison or an "
                        "if is not one seat's)", where)
