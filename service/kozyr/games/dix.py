"""Dix (Дикс): a two-player trick-taking game with 52 cards and a joker, first to 50 points.

Rules: RULES.md "Dix" (DIX-1 … DIX-9) and the common rules R-1 … R-6. Each hand deals 13 cards
to each player and turns up the next card; its suit is trump and the joker plays as that very
card (DIX-3). Followers must follow the effective suit (DIX-5); the winner of a trick draws first
from the stock (DIX-7). A trick is worth +1, or −3 when its two pip values sum to ten (DIX-8).

Decisions where RULES.md is silent (documented here, tested in tests/games/test_dix.py):
- The lot of R-2 is ``RandomStream(seed, "first-dealer").randbelow(2)``: the seat it gives deals
  hand 1. It is recorded as `FirstDealerChosen` (``by_lot`` False when Setup fixed the dealer).
- Deck k: ``setup.decks[k-1]`` when given, else the shuffle of ``deal/k`` (R-1). Deal positions:
  the non-dealer gets cards 0, 2, …, 24 of the order, the dealer 1, 3, …, 25; card 26 is the
  turn-up; cards 27 … 52 are the stock, 27 on top.
- With `first_lead` DEALER the dealer leads trick 1 of *every* hand (DIX-4 changes only who leads
  trick 1; the dealer still alternates).
- The joker keeps pip value 0 even while it plays as the turn-up's card (DIX-1), so
  "10 + joker" is a ten-trick whatever the turn-up is.
- When the target is reached and the max_hands guard or single_hand also applies, the reason
  names the target; the winner is the same either way (one comparison, DIX-9).
- The comparison of DIX-9 always gives one winner: trick 26 always has a winner.
- View `totals` are the match totals before the hand in play; once a hand is scored (after the
  last trick of the match, in particular) they include it. `tricks`/`tens` stay those of the hand
  last played until the next deal.
- Before the first deal (a state that only exists between the opening events) the view shows
  hand 0, dealer 0 and no turn-up (`turn_up` is None then; always a card afterwards).
- While the events of one decision are being folded (after the follower's card and before
  `TrickWon`; between `HandEnded` and the next deal) nobody is to act: `to_act` is None though
  the match is not over, and `decide` answers NOT_YOUR_TURN.
- Events: a hand opens with the shared `Dealt` (base.py) and then `TurnedUp`, which makes the
  turn-up, trump and leader public: the viewer's copy of `Dealt` has no deck, so they cannot be
  derived from it. One `TrickWon` per trick carries both draws (`drawn`, by seat; empty once
  the stock is out) so a trick costs two card events and one result. Redaction hides the other
  seat's drawn card (None), the deck order and the other hand of `Dealt`, and the seed and
  decks of `MatchStarted`.

Speed: hands and won piles are 53-bit masks; effective suit and rank, follow masks and the
"Play" tuples per 13-bit suit pattern are precomputed, and the commands and card events are
interned (they are immutable), so a move allocates a state and at most one event.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Final, cast

from kozyr.cards import ALL_CARDS, Card, Suit, cards_of, deck, mask_of
from kozyr.fairness import RandomStream, deal_label
from kozyr.games.base import (
    CARD_NOT_IN_HAND,
    MATCH_OVER,
    NOT_A_SEAT,
    NOT_YOUR_TURN,
    UNKNOWN_COMMAND,
    Dealt,
    FirstDealerChosen,
    IllegalMove,
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
    OptionSpec("target", "int", 50,
               "DIX-9: the match ends after a hand in which a total reaches this",
               minimum=1, maximum=10_000, rule="DIX-9"),
    OptionSpec("first_lead", "enum", NON_DEALER,
               "DIX-4: who leads trick 1 of each hand", choices=(NON_DEALER, DEALER),
               rule="DIX-4"),
    OptionSpec("tiebreak_tens", "enum", LAST_HAND,
               "DIX-9: equal totals go to fewer ten-tricks in the last hand or the whole match",
               choices=(LAST_HAND, MATCH), rule="DIX-9"),
    OptionSpec("single_hand", "bool", False, "DIX-9: the match is one hand whatever the totals",
               rule="DIX-9"),
    OptionSpec("max_hands", "int", 30, "R-5: the match ends after this many hands",
               minimum=1, maximum=1_000, rule="R-5"),
)

HAND_SIZE: Final = 13
TRICKS_PER_HAND: Final = 26
_TURN_UP_POS: Final = 2 * HAND_SIZE  # 26: the card after the deal (DIX-2)
_STOCK_POS: Final = _TURN_UP_POS + 1  # 27: the top of the stock
_DECK: Final = deck(53)
_INDEX: Final = attrgetter("index")


# --------------------------------------------------------------------------- config, commands


@dataclass(frozen=True, slots=True)
class Config:
    """The options of a Dix match (RULES.md "DIX options")."""

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


Event = (MatchStarted[Config] | FirstDealerChosen | Dealt | TurnedUp | CardPlayed | TrickWon
         | HandEnded | MatchEnded)

COMMAND_TYPES: tuple[type, ...] = (Play,)
EVENT_TYPES: tuple[type, ...] = (
    MatchStarted[Config], FirstDealerChosen, Dealt, TurnedUp, CardPlayed, TrickWon, HandEnded,
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


# --------------------------------------------------------------------------- precomputed tables


def _pip(c: Card) -> int:
    """DIX-1: pip value for the ten-rule (A 1, 2..10 face, courts and joker 0)."""
    if c.suit is None or 11 <= c.rank <= 13:
        return 0
    return 1 if c.rank == 14 else int(c.rank)


_BIT: Final[tuple[int, ...]] = tuple(1 << i for i in range(53))
_PIP: Final[tuple[int, ...]] = tuple(_pip(c) for c in ALL_CARDS)
_PLAYS: Final[tuple[Play, ...]] = tuple(Play(c) for c in ALL_CARDS)
_PLAYED: Final[tuple[tuple[CardPlayed, ...], ...]] = tuple(
    tuple(CardPlayed(seat, c) for c in ALL_CARDS) for seat in (0, 1)
)
_SUITS: Final = tuple(Suit)


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


_TABLES: Final = tuple(_tables(c) for c in ALL_CARDS)


def _chunk(base: int) -> tuple[tuple[Play, ...], ...]:
    """The Play tuples (by card index) for each 13-bit pattern of cards base … base+12."""
    table: list[tuple[Play, ...]] = [()] * 8192
    for p in range(1, 8192):
        low = p & -p
        table[p] = (_PLAYS[base + low.bit_length() - 1], *table[p ^ low])
    return tuple(table)


_C0, _C1, _C2, _C3 = (_chunk(13 * k) for k in range(4))
_CJ: Final = ((), (_PLAYS[52],))


_NO_HAND: Final = HandInfo(0, 0, (), None, -1, (), (), ())


# --------------------------------------------------------------------------- the contract


def make_config(options: Mapping[str, object], players: int) -> Config:
    """R-6: validate the options of RULES.md "DIX options" for exactly two players."""
    check_players(TITLE, MIN_PLAYERS, MAX_PLAYERS, players)
    values = resolve_options(OPTIONS, options)
    return Config(
        target=cast(int, values["target"]),
        first_lead=cast(str, values["first_lead"]),
        tiebreak_tens=cast(str, values["tiebreak_tens"]),
        single_hand=cast(bool, values["single_hand"]),
        max_hands=cast(int, values["max_hands"]),
    )


def check_setup(config: Config, players: int, setup: Setup) -> None:
    """R-2, R-3: two players, a first dealer who is a seat, prearranged decks of the 53 cards."""
    check_players(TITLE, MIN_PLAYERS, MAX_PLAYERS, players)
    check_deal_setup(setup, players, _DECK, dice=False)


def start(
    config: Config, players: Sequence[str], seed: bytes, setup: Setup = Setup()  # noqa: B008
) -> tuple[Event, ...]:
    """R-1 … R-3, DIX-2: record the match, draw the first dealer by lot and deal hand 1."""
    check_setup(config, len(players), setup)
    started, chosen = start_events(config, players, seed, setup)
    match = MatchInfo(config, started.players, seed, started.decks, setup.prearranged)
    return (started, chosen, *_deal(match, 1, chosen.seat))


def _deal(match: MatchInfo, number: int, dealer: int) -> tuple[Dealt, TurnedUp]:
    """DIX-2: deal hand `number` from its deck (prearranged or shuffled from the seed, R-1)."""
    if number <= len(match.decks):
        order = match.decks[number - 1]
    else:
        order = RandomStream(match.seed, deal_label(number)).shuffle(_DECK)
    other = 1 - dealer
    hands: list[tuple[Card, ...]] = [(), ()]
    hands[other] = tuple(sorted(order[0:_TURN_UP_POS:2], key=_INDEX))
    hands[dealer] = tuple(sorted(order[1:_TURN_UP_POS:2], key=_INDEX))
    turn_up = order[_TURN_UP_POS]
    leader = dealer if match.config.first_lead == DEALER else other
    return (Dealt(number, dealer, tuple(order), (), (hands[0], hands[1])),
            TurnedUp(turn_up, turn_up.suit, leader))


def decide(state: State, seat: int, command: object) -> tuple[Event, ...]:
    """DIX-4 … DIX-9: the events of a play and its automatic consequences, or IllegalMove."""
    if seat != 0 and seat != 1:
        raise IllegalMove(NOT_A_SEAT, f"there is no seat {seat}: Dix seats are 0 and 1",
                          rule="DIX-4")
    if state.result is not None:
        raise IllegalMove(MATCH_OVER, "the match is over: no move can be made", rule="DIX-9")
    if seat != state.turn:
        raise IllegalMove(NOT_YOUR_TURN, _not_your_turn(state), rule="DIX-4")
    if type(command) is not Play and not isinstance(command, Play):
        raise IllegalMove(UNKNOWN_COMMAND,
                          f"Dix has no move {type(command).__name__}: play a card", rule="DIX-4")
    card = command.card
    if not isinstance(card, Card):
        raise IllegalMove(CARD_NOT_IN_HAND, f"{card!r} is not a card: play a card you hold",
                          rule="DIX-4")
    i = card.index
    bit = _BIT[i]
    hand = state.hands[seat]
    if not hand & bit:
        raise IllegalMove(CARD_NOT_IN_HAND, f"you do not hold {card.code}: play a card you hold",
                          rule="DIX-4")
    trick = state.trick
    if not trick:
        return (_PLAYED[seat][i],)
    # DIX-5: follow the led card's effective suit if you can (the joker counts as trump).
    lead = trick[0]
    li = lead.index
    info = state.info
    need = info.follow[li]
    if not need & bit and hand & need:
        raise IllegalMove(
            MUST_FOLLOW_SUIT,
            f"you must follow suit: you hold {_SUITS[info.esuit[li]].symbol} "
            f"({lead.code} was led)",
            rule="DIX-5",
        )
    # DIX-6: the follower wins with a higher card of the led suit or a trump on a plain lead.
    es = info.esuit
    if es[i] == es[li]:
        winner = seat if info.erank[i] > info.erank[li] else 1 - seat
    else:
        winner = seat if es[i] == info.trump else 1 - seat
    ten = _PIP[li] + _PIP[i] == 10
    pos = state.pos
    if pos < 53:  # DIX-7: the winner draws first, then the loser
        top = info.deck[pos]
        second = info.deck[pos + 1]
        drawn: tuple[Card | None, ...] = (top, second) if winner == 0 else (second, top)
    else:
        drawn = ()
    won = TrickWon(winner, (lead, card), -3 if ten else 1, ten, drawn)
    tricks = state.tricks
    if tricks[0] + tricks[1] < TRICKS_PER_HAND - 1:
        return (_PLAYED[seat][i], won)
    return (_PLAYED[seat][i], won, *_end_hand(state, winner, ten))


def _not_your_turn(state: State) -> str:
    if state.turn is None:
        return "it is not your turn: nobody is to play now"
    return f"it is not your turn: seat {state.turn} is to play"


def _end_hand(state: State, last: int, ten: bool) -> tuple[Event, ...]:
    """DIX-8/DIX-9: score the hand after its last trick, then end the match or deal again."""
    t0, t1 = state.tricks
    n0, n1 = state.tens
    if last == 0:
        t0 += 1
        n0 += ten
    else:
        t1 += 1
        n1 += ten
    points = (t0 - 4 * n0, t1 - 4 * n1)  # +1 per trick, −3 instead for a ten-trick
    totals = (state.totals[0] + points[0], state.totals[1] + points[1])
    info = state.info
    ended = HandEnded(info.number, (t0, t1), (n0, n1), points, last, totals)
    config = state.match.config
    if max(totals) >= config.target:
        cause = f"a total reached the target of {config.target}"
    elif config.single_hand:
        cause = "the single hand has been played"
    elif info.number >= config.max_hands:
        cause = f"the guard of {config.max_hands} hands was reached"
    else:
        return (ended, *_deal(state.match, info.number + 1, 1 - info.dealer))
    if config.tiebreak_tens == MATCH:
        tens = (state.match_tens[0] + n0, state.match_tens[1] + n1)
        where = "in the match"
    else:
        tens = (n0, n1)
        where = "in the last hand"
    winner, why = _compare(totals, tens, where, last)
    return ended, MatchEnded(winner, totals, f"{cause}; {why}.")


def _compare(
    totals: tuple[int, int], tens: tuple[int, int], where: str, last: int
) -> tuple[int, str]:
    """DIX-9: higher total, then fewer ten-tricks, then the winner of the last trick."""
    if totals[0] != totals[1]:
        w = 0 if totals[0] > totals[1] else 1
        return w, f"seat {w} has the higher total, {totals[w]} to {totals[1 - w]}"
    if tens[0] != tens[1]:
        w = 0 if tens[0] < tens[1] else 1
        return w, (f"totals are equal at {totals[0]}; seat {w} took fewer ten-tricks {where}, "
                   f"{tens[w]} to {tens[1 - w]}")
    return last, (f"totals ({totals[0]}) and ten-tricks {where} ({tens[0]}) are equal; "
                  f"seat {last} won the last trick")


def evolve(state: State | None, event: Event) -> State:
    """Apply one event (state None only for MatchStarted)."""
    t = type(event)
    if state is None:
        if t is not MatchStarted:
            raise ValueError("a Dix match starts with MatchStarted")
        e0 = cast(MatchStarted[Config], event)
        match = MatchInfo(e0.config, e0.players, e0.seed, e0.decks, e0.prearranged)
        return State(match, _NO_HAND, (0, 0), (0, 0), 53, (), 0, None, (0, 0), (0, 0), (), None,
                     (0, 0), (0, 0), None)
    s = state
    if t is CardPlayed:
        e1 = cast(CardPlayed, event)
        seat = e1.seat
        card = e1.card
        keep = ~_BIT[card.index]
        h0, h1 = s.hands
        hands = (h0 & keep, h1) if seat == 0 else (h0, h1 & keep)
        trick = (*s.trick, card)
        turn = 1 - seat if len(trick) == 1 else None
        return State(s.match, s.info, hands, s.won, s.pos, trick, s.leader, turn, s.tricks,
                     s.tens, s.last_trick, s.last_winner, s.totals, s.match_tens, None)
    if t is TrickWon:
        e2 = cast(TrickWon, event)
        w = e2.seat
        cards = e2.cards
        taken = _BIT[cards[0].index] | _BIT[cards[1].index]
        w0, w1 = s.won
        t0, t1 = s.tricks
        n0, n1 = s.tens
        if w == 0:
            won = (w0 | taken, w1)
            tricks = (t0 + 1, t1)
            tens = (n0 + e2.ten, n1) if e2.ten else s.tens
        else:
            won = (w0, w1 | taken)
            tricks = (t0, t1 + 1)
            tens = (n0, n1 + e2.ten) if e2.ten else s.tens
        drawn = e2.drawn
        if drawn:
            h0, h1 = s.hands
            d0, d1 = drawn
            if d0 is not None:
                h0 |= _BIT[d0.index]
            if d1 is not None:
                h1 |= _BIT[d1.index]
            return State(s.match, s.info, (h0, h1), won, s.pos + 2, (), w, w, tricks, tens,
                         cards, w, s.totals, s.match_tens, None)
        return State(s.match, s.info, s.hands, won, s.pos, (), w, w, tricks, tens, cards, w,
                     s.totals, s.match_tens, None)
    if t is Dealt:
        e3 = cast(Dealt, event)
        info = HandInfo(e3.number, e3.dealer, e3.deck, None, -1, (), (), ())
        hands = (mask_of(e3.hands[0]), mask_of(e3.hands[1]))
        return State(s.match, info, hands, (0, 0), _STOCK_POS, (), 0, None, (0, 0), (0, 0), (),
                     None, s.totals, s.match_tens, None)
    if t is TurnedUp:
        e7 = cast(TurnedUp, event)
        trump, esuit, erank, follow = _TABLES[e7.card.index]
        i0 = s.info
        info = HandInfo(i0.number, i0.dealer, i0.deck, e7.card, trump, esuit, erank, follow)
        return State(s.match, info, s.hands, s.won, s.pos, (), e7.leader, e7.leader, s.tricks,
                     s.tens, (), None, s.totals, s.match_tens, None)
    if t is HandEnded:
        e4 = cast(HandEnded, event)
        match_tens = (s.match_tens[0] + e4.tens[0], s.match_tens[1] + e4.tens[1])
        return State(s.match, s.info, s.hands, s.won, s.pos, s.trick, s.leader, None,
                     e4.tricks, e4.tens, s.last_trick, s.last_winner, e4.totals, match_tens,
                     None)
    if t is MatchEnded:
        e5 = cast(MatchEnded, event)
        details = (
            ("hands", str(s.info.number)),
            ("ten_tricks_last_hand", f"{s.tens[0]}-{s.tens[1]}"),
            ("ten_tricks_match", f"{s.match_tens[0]}-{s.match_tens[1]}"),
            ("last_trick_winner", str(s.last_winner)),
        )
        result = Outcome((e5.winner,), e5.totals, e5.reason, details)
        return State(s.match, s.info, s.hands, s.won, s.pos, s.trick, s.leader, None, s.tricks,
                     s.tens, s.last_trick, s.last_winner, e5.totals, s.match_tens, result)
    if t is FirstDealerChosen:
        e6 = cast(FirstDealerChosen, event)
        info = HandInfo(0, e6.seat, (), None, -1, (), (), ())
        return State(s.match, info, s.hands, s.won, s.pos, s.trick, s.leader, None, s.tricks,
                     s.tens, s.last_trick, s.last_winner, s.totals, s.match_tens, None)
    raise ValueError(f"not a Dix event here: {event!r}")


def legal_commands(state: State, seat: int) -> tuple[Play, ...]:
    """DIX-4/DIX-5: any card to lead; to follow, the led effective suit if held, else any."""
    if seat != state.turn:
        return ()
    hand = state.hands[seat]
    trick = state.trick
    if trick:
        same = hand & state.info.follow[trick[0].index]
        if same:
            hand = same
    # The Play tuples of the four 13-bit suit patterns and the joker, ordered by card index.
    return (_C0[hand & 8191] + _C1[(hand >> 13) & 8191] + _C2[(hand >> 26) & 8191]
            + _C3[(hand >> 39) & 8191] + _CJ[hand >> 52])


def to_act(state: State) -> int | None:
    """The seat to play, None once the match is over."""
    return state.turn


def view(state: State, viewer: int | None) -> View:
    """What `viewer` sees: own hand, counts, the table, the turn-up, scores (never the stock)."""
    s = state
    info = s.info
    seat = viewer if viewer in (0, 1) else None
    turn_up = info.turn_up
    return View(
        seat=seat,
        players=s.match.players,
        to_act=s.turn,
        hand=() if seat is None else cards_of(s.hands[seat]),
        hand_sizes=(s.hands[0].bit_count(), s.hands[1].bit_count()),
        hand_number=info.number,
        dealer=info.dealer,
        finished=s.result is not None,
        turn_up=turn_up,
        trump=None if info.trump < 0 else Suit(info.trump),
        stock_count=53 - s.pos,
        trick=s.trick,
        leader=s.leader,
        totals=s.totals,
        tricks=s.tricks,
        tens=s.tens,
        last_trick=s.last_trick,
        last_trick_winner=s.last_winner,
        target=s.match.config.target,
    )


def redact(event: Event, viewer: int | None) -> Event | None:
    """The event as `viewer` sees it: no seed or deck order, no other seat's cards."""
    t = type(event)
    if t is TrickWon:
        e = cast(TrickWon, event)
        if not e.drawn:
            return e
        d0, d1 = e.drawn
        drawn = (d0 if viewer == 0 else None, d1 if viewer == 1 else None)
        return TrickWon(e.seat, e.cards, e.points, e.ten, drawn)
    if t is Dealt:
        return redact_dealt(cast(Dealt, event), viewer)
    if t is MatchStarted:
        return redact_started(cast(MatchStarted[Config], event))
    return event


