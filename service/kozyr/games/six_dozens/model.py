"""Six Dozens: constants, options, config, commands, events, state and view (SIX-1 … SIX-13)."""

from __future__ import annotations

from dataclasses import dataclass

from kozyr.core.cards import Card, Suit
from kozyr.games.contract import (
    Dealt,
    FirstDealerChosen,
    MatchStarted,
    OptionSpec,
)

NAME: str = "six-dozens"
TITLE: str = "Six Dozens"
MIN_PLAYERS: int = 2
MAX_PLAYERS: int = 4
RULES_VERSION: str = "2026.11"

# Reason codes of this game.
CARD_NOT_PLAYABLE = "CARD_NOT_PLAYABLE"

CAPITAL = 72  # SIX-3
CARD_COST = 6  # SIX-3
HAND_SIZE = {36: 8, 32: 7, 28: 6}  # SIX-2
STOCK_SIZE = {2: 5, 3: 4, 4: 3}  # SIX-5

TRUMP_MODES = ("PERSONAL", "NONE", "ONE", "TWO", "SENIOR_JUNIOR")
DEFAULT_SUITS: dict[str, tuple[Suit, ...]] = {
    "NONE": (),
    "ONE": (Suit.S,),
    "TWO": (Suit.S, Suit.D),
    "SENIOR_JUNIOR": (Suit.S, Suit.D),
}
SUIT_COUNT = {"NONE": 0, "ONE": 1, "TWO": 2, "SENIOR_JUNIOR": 2}

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        name="deck",
        kind="int",
        default=36,
        help="SIX-2: deck size, 8 / 7 / 6 cards each",
        choices=(36, 32, 28),
        rule="SIX-2",
    ),
    OptionSpec(
        name="trumps",
        kind="enum",
        default="PERSONAL",
        help="SIX-4: PERSONAL (a suit per seat), NONE, ONE, TWO or SENIOR_JUNIOR",
        choices=TRUMP_MODES,
        rule="SIX-4",
    ),
    OptionSpec(
        name="trump_suits",
        kind="suits",
        default=None,
        help="SIX-4: the trump suits; unset = PERSONAL S H D C by seat, ONE S, TWO S D, "
        "SENIOR_JUNIOR S (senior) D (junior), NONE none",
        rule="SIX-4",
    ),
    OptionSpec(
        name="seven",
        kind="enum",
        default="SKIP",
        help="SIX-8: a 7 makes the next player lose a turn",
        choices=("SKIP", "NONE"),
        rule="SIX-8",
    ),
    OptionSpec(
        name="dealer",
        kind="enum",
        default="FIRST_MOVER",
        help="SIX-13: who deals the next hand",
        choices=("FIRST_MOVER", "LOSER", "FIRST_OUT", "MOST_POINTS", "FEWEST_POINTS"),
        rule="SIX-13",
    ),
    OptionSpec(
        name="max_hands",
        kind="int",
        default=500,
        help="SIX-12, R-5: the match ends after this many hands",
        minimum=1,
        maximum=10_000,
        rule="R-5",
    ),
    OptionSpec(
        name="final_kitty",
        kind="enum",
        default="DISCARD",
        help="SIX-12: what happens to a kitty left at the end",
        choices=("DISCARD", "SPLIT_SOLVENT"),
        rule="SIX-12",
    ),
    OptionSpec(
        name="eight_on_trumps",
        kind="bool",
        default=True,
        help="SIX-6(d): an 8 may go on a bank of a higher trump category",
        rule="SIX-6",
    ),
)


# --------------------------------------------------------------------------------------------
# Config, commands, events


@dataclass(frozen=True, slots=True)
class Config:
    """The SIX options of a match (docs/rules.md); `trump_suits` holds the effective suits."""

    deck: int = 36
    trumps: str = "PERSONAL"
    trump_suits: tuple[Suit, ...] = (Suit.S, Suit.H)
    seven: str = "SKIP"
    dealer: str = "FIRST_MOVER"
    max_hands: int = 500
    final_kitty: str = "DISCARD"
    eight_on_trumps: bool = True


@dataclass(frozen=True, slots=True)
class Play:
    """SIX-8: play `card` from your hand onto the bank."""

    card: Card


@dataclass(frozen=True, slots=True)
class BankTurned:
    """SIX-5, SIX-7: right after `Dealt`, the bank turned up, the hand size, how many cards the
    stock holds and the first mover (public, unlike the deck `Dealt` holds)."""

    bank: Card
    hand_size: int
    stock_count: int
    first_mover: int


