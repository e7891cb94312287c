"""Six Dozens («Шесть дюжин»): a shedding game for 2–4 players (RULES.md SIX-1 … SIX-13).

Each player starts with a capital of 72 points. A hand is dealt, one card is turned up as the
*bank*, and players in turn cover the bank with a card SIX-6 allows (the next card of its suit
towards the 6, a card of the same rank, the 6 of its suit, an 8, or a card of a higher trump
category). Whoever cannot play passes. Cards left in hand at the end cost 6 points each; the
penalties go into a kitty that the players who went out share. The match ends when a capital
reaches 0 or below; the highest capital wins.

Model. Hands are bitmasks over `Card.index`; the legal cards of seat p on bank b are the
precomputed mask ``legal[p][b.index]`` (built once per match from the options), so a legality
check is one AND. The seat to act (`turn`) is derived by `evolve` from the events: after a card
the next seat holding cards clockwise; after a pass or a skip the next such seat after the one
passed; after a cover the seat that played last (SIX-10); after a deal the first mover (SIX-7).
What rarely changes (hand frame, stock, scores) sits in a shared `Table`, so a card played
builds one small State. `zones`, `hidden_zones` and `with_zones` expose where every card is, for
the cross-game property tests (conservation, views that do not leak).

Decisions where RULES.md is silent (or leaves the form open):
- `trump_suits` left unset (None) takes the SIX-4 defaults; the Config stores the effective
  suits (PERSONAL: one per seat). An empty value is accepted only for NONE. `start` refuses a
  PERSONAL config whose suit count differs from the number of players.
- A 7's skip, a pass and a cover are events of their own (`TurnSkipped`, `Passed`,
  `BankCovered`); going out is `PlayerOut` right after the card that emptied the hand. A skip
  consumes the skipped seat's turn even if that seat could not have played (SIX-8), and it is
  applied only after the SIX-10 checks, so a hand that ends on a 7 skips nobody.
- After a cover the last mover "moves again": it is his turn; if he has no legal card on the new
  bank he passes automatically like anyone else (R-4, SIX-8).
- Every hand, including one that ends in its opening check, counts towards `max_hands`.
- Kitty shares are computed with integer division and any remainder goes to the first
  finisher. (The kitty is always a multiple of 6, so every SIX-11 share is exact in practice.)
- With `final_kitty` SPLIT_SOLVENT the final kitty shares are added to the capitals before the
  winners are chosen; the outcome's details report the shares and the discarded amount.
- `eight_on_trumps` false: "an 8 only goes on a bank of the same or lower category for its
  player" is read literally, whatever clause would allow it — so it also keeps an 8 off an 8 of
  a higher category (b). (Clauses (a) and (e) never put an 8 on a higher category anyway.)
- Cards left in hand are not revealed at the end of a hand; `HandSettled` gives their counts.
- Redaction: `MatchStarted` loses its seed (``b""``) and the prearranged deck orders (each
  becomes ``()``, so their number stays visible); the shared `Dealt` keeps only the viewer's
  own hand (others ``()``) and loses the deck order, so the stock order and the set-aside cards
  go with it. The bank, hand size, stock size and first mover are in `BankTurned`, emitted
  right after `Dealt` because a viewer's `Dealt` has no deck to derive them from. Every other
  event is public. The cards under the bank (`zones` "pile") are public: they were played or
  turned face up.
- After the match ends the view's kitty is 0: what was left was discarded or shared out
  (`MatchEnded` and the outcome's details say which).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kozyr import fairness
from kozyr.cards import ALL_CARDS, Card, Rank, Suit, cards_of, deck, mask_of
from kozyr.games.base import (
    CARD_NOT_IN_HAND,
    MATCH_OVER,
    NOT_A_SEAT,
    NOT_YOUR_TURN,
    UNKNOWN_COMMAND,
    Dealt,
    FirstDealerChosen,
    IllegalMove,
    InvalidOptions,
    MatchStarted,
    OptionSpec,
    Outcome,
    Setup,
    check_deal_setup,
    check_players,
    redact_dealt,
    redact_started,
    resolve_options,
    start_events,
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
_DEFAULT_SUITS: dict[str, tuple[Suit, ...]] = {
    "NONE": (),
    "ONE": (Suit.S,),
    "TWO": (Suit.S, Suit.D),
    "SENIOR_JUNIOR": (Suit.S, Suit.D),
}
_SUIT_COUNT = {"NONE": 0, "ONE": 1, "TWO": 2, "SENIOR_JUNIOR": 2}

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("deck", "int", 36, "SIX-2: deck size, 8 / 7 / 6 cards each", choices=(36, 32, 28),
               rule="SIX-2"),
    OptionSpec(
        "trumps",
        "enum",
        "PERSONAL",
        "SIX-4: PERSONAL (a suit per seat), NONE, ONE, TWO or SENIOR_JUNIOR",
        choices=TRUMP_MODES,
        rule="SIX-4",
    ),
    OptionSpec(
        "trump_suits",
        "suits",
        None,
        "SIX-4: the trump suits; unset = PERSONAL S H D C by seat, ONE S, TWO S D, "
        "SENIOR_JUNIOR S (senior) D (junior), NONE none",
        rule="SIX-4",
    ),
    OptionSpec("seven", "enum", "SKIP", "SIX-8: a 7 makes the next player lose a turn",
               choices=("SKIP", "NONE"), rule="SIX-8"),
    OptionSpec(
        "dealer",
        "enum",
        "FIRST_MOVER",
        "SIX-13: who deals the next hand",
        choices=("FIRST_MOVER", "LOSER", "FIRST_OUT", "MOST_POINTS", "FEWEST_POINTS"),
        rule="SIX-13",
    ),
    OptionSpec("max_hands", "int", 500, "SIX-12, R-5: the match ends after this many hands",
               minimum=1, maximum=10_000, rule="R-5"),
    OptionSpec("final_kitty", "enum", "DISCARD", "SIX-12: what happens to a kitty left at the end",
               choices=("DISCARD", "SPLIT_SOLVENT"), rule="SIX-12"),
    OptionSpec("eight_on_trumps", "bool", True,
               "SIX-6(d): an 8 may go on a bank of a higher trump category", rule="SIX-6"),
)


# --------------------------------------------------------------------------------------------
# Config, commands, events


@dataclass(frozen=True, slots=True)
class Config:
    """The SIX options of a match (RULES.md); `trump_suits` holds the effective suits."""

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
    MatchStarted[Config] | FirstDealerChosen | Dealt | BankTurned | CardPlayed | PlayerOut | TurnSkipped | Passed
    | BankCovered | HandSettled | MatchEnded
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


# --------------------------------------------------------------------------------------------
# Card tables (SIX-1, SIX-4, SIX-6)

# SIX-1: A=0, 10=1, K=2, Q=3, J=4, 9=5, 8=6, 7=7, 6=8 (the 6 is the most senior).
_IDX: dict[int, int] = {14: 0, 10: 1, 13: 2, 12: 3, 11: 4, 9: 5, 8: 6, 7: 7, 6: 8}
_RANK_AT: dict[int, int] = {i: r for r, i in _IDX.items()}
_PLAYS: tuple[Play, ...] = tuple(Play(c) for c in ALL_CARDS)
_SHARES: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((1, 1),),
    2: ((2, 3), (1, 3)),
    3: ((1, 2), (1, 3), (1, 6)),
}
_PLACES = ("", "1st", "2nd", "3rd", "4th")


def category(config: Config, seat: int, card: Card) -> int:
    """SIX-4: the trump category of `card` for `seat` (0 plain, 1 trump/junior, 2 senior)."""
    mode = config.trumps
    suits = config.trump_suits
    if mode == "NONE":
        return 0
    if mode == "PERSONAL":
        return 1 if seat < len(suits) and card.suit == suits[seat] else 0
    if mode == "SENIOR_JUNIOR":
        if card.suit == suits[0]:
            return 2
        return 1 if card.suit == suits[1] else 0
    return 1 if card.suit in suits else 0


def _clauses(config: Config, seat: int, card: Card, bank: Card) -> bool:
    """SIX-6 (a)–(e) as written."""
    if card.suit == bank.suit and _IDX[card.rank] == _IDX[bank.rank] + 1:  # (a)
        return True
    if card.rank == bank.rank:  # (b)
        return True
    if card.rank == Rank.SIX and card.suit == bank.suit:  # (c)
        return True
    cat_c = category(config, seat, card)
    cat_b = category(config, seat, bank)
    if card.rank == Rank.EIGHT and (config.eight_on_trumps or cat_b <= cat_c):  # (d)
        return True
    return cat_c > cat_b  # (e)


def may_play(config: Config, seat: int, card: Card, bank: Card) -> bool:
    """SIX-6: may `seat` put `card` on `bank` (on its own turn)?"""
    if (card.rank == Rank.EIGHT and not config.eight_on_trumps
            and category(config, seat, bank) > category(config, seat, card)):
        return False  # the option's "only": no clause puts such an 8 on a higher category
    return _clauses(config, seat, card, bank)


def _legal_table(config: Config, n: int) -> tuple[tuple[int, ...], ...]:
    """SIX-6 as bitmasks: table[p][b.index] = the cards seat p may put on bank b.

    Categories depend only on the suit, so each clause is a union of suit and rank masks
    (`may_play` is the same rule card by card; the tests check they agree).
    """
    cards = deck(config.deck)
    suit_mask = [0, 0, 0, 0]
    rank_mask = dict.fromkeys(_IDX, 0)
    for c in cards:
        bit = 1 << c.index
        suit_mask[c.index // 13] |= bit
        rank_mask[c.rank] |= bit
    eights_all = rank_mask[8]
    tables: list[tuple[int, ...]] = []
    for seat in range(n):
        if seat and config.trumps != "PERSONAL":
            tables.append(tables[0])  # the categories do not depend on the seat
            continue
        cat = [category(config, seat, ALL_CARDS[s * 13]) for s in range(4)]
        higher = [0, 0, 0, 0]  # (e): every card of a suit of higher category
        eights = [eights_all] * 4  # (d)
        for bs in range(4):
            for s in range(4):
                if cat[s] > cat[bs]:
                    higher[bs] |= suit_mask[s]
                elif cat[s] < cat[bs] and not config.eight_on_trumps:
                    eights[bs] &= ~suit_mask[s]
        row = [0] * 53
        for b in cards:
            bs = b.index // 13
            mask = rank_mask[b.rank] | higher[bs] | eights[bs]  # (b), (e), (d)
            mask |= rank_mask[6] & suit_mask[bs]  # (c)
            place = _IDX[b.rank] + 1
            if place <= 8:  # (a): the next card towards the 6, if the deck has it
                mask |= (1 << (bs * 13 + _RANK_AT[place] - 2)) & suit_mask[bs]
            if not config.eight_on_trumps:
                mask &= ~eights_all | eights[bs]  # the option keeps lower 8s off, whatever clause
            row[b.index] = mask & ~(1 << b.index)
        tables.append(tuple(row))
    return tuple(tables)


def _next_holder(hands: tuple[int, ...], seat: int) -> int:
    """The next seat clockwise after `seat` that still holds cards (`seat` itself if none)."""
    n = len(hands)
    for k in range(1, n + 1):
        p = (seat + k) % n
        if hands[p]:
            return p
    return seat


# --------------------------------------------------------------------------------------------
# Options and start


def make_config(options: Mapping[str, object], players: int) -> Config:
    """R-6, SIX options: validate the options for `players` seats and fill SIX-4 defaults."""
    check_players(TITLE, MIN_PLAYERS, MAX_PLAYERS, players)
    o = resolve_options(OPTIONS, options)
    mode = str(o["trumps"])
    raw = o["trump_suits"]
    suits: tuple[Suit, ...]
    if raw is None:
        suits = (Suit.S, Suit.H, Suit.D, Suit.C)[:players] if mode == "PERSONAL" else (
            _DEFAULT_SUITS[mode]
        )
    else:
        assert isinstance(raw, tuple)
        suits = tuple(raw)
        want = players if mode == "PERSONAL" else _SUIT_COUNT[mode]
        if len(suits) != want:
            what = {
                "PERSONAL": f"one suit per player ({players})",
                "NONE": "no suits",
                "ONE": "one suit",
                "TWO": "two suits",
                "SENIOR_JUNIOR": "two suits (senior, then junior)",
            }[mode]
            raise InvalidOptions(
                "BAD_OPTION_VALUE",
                f"option 'trump_suits' for trumps {mode} takes {what}, not {len(suits)}",
                rule="SIX-4",
            )
    max_hands = o["max_hands"]
    deck_size = o["deck"]
    eight = o["eight_on_trumps"]
    assert isinstance(max_hands, int) and isinstance(deck_size, int) and isinstance(eight, bool)
    return Config(
        deck=deck_size,
        trumps=mode,
        trump_suits=suits,
        seven=str(o["seven"]),
        dealer=str(o["dealer"]),
        max_hands=max_hands,
        final_kitty=str(o["final_kitty"]),
        eight_on_trumps=eight,
    )


_NO_SETUP = Setup()


def check_setup(config: Config, players: int, setup: Setup) -> None:
    """SIX-4, R-2, R-3: 2 to 4 players, one personal trump per player, a first dealer who is a
    seat and prearranged decks of the configured deck."""
    check_players(TITLE, MIN_PLAYERS, MAX_PLAYERS, players)
    if config.trumps == "PERSONAL" and len(config.trump_suits) != players:
        raise InvalidOptions(
            "BAD_OPTION_VALUE", f"trumps PERSONAL needs one trump suit per player ({players})",
            rule="SIX-4",
        )
    check_deal_setup(setup, players, deck(config.deck), dice=False)


def start(
    config: Config, players: Sequence[str], seed: bytes, setup: Setup = _NO_SETUP
) -> tuple[Event, ...]:
    """R-1, R-2, SIX-5, SIX-10: open the match, draw the first dealer, deal hand 1, run the
    opening checks (covers, passes) until the first real decision."""
    check_setup(config, len(players), setup)
    first, chosen = start_events(config, players, seed, setup)
    state = _on_dealer(_on_started(None, first), chosen)
    dealt, turned = _deal(state.match, 1, chosen.seat)
    state = _on_bank(_on_dealt(state, dealt), turned)
    events: list[Event] = [first, chosen, dealt, turned]
    _auto(state, events)
    return tuple(events)


def _deal(m: Match, hand_number: int, dealer: int) -> tuple[Dealt, BankTurned]:
    """SIX-5, SIX-7: the deal of hand `hand_number` (deck from setup or the seed, R-1, R-3)."""
    if hand_number <= len(m.decks):
        order = m.decks[hand_number - 1]
    else:
        order = fairness.RandomStream(m.seed, fairness.deal_label(hand_number)).shuffle(
            deck(m.config.deck)
        )
    n = m.n
    size = HAND_SIZE[m.config.deck]
    dealt: list[list[Card]] = [[] for _ in range(n)]
    for j in range(n * size):
        dealt[(dealer + 1 + j) % n].append(order[j])
    bank = order[n * size]
    hands = tuple(tuple(sorted(h)) for h in dealt)
    # SIX-7: the holder of the bank's suit card with the highest idx; else the dealer's left.
    first_mover = (dealer + 1) % n
    best = -1
    for seat, h in enumerate(hands):
        for c in h:
            if c.suit == bank.suit and _IDX[c.rank] > best:
                best = _IDX[c.rank]
                first_mover = seat
    return (Dealt(hand_number, dealer, tuple(order), (), hands),
            BankTurned(bank, size, STOCK_SIZE[n], first_mover))


def deal_order(
    dealer: int, hands: Sequence[Sequence[Card]], rest: Sequence[Card]
) -> tuple[Card, ...]:
    """SIX-5 backwards: a deck order that deals `hands` (equal sizes, by seat) from `dealer`'s
    left and then leaves `rest` (bank, stock top first, set-aside cards) in that order."""
    n = len(hands)
    return (*(hands[(dealer + 1 + j) % n][j // n] for j in range(n * len(hands[0]))), *rest)


# --------------------------------------------------------------------------------------------
# Deciding


def decide(state: State, seat: int, command: object) -> tuple[Event, ...]:
    """SIX-6, SIX-8: play a card; emits its automatic consequences (R-4, SIX-8 … SIX-13)."""
    m = state.match
    if not 0 <= seat < m.n:
        raise IllegalMove(NOT_A_SEAT, f"there is no seat {seat}: seats are 0 to {m.n - 1}",
                          rule="SIX-8")
    if state.table.result is not None:
        raise IllegalMove(MATCH_OVER, "the match is over: no move can be made", rule="SIX-12")
    if seat != state.turn:
        raise IllegalMove(NOT_YOUR_TURN, f"it is not your turn: seat {state.turn} is to play",
                          rule="SIX-8")
    if type(command) is not Play:
        raise IllegalMove(UNKNOWN_COMMAND,
                          f"Six Dozens has no move {type(command).__name__}: play a card",
                          rule="SIX-8")
    card = command.card
    if not isinstance(card, Card) or not (state.hands[seat] >> card.index) & 1:
        raise IllegalMove(CARD_NOT_IN_HAND, f"you do not hold {card}: play a card you hold",
                          rule="SIX-8")
    bank = state.bank
    assert bank is not None
    if not (m.legal[seat][bank.index] >> card.index) & 1:
        raise IllegalMove(CARD_NOT_PLAYABLE, _not_playable(m.config, seat, card, bank),
                          rule="SIX-6")
    played = CardPlayed(seat, card)
    events: list[Event] = [played]
    s = _on_played(state, played)
    if not s.hands[seat]:
        out = PlayerOut(seat, len(s.table.out_order) + 1)
        events.append(out)
        s = _on_out(s, out)
    _auto(s, events)
    return tuple(events)


def _not_playable(config: Config, seat: int, card: Card, bank: Card) -> str:
    idx = _IDX[bank.rank]
    options = []
    nxt = [r for r, i in _IDX.items() if i == idx + 1]
    if nxt and bank.suit is not None:
        options.append(f"{Rank(nxt[0]).code}{bank.suit.letter}")
    options.append(f"a {bank.rank.code}")
    if bank.rank != Rank.SIX and bank.suit is not None:
        options.append(f"6{bank.suit.letter}")
    options.append("an 8")
    if category(config, seat, bank) < 2 and config.trumps != "NONE":
        options.append("a card of a higher trump category")
    return (
        f"{card.code} cannot go on the bank {bank.code}: "
        f"play {', '.join(options[:-1])} or {options[-1]}"
    )


def _auto(s: State, events: list[Event]) -> None:
    """R-4: the automatic consequences — SIX-10 checks and covers, SIX-8 skips and passes,
    SIX-11 settlement, SIX-12 match end, SIX-13 next deal — appended to `events` until a seat
    must decide or the match is over."""
    m = s.match
    legal = m.legal
    n = m.n
    while True:
        hands = s.hands
        t = s.table
        holders = 0
        for h in hands:
            if h:
                holders += 1
        condition = 0
        if t.out_order and holders == 1:
            condition = 1
        else:
            bank_i = s.bank.index  # type: ignore[union-attr]
            can = False
            for p in range(n):
                if hands[p] & legal[p][bank_i]:
                    can = True
                    break
            if not can:
                if t.out_order:
                    condition = 2
                elif t.stock:
                    covered = BankCovered(t.stock[0])
                    events.append(covered)
                    s = _on_covered(s, covered)
                    continue
                else:
                    condition = 3
            else:
                # Skips and passes only move the turn, so follow it here without new states;
                # this terminates because some holder has a legal card and passes change nothing.
                turn = s.turn
                assert turn is not None
                if s.skip_next:
                    events.append(TurnSkipped(turn))
                    turn = _next_holder(hands, turn)
                while not hands[turn] & legal[turn][bank_i]:
                    events.append(Passed(turn))
                    turn = _next_holder(hands, turn)
                return
        settled = _settle(s, condition)
        events.append(settled)
        s = _on_settled(s, settled)
        t = s.table
        if min(t.capitals) <= 0 or t.hand_number >= m.config.max_hands:
            events.append(_match_end(s))
            return
        dealt, turned = _deal(m, t.hand_number + 1, _next_dealer(s, settled))
        events += (dealt, turned)
        s = _on_bank(_on_dealt(s, dealt), turned)


def _split(kitty: int, order: Sequence[int], n: int) -> list[int]:
    """SIX-11 proportions of `kitty` by finishing `order` (at most three share)."""
    received = [0] * n
    takers = list(order[:3])
    if not takers or kitty <= 0:
        return received
    given = 0
    for p, (num, den) in zip(takers, _SHARES[len(takers)], strict=True):
        share = kitty * num // den
        received[p] = share
        given += share
    received[takers[0]] += kitty - given
    return received


def _settle(s: State, condition: int) -> HandSettled:
    """SIX-11: penalties into the kitty; the finishers share it, or it carries over."""
    n = s.match.n
    cards_left = tuple(h.bit_count() for h in s.hands)
    paid = tuple(CARD_COST * c for c in cards_left)
    kitty = s.kitty + sum(paid)
    if s.out_order:
        received = _split(kitty, s.out_order, n)
        kitty = 0
    else:
        received = [0] * n
    capitals = tuple(s.capitals[p] - paid[p] + received[p] for p in range(n))
    return HandSettled(
        hand_number=s.hand_number,
        condition=condition,
        out_order=s.out_order,
        cards_left=cards_left,
        paid=paid,
        received=tuple(received),
        capitals=capitals,
        kitty=kitty,
    )


def _first_clockwise(n: int, start: int, candidates: Sequence[int]) -> int:
    for k in range(n):
        p = (start + k) % n
        if p in candidates:
            return p
    return start


def _next_dealer(s: State, settled: HandSettled) -> int:
    """SIX-13: the dealer of the next hand; ties clockwise from the previous dealer's left."""
    n = s.match.n
    rule = s.match.config.dealer
    left = (s.dealer + 1) % n
    if rule == "FIRST_MOVER":
        return s.first_mover
    if rule == "FIRST_OUT":
        return s.out_order[0] if s.out_order else left
    if rule == "LOSER":
        values = settled.cards_left
        target = max(values)
    else:
        values = settled.capitals
        target = max(values) if rule == "MOST_POINTS" else min(values)
    return _first_clockwise(n, left, [p for p in range(n) if values[p] == target])


