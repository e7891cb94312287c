"""Dix scenarios, one or more per rule of RULES.md "Dix" (DIX-1 … DIX-9) and R-1 … R-6.

Most tests run on prearranged decks built by `deck_for` from the hands they need. With
`first_dealer=1` (the default here) seat 0 is the non-dealer and leads trick 1.
"""

from __future__ import annotations

import json
import pickle
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from kozyr.core.cards import ALL_CARDS, JOKER, Card, Suit, deck, parse_card, parse_cards
from kozyr.core.fairness import FIRST_DEALER, RandomStream, deal_label
from kozyr.games import Game, IllegalMove, InvalidOptions, Setup, dix, fold
from kozyr.games.codec import Registry, class_of, encode
from kozyr.games.dix import (
    CardPlayed,
    Dealt,
    FirstDealerChosen,
    HandEnded,
    MatchEnded,
    MatchStarted,
    Play,
    TrickWon,
    TurnedUp,
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


# --------------------------------------------------------------------------- the contract


def test_module_satisfies_the_game_contract() -> None:
    game: Game = dix
    assert (game.NAME, game.TITLE, game.MIN_PLAYERS, game.MAX_PLAYERS) == ("dix", "Dix", 2, 2)
    assert game.RULES_VERSION == "2026.11"
    assert tuple(game.COMMAND_TYPES) == (Play,)
    assert set(game.EVENT_TYPES) == {
        MatchStarted[dix.Config],
        FirstDealerChosen,
        Dealt,
        TurnedUp,
        CardPlayed,
        TrickWon,
        HandEnded,
        MatchEnded,
    }
    assert [(o.name, o.default) for o in game.OPTIONS] == [
        ("target", 50),
        ("first_lead", "NON_DEALER"),
        ("tiebreak_tens", "LAST_HAND"),
        ("single_hand", False),
        ("max_hands", 30),
    ]


# --------------------------------------------------------------------------- R-1 … R-6


def test_R_1_deck_is_the_seeded_shuffle_recorded_in_the_deal() -> None:
    state = new(first_dealer=None, seed=b"s1")
    events = dix.start(dix.make_config({}, 2), ("a", "b"), b"s1")
    dealt = one(events, Dealt)
    expected = RandomStream(b"s1", deal_label(1)).shuffle(deck(53))
    assert dealt.deck == expected and dealt.rolls == ()
    assert one(events, TurnedUp).card == expected[26]
    dealer = dealt.dealer
    assert dealt.hands[1 - dealer] == tuple(sorted(expected[0:26:2]))
    assert dealt.hands[dealer] == tuple(sorted(expected[1:26:2]))
    assert state.info.deck == expected
    assert one(events, MatchStarted).prearranged is False


def test_R_1_later_hands_shuffle_from_their_own_label() -> None:
    state = new(SWEEP_0, seed=b"s2")  # only hand 1 prearranged
    _, log = play_hand(state)
    nxt = one(log, Dealt)
    assert nxt.number == 2
    assert nxt.deck == RandomStream(b"s2", deal_label(2)).shuffle(deck(53))


def test_R_2_first_dealer_by_lot_from_the_seed() -> None:
    for seed in (b"a", b"b", b"c", b"d", b"e", b"f"):
        events = dix.start(dix.make_config({}, 2), ("a", "b"), seed)
        lot = RandomStream(seed, FIRST_DEALER).randbelow(2)
        assert events[1] == FirstDealerChosen(lot, True)
        assert events[2].dealer == lot


def test_R_2_explicit_first_dealer() -> None:
    events = dix.start(dix.make_config({}, 2), ("a", "b"), b"x", Setup(first_dealer=0))
    assert events[1] == FirstDealerChosen(0, False)
    assert one(events, Dealt).dealer == 0 and one(events, TurnedUp).leader == 1
    with pytest.raises(InvalidOptions) as info:
        dix.start(dix.make_config({}, 2), ("a", "b"), b"x", Setup(first_dealer=2))
    assert info.value.code == "BAD_FIRST_DEALER"


def test_R_3_prearranged_match_is_marked() -> None:
    events = dix.start(dix.make_config({}, 2), ("a", "b"), b"x", Setup(decks=(SWEEP_0,)))
    started = events[0]
    assert started.prearranged is True and started.decks == (SWEEP_0,)
    assert one(events, Dealt).deck == SWEEP_0


@pytest.mark.parametrize(
    "bad",
    [
        SWEEP_0[:52],  # the joker missing
        (*SWEEP_0[:52], SWEEP_0[0]),  # a card twice
        (*SWEEP_0, C("2S")),  # 54 cards
    ],
)
def test_R_3_bad_prearranged_deck_is_refused(bad: tuple[Card, ...]) -> None:
    with pytest.raises(InvalidOptions) as info:
        dix.start(dix.make_config({}, 2), ("a", "b"), b"x", Setup(decks=(SWEEP_0, bad)))
    assert info.value.code == "BAD_DECK"


def test_R_4_even_a_single_legal_card_is_the_seats_move() -> None:
    state = new(SWEEP_0, target=100)
    for _ in range(50):  # 25 tricks
        seat = dix.to_act(state)
        state = fold(dix, dix.decide(state, seat, dix.legal_commands(state, seat)[0]), state)
    assert state.tricks == (25, 0)
    assert dix.to_act(state) == 0 and legal(state, 0) == "AD"
    state, events = play(state, 0, "AD")
    assert events == (CardPlayed(0, C("AD")),)
    assert dix.to_act(state) == 1 and legal(state, 1) == "AC"
    # The last play brings the automatic trick, the score and the next deal.
    state, events = play(state, 1, "AC")
    assert [type(e) for e in events] == [CardPlayed, TrickWon, HandEnded, Dealt, TurnedUp]


def test_R_5_max_hands_guard_ends_the_match() -> None:
    state = new(SWEEP_0, max_hands=1)
    state, log = play_hand(state)
    end = one(log, MatchEnded)
    assert end.totals == (18, 0) and end.winner == 0
    assert "guard of 1 hands" in end.reason
    assert dix.outcome(state).winners == (0,)
    assert dix.to_act(state) is None


def test_R_6_defaults_and_values_from_the_wire() -> None:
    assert dix.make_config({}, 2) == dix.Config(50, "NON_DEALER", "LAST_HAND", False, 30)
    config = dix.make_config(
        {
            "target": "7",
            "first_lead": "DEALER",
            "tiebreak_tens": "MATCH",
            "single_hand": "true",
            "max_hands": 3,
        },
        2,
    )
    assert config == dix.Config(7, "DEALER", "MATCH", True, 3)


@pytest.mark.parametrize(
    ("options", "players", "code"),
    [
        ({"trump": "S"}, 2, "UNKNOWN_OPTION"),
        ({"target": 0}, 2, "BAD_OPTION_VALUE"),
        ({"target": "fifty"}, 2, "BAD_OPTION_VALUE"),
        ({"target": True}, 2, "BAD_OPTION_VALUE"),
        ({"max_hands": 0}, 2, "BAD_OPTION_VALUE"),
        ({"first_lead": "WINNER"}, 2, "BAD_OPTION_VALUE"),
        ({"tiebreak_tens": "NONE"}, 2, "BAD_OPTION_VALUE"),
        ({"single_hand": "maybe"}, 2, "BAD_OPTION_VALUE"),
        ({}, 1, "BAD_PLAYER_COUNT"),
        ({}, 3, "BAD_PLAYER_COUNT"),
    ],
)
def test_R_6_bad_options_are_refused(options: dict[str, object], players: int, code: str) -> None:
    with pytest.raises(InvalidOptions) as info:
        dix.make_config(options, players)
    assert info.value.code == code and info.value.message


def test_R_6_start_refuses_a_wrong_player_count() -> None:
    with pytest.raises(InvalidOptions) as info:
        dix.start(dix.make_config({}, 2), ("a", "b", "c"), b"x")
    assert info.value.code == "BAD_PLAYER_COUNT"


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


# --------------------------------------------------------------------------- DIX-8, DIX-9


def test_DIX_8_hand_score_plus_one_per_trick_minus_three_per_ten_trick() -> None:
    state = new(SWEEP_0, target=100)
    state, log = play_hand(state)
    tens = [e for e in log if isinstance(e, TrickWon) and e.ten]
    assert [codes(e.cards) for e in tens] == ["5S 5H", "5D 5C"]
    assert all(e.points == -3 for e in tens)
    ended = one(log, HandEnded)
    assert ended == HandEnded(1, (26, 0), (2, 0), (18, 0), 0, (18, 0))
    view = dix.view(state, 0)
    assert view.totals == (18, 0) and view.hand_number == 2 and view.tricks == (0, 0)


def test_DIX_9_target_reached_higher_total_wins() -> None:
    state = new(SWEEP_0, target=18)
    state, log = play_hand(state)
    end = one(log, MatchEnded)
    assert (end.winner, end.totals) == (0, (18, 0))
    assert "target of 18" in end.reason and "higher total" in end.reason
    out = dix.outcome(state)
    assert out is not None and out.winners == (0,) and out.scores == (18, 0)
    assert dix.view(state, None).finished


def test_DIX_9_below_target_the_next_hand_is_dealt() -> None:
    state = new(SWEEP_0, target=19)
    state, log = play_hand(state)
    assert not any(isinstance(e, MatchEnded) for e in log)
    assert dix.outcome(state) is None and dix.view(state, 0).hand_number == 2


def test_DIX_9_totals_carry_over_and_may_go_negative() -> None:
    state = new(SWEEP_0, target=50)
    state, log = play_hand(state, make_ten)
    ended = one(log, HandEnded)
    assert ended.tens == (21, 0) and ended.points == (26 - 4 * 21, 0) == (-58, 0)
    assert dix.view(state, 1).totals == (-58, 0)
    assert dix.outcome(state) is None


def test_DIX_9_single_hand_ends_after_the_first_hand() -> None:
    state = new(SWEEP_0, single_hand=True)
    state, log = play_hand(state, make_ten)
    end = one(log, MatchEnded)
    assert (end.winner, end.totals) == (1, (-58, 0))
    assert "single hand" in end.reason


def two_hand_match(policy: Policy, **options: object) -> tuple[State, list[Any]]:
    """Seat 0 sweeps hand 1, seat 1 sweeps hand 2 alike: equal totals after two hands."""
    state = new(SWEEP_0, SWEEP_1, max_hands=2, **options)
    state, log1 = play_hand(state, policy)
    assert dix.to_act(state) == 1
    state, log2 = play_hand(state, policy)
    return state, log1 + log2


def test_DIX_9_equal_totals_fewer_ten_tricks_in_the_last_hand_wins() -> None:
    _, log = two_hand_match(lowest)
    first, second = (e for e in log if isinstance(e, HandEnded))
    assert first.points == (18, 0) and second.points == (0, 18)
    end = one(log, MatchEnded)
    assert end.totals == (18, 18) and end.winner == 0  # 0 ten-tricks in hand 2 against 2
    assert "fewer ten-tricks in the last hand" in end.reason
    assert "guard of 2 hands" in end.reason


def test_DIX_9_tiebreak_tens_match_counts_every_hand() -> None:
    state, log = two_hand_match(lowest, tiebreak_tens="MATCH")
    end = one(log, MatchEnded)
    # 2 ten-tricks each over the match: the winner of the last trick (seat 1) wins.
    assert end.totals == (18, 18) and end.winner == 1
    assert "won the last trick" in end.reason
    assert dict(dix.outcome(state).details)["ten_tricks_match"] == "2-2"


def test_DIX_9_equal_totals_and_ten_tricks_go_to_the_last_trick_winner() -> None:
    _, log = two_hand_match(avoid_ten)
    assert all(e.tens == (0, 0) for e in log if isinstance(e, HandEnded))
    end = one(log, MatchEnded)
    assert end.totals == (26, 26) and end.winner == 1
    assert "seat 1 won the last trick" in end.reason


# --------------------------------------------------------------------------- illegal moves


def test_illegal_moves_have_stable_codes_and_change_nothing() -> None:
    @dataclass(frozen=True)
    class Pass:
        pass

    state = new(deck_for("5H 2S", "9H 3S", "7C"))
    cases: list[tuple[State, int, object, str]] = [
        (state, 2, Play(C("5H")), "NOT_A_SEAT"),
        (state, -1, Play(C("5H")), "NOT_A_SEAT"),
        (state, 1, Play(C("9H")), "NOT_YOUR_TURN"),
        (state, 1, Pass(), "NOT_YOUR_TURN"),
        (state, 0, Pass(), "UNKNOWN_COMMAND"),
        (state, 0, Play(C("9H")), "CARD_NOT_IN_HAND"),
        (state, 0, Play(C("7C")), "CARD_NOT_IN_HAND"),  # the turn-up
    ]
    led, _ = play(state, 0, "5H")
    cases += [
        (led, 1, Play(C("3S")), "MUST_FOLLOW_SUIT"),
        (led, 1, Play(C("5H")), "CARD_NOT_IN_HAND"),
        (led, 0, Play(C("2S")), "NOT_YOUR_TURN"),
    ]
    over, _ = play_hand(new(SWEEP_0, single_hand=True))
    cases += [(over, 0, Play(C("2S")), "MATCH_OVER"), (over, 3, Play(C("2S")), "NOT_A_SEAT")]
    for st, seat, command, code in cases:
        frozen = pickle.dumps(st)
        with pytest.raises(IllegalMove) as info:
            dix.decide(st, seat, command)
        assert info.value.code == code, (seat, command)
        # A reason a player can act on, the rule apart: "<reason> (DIX-n): <detail>" in a UI.
        assert ": " in info.value.message and info.value.rule.startswith("DIX-")
        assert pickle.dumps(st) == frozen
    assert dix.legal_commands(over, 0) == dix.legal_commands(over, 1) == ()


# --------------------------------------------------------------------------- views and events


def test_view_shows_own_hand_and_the_public_table_only() -> None:
    state = new(deck_for("5H", "9H", "7C", "KD QD"))
    state, _ = play(state, 0, "5H")
    v0, v1, spec = dix.view(state, 0), dix.view(state, 1), dix.view(state, None)
    assert v0.seat == 0 and C("5H") not in v0.hand and len(v0.hand) == 12
    assert v1.hand[0] == C("AS") and C("9H") in v1.hand and v1.hand == tuple(sorted(v1.hand))
    assert spec.seat is None and spec.hand == ()
    for v in (v0, v1, spec):
        assert v.trick == (C("5H"),) and v.to_act == 1 and v.leader == 0
        assert v.turn_up == C("7C") and v.trump is Suit.C and v.stock_count == 26
        assert v.hand_sizes == (12, 13) and v.players == ("ann", "bob") and v.target == 50
        assert v.totals == (0, 0) and v.tricks == (0, 0) and v.tens == (0, 0)
        assert v.last_trick == () and v.last_trick_winner is None and not v.finished
    encoded = json.dumps(encode(v0))
    assert "KD" not in encoded and "QD" not in encoded and "9H" not in encoded
    state, _ = play(state, 1, "9H")
    v = dix.view(state, 0)
    assert (v.last_trick, v.last_trick_winner, v.tricks) == ((C("5H"), C("9H")), 1, (0, 1))


def test_redact_hides_the_seed_the_deck_and_other_seats_cards() -> None:
    config = dix.make_config({}, 2)
    events = dix.start(config, ("ann", "bob"), b"secret", Setup(first_dealer=1, decks=(SWEEP_0,)))
    for viewer in (0, 1, None):
        started = dix.redact(events[0], viewer)
        assert started.seed == b"" and started.decks == ((),) and started.prearranged
        assert dix.redact(events[1], viewer) == events[1]
        dealt = dix.redact(events[2], viewer)
        assert isinstance(dealt, Dealt) and dealt.deck == ()
        assert dix.redact(events[3], viewer) == events[3] == TurnedUp(JOKER, None, 0)
        for seat in (0, 1):
            assert dealt.hands[seat] == (events[2].hands[seat] if seat == viewer else ())
    state = fold(dix, events)
    state, _ = play(state, 0, "2S")
    _, trick = play(state, 1, "2H")
    won = one(trick, TrickWon)
    assert won.drawn == (C("2D"), C("2C"))
    assert dix.redact(won, 0).drawn == (C("2D"), None)
    assert dix.redact(won, 1).drawn == (None, C("2C"))
    assert dix.redact(won, None).drawn == (None, None)
    assert dix.redact(trick[0], None) == trick[0]
    classes = {class_of(t) for t in dix.EVENT_TYPES}
    assert all(type(dix.redact(e, 1)) in classes for e in (*events, *trick))


def test_events_round_trip_through_the_codec() -> None:
    state = new(SWEEP_0, single_hand=True)
    config = dix.make_config({"single_hand": True}, 2)
    opening = list(
        dix.start(config, ("ann", "bob"), b"dix-test", Setup(first_dealer=1, decks=(SWEEP_0,)))
    )
    _, log = play_hand(state)
    registry = Registry(dix.EVENT_TYPES)
    for event in opening + log:
        data = json.loads(json.dumps(encode(event)))
        assert registry.decode(data) == event
        assert registry.decode(json.loads(json.dumps(encode(dix.redact(event, 0))))) == dix.redact(
            event, 0
        )
    assert fold(dix, opening + log) == fold(dix, log, state)


def test_render_and_describe_are_readable() -> None:
    state = new(deck_for("5H", "9H", "7C"))
    state, events = play(state, 0, "5H")
    for viewer in (0, 1, None):
        text = dix.render(dix.view(state, viewer))
        lines = text.splitlines()
        assert len(lines) <= 12 and all(len(line) <= 78 for line in lines)
        assert "7C" in text and "5H" in text
    assert "Your hand" in dix.render(dix.view(state, 1))
    assert dix.describe(events[0]) == "seat 0 plays 5H"
    _, events = play(state, 1, "9H")
    assert (
        dix.describe(events[1]) == "seat 1 wins the trick 5H 9H (+1); seat 1 draws 2D, "
        "seat 0 draws 3D"
    )
    assert "seat 0 draws a card" in dix.describe(dix.redact(events[1], 1))
    over, log = play_hand(new(SWEEP_0, single_hand=True))
    for event in log[-3:]:
        assert dix.describe(event)
    assert dix.describe(log[-1]).startswith("seat 0 wins the match 18-0")
    assert "The match is over." in dix.render(dix.view(over, 0))


# --------------------------------------------------------------------------- random play


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"first_lead": "DEALER", "tiebreak_tens": "MATCH", "target": 10},
        {"single_hand": True},
        {"max_hands": 2, "target": 1000},
    ],
)
def test_random_play_ends_within_the_bound(options: dict[str, object]) -> None:
    """50 random matches per option set end within max_hands × 52 plays (R-5)."""
    config = dix.make_config(options, 2)
    cards = [Play(c) for c in ALL_CARDS]
    for n in range(50):
        rng = random.Random(n)
        state = fold(dix, dix.start(config, ("a", "b"), n.to_bytes(4, "big")))
        for step in range(config.max_hands * 52 + 1):
            seat = dix.to_act(state)
            if seat is None:
                break
            offered = dix.legal_commands(state, seat)
            assert dix.legal_commands(state, 1 - seat) == ()
            if step % 37 == 0:  # decide accepts exactly the offered commands
                for command in cards:
                    if command in offered:
                        dix.decide(state, seat, command)
                    else:
                        with pytest.raises(IllegalMove):
                            dix.decide(state, seat, command)
            state = fold(dix, dix.decide(state, seat, rng.choice(offered)), state)
        else:
            raise AssertionError("no outcome within the bound")
        out = dix.outcome(state)
        assert out is not None and len(out.winners) == 1
        assert (
            max(out.scores) >= config.target
            or config.single_hand
            or state.info.number == config.max_hands
        )
