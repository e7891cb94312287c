"""The deterministic random stream every deal and die roll comes from (docs/rules.md R-1).

Specified in docs/fairness.md so that anyone can re-derive a match's deals in another language:

- A *stream* is named by a match seed (bytes) and a label (ASCII text such as ``deal/1``).
  Its bytes are the concatenation of blocks
  ``HMAC-SHA256(key=seed, msg=label || 0x00 || counter)``, ``counter`` a 64-bit big-endian
  integer starting at 0.
- `randbelow(n)` reads the next 8 bytes as a big-endian unsigned integer ``x`` and returns
  ``x mod n`` if ``x < 2**64 - (2**64 mod n)``; otherwise it discards them and reads again
  (rejection sampling, so every value is exactly equally likely).
- `shuffle(items)` is Fisher–Yates from the end: for ``i`` from ``len-1`` down to 1, swap
  ``items[i]`` with ``items[randbelow(i+1)]``.
- `die()` is ``1 + randbelow(6)``.

Nothing here touches global randomness or the clock; Python's `random` is never used for deals.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from typing import Final, TypeVar

T = TypeVar("T")

_U64: Final = 1 << 64
_SHA256_BLOCK: Final = 64
_IPAD: Final = bytes(b ^ 0x36 for b in range(256))  # HMAC's pads, as byte translation tables
_OPAD: Final = bytes(b ^ 0x5C for b in range(256))

# Stream labels the games use; documented in docs/fairness.md.
FIRST_DEALER: Final = "first-dealer"


def deal_label(hand: int) -> str:
    """Label of the stream that shuffles the deck of hand (or game) number `hand` (from 1)."""
    return f"deal/{hand}"


def dice_label(hand: int) -> str:
    """Label of the stream of die rolls of hand (or game) number `hand` (from 1)."""
    return f"dice/{hand}"


class RandomStream:
    """An HMAC-SHA256 counter-mode byte stream with unbiased sampling on top."""

    __slots__ = ("_buffer", "_counter", "_inner", "_label", "_outer", "_pos")

    def __init__(self, seed: bytes, label: str) -> None:
        # HMAC (RFC 2104) with the key's two padded blocks hashed once: each block of the
        # stream then costs two SHA-256 copies, not a new HMAC object (the same bytes, faster).
        key = seed if len(seed) <= _SHA256_BLOCK else hashlib.sha256(seed).digest()
        key = key.ljust(_SHA256_BLOCK, b"\x00")
        self._inner = hashlib.sha256(key.translate(_IPAD))
        self._outer = hashlib.sha256(key.translate(_OPAD))
        self._label = label.encode("ascii") + b"\x00"
        self._counter = 0
        self._buffer = b""
        self._pos = 0

    def _block(self) -> bytes:
        """The next 32-byte block, HMAC-SHA256(seed, label || 0x00 || counter)."""
        inner = self._inner.copy()
        inner.update(self._label + self._counter.to_bytes(8, "big"))
        outer = self._outer.copy()
        outer.update(inner.digest())
        self._counter += 1
        return outer.digest()

    def read(self, n: int) -> bytes:
        """The next `n` bytes of the stream."""
        buf, pos = self._buffer, self._pos
        if len(buf) - pos < n:
            parts, have = [buf[pos:]], len(buf) - pos
            while have < n:
                parts.append(self._block())
                have += 32
            buf, pos = b"".join(parts), 0
            self._buffer = buf
        self._pos = pos + n
        return buf[pos : pos + n]

    def randbelow(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` by rejection sampling on 64-bit draws."""
        if not 0 < n <= _U64:
            raise ValueError(f"randbelow needs 0 < n <= 2**64, got {n}")
        limit = _U64 - (_U64 % n)
        while True:
            x = int.from_bytes(self.read(8), "big")
            if x < limit:
                return x % n

    def shuffle(self, items: Sequence[T]) -> tuple[T, ...]:
        """A Fisher–Yates shuffle of `items` (the input is not changed)."""
        out = list(items)
        k = len(out) - 1
        if k < 1:
            return tuple(out)
        # The k draws of a shuffle without rejections, read at once (a rejection, rarer than one
        # shuffle in 2**50, reads on): the same draws as k calls of randbelow, in fewer steps.
        draws = struct.unpack(f">{k}Q", self.read(8 * k))
        d = 0
        for i in range(k, 0, -1):
            n = i + 1
            limit = _U64 - _U64 % n
            while True:
                if d < k:
                    x = draws[d]
                    d += 1
                else:
                    x = int.from_bytes(self.read(8), "big")
                if x < limit:
                    break
            j = x % n
            out[i], out[j] = out[j], out[i]
        return tuple(out)

    def die(self) -> int:
        """One fair six-sided die roll, 1..6."""
        return 1 + self.randbelow(6)


def shuffled(seed: bytes, label: str, items: Sequence[T]) -> tuple[T, ...]:
    """`items` shuffled by the stream (seed, label)."""
    return RandomStream(seed, label).shuffle(items)


def commitment(seed: bytes) -> str:
    """The public SHA-256 commitment to a secret seed, as lowercase hex."""
    return hashlib.sha256(seed).hexdigest()


MATCH_SEED_TAG: Final = b"kozyr/match-seed/v1\x00"


def match_seed(server_seed: bytes, contributions: Sequence[bytes]) -> bytes:
    """docs/fairness.md §1: the seed every deal, roll and lot comes from: SHA-256 over a tag, the
    server seed and each seat's contribution (in seat order, each prefixed by its u32be length)."""
    h = hashlib.sha256(MATCH_SEED_TAG + server_seed)
    for c in contributions:
        h.update(len(c).to_bytes(4, "big") + c)
    return h.digest()
