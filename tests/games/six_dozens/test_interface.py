"""Six Dozens through its interface: each illegal command's reason with the state unchanged,
what each seat sees, the codec, the text, and random play to the end.
"""

from __future__ import annotations

import json
import random

import pytest

from kozyr.core.cards import Suit, parse_card
from kozyr.games import six_dozens as sd
from kozyr.games.codec import Registry, class_of, decode_as, encode
from kozyr.games.contract import IllegalMove, fold
from tests.games.six_dozens.scenarios import (
    BLOCKED_2,
    SHEDDER,
    STUCK_3,
    STUCK_3_MOVES,
    hand,
    illegal,
    new,
    play,
)

# ------------------------------------------------------------------------ illegal commands


def test_illegal_commands_each_reason_and_state_unchanged() -> None:
    state, _ = new(
        2,
        ["JH QS 6H 8C KH AH 10S 9D", "AS KS JS 9S 7S AD KD QD"],
        "QH",
        "JD 10D 7D AC KC",
        first_dealer=1,
        trumps="NONE",
    )
    illegal(state, 2, sd.Play(parse_card("JH")), "NOT_A_SEAT")
    illegal(state, -1, sd.Play(parse_card("JH")), "NOT_A_SEAT")
    illegal(state, 1, sd.Play(parse_card("KD")), "NOT_YOUR_TURN")
    illegal(state, 1, sd.Play(parse_card("JH")), "NOT_YOUR_TURN")  # turn before the card
    illegal(state, 0, "play JH", "UNKNOWN_COMMAND")
    illegal(state, 0, sd.Passed(0), "UNKNOWN_COMMAND")
    illegal(state, 0, sd.Play(parse_card("KD")), "CARD_NOT_IN_HAND")
    illegal(state, 0, sd.Play(parse_card("2S")), "CARD_NOT_IN_HAND")
    illegal(state, 0, sd.Play(parse_card("AH")), "CARD_NOT_PLAYABLE")
    with pytest.raises(IllegalMove) as info:
        sd.decide(state, 0, sd.Play(parse_card("KH")))
    assert info.value.message == "KH cannot go on the bank QH: play JH, a Q, 6H or an 8"
    assert info.value.rule == "SIX-6"
    over, _ = new(2, *BLOCKED_2, first_dealer=1, max_hands=1, trumps="NONE")
    illegal(over, 0, sd.Play(parse_card("KS")), "MATCH_OVER")
    illegal(over, 3, sd.Play(parse_card("KS")), "NOT_A_SEAT")


# ---------------------------------------------------------------------- views and events


def test_view_shows_own_hand_counts_and_the_public_table() -> None:
    state, _ = new(2, *SHEDDER, first_dealer=1, trumps="NONE")
    v = sd.view(state, 0)
    assert v.seat == 0 and v.players == ("p0", "p1")
    assert hand(state, 0) == "6S 8S 6H 8H 6D 8D 6C 8C"
    assert v.hand_sizes == (8, 8)
    assert (v.to_act, v.dealer, v.first_mover, v.hand_number) == (0, 1, 0, 1)
    assert (v.bank, v.stock_count, v.kitty) == (parse_card("AS"), 5, 0)
    assert (v.trump_mode, v.trump_suits, v.skip_next, v.finished) == ("NONE", (), False, False)
    assert v.last_play == "8 cards each; bank AS, stock 5; seat 0 moves first"
    spectator = sd.view(state, None)
    assert spectator.hand == () and spectator.seat is None
    encoded = json.dumps(encode(spectator))
    for code in ["6S", "KH", "KC"]:  # hands and stock stay hidden
        assert f'"{code}"' not in encoded
    assert decode_as(sd.View, json.loads(json.dumps(encode(v)))) == v


def test_view_personal_trumps() -> None:
    state, _ = new(3, seed=b"v")
    v = sd.view(state, 1)
    assert v.trump_mode == "PERSONAL" and v.trump_suits == (Suit.S, Suit.H, Suit.D)


