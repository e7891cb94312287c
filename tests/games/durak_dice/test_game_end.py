"""Durak with dice's end of a game and of the match (DUR-9, DUR-10, R-5): the fool, a draw, the
bout guard and the count of fools.
"""

from __future__ import annotations

from kozyr.games import durak_dice as D
from kozyr.games.contract import Outcome
from tests.games.durak_dice.scenarios import (
    BASE2,
    DRAW2,
    DRAW2_ATTACKS,
    DRAW2_BEATS,
    FOOL3_MOVES,
    TAKE,
    A,
    act,
    begin,
    cards,
    draw2_moves,
    fool3_game,
    play,
    refused,
    setup_of,
    suit,
)

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
