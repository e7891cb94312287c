"""Dix through its interface: illegal moves' stable codes with the state unchanged, what each
seat sees, the codec, the text, and random play within the bound.
"""

from __future__ import annotations

import json
import pickle
import random
from dataclasses import dataclass

import pytest

from kozyr.core.cards import ALL_CARDS, JOKER, Suit
from kozyr.games import IllegalMove, Setup, dix, fold
from kozyr.games.codec import Registry, class_of, encode
from kozyr.games.dix import (
    Dealt,
    Play,
    TrickWon,
    TurnedUp,
)
from tests.games.dix.scenarios import SWEEP_0, C, State, deck_for, new, one, play, play_hand

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
