"""The port the engine writes through: an append-only log per match with a compare-and-append.

Two implementations pass the same contract tests (tests/engine/test_store_contract.py):
`kozyr.engine.redis_store.RedisStore` (Redis Streams, one Lua script per append) and
`kozyr.engine.memory_store.MemoryStore` (in process, for fast tests and in-process tools).
A store turns its own transport failures into MatchError(UNAVAILABLE), so the engine never
sees a client library's exceptions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, Protocol

AppendStatus = Literal["OK", "DUPLICATE", "CONFLICT", "GAP"]


@dataclass(frozen=True, slots=True)
class StoredEntry:
    """An entry as read from the store: its version, canonical text and recorded hash."""

    version: int
    text: str
    hash: str


class Store(Protocol):
    """What the engine needs from an event store."""

    async def append(
        self, match_id: str, expected_version: int, command_key: str, text: str, digest: str,
        meta: Mapping[str, str] | None = None,
    ) -> tuple[AppendStatus, int]:
        """Append one entry if the log is at `expected_version` and the command is new.

        ("OK", new version) | ("DUPLICATE", the version that command produced) | ("CONFLICT",
        the current version) | ("GAP", current version) when entries above the top were
        deleted - a damaged log only an operator may repair. Meta fields are written with it.
        """
        ...

    async def read_after(self, match_id: str, version: int,
                         upto: int | None = None) -> list[StoredEntry]:
        """Entries with versions in (version, upto] - all later ones when upto is None."""
        ...

    async def version(self, match_id: str) -> int:
        """The log's current version (0 when the match does not exist)."""
        ...

    async def wait_after(self, match_id: str, version: int, block_ms: int) -> int:
        """Wait until the log has an entry after `version` (or the timeout); its top version."""
        ...

    async def meta(self, match_id: str, field: str) -> str | None:
        """One field of the match's secrets (server seed, token hashes)."""
        ...

    async def command_version(self, match_id: str, command_key: str) -> int | None:
        """The version a command produced, if it was accepted."""
        ...

    async def claim_request(self, request_id: str, value: str) -> str | None:
        """Record an idempotent creation; the earlier record if the id was used already."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...
