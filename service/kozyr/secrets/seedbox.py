"""The server seeds at rest: sealed with AES-256-GCM under a key the service holds, so whoever
can read Redis (a backup, a replica, a shared instance) still cannot predict a running match's
deals. The match id is the associated data: a sealed seed moved to another match does not open.

The key is 32 random bytes in a file of its own (owner-only), shared by every replica that
serves the same Redis; `load_or_create` makes it on first start.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from kozyr.match.errors import Kind, MatchError

PREFIX = "v1:"


class SeedBox:
    """Seals and opens server seeds."""

    def __init__(self, key: bytes) -> None:
        if len(key) != 32:
            raise ValueError("a seed key is 32 bytes")
        self._aead = AESGCM(key)

    def seal(self, match_id: str, seed: bytes) -> str:
        """The stored form of a match's server seed."""
        nonce = os.urandom(12)
        sealed = self._aead.encrypt(nonce, seed, match_id.encode())
        return PREFIX + base64.b64encode(nonce + sealed).decode()

    def open(self, match_id: str, stored: str) -> bytes:
        """The server seed; INTERNAL if it was sealed under another key or altered."""
        try:
            if not stored.startswith(PREFIX):
                raise ValueError("not a sealed seed")
            raw = base64.b64decode(stored[len(PREFIX) :])
            return self._aead.decrypt(raw[:12], raw[12:], match_id.encode())
        except Exception as e:  # InvalidTag, bad base64: the same answer, nothing leaked
            raise MatchError(
                Kind.INTERNAL,
                "SEED_SEALED_ELSEWHERE",
                "the match's seed cannot be opened with this server's seed key "
                "(every replica needs the same --seed-key-file)",
                match_id,
            ) from e


def load_or_create(path: Path) -> SeedBox:
    """The key in `path`, made (owner-only) if the file does not exist yet."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(os.urandom(32))
    key = path.read_bytes()
    if len(key) != 32:
        raise ValueError(f"{path} does not hold a 32-byte seed key")
    return SeedBox(key)
