"""Dix's early endings: the forfeit (DIX-10) and the default decision (DIX-11). Pure."""

from __future__ import annotations

from kozyr.core.cards import Card
from kozyr.games.contract import Outcome
from kozyr.games.dix.model import Play, State
from kozyr.games.dix.show import legal_commands


def card_order(card: Card) -> tuple[int, int]:
    """DIX-11: lowest rank first (the joker above the ace), equal ranks in the order S H D C."""
    return int(card.rank), -1 if card.suit is None else int(card.suit)


def default_decision(state: State, seat: int) -> Play:
    """DIX-11: the lowest legal card of `seat` (whose decision it must be)."""
    return min(legal_commands(state, seat), key=lambda c: card_order(c.card))


def forfeit(state: State, seat: int) -> Outcome:
    """DIX-10: the seat that forfeits loses, the other wins; the totals as they stand."""
    other = 1 - seat
    return Outcome((other,), state.totals, f"seat {seat} forfeits: seat {other} wins (DIX-10)")


def guarded(state: State) -> bool:
    """True when the guard of R-5 ended the match (max_hands)."""
    return state.result is not None and "guard" in state.result.reason
