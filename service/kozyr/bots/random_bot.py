"""The `random` player: a uniformly random legal command (seeded, so matches repeat)."""

from __future__ import annotations

import random

from kozyr.bots.protocol import Command, Seat


class RandomBot:
    """Picks uniformly among the legal commands with its own seeded generator."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, seat: Seat) -> Command:
        """A random legal command."""
        legal = seat.legal
        return legal[self.rng.randrange(len(legal))] if len(legal) > 1 else legal[0]
