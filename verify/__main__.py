"""`python -m verify` runs the `shrules` command line."""

from verify.cli import main

main(prog_name="shrules")