def _match_end(s: State) -> MatchEnded:
    """SIX-12: final kitty (discard or split among the solvent), then the highest capital."""
    m = s.match
    n = m.n
    capitals = list(s.capitals)
    shares = [0] * n
    discarded = s.kitty
    if s.kitty and m.config.final_kitty == "SPLIT_SOLVENT":
        left = (s.dealer + 1) % n
        clockwise = [(left + k) % n for k in range(n)]
        solvent = [p for p in clockwise if capitals[p] > 0]
        # Highest capital first; sorted() is stable, so ties stay clockwise from the left.
        solvent.sort(key=lambda p: -capitals[p])
        if solvent:
            shares = _split(s.kitty, solvent, n)
            discarded = 0
            capitals = [capitals[p] + shares[p] for p in range(n)]
    best = max(capitals)
    winners = tuple(p for p in range(n) if capitals[p] == best)
    ruined = [p for p in range(n) if s.capitals[p] <= 0]
    if ruined:
        reason = f"after hand {s.hand_number} " + ", ".join(
            f"seat {p} is ruined (capital {s.capitals[p]})" for p in ruined
        )
    else:
        reason = f"the hand limit ({m.config.max_hands}) was reached"
    return MatchEnded(
        winners=winners,
        capitals=tuple(capitals),
        kitty_shares=tuple(shares),
        kitty_discarded=discarded,
        hands_played=s.hand_number,
        reason=reason,
    )


