"""Six Dozens scenarios on prearranged decks: the helpers and deals the rule tests share
(RULES.md SIX-1 … SIX-13, R-1 … R-6).

Hands are written per seat; `order` turns them into the deck order the deal (SIX-5: one card at
a time clockwise from the dealer's left) needs, followed by the bank, the stock and the rest.
Most scenarios play without trumps so that only the rule under test decides what is legal.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from typing import Any

import pytest

from kozyr.core.cards import Card, deck, parse_card, parse_cards
from kozyr.games import six_dozens as sd
from kozyr.games.contract import Game, IllegalMove, Setup, fold

GAME: Game = sd  # the module satisfies the Game contract


# ------------------------------------------------------------------------------------ helpers


def order(
    players: int, dealer: int, hands: Sequence[str], bank: str, stock: str, size: int = 36
) -> tuple[Card, ...]:
    """The deck order (top first) that deals `hands` by seat, then the bank and the stock."""
    dealt = [parse_cards(h) for h in hands]
    per = sd.HAND_SIZE[size]
    assert all(len(h) == per for h in dealt), [len(h) for h in dealt]
    out: list[Card] = []
    for r in range(per):
        for k in range(players):
            out.append(dealt[(dealer + 1 + k) % players][r])
    out.append(parse_card(bank))
    out.extend(parse_cards(stock))
    assert len(set(out)) == len(out)
    return (*out, *(c for c in deck(size) if c not in out))


def new(
    players: int,
    hands: Sequence[str] = (),
    bank: str = "",
    stock: str = "",
    first_dealer: int | None = None,
    more: Sequence[tuple[Card, ...]] = (),
    seed: bytes = b"six",
    **options: object,
) -> tuple[sd.State, list[Any]]:
    """A started match on the given first deal (and further prearranged decks).

    Without hands the deal comes from the seed, and the first dealer by lot unless given.
    """
    config = sd.make_config(options, players)
    decks: tuple[tuple[Card, ...], ...] = ()
    if hands:
        first_dealer = first_dealer or 0
        decks = (order(players, first_dealer, hands, bank, stock, config.deck), *more)
    events = list(
        sd.start(
            config,
            [f"p{i}" for i in range(players)],
            seed,
            Setup(first_dealer=first_dealer, decks=decks),
        )
    )
    return fold(sd, events), events


def play(state: sd.State, seat: int, code: str) -> tuple[sd.State, list[Any]]:
    """Seat plays a card; the new state and the events (automatic ones included)."""
    events = list(sd.decide(state, seat, sd.Play(parse_card(code))))
    return fold(sd, events, state), events


def legal(state: sd.State) -> str:
    """The cards the seat to act may play, as codes."""
    seat = sd.to_act(state)
    assert seat is not None
    return " ".join(c.card.code for c in sd.legal_commands(state, seat))


def names(events: Sequence[Any]) -> list[str]:
    return [sd.describe(e) for e in events]


def of(events: Sequence[Any], cls: type) -> list[Any]:
    return [e for e in events if type(e) is cls]


def hand(state: sd.State, seat: int) -> str:
    return " ".join(c.code for c in sd.view(state, seat).hand)


def illegal(state: sd.State, seat: int, command: object, code: str) -> None:
    """The command is refused with `code` and the state is unchanged."""
    before = pickle.dumps(state)
    with pytest.raises(IllegalMove) as info:
        sd.decide(state, seat, command)
    assert info.value.code == code
    assert info.value.message
    assert pickle.dumps(state) == before


NONE = {"trumps": "NONE"}

# Two players, dealer 1: seat 0 holds the 6s and 8s and sheds them all while seat 1 passes.
SHEDDER = (["6S 6H 6D 6C 8S 8H 8D 8C", "KH QH JH 9H KD QD JD 9D"], "AS", "KC QC JC 10C 9C")

# Two players, nobody can play on the bank or any stock card: the hand ends before a move.
BLOCKED_2 = (["10D 10C KS KH KD KC QS QH", "QD QC JS JH JD JC 9S 9H"], "8S", "8H 8D 8C AS AH")

# Three and four players, 28 cards: no 8s, 7s or 6s in any hand, 8s on the table.
BLOCKED_3 = (
    ["10H 10D 10C KS KH KD", "KC QS QH QD QC JS", "JH JD JC 9S 9H 9D"],
    "8S",
    "8H 8D 8C AS",
)
BLOCKED_4 = (
    ["AS AH AD AC 10S 10H", "10D 10C KS KH KD KC", "QS QH QD QC JS JH", "JD JC 9S 9H 9D 9C"],
    "8S",
    "8H 8D 8C",
)

# Three players, 28 cards, dealer 0 (checked by hand): seat 0 goes out, seats 1 and 2 are stuck.
STUCK_3 = (["8H 9H QH 9D 8C 9C", "10S JS AS AH QD JC", "10H 10D KD 10C KC AC"], "JH", "JD 8D KH AD")
STUCK_3_MOVES = [(0, "9H"), (0, "8C"), (0, "8H"), (0, "9D"), (0, "9C"), (0, "QH"), (1, "QD")]
