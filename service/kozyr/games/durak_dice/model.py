"""Durak with dice: constants, options, config, commands, events, state and view."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from kozyr.core.cards import Card, Suit
from kozyr.games.contract import (
    Dealt,
    FirstDealerChosen,
    MatchStarted,
    OptionSpec,
)

NAME: str = "durak-dice"
TITLE: str = "Durak with dice"
MIN_PLAYERS: int = 2
MAX_PLAYERS: int = 6
RULES_VERSION: str = "2026.11"

UNDER_FOOL: Final = "UNDER_FOOL"
FROM_UNDER_FOOL: Final = "FROM_UNDER_FOOL"

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        name="deck",
        kind="int",
        default=36,
        help="DUR-1: 36 cards (6..A) or 52 (2..A)",
        choices=(36, 52),
        rule="DUR-1",
    ),
    OptionSpec(
        name="next_first",
        kind="enum",
        default=UNDER_FOOL,
        help="DUR-4: who attacks first in later games: the fool's right (UNDER_FOOL) or left "
        "(FROM_UNDER_FOOL) neighbour",
        choices=(UNDER_FOOL, FROM_UNDER_FOOL),
        rule="DUR-4",
    ),
    OptionSpec(
        name="max_attacks",
        kind="int",
        default=0,
        help="DUR-7: attack cards per bout, opening included (0 = no cap)",
        minimum=0,
        maximum=52,
        rule="DUR-7",
    ),
    OptionSpec(
        name="games",
        kind="int",
        default=1,
        help="DUR-10: games in the match",
        minimum=1,
        maximum=1_000,
        rule="DUR-10",
    ),
    OptionSpec(
        name="max_bouts",
        kind="int",
        default=1000,
        help="R-5, DUR-9: a game with this many bouts is a draw",
        minimum=1,
        maximum=100_000,
        rule="R-5",
    ),
)

# Reason codes of this game (the shared ones come from base).
CANNOT_BEAT: Final = "CANNOT_BEAT"
CANNOT_THROW_IN: Final = "CANNOT_THROW_IN"
NOTHING_TO_BEAT: Final = "NOTHING_TO_BEAT"
NOTHING_TO_TAKE: Final = "NOTHING_TO_TAKE"
MUST_ATTACK: Final = "MUST_ATTACK"
MUST_BEAT_OR_TAKE: Final = "MUST_BEAT_OR_TAKE"

# Why a bout's attacker attacks (BoutStarted.reason).
LOWEST_TRUMP: Final = "LOWEST_TRUMP"
LOWEST_CARD: Final = "LOWEST_CARD"
DEFENDED: Final = "DEFENDED"
TOOK: Final = "TOOK"

# How a game ended (GameEnded.reason).
FOOL: Final = "FOOL"
DRAW: Final = "DRAW"
MAX_BOUTS: Final = "MAX_BOUTS"


# --------------------------------------------------------------------------------------------
# Config, commands, events


@dataclass(frozen=True, slots=True)
class Config:
    """The options of a match (DUR options, R-6)."""

    deck: int = 36
    next_first: str = UNDER_FOOL
    max_attacks: int = 0
    games: int = 1
    max_bouts: int = 1000


@dataclass(frozen=True, slots=True)
class Attack:
    """DUR-5, DUR-7: open a bout with any card, or throw in a card of a rank on the table."""

    card: Card


@dataclass(frozen=True, slots=True)
class Beat:
    """DUR-6: the defender beats the pending card with this card."""

    card: Card


@dataclass(frozen=True, slots=True)
class Take:
    """DUR-6, DUR-8: the defender picks up every card on the table."""


@dataclass(frozen=True, slots=True)
class Pass:
    """DUR-7: decline to throw in when it is your turn to throw."""


@dataclass(frozen=True, slots=True)
class TrumpTurned:
    """DUR-2, DUR-3: right after `Dealt`, the turned-up trump card (dealt last, so the last
    roller holds it) and every hand's size, which a viewer's `Dealt` does not show."""

    card: Card
    hand_sizes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class BoutStarted:
    """DUR-4, DUR-8: bout number, attacker, defender and why this attacker attacks."""

    bout: int
    attacker: int
    defender: int
    reason: str


@dataclass(frozen=True, slots=True)
class Attacked:
    """DUR-5: the attacker opens the bout with a card."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class ThrownIn:
    """DUR-7: a player throws in a card of a rank on the table."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class Beaten:
    """DUR-6: the defender beats the pending attack card."""

    seat: int
    attack: Card
    card: Card


@dataclass(frozen=True, slots=True)
class Passed:
    """DUR-7: a player does not throw in (automatic when he holds no card he may throw, R-4)."""

    seat: int
    automatic: bool


@dataclass(frozen=True, slots=True)
class PlayerOut:
    """DUR-9: a player's hand is empty; he is out of this game."""

    seat: int