# --------------------------------------------------------------------------------------------
# Evolving


def evolve(state: State | None, event: Event) -> State:
    """Apply one event to the state (pure; None only before MatchStarted)."""
    t = type(event)
    if t is CardPlayed:
        return _on_played(state, event)  # type: ignore[arg-type]
    if t is Passed or t is TurnSkipped:
        return _on_turn_lost(state, event)  # type: ignore[arg-type]
    handler = _HANDLERS.get(t)
    if handler is None:
        raise TypeError(f"not a Six Dozens event: {event!r}")
    return handler(state, event)


def _on_turn_lost(s: State, e: Passed | TurnSkipped) -> State:
    return State(
        s.match, s.table, s.hands, s.bank, s.pile, _next_holder(s.hands, e.seat), s.mover,
        False, e,
    )


def _on_played(s: State, e: CardPlayed) -> State:
    seat = e.seat
    card = e.card
    hands = list(s.hands)
    hands[seat] &= ~(1 << card.index)
    new_hands = tuple(hands)
    return State(
        s.match, s.table, new_hands, card,
        s.pile | (1 << s.bank.index),  # type: ignore[union-attr]
        _next_holder(new_hands, seat), seat,
        s.match.skip_on_seven and card.rank == 7,
        e,
    )


def _on_started(_: State | None, e: MatchStarted[Config]) -> State:
    n = len(e.players)
    m = Match(
        config=e.config,
        players=e.players,
        seed=e.seed,
        decks=e.decks,
        prearranged=e.prearranged,
        n=n,
        legal=_legal_table(e.config, n),
        deck_mask=mask_of(deck(e.config.deck)),
        skip_on_seven=e.config.seven == "SKIP",
    )
    table = Table(0, 0, 0, (), 0, (), (CAPITAL,) * n, 0, None)
    return State(m, table, (0,) * n, None, 0, None, 0, False, e)


