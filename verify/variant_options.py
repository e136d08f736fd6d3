"""Command-line options that choose a variant with settings: `--set NAME=VALUE`, `--settings FILE`.

The settings (spec/settings.py) are checked and folded into the rules name in its
canonical form, `custom[deck_fascist=10; powers=...]`, which every command and the
engine's cache load like any other name, and which a saved trace records so that it
replays. Commands add the options with `variant_options` and call `rules_name`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

import click

from spec.errors import SpecError, shown
from spec.loader import SETTINGS_NAME
from spec.settings import describe_settings, load_settings_file, parse_assignments, parse_value, settings_name

DEFAULT_VARIANT = "custom"
"""The variant `--set` applies to when the rules named are the standard ones."""


def variant_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """Add `--set NAME=VALUE` (repeatable) and `--settings FILE` to a click command; the
    command receives them as `sets` (a tuple of texts) and `settings_file`."""
    help_text = ("A custom-game setting, e.g. --set powers=investigate,none,peek,execution,execution "
                 "(repeatable; applies to the custom variant unless the rules named are another). Settings: "
                 + "; ".join(describe_settings()))

    @click.option("--set", "sets", multiple=True, metavar="NAME=VALUE", help=help_text)
    @click.option("--settings", "settings_file", type=click.Path(dir_okay=False), default=None,
                  help="A TOML file of settings (name = value, at the top or under [settings]).")
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return function(*args, **kwargs)
    return wrapper


def rules_name(rules: str, sets: tuple[str, ...] = (), settings_file: str | None = None) -> str:
    """The rules name with the settings folded in (the name itself when there are none).
    Settings given for the standard rules apply to the `custom` variant; settings of the
    file come first, `--set` overrides them. Raises `SpecError` for a bad setting."""
    values: dict[str, Any] = {}
    if settings_file:
        values.update(load_settings_file(settings_file))
    values.update(parse_assignments(list(sets)))
    if not values:
        return rules
    base = rules
    match = SETTINGS_NAME.match(rules)
    if match:
        base = match.group(1)
        inline = parse_assignments([part for part in match.group(2).split(";") if part.strip()], f"{base}[...]:")
        values = {**inline, **values}
    if base == "standard":
        base = DEFAULT_VARIANT
    if not re.fullmatch(r"[A-Za-z0-9_/.-]+", base):
        raise SpecError(f"settings need a rules name or path without spaces or brackets, got {shown(base)}")
    for name, value in values.items():
        parse_value(name, value)
    return settings_name(base, values)