def test_redact_hides_seed_decks_stock_and_other_hands() -> None:
    _, events = new(2, *SHEDDER, first_dealer=1, trumps="NONE")
    started = sd.redact(events[0], 1)
    assert isinstance(started, sd.MatchStarted)
    assert started.seed == b"" and started.decks == ((),) and started.prearranged
    dealt = events[2]
    mine = sd.redact(dealt, 1)
    assert isinstance(mine, sd.Dealt)
    assert mine.hands == ((), dealt.hands[1]) and mine.deck == ()
    turned = events[3]
    assert isinstance(turned, sd.BankTurned) and sd.redact(turned, 1) == turned
    assert turned.stock_count == 5
    seen = sd.redact(dealt, None)
    assert isinstance(seen, sd.Dealt) and seen.hands == ((), ())
    assert sd.redact(events[1], None) == events[1]
    played = sd.CardPlayed(0, parse_card("6S"))
    assert sd.redact(played, 1) is played


def test_events_survive_the_codec() -> None:
    state, events = new(3, *STUCK_3, first_dealer=0, deck=28, trumps="NONE")
    for seat, code in STUCK_3_MOVES:
        state, more = play(state, seat, code)
        events.extend(more)
    registry = Registry(sd.EVENT_TYPES)
    decoded = [registry.decode(json.loads(json.dumps(encode(e)))) for e in events]
    assert decoded == events
    assert fold(sd, decoded) == state
    for e in events:
        redacted = sd.redact(e, 1)
        assert type(redacted) in {class_of(t) for t in sd.EVENT_TYPES}
        assert registry.decode(encode(redacted)) == redacted


def test_render_and_describe() -> None:
    state, _ = new(4, seed=b"render-test-with-a-long-name")
    for viewer in [0, 3, None]:
        text = sd.render(sd.view(state, viewer))
        lines = text.splitlines()
        assert len(lines) <= 12
        assert all(len(line) <= 78 for line in lines)
        assert "Bank:" in text and "personal trumps" in text
    assert "Your hand:" in sd.render(sd.view(state, 0))
    assert "Your hand:" not in sd.render(sd.view(state, None))
    assert sd.describe(sd.CardPlayed(1, parse_card("QS"))) == "seat 1 plays QS"
    assert sd.describe(sd.TurnSkipped(2)) == "seat 2 loses a turn to the 7"
    assert sd.describe(sd.PlayerOut(3, 2)) == "seat 3 is out (2nd)"


# ---------------------------------------------------------------------------- random play


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_play_always_ends(players: int) -> None:
    """50 random matches per player count end within max_hands × n × hand size decisions."""
    rng = random.Random(players)
    for i in range(50):
        options: dict[str, object] = {
            "deck": rng.choice([36, 32, 28]),
            "trumps": rng.choice(sd.TRUMP_MODES),
            "seven": rng.choice(["SKIP", "NONE"]),
            "dealer": rng.choice(
                ["FIRST_MOVER", "LOSER", "FIRST_OUT", "MOST_POINTS", "FEWEST_POINTS"]
            ),
            "final_kitty": rng.choice(["DISCARD", "SPLIT_SOLVENT"]),
            "eight_on_trumps": rng.choice([True, False]),
        }
        if i % 10 == 0:
            options["max_hands"] = rng.randint(1, 3)
        config = sd.make_config(options, players)
        state = fold(sd, sd.start(config, [f"p{k}" for k in range(players)], b"r%d" % i))
        bound = config.max_hands * players * sd.HAND_SIZE[config.deck]
        checked = i < 3
        for _ in range(bound + 1):
            seat = sd.to_act(state)
            if seat is None:
                break
            commands = sd.legal_commands(state, seat)
            assert commands, "a seat to act always has a legal card (R-4)"
            if checked:  # decide refuses exactly the cards that are not offered
                for c in sd.view(state, seat).hand:
                    if sd.Play(c) not in commands:
                        with pytest.raises(IllegalMove):
                            sd.decide(state, seat, sd.Play(c))
            state = fold(sd, sd.decide(state, seat, rng.choice(commands)), state)
        result = sd.outcome(state)
        assert result is not None, "no outcome within the bound"
        assert result.winners
        assert state.hand_number <= config.max_hands
        assert sum(len(z) for z in sd.zones(state).values()) == config.deck
