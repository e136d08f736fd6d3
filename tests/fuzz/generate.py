"""The cases of a run: the known ones, then generated ones spread over every input kind.

Generation is a pure function of (seed, count): case `i` of kind `k` draws from its own
`random.Random(f"{seed}/{k}/{i}")`, so a case can be made again alone by its identifier,
and growing `count` keeps the cases a smaller count made.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from . import gen_cli, gen_expr, gen_invariants, gen_itf, gen_kept, gen_outputs, gen_shio, gen_spec, gen_transcript, known
from .corpus import Corpus
from .model import KINDS, Case

WEIGHTS: dict[str, int] = {"spec": 30, "transcript": 15, "shio": 12, "itf": 13, "expr": 15, "cli": 15,
                           "cache": 6, "atlas": 6, "invariants": 4, "outputs": 4}
"""Share of the generated cases per kind: variants have the most positions to attack; an
invariant-cache or output-folder case runs a proof or a check, so they are fewer."""

GENERATORS: dict[str, Callable[[random.Random, str, Corpus], Case]] = {
    "spec": gen_spec.generate, "transcript": gen_transcript.generate, "shio": gen_shio.generate,
    "itf": gen_itf.generate, "expr": gen_expr.generate, "cli": gen_cli.generate,
    "cache": gen_kept.generate_task_cache, "atlas": gen_kept.generate_atlas,
    "invariants": gen_invariants.generate, "outputs": gen_outputs.generate,
}


def available(corpus: Corpus) -> list[str]:
    """The kinds that have what they start from (no secrethitler.io logs, no such cases)."""
    return [kind for kind in KINDS if kind != "shio" or corpus.shio_files]


def shares(count: int, kinds: list[str]) -> dict[str, int]:
    """`count` split over `kinds` by weight (largest remainder), at least one each when it
    fits: a kind of small weight is still in a small run."""
    floor = 1 if count >= len(kinds) else 0
    rest = count - floor * len(kinds)
    total = sum(WEIGHTS[k] for k in kinds)
    exact = {k: rest * WEIGHTS[k] / total for k in kinds}
    out = {k: int(v) for k, v in exact.items()}
    for k in sorted(kinds, key=lambda k: exact[k] - out[k], reverse=True)[: rest - sum(out.values())]:
        out[k] += 1
    return {k: v + floor for k, v in out.items()}


def ident(kind: str, seed: int, index: int) -> str:
    return f"{kind}-s{seed}-{index:04d}"


def one(kind: str, seed: int, index: int, corpus: Corpus) -> Case:
    """Generated case `index` of `kind` for `seed`."""
    return GENERATORS[kind](random.Random(f"{seed}/{kind}/{index}"), ident(kind, seed, index), corpus)


def cases(seed: int, count: int, corpus: Corpus, kinds: list[str] | None = None,
          with_known: bool = True) -> list[Case]:
    """`count` cases in all: the known cases first (of the kinds asked for), then generated
    ones, interleaved by kind so that a partial run still covers every kind."""
    chosen = [k for k in (kinds or list(KINDS)) if k in available(corpus)]
    fixed = [c for c in known.cases() if c.kind in chosen] if with_known else []
    fixed = fixed[:count]
    split = shares(max(0, count - len(fixed)), chosen)
    queues = {k: [one(k, seed, i, corpus) for i in range(split[k])] for k in chosen}
    out = list(fixed)
    while any(queues.values()):
        for k in chosen:
            if queues[k]:
                out.append(queues[k].pop(0))
    return out


def by_ident(name: str, corpus: Corpus) -> Case:
    """A case again from its identifier (`spec-s1-0007`, or a known case's name)."""
    for case in known.cases():
        if case.ident == name:
            return case
    kind, seed, index = name.rsplit("-", 2)
    return one(kind, int(seed.lstrip("s")), int(index), corpus)
