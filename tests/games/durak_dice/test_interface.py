"""Durak with dice through its interface: each illegal move's reason code, what each seat sees,
the codec, the text, and random play (legal commands match decide, cards are conserved, every
match ends).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest

from kozyr.core.cards import JOKER, Suit, deck, parse_card
from kozyr.games import codec
from kozyr.games import durak_dice as D
from kozyr.games.contract import IllegalMove
from tests.games.durak_dice.scenarios import (
    BASE6,
    BASE6_HANDS,
    FOOL3_MOVES,
    NO_SETUP,
    PASS,
    TAKE,
    A,
    B,
    act,
    begin,
    cards,
    fool3_game,
    play,
    refused,
    setup_of,
)

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
