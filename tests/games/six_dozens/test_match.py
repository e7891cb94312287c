"""Six Dozens and the match rules (R-1 … R-6): the Game contract, deals from the seed, the first
dealer, prearranged decks, a single legal card, the hand guard and the options.
"""

from __future__ import annotations

import pytest

from kozyr.core import fairness
from kozyr.core.cards import Suit, deck, parse_card
from kozyr.games import six_dozens as sd
from kozyr.games.contract import InvalidOptions, Setup, fold
from tests.games.six_dozens.scenarios import BLOCKED_2, NONE, SHEDDER, legal, new, of, order, play

# --------------------------------------------------------------------------------- contract


def test_module_constants() -> None:
    assert (sd.NAME, sd.TITLE, sd.MIN_PLAYERS, sd.MAX_PLAYERS) == ("six-dozens", "Six Dozens", 2, 4)
    assert sd.RULES_VERSION == "2026.11"
    assert (sd.Play,) == sd.COMMAND_TYPES
    assert [o.name for o in sd.OPTIONS] == [
        "deck",
        "trumps",
        "trump_suits",
        "seven",
        "dealer",
        "max_hands",
        "final_kitty",
        "eight_on_trumps",
    ]
    defaults = {o.name: o.default for o in sd.OPTIONS}
    assert defaults == {
        "deck": 36,
        "trumps": "PERSONAL",
        "trump_suits": None,
        "seven": "SKIP",
        "dealer": "FIRST_MOVER",
        "max_hands": 500,
        "final_kitty": "DISCARD",
        "eight_on_trumps": True,
    }


# ----------------------------------------------------------------------------- R-1 … R-3


def test_R_1_deals_come_from_the_seed() -> None:
    _, events = new(3, seed=b"abc")
    dealt = of(events, sd.Dealt)[0]
    turned = of(events, sd.BankTurned)[0]
    assert dealt.deck == fairness.RandomStream(b"abc", "deal/1").shuffle(deck(36))
    assert events[0].prearranged is False
    # Dealing takes from the top, one card at a time from the dealer's left (SIX-5).
    left = (dealt.dealer + 1) % 3
    assert dealt.deck[0] in dealt.hands[left]
    assert turned.bank == dealt.deck[24] and dealt.rolls == ()
    assert fold(sd, events[:4]).stock == dealt.deck[25:29]
    _, again = new(3, seed=b"abc")
    assert again == events


def test_R_1_later_hands_are_shuffled_from_their_own_stream() -> None:
    # Hand 1 is prearranged and ends at once; hand 2 comes from the stream deal/2.
    _, events = new(2, *BLOCKED_2, first_dealer=1, seed=b"s2", max_hands=2, trumps="NONE")
    deals = of(events, sd.Dealt)
    assert [d.number for d in deals] == [1, 2]
    assert deals[1].deck == fairness.RandomStream(b"s2", "deal/2").shuffle(deck(36))


def test_R_2_first_dealer_by_lot_or_as_given() -> None:
    _, events = new(4, seed=b"lot")
    lot = fairness.RandomStream(b"lot", fairness.FIRST_DEALER).randbelow(4)
    assert events[1] == sd.FirstDealerChosen(lot, True)
    assert of(events, sd.Dealt)[0].dealer == lot
    _, given = new(2, *SHEDDER, first_dealer=1, trumps="NONE")
    assert given[1] == sd.FirstDealerChosen(1, False)
    assert given[0].first_dealer == 1


def test_R_3_prearranged_match_is_marked_and_decks_are_checked() -> None:
    _, events = new(2, *SHEDDER, first_dealer=1, trumps="NONE")
    assert events[0].prearranged is True
    assert len(events[0].decks) == 1
    config = sd.make_config({}, 2)
    good = order(2, 0, *SHEDDER)
    bad_decks = [good[:-1], (*good[:-1], good[0]), (*good[:-1], parse_card("2S"))]
    for bad in bad_decks:
        with pytest.raises(InvalidOptions) as info:
            sd.start(config, ["a", "b"], b"x", Setup(decks=(bad,)))
        assert info.value.code == "BAD_DECK"
    with pytest.raises(InvalidOptions):
        sd.start(sd.make_config({"deck": 32}, 2), ["a", "b"], b"x", Setup(decks=(good,)))


# --------------------------------------------------------------------------------