def outcome(state: State) -> Outcome | None:
    """DIX-9: the winner and the final totals once the match is over."""
    return state.result


# --------------------------------------------------------------------------- text


def _seat_name(players: tuple[str, ...], seat: int) -> str:
    name = players[seat] if seat < len(players) else ""
    return f"{name[:16]} (seat {seat})" if name else f"seat {seat}"


def render(v: View) -> str:
    """A plain-text table of a view: scores, turn-up, stock, the trick, the hands."""
    trump = "none" if v.trump is None else v.trump.letter
    turn_up = v.turn_up.code if v.turn_up is not None else "-"
    lines = [
        f"Dix  hand {v.hand_number}  dealer {_seat_name(v.players, v.dealer)}  "
        f"target {v.target}",
        f"Turn-up {turn_up}  trump {trump}  stock {v.stock_count}",
    ]
    for seat in (0, 1):
        you = " (you)" if seat == v.seat else ""
        lines.append(
            f"{_seat_name(v.players, seat)}{you}: total {v.totals[seat]}, "
            f"tricks {v.tricks[seat]}, ten-tricks {v.tens[seat]}, "
            f"{v.hand_sizes[seat]} cards"
        )
    if v.trick:
        lines.append(f"Trick: {' '.join(c.code for c in v.trick)}  (led by seat {v.leader})")
    elif not v.finished:
        lines.append(f"Trick: -  (seat {v.leader} leads)")
    if v.last_trick:
        lines.append(f"Last trick: {' '.join(c.code for c in v.last_trick)}  "
                     f"won by seat {v.last_trick_winner}")
    if v.seat is not None:
        lines.append(f"Your hand: {' '.join(c.code for c in v.hand) or '-'}")
    if v.finished:
        lines.append("The match is over.")
    elif v.to_act is not None:
        lines.append(f"To play: {_seat_name(v.players, v.to_act)}"
                     + (" - you" if v.to_act == v.seat else ""))
    return "\n".join(line[:78] for line in lines)


