"""Dix's scoring (DIX-8, DIX-9): a hand's score, the target, the totals and the tiebreaks."""

from __future__ import annotations

from typing import Any

from kozyr.games import dix
from kozyr.games.dix import (
    HandEnded,
    MatchEnded,
    TrickWon,
)
from tests.games.dix.scenarios import (
    SWEEP_0,
    SWEEP_1,
    Policy,
    State,
    avoid_ten,
    codes,
    lowest,
    make_ten,
    new,
    one,
    play_hand,
)

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
