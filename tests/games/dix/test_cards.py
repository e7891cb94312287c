"""Dix's cards (DIX-1 … DIX-3): pip values and ranks, the deal and the turn-up, trumps and the
joker.
"""

from __future__ import annotations

import pytest

from kozyr.core.cards import JOKER, Suit, deck
from kozyr.core.fairness import RandomStream
from kozyr.games import IllegalMove, dix
from kozyr.games.dix import (
    Dealt,
    Play,
    TrickWon,
)
from tests.games.dix.scenarios import (
    ALL_HEARTS,
    ALL_SPADES,
    SWEEP_0,
    C,
    codes,
    deck_for,
    legal,
    new,
    one,
    play,
    play_hand,
    void_in,
)

# --------------------------------------------------------------------------- DIX-1 … DIX-3


@pytest.mark.parametrize(
    ("lead", "follow", "points"),
    [
        ("2H", "8H", -3),
        ("3H", "7H", -3),
        ("4H", "6H", -3),
        ("5H", "5S", -3),
        ("9H", "AH", -3),
        ("10H", "KH", -3),
        ("10H", "QH", -3),
        ("10H", "JH", -3),
        ("10H", "JK", -3),
        ("JH", "QH", 1),
        ("AH", "KH", 1),
        ("10H", "AH", 1),
        ("9H", "2H", 1),
    ],
)
def test_DIX_1_pip_values_make_ten_tricks(lead: str, follow: str, points: int) -> None:
    # The follower holds no other heart, so the planned card is legal; the turn-up 5D makes the
    # joker a diamond.
    state = new(deck_for(lead, follow, "5D", void_in("H", lead, follow)))
    state, _ = play(state, 0, lead)
    _, events = play(state, 1, follow)
    won = one(events, TrickWon)
    assert won.points == points
    assert won.ten is (points == -3)


def test_DIX_1_ace_is_the_highest_card_for_tricks() -> None:
    state = new(deck_for("KS", "AS", "2D"))
    state, _ = play(state, 0, "KS")
    _, events = play(state, 1, "AS")
    assert one(events, TrickWon).seat == 1


def test_DIX_2_deal_one_at_a_time_non_dealer_first() -> None:
    order = RandomStream(b"any", "test").shuffle(deck(53))
    state = new(order, first_dealer=0)
    view0, view1 = dix.view(state, 0), dix.view(state, 1)
    assert view1.hand == tuple(sorted(order[0:26:2]))  # seat 1 is the non-dealer: cards 1, 3, …
    assert view0.hand == tuple(sorted(order[1:26:2]))
    assert view0.turn_up == order[26]
    assert view0.stock_count == 26 and dix.zones(state)["stock"] == order[27:]
    assert view0.hand_sizes == (13, 13)


def test_DIX_2_turn_up_is_out_of_play_and_the_dealer_alternates() -> None:
    state = new(SWEEP_0, deck_for(ALL_SPADES, ALL_HEARTS, "2D"))
    assert state.info.turn_up == JOKER
    assert JOKER not in dix.view(state, 0).hand + dix.view(state, 1).hand
    state, log = play_hand(state)
    assert one(log, Dealt).dealer == 0  # hand 1 was dealt by seat 1
    assert dix.view(state, 0).dealer == 0
    # The turn-up 2D of hand 2 is held by nobody and cannot be played.
    assert C("2D") not in dix.view(state, 0).hand + dix.view(state, 1).hand
    with pytest.raises(IllegalMove) as info:
        dix.decide(state, 1, Play(C("2D")))
    assert info.value.code == "CARD_NOT_IN_HAND"


def test_DIX_3_turn_up_suit_is_trump() -> None:
    state = new(deck_for("AH", "2D", "9D", void_in("H", "AH")))
    assert dix.view(state, 0).trump is Suit.D
    state, _ = play(state, 0, "AH")
    assert legal(state, 1) == "AS 2D 3D 4D 5D 6D 7D 8D 10D JD QD KD AD"  # void: any card
    _, events = play(state, 1, "2D")
    assert one(events, TrickWon).seat == 1


@pytest.mark.parametrize(("other", "joker_wins"), [("8D", True), ("10D", False)])
def test_DIX_3_joker_plays_as_the_turn_up_card(other: str, joker_wins: bool) -> None:
    # Turn-up 9D: the joker is the nine of diamonds, trump.
    state = new(deck_for(f"{other} 2C", "JK 2H", "9D"))
    state, _ = play(state, 0, other)
    assert legal(state, 1) == "JK"  # the joker is seat 1's only diamond: it must follow
    state, events = play(state, 1, "JK")
    assert one(events, TrickWon).seat == (1 if joker_wins else 0)
    assert codes(dix.view(state, None).last_trick) == f"{other} JK"


def test_DIX_3_joker_turned_up_means_no_trump() -> None:
    state = new(deck_for("AH", "2S", "JK", void_in("H", "AH")))
    view = dix.view(state, 0)
    assert view.trump is None and view.turn_up == JOKER
    state, _ = play(state, 0, "AH")
    _, events = play(state, 1, "2S")
    assert one(events, TrickWon).seat == 0
