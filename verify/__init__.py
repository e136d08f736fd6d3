"""The verify layer: what the rules guarantee, decided from the same spec the engine runs.

Rooms, each a subpackage (ARCHITECTURE.md has the whole picture):

- results.py: the typed verdicts every room shares, and the exit statuses;
- explicit/: the explicit-state checker, over the engine's compiled rules;
- smt/: the Z3 backend, the spec translated to constraints;
- checker.py: the property catalogue decided by either backend or both;
- lawyer/: rules questions answered (`shrules ask`);
- diff/: rule sets told apart, and the mutation score (`shrules diff`, `mutate --mistakes`);
- report/: report files and the baseline gate, from typed results;
- cli/: the `shrules` command line, one module per command, above all of them.

Imports go down that list's layers and never up: no room imports the command line.
"""
