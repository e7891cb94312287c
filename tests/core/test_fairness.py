"""The deterministic stream of docs/fairness.md (RULES.md R-1): vectors and an independent check."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kozyr.core.cards import deck, format_cards
from kozyr.core.fairness import RandomStream, commitment, deal_label, dice_label, shuffled

SEED = bytes.fromhex("00112233445566778899aabbccddeeff")


def test_R_1_vector_stream_bytes() -> None:
    assert RandomStream(SEED, "deal/1").read(16).hex() == "9c96e63ec63097257b039871d3d89f17"


def test_R_1_vector_36_card_shuffle() -> None:
    assert format_cards(shuffled(SEED, deal_label(1), deck(36))) == (
        "QS AC 6S QH 10S 10D 8C JD AS 7H 6C 8S 6D 10H 9D 8D 8H 9C KD AH 7S QC 9S AD KH KC 7C KS "
        "10C 9H 7D JC JH QD JS 6H"
    )
    assert format_cards(shuffled(b"kozyr", deal_label(1), deck(36))) == (
        "7C 8C AD 9S 7H JC 6S QH QD KH 10D 6C 7S 8H 8S KD JS 7D AS 6H KS QS 9D QC AH AC 9H JH "
        "10C 10H JD 9C KC 6D 10S 8D"
    )


def test_R_1_vector_53_card_shuffle() -> None:
    assert format_cards(shuffled(SEED, deal_label(1), deck(53))) == (
        "8S 6S 6D 10H 7H 3D 8H KS 3H 6C JK 2D JH 2S KH 6H AS 2H 5C 4H AC JC 2C 4S 5H QH 5D JD QS "
        "7S AD 7D 8C QD KD 3S 10D 3C 9D QC 9C AH 5S 10S KC 7C 4D JS 8D 9H 4C 10C 9S"
    )


def test_R_1_vector_first_ten_dice() -> None:
    stream = RandomStream(SEED, dice_label(1))
    assert [stream.die() for _ in range(10)] == [2, 6, 6, 2, 6, 4, 3, 6, 6, 6]


def _independent_shuffle(seed: bytes, label: str, items: list[str]) -> list[str]:
    """docs/fairness.md re-implemented from the text alone, without kozyr.core.fairness."""
    buf, counter = b"", 0

    def randbelow(n: int) -> int:
        nonlocal buf, counter
        while True:
            while len(buf) < 8:
                msg = label.encode() + b"\x00" + counter.to_bytes(8, "big")
                buf += hmac.new(seed, msg, hashlib.sha256).digest()
                counter += 1
            x, buf = int.from_bytes(buf[:8], "big"), buf[8:]
            if x < 2**64 - 2**64 % n:
                return x % n

    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = randbelow(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


@given(st.binary(min_size=0, max_size=40), st.integers(1, 9))
def test_R_1_independent_recipe_agrees(seed: bytes, hand: int) -> None:
    codes = [c.code for c in deck(53)]
    ours = [c.code for c in shuffled(seed, deal_label(hand), deck(53))]
    assert ours == _independent_shuffle(seed, deal_label(hand), codes)


@given(st.binary(max_size=32), st.integers(1, 1000))
def test_randbelow_stays_in_range(seed: bytes, n: int) -> None:
    stream = RandomStream(seed, "x")
    assert all(0 <= stream.randbelow(n) < n for _ in range(20))


def test_die_is_roughly_uniform() -> None:
    stream = RandomStream(b"uniform", "dice/1")
    counts = Counter(stream.die() for _ in range(6000))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    # 6000 rolls: each face expects 1000 with sd ~29; 5 sd is generous and still catches bias.
    assert all(850 < n < 1150 for n in counts.values()), counts


def test_shuffle_is_a_permutation_and_does_not_touch_input() -> None:
    cards = deck(36)
    out = shuffled(b"s", "deal/1", cards)
    assert sorted(out) == sorted(cards) and out != cards and cards == deck(36)


def test_randbelow_refuses_empty_range() -> None:
    with pytest.raises(ValueError):
        RandomStream(b"", "x").randbelow(0)


def test_commitment_is_sha256_hex() -> None:
    assert commitment(b"abc") == hashlib.sha256(b"abc").hexdigest()


class _Fixed(RandomStream):
    """A stream whose bytes are given, to reach the rejection branch at will."""

    def __init__(self, data: bytes) -> None:
        super().__init__(b"", "fixed")
        self.rest = data

    def read(self, n: int) -> bytes:
        out, self.rest = self.rest[:n], self.rest[n:]
        assert len(out) == n, "the fixed stream ran out"
        return out


def test_shuffle_with_a_rejected_draw_is_the_shuffle_of_randbelow() -> None:
    # Draw 3 of a 10-item shuffle is for n = 7: 2**64 - 1 is rejected and the next word is used.
    words = [5, 6, 7, 2**64 - 1, 8, 9, 10, 11, 12, 13]
    data = b"".join(w.to_bytes(8, "big") for w in words)
    reference, stream = list(range(10)), _Fixed(data)
    for i in range(9, 0, -1):
        j = stream.randbelow(i + 1)
        reference[i], reference[j] = reference[j], reference[i]
    shuffler = _Fixed(data)
    assert shuffler.shuffle(range(10)) == tuple(reference) != tuple(range(10))
    assert stream.rest == shuffler.rest == b""  # both read exactly the ten words


@given(st.binary(min_size=65, max_size=200), st.lists(st.integers(0, 70), max_size=8))
def test_long_keys_and_any_read_sizes_follow_the_hmac_recipe(seed: bytes, sizes: list[int]) -> None:
    stream, expected = RandomStream(seed, "x"), b""
    counter = 0
    while len(expected) < sum(sizes):
        expected += hmac.new(seed, b"x\x00" + counter.to_bytes(8, "big"), hashlib.sha256).digest()
        counter += 1
    assert b"".join(stream.read(n) for n in sizes) == expected[: sum(sizes)]
