"""Dix: constants, options, config, commands, events, state and view (docs/rules.md DIX-1…9)."""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from typing import Final

from kozyr.core.cards import Card, Suit, deck
from kozyr.games.contract import (
    Dealt,
    FirstDealerChosen,
    MatchStarted,
    OptionSpec,
    Outcome,
)

NAME = "dix"
TITLE = "Dix"
MIN_PLAYERS = 2
MAX_PLAYERS = 2
RULES_VERSION = "2026.11"

# The game's own reason code (DIX-5).
MUST_FOLLOW_SUIT = "MUST_FOLLOW_SUIT"

NON_DEALER = "NON_DEALER"
DEALER = "DEALER"
LAST_HAND = "LAST_HAND"
MATCH = "MATCH"

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        name="target",
        kind="int",
        default=50,
        help="DIX-9: the match ends after a hand in which a total reaches this",
        minimum=1,
        maximum=10_000,
        rule="DIX-9",
    ),
    OptionSpec(
        name="first_lead",
        kind="enum",
        default=NON_DEALER,
        help="DIX-4: who leads trick 1 of each hand",
        choices=(NON_DEALER, DEALER),
        rule="DIX-4",
    ),
    OptionSpec(
        name="tiebreak_tens",
        kind="enum",
        default=LAST_HAND,
        help="DIX-9: equal totals go to fewer ten-tricks in the last hand or the whole match",
        choices=(LAST_HAND, MATCH),
        rule="DIX-9",
    ),
    OptionSpec(
        name="single_hand",
        kind="bool",
        default=False,
        help="DIX-9: the match is one hand whatever the totals",
        rule="DIX-9",
    ),
    OptionSpec(
        name="max_hands",
        kind="int",
        default=30,
        help="R-5: the match ends after this many hands",
        minimum=1,
        maximum=1_000,
        rule="R-5",
    ),
)

HAND_SIZE: Final = 13
TRICKS_PER_HAND: Final = 26
TURN_UP_POS: Final = 2 * HAND_SIZE  # 26: the card after the deal (DIX-2)
STOCK_POS: Final = TURN_UP_POS + 1  # 27: the top of the stock
DECK: Final = deck(53)
INDEX: Final = attrgetter("index")


# --------------------------------------------------------------------------- config, commands


@dataclass(frozen=True, slots=True)
class Config:
    """The options of a Dix match (docs/rules.md "DIX options")."""

    target: int = 50
    first_lead: str = NON_DEALER
    tiebreak_tens: str = LAST_HAND
    single_hand: bool = False
    max_hands: int = 30


@dataclass(frozen=True, slots=True)
class Play:
    """DIX-4/DIX-5: lead or follow with a card from hand."""

    card: Card


# --------------------------------------------------------------------------- events


@dataclass(frozen=True, slots=True)
class TurnedUp:
    """DIX-2 … DIX-4: right after `Dealt`, the hand's turn-up, its trump and trick 1's leader."""

    card: Card
    trump: Suit | None
    leader: int


@dataclass(frozen=True, slots=True)
class CardPlayed:
    """DIX-4/DIX-5: a seat leads or follows with a card."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class TrickWon:
    """DIX-6 … DIX-8: the trick's winner, its cards (lead first), its points and the draws.

    `drawn` holds the card each seat drew (by seat; the winner drew first), or () once the stock
    is empty; a card another seat drew is None in that viewer's copy.
    """

    seat: int
    cards: tuple[Card, ...]
    points: int
    ten: bool
    drawn: tuple[Card | None, ...]


@dataclass(frozen=True, slots=True)
class HandEnded:
    """DIX-8: the hand's score per seat and the match totals after it."""

    hand_number: int
    tricks: tuple[int, int]
    tens: tuple[int, int]
    points: tuple[int, int]
    last_trick_winner: int
    totals: tuple[int, int]


@dataclass(frozen=True, slots=True)
class MatchEnded:
    """DIX-9: the match winner, the final totals and why the match ended."""

    winner: int
    totals: tuple[int, int]
    reason: str


Event = (
    MatchStarted[Config]
    | FirstDealerChosen
    | Dealt
    | TurnedUp
    | CardPlayed
    | TrickWon
    | HandEnded
    | MatchEnded
)

COMMAND_TYPES: tuple[type, ...] = (Play,)
EVENT_TYPES: tuple[type, ...] = (
    MatchStarted[Config],
    FirstDealerChosen,
    Dealt,
    TurnedUp,
    CardPlayed,
    TrickWon,
    HandEnded,
    MatchEnded,
)


# --------------------------------------------------------------------------- state and view


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """What stays fixed for the whole match: config, players, seed and the setup."""

    config: Config
    players: tuple[str, ...]
    seed: bytes
    decks: tuple[tuple[Card, ...], ...]
    prearranged: bool


@dataclass(frozen=True, slots=True)
class HandInfo:
    """What stays fixed for one hand, with its precomputed DIX-3 tables.

    `esuit`/`erank` give each card index's effective suit (0..3, -1 out of play) and rank;
    `follow[i]` is the mask of cards sharing card i's effective suit; `trump` is the trump suit
    number or -1 (DIX-3: no trump when the joker is turned up).
    """

    number: int
    dealer: int
    deck: tuple[Card, ...]
    turn_up: Card | None
    trump: int
    esuit: tuple[int, ...]
    erank: tuple[int, ...]
    follow: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class State:
    """A Dix match between events. Hands and won piles are card-index bitmasks, by seat.

    `pos` is the deck position of the top of the stock (53 when empty); `turn` is the seat to
    act (None when over or while a trick awaits resolution); totals and match_tens exclude the
    hand in play until it is scored.
    """

    match: MatchInfo
    info: HandInfo
    hands: tuple[int, int]
    won: tuple[int, int]
    pos: int
    trick: tuple[Card, ...]
    leader: int
    turn: int | None
    tricks: tuple[int, int]
    tens: tuple[int, int]
    last_trick: tuple[Card, ...]
    last_winner: int | None
    totals: tuple[int, int]
    match_tens: tuple[int, int]
    result: Outcome | None

    @property
    def config(self) -> Config:
        """The match's options."""
        return self.match.config


@dataclass(frozen=True, slots=True)
class View:
    """What one seat (or a spectator, seat None) sees of a Dix match."""

    seat: int | None
    players: tuple[str, ...]
    to_act: int | None
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    hand_number: int
    dealer: int
    finished: bool
    turn_up: Card | None
    trump: Suit | None
    stock_count: int
    trick: tuple[Card, ...]
    leader: int
    totals: tuple[int, int]
    tricks: tuple[int, int]
    tens: tuple[int, int]
    last_trick: tuple[Card, ...]
    last_trick_winner: int | None
    target: int
