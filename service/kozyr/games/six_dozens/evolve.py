"""Six Dozens: applying one event to the state."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from kozyr.core.cards import mask_of
from kozyr.core.fast import constructor
from kozyr.games.contract import (
    Dealt,
    FirstDealerChosen,
    MatchStarted,
)
from kozyr.games.six_dozens.model import (
    CAPITAL,
    HAND_SIZE,
    STOCK_SIZE,
    BankCovered,
    BankTurned,
    CardPlayed,
    Config,
    Event,
    HandSettled,
    Match,
    MatchEnded,
    Passed,
    PlayerOut,
    State,
    Table,
    TurnSkipped,
)
from kozyr.games.six_dozens.tables import DECK_MASKS, legal_table, next_holder

# A state or two a move: the fast constructor (kozyr.core.fast), called by keyword.
_state: Final = constructor(State)
_table: Final = constructor(Table)

# --------------------------------------------------------------------------------------------
# Evolving


def evolve(state: State | None, event: Event) -> State:
    """Apply one event to the state (pure; None only before MatchStarted)."""
    t = type(event)
    if t is CardPlayed:
        return on_played(state, event)  # type: ignore[arg-type]
    if t is Passed or t is TurnSkipped:
        return _on_turn_lost(state, event)  # type: ignore[arg-type]
    handler = _HANDLERS.get(t)
    if handler is None:
        raise TypeError(f"not a Six Dozens event: {event!r}")
    return handler(state, event)


def _on_turn_lost(s: State, e: Passed | TurnSkipped) -> State:
    return _state(
        match=s.match,
        table=s.table,
        hands=s.hands,
        bank=s.bank,
        pile=s.pile,
        turn=next_holder(s.hands, e.seat),
        mover=s.mover,
        skip_next=False,
        last=e,
    )


def on_played(s: State, e: CardPlayed) -> State:
    """A card played (SIX-8): it becomes the bank, the old bank goes to the pile."""
    seat = e.seat
    card = e.card
    hands = list(s.hands)
    hands[seat] &= ~(1 << card.index)
    new_hands = tuple(hands)
    return _state(
        match=s.match,
        table=s.table,
        hands=new_hands,
        bank=card,
        pile=s.pile | (1 << s.bank.index),  # type: ignore[union-attr]
        turn=next_holder(new_hands, seat),
        mover=seat,
        skip_next=s.match.skip_on_seven and card.rank == 7,
        last=e,
    )


def on_started(_: State | None, e: MatchStarted[Config]) -> State:
    """The state a match starts in: nothing dealt, every seat with its capital (SIX-3)."""
    n = len(e.players)
    m = Match(
        config=e.config,
        players=e.players,
        seed=e.seed,
        decks=e.decks,
        prearranged=e.prearranged,
        n=n,
        legal=legal_table(e.config, n),
        deck_mask=DECK_MASKS[e.config.deck],
        skip_on_seven=e.config.seven == "SKIP",
    )
    table = _table(
        hand_number=0,
        dealer=0,
        first_mover=0,
        stock=(),
        aside=0,
        out_order=(),
        capitals=(CAPITAL,) * n,
        kitty=0,
        result=None,
    )
    return _state(
        match=m,
        table=table,
        hands=(0,) * n,
        bank=None,
        pile=0,
        turn=None,
        mover=0,
        skip_next=False,
        last=e,
    )


def on_dealer(s: State, e: FirstDealerChosen) -> State:
    """The first dealer chosen."""
    t = s.table
    table = _table(
        hand_number=t.hand_number,
        dealer=e.seat,
        first_mover=t.first_mover,
        stock=t.stock,
        aside=t.aside,
        out_order=t.out_order,
        capitals=t.capitals,
        kitty=t.kitty,
        result=t.result,
    )
    return _state(
        match=s.match,
        table=table,
        hands=s.hands,
        bank=s.bank,
        pile=s.pile,
        turn=s.turn,
        mover=s.mover,
        skip_next=s.skip_next,
        last=e,
    )


def on_dealt(s: State, e: Dealt) -> State:
    """A hand dealt: the hands, the stock and the cards set aside (SIX-5)."""
    # SIX-5: the stock follows the bank in the deck; the rest is set aside. (A viewer's copy
    # has no deck: its stock and set-aside cards are unknown, and empty here.)
    n, size = s.match.n, HAND_SIZE[s.match.config.deck]
    start = n * size + 1
    end = start + STOCK_SIZE[n]
    hands = tuple(mask_of(h) for h in e.hands)
    t = s.table
    table = _table(
        hand_number=e.number,
        dealer=e.dealer,
        first_mover=t.first_mover,
        stock=e.deck[start:end],
        aside=mask_of(e.deck[end:]),
        out_order=(),
        capitals=t.capitals,
        kitty=t.kitty,
        result=t.result,
    )
    return _state(
        match=s.match,
        table=table,
        hands=hands,
        bank=None,
        pile=0,
        turn=None,
        mover=0,
        skip_next=False,
        last=e,
    )


def on_bank(s: State, e: BankTurned) -> State:
    """The bank turned face up; the first mover moves (SIX-5, SIX-7)."""
    t = s.table
    table = _table(
        hand_number=t.hand_number,
        dealer=t.dealer,
        first_mover=e.first_mover,
        stock=t.stock,
        aside=t.aside,
        out_order=(),
        capitals=t.capitals,
        kitty=t.kitty,
        result=t.result,
    )
    # SIX-7: the first mover moves first, also after covers before the first turn.
    return _state(
        match=s.match,
        table=table,
        hands=s.hands,
        bank=e.bank,
        pile=0,
        turn=e.first_mover,
        mover=e.first_mover,
        skip_next=False,
        last=e,
    )


def on_out(s: State, e: PlayerOut) -> State:
    """A seat whose hand emptied is out for the rest of the hand (SIX-9)."""
    t = s.table
    table = _table(
        hand_number=t.hand_number,
        dealer=t.dealer,
        first_mover=t.first_mover,
        stock=t.stock,
        aside=t.aside,
        out_order=(*t.out_order, e.seat),
        capitals=t.capitals,
        kitty=t.kitty,
        result=t.result,
    )
    return _state(
        match=s.match,
        table=table,
        hands=s.hands,
        bank=s.bank,
        pile=s.pile,
        turn=s.turn,
        mover=s.mover,
        skip_next=s.skip_next,
        last=e,
    )


def on_covered(s: State, e: BankCovered) -> State:
    """The bank covered from the stock (SIX-10): the last mover moves again."""
    t = s.table
    table = _table(
        hand_number=t.hand_number,
        dealer=t.dealer,
        first_mover=t.first_mover,
        stock=t.stock[1:],
        aside=t.aside,
        out_order=t.out_order,
        capitals=t.capitals,
        kitty=t.kitty,
        result=t.result,
    )
    # SIX-8, SIX-10: no check on the cover, the skip is cancelled, the last mover moves again.
    return _state(
        match=s.match,
        table=table,
        hands=s.hands,
        bank=e.card,
        pile=s.pile | (1 << s.bank.index),  # type: ignore[union-attr]
        turn=s.mover,
        mover=s.mover,
        skip_next=False,
        last=e,
    )


def on_settled(s: State, e: HandSettled) -> State:
    """A hand settled: the capitals and the kitty after its payments (SIX-11)."""
    t = s.table
    table = _table(
        hand_number=t.hand_number,
        dealer=t.dealer,
        first_mover=t.first_mover,
        stock=t.stock,
        aside=t.aside,
        out_order=t.out_order,
        capitals=e.capitals,
        kitty=e.kitty,
        result=t.result,
    )
    return _state(
        match=s.match,
        table=table,
        hands=s.hands,
        bank=s.bank,
        pile=s.pile,
        turn=None,
        mover=s.mover,
        skip_next=False,
        last=e,
    )


def _on_ended(s: State, e: MatchEnded) -> State:
    t = s.table
    table = _table(
        hand_number=t.hand_number,
        dealer=t.dealer,
        first_mover=t.first_mover,
        stock=t.stock,
        aside=t.aside,
        out_order=t.out_order,
        capitals=e.capitals,
        kitty=0,
        result=e,
    )
    return _state(
        match=s.match,
        table=table,
        hands=s.hands,
        bank=s.bank,
        pile=s.pile,
        turn=None,
        mover=s.mover,
        skip_next=False,
        last=e,
    )


_HANDLERS: dict[type, Callable[[Any, Any], State]] = {
    MatchStarted: on_started,
    FirstDealerChosen: on_dealer,
    Dealt: on_dealt,
    BankTurned: on_bank,
    PlayerOut: on_out,
    BankCovered: on_covered,
    HandSettled: on_settled,
    MatchEnded: _on_ended,
}
