"""Durak with dice scenarios: the helpers and prearranged deals the rule tests share (RULES.md
DUR-1 … DUR-10, R-1 … R-6).

Deals are prearranged: `arrange` builds a deck order and the die rolls from the hands each seat
should receive, so every test states exactly who holds what.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from kozyr.core.cards import Card, deck, parse_card, parse_cards
from kozyr.games import durak_dice as D
from kozyr.games.contract import Game, IllegalMove, Setup, fold

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
