"""Durak with dice: the precomputed beating and rank tables and interned events."""

from __future__ import annotations

from typing import Final

from kozyr.core.cards import ALL_CARDS, deck, mask_of
from kozyr.games.durak_dice.model import (
    MAX_PLAYERS,
    Attack,
    Attacked,
    Beat,
    Pass,
    Passed,
    PlayerOut,
    Take,
    ThrownIn,
)

# --------------------------------------------------------------------------------------------
# Precomputed tables (constant)

_CARDS: Final = ALL_CARDS[:52]
DECKS: Final = {36: deck(36), 52: deck(52)}
_DECK_MASKS: Final = {size: mask_of(cards) for size, cards in DECKS.items()}
# Card index -> mask of the four cards of its rank.
RANK_MASK: Final = tuple(sum(1 << (s * 13 + c.rank - 2) for s in range(4)) for c in _CARDS)


def _beat_table(trump: int) -> tuple[int, ...]:
    """DUR-6: per card index, the mask of cards that beat it with `trump` as trump suit."""
    out = []
    trump_mask = sum(1 << (trump * 13 + r) for r in range(13))
    for c in _CARDS:
        s, r = c.index // 13, c.index % 13
        mask = sum(1 << (s * 13 + h) for h in range(r + 1, 13))
        if s != trump:
            mask |= trump_mask
        out.append(mask)
    return tuple(out)


BEATS: Final = tuple(_beat_table(s) for s in range(4))
ATTACKS: Final = tuple(Attack(c) for c in _CARDS)
BEATS_CMD: Final = tuple(Beat(c) for c in _CARDS)
TAKE: Final = Take()
PASS: Final = Pass()
AUTO_PASS: Final = tuple(Passed(s, True) for s in range(MAX_PLAYERS))
OUT: Final = tuple(PlayerOut(s) for s in range(MAX_PLAYERS))
PASSED: Final = tuple(Passed(s, False) for s in range(MAX_PLAYERS))
# By seat and card index (every card, so any index a hand check lets through has its event).
ATTACKED: Final = tuple(tuple(Attacked(s, c) for c in ALL_CARDS) for s in range(MAX_PLAYERS))
THROWN: Final = tuple(tuple(ThrownIn(s, c) for c in ALL_CARDS) for s in range(MAX_PLAYERS))


def plural(n: int, word: str) -> str:
    """`n` `word`, with an s unless `n` is 1."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
