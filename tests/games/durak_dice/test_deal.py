"""Durak with dice's deal (DUR-1 … DUR-4): the decks, the trump, the dice deal and the first
attacker.
"""

from __future__ import annotations

import pytest

from kozyr.core import fairness
from kozyr.core.cards import Suit, deck, parse_card
from kozyr.games import durak_dice as D
from kozyr.games.contract import Setup
from tests.games.durak_dice.scenarios import (
    BASE2,
    BASE6,
    BASE6_HANDS,
    FOOL3_MOVES,
    SEED,
    TAKE,
    A,
    B,
    act,
    arrange,
    begin,
    cards,
    fool3_game,
    of_type,
    play,
    refused,
    setup_of,
    suit,
)

# --------------------------------------------------------------------------------------------
# DUR-1 … DUR-4: cards, trump, dice deal, first attacker


def test_DUR_1_deck_of_52_ranks_two_to_ace() -> None:
    hands = [
        suit("S", "2 3 4 5 6 7 8 9 10 J Q K A")
        + " "
        + suit("D", "J Q K A")
        + " "
        + suit("C", "2 3 4 5 6 7 8 9 10"),
        suit("H", "2 3 4 5 6 7 8 9 10 J Q K A")
        + " "
        + suit("D", "2 3 4 5 6 7 8 9 10")
        + " "
        + suit("C", "J Q K A"),
    ]
    game = arrange(1, hands, "AH", size=52)
    assert game[1] == (6, 6, 6, 6, 6, 6, 6, 6, 2, 2)
    state, events = begin(2, setup_of(1, game), deck=52)
    assert len(events[2].deck) == 52 and events[3].hand_sizes == (26, 26)
    assert events[4] == D.BoutStarted(1, 1, 0, "LOWEST_TRUMP")  # 2H is the lowest trump
    state, _ = act(state, 1, A("10D"))
    assert D.legal_commands(state, 0) == (B("JD"), B("QD"), B("KD"), B("AD"), TAKE)
    refused(state, 0, B("9S"), "CANNOT_BEAT")


def test_DUR_1_deck_of_36_has_no_low_cards() -> None:
    state, events = begin(2, BASE2)
    assert sorted(events[2].deck) == sorted(deck(36))
    refused(state, 1, A("2D"), "CARD_NOT_IN_HAND")


def test_DUR_2_top_card_is_trump_and_dealt_last() -> None:
    state, events = begin(3, Setup(first_dealer=0))
    dealt, turned = events[2], events[3]
    assert turned.card == dealt.deck[0]
    last_roller = dealt.rolls[-1][0]
    assert turned.card in dealt.hands[last_roller]
    v = D.view(state, None)
    assert v.trump == dealt.deck[0].suit and v.trump_card == dealt.deck[0]
    state, events = begin(2, BASE2)
    assert events[3].card == parse_card("AD") and D.view(state, 0).trump is Suit.D


def test_DUR_3_dice_deal_from_dealers_left_round_and_round() -> None:
    # Seat 1 rolls 1 each time; the last roll (6) finds only 3 cards left.
    state, events = begin(3, setup_of(2, fool3_game()))
    dealt = events[2]
    assert [s for s, _ in dealt.rolls] == [0, 1, 2] * 4 + [0, 1]
    assert dealt.rolls[-1] == (1, 6)  # recorded as thrown, though only 3 cards were left
    assert events[3].hand_sizes == (5, 27, 4) and sum(events[3].hand_sizes) == 36
    assert D.view(state, None).rolls == dealt.rolls


def test_DUR_3_rolls_past_the_prearranged_ones_come_from_the_stream() -> None:
    _, events = begin(2, Setup(first_dealer=0, dice=((1, 2, 3),)))
    rolls = [r for _, r in events[2].rolls]
    stream = fairness.RandomStream(SEED, fairness.dice_label(1))
    assert rolls[:3] == [1, 2, 3]
    assert rolls[3:] == [stream.die() for _ in rolls[3:]]
    assert [s for s, _ in events[2].rolls[:3]] == [1, 0, 1]


def test_DUR_4_lowest_trump_attacks_first_and_others_see_it() -> None:
    state, events = begin(6, BASE6)
    assert events[4] == D.BoutStarted(1, 0, 1, "LOWEST_TRUMP")  # 6H
    assert D.to_act(state) == 0
    assert D.legal_commands(state, 0) == tuple(D.Attack(c) for c in sorted(cards(BASE6_HANDS[0])))
    for seat in range(1, 6):
        assert D.legal_commands(state, seat) == ()


def test_DUR_4_lowest_card_when_nobody_holds_a_trump() -> None:
    # Cannot happen with a full deal (every trump is dealt); the rule is still implemented.
    hands = [cards("9S 7H"), cards("7S 8C"), cards("KH 7C")]
    assert D.first_attacker(hands, Suit.D, dealer=0) == (1, "LOWEST_CARD")
    assert D.first_attacker(hands, Suit.D, dealer=1) == (2, "LOWEST_CARD")
    assert D.first_attacker(hands, Suit.C, dealer=1) == (2, "LOWEST_TRUMP")


@pytest.mark.parametrize(
    ("next_first", "attacker", "defender"),
    [("UNDER_FOOL", 0, 1), ("FROM_UNDER_FOOL", 2, 0)],
)
def test_DUR_4_next_game_under_or_from_under_the_fool(
    next_first: str, attacker: int, defender: int
) -> None:
    state, _ = begin(3, setup_of(2, fool3_game()), games=2, next_first=next_first)
    state, events = play(state, *FOOL3_MOVES)
    assert of_type(events, D.GameEnded) == [D.GameEnded(1, 1, "FOOL")]
    dealt = of_type(events, D.Dealt)[0]
    assert dealt.number == 2 and dealt.dealer == 1  # the fool deals
    assert dealt.deck == fairness.RandomStream(SEED, fairness.deal_label(2)).shuffle(deck(36))
    assert events[-1] == D.BoutStarted(1, attacker, defender, next_first)
    v = D.view(state, None)
    assert (v.game_number, v.dealer, v.fools, v.out, v.table) == (2, 1, (0, 1, 0), (), ())
    assert D.to_act(state) == attacker and D.outcome(state) is None


def test_DUR_4_after_a_draw_same_dealer_and_lowest_trump() -> None:
    state, _ = begin(2, BASE2, games=2, max_bouts=1)
    state, events = play(state, (1, A("6C")), (0, TAKE))
    assert events[2] == D.GameEnded(1, None, "MAX_BOUTS")
    dealt = events[3]
    assert isinstance(dealt, D.Dealt) and (dealt.number, dealt.dealer) == (2, 1)
    assert dealt.rolls[0][0] == 0
    trump = events[4].card.suit
    holder = min(((c.rank, s) for s, h in enumerate(dealt.hands) for c in h if c.suit == trump))[1]
    assert events[5] == D.BoutStarted(1, holder, 1 - holder, "LOWEST_TRUMP")
    assert D.view(state, 0).draws == 1
