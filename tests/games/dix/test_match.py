"""Dix and the match rules (R-1 … R-6): the Game contract, the seeded deck, the first dealer,
prearranged decks, a single legal card, the hand guard and the options.
"""

from __future__ import annotations

import pytest

from kozyr.core.cards import Card, deck
from kozyr.core.fairness import FIRST_DEALER, RandomStream, deal_label
from kozyr.games import Game, InvalidOptions, Setup, dix, fold
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
from tests.games.dix.scenarios import SWEEP_0, C, legal, new, one, play, play_hand

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
