"""Dix scenarios: the helpers, decks and policies the rule tests share (RULES.md "Dix", DIX-1 …
DIX-9, and R-1 … R-6).

Most tests run on prearranged decks built by `deck_for` from the hands they need. With
`first_dealer=1` (the default here) seat 0 is the non-dealer and leads trick 1.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kozyr.core.cards import JOKER, Card, deck, parse_card, parse_cards
from kozyr.games import Setup, dix, fold
from kozyr.games.dix import (
    HandEnded,
    Play,
    TrickWon,
)

State = Any
Policy = Callable[[State, int, tuple[Play, ...]], Play]

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
ALL_SPADES = "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS"
ALL_HEARTS = "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH"
# Diamond on top, then club, and so on: the winner of every trick draws the diamond.
D_THEN_C = " ".join(f"{r}D {r}C" for r in RANKS)


def C(code: str) -> Card:
    return parse_card(code)


def deck_for(non_dealer: str, dealer: str, turn_up: str, stock: str = "") -> tuple[Card, ...]:
    """A deck order dealing these cards (hands filled up, then the stock, from unused cards)."""
    nd, dl, st = list(parse_cards(non_dealer)), list(parse_cards(dealer)), list(parse_cards(stock))
    up = C(turn_up)
    named = [*nd, *dl, up, *st]
    assert len(set(named)) == len(named), "a card is named twice"
    rest = [c for c in deck(53) if c not in named]
    while len(nd) < 13:
        nd.append(rest.pop(0))
    while len(dl) < 13:
        dl.append(rest.pop(0))
    st += rest
    order: list[Card] = [JOKER] * 53
    order[0:26:2] = nd
    order[1:26:2] = dl
    order[26] = up
    order[27:] = st
    assert sorted(order) == sorted(deck(53))
    return tuple(order)


def void_in(suit: str, *named: str) -> str:
    """Every card of a suit except the named ones (put in the stock to make a hand void)."""
    return " ".join(c.code for c in deck(52) if c.code.endswith(suit) and c.code not in named)


def new(
    *decks: tuple[Card, ...],
    first_dealer: int | None = 1,
    seed: bytes = b"dix-test",
    **options: object,
) -> State:
    config = dix.make_config(options, 2)
    events = dix.start(config, ("ann", "bob"), seed, Setup(first_dealer=first_dealer, decks=decks))
    return fold(dix, events)


def play(state: State, seat: int, code: str) -> tuple[State, tuple[Any, ...]]:
    events = dix.decide(state, seat, Play(C(code)))
    return fold(dix, events, state), events


def codes(cards: Sequence[Card | None]) -> str:
    return " ".join("?" if c is None else c.code for c in cards)


def legal(state: State, seat: int) -> str:
    return codes([p.card for p in dix.legal_commands(state, seat)])


def lowest(state: State, seat: int, options: tuple[Play, ...]) -> Play:
    return options[0]


def pip(card: Card) -> int:
    if card.code == "JK" or card.code[0] in "JQK":
        return 0
    return 1 if card.code[0] == "A" else int(card.code[:-1])


def make_ten(state: State, seat: int, options: tuple[Play, ...]) -> Play:
    """Follow with a card that makes a ten-trick when one can."""
    if state.trick:
        for p in options:
            if pip(p.card) + pip(state.trick[0]) == 10:
                return p
    return options[0]


def avoid_ten(state: State, seat: int, options: tuple[Play, ...]) -> Play:
    """Follow with the lowest card that does not make a ten-trick, if any."""
    if state.trick:
        for p in options:
            if pip(p.card) + pip(state.trick[0]) != 10:
                return p
    return options[0]


def play_hand(state: State, policy: Policy = lowest) -> tuple[State, list[Any]]:
    """Play the hand in progress to its end with `policy`; the state after its last trick."""
    log: list[Any] = []
    hand = state.info.number
    for _ in range(52):
        seat = dix.to_act(state)
        assert seat is not None
        events = dix.decide(state, seat, policy(state, seat, dix.legal_commands(state, seat)))
        log.extend(events)
        state = fold(dix, events, state)
        if any(isinstance(e, HandEnded) for e in events):
            assert sum(isinstance(e, TrickWon) for e in log) == 26
            return state, log
        assert state.info.number == hand
    raise AssertionError("the hand did not end after 52 plays")


def one(events: Sequence[Any], cls: type) -> Any:
    found = [e for e in events if isinstance(e, cls)]
    assert len(found) == 1, found
    return found[0]


# Hand 1: seat 0 (spades, then diamonds) wins all 26 tricks against seat 1 (hearts, then clubs).
SWEEP_0 = deck_for(ALL_SPADES, ALL_HEARTS, "JK", D_THEN_C)
# Hand 2 (seat 0 deals): seat 1 sweeps in the same way.
SWEEP_1 = deck_for(ALL_SPADES, ALL_HEARTS, "JK", D_THEN_C)
