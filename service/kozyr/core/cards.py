"""Cards, suits, ranks and the decks the games use — the shared vocabulary.

Every card is interned: `card("QS") is card("QS")`, so games may compare and hash cards cheaply.
The canonical text form is rank then suit letter: ``2C`` … ``10H`` … ``QS``, ``AD``; the joker is
``JK``. The canonical deck order (what `deck` returns and what shuffles start from) is by suit
S, H, D, C and, inside a suit, by rank 2 → A; the joker, when present, is last.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum
from typing import Final


class Suit(IntEnum):
    """The four suits, in the canonical order S, H, D, C."""

    S = 0
    H = 1
    D = 2
    C = 3

    @property
    def letter(self) -> str:
        """The one-letter code: S, H, D or C."""
        return self.name

    @property
    def symbol(self) -> str:
        """The printed symbol: ♠ ♥ ♦ ♣."""
        return "♠♥♦♣"[self.value]

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Read a suit letter (case-insensitive); ValueError otherwise."""
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown suit {text!r}: use one of S H D C") from None


class Rank(IntEnum):
    """Ranks by their usual number (A high); JOKER stands apart."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14
    JOKER = 15

    @property
    def code(self) -> str:
        """The rank's part of a card code: 2..10, J, Q, K, A (JK for the joker)."""
        return _RANK_CODES[self]


_RANK_CODES: Final = {
    **{Rank(n): str(n) for n in range(2, 11)},
    Rank.JACK: "J",
    Rank.QUEEN: "Q",
    Rank.KING: "K",
    Rank.ACE: "A",
    Rank.JOKER: "JK",
}
_CODE_RANKS: Final = {v: k for k, v in _RANK_CODES.items() if k is not Rank.JOKER}


class Card:
    """A playing card; `suit` is None only for the joker. Obtain cards via `card`/`parse_card`."""

    __slots__ = ("code", "index", "rank", "suit")

    rank: Rank
    suit: Suit | None
    code: str
    index: int

    def __init__(self, rank: Rank, suit: Suit | None) -> None:
        object.__setattr__(self, "rank", rank)
        object.__setattr__(self, "suit", suit)
        object.__setattr__(self, "code", "JK" if suit is None else rank.code + suit.letter)
        object.__setattr__(self, "index", 52 if suit is None else suit * 13 + rank - 2)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("cards are immutable")

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Card) and other.index == self.index)

    def __hash__(self) -> int:
        return self.index

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __repr__(self) -> str:
        return f"Card({self.code})"

    def __str__(self) -> str:
        return self.code

    def __reduce__(self) -> tuple[object, tuple[str]]:
        # Unpickled cards (worker processes) come back as the interned instances.
        return (parse_card, (self.code,))

    @property
    def is_joker(self) -> bool:
        """True for the joker."""
        return self.suit is None

    @property
    def pretty(self) -> str:
        """The code with a suit symbol, e.g. ``10♥``; ``🃏`` for the joker."""
        return "🃏" if self.suit is None else self.rank.code + self.suit.symbol


JOKER: Final = Card(Rank.JOKER, None)
ALL_CARDS: Final[tuple[Card, ...]] = (
    *(Card(Rank(r), s) for s in Suit for r in range(2, 15)),
    JOKER,
)
# Every card by its canonical code (the codec reads cards through it).
BY_CODE: Final[dict[str, Card]] = {c.code: c for c in ALL_CARDS}


def card(rank: Rank | int, suit: Suit | None) -> Card:
    """The interned card of that rank and suit (suit None means the joker)."""
    if suit is None:
        return JOKER
    return ALL_CARDS[suit * 13 + int(rank) - 2]


def parse_card(text: str) -> Card:
    """Read one card code such as ``10H``, ``qs`` or ``JK``; ValueError with a hint otherwise."""
    code = text.strip().upper()
    found = BY_CODE.get(code)
    if found is None:
        if code[:-1] == "T" and code[-1:] in "SHDC":  # a common alias for ten
            found = BY_CODE.get("10" + code[-1])
        if found is None:
            raise ValueError(f"not a card: {text!r} (write e.g. 10H, QS, AD, 7C or JK)")
    return found


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Read cards separated by spaces or commas (or an iterable of codes)."""
    parts = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return tuple(parse_card(p) for p in parts)


def format_cards(cards: Iterable[Card]) -> str:
    """Write cards as space-separated codes."""
    return " ".join(c.code for c in cards)


_LOWEST_RANK: Final = {52: 2, 53: 2, 36: 6, 32: 7, 28: 8}


def deck(size: int) -> tuple[Card, ...]:
    """A fresh deck in canonical order: 52 (2..A), 53 (52 and the joker), 36 (6..A), 32, 28."""
    try:
        low = _LOWEST_RANK[size]
    except KeyError:
        raise ValueError(f"no deck of {size} cards (have 28, 32, 36, 52, 53)") from None
    cards = tuple(c for c in ALL_CARDS[:52] if c.rank >= low)
    return (*cards, JOKER) if size == 53 else cards


def mask_of(cards: Iterable[Card]) -> int:
    """The bitmask of some cards: bit ``card.index`` set for each (how the games hold hands)."""
    m = 0
    for c in cards:
        m |= 1 << c.index
    return m


# The cards of each byte of a mask, by byte position and value: hands are unpacked a byte at a
# time (every view and rebuilt table unpacks several), ~1.5x faster than bit by bit.
_BYTES: Final = tuple(
    tuple(
        tuple(ALL_CARDS[8 * i + j] for j in range(8) if b >> j & 1 and 8 * i + j < 53)
        for b in range(256)
    )
    for i in range(7)
)


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a bitmask made by `mask_of`, in canonical order (by index)."""
    out: tuple[Card, ...] = ()
    rest = mask
    for table in _BYTES:
        if not rest:
            return out
        if low := rest & 255:
            out += table[low]
        rest >>= 8
    if rest or mask >> 53:
        raise ValueError(f"not a mask of cards: {mask:#x}")
    return out
