"""Seat tokens: random bearer secrets, stored only as hashes; and idempotent creation.

A CreateMatch with a request id (AIP-155) creates the match whose id is derived from the
caller's scope and the request id, so a repeat lands on the same match and is decided by the
store's own compare-and-append: nothing is written before the match itself, and no record can
point to a match that was never created. The record written with entry 1 holds a fingerprint
of the request (a different body under the same id is refused) and the seat tokens XORed with a
pad derived from the request id, which the store never holds, so it holds no usable token."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kozyr.match.limits import TOKEN_BYTES


@dataclass(frozen=True, slots=True)
class SeatToken:
    """A seat's secret bearer token, returned once."""

    seat: int
    name: str
    token: str


def new_token(random_bytes: Callable[[int], bytes]) -> str:
    """A fresh url-safe token that never starts with '-' (it would read as a CLI option)."""
    token = base64.urlsafe_b64encode(random_bytes(TOKEN_BYTES)).rstrip(b"=").decode()
    return "A" + token[1:] if token.startswith("-") else token


def token_hash(token: str) -> str:
    """What the store keeps of a token."""
    return hashlib.sha256(token.encode()).hexdigest()


def _pad(request_id: str, match_id: str, seat: int) -> bytes:
    key = hashlib.sha256(b"seal:" + request_id.encode()).digest()
    return hmac.new(key, f"{match_id}/{seat}".encode(), hashlib.sha256).digest()


def request_match_id(scope: str, request_id: str) -> str:
    """The id of the match a request id creates within a caller's scope (its tenant)."""
    digest = hmac.new(
        b"kozyr/request-id/v1", f"{scope}\x00{request_id}".encode(), hashlib.sha256
    ).hexdigest()
    return digest[:16]


def fingerprint(body: object) -> str:
    """A digest of a request's content, to tell a repeat from another request under one id."""
    return hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class RequestRecord:
    """What a creation under a request id keeps: the request's fingerprint, when it was made
    and the sealed tokens."""

    fingerprint: str
    time_ms: int
    tokens: tuple[dict[str, object], ...]


def seal(
    request_id: str, match_id: str, tokens: Sequence[SeatToken], body_fingerprint: str, time_ms: int
) -> str:
    """The idempotency record of a creation, as stored."""
    sealed = [
        {
            "seat": t.seat,
            "name": t.name,
            "token": _xor(_token_raw(t.token), _pad(request_id, match_id, t.seat)).hex(),
        }
        for t in tokens
    ]
    return json.dumps({"fingerprint": body_fingerprint, "time_ms": time_ms, "tokens": sealed})


def read_record(stored: str) -> RequestRecord:
    """The stored idempotency record."""
    data = json.loads(stored)
    return RequestRecord(str(data["fingerprint"]), int(data["time_ms"]), tuple(data["tokens"]))


def unseal(request_id: str, match_id: str, record: RequestRecord) -> tuple[SeatToken, ...]:
    """The tokens of an earlier creation under `request_id`."""
    return tuple(
        SeatToken(
            int(str(t["seat"])),
            str(t["name"]),
            base64.urlsafe_b64encode(
                _xor(
                    bytes.fromhex(str(t["token"])), _pad(request_id, match_id, int(str(t["seat"])))
                )
            )
            .rstrip(b"=")
            .decode(),
        )
        for t in record.tokens
    )


def _xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b, strict=True))


def _token_raw(token: str) -> bytes:
    return base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
