"""The no-leak certificate: the view the engine gives a seat is a function of what the seat
was shown (spec/LANGUAGE.md "Who sees what"; R-S5, R-L1-R-L4, R-X3, R-X5).

A seat's observation history (engine/observe.py) is everything it can know under perfect
recall. If two games give a seat the same history but the engine shows it different views
(a `[view]` item, the public part, or the moves it may make now), the view tells the seat
something no rule showed it: a leak. `stepwise` and verify/smt/stepwise.py prove there is
none move by move; where a rule's step does not close, `directed` looks along the solver's
shortest game taking that rule (7 players too), `beliefs` by a complete search over the
seat's belief sets (5 and 6 players), the Z3 backend by self-composition (verify/smt/
selfcompose.py: BMC to a depth, induction where it closes, "unknown" beyond);
`certificate` holds the verdicts, the shortest pair of games and their words.

The same belief sets answer questions about knowledge (`knows(WHO, WHAT)` in `shrules ask`,
spec/LANGUAGE.md "Knowledge"): `belief_sets` stores them compactly (a public part and the
hidden parts it allows), `search` looks for the shortest game in which the knowledge
arises, `question` and `decide` turn a question into that search.
"""