@dataclass(frozen=True, slots=True)
class CardPlayed:
    """SIX-8: `seat` played `card`; it is the new bank."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class PlayerOut:
    """SIX-9: `seat` emptied its hand and is out, finishing `place`-th (from 1)."""

    seat: int
    place: int


@dataclass(frozen=True, slots=True)
class TurnSkipped:
    """SIX-8: `seat` loses its turn to a 7."""

    seat: int


@dataclass(frozen=True, slots=True)
class Passed:
    """SIX-8, R-4: `seat` had no legal card and passes (drawing nothing)."""

    seat: int


@dataclass(frozen=True, slots=True)
class BankCovered:
    """SIX-10: nobody could play, so the top stock card covers the bank."""

    card: Card


@dataclass(frozen=True, slots=True)
class HandSettled:
    """SIX-10, SIX-11: the hand ended (condition 1, 2 or 3) and was settled.

    Per seat: `cards_left`, `paid` into the kitty, `received` from it; then the new `capitals`
    and the `kitty` carried over.
    """

    hand_number: int
    condition: int
    out_order: tuple[int, ...]
    cards_left: tuple[int, ...]
    paid: tuple[int, ...]
    received: tuple[int, ...]
    capitals: tuple[int, ...]
    kitty: int


@dataclass(frozen=True, slots=True)
class MatchEnded:
    """SIX-12: the match is over; final `capitals` include any `kitty_shares`."""

    winners: tuple[int, ...]
    capitals: tuple[int, ...]
    kitty_shares: tuple[int, ...]
    kitty_discarded: int
    hands_played: int
    reason: str


COMMAND_TYPES: tuple[type, ...] = (Play,)
EVENT_TYPES: tuple[type, ...] = (
    MatchStarted[Config],
    FirstDealerChosen,
    Dealt,
    BankTurned,
    CardPlayed,
    PlayerOut,
    TurnSkipped,
    Passed,
    BankCovered,
    HandSettled,
    MatchEnded,
)

Event = (
    MatchStarted[Config]
    | FirstDealerChosen
    | Dealt
    | BankTurned
    | CardPlayed
    | PlayerOut
    | TurnSkipped
    | Passed
    | BankCovered
    | HandSettled
    | MatchEnded
)


# --------------------------------------------------------------------------------------------
# State and view


@dataclass(frozen=True, slots=True)
class Match:
    """What stays fixed for a whole match, with the precomputed SIX-6 tables."""

    config: Config
    players: tuple[str, ...]
    seed: bytes
    decks: tuple[tuple[Card, ...], ...]
    prearranged: bool
    n: int
    # legal[p][b] = bitmask (by Card.index) of the cards seat p may play on bank card index b.
    legal: tuple[tuple[int, ...], ...]
    deck_mask: int
    skip_on_seven: bool


@dataclass(frozen=True, slots=True)
class Table:
    """The slowly changing part of the state: the hand's frame and the scores."""

    hand_number: int
    dealer: int
    first_mover: int
    stock: tuple[Card, ...]  # top first
    aside: int  # bitmask of the cards set aside unseen this hand (SIX-5)
    out_order: tuple[int, ...]
    capitals: tuple[int, ...]
    kitty: int
    result: MatchEnded | None


@dataclass(frozen=True, slots=True)
class State:
    """The whole match state (hidden parts included); build it by folding events.

    The fields a card changes live here; the rest is shared in `table` until it changes, so a
    move builds a small object (speed: tournaments fold millions of events).
    """

    match: Match
    table: Table
    hands: tuple[int, ...]  # bitmasks by Card.index
    bank: Card | None
    pile: int  # bitmask of the cards under the bank (played or covered), public
    turn: int | None
    mover: int  # the seat that played the last card (or the first mover): SIX-10 "moves again"
    skip_next: bool
    last: Event | None  # the last event, for View.last_play

    @property
    def config(self) -> Config:
        """The match's options."""
        return self.match.config

    @property
    def hand_number(self) -> int:
        """The number of the current hand (from 1)."""
        return self.table.hand_number

    @property
    def dealer(self) -> int:
        """The dealer of the current hand."""
        return self.table.dealer

    @property
    def first_mover(self) -> int:
        """SIX-7: the first mover of the current hand."""
        return self.table.first_mover

    @property
    def stock(self) -> tuple[Card, ...]:
        """The stock, top first (hidden)."""
        return self.table.stock

    @property
    def aside(self) -> int:
        """The set-aside cards as a bitmask (hidden)."""
        return self.table.aside

    @property
    def out_order(self) -> tuple[int, ...]:
        """SIX-9: the seats out this hand, in finishing order."""
        return self.table.out_order

    @property
    def capitals(self) -> tuple[int, ...]:
        """SIX-3: the capitals by seat."""
        return self.table.capitals

    @property
    def kitty(self) -> int:
        """SIX-11: the kitty."""
        return self.table.kitty

    @property
    def result(self) -> MatchEnded | None:
        """SIX-12: how the match ended, or None while it runs."""
        return self.table.result


@dataclass(frozen=True, slots=True)
class View:
    """What one viewer may see of the table (None = spectator)."""

    seat: int | None
    players: tuple[str, ...]
    to_act: int | None
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    hand_number: int
    dealer: int
    finished: bool
    bank: Card | None
    stock_count: int
    kitty: int
    capitals: tuple[int, ...]
    out_order: tuple[int, ...]
    trump_mode: str
    trump_suits: tuple[Suit, ...]
    first_mover: int
    skip_next: bool
    last_play: str
