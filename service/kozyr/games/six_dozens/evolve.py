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
from kozyr.games.six_dozens.tables import _DECK_MASKS, _legal_table, _next_holder

# --------------------------------------------------------------------------------------------
# Evolving

# A state or two a move: made by the fast constructor (kozyr.core.fast).
_state: Final = constructor(State)
_table: Final = constructor(Table)


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
    return _state(
        s.match,
        s.table,
        s.hands,
        s.bank,
        s.pile,
        _next_holder(s.hands, e.seat),
        s.mover,
        False,
        e,
    )


def _on_played(s: State, e: CardPlayed) -> State:
    seat = e.seat
    card = e.card
    hands = list(s.hands)
    hands[seat] &= ~(1 << card.index)
    new_hands = tuple(hands)
    return _state(
        s.match,
        s.table,
        new_hands,
        card,
        s.pile | (1 << s.bank.index),  # type: ignore[union-attr]
        _next_holder(new_hands, seat),
        seat,
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
        deck_mask=_DECK_MASKS[e.config.deck],
        skip_on_seven=e.config.seven == "SKIP",
    )
    table = _table(0, 0, 0, (), 0, (), (CAPITAL,) * n, 0, None)
    return _state(m, table, (0,) * n, None, 0, None, 0, False, e)


def _on_dealer(s: State, e: FirstDealerChosen) -> State:
    t = s.table
    table = _table(
        t.hand_number,
        e.seat,
        t.first_mover,
        t.stock,
        t.aside,
        t.out_order,
        t.capitals,
        t.kitty,
        t.result,
    )
    return _state(s.match, table, s.hands, s.bank, s.pile, s.turn, s.mover, s.skip_next, e)


def _on_dealt(s: State, e: Dealt) -> State:
    # SIX-5: the stock follows the bank in the deck; the rest is set aside. (A viewer's copy
    # has no deck: its stock and set-aside cards are unknown, and empty here.)
    n, size = s.match.n, HAND_SIZE[s.match.config.deck]
    start = n * size + 1
    end = start + STOCK_SIZE[n]
    hands = tuple(mask_of(h) for h in e.hands)
    t = s.table
    table = _table(
        e.number,
        e.dealer,
        t.first_mover,
        e.deck[start:end],
        mask_of(e.deck[end:]),
        (),
        t.capitals,
        t.kitty,
        t.result,
    )
    return _state(s.match, table, hands, None, 0, None, 0, False, e)


def _on_bank(s: State, e: BankTurned) -> State:
    t = s.table
    table = _table(
        t.hand_number, t.dealer, e.first_mover, t.stock, t.aside, (), t.capitals, t.kitty, t.result
    )
    # SIX-7: the first mover moves first, also after covers before the first turn.
    return _state(s.match, table, s.hands, e.bank, 0, e.first_mover, e.first_mover, False, e)


def _on_out(s: State, e: PlayerOut) -> State:
    t = s.table
    table = _table(
        t.hand_number,
        t.dealer,
        t.first_mover,
        t.stock,
        t.aside,
        (*t.out_order, e.seat),
        t.capitals,
        t.kitty,
        t.result,
    )
    return _state(s.match, table, s.hands, s.bank, s.pile, s.turn, s.mover, s.skip_next, e)


def _on_covered(s: State, e: BankCovered) -> State:
    t = s.table
    table = _table(
        t.hand_number,
        t.dealer,
        t.first_mover,
        t.stock[1:],
        t.aside,
        t.out_order,
        t.capitals,
        t.kitty,
        t.result,
    )
    # SIX-8, SIX-10: no check on the cover, the skip is cancelled, the last mover moves again.
    return _state(
        s.match,
        table,
        s.hands,
        e.card,
        s.pile | (1 << s.bank.index),  # type: ignore[union-attr]
        s.mover,
        s.mover,
        False,
        e,
    )


def _on_settled(s: State, e: HandSettled) -> State:
    t = s.table
    table = _table(
        t.hand_number,
        t.dealer,
        t.first_mover,
        t.stock,
        t.aside,
        t.out_order,
        e.capitals,
        e.kitty,
        t.result,
    )
    return _state(s.match, table, s.hands, s.bank, s.pile, None, s.mover, False, e)


def _on_ended(s: State, e: MatchEnded) -> State:
    t = s.table
    table = _table(
        t.hand_number, t.dealer, t.first_mover, t.stock, t.aside, t.out_order, e.capitals, 0, e
    )
    return _state(s.match, table, s.hands, s.bank, s.pile, None, s.mover, False, e)


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
