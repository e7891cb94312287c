"""Six Dozens' end of a hand (SIX-9, SIX-10): going out in order, and the three conditions that
end a hand.
"""

from __future__ import annotations

from typing import Any

from kozyr.core.cards import parse_card
from kozyr.games import six_dozens as sd
from tests.games.six_dozens.scenarios import (
    BLOCKED_2,
    SHEDDER,
    STUCK_3,
    STUCK_3_MOVES,
    legal,
    names,
    new,
    of,
    play,
)

# ------------------------------------------------------------------------------- SIX-9, 10


def test_SIX_9_out_in_finishing_order_and_SIX_10_condition_2() -> None:
    state, _ = new(3, *STUCK_3, first_dealer=0, deck=28, trumps="NONE")
    assert state.first_mover == 0  # 8H is the heart nearest the 6
    log: list[Any] = []
    for seat, code in STUCK_3_MOVES:
        assert sd.to_act(state) == seat
        state, events = play(state, seat, code)
        log.extend(events)
    assert names(log[:18]) == [
        "seat 0 plays 9H",
        "seat 1 passes (no legal card)",
        "seat 2 passes (no legal card)",
        "seat 0 plays 8C",
        "seat 1 passes (no legal card)",
        "seat 2 passes (no legal card)",
        "seat 0 plays 8H",
        "the stock covers the bank with JD",
        "seat 0 plays 9D",
        "seat 1 passes (no legal card)",
        "seat 2 passes (no legal card)",
        "seat 0 plays 9C",
        "the stock covers the bank with 8D",
        "the stock covers the bank with KH",
        "seat 0 plays QH",
        "seat 0 is out (1st)",
        "seat 1 plays QD",
        "hand 1 ends (condition 2): seat 1 pays 30; seat 2 pays 36; seat 0 gets 66; kitty 0",
    ]
    assert type(log[18]) is sd.Dealt and log[18].number == 2
    settled = of(log, sd.HandSettled)[0]
    assert settled == sd.HandSettled(
        1, 2, (0,), (0, 5, 6), (0, 30, 36), (66, 0, 0), (138, 42, 36), 0
    )
    assert of(log, sd.PlayerOut) == [sd.PlayerOut(0, 1)]


def test_SIX_9_out_order_is_public_during_the_hand() -> None:
    state, _ = new(3, *STUCK_3, first_dealer=0, deck=28, trumps="NONE")
    for seat, code in STUCK_3_MOVES[:6]:
        state, _ = play(state, seat, code)
    v = sd.view(state, None)
    assert v.out_order == (0,)
    assert v.hand_sizes == (0, 6, 6)
    assert sd.to_act(state) == 1 and legal(state) == "QD"


def test_SIX_10_condition_1_last_player_holding_cards() -> None:
    state, _ = new(2, *SHEDDER, first_dealer=1, trumps="NONE")
    assert sd.to_act(state) == 0 and legal(state) == "6S 8S 8H 8D 8C"
    for code in ["6S", "6H", "6D", "6C", "8S", "8H", "8D"]:
        state, events = play(state, 0, code)
        assert events[1:] == [sd.Passed(1)]
    state, events = play(state, 0, "8C")
    assert events[1] == sd.PlayerOut(0, 1)
    settled = events[2]
    assert settled == sd.HandSettled(1, 1, (0,), (0, 8), (0, 48), (48, 0), (120, 24), 0)
    assert type(events[3]) is sd.Dealt and type(events[4]) is sd.BankTurned


def test_SIX_10_condition_3_before_the_first_turn() -> None:
    _, events = new(2, *BLOCKED_2, first_dealer=1, max_hands=1, trumps="NONE")
    assert names(events[4:9]) == [
        f"the stock covers the bank with {c}" for c in ["8H", "8D", "8C", "AS", "AH"]
    ]
    settled = events[9]
    assert settled == sd.HandSettled(1, 3, (), (8, 8), (48, 48), (0, 0), (24, 24), 96)


def test_SIX_10_condition_3_after_play() -> None:
    state, events = new(
        2,
        ["KS AS QH AH 9D 10D", "JS 10H JH QD JC KC"],
        "9H",
        "8H 8C 8S 9C 9S",
        first_dealer=0,
        deck=28,
        max_hands=1,
        trumps="NONE",
    )
    # Seat 1 (JH is the heart nearest the 6) has nothing for 9H and passes in the opening.
    assert events[-1] == sd.Passed(1)
    assert sd.to_act(state) == 0 and legal(state) == "9D"
    state, events = play(state, 0, "9D")
    assert [type(e) for e in events] == [
        sd.CardPlayed,
        *[sd.BankCovered] * 5,
        sd.HandSettled,
        sd.MatchEnded,
    ]
    assert events[6] == sd.HandSettled(1, 3, (), (5, 6), (30, 36), (0, 0), (42, 36), 66)


def test_SIX_10_an_eight_anywhere_prevents_the_cover() -> None:
    # Bank 9S: the first mover (7S) cannot play, but seat 1's 8 can, so there is no cover.
    state, events = new(
        2,
        ["7S KD AC 10C JC AD 10D JD", "QH AH 10H JH QD 7C 7D 8H"],
        "9S",
        "KH 9D 9C 6C 6D",
        first_dealer=1,
        trumps="NONE",
    )
    assert events[4:] == [sd.Passed(0)]
    assert sd.to_act(state) == 1 and legal(state) == "8H"
    assert state.bank == parse_card("9S") and len(state.stock) == 5