@dataclass(frozen=True, slots=True)
class Discarded:
    """DUR-8: the defence succeeded; the table's cards go to the discard pile."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Took:
    """DUR-8: the defender picks up every card on the table (public: they were on the table)."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class GameEnded:
    """DUR-9: the game's fool, or None for a draw (reason FOOL, DRAW or MAX_BOUTS)."""

    game: int
    fool: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class MatchEnded:
    """DUR-10: every seat's fool count and the winners (fewest fools)."""

    fools: tuple[int, ...]
    winners: tuple[int, ...]


Command = Attack | Beat | Take | Pass
Event = (
    MatchStarted[Config]
    | FirstDealerChosen
    | Dealt
    | TrumpTurned
    | BoutStarted
    | Attacked
    | ThrownIn
    | Beaten
    | Passed
    | PlayerOut
    | Discarded
    | Took
    | GameEnded
    | MatchEnded
)

COMMAND_TYPES: tuple[type, ...] = (Attack, Beat, Take, Pass)
EVENT_TYPES: tuple[type, ...] = (
    MatchStarted[Config],
    FirstDealerChosen,
    Dealt,
    TrumpTurned,
    BoutStarted,
    Attacked,
    ThrownIn,
    Beaten,
    Passed,
    PlayerOut,
    Discarded,
    Took,
    GameEnded,
    MatchEnded,
)


# --------------------------------------------------------------------------------------------
# State and view

# Phases of the state: whose decision is awaited and of which kind.
PHASE_IDLE: Final = 0  # between events of one decision (never the resting state of a running match)
PHASE_ATTACK: Final = 1  # the attacker opens the bout
PHASE_DEFEND: Final = 2  # the defender beats or takes
PHASE_THROW: Final = 3  # the seat at the throw offset may throw in or pass
PHASE_OVER: Final = 4  # the match is over
PHASE_NAMES: Final = ("IDLE", "ATTACK", "DEFEND", "THROW", "OVER")
# The rule each phase's decision follows (named when a move is refused).
PHASE_RULES: Final = ("DUR-8", "DUR-5", "DUR-6", "DUR-7", "DUR-10")


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """What does not change during a match."""

    config: Config
    players: tuple[str, ...]
    n: int
    seed: bytes
    decks: tuple[tuple[Card, ...], ...]
    dice: tuple[tuple[int, ...], ...]
    prearranged: bool


@dataclass(frozen=True, slots=True)
class GameInfo:
    """What does not change during one game."""

    number: int
    dealer: int
    trump: Suit | None
    trump_card: Card | None
    rolls: tuple[tuple[int, int], ...]
    beats: tuple[int, ...]  # card index -> bit mask of the cards that beat it (DUR-6)


@dataclass(frozen=True, slots=True)
class State:
    """The whole match (hidden parts included); hands are bit masks over Card.index."""

    m: MatchInfo
    g: GameInfo
    hands: tuple[int, ...]
    phase: int
    attacker: int | None
    defender: int | None
    actor: int | None
    k: int  # offset from the attacker of the seat whose throw-in turn it is (DUR-7)
    table: tuple[tuple[Card, Card | None], ...]
    ranks: int  # mask of every card whose rank lies on the table (DUR-7)
    attacks: int
    discard: int  # mask of the discard pile
    out: tuple[int, ...]
    fools: tuple[int, ...]
    draws: int
    bout: int
    last_bout: tuple[tuple[Card, Card | None], ...]
    last_taker: int | None
    # Per seat, the cards of its hand everybody has seen: the turned-up trump card (dealt last,
    # the rolls show to whom) and taken cards (they lay on the table), until played.
    known: tuple[int, ...]

    @property
    def config(self) -> Config:
        """The match's options."""
        return self.m.config


@dataclass(frozen=True, slots=True)
class View:
    """What one viewer may see (a seat, or None for a spectator)."""

    seat: int | None
    players: tuple[str, ...]
    to_act: int | None
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    hand_number: int
    dealer: int
    finished: bool
    trump: Suit | None
    trump_card: Card | None
    attacker: int | None
    defender: int | None
    table: tuple[tuple[Card, Card | None], ...]
    discard_count: int
    out: tuple[int, ...]
    fools: tuple[int, ...]
    game_number: int
    games: int
    bout_number: int
    rolls: tuple[tuple[int, int], ...]
    phase: str
    last_bout: tuple[tuple[Card, Card | None], ...]
    last_bout_taken_by: int | None
    draws: int
    prearranged: bool
    known: tuple[tuple[Card, ...], ...]  # per seat: held cards everybody saw (trump card, taken)