def _on_dealer(s: State, e: FirstDealerChosen) -> State:
    t = s.table
    table = Table(t.hand_number, e.seat, t.first_mover, t.stock, t.aside, t.out_order,
                  t.capitals, t.kitty, t.result)
    return State(s.match, table, s.hands, s.bank, s.pile, s.turn, s.mover, s.skip_next, e)


def _on_dealt(s: State, e: Dealt) -> State:
    # SIX-5: the stock follows the bank in the deck; the rest is set aside. (A viewer's copy
    # has no deck: its stock and set-aside cards are unknown, and empty here.)
    n, size = s.match.n, HAND_SIZE[s.match.config.deck]
    start = n * size + 1
    end = start + STOCK_SIZE[n]
    hands = tuple(mask_of(h) for h in e.hands)
    t = s.table
    table = Table(e.number, e.dealer, t.first_mover, e.deck[start:end], mask_of(e.deck[end:]),
                  (), t.capitals, t.kitty, t.result)
    return State(s.match, table, hands, None, 0, None, 0, False, e)


def _on_bank(s: State, e: BankTurned) -> State:
    t = s.table
    table = Table(t.hand_number, t.dealer, e.first_mover, t.stock, t.aside, (), t.capitals,
                  t.kitty, t.result)
    # SIX-7: the first mover moves first, also after covers before the first turn.
    return State(s.match, table, s.hands, e.bank, 0, e.first_mover, e.first_mover, False, e)


