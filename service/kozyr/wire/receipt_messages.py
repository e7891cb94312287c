"""Receipts on the wire: the domain receipt as a proto message, and GetSigningKeys."""

from __future__ import annotations

from collections.abc import Sequence

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.core.receipts import Receipt
from kozyr.match.record import MatchRecord
from kozyr.secrets.signing import Signer
from kozyr.store.port import StoredEntry


def to_pb(receipt: Receipt | None) -> pb.Receipt | None:
    """The proto form of a receipt (None stays None: the field is left unset)."""
    if receipt is None:
        return None
    return pb.Receipt(
        match_id=receipt.match_id,
        version=receipt.version,
        entry_hash=receipt.entry_hash,
        commitment=receipt.commitment,
        key_id=receipt.key_id,
        signature=bytes.fromhex(receipt.signature),
        time_ms=receipt.time_ms or 0,
    )


def signing_keys(signer: Signer | None) -> pb.GetSigningKeysResponse:
    """Every public key of the signer, the current one first (none without a signer)."""
    keys = () if signer is None else signer.keys
    return pb.GetSigningKeysResponse(
        keys=[
            pb.SigningKey(
                key_id=k.key_id,
                public_key=k.public_key,
                current=k.current,
                fingerprint=k.fingerprint,
                valid_from_ms=k.valid_from,
                valid_until_ms=k.valid_until or 0,
            )
            for k in keys
        ]
    )


def log_entries(record: MatchRecord, entries: Sequence[StoredEntry]) -> list[pb.LogEntry]:
    """The log as GetMatchLog sends it: every entry with the receipt stored with it (signed
    when it was appended; nothing is signed here)."""
    match_id, commitment = record.match_id, record.created.commitment
    return [
        pb.LogEntry(
            version=e.version,
            canonical_json=e.text,
            hash=e.hash,
            receipt=to_pb(Receipt.from_seal(match_id, e.version, e.hash, commitment, e.seal)),
        )
        for e in entries
    ]
