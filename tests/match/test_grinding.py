"""A grinding operator (docs/fairness.md §1, issue 30): before it commits, the operator tries
many server seeds and keeps the one whose deal gives seat 0 the best hand, computed from every
input it knows then. With the seats' contributions known before the commitment it gets its
hand every time; with contributions given after the commitment (a seat that joins, as every
client's join does) its search says nothing about the deal, which is as good for seat 0 as
chance makes it.

Deterministic: the "random" bytes come from a seeded generator, so the counts below repeat."""

from __future__ import annotations

import random
from collections.abc import Sequence

from kozyr.core.fairness import match_seed
from kozyr.games import GAMES
from kozyr.games.contract import Dealt, Setup

GAME = GAMES["dix"]
CONFIG = GAME.make_config({}, 2)
MATCHES = 20
TRIES = 300  # server seeds the operator tries before it commits, a match


def _strength(seed: bytes) -> int:
    """How good seat 0's first hand is: its aces and jokers (what a cheat would want)."""
    dealt = next(
        e for e in GAME.start(CONFIG, ["op", "you"], seed, Setup()) if isinstance(e, Dealt)
    )
    return sum(1 for card in dealt.hands[0] if str(card) in {"AS", "AH", "AD", "AC", "JK"})


def _ground(rng: random.Random, known: Sequence[bytes]) -> bytes:
    """The server seed the operator commits to: the best of TRIES against what it knows."""
    seeds = [rng.randbytes(32) for _ in range(TRIES)]
    return max(seeds, key=lambda s: _strength(match_seed(s, known)))


def test_a_grinding_operator_gets_its_hand_when_it_knows_every_contribution() -> None:
    rng = random.Random(1)
    dealt = []
    for _ in range(MATCHES):
        contributions = [rng.randbytes(32), rng.randbytes(32)]  # given with CreateMatch
        server_seed = _ground(rng, contributions)
        dealt.append(_strength(match_seed(server_seed, contributions)))
    chance = [_strength(rng.randbytes(32)) for _ in range(1000)]
    # The best of 300 deals, every match: far above what a fair deal gives seat 0.
    assert min(dealt) >= 3 and sum(dealt) / MATCHES > 2 * sum(chance) / len(chance)


def test_a_grinding_operator_cannot_choose_a_deal_whose_contributions_come_after() -> None:
    rng = random.Random(2)
    dealt, ground = [], []
    for _ in range(MATCHES):
        # At the commitment the joining seats have given nothing yet: all the operator knows.
        server_seed = _ground(rng, [b"", b""])
        ground.append(_strength(match_seed(server_seed, [b"", b""])))
        contributions = [rng.randbytes(32), rng.randbytes(32)]  # chosen after the commitment
        dealt.append(_strength(match_seed(server_seed, contributions)))
    chance = [_strength(rng.randbytes(32)) for _ in range(1000)]
    fair = sum(chance) / len(chance)
    assert min(ground) >= 3  # what the search found, had nobody contributed after it
    # What was dealt is a fair deal's strength (within the spread of 20 matches).
    assert abs(sum(dealt) / MATCHES - fair) < 0.6
    assert sum(d >= 3 for d in dealt) <= 4
