"""Dix's tricks (DIX-4 … DIX-7): who leads, following suit, who wins a trick, drawing from the
stock.
"""

from __future__ import annotations

import pytest

from kozyr.core.cards import JOKER
from kozyr.games import IllegalMove, dix, fold
from kozyr.games.dix import (
    Dealt,
    HandEnded,
    Play,
    TrickWon,
    TurnedUp,
)
from tests.games.dix.scenarios import (
    SWEEP_0,
    C,
    deck_for,
    legal,
    new,
    one,
    play,
    play_hand,
    void_in,
)

# --------------------------------------------------------------------------- DIX-4 … DIX-7


def test_DIX_4_non_dealer_leads_and_the_trick_winner_leads_next() -> None:
    state = new(deck_for("5H 6H", "9H", "2C"))
    assert dix.to_act(state) == 0 and dix.view(state, 0).leader == 0
    assert dix.legal_commands(state, 1) == ()
    # The leader may lead any card: the whole hand is offered.
    assert len(dix.legal_commands(state, 0)) == 13
    state, _ = play(state, 0, "5H")
    state, _ = play(state, 1, "9H")
    assert dix.to_act(state) == 1 and dix.view(state, 1).leader == 1
    assert len(dix.legal_commands(state, 1)) == 13


def test_DIX_4_first_lead_dealer_option() -> None:
    state = new(SWEEP_0, first_lead="DEALER")
    assert dix.to_act(state) == 1 and dix.view(state, 1).dealer == 1
    state, log = play_hand(state)
    dealt = one(log, Dealt)
    assert (dealt.dealer, one(log, TurnedUp).leader) == (0, 0)  # the dealer leads every hand
    assert dix.to_act(state) == 0


def test_DIX_5_must_follow_suit_when_able() -> None:
    state = new(deck_for("5H", "9H 2H 3S JK", "7C", void_in("H", "5H", "9H", "2H")))
    state, _ = play(state, 0, "5H")
    assert legal(state, 1) == "2H 9H"
    with pytest.raises(IllegalMove) as info:
        dix.decide(state, 1, Play(C("3S")))
    assert info.value.code == "MUST_FOLLOW_SUIT"
    assert "♥" in info.value.message


def test_DIX_5_void_may_play_any_card_and_need_not_trump() -> None:
    state = new(
        deck_for("5H 6H", "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS 2C", "7C", void_in("H", "5H", "6H"))
    )
    state, _ = play(state, 0, "5H")
    assert legal(state, 1) == "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS 2C"
    _, events = play(state, 1, "2S")  # a discard, though it holds a trump
    assert one(events, TrickWon).seat == 0


def test_DIX_5_joker_must_follow_a_trump_lead() -> None:
    state = new(deck_for("8D", "JK 2H 3H", "9D"))
    state, _ = play(state, 0, "8D")
    assert legal(state, 1) == "JK"
    with pytest.raises(IllegalMove) as info:
        dix.decide(state, 1, Play(C("2H")))
    assert info.value.code == "MUST_FOLLOW_SUIT"


def test_DIX_5_joker_may_not_be_discarded_on_a_plain_lead_while_holding_the_suit() -> None:
    state = new(deck_for("5H", "JK 9H 2S", "9D", void_in("H", "5H", "9H")))
    state, _ = play(state, 0, "5H")
    assert legal(state, 1) == "9H"
    with pytest.raises(IllegalMove) as info:
        dix.decide(state, 1, Play(JOKER))
    assert info.value.code == "MUST_FOLLOW_SUIT"


def test_DIX_5_a_led_joker_asks_for_trumps() -> None:
    state = new(deck_for("JK", "AD 2D 2S", "9D"))
    state, _ = play(state, 0, "JK")
    assert legal(state, 1) == "2D AD"
    state, events = play(state, 1, "AD")
    assert one(events, TrickWon).seat == 1  # AD beats the joker playing as 9D


@pytest.mark.parametrize(
    ("lead", "follow", "winner"),
    [
        ("5H", "9H", 1),  # higher of the led suit
        ("9H", "5H", 0),  # lower of the led suit
        ("AH", "2C", 1),  # a trump on a plain lead
        ("2H", "AS", 0),  # another plain suit never wins
        ("3C", "2C", 0),  # trump lead, lower trump
        ("3C", "4C", 1),  # trump lead, higher trump
    ],
)
def test_DIX_6_trick_winner(lead: str, follow: str, winner: int) -> None:
    # Turn-up 7C: clubs are trump. To play another suit the follower is made void in the led one.
    void = void_in(lead[-1], lead, follow) if lead[-1] != follow[-1] else ""
    state = new(deck_for(lead, follow, "7C", void))
    state, _ = play(state, 0, lead)
    _, events = play(state, 1, follow)
    assert one(events, TrickWon).seat == winner


def test_DIX_7_winner_draws_first_then_the_loser() -> None:
    state = new(deck_for("5H", "9H", "7C", "KD QD"))
    state, _ = play(state, 0, "5H")
    state, events = play(state, 1, "9H")
    assert one(events, TrickWon).drawn == (C("QD"), C("KD"))  # by seat: seat 1 drew KD first
    assert C("KD") in dix.view(state, 1).hand and C("QD") in dix.view(state, 0).hand
    assert dix.view(state, 0).hand_sizes == (13, 13)
    assert dix.view(state, 0).stock_count == 24


def test_DIX_7_stock_runs_out_after_trick_13_and_a_hand_has_26_tricks() -> None:
    state = new(SWEEP_0, target=100)
    draws = []
    for trick in range(1, 27):
        for _ in range(2):
            seat = dix.to_act(state)
            events = dix.decide(state, seat, dix.legal_commands(state, seat)[0])
            state = fold(dix, events, state)
        won = one(events, TrickWon)
        draws.append(won.drawn)
        if trick == 13:
            assert dix.view(state, 0).stock_count == 0
            assert dix.view(state, 0).hand_sizes == (13, 13)
        if trick < 26:
            assert dix.view(state, 0).hand_sizes == (min(13, 26 - trick),) * 2
    assert all(len(d) == 2 for d in draws[:13]) and all(d == () for d in draws[13:])
    assert [type(e) for e in events][2:] == [HandEnded, Dealt, TurnedUp]
