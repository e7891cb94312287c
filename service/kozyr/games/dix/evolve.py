"""Dix: applying one event to the state."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, cast

from kozyr.core.cards import mask_of
from kozyr.core.fast import constructor, replacer
from kozyr.games.contract import (
    Dealt,
    FirstDealerChosen,
    MatchStarted,
    Outcome,
)
from kozyr.games.dix.model import (
    STOCK_POS,
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
from kozyr.games.dix.tables import BIT, NO_HAND, TABLES

# A state or two a move: the fast constructor (kozyr.core.fast), called by keyword.
_state: Final = constructor(State)
_hand_info: Final = constructor(HandInfo)
# The handlers that change the same few fields every time say which (core.fast.replacer): every
# other field is the state's own, read in one place, not written out at every call.
_on_card: Final = replacer(State, "hands", "trick", "turn")
_on_trick: Final = replacer(
    State, "won", "trick", "leader", "turn", "tricks", "tens", "last_trick", "last_winner"
)
_on_trick_drawn: Final = replacer(
    State,
    "hands",
    "won",
    "pos",
    "trick",
    "leader",
    "turn",
    "tricks",
    "tens",
    "last_trick",
    "last_winner",
)
_on_hand_ended: Final = replacer(State, "turn", "tricks", "tens", "totals", "match_tens")
_on_match_ended: Final = replacer(State, "turn", "totals", "result")
_on_first_dealer: Final = replacer(State, "info", "turn")


def evolve(state: State | None, event: Event) -> State:
    """Apply one event (state None only for MatchStarted)."""
    t = type(event)
    if state is None:
        if t is not MatchStarted:
            raise ValueError("a Dix match starts with MatchStarted")
        e0 = cast(MatchStarted[Config], event)
        match = MatchInfo(
            config=e0.config,
            players=e0.players,
            seed=e0.seed,
            decks=e0.decks,
            prearranged=e0.prearranged,
        )
        return _state(
            match=match,
            info=NO_HAND,
            hands=(0, 0),
            won=(0, 0),
            pos=53,
            trick=(),
            leader=0,
            turn=None,
            tricks=(0, 0),
            tens=(0, 0),
            last_trick=(),
            last_winner=None,
            totals=(0, 0),
            match_tens=(0, 0),
            result=None,
        )
    s = state
    if t is CardPlayed:  # the hot path: inline
        e1 = cast(CardPlayed, event)
        seat = e1.seat
        card = e1.card
        keep = ~BIT[card.index]
        h0, h1 = s.hands
        hands = (h0 & keep, h1) if seat == 0 else (h0, h1 & keep)
        trick = (*s.trick, card)
        turn = 1 - seat if len(trick) == 1 else None
        return _on_card(s, hands=hands, trick=trick, turn=turn)
    if t is TrickWon:
        return _trick_won(s, cast(TrickWon, event))
    between = _BETWEEN_TRICKS.get(t)
    if between is None:
        raise ValueError(f"not a Dix event here: {event!r}")
    return between(s, event)


def _trick_won(s: State, e2: TrickWon) -> State:
    w = e2.seat
    cards = e2.cards
    taken = BIT[cards[0].index] | BIT[cards[1].index]
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
            h0 |= BIT[d0.index]
        if d1 is not None:
            h1 |= BIT[d1.index]
        return _on_trick_drawn(
            s,
            hands=(h0, h1),
            won=won,
            pos=s.pos + 2,
            trick=(),
            leader=w,
            turn=w,
            tricks=tricks,
            tens=tens,
            last_trick=cards,
            last_winner=w,
        )
    return _on_trick(
        s,
        won=won,
        trick=(),
        leader=w,
        turn=w,
        tricks=tricks,
        tens=tens,
        last_trick=cards,
        last_winner=w,
    )


def _dealt(s: State, e3: Dealt) -> State:
    """A hand dealt: the new hand's hands, the stock at its top (DIX-2)."""
    info = _hand_info(
        number=e3.number,
        dealer=e3.dealer,
        deck=e3.deck,
        turn_up=None,
        trump=-1,
        esuit=(),
        erank=(),
        follow=(),
    )
    hands = (mask_of(e3.hands[0]), mask_of(e3.hands[1]))
    return _state(
        match=s.match,
        info=info,
        hands=hands,
        won=(0, 0),
        pos=STOCK_POS,
        trick=(),
        leader=0,
        turn=None,
        tricks=(0, 0),
        tens=(0, 0),
        last_trick=(),
        last_winner=None,
        totals=s.totals,
        match_tens=s.match_tens,
        result=None,
    )


def _turned_up(s: State, e7: TurnedUp) -> State:
    """The turn-up card names the trumps; the leader leads (DIX-3, DIX-4)."""
    trump, esuit, erank, follow = TABLES[e7.card.index]
    i0 = s.info
    info = _hand_info(
        number=i0.number,
        dealer=i0.dealer,
        deck=i0.deck,
        turn_up=e7.card,
        trump=trump,
        esuit=esuit,
        erank=erank,
        follow=follow,
    )
    return _state(
        match=s.match,
        info=info,
        hands=s.hands,
        won=s.won,
        pos=s.pos,
        trick=(),
        leader=e7.leader,
        turn=e7.leader,
        tricks=s.tricks,
        tens=s.tens,
        last_trick=(),
        last_winner=None,
        totals=s.totals,
        match_tens=s.match_tens,
        result=None,
    )


def _hand_ended(s: State, e4: HandEnded) -> State:
    """A hand scored: the totals and ten-tricks after it (DIX-8)."""
    match_tens = (s.match_tens[0] + e4.tens[0], s.match_tens[1] + e4.tens[1])
    return _on_hand_ended(
        s, turn=None, tricks=e4.tricks, tens=e4.tens, totals=e4.totals, match_tens=match_tens
    )


def _match_ended(s: State, e5: MatchEnded) -> State:
    """The match over: its outcome (DIX-9)."""
    details = (
        ("hands", str(s.info.number)),
        ("ten_tricks_last_hand", f"{s.tens[0]}-{s.tens[1]}"),
        ("ten_tricks_match", f"{s.match_tens[0]}-{s.match_tens[1]}"),
        ("last_trick_winner", str(s.last_winner)),
    )
    result = Outcome(winners=(e5.winner,), scores=e5.totals, reason=e5.reason, details=details)
    return _on_match_ended(s, turn=None, totals=e5.totals, result=result)


def _first_dealer(s: State, e6: FirstDealerChosen) -> State:
    """The first dealer chosen, before any deal."""
    info = _hand_info(
        number=0, dealer=e6.seat, deck=(), turn_up=None, trump=-1, esuit=(), erank=(), follow=()
    )
    return _on_first_dealer(s, info=info, turn=None)


# The events around the play: deals, the turn-up, the end of a hand and of the match.
_BETWEEN_TRICKS: Final[dict[type, Callable[[State, Any], State]]] = {
    Dealt: _dealt,
    TurnedUp: _turned_up,
    HandEnded: _hand_ended,
    MatchEnded: _match_ended,
    FirstDealerChosen: _first_dealer,
}
