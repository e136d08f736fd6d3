"""The rulings book: `shrules book DIR` writes the dispute catalogue's answers as a static site.

- rounds.py: a witness game cut into rounds (President, Chancellor, vote, what was
  enacted, the two tracks and the Election Tracker after each), as data;
- frame.py: the words of the pages' frame in English and German, kept apart so that a
  test can check that no English frame sentence is left on a German page;
- pages.py: the HTML of the index, an entry (per language) and a rule ID's page;
- writer.py: the files of the book, and which entries rest on which rule ID.

The answers come from verify/lawyer (answered there, never here); every text that comes
from the catalogue or the spec is escaped, so nothing a catalogue file says can run.
"""

from .writer import write_book

__all__ = ["write_book"]
