"""Cards and decks: the one canonical text form, interning and the deck sizes."""

from __future__ import annotations

import pickle
import random

import pytest

from kozyr.core.cards import (
    ALL_CARDS,
    JOKER,
    Rank,
    Suit,
    card,
    cards_of,
    deck,
    format_cards,
    mask_of,
    parse_card,
    parse_cards,
)


@pytest.mark.parametrize("code", ["10H", "QS", "AD", "2C", "JK", "9D", "JC"])
def test_codes_round_trip(code: str) -> None:
    assert parse_card(code).code == code


def test_parse_is_lenient_on_case_and_ten_alias() -> None:
    assert parse_card("qs") is card(Rank.QUEEN, Suit.S)
    assert parse_card("TH") is card(Rank.TEN, Suit.H)
    assert parse_card(" jk ") is JOKER


@pytest.mark.parametrize("bad", ["", "1H", "11S", "QX", "JOKER", "10"])
def test_parse_refuses_non_cards_with_a_hint(bad: str) -> None:
    with pytest.raises(ValueError, match=r"write e\.g\."):
        parse_card(bad)


@pytest.mark.parametrize(("size", "low"), [(52, 2), (53, 2), (36, 6), (32, 7), (28, 8)])
def test_deck_sizes(size: int, low: int) -> None:
    cards = deck(size)
    assert len(cards) == len(set(cards)) == size
    assert min(c.rank for c in cards if not c.is_joker) == low
    assert (JOKER in cards) == (size == 53)


def test_unknown_deck_size() -> None:
    with pytest.raises(ValueError):
        deck(40)


def test_cards_are_interned_and_survive_pickling() -> None:
    qs = parse_card("QS")
    assert pickle.loads(pickle.dumps(qs)) is qs
    assert parse_cards("QS, 10H JK") == (qs, card(10, Suit.H), JOKER)
    assert format_cards(deck(28)[:3]) == "8S 9S 10S"


def test_cards_are_immutable() -> None:
    with pytest.raises(AttributeError):
        parse_card("QS").rank = Rank.KING  # type: ignore[misc]


def test_masks_round_trip_in_canonical_order() -> None:
    some = parse_cards("JK QS 2S 10H AC")
    assert mask_of(some) == 1 << 52 | 1 << 10 | 1 << 0 | 1 << 21 | 1 << 51
    assert cards_of(mask_of(some)) == parse_cards("2S QS 10H AC JK")
    assert cards_of(mask_of(deck(53))) == deck(53) and cards_of(0) == ()


def test_every_subset_of_a_deck_unpacks_in_index_order() -> None:
    rng = random.Random(7)
    for size in range(54):
        some = rng.sample(ALL_CARDS, size)
        assert cards_of(mask_of(some)) == tuple(sorted(some, key=lambda c: c.index))


def test_a_mask_with_bits_past_the_joker_is_refused() -> None:
    for bad in (1 << 53, 1 << 55 | 1, 1 << 60):
        with pytest.raises(ValueError, match="not a mask of cards"):
            cards_of(bad)
