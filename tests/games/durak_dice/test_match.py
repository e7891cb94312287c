"""Scenario tests of Durak with dice (RULES.md DUR-1 … DUR-10, R-1 … R-6).

Deals are prearranged: `arrange` builds a deck order and the die rolls from the hands each seat
should receive, so every test states exactly who holds what.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from kozyr.core import fairness
from kozyr.core.cards import JOKER, Card, Suit, deck, parse_card, parse_cards
from kozyr.games import codec
from kozyr.games import durak_dice as D
from kozyr.games.contract import Game, IllegalMove, InvalidOptions, Outcome, Setup, fold

G: Game = D
SEED = b"durak-test-seed"

# --------------------------------------------------------------------------------------------
# Helpers


def suit(letter: str, ranks: str = "6 7 8 9 10 J Q K A") -> str:
    """The cards of one suit, e.g. suit("S") = "6S 7S … AS"."""
    return " ".join(r + letter for r in ranks.split())


def arrange(
    dealer: int,
    hands: Sequence[str],
    trump: str,
    rolls: Sequence[int] | None = None,
    size: int = 36,
) -> tuple[tuple[Card, ...], tuple[int, ...]]:
    """The deck order (top first) and rolls that deal `hands`, `trump` turned up (DUR-2, DUR-3).

    Without `rolls`, every seat rolls min(6, cards it still needs). The seat holding `trump`
    must be the one that receives the last card.
    """
    n = len(hands)
    queues = [list(parse_cards(h)) for h in hands]
    assert sorted(c for q in queues for c in q) == sorted(deck(size)), "hands must use the deck"
    tc = parse_card(trump)
    holder = next(i for i, q in enumerate(queues) if tc in q)
    queues[holder].remove(tc)
    queues[holder].append(tc)
    seq: list[Card] = []
    used: list[int] = []
    seat = (dealer + 1) % n
    while len(seq) < size:
        roll = min(6, len(queues[seat])) if rolls is None else rolls[len(used)]
        assert roll >= 1, "this deal cannot come from die rolls"
        take = min(roll, size - len(seq))
        assert len(queues[seat]) >= take, f"seat {seat} would get too many cards"
        seq += queues[seat][:take]
        del queues[seat][:take]
        used.append(roll)
        seat = (seat + 1) % n
    assert rolls is None or len(used) == len(rolls), "rolls left over"
    assert seq[-1] is tc, "the trump card must be the last card dealt"
    return (seq[-1], *seq[:-1]), tuple(used)


def setup_of(dealer: int, *games: tuple[tuple[Card, ...], tuple[int, ...]]) -> Setup:
    return Setup(
        first_dealer=dealer, decks=tuple(g[0] for g in games), dice=tuple(g[1] for g in games)
    )


NO_SETUP = Setup()


def begin(
    n: int, setup: Setup = NO_SETUP, seed: bytes = SEED, **options: object
) -> tuple[D.State, tuple[Any, ...]]:
    config = D.make_config(options, n)
    events = D.start(config, [f"P{i}" for i in range(n)], seed, setup)
    return fold(G, events), events


def act(state: D.State, seat: int, command: Any) -> tuple[D.State, tuple[Any, ...]]:
    assert command in D.legal_commands(state, seat), (command, D.legal_commands(state, seat))
    events = D.decide(state, seat, command)
    return fold(G, events, state), events


def play(state: D.State, *moves: tuple[int, Any]) -> tuple[D.State, tuple[Any, ...]]:
    """Apply moves in order; return the state and all events they caused."""
    out: list[Any] = []
    for seat, command in moves:
        state, events = act(state, seat, command)
        out.extend(events)
    return state, tuple(out)


def A(code: str) -> D.Attack:
    return D.Attack(parse_card(code))


def B(code: str) -> D.Beat:
    return D.Beat(parse_card(code))


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def refused(state: D.State, seat: int, command: Any, code: str) -> None:
    before = state
    legal = D.legal_commands(state, seat)
    with pytest.raises(IllegalMove) as info:
        D.decide(state, seat, command)
    assert info.value.code == code, info.value
    assert info.value.message
    assert state == before and D.legal_commands(state, seat) == legal


TAKE, PASS = D.Take(), D.Pass()

# Two players, 18 cards each: seat 0 spades and hearts, seat 1 diamonds (trump) and clubs.
BASE2 = setup_of(1, arrange(1, [suit("S") + " " + suit("H"), suit("D") + " " + suit("C")], "AD"))

# Six players, 6 cards each (dealer 5, all rolls 6); trump ♥ (9H turned up, dealt last to seat 5).
BASE6_HANDS = [
    "6H 7S 8S 9C 10D QS",
    "7H 6S 8C 9S 10C JD",
    "6C 7C 8H 9D 10S JC",
    "6D 7D 8D 10H JS QD",
    "JH QH KH AH KS AS",
    "QC KC AC KD AD 9H",
]
BASE6 = setup_of(5, arrange(5, BASE6_HANDS, "9H"))

# Three players; seat 1 gets only three cards (dealer 2: seat 0 rolls 6s, seat 1 1s). Trump ♠.
OUT3 = setup_of(
    2,
    arrange(
        2,
        [
            "6S 7H 8D 9C " + suit("H", "6 9 10 J Q K A") + " " + suit("D", "6 7 10 J Q K A"),
            "8H 9D 10C",
            suit("S", "7 8 9 10 J Q K A") + " " + suit("C", "6 7 8 J Q K A"),
        ],
        "AS",
        rolls=(6, 1, 6, 6, 1, 6, 6, 1, 3),
    ),
)

# Three players; seats 0 and 2 get few cards, seat 1 the other 27. Trump ♠.
FOOL3_HANDS = [
    "6S 7H 8H JD QD",
    None,
    "9D 10D JC QC",
]


def fool3_game() -> tuple[tuple[Card, ...], tuple[int, ...]]:
    small = set(cards(" ".join(h for h in FOOL3_HANDS if h)))
    rest = " ".join(c.code for c in deck(36) if c not in small)
    hands = [FOOL3_HANDS[0] or "", rest, FOOL3_HANDS[2] or ""]
    return arrange(2, hands, "AS", rolls=(1, 6, 1) * 4 + (1, 6))


FOOL3_MOVES = (
    (0, A("6S")),
    (1, TAKE),  # bout 1
    (2, A("9D")),
    (0, B("JD")),
    (2, PASS),
    (1, PASS),  # bout 2
    (0, A("7H")),
    (1, TAKE),  # bout 3
    (2, A("10D")),
    (0, B("QD")),
    (2, PASS),
    (1, PASS),  # bout 4
    (0, A("8H")),
    (1, TAKE),  # bout 5: seat 0 goes out
    (2, A("JC")),
    (1, TAKE),  # bout 6
    (2, A("QC")),
    (1, TAKE),  # bout 7: seat 2 goes out
)

# Two players; seat 0 throws in all 18 cards in one bout and seat 1 beats them all. Trump ♣.
DRAW2_ATTACKS = "6S 7H 8D 9S 10H JD QS KH AD 8S 6H 6D 10D 6C 9C JC AS QH"
DRAW2_BEATS = "7S 8H 9D 10S JH QD KS AH 8C JS 9H 7D KD 7C 10C QC KC AC"
DRAW2 = setup_of(1, arrange(1, [DRAW2_ATTACKS, DRAW2_BEATS], "AC"))


def draw2_moves(count: int = 18) -> list[tuple[int, Any]]:
    moves: list[tuple[int, Any]] = []
    for a, b in list(zip(DRAW2_ATTACKS.split(), DRAW2_BEATS.split(), strict=True))[:count]:
        moves += [(0, A(a)), (1, B(b))]
    return moves


def of_type(events: Sequence[Any], cls: type) -> list[Any]:
    return [e for e in events if isinstance(e, cls)]


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


# --------------------------------------------------------------------------------------------
# DUR-5 … DUR-8: bouts


def test_DUR_5_one_card_at_a_time_at_the_left_neighbour() -> None:
    state, _ = begin(6, BASE6)
    state, events = act(state, 0, A("7S"))
    assert events == (D.Attacked(0, parse_card("7S")),)
    assert D.to_act(state) == 1 and D.legal_commands(state, 0) == ()
    refused(state, 0, A("8S"), "NOT_YOUR_TURN")
    v = D.view(state, 3)
    assert (v.attacker, v.defender, v.table, v.phase) == (
        0,
        1,
        ((parse_card("7S"), None),),
        "DEFEND",
    )
    assert v.hand_sizes == (5, 6, 6, 6, 6, 6)


def test_DUR_5_attack_skips_players_who_are_out() -> None:
    state, _ = begin(3, OUT3)
    state, events = play(
        state,
        (0, A("7H")),
        (1, B("8H")),
        (0, A("8D")),
        (1, B("9D")),
        (0, A("9C")),
        (1, B("10C")),
        (2, A("6C")),
        (0, TAKE),
        (2, A("7C")),
        (0, B("6S")),
        (2, PASS),
    )
    # Seat 0 held off seat 2 and attacks next: at seat 2, skipping seat 1 who is out.
    assert events[-2] == D.Discarded(0, cards("7C 6S"))
    assert events[-1] == D.BoutStarted(4, 0, 2, "DEFENDED")


def test_DUR_6_beat_higher_same_suit_or_trump_and_take_is_always_offered() -> None:
    state, _ = begin(6, BASE6)
    state, _ = act(state, 0, A("7S"))
    assert D.legal_commands(state, 1) == (B("9S"), B("7H"), TAKE)
    refused(state, 1, B("6S"), "CANNOT_BEAT")  # lower, same suit
    refused(state, 1, B("8C"), "CANNOT_BEAT")  # another plain suit
    state, events = act(state, 1, B("9S"))
    assert events[0] == D.Beaten(1, parse_card("7S"), parse_card("9S"))
    # A trump attack is only beaten by a higher trump.
    state, _ = begin(6, BASE6)
    state, _ = act(state, 0, A("6H"))
    assert D.legal_commands(state, 1) == (B("7H"), TAKE)
    # Able to beat, the defender may still take.
    state, events = act(state, 1, TAKE)
    assert events[0] == D.Took(1, cards("6H"))


def test_DUR_7_throw_in_order_attacker_first_then_clockwise_skipping_defender() -> None:
    state, _ = begin(6, BASE6)
    state, events = play(state, (0, A("7S")), (1, B("9S")))
    # Ranks 7 and 9 on the table: the attacker may throw first.
    assert D.to_act(state) == 0
    assert D.legal_commands(state, 0) == (A("9C"), PASS)
    refused(state, 0, A("8S"), "CANNOT_THROW_IN")
    state, events = act(state, 0, PASS)
    assert events == (D.Passed(0, False),) and D.to_act(state) == 2
    assert D.legal_commands(state, 2) == (A("9D"), A("7C"), PASS)  # by Card.index
    state, events = act(state, 2, PASS)
    assert D.to_act(state) == 3
    state, events = act(state, 3, PASS)
    # Seat 4 has neither a 7 nor a 9: it passes automatically; seat 5 holds 9H.
    assert events == (D.Passed(3, False), D.Passed(4, True))
    assert D.to_act(state) == 5 and D.legal_commands(state, 5) == (A("9H"), PASS)
    state, events = act(state, 5, PASS)
    assert events == (
        D.Passed(5, False),
        D.Discarded(1, cards("7S 9S")),
        D.BoutStarted(2, 1, 2, "DEFENDED"),
    )
    assert D.view(state, None).discard_count == 2


def test_DUR_7_after_a_beat_the_order_restarts_and_passers_may_throw_again() -> None:
    state, _ = begin(6, BASE6)
    state, _ = play(state, (0, A("7S")), (1, B("9S")), (0, PASS))
    state, events = act(state, 2, A("7C"))
    assert events == (D.ThrownIn(2, parse_card("7C")),) and D.to_act(state) == 1
    assert D.legal_commands(state, 1) == (B("7H"), B("8C"), B("10C"), TAKE)
    state, _ = act(state, 1, B("8C"))
    # Ranks 7, 9, 8: back to the attacker, who passed before.
    assert D.to_act(state) == 0
    assert D.legal_commands(state, 0) == (A("8S"), A("9C"), PASS)
    state, _ = act(state, 0, A("8S"))
    v = D.view(state, None)
    assert v.table == (
        (parse_card("7S"), parse_card("9S")),
        (parse_card("7C"), parse_card("8C")),
        (parse_card("8S"), None),
    )
    state, events = act(state, 1, TAKE)
    assert events == (
        D.Took(1, cards("7S 9S 7C 8C 8S")),
        D.BoutStarted(2, 2, 3, "TOOK"),
    )
    assert D.view(state, 4).hand_sizes == (4, 9, 5, 6, 6, 6)


@pytest.mark.parametrize("cap", [1, 2])
def test_DUR_7_max_attacks_caps_the_bout(cap: int) -> None:
    state, _ = begin(2, DRAW2, max_attacks=cap)
    moves = draw2_moves(cap)
    state, events = play(state, *moves)
    thrown = " ".join(DRAW2_ATTACKS.split()[:cap])
    beaten = " ".join(DRAW2_BEATS.split()[:cap])
    table = " ".join(f"{a} {b}" for a, b in zip(thrown.split(), beaten.split(), strict=True))
    assert events[-2:] == (D.Discarded(1, cards(table)), D.BoutStarted(2, 1, 0, "DEFENDED"))
    assert not of_type(events, D.Passed)


def test_DUR_7_no_cap_and_defender_out_of_cards_ends_the_defence() -> None:
    state, _ = begin(3, OUT3)
    state, events = play(
        state, (0, A("7H")), (1, B("8H")), (0, A("8D")), (1, B("9D")), (0, A("9C"))
    )
    assert D.legal_commands(state, 1) == (B("10C"), TAKE)
    state, events = act(state, 1, B("10C"))
    # Seat 1 beat with its last card: the defence succeeded at once, nobody is asked to throw.
    assert events == (
        D.Beaten(1, parse_card("9C"), parse_card("10C")),
        D.PlayerOut(1),
        D.Discarded(1, cards("7H 8H 8D 9D 9C 10C")),
        D.BoutStarted(2, 2, 0, "DEFENDED"),  # seat 1 is out: the next holder attacks
    )
    assert D.view(state, None).out == (1,)


def test_DUR_8_defended_bout_goes_to_discard_and_defender_attacks() -> None:
    state, _ = begin(2, DRAW2)
    state, events = play(state, (0, A("6S")), (1, B("7S")), (0, PASS))
    assert events[-2:] == (D.Discarded(1, cards("6S 7S")), D.BoutStarted(2, 1, 0, "DEFENDED"))
    v = D.view(state, 0)
    assert v.last_bout == ((parse_card("6S"), parse_card("7S")),)
    assert v.last_bout_taken_by is None and v.discard_count == 2 and v.table == ()


def test_DUR_8_take_with_two_players_the_attacker_attacks_again() -> None:
    state, _ = begin(2, BASE2)
    state, _ = act(state, 1, A("6C"))
    # Seat 0 holds no club and no trump: only Take, and it is his own move.
    assert D.to_act(state) == 0 and D.legal_commands(state, 0) == (TAKE,)
    state, events = act(state, 0, TAKE)
    assert events == (D.Took(0, cards("6C")), D.BoutStarted(2, 1, 0, "TOOK"))
    v = D.view(state, 0)
    assert parse_card("6C") in v.hand and v.last_bout_taken_by == 0
    assert v.hand_sizes == (19, 17)


def test_DUR_8_take_next_holder_after_defender_attacks() -> None:
    state, _ = begin(3, OUT3)
    state, _ = play(
        state,
        (0, A("7H")),
        (1, B("8H")),
        (0, A("8D")),
        (1, B("9D")),
        (0, A("9C")),
        (1, B("10C")),
        (2, A("6C")),
    )
    assert D.legal_commands(state, 0) == (B("6S"), TAKE)
    state, events = act(state, 0, TAKE)
    # The player to the defender's left (seat 1) is out: seat 2 attacks again.
    assert events == (D.Took(0, cards("6C")), D.BoutStarted(3, 2, 0, "TOOK"))


# --------------------------------------------------------------------------------------------
# DUR-9, DUR-10, R-5: the end of a game and of the match


def test_DUR_9_last_player_holding_cards_is_the_fool() -> None:
    state, _ = begin(3, setup_of(2, fool3_game()))
    state, events = play(state, *FOOL3_MOVES[:-1])
    # Seat 2 has played its last card; the end is checked only when the bout ends.
    assert events[-1] == D.PlayerOut(2) and D.to_act(state) == 1
    assert D.view(state, None).out == (0, 2)
    state, events = act(state, 1, TAKE)
    assert events == (
        D.Took(1, cards("QC")),
        D.GameEnded(1, 1, "FOOL"),
        D.MatchEnded((0, 1, 0), (0, 2)),
    )
    assert D.to_act(state) is None and D.view(state, 1).finished
    assert D.outcome(state) == Outcome(
        (0, 2),
        (0, 1, 0),
        "fewest fools (0 in 1 game): seats 0, 2",
        (("games", "1"), ("draws", "0")),
    )
    refused(state, 1, A("AS"), "MATCH_OVER")


def test_DUR_9_two_players_take_every_attack_the_taker_is_fool() -> None:
    state, _ = begin(2, BASE2)
    for c in cards(suit("C") + " " + suit("D")):
        state, events = act(state, 1, D.Attack(c))
        state, events = act(state, 0, TAKE)
    assert events[-2:] == (D.GameEnded(1, 0, "FOOL"), D.MatchEnded((1, 0), (1,)))
    assert D.view(state, 0).hand_sizes == (36, 0) and D.view(state, 0).out == (1,)


def test_DUR_9_beating_the_last_card_with_the_last_card_is_a_draw() -> None:
    state, _ = begin(2, DRAW2)
    moves = draw2_moves()
    state, events = play(state, *moves[:-1])
    assert events[-1] == D.PlayerOut(0) and D.to_act(state) == 1
    state, events = act(state, 1, moves[-1][1])
    assert events[1:] == (
        D.PlayerOut(1),
        D.Discarded(
            1,
            cards(
                " ".join(
                    f"{a} {b}"
                    for a, b in zip(DRAW2_ATTACKS.split(), DRAW2_BEATS.split(), strict=True)
                )
            ),
        ),
        D.GameEnded(1, None, "DRAW"),
        D.MatchEnded((0, 0), (0, 1)),
    )
    result = D.outcome(state)
    assert result is not None and result.winners == (0, 1) and result.details[1] == ("draws", "1")
    assert D.view(state, None).discard_count == 36


def test_R_5_max_bouts_guard_ends_the_game_as_a_draw() -> None:
    state, _ = begin(2, BASE2, max_bouts=2)
    state, events = play(state, (1, A("6C")), (0, TAKE))
    assert events[-1] == D.BoutStarted(2, 1, 0, "TOOK")
    state, events = play(state, (1, A("7C")), (0, TAKE))
    assert events[-2:] == (D.GameEnded(1, None, "MAX_BOUTS"), D.MatchEnded((0, 0), (0, 1)))
    assert D.outcome(state) is not None and D.to_act(state) is None


def test_DUR_10_fools_are_counted_over_the_games() -> None:
    game1 = fool3_game()
    state, _ = begin(3, setup_of(2, game1, game1), games=2, next_first="FROM_UNDER_FOOL")
    state, _ = play(state, *FOOL3_MOVES)
    # Game 2 repeats game 1's deck and rolls, but seat 1 (the fool) deals: seat 2 rolls first
    # and gets what seat 0 had, seat 0 what seat 1 had. From under the fool, seat 2 attacks.
    v = D.view(state, None)
    assert v.game_number == 2 and v.hand_sizes == (27, 4, 5)
    assert (v.attacker, v.defender) == (2, 0)
    shifted = tuple(((seat + 2) % 3, cmd) for seat, cmd in FOOL3_MOVES)
    state, events = play(state, *shifted)
    assert events[-2:] == (D.GameEnded(2, 0, "FOOL"), D.MatchEnded((1, 1, 0), (2,)))
    result = D.outcome(state)
    assert result is not None and result.winners == (2,) and result.scores == (1, 1, 0)


# --------------------------------------------------------------------------------------------
# Illegal moves and reason codes


@dataclass(frozen=True, slots=True)
class Dance:
    """Not a Durak command."""


def test_illegal_moves_each_reason_code() -> None:
    state, _ = begin(6, BASE6)
    refused(state, 6, A("6H"), "NOT_A_SEAT")
    refused(state, -1, A("6H"), "NOT_A_SEAT")
    refused(state, 1, A("6S"), "NOT_YOUR_TURN")
    refused(state, 0, Dance(), "UNKNOWN_COMMAND")
    refused(state, 0, A("AS"), "CARD_NOT_IN_HAND")
    refused(state, 0, D.Attack(JOKER), "CARD_NOT_IN_HAND")
    refused(state, 0, B("AS"), "CARD_NOT_IN_HAND")  # the hand is checked before the phase
    refused(state, 0, B("7S"), "NOTHING_TO_BEAT")
    refused(state, 0, TAKE, "NOTHING_TO_TAKE")
    refused(state, 0, PASS, "MUST_ATTACK")
    state, _ = act(state, 0, A("7S"))
    refused(state, 1, PASS, "MUST_BEAT_OR_TAKE")
    refused(state, 1, A("6S"), "MUST_BEAT_OR_TAKE")
    refused(state, 1, B("6S"), "CANNOT_BEAT")
    refused(state, 1, B("7S"), "CARD_NOT_IN_HAND")
    state, _ = act(state, 1, B("9S"))
    refused(state, 0, A("8S"), "CANNOT_THROW_IN")
    refused(state, 0, B("9C"), "NOTHING_TO_BEAT")
    refused(state, 0, TAKE, "NOTHING_TO_TAKE")
    refused(state, 1, TAKE, "NOT_YOUR_TURN")


def test_cannot_beat_sentence_names_the_suits() -> None:
    state, _ = begin(6, BASE6)
    state, _ = act(state, 0, A("7S"))
    with pytest.raises(IllegalMove) as info:
        D.decide(state, 1, B("8C"))
    assert info.value.message == "8C cannot beat 7S: play a higher ♠ or a trump (♥)"
    assert info.value.rule == "DUR-6"


# --------------------------------------------------------------------------------------------
# Hidden information: view and redact


def test_views_show_own_hand_counts_and_the_public_table() -> None:
    state, events = begin(6, BASE6)
    for seat in range(6):
        v = D.view(state, seat)
        assert v.hand == tuple(sorted(cards(BASE6_HANDS[seat])))
        assert v.hand_sizes == (6,) * 6 and v.rolls == (
            (0, 6),
            (1, 6),
            (2, 6),
            (3, 6),
            (4, 6),
            (5, 6),
        )
        assert (v.trump, v.trump_card, v.dealer, v.hand_number) == (Suit.H, parse_card("9H"), 5, 1)
    spectator = D.view(state, None)
    assert spectator.hand == () and spectator.seat is None and spectator.to_act == 0
    assert spectator.players == ("P0", "P1", "P2", "P3", "P4", "P5")
    dealt = events[2]
    for viewer in (None, *range(6)):
        seen = D.redact(dealt, viewer)
        assert isinstance(seen, D.Dealt) and seen.deck == ()
        assert seen.rolls == dealt.rolls and D.redact(events[3], viewer) == events[3]
        for seat, hand in enumerate(seen.hands):
            assert hand == (dealt.hands[seat] if seat == viewer else ())
    # Public events pass unchanged.
    state, events = play(state, (0, A("7S")), (1, TAKE))
    for e in events:
        assert D.redact(e, 3) == e and D.redact(e, None) == e


def test_known_cards_trump_card_and_taken_cards_are_public() -> None:
    state, _ = begin(6, BASE6)
    # The turned-up 9H was dealt last, to seat 5 (the rolls show it).
    assert D.view(state, None).known == ((), (), (), (), (), (parse_card("9H"),))
    state, _ = play(state, (0, A("7S")), (1, B("9S")), (0, PASS), (2, A("7C")), (1, TAKE))
    v = D.view(state, 3)
    assert v.known[1] == cards("7S 9S 7C") and v.known[5] == cards("9H")
    # Bout 2: seat 2 attacks seat 3, seat 5 throws in the trump card.
    state, _ = play(state, (2, A("9D")), (3, B("QD")), (4, PASS), (5, A("9H")))
    assert D.view(state, None).known[5] == ()
    zones = D.zones(state)
    assert zones["known/1"] == cards("7S 9S 7C") and zones["table"] == cards("9D QD 9H")
    assert sorted(c for cs in zones.values() for c in cs) == sorted(deck(36))
    assert D.hidden_zones(state, 1) == ("hand/0", "hand/2", "hand/3", "hand/4", "hand/5")
    assert D.with_zones(state, zones) == state and state.config == D.Config()


def test_events_and_views_survive_the_codec() -> None:
    registry = codec.Registry(D.EVENT_TYPES)
    commands = codec.Registry(D.COMMAND_TYPES)
    state, events = begin(3, setup_of(2, fool3_game()), games=2)
    all_events = list(events)
    for seat, command in FOOL3_MOVES:
        assert commands.decode(codec.encode(command)) == command
        state, new = act(state, seat, command)
        all_events += new
    for e in all_events:
        assert registry.decode(codec.encode(e)) == e
        for viewer in (None, 0):
            seen = D.redact(e, viewer)
            assert seen is not None and registry.decode(codec.encode(seen)) == seen
    for viewer in (None, 0, 1, 2):
        v = D.view(state, viewer)
        assert codec.decode_as(D.View, codec.encode(v)) == v


def test_render_and_describe() -> None:
    state, events = begin(6, BASE6)
    state, more = play(state, (0, A("7S")), (1, B("9S")))
    text = D.render(D.view(state, 0))
    lines = text.splitlines()
    assert all(len(line) <= 78 for line in lines) and len(lines) <= 14
    assert "7♠/9♠" in text and "Trump ♥" in text and "6♥" in text
    assert D.describe(more[0]) == "seat 0 attacks with 7S"
    assert D.describe(more[1]) == "seat 1 beats 7S with 9S"
    assert D.describe(events[4]) == "bout 1: seat 0 attacks seat 1 (lowest trump)"
    assert D.describe(events[3]) == "trump card 9H; cards 6 6 6 6 6 6"
    assert D.describe(D.Passed(4, True)) == "seat 4 passes (nothing to throw)"
    assert D.describe(D.GameEnded(1, 2, "FOOL")) == "game 1 ends: seat 2 is the fool"


# --------------------------------------------------------------------------------------------
# Random play: legal commands match decide, cards are conserved, every match ends


ALL_COMMANDS: tuple[Any, ...] = (
    *(D.Attack(c) for c in (*deck(52), JOKER)),
    *(D.Beat(c) for c in (*deck(52), JOKER)),
    TAKE,
    PASS,
)


def _check_legal_iff_decide(state: D.State, n: int) -> None:
    for seat in range(n):
        legal = set(D.legal_commands(state, seat))
        for command in ALL_COMMANDS:
            try:
                D.decide(state, seat, command)
                ok = True
            except IllegalMove:
                ok = False
            assert ok == (command in legal), (seat, command)


def random_match(
    n: int, rng: random.Random, seed: bytes, check: bool = False, **options: object
) -> tuple[D.State, int, list[Any]]:
    state, events = begin(n, NO_SETUP, seed, **options)
    log = list(events)
    total = sum(D.view(state, None).hand_sizes)
    steps = 0
    while (seat := D.to_act(state)) is not None:
        legal = D.legal_commands(state, seat)
        assert legal, "the awaited seat must have a move"
        if check:
            _check_legal_iff_decide(state, n)
        state, new = act(state, seat, rng.choice(legal))
        log += new
        steps += 1
        v = D.view(state, None)
        on_table = sum(1 if d is None else 2 for _, d in v.table)
        assert sum(v.hand_sizes) + on_table + v.discard_count == total
        assert sorted(c for cs in D.zones(state).values() for c in cs) == sorted(deck(total))
    return state, steps, log


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_R_5_random_legal_play_always_ends(n: int) -> None:
    rng = random.Random(n)
    # Bound: per bout at most `deck` attack cards, each followed by a defence and at most n - 1
    # passes; per game at most max_bouts bouts.
    for i in range(50):
        games = 1 + i % 2
        state, steps, log = random_match(
            n,
            rng,
            bytes([n, i]),
            games=games,
            deck=(36, 52)[i % 2],
            max_attacks=i % 4,
            next_first=("UNDER_FOOL", "FROM_UNDER_FOOL")[i % 2],
        )
        assert steps <= games * 1000 * 52 * (n + 1)
        result = D.outcome(state)
        assert result is not None and len(result.scores) == n
        assert sum(result.scores) + D.view(state, None).draws == games
        assert all(D.describe(e) for e in log)
        for viewer in (None, *range(n)):
            assert len(D.render(D.view(state, viewer)).splitlines()[0]) <= 78


def test_legal_commands_are_exactly_what_decide_accepts() -> None:
    rng = random.Random(7)
    for n in (2, 3, 6):
        random_match(n, rng, bytes([n]), check=True, max_attacks=3)
