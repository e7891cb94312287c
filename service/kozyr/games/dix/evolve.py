"""Dix: applying one event to the state."""

from __future__ import annotations

from typing import Final, cast

from kozyr.core.cards import mask_of
from kozyr.core.fast import constructor
from kozyr.games.contract import (
    Dealt,
    FirstDealerChosen,
    MatchStarted,
    Outcome,
)
from kozyr.games.dix.model import (
    _STOCK_POS,
    CardPlayed,
    Config,
    Event,
    HandEnded,
    HandInfo,
    MatchEnded,
    MatchInfo,
    State,
    TrickWon,
    TurnedUp,
)
from kozyr.games.dix.tables import _BIT, _NO_HAND, _TABLES

# A state or two a move: made by the fast constructor (kozyr.core.fast).
_state: Final = constructor(State)
_hand_info: Final = constructor(HandInfo)


def evolve(state: State | None, event: Event) -> State:
    """Apply one event (state None only for MatchStarted)."""
    t = type(event)
    if state is None:
        if t is not MatchStarted:
            raise ValueError("a Dix match starts with MatchStarted")
        e0 = cast(MatchStarted[Config], event)
        match = MatchInfo(e0.config, e0.players, e0.seed, e0.decks, e0.prearranged)
        return _state(
            match,
            _NO_HAND,
            (0, 0),
            (0, 0),
            53,
            (),
            0,
            None,
            (0, 0),
            (0, 0),
            (),
            None,
            (0, 0),
            (0, 0),
            None,
        )
    s = state
    if t is CardPlayed:  # the hot path: inline
        e1 = cast(CardPlayed, event)
        seat = e1.seat
        card = e1.card
        keep = ~_BIT[card.index]
        h0, h1 = s.hands
        hands = (h0 & keep, h1) if seat == 0 else (h0, h1 & keep)
        trick = (*s.trick, card)
        turn = 1 - seat if len(trick) == 1 else None
        return _state(
            s.match,
            s.info,
            hands,
            s.won,
            s.pos,
            trick,
            s.leader,
            turn,
            s.tricks,
            s.tens,
            s.last_trick,
            s.last_winner,
            s.totals,
            s.match_tens,
            None,
        )
    if t is TrickWon:
        return _trick_won(s, cast(TrickWon, event))
    return _between_tricks(s, event)


def _trick_won(s: State, e2: TrickWon) -> State:
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
        return _state(
            s.match,
            s.info,
            (h0, h1),
            won,
            s.pos + 2,
            (),
            w,
            w,
            tricks,
            tens,
            cards,
            w,
            s.totals,
            s.match_tens,
            None,
        )
    return _state(
        s.match,
        s.info,
        s.hands,
        won,
        s.pos,
        (),
        w,
        w,
        tricks,
        tens,
        cards,
        w,
        s.totals,
        s.match_tens,
        None,
    )


def _between_tricks(s: State, event: Event) -> State:
    """The events around the play: deals, the turn-up, the end of a hand and of the match."""
    t = type(event)
    if t is Dealt:
        e3 = cast(Dealt, event)
        info = _hand_info(e3.number, e3.dealer, e3.deck, None, -1, (), (), ())
        hands = (mask_of(e3.hands[0]), mask_of(e3.hands[1]))
        return _state(
            s.match,
            info,
            hands,
            (0, 0),
            _STOCK_POS,
            (),
            0,
            None,
            (0, 0),
            (0, 0),
            (),
            None,
            s.totals,
            s.match_tens,
            None,
        )
    if t is TurnedUp:
        e7 = cast(TurnedUp, event)
        trump, esuit, erank, follow = _TABLES[e7.card.index]
        i0 = s.info
        info = _hand_info(i0.number, i0.dealer, i0.deck, e7.card, trump, esuit, erank, follow)
        return _state(
            s.match,
            info,
            s.hands,
            s.won,
            s.pos,
            (),
            e7.leader,
            e7.leader,
            s.tricks,
            s.tens,
            (),
            None,
            s.totals,
            s.match_tens,
            None,
        )
    if t is HandEnded:
        e4 = cast(HandEnded, event)
        match_tens = (s.match_tens[0] + e4.tens[0], s.match_tens[1] + e4.tens[1])
        return _state(
            s.match,
            s.info,
            s.hands,
            s.won,
            s.pos,
            s.trick,
            s.leader,
            None,
            e4.tricks,
            e4.tens,
            s.last_trick,
            s.last_winner,
            e4.totals,
            match_tens,
            None,
        )
    if t is MatchEnded:
        e5 = cast(MatchEnded, event)
        details = (
            ("hands", str(s.info.number)),
            ("ten_tricks_last_hand", f"{s.tens[0]}-{s.tens[1]}"),
            ("ten_tricks_match", f"{s.match_tens[0]}-{s.match_tens[1]}"),
            ("last_trick_winner", str(s.last_winner)),
        )
        result = Outcome((e5.winner,), e5.totals, e5.reason, details)
        return _state(
            s.match,
            s.info,
            s.hands,
            s.won,
            s.pos,
            s.trick,
            s.leader,
            None,
            s.tricks,
            s.tens,
            s.last_trick,
            s.last_winner,
            e5.totals,
            s.match_tens,
            result,
        )
    if t is FirstDealerChosen:
        e6 = cast(FirstDealerChosen, event)
        info = _hand_info(0, e6.seat, (), None, -1, (), (), ())
        return _state(
            s.match,
            info,
            s.hands,
            s.won,
            s.pos,
            s.trick,
            s.leader,
            None,
            s.tricks,
            s.tens,
            s.last_trick,
            s.last_winner,
            s.totals,
            s.match_tens,
            None,
        )
    raise ValueError(f"not a Dix event here: {event!r}")
