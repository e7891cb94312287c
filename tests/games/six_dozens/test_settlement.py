"""Six Dozens' settlement (SIX-11 … SIX-13): the kitty shared by those out, ruin, the split of
the capitals, and the next dealer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from kozyr.core.cards import parse_card
from kozyr.games import six_dozens as sd
from kozyr.games.contract import IllegalMove, fold
from tests.games.six_dozens.scenarios import (
    BLOCKED_2,
    BLOCKED_3,
    BLOCKED_4,
    SHEDDER,
    STUCK_3,
    STUCK_3_MOVES,
    new,
    of,
    order,
    play,
)

# --------------------------------------------------------------------------------- SIX-11


def test_SIX_11_two_out_share_two_thirds_and_one_third() -> None:
    state, _ = new(
        3,
        ["8S 9H 8D 9D JC QC", "10S AS QD KD 10C KC", "JS QS 8H JD 8C 9C"],
        "KH",
        "9S JH QH KS",
        first_dealer=0,
        deck=28,
        trumps="NONE",
    )
    moves = [
        (2, "8H"),
        (0, "8D"),
        (2, "8C"),
        (0, "8S"),
        (0, "9D"),
        (2, "9C"),
        (0, "9H"),
        (0, "JC"),
        (2, "JD"),
        (2, "JS"),
        (2, "QS"),
        (0, "QC"),
    ]
    log: list[Any] = []
    for seat, code in moves:
        assert sd.to_act(state) == seat
        state, events = play(state, seat, code)
        log.extend(events)
    assert of(log, sd.PlayerOut) == [sd.PlayerOut(2, 1), sd.PlayerOut(0, 2)]
    assert of(log, sd.HandSettled)[0] == sd.HandSettled(
        1, 1, (2, 0), (0, 6, 0), (0, 36, 0), (12, 0, 24), (84, 36, 96), 0
    )


def test_SIX_11_three_out_share_half_third_sixth() -> None:
    state, _ = new(
        4,
        ["9S JS 8H 8D JD QC", "8S 10S KS 10H JH KD", "QH KH 9C 10C JC KC", "QS AS 9H 9D QD AD"],
        "AH",
        "10D AC 8C",
        first_dealer=0,
        deck=28,
        trumps="NONE",
    )
    moves = [
        (0, "8H"),
        (1, "8S"),
        (0, "8D"),
        (1, "10H"),
        (2, "10C"),
        (1, "10S"),
        (1, "KS"),
        (2, "KH"),
        (1, "KD"),
        (2, "KC"),
        (0, "QC"),
        (2, "QH"),
        (3, "QD"),
        (0, "JD"),
        (1, "JH"),
        (2, "JC"),
        (0, "JS"),
        (0, "9S"),
        (2, "9C"),
    ]
    log: list[Any] = []
    for seat, code in moves:
        assert sd.to_act(state) == seat
        state, events = play(state, seat, code)
        log.extend(events)
    assert of(log, sd.HandSettled)[0] == sd.HandSettled(
        1, 1, (1, 0, 2), (0, 0, 0, 5), (0, 0, 0, 30), (10, 15, 5, 0), (82, 87, 77, 42), 0
    )


def test_SIX_11_kitty_carries_over_then_goes_to_the_finisher_and_SIX_12_ruin() -> None:
    # Hand 1: nobody can move (condition 3), 96 stays in the kitty. Seat 1 was the first mover
    # (9S) and deals hand 2 (SIX-13 FIRST_MOVER), where seat 0 sheds everything.
    state, events = new(2, *BLOCKED_2, first_dealer=1, more=[order(2, 1, *SHEDDER)], trumps="NONE")
    deals = of(events, sd.Dealt)
    assert of(events, sd.BankTurned)[0].first_mover == 1 and deals[1].dealer == 1
    v = sd.view(state, 0)
    assert (v.hand_number, v.kitty, v.capitals) == (2, 96, (24, 24))
    for code in ["6S", "6H", "6D", "6C", "8S", "8H", "8D"]:
        state, _ = play(state, 0, code)
    state, events = play(state, 0, "8C")
    assert events[2] == sd.HandSettled(2, 1, (0,), (0, 8), (0, 48), (144, 0), (168, -24), 0)
    assert events[3] == sd.MatchEnded(
        (0,), (168, -24), (0, 0), 0, 2, "after hand 2 seat 1 is ruined (capital -24)"
    )
    assert sd.view(state, None).finished
    result = sd.outcome(state)
    assert result is not None and result.winners == (0,) and result.scores == (168, -24)


# --------------------------------------------------------------------------------- SIX-12


def test_SIX_12_equal_highest_capitals_share_and_the_kitty_is_discarded() -> None:
    blocked = order(2, 1, *BLOCKED_2)
    for final in ["DISCARD", "SPLIT_SOLVENT"]:
        state, events = new(
            2, *BLOCKED_2, first_dealer=1, more=[blocked], final_kitty=final, trumps="NONE"
        )
        assert events[-1] == sd.MatchEnded(
            (0, 1),
            (-24, -24),
            (0, 0),
            192,
            2,
            "after hand 2 seat 0 is ruined (capital -24), seat 1 is ruined (capital -24)",
        )
        result = sd.outcome(state)
        assert result is not None
        assert dict(result.details)["kitty_discarded"] == "192"
        assert "p0 and p1 share the win with -24" in sd.render(sd.view(state, None))
        with pytest.raises(IllegalMove) as info:
            sd.decide(state, 0, sd.Play(parse_card("KS")))
        assert info.value.code == "MATCH_OVER"


@pytest.mark.parametrize(("dealer", "capitals"), [(1, (88, 56)), (0, (56, 88))])
def test_SIX_12_split_solvent_highest_first_ties_from_dealers_left(
    dealer: int, capitals: tuple[int, int]
) -> None:
    _, events = new(
        2, *BLOCKED_2, first_dealer=dealer, max_hands=1, final_kitty="SPLIT_SOLVENT", trumps="NONE"
    )
    end = events[-1]
    assert end.capitals == capitals and end.kitty_discarded == 0
    assert end.winners == ((0,) if capitals[0] > capitals[1] else (1,))


def test_SIX_12_split_solvent_by_capital() -> None:
    _, events = new(
        2,
        ["KS AS QH AH 9D 10D", "JS 10H JH QD JC KC"],
        "9H",
        "8H 8C 8S 9C 9S",
        first_dealer=0,
        deck=28,
        max_hands=1,
        final_kitty="SPLIT_SOLVENT",
        trumps="NONE",
    )
    state = fold(sd, events)
    state, events = play(state, 0, "9D")
    # Capitals 42 and 36, kitty 66: seat 0 (higher) takes 2/3.
    assert events[-1].kitty_shares == (44, 22)
    assert events[-1].capitals == (86, 58)
    discard_state, _ = new(
        2,
        ["KS AS QH AH 9D 10D", "JS 10H JH QD JC KC"],
        "9H",
        "8H 8C 8S 9C 9S",
        first_dealer=0,
        deck=28,
        max_hands=1,
        trumps="NONE",
    )
    _, events = play(discard_state, 0, "9D")
    assert events[-1].capitals == (42, 36) and events[-1].kitty_discarded == 66


def test_SIX_12_four_solvent_the_fourth_gets_nothing() -> None:
    _, events = new(
        4,
        *BLOCKED_4,
        first_dealer=0,
        deck=28,
        max_hands=1,
        final_kitty="SPLIT_SOLVENT",
        trumps="NONE",
    )
    settled = of(events, sd.HandSettled)[0]
    assert settled.capitals == (36, 36, 36, 36) and settled.kitty == 144
    end = events[-1]
    assert end.kitty_shares == (0, 72, 48, 24)
    assert end.capitals == (36, 108, 84, 60)
    assert end.winners == (1,)


# --------------------------------------------------------------------------------- SIX-13


def second_dealer(events: Sequence[Any]) -> int:
    return int(of(events, sd.Dealt)[1].dealer)


@pytest.mark.parametrize(
    ("rule", "dealer"),
    [("FIRST_MOVER", 0), ("LOSER", 2), ("FIRST_OUT", 0), ("MOST_POINTS", 0), ("FEWEST_POINTS", 2)],
)
def test_SIX_13_next_dealer(rule: str, dealer: int) -> None:
    # After STUCK_3: cards left (0, 5, 6), seat 0 out first, capitals (138, 42, 36).
    state, _ = new(3, *STUCK_3, first_dealer=0, deck=28, trumps="NONE", dealer=rule)
    log: list[Any] = []
    for seat, code in STUCK_3_MOVES:
        state, events = play(state, seat, code)
        log.extend(events)
    assert of(log, sd.Dealt)[0].dealer == dealer


@pytest.mark.parametrize("rule", ["LOSER", "FIRST_OUT", "MOST_POINTS", "FEWEST_POINTS"])
def test_SIX_13_ties_and_no_candidate_go_clockwise_from_the_dealers_left(rule: str) -> None:
    # Everybody keeps 6 cards, nobody went out, capitals are equal: seat 2 (left of seat 1).
    _, events = new(3, *BLOCKED_3, first_dealer=1, deck=28, trumps="NONE", dealer=rule)
    assert second_dealer(events) == 2


def test_SIX_13_loser_with_most_cards_left() -> None:
    state, _ = new(
        2,
        ["KS AS QH AH 9D 10D", "JS 10H JH QD JC KC"],
        "9H",
        "8H 8C 8S 9C 9S",
        first_dealer=1,
        deck=28,
        trumps="NONE",
        dealer="LOSER",
    )
    _, events = play(state, 0, "9D")
    assert of(events, sd.Dealt)[0].dealer == 1  # 6 cards against 5
