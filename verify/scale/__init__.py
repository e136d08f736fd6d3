"""Many independent checks, run anywhere: the task runner, its cache, the custom-game sweep
and its atlas.

A check that does not depend on another (one rule set at one player count, one mutant)
is a `Task` (tasks.py): a frozen value whose key is a digest of everything that decides
its result, and a pure function from the task to plain JSON data. `run.py` runs a list
of tasks on local processes or, given a scheduler's address, on a Dask cluster, keeping
every result in a cache of files (cache.py), so an interrupted run resumes and a repeated
one pays only for checking what it reads back: a kept or returned result is data from
elsewhere, and `trust.py` replays its games and believes what no game shows only from a
cache the user alone can write. `sweep.py` spans the site's custom games (the power of each Fascist
slot, the deck, the zones) with the settings of spec/settings.py, and `atlas.py` writes
what the sweep found as JSON and one self-contained HTML page.

This room must not import the command line; `dask`/`distributed` are imported only here,
inside the functions that use them, so that nothing else needs them installed.
"""
