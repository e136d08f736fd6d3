"""`shrules compile`: the Python a rule set compiles to for one player count, readably.

What engine/pycompile.py emits names no spec name (fields are tuple indexes, parameters
and lets positional slots, enum members numbers), so the listing puts the names back in
comments: a legend of the fields and enums at the top, and above each rule its phase,
actor, rule IDs, parameters and lets. The whole listing is valid Python; without
`--rule` it ends with each phase's random-play step (the fast path of `shrules play`).
"""

from __future__ import annotations

import click

from engine.game import Game, compiled_game
from engine.pycompile import CompiledRule, generated_source
from spec.errors import SpecError, shown
from spec.lang.types import Type

from .options import players_option, rules_option

RULER = "# " + "-" * 78


def comment(text: str) -> str:
    """Text from the spec on one comment line (a multi-line string cannot end the comment)."""
    return " ".join(text.split())


def type_text(type_: Type) -> str:
    """A field's or parameter's type as the spec writes it: `seat?`, `enum phase`, ..."""
    text = f"{type_.kind} {type_.enum}" if type_.kind == "enum" and type_.enum else type_.kind
    return text + ("?" if type_.optional else "")


def legend(game: Game) -> list[str]:
    """The comment at the top: how to read the code, the fields by index, the enums."""
    spec = game.spec
    lines = [f"# The {comment(spec.name)} rules compiled to Python for {game.players} players "
             "(engine/pycompile.py).",
             "#",
             "# A state `s` is a tuple of small ints, one per field (`t`: the state after a move).",
             "# Parameters are p0, p1, ... and lets l0, l1, ... in the rule's order; enum members,",
             "# constants and tables are inlined as numbers; seat sets are bit masks, tile sequences",
             "# bit strings behind a sentinel bit; `_`-names are engine/pycompile.py's helpers.",
             "#",
             "# fields:"]
    lines += [f"#   s[{index}] {field.name}: {type_text(field.type)}" for index, field in enumerate(spec.fields)]
    lines += ["#", "# enums:"]
    lines += [f"#   {name}: " + ", ".join(f"{number} {member}" for number, member in enumerate(members))
              for name, members in spec.enums.items()]
    return lines


def rule_listing(compiled: CompiledRule) -> list[str]:
    """One rule's source under a comment naming what its slots stand for."""
    rule = compiled.rule
    ids = ", ".join(rule.rule_ids) or "no rule ID"
    lines = ["", "", RULER, f"# rule {rule.name}: {comment(rule.summary)}",
             f"# phase {rule.phase}; moved by {comment(rule.actor_text or rule.actor)}; {ids}"]
    for number, param in enumerate(rule.params):
        kind, domain = type_text(param.type), comment(param.domain.text)
        lines.append(f"#   p{number} = {param.name}: {kind}" + (f" in {domain}" if domain != kind else ""))
    lines += [f"#   l{number} = {name}" for number, (name, _) in enumerate(rule.lets)]
    lines += [RULER, compiled.source.rstrip()]
    return lines


def step_listing(game: Game) -> list[str]:
    """Each phase's random-play step (compiled per phase, requirements inlined)."""
    lines: list[str] = []
    for phase, step, rules in zip(game.phase_names, game.steps, game.by_phase):
        if step is None:
            continue
        lines += ["", "", RULER, f"# phase {phase}: the move random play makes (engine/game.py random_step)"]
        lines += [f"#   _effect{number} = the effect of rule {compiled.rule.name}"
                  for number, compiled in enumerate(rules)]
        lines += [RULER, generated_source(step).rstrip()]
    return lines


@click.command("compile")
@players_option(default=5)
@rules_option()
@click.option("--rule", "rule_name", default=None, metavar="NAME",
              help="Only this rule (default: every rule, then each phase's random-play step).")
def compile_command(players: int, rules: str, rule_name: str | None) -> None:
    """Print the Python the rules compile to for one player count.

    Each rule becomes a guard, the index of its first failing requirement, an effect
    (the state after the move), and for chance a weight and its outcomes; each parameter
    a domain, its size and a uniform sampler. Comments name the fields, enums,
    parameters and lets the code refers to by number. The listing is valid Python.

    Exit status: 0 printed; 2 bad input (unknown rules, player count or rule)."""
    game = compiled_game(players, rules)
    chosen = game.rules
    if rule_name is not None:
        if rule_name not in game.by_name:
            raise SpecError(f"no rule named {shown(rule_name)} in the {game.spec.name} rules; "
                            f"rules are {', '.join(game.by_name)}")
        chosen = (game.by_name[rule_name],)
    lines = legend(game)
    for compiled in chosen:
        lines += rule_listing(compiled)
    if rule_name is None:
        lines += step_listing(game)
    click.echo("\n".join(lines))


COMMANDS = (compile_command,)
