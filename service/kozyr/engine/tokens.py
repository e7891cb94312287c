"""Seat tokens: random bearer secrets, stored only as hashes, and the sealed idempotency record
of a creation (the tokens XORed with a pad derived from the request id, which Redis never
stores, so the store holds no usable token)."""

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


def seal(request_id: str, match_id: str, tokens: Sequence[SeatToken]) -> str:
    """The idempotency record of a creation."""
    sealed = [
        {"seat": t.seat, "name": t.name,
         "token": _xor(_token_raw(t.token), _pad(request_id, match_id, t.seat)).hex()}
        for t in tokens
    ]
    return json.dumps({"match_id": match_id, "tokens": sealed})


def unseal(request_id: str, sealed: str) -> tuple[str, tuple[SeatToken, ...]]:
    """The match id and tokens of an earlier creation under `request_id`."""
    data = json.loads(sealed)
    match_id = data["match_id"]
    tokens = tuple(
        SeatToken(t["seat"], t["name"], base64.urlsafe_b64encode(
            _xor(bytes.fromhex(t["token"]), _pad(request_id, match_id, t["seat"]))
        ).rstrip(b"=").decode())
        for t in data["tokens"]
    )
    return match_id, tokens


def _xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b, strict=True))


def _token_raw(token: str) -> bytes:
    return base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
