"""The Z3 backend: the same spec as constraints.

The typed tree of the rules (spec/) is translated to Z3 (translate.py) and assembled
into a transition system (system.py: `init(s)`, `step(s, s')`); induction.py proves
invariants (an inductive support found the Houdini way, k-induction, move properties over
one step, the ranking), bmc.py finds shortest witnesses and counterexamples and replays
them through the engine (guides.py and playouts.py give it the rules of earlier witnesses
and of random games to follow when the plain search is slow), agree.py checks that the engine and the solver compute the same
successors, and check.py turns all of it into the project's typed verdicts. Only this room
imports z3.
"""

from __future__ import annotations

from ..results import Limits
from .bmc import BackendDisagreement
from .backend import Backend, backend_for
from .check import build_once, check_players, check_property, one_by_one, prove_never_happens

__all__ = ["Backend", "BackendDisagreement", "Limits", "backend_for", "build_once", "check_players",
           "check_property", "one_by_one", "prove_never_happens"]
