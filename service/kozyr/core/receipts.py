"""Signed receipts (docs/fairness.md §6): the server's Ed25519 signature on one log entry.

A receipt says "entry `version` of match `match_id`, whose SHA-256 is `entry_hash`, is in my
log, appended at `time_ms`, and the match was committed to `commitment`", signed with the key
`key_id`. Whoever holds
a receipt can later prove what the server's log held: a log without that entry, or with another
entry at that version, was rewritten after the server signed it.

This module is the *verification* half and the message format, so `kozyr replay verify` (and
anyone's client) can check receipts with nothing but the `cryptography` package; the private
key and signing live in `kozyr.secrets.signing`.

The signed bytes are the canonical JSON (sorted keys, no spaces, UTF-8) of
``{"commitment", "entry_hash", "key_id", "match_id", "time_ms", "type": "kozyr-receipt/v2",
"version"}`` (receipts made before issue 30, ``kozyr-receipt/v1``, have no ``time_ms``); a key
id is the first 16 hex digits of SHA-256 over the 32 raw bytes of the public key.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

RECEIPT_TYPE: Final = "kozyr-receipt/v2"
RECEIPT_TYPE_V1: Final = "kozyr-receipt/v1"  # no time_ms: receipts made before issue 30
_HEX = frozenset("0123456789abcdef")


@dataclass(frozen=True, slots=True)
class Receipt:
    """One signed receipt; hashes and the signature in lowercase hex, `time_ms` the server's
    time of the append in ms since the epoch (None: a v1 receipt, which signed no time)."""

    match_id: str
    version: int
    entry_hash: str
    commitment: str
    key_id: str
    signature: str
    time_ms: int | None = None

    @property
    def seal(self) -> str:
        """The signature as the store keeps it with its entry: ``<key id>:<signature hex>``,
        then ``:<time_ms>`` for a v2 receipt."""
        if self.time_ms is None:
            return f"{self.key_id}:{self.signature}"
        return f"{self.key_id}:{self.signature}:{self.time_ms}"

    @classmethod
    def from_seal(
        cls, match_id: str, version: int, entry_hash: str, commitment: str, seal: str
    ) -> Receipt | None:
        """The receipt a stored seal makes for an entry as read (None without a seal): every
        field but the key id, signature and time is the entry's as it is now, so an entry
        changed after it was sealed carries a receipt that does not verify."""
        if not seal:
            return None
        kid, _, rest = seal.partition(":")
        signature, _, time = rest.partition(":")
        stamp = int(time) if time.isdigit() else None
        return cls(match_id, version, entry_hash, commitment, kid, signature, stamp)

    def to_json(self) -> dict[str, Any]:
        """The receipt as a JSON object (a line of a receipts file; a v1 receipt has no
        time_ms)."""
        out = {"kind": "receipt", **asdict(self)}
        if self.time_ms is None:
            del out["time_ms"]
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Receipt:
        """A receipt from its JSON object; ValueError if a field is missing or mistyped."""
        try:
            receipt = cls(
                str(data["match_id"]),
                data["version"],
                str(data["entry_hash"]),
                str(data["commitment"]),
                str(data["key_id"]),
                str(data["signature"]),
                data.get("time_ms"),
            )
        except KeyError as e:
            raise ValueError(f"a receipt needs the field {e.args[0]!r}") from None
        if type(receipt.version) is not int:
            raise ValueError("a receipt's version is a number")
        if receipt.time_ms is not None and type(receipt.time_ms) is not int:
            raise ValueError("a receipt's time_ms is a number")
        return receipt


def signed_bytes(
    match_id: str,
    version: int,
    entry_hash: str,
    commitment: str,
    key_id: str,
    time_ms: int | None = None,
) -> bytes:
    """The exact bytes a receipt's signature covers (docs/fairness.md §6): v2 with the time of
    the append, v1 (receipts made before issue 30) without."""
    fields: dict[str, Any] = {
        "commitment": commitment,
        "entry_hash": entry_hash,
        "key_id": key_id,
        "match_id": match_id,
        "type": RECEIPT_TYPE_V1,
        "version": version,
    }
    if time_ms is not None:
        fields["time_ms"], fields["type"] = time_ms, RECEIPT_TYPE
    return json.dumps(
        fields,
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    ).encode("utf-8")


def signature_holds(public_key: bytes, signature_hex: str, message: bytes) -> bool:
    """Whether `signature_hex` is the Ed25519 signature of `public_key` on `message` (a tree
    head's: kozyr.core.tree_heads)."""
    if not (_is_hex(signature_hex) and len(signature_hex) == 128):
        return False
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(bytes.fromhex(signature_hex), message)
    except (InvalidSignature, ValueError):
        return False
    return True


def key_id(public_key: bytes) -> str:
    """The id of a public key: the first 16 hex digits of SHA-256 over its 32 raw bytes."""
    return fingerprint(public_key)[:16]


def fingerprint(public_key: bytes) -> str:
    """SHA-256 over the 32 raw bytes of a public key, lowercase hex (what people compare)."""
    return hashlib.sha256(public_key).hexdigest()


def short_fingerprint(hex_digest: str) -> str:
    """A 64-hex digest as four groups of four, for people to compare by eye."""
    return " ".join(hex_digest[i : i + 4] for i in range(0, 16, 4))


@dataclass(frozen=True, slots=True)
class GivenKey:
    """A public key a verifier was given, with the interval it is valid in (ms since the
    epoch, `valid_until` exclusive; 0 and None: no bound)."""

    public_key: bytes
    valid_from: int = 0
    valid_until: int | None = None

    def covers(self, at_ms: int) -> bool:
        """Whether an entry of time `at_ms` may carry this key's signature."""
        return self.valid_from <= at_ms and (self.valid_until is None or at_ms < self.valid_until)

    def interval(self) -> str:
        """The validity as `kozyr keys show` prints it: ``<from ms>..<until ms | ->``."""
        return f"{self.valid_from}..{'-' if self.valid_until is None else self.valid_until}"


class KeyRing:
    """Public keys by key id, each with its validity: what a verifier trusts."""

    def __init__(self, keys: Iterable[bytes | GivenKey] = ()) -> None:
        self.keys: dict[str, bytes] = {}
        self.given: dict[str, GivenKey] = {}
        for key in keys:
            self.add(key)

    def add(self, key: bytes | GivenKey) -> str:
        """Trust one 32-byte Ed25519 public key (always, or in its interval); its key id."""
        given = key if isinstance(key, GivenKey) else GivenKey(key)
        if len(given.public_key) != 32:
            raise ValueError("an Ed25519 public key is 32 bytes (64 hex digits)")
        kid = key_id(given.public_key)
        self.keys[kid] = given.public_key
        self.given[kid] = given
        return kid

    def __bool__(self) -> bool:
        return bool(self.keys)

    def problem(self, receipt: Receipt, at_ms: int | None = None) -> str | None:
        """Why this receipt does not verify against these keys (for an entry of time `at_ms`,
        by default the time the receipt signs, with the key valid then), or None when it
        does."""
        key = self.keys.get(receipt.key_id)
        if key is None:
            return (
                f"it is signed with key {receipt.key_id}, which is not among the keys "
                f"given ({', '.join(sorted(self.keys)) or 'none'})"
            )
        if not (_is_hex(receipt.signature) and len(receipt.signature) == 128):
            return "its signature is not 64 bytes of hex"
        message = signed_bytes(
            receipt.match_id,
            receipt.version,
            receipt.entry_hash,
            receipt.commitment,
            receipt.key_id,
            receipt.time_ms,
        )
        try:
            Ed25519PublicKey.from_public_bytes(key).verify(
                bytes.fromhex(receipt.signature), message
            )
        except InvalidSignature:
            return f"its signature is not key {receipt.key_id}'s signature on these fields"
        at = receipt.time_ms if at_ms is None else at_ms
        return None if at is None else self.outside(receipt, at)

    def outside(self, receipt: Receipt, at_ms: int) -> str | None:
        """Why the receipt's key (one of these) may not sign an entry of time `at_ms`, or
        None when it is valid then."""
        given = self.given[receipt.key_id]
        if not given.covers(at_ms):
            return (
                f"key {receipt.key_id} is valid for entries of time {given.interval()} (ms), "
                f"and this entry's time is {at_ms}: the key was used outside its validity "
                "(a retired key's signature after its retirement, or before the key existed)"
            )
        return None


_VALIDITY = re.compile(r"\bvalid (\d+)\.\.(\d+|-)")


def parse_keys(text: str) -> list[GivenKey]:
    """The public keys given as one `--key`: 64 hex digits (valid always), or a file holding
    one a line - the output of `kozyr keys show` (``valid <from>..<until>`` on a key's line sets
    its validity) or the server's ``keys.txt`` (``<id> <hex> current|retired <from> <until>``).
    A line's first word of 64 hex digits is its key."""
    candidate = text.strip()
    if len(candidate) == 64 and _is_hex(candidate.lower()):
        return [GivenKey(bytes.fromhex(candidate.lower()))]
    path = Path(candidate)
    try:
        content = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ValueError(
            f"{text!r} is neither 64 hex digits nor a readable file ({e.strerror or e})"
        ) from None
    keys = [key for line in content.splitlines() if (key := _key_of_line(line)) is not None]
    if not keys:
        raise ValueError(f"{path} holds no public key (64 hex digits)")
    return keys


def _key_of_line(line: str) -> GivenKey | None:
    words = line.replace(",", " ").split()
    hexes = [i for i, w in enumerate(words) if len(w) == 64 and _is_hex(w.lower())]
    if not hexes or line.lstrip().startswith("#"):
        return None
    at = hexes[0]
    key = bytes.fromhex(words[at].lower())
    shown = _VALIDITY.search(line)
    if shown is not None:
        until = shown.group(2)
        return GivenKey(key, int(shown.group(1)), None if until == "-" else int(until))
    listed = words[at + 1 : at + 4]
    if len(listed) == 3 and listed[0] in ("current", "retired") and listed[1].isdigit():
        return GivenKey(key, int(listed[1]), None if listed[2] == "-" else int(listed[2]))
    return GivenKey(key)


def read_receipts(path: str | Path) -> list[Receipt]:
    """A receipts file: JSON Lines, one receipt object per line (blank lines ignored)."""
    out = []
    text = Path(path).read_text(encoding="utf-8")
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            if data.get("kind", "receipt") != "receipt":
                continue  # a header or note line a client may add
            out.append(Receipt.from_json(data))
        except ValueError as e:
            raise ValueError(f"{path}, line {number}: {e}") from None
    return out


def dumps_receipts(receipts: Iterable[Receipt]) -> str:
    """The text of a receipts file."""
    return "".join(json.dumps(r.to_json(), separators=(",", ":")) + "\n" for r in receipts)


def _is_hex(text: str) -> bool:
    return bool(text) and set(text) <= _HEX
