"""The server's signing key: an Ed25519 receipt on every entry, made when it is appended.

The key lives in a folder of its own (by default ``<data-dir>/signing``):

- ``current.key`` — the private key, 32 raw bytes, owner-only (0600), made on first start
  (or given as a file of its own, ``--signing-key-file``, e.g. a mounted secret);
- ``keys.txt`` — every public key this server has signed with, one line each
  (``<key id> <public key hex> current|retired <valid from, ms> <valid until, ms or ->``).
  Rotation writes a new ``current.key`` valid from the rotation and keeps the old public key
  listed as retired, valid until then, so entries signed before still verify and its
  signatures on later entries do not (docs/fairness.md §6). A listing of older servers (three
  words a line) reads as valid always.

Replicas serving the same Redis should share the folder (as they share the seed key), so a
player's receipts name a key the operator publishes. The message format and the verification
are in `kozyr.core.receipts` (pure).
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from kozyr.core.receipts import Receipt, fingerprint, key_id, signed_bytes

CURRENT = "current.key"
LISTING = "keys.txt"


@dataclass(frozen=True, slots=True)
class PublicKey:
    """One listed public key."""

    key_id: str
    public_key: bytes
    current: bool
    valid_from: int = 0  # ms since the epoch: entries from then on may carry it
    valid_until: int | None = None  # ms, exclusive; None: no end (the current key)

    @property
    def fingerprint(self) -> str:
        """SHA-256 of the raw public key, hex."""
        return fingerprint(self.public_key)


class Signer:
    """Signs receipts with one private key (and knows the public keys listed beside it)."""

    def __init__(
        self, private: bytes, listed: tuple[PublicKey, ...] = (), valid_from: int = 0
    ) -> None:
        if len(private) != 32:
            raise ValueError("an Ed25519 private key is 32 bytes")
        self._key = Ed25519PrivateKey.from_private_bytes(private)
        self.public_key = self._key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.key_id = key_id(self.public_key)
        since = next((k.valid_from for k in listed if k.key_id == self.key_id), valid_from)
        me = PublicKey(self.key_id, self.public_key, True, since)
        self.keys = (me, *(k for k in listed if k.key_id != self.key_id))

    @classmethod
    def generate(cls) -> Signer:
        """A signer with a fresh random key (tests, the embedded server of `kozyr play`)."""
        return cls(os.urandom(32))

    def sign(self, message: bytes) -> str:
        """This key's signature on `message`, hex (a tree head's: kozyr.secrets.tlog)."""
        return self._key.sign(message).hex()

    def receipt(
        self, match_id: str, version: int, entry_hash: str, commitment: str, time_ms: int
    ) -> Receipt:
        """The receipt of one entry appended at `time_ms` (the entry's own time)."""
        message = signed_bytes(match_id, version, entry_hash, commitment, self.key_id, time_ms)
        signature = self._key.sign(message).hex()
        return Receipt(match_id, version, entry_hash, commitment, self.key_id, signature, time_ms)


class EntryReceipts:
    """Signs each entry once, when the write path appends it (engine/writing.py): the signature
    is stored with the entry and every reader serves it as stored, so a receipt vouches for
    what was written then, never for what a store holds later. Nothing without a signer
    (tests, in-process tools)."""

    def __init__(self, signer: Signer | None) -> None:
        self.signer = signer

    def sign(
        self, match_id: str, version: int, digest: str, commitment: str, time_ms: int
    ) -> Receipt | None:
        """The receipt of an entry about to be appended (None without a signer)."""
        if self.signer is None:
            return None
        return self.signer.receipt(match_id, version, digest, commitment, time_ms)


def load_or_create(folder: Path, now_ms: int | None = None) -> Signer:
    """The signer whose key is in `folder` (made owner-only, and listed as valid from `now_ms`,
    default the clock, on first use)."""
    private = folder / CURRENT
    if not private.exists():
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        _write_private(private, os.urandom(32))
        return load_file(private, _now(now_ms))
    return load_file(private)


def load_file(private: Path, valid_from: int = 0) -> Signer:
    """The signer of a given private-key file (32 raw bytes, e.g. a mounted secret); the public
    keys listed beside it in ``keys.txt``, if any, stay listed. A key not listed yet is listed
    as valid from `valid_from`. The listing is brought up to date where the folder is
    writable; a read-only one (a secret volume) is left as it is."""
    listed = read_listing(private.parent)
    signer = Signer(_read_private(private), listed, valid_from)
    if set(listed) != set(signer.keys):
        with contextlib.suppress(OSError):  # read-only: GetSigningKeys still lists them
            _write_listing(private.parent, signer.keys)
    return signer


def rotate(folder: Path, now_ms: int | None = None) -> Signer:
    """A new current key valid from `now_ms` (default the clock); the old public keys stay
    listed (retired), the one that was current valid until then, so old receipts verify and
    its signatures on later entries do not."""
    now = _now(now_ms)
    old = load_or_create(folder, now)
    fresh = os.urandom(32)
    tmp = folder / (CURRENT + ".new")
    tmp.unlink(missing_ok=True)
    _write_private(tmp, fresh)
    retired = tuple(
        PublicKey(
            k.key_id,
            k.public_key,
            False,
            k.valid_from,
            now if k.valid_until is None else k.valid_until,
        )
        for k in old.keys
    )
    # The listing first: a crash between the two writes leaves the old key current and listed.
    signer = Signer(fresh, retired, now)
    _write_listing(folder, signer.keys)
    os.replace(tmp, folder / CURRENT)
    return signer


def read_listing(folder: Path) -> tuple[PublicKey, ...]:
    """The public keys listed in `folder` (none when there is no listing yet)."""
    path = folder / LISTING
    if not path.exists():
        return ()
    keys = []
    for line in path.read_text(encoding="utf-8").splitlines():
        words = line.split()
        if len(words) >= 3 and not line.startswith("#"):
            since = int(words[3]) if len(words) > 3 else 0
            until = int(words[4]) if len(words) > 4 and words[4] != "-" else None
            current = words[2] == "current"
            keys.append(PublicKey(words[0], bytes.fromhex(words[1]), current, since, until))
    return tuple(keys)


def _now(now_ms: int | None) -> int:
    return int(time.time() * 1000) if now_ms is None else now_ms


def _write_listing(folder: Path, keys: tuple[PublicKey, ...]) -> None:
    lines = [
        "# kozyr signing keys: <key id> <Ed25519 public key, hex> current|retired "
        "<valid from, ms since the epoch> <valid until, ms, exclusive | ->"
    ]
    lines += [
        f"{k.key_id} {k.public_key.hex()} {'current' if k.current else 'retired'} "
        f"{k.valid_from} {'-' if k.valid_until is None else k.valid_until}"
        for k in keys
    ]
    tmp = folder / (LISTING + ".tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.replace(tmp, folder / LISTING)


def _write_private(path: Path, key: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key)


def _read_private(path: Path) -> bytes:
    key = path.read_bytes()
    if len(key) != 32:
        raise ValueError(f"{path} does not hold a 32-byte Ed25519 private key")
    return key