def test_R_4_a_single_legal_card_is_still_the_seats_decision() -> None:
    state, events = new(
        2,
        ["AS 10S KS QS JS 9S 8S 7S", "7H 7D 6H 6D 6C KC QC JC"],
        "AH",
        "KD QD JD 10D 9D",
        first_dealer=1,
        trumps="NONE",
    )
    # Seat 1 holds the lowest-valued heart (6H) and has just that one legal card.
    assert sd.to_act(state) == 1
    assert legal(state) == "6H"
    assert not of(events, sd.CardPlayed)


def test_R_5_max_hands_guard_ends_match() -> None:
    state, events = new(2, *SHEDDER, first_dealer=1, max_hands=1, trumps="NONE")
    for code in ["6S", "6H", "6D", "6C", "8S", "8H", "8D"]:
        state, _ = play(state, 0, code)
    state, events = play(state, 0, "8C")
    assert type(events[-1]) is sd.MatchEnded
    result = sd.outcome(state)
    assert result is not None
    assert result.winners == (0,)
    assert result.scores == (120, 24)
    assert "hand limit (1)" in result.reason
    assert sd.to_act(state) is None
    assert sd.legal_commands(state, 0) == sd.legal_commands(state, 1) == ()


# -------------------------------------------------------------------------------------


def test_R_6_options_are_read_by_name_and_value() -> None:
    config = sd.make_config(
        {
            "deck": "32",
            "trumps": "ONE",
            "trump_suits": "H",
            "seven": "NONE",
            "dealer": "LOSER",
            "max_hands": "7",
            "final_kitty": "SPLIT_SOLVENT",
            "eight_on_trumps": "false",
        },
        3,
    )
    assert config == sd.Config(32, "ONE", (Suit.H,), "NONE", "LOSER", 7, "SPLIT_SOLVENT", False)
    assert sd.make_config({}, 3) == sd.Config(
        36, "PERSONAL", (Suit.S, Suit.H, Suit.D), "SKIP", "FIRST_MOVER", 500, "DISCARD", True
    )


@pytest.mark.parametrize(
    ("options", "players", "code"),
    [
        ({"colour": "red"}, 2, "UNKNOWN_OPTION"),
        ({"deck": 52}, 2, "BAD_OPTION_VALUE"),
        ({"deck": "many"}, 2, "BAD_OPTION_VALUE"),
        ({"trumps": "THREE"}, 2, "BAD_OPTION_VALUE"),
        ({"seven": "DRAW"}, 2, "BAD_OPTION_VALUE"),
        ({"dealer": "YOUNGEST"}, 2, "BAD_OPTION_VALUE"),
        ({"final_kitty": "KEEP"}, 2, "BAD_OPTION_VALUE"),
        ({"eight_on_trumps": "maybe"}, 2, "BAD_OPTION_VALUE"),
        ({"max_hands": 0}, 2, "BAD_OPTION_VALUE"),
        ({"trump_suits": "SS"}, 2, "BAD_OPTION_VALUE"),
        ({"trump_suits": "SX"}, 2, "BAD_OPTION_VALUE"),
        ({}, 1, "BAD_PLAYER_COUNT"),
        ({}, 5, "BAD_PLAYER_COUNT"),
    ],
)
def test_R_6_bad_options_are_refused(options: dict[str, object], players: int, code: str) -> None:
    with pytest.raises(InvalidOptions) as info:
        sd.make_config(options, players)
    assert info.value.code == code


def test_R_6_start_refuses_what_the_config_does_not_fit() -> None:
    two = sd.make_config({}, 2)  # PERSONAL with two suits
    with pytest.raises(InvalidOptions) as info:
        sd.start(two, ["a", "b", "c"], b"x")
    assert info.value.code == "BAD_OPTION_VALUE"
    with pytest.raises(InvalidOptions) as info:
        sd.start(sd.make_config(NONE, 2), ["a"], b"x")
    assert info.value.code == "BAD_PLAYER_COUNT"
    with pytest.raises(InvalidOptions):
        sd.start(sd.make_config(NONE, 2), ["a", "b"], b"x", Setup(first_dealer=2))


def test_R_3_six_dozens_refuses_prearranged_dice() -> None:
    config = sd.make_config({}, 2)
    with pytest.raises(InvalidOptions) as info:
        sd.start(config, ["a", "b"], b"s", Setup(dice=((3, 4),)))
    assert info.value.code == "BAD_SETUP"


def test_R_6_enumerated_values_are_written_upper_snake() -> None:
    with pytest.raises(InvalidOptions, match="write 'LOSER'") as info:
        sd.make_config({"dealer": "loser"}, 2)
    assert info.value.code == "BAD_OPTION_VALUE"
