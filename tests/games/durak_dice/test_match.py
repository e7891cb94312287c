"""Durak with dice and the match rules (R-1 … R-3, R-6): randomness, the first dealer,
prearranged deals, the options and a bad setup.
"""

from __future__ import annotations

import pytest

from kozyr.core import fairness
from kozyr.core.cards import JOKER, Card, deck
from kozyr.games import durak_dice as D
from kozyr.games.contract import InvalidOptions, Setup
from tests.games.durak_dice.scenarios import BASE2, SEED, begin, of_type

# --------------------------------------------------------------------------------------------
# R-1 … R-3: randomness, the first dealer, prearranged deals


def test_R_1_deck_and_rolls_come_from_the_seed() -> None:
    state, events = begin(4, Setup(first_dealer=0))
    dealt = of_type(events, D.Dealt)[0]
    assert dealt.deck == fairness.RandomStream(SEED, fairness.deal_label(1)).shuffle(deck(36))
    stream = fairness.RandomStream(SEED, fairness.dice_label(1))
    assert [r for _, r in dealt.rolls] == [stream.die() for _ in dealt.rolls]
    assert events[0].seed == SEED and events[0].prearranged is False
    # Dealing takes from the top, the turned-up card last (DUR-2).
    seq = [*dealt.deck[1:], dealt.deck[0]]
    got: list[list[Card]] = [[] for _ in range(4)]
    for seat, roll in dealt.rolls:
        take = min(roll, len(seq))
        got[seat] += seq[:take]
        del seq[:take]
    assert [tuple(sorted(h)) for h in got] == list(dealt.hands)
    assert D.view(state, 0).hand == dealt.hands[0]


def test_R_1_same_seed_same_match() -> None:
    assert begin(3)[1] == begin(3)[1]
    assert begin(3)[1] != begin(3, seed=b"another")[1]


def test_R_2_first_dealer_by_lot_or_fixed() -> None:
    for n in range(2, 7):
        _, events = begin(n)
        lot = fairness.RandomStream(SEED, fairness.FIRST_DEALER).randbelow(n)
        assert events[1] == D.FirstDealerChosen(lot, True)
        assert events[2].dealer == lot
    _, events = begin(5, Setup(first_dealer=3))
    assert events[1] == D.FirstDealerChosen(3, False)
    assert events[2].rolls[0][0] == 4  # the dealer's left neighbour rolls first (DUR-3)


def test_R_3_prearranged_match_is_marked_and_its_setup_hidden() -> None:
    _, events = begin(2, BASE2)
    started = events[0]
    assert started.prearranged is True and started.decks == BASE2.decks
    assert started.dice == BASE2.dice and started.first_dealer == 1
    for viewer in (None, 0, 1):
        hidden = D.redact(started, viewer)
        assert isinstance(hidden, D.MatchStarted)
        assert hidden.seed == b"" and hidden.decks == ((),) and hidden.dice == ((),)
        assert hidden.prearranged is True and hidden.config == started.config
    state, _ = begin(2, BASE2)
    assert D.view(state, 0).prearranged and "prearranged" in D.render(D.view(state, 0))


# --------------------------------------------------------------------------------------------
# R-6 options


def test_R_6_defaults_and_every_option_value() -> None:
    assert D.make_config({}, 2) == D.Config(36, "UNDER_FOOL", 0, 1, 1000)
    assert [(o.name, o.default) for o in D.OPTIONS] == [
        ("deck", 36),
        ("next_first", "UNDER_FOOL"),
        ("max_attacks", 0),
        ("games", 1),
        ("max_bouts", 1000),
    ]
    config = D.make_config(
        {
            "deck": "52",
            "next_first": "FROM_UNDER_FOOL",
            "max_attacks": 6,
            "games": "3",
            "max_bouts": 1,
        },
        6,
    )
    assert config == D.Config(52, "FROM_UNDER_FOOL", 6, 3, 1)


@pytest.mark.parametrize(
    ("options", "players", "code"),
    [
        ({"trumps": "S"}, 2, "UNKNOWN_OPTION"),
        ({"deck": 32}, 2, "BAD_OPTION_VALUE"),
        ({"deck": "many"}, 2, "BAD_OPTION_VALUE"),
        ({"deck": True}, 2, "BAD_OPTION_VALUE"),
        ({"next_first": "DEALER"}, 2, "BAD_OPTION_VALUE"),
        ({"next_first": 1}, 2, "BAD_OPTION_VALUE"),
        ({"max_attacks": -1}, 2, "BAD_OPTION_VALUE"),
        ({"games": 0}, 2, "BAD_OPTION_VALUE"),
        ({"max_bouts": 0}, 2, "BAD_OPTION_VALUE"),
        ({}, 1, "BAD_PLAYER_COUNT"),
        ({}, 7, "BAD_PLAYER_COUNT"),
    ],
)
def test_R_6_bad_options_are_refused(options: dict[str, object], players: int, code: str) -> None:
    with pytest.raises(InvalidOptions) as info:
        D.make_config(options, players)
    assert info.value.code == code


def test_R_6_bad_setup_is_refused() -> None:
    config = D.make_config({}, 2)
    good = BASE2.decks[0]
    bad_decks = [
        good[:-1],  # a card missing
        (*good[:-1], good[0]),  # a card twice
        deck(52),  # the wrong deck
        (*good[:-1], JOKER),
    ]
    for order in bad_decks:
        with pytest.raises(InvalidOptions) as info:
            D.start(config, ["a", "b"], SEED, Setup(decks=(order,)))
        assert info.value.code == "BAD_DECK"
    for rolls in [(0,), (7,), (3, 6, -1)]:
        with pytest.raises(InvalidOptions) as info:
            D.start(config, ["a", "b"], SEED, Setup(dice=(rolls,)))
        assert info.value.code == "BAD_DICE"
    with pytest.raises(InvalidOptions) as info:
        D.start(config, ["a", "b"], SEED, Setup(first_dealer=2))
    assert info.value.code == "BAD_FIRST_DEALER"
    with pytest.raises(InvalidOptions) as info:
        D.start(config, ["a"] * 7, SEED)
    assert info.value.code == "BAD_PLAYER_COUNT"
