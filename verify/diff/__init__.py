"""Telling rule sets apart: `shrules diff` and the mutation score.

- compare.py: `diff(a, b)`, the shortest game two rule sets disagree on, per player count:
  the product search first, random play in lockstep when its budget runs out; and
  `compare_verdicts`, every property's verdict under each rule set;
- product.py: the product of two engines, breadth-first over pairs of states, and what
  counts as a difference (legality, outcome, forced moves, reveals, odds);
- reductions.py: the exact reductions that are sound for a pair of rule sets;
- mutants.py: the mutation score, every deliberate mistake of spec/variants/mistakes/
  told apart from the rules by a property it breaks or by `diff`;
- operators.py: mutation operators over the typed tree, mutants as in-memory specs;
- mutate.py: mutation analysis (`shrules mutate`): each mutant killed by the catalogue,
  proved equivalent by a complete product search, or surviving with the game.

Built on the explicit-state checker's codec and reductions (verify/explicit/) and, for
the property verdicts of a mutant, on verify/checker.py.
"""

from .compare import Budget, CountResult, DiffResult, VerdictRow, compare_verdicts, diff
from .product import Difference, Parting, first_state_change
from .reductions import hidden_fields, semantic_signature, subset_representatives

__all__ = ["Budget", "CountResult", "DiffResult", "Difference", "Parting", "VerdictRow", "compare_verdicts", "diff",
           "first_state_change", "hidden_fields", "semantic_signature", "subset_representatives"]
