"""What creating a match needs beside the engine: the fingerprint a retried request is known
by, and the answer to a request id used before."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kozyr.core.receipts import Receipt
from kozyr.engine.answers import Created
from kozyr.engine.writer_state import WriterState
from kozyr.games.codec import encode
from kozyr.match.errors import Kind, MatchError
from kozyr.match.log import Entry
from kozyr.match.phases import phase
from kozyr.match.record import MatchRecord
from kozyr.secrets.tokens import SeatToken, new_token, read_record, token_hash, unseal
from kozyr.secrets.tokens import fingerprint as digest_of
from kozyr.store.port import PHASE


def fingerprint_of(created: Any) -> str:
    """What makes two creation requests the same request: everything but the fresh id and
    commitment (the seats' names and contributions, the options, the setup)."""
    fields = encode(created)
    return digest_of({k: v for k, v in fields.items() if k not in ("match_id", "commitment")})


def seat_tokens(
    record: MatchRecord, seats: Sequence[tuple[str, bytes]], random: Callable[[int], bytes]
) -> tuple[SeatToken, ...]:
    """A fresh token for each seat named at creation that no server bot plays."""
    bots = record.terms.bots or ("",) * len(seats)
    return tuple(
        SeatToken(i, name, new_token(random))
        for i, (name, _) in enumerate(seats)
        if name and not bots[i]
    )


def first_meta(
    record: MatchRecord, tenant: str, tokens: Sequence[SeatToken], sealed: Mapping[str, str]
) -> dict[str, str]:
    """The meta written with a match's entry 1: its game, owner and phase, the sealed server
    seed and the hashes of its seat tokens."""
    meta = {"game": record.game.NAME, "tenant": tenant, PHASE: str(phase(record)), **sealed}
    meta.update({f"tok:{token_hash(t.token)}": str(t.seat) for t in tokens})
    return meta


def commitment_of(first_entry: str) -> str:
    """The seed commitment recorded in a match's entry 1."""
    return str(Entry.from_canonical(first_entry).events[0]["commitment"])


async def created_earlier(
    engine: WriterState, request_id: str, match_id: str, body: str, now: int
) -> Created:
    stored = await engine.store.meta(match_id, "request")
    record = read_record(stored) if stored is not None else None
    if record is None or record.fingerprint != body:
        raise MatchError(
            Kind.EXISTS,
            "REQUEST_ID_REUSED",
            f"request_id {request_id!r} was used for another CreateMatch "
            "request; use a new request id for a new match",
            match_id,
        )
    if now - record.time_ms > engine.request_ttl_ms:
        raise MatchError(
            Kind.EXISTS,
            "REQUEST_ID_EXPIRED",
            f"request_id {request_id!r} created match {match_id} more than "
            f"{engine.request_ttl_ms // 3_600_000} h ago; its tokens are no "
            "longer handed out again",
            match_id,
        )
    first = (await engine.store.read_after(match_id, 0, upto=1))[0]
    promised = commitment_of(first.text)
    return Created(
        match_id,
        unseal(request_id, match_id, record),
        1,
        promised,
        Receipt.from_seal(match_id, 1, first.hash, promised, first.seal),
    )
