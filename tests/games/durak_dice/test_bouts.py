"""Durak with dice's bouts (DUR-5 … DUR-8): attacking, beating and taking, throwing in, and who
attacks next.
"""

from __future__ import annotations

import pytest

from kozyr.core.cards import parse_card
from kozyr.games import durak_dice as D
from tests.games.durak_dice.scenarios import (
    BASE2,
    BASE6,
    DRAW2,
    DRAW2_ATTACKS,
    DRAW2_BEATS,
    OUT3,
    PASS,
    TAKE,
    A,
    B,
    act,
    begin,
    cards,
    draw2_moves,
    of_type,
    play,
    refused,
)

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
