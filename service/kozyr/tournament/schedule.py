"""Who sits where in which match, and the seeds that make a tournament repeatable.

Formats (every match seats `seats` of the players; by default all of them):
- ``duplicate``: each *deal* is played once per rotation of its players round the seats, so
  every player holds every seat's cards once and card (and dice) luck cancels out. Deals cycle
  through the groups of `seats` players (all of them when everyone plays).
- ``round-robin``: every seat permutation of every group of `seats` players in turn, each match
  with its own deal.
The requested match count is rounded up to whole cycles, so every rotation or permutation is
played equally often.

Seeds. The master seed (``--seed``) names everything: deal d is played with the match seed
``RandomStream(master, "tournament/deal/<d>").read(32)`` (kozyr.core.fairness), from which the rules
derive the first dealer, every deck and every die roll (R-1, R-2) — a duplicate deal is the
*same match seed* with the seating rotated. The bot in seat s of match i draws its own choices
from ``RandomStream(master, "tournament/bot/<i>/<s>")``. A match's result depends on nothing
else, so a tournament gives the same results whatever the number of worker processes.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from kozyr.core.fairness import RandomStream

FORMATS = ("duplicate", "round-robin")


@dataclass(frozen=True, slots=True)
class Fixture:
    """One scheduled match: its number, its deal and the player (index) in each seat."""

    index: int
    deal: int
    lineup: tuple[int, ...]


def schedule(fmt: str, players: int, seats: int, matches: int) -> list[Fixture]:
    """The fixtures of a tournament, at least `matches` of them (rounded up to whole cycles)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
    if not 1 <= seats <= players:
        raise ValueError(f"cannot seat {seats} of {players} players")
    if matches < 1:
        raise ValueError("a tournament needs at least one match")
    out: list[Fixture] = []
    if fmt == "duplicate":
        groups = list(itertools.combinations(range(players), seats))
        deals = math.ceil(math.ceil(matches / seats) / len(groups)) * len(groups)
        for deal in range(deals):
            group = groups[deal % len(groups)]
            for r in range(seats):
                lineup = tuple(group[(s + r) % seats] for s in range(seats))
                out.append(Fixture(len(out), deal, lineup))
    else:
        perms = list(itertools.permutations(range(players), seats))
        total = math.ceil(matches / len(perms)) * len(perms)
        out = [Fixture(i, i, perms[i % len(perms)]) for i in range(total)]
    return out


def master_key(seed: int | str) -> bytes:
    """The master seed as the bytes the streams are keyed with."""
    return f"kozyr-tournament/{seed}".encode()


def deal_seed(master: bytes, deal: int) -> bytes:
    """The match seed of deal `deal` (shared by the matches of a duplicate deal)."""
    return RandomStream(master, f"tournament/deal/{deal}").read(32)


def bot_seed(master: bytes, index: int, seat: int) -> int:
    """The seed of the bot in `seat` of match `index`."""
    return int.from_bytes(RandomStream(master, f"tournament/bot/{index}/{seat}").read(8), "big")
