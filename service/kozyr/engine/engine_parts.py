"""Small pieces of the engine: what creating and joining answer, who is calling, request
fingerprints, version checks, folds of stored entries and the errors they raise (kept apart so
engine.py stays the flow)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kozyr.core.receipts import Receipt
from kozyr.games.codec import encode
from kozyr.match.errors import Kind, MatchError
from kozyr.match.log import Entry
from kozyr.match.record import MatchRecord, apply_entry
from kozyr.secrets.tokens import SeatToken
from kozyr.secrets.tokens import fingerprint as _digest_of
from kozyr.store.port import StoredEntry

# How the entry that starts a match shows in its canonical text (no spaces; a name holding this
# text would have its quotes escaped).
STARTS = '"type":"MatchStarted"'


@dataclass(frozen=True, slots=True)
class Created:
    """The result of creating a match."""

    match_id: str
    tokens: tuple[SeatToken, ...]
    version: int
    commitment: str = ""
    receipt: Receipt | None = None


@dataclass(frozen=True, slots=True)
class Joined:
    """The result of joining a match."""

    seat: int
    token: str
    version: int
    started: bool
    commitment: str = ""
    receipt: Receipt | None = None


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who is calling: a seat, a spectator (seat None) or the arbiter."""

    seat: int | None
    arbiter: bool = False


def fingerprint_of(created: Any) -> str:
    """What makes two creation requests the same request: everything but the fresh id and
    commitment (the seats' names and contributions, the options, the setup)."""
    fields = encode(created)
    return _digest_of({k: v for k, v in fields.items() if k not in ("match_id", "commitment")})


def commitment_of(first_entry: str) -> str:
    """The seed commitment recorded in a match's entry 1."""
    return str(Entry.from_canonical(first_entry).events[0]["commitment"])


def check_expected(record: MatchRecord, expected: int | None, seat: int) -> None:
    if expected is None or expected == record.version:
        return
    if expected < 1:  # a version the match can never be at: the request is wrong, not stale
        raise MatchError(
            Kind.BAD_REQUEST,
            "BAD_EXPECTED_VERSION",
            "expected_version counts the match's entries: 1 or more",
            record.match_id,
            seat,
        )
    raise MatchError(
        Kind.CONFLICT,
        "STALE_VERSION",
        f"the match is at version {record.version}, not {expected}",
        record.match_id,
        seat,
    )


def fold_stored(
    record: MatchRecord | None, stored: Sequence[StoredEntry], server_seed: bytes | None = None
) -> MatchRecord:
    for item in stored:
        record = apply_entry(record, Entry.from_canonical(item.text), item.hash, server_seed)
    assert record is not None
    return record


def behind(match_id: str, current: int, why: str) -> MatchError:
    return MatchError(
        Kind.UNAVAILABLE,
        "STREAM_BEHIND",
        f"the match's log is at version {current} but {why}: acknowledged moves are missing, "
        f"so it takes no writes until an operator runs `kozyr repair {match_id}` "
        "(docs/operations.md)",
        match_id,
    )


def text_bytes(stored: Sequence[StoredEntry]) -> int:
    return sum(len(item.text) for item in stored)


def not_found(match_id: str) -> MatchError:
    return MatchError(
        Kind.NOT_FOUND, "MATCH_NOT_FOUND", f"there is no match {match_id!r}", match_id
    )