def _on_out(s: State, e: PlayerOut) -> State:
    t = s.table
    table = Table(t.hand_number, t.dealer, t.first_mover, t.stock, t.aside,
                  (*t.out_order, e.seat), t.capitals, t.kitty, t.result)
    return State(s.match, table, s.hands, s.bank, s.pile, s.turn, s.mover, s.skip_next, e)


def _on_covered(s: State, e: BankCovered) -> State:
    t = s.table
    table = Table(t.hand_number, t.dealer, t.first_mover, t.stock[1:], t.aside, t.out_order,
                  t.capitals, t.kitty, t.result)
    # SIX-8, SIX-10: no check on the cover, the skip is cancelled, the last mover moves again.
    return State(
        s.match, table, s.hands, e.card,
        s.pile | (1 << s.bank.index),  # type: ignore[union-attr]
        s.mover, s.mover, False, e,
    )


def _on_settled(s: State, e: HandSettled) -> State:
    t = s.table
    table = Table(t.hand_number, t.dealer, t.first_mover, t.stock, t.aside, t.out_order,
                  e.capitals, e.kitty, t.result)
    return State(s.match, table, s.hands, s.bank, s.pile, None, s.mover, False, e)


def _on_ended(s: State, e: MatchEnded) -> State:
    t = s.table
    table = Table(t.hand_number, t.dealer, t.first_mover, t.stock, t.aside, t.out_order,
                  e.capitals, 0, e)
    return State(s.match, table, s.hands, s.bank, s.pile, None, s.mover, False, e)


