"""The rules lawyer: `shrules ask` answers rules questions with a game or a proof.

- answers.py: the answer types (a formal answer per player count, an answer from the rule
  text, a ruling on a position), yes / no / unknown, and whether it is as expected;
- ask.py: deciding a question with the checkers: the explicit search for the shortest
  game, the Z3 backend for proofs where the search cannot finish;
- position.py: a move ruled on in the table's position, over every way the hidden facts
  of a partial game could be;
- words.py: the answers in English and German, and as JSON.

Built on the explicit-state checker (verify/explicit/) and the Z3 backend (verify/smt/).
"""