def describe(event: Event) -> str:
    """One readable line for an event."""
    if isinstance(event, CardPlayed):
        return f"seat {event.seat} plays {event.card.code}"
    if isinstance(event, TrickWon):
        cards = " ".join(c.code for c in event.cards)
        kind = ", a ten-trick" if event.ten else ""
        text = f"seat {event.seat} wins the trick {cards} ({event.points:+d}{kind})"
        if event.drawn:
            first = event.seat
            draws = ", ".join(
                f"seat {s} draws {'a card' if event.drawn[s] is None else event.drawn[s]}"
                for s in (first, 1 - first)
            )
            text += f"; {draws}"
        return text
    if isinstance(event, Dealt):
        return f"hand {event.number}: seat {event.dealer} deals"
    if isinstance(event, TurnedUp):
        trump = "no trump" if event.trump is None else f"trump {event.trump.letter}"
        return f"turn-up {event.card.code} ({trump}); seat {event.leader} leads"
    if isinstance(event, HandEnded):
        return (f"hand {event.hand_number} ends: tricks {event.tricks[0]}-{event.tricks[1]}, "
                f"ten-tricks {event.tens[0]}-{event.tens[1]}, points "
                f"{event.points[0]:+d} {event.points[1]:+d}; totals "
                f"{event.totals[0]}-{event.totals[1]}")
    if isinstance(event, MatchEnded):
        return (f"seat {event.winner} wins the match "
                f"{event.totals[0]}-{event.totals[1]}: {event.reason}")
    if isinstance(event, FirstDealerChosen):
        how = "by lot" if event.by_lot else "as set up"
        return f"seat {event.seat} deals first ({how})"
    if isinstance(event, MatchStarted):
        c = event.config
        mark = ", prearranged decks" if event.prearranged else ""
        return (f"Dix match starts: {' vs '.join(event.players)}; target {c.target}, "
                f"first lead {c.first_lead}, tiebreak {c.tiebreak_tens}, single hand "
                f"{str(c.single_hand).lower()}, max hands {c.max_hands}{mark}")
    return repr(event)