_HANDLERS: dict[type, Callable[[Any, Any], State]] = {
    MatchStarted: _on_started,
    FirstDealerChosen: _on_dealer,
    Dealt: _on_dealt,
    BankTurned: _on_bank,
    PlayerOut: _on_out,
    BankCovered: _on_covered,
    HandSettled: _on_settled,
    MatchEnded: _on_ended,
}


# --------------------------------------------------------------------------------------------
# Queries


def legal_commands(state: State, seat: int) -> tuple[Play, ...]:
    """SIX-6, SIX-8: the cards `seat` may play now, by Card.index; () when not its turn."""
    if seat != state.turn or state.table.result is not None or state.bank is None:
        return ()
    mask = state.hands[seat] & state.match.legal[seat][state.bank.index]
    plays = _PLAYS
    out = []
    while mask:
        low = mask & -mask
        out.append(plays[low.bit_length() - 1])
        mask ^= low
    return tuple(out)


def to_act(state: State) -> int | None:
    """The seat whose card the match waits for; None once it is over."""
    return None if state.table.result is not None else state.turn


def view(state: State, viewer: int | None) -> View:
    """What `viewer` (a seat, or None for a spectator) may see: own hand, counts, the table."""
    m = state.match
    seat = viewer if viewer is not None and 0 <= viewer < m.n else None
    return View(
        seat=seat,
        players=m.players,
        to_act=to_act(state),
        hand=cards_of(state.hands[seat]) if seat is not None else (),
        hand_sizes=tuple(h.bit_count() for h in state.hands),
        hand_number=state.hand_number,
        dealer=state.dealer,
        finished=state.result is not None,
        bank=state.bank,
        stock_count=len(state.stock),
        kitty=state.kitty,
        capitals=state.capitals,
        out_order=state.out_order,
        trump_mode=m.config.trumps,
        trump_suits=m.config.trump_suits,
        first_mover=state.first_mover,
        skip_next=state.skip_next,
        last_play=describe(state.last) if state.last is not None else "",
    )


