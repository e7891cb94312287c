"""How the anchors bench draws chance on every side: one draw of the harness's seeded
`random.Random` per chance outcome, exactly as a move is picked (tests/bench/anchors.py).

OpenSpiel's hearts picks each card of its deal at a chance node; Kozyr's playouts take their
deck order and die rolls prearranged (Setup) from the same draws instead of the HMAC stream the
service deals from; boardgame.io's ports shuffle with its own seeded PRNG. So no side pays more
for chance than for a move, and the ratios compare the rules. Plain Python, no imports of the
project: the OpenSpiel side runs it in its own virtualenv."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def draw(rng: random.Random, n: int) -> int:
    """One chance outcome (or one move) out of `n`, uniformly."""
    return rng.randrange(n)


def shuffled(rng: random.Random, items: Sequence[T]) -> list[T]:
    """A uniform shuffle: Fisher-Yates, one draw per card."""
    order = list(items)
    for i in range(len(order) - 1, 0, -1):
        j = draw(rng, i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def rolls(rng: random.Random, cards: int) -> list[int]:
    """Die rolls, one draw each, until they add up to `cards` (a dice deal needs no more)."""
    out: list[int] = []
    while sum(out) < cards:
        out.append(draw(rng, 6) + 1)
    return out