# --------------------------------------------------------------------------- test support


def zones(state: State) -> dict[str, tuple[Card, ...]]:
    """Where every card of the hand is: hands, stock (top first), turn-up, trick, won piles."""
    info = state.info
    if info.turn_up is None:
        return {"undealt": _DECK}
    return {
        "hand0": cards_of(state.hands[0]),
        "hand1": cards_of(state.hands[1]),
        "stock": info.deck[state.pos:],
        "turn_up": (info.turn_up,),
        "trick": state.trick,
        "won0": cards_of(state.won[0]),
        "won1": cards_of(state.won[1]),
    }


def hidden_zones(state: State, viewer: int | None) -> tuple[str, ...]:
    """The zones `viewer` may not see: the other hand(s) and the stock."""
    if viewer == 0:
        return ("hand1", "stock")
    if viewer == 1:
        return ("hand0", "stock")
    return ("hand0", "hand1", "stock", "undealt")


def with_zones(state: State, new: Mapping[str, tuple[Card, ...]]) -> State:
    """The state with its cards placed as `new` says (same zones as `zones` returns)."""
    info = state.info
    if info.turn_up is None:
        return state
    if new["turn_up"] != (info.turn_up,):
        raise ValueError("the turn-up cannot move: it fixes the hand's trump")
    deck_ = (*info.deck[: state.pos], *new["stock"])
    moved = HandInfo(info.number, info.dealer, deck_, info.turn_up, info.trump, info.esuit,
                     info.erank, info.follow)
    s = state
    return State(s.match, moved, (mask_of(new["hand0"]), mask_of(new["hand1"])),
                 (mask_of(new["won0"]), mask_of(new["won1"])), s.pos, tuple(new["trick"]), s.leader,
                 s.turn, s.tricks, s.tens, s.last_trick, s.last_winner, s.totals, s.match_tens,
                 s.result)
