"""Dix: the precomputed DIX-1/DIX-3 card tables (pips, effective suits and ranks, Play tuples)."""

from __future__ import annotations

from typing import Final

from kozyr.core.cards import ALL_CARDS, Card, Suit
from kozyr.games.dix.model import CardPlayed, HandInfo, Play

# --------------------------------------------------------------------------- precomputed tables


def _pip(c: Card) -> int:
    """DIX-1: pip value for the ten-rule (A 1, 2..10 face, courts and joker 0)."""
    if c.suit is None or 11 <= c.rank <= 13:
        return 0
    return 1 if c.rank == 14 else int(c.rank)


BIT: Final[tuple[int, ...]] = tuple(1 << i for i in range(53))
PIP: Final[tuple[int, ...]] = tuple(_pip(c) for c in ALL_CARDS)
_PLAYS: Final[tuple[Play, ...]] = tuple(Play(c) for c in ALL_CARDS)
PLAYED: Final[tuple[tuple[CardPlayed, ...], ...]] = tuple(
    tuple(CardPlayed(seat, c) for c in ALL_CARDS) for seat in (0, 1)
)
SUITS: Final = tuple(Suit)


def _tables(turn_up: Card) -> tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """DIX-3: trump, effective suit, effective rank and follow mask per card for a turn-up."""
    trump = -1 if turn_up.suit is None else int(turn_up.suit)
    esuit = [-1 if c.suit is None else int(c.suit) for c in ALL_CARDS]
    erank = [int(c.rank) for c in ALL_CARDS]
    if trump >= 0:  # the joker plays as the turn-up: its suit and trick rank
        esuit[52] = trump
        erank[52] = int(turn_up.rank)
    masks = [0, 0, 0, 0]
    for i, s in enumerate(esuit):
        if s >= 0:
            masks[s] |= 1 << i
    follow = tuple(masks[s] if s >= 0 else 0 for s in esuit)
    return trump, tuple(esuit), tuple(erank), follow


TABLES: Final = tuple(_tables(c) for c in ALL_CARDS)


def _chunk(base: int) -> tuple[tuple[Play, ...], ...]:
    """The Play tuples (by card index) for each 13-bit pattern of cards base … base+12."""
    table: list[tuple[Play, ...]] = [()] * 8192
    for p in range(1, 8192):
        low = p & -p
        table[p] = (_PLAYS[base + low.bit_length() - 1], *table[p ^ low])
    return tuple(table)


C0, C1, C2, C3 = (_chunk(13 * k) for k in range(4))
CJ: Final = ((), (_PLAYS[52],))


NO_HAND: Final = HandInfo(
    number=0, dealer=0, deck=(), turn_up=None, trump=-1, esuit=(), erank=(), follow=()
)