def redact(event: Event, viewer: int | None) -> Event | None:
    """The event as `viewer` may see it: seed, deck orders and others' hands removed."""
    if type(event) is Dealt:
        return redact_dealt(event, viewer)
    if type(event) is MatchStarted:
        return redact_started(event)
    return event


def outcome(state: State) -> Outcome | None:
    """SIX-12: winners (highest capital), final capitals and what happened to the kitty."""
    r = state.result
    if r is None:
        return None
    return Outcome(
        winners=r.winners,
        scores=r.capitals,
        reason=r.reason,
        details=(
            ("hands_played", str(r.hands_played)),
            ("kitty_discarded", str(r.kitty_discarded)),
            ("kitty_shares", " ".join(map(str, r.kitty_shares))),
        ),
    )


def zones(state: State) -> dict[str, tuple[Card, ...]]:
    """Where every card of the deck is: hands, bank, the pile under it, stock (top first), aside."""
    out = {f"hand/{p}": cards_of(h) for p, h in enumerate(state.hands)}
    out["bank"] = (state.bank,) if state.bank is not None else ()
    out["pile"] = cards_of(state.pile)
    out["stock"] = state.stock
    out["aside"] = cards_of(state.aside)
    return out


def hidden_zones(state: State, viewer: int | None) -> tuple[str, ...]:
    """The zones `viewer` may not see: the other hands, the stock and the set-aside cards."""
    hands = tuple(f"hand/{p}" for p in range(state.match.n) if p != viewer)
    return (*hands, "stock", "aside")


def with_zones(state: State, new: Mapping[str, Sequence[Card]]) -> State:
    """The state with its zones replaced (for tests that swap hidden cards)."""
    s = state
    t = s.table
    hands = tuple(mask_of(new[f"hand/{p}"]) for p in range(s.match.n))
    bank = tuple(new["bank"])
    table = Table(t.hand_number, t.dealer, t.first_mover, tuple(new["stock"]),
                  mask_of(new["aside"]), t.out_order, t.capitals, t.kitty, t.result)
    return State(s.match, table, hands, bank[0] if bank else None, mask_of(new["pile"]), s.turn,
                 s.mover, s.skip_next, s.last)


# --------------------------------------------------------------------------------------------
# Text


def _suits_text(v: View) -> str:
    if v.trump_mode == "NONE":
        return "no trumps"
    if v.trump_mode == "PERSONAL":
        return "personal trumps " + " ".join(
            f"{p}:{s.symbol}" for p, s in enumerate(v.trump_suits)
        )
    if v.trump_mode == "SENIOR_JUNIOR":
        return f"trumps {v.trump_suits[0].symbol} senior, {v.trump_suits[1].symbol} junior"
    return "trumps " + " ".join(s.symbol for s in v.trump_suits)


def render(v: View) -> str:
    """A plain-text table of the view (at most 78 columns)."""
    lines = [
        f"Six Dozens · hand {v.hand_number} · {_suits_text(v)}"[:78],
        (
            f"Bank: {v.bank.pretty if v.bank else '--'}   stock: {v.stock_count}   "
            f"kitty: {v.kitty}" + ("   (a 7 skips the next player)" if v.skip_next else "")
        )[:78],
    ]
    for p, name in enumerate(v.players):
        mark = ">" if v.to_act == p else " "
        notes = []
        if p == v.dealer:
            notes.append("dealer")
        if p == v.first_mover:
            notes.append("first mover")
        if p in v.out_order:
            notes.append(f"out {_PLACES[v.out_order.index(p) + 1]}")
        if p == v.seat:
            notes.append("you")
        cards_text = f"{v.hand_sizes[p]} card" + ("" if v.hand_sizes[p] == 1 else "s")
        lines.append(
            f"{mark} {p} {name[:16]:<16} {v.capitals[p]:>5} pts  {cards_text:<8} "
            f"{', '.join(notes)}"[:78].rstrip()
        )
    if v.seat is not None:
        lines.append(("Your hand: " + " ".join(c.pretty for c in v.hand))[:78])
    if v.last_play:
        lines.append(f"Last: {v.last_play}"[:78])
    if v.finished:
        best = max(v.capitals)
        won = [v.players[p][:16] for p, c in enumerate(v.capitals) if c == best]
        lines.append(f"The match is over: {' and '.join(won)} "
                     f"{'wins' if len(won) == 1 else 'share the win'} with {best}."[:78])
    return "\n".join(lines)


def _seats(seats: Sequence[int]) -> str:
    return ", ".join(f"seat {p}" for p in seats)


def describe(event: Event) -> str:
    """One readable line for an event (public parts only)."""
    e = event
    if isinstance(e, CardPlayed):
        return f"seat {e.seat} plays {e.card.code}"
    if isinstance(e, Passed):
        return f"seat {e.seat} passes (no legal card)"
    if isinstance(e, TurnSkipped):
        return f"seat {e.seat} loses a turn to the 7"
    if isinstance(e, PlayerOut):
        return f"seat {e.seat} is out ({_PLACES[e.place]})"
    if isinstance(e, BankCovered):
        return f"the stock covers the bank with {e.card.code}"
    if isinstance(e, Dealt):
        return f"hand {e.number}: seat {e.dealer} deals"
    if isinstance(e, BankTurned):
        return (
            f"{e.hand_size} cards each; bank {e.bank.code}, stock {e.stock_count}; "
            f"seat {e.first_mover} moves first"
        )
    if isinstance(e, HandSettled):
        parts = [f"seat {p} pays {x}" for p, x in enumerate(e.paid) if x]
        parts += [f"seat {p} gets {x}" for p, x in enumerate(e.received) if x]
        return (
            f"hand {e.hand_number} ends (condition {e.condition}): "
            + ("; ".join(parts) or "nobody pays")
            + f"; kitty {e.kitty}"
        )
    if isinstance(e, MatchEnded):
        who = _seats(e.winners)
        best = max(e.capitals)
        return f"match ends: {who} {'wins' if len(e.winners) == 1 else 'share the win'} with {best}"
    if isinstance(e, FirstDealerChosen):
        return f"seat {e.seat} deals first" + (" (by lot)" if e.by_lot else "")
    if isinstance(e, MatchStarted):
        c = e.config
        return (
            f"Six Dozens for {len(e.players)} players: deck {c.deck}, trumps {c.trumps}"
            + (" (prearranged decks)" if e.prearranged else "")
        )
    return repr(e)
