"""The port the engine writes through: an append-only log per match with a compare-and-append.

Two implementations pass the same contract tests (tests/store/test_store_contract.py):
`kozyr.store.redis.streams.RedisStore` (Redis Streams, one Lua script per append) and
`kozyr.store.memory.MemoryStore` (in process, for fast tests and in-process tools).
A store turns its own transport failures into MatchError(UNAVAILABLE), so the engine never
sees a client library's exceptions.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from kozyr.match.errors import Kind, MatchError

AppendStatus = Literal["OK", "DUPLICATE", "CONFLICT", "GAP", "FULL", "BEHIND"]

# The meta field holding a match's phase (kozyr.match.phases), written atomically with each
# entry that changes it, so a reader sees in one cheap read how far the match's lifecycle got.
PHASE = "phase"


@dataclass(frozen=True, slots=True)
class StoredEntry:
    """An entry as read from the store: its version, canonical text, recorded hash and the seal
    written with it (the server's signature made at the append, `kozyr.core.receipts.seal`;
    "" for none: no signer, or an entry older than sealing)."""

    version: int
    text: str
    hash: str
    seal: str = ""


def store_full() -> MatchError:
    """The store has no room (Redis at maxmemory): nothing was written."""
    return MatchError(
        Kind.EXHAUSTED, "STORE_FULL", "the event store is full; nothing was written - retry later"
    )


class Store(Protocol):
    """What the engine needs from an event store."""

    async def append(
        self,
        match_id: str,
        expected_version: int,
        command_key: str,
        text: str,
        digest: str,
        meta: Mapping[str, str] | None = None,
        *,
        prev: str | None = None,
        seal: str = "",
    ) -> tuple[AppendStatus, int]:
        """Append one entry if the log is at `expected_version` and the command is new.

        `prev` is the hash the entry chains onto (its `prev` field, as the writer built it;
        None or "": the store reads it from the text): an entry that does not chain onto the top at
        its own version is a fork, and the match is fenced (BEHIND).

        ("OK", new version) | ("DUPLICATE", the version that command produced) | ("CONFLICT",
        the current version) | ("BEHIND", current version) when the log holds fewer entries
        than it once acknowledged (a restored backup, a failover that lost its tail) |
        ("GAP", current version) when the log refuses the next version for another reason |
        ("FULL", current version) when the store has no room. Nothing is written unless OK;
        BEHIND and GAP stay until an operator runs `repair`. Meta fields are written with it, and
        every subscribed Ticks hears the new version. `seal` is stored with the entry and read
        back as it was written (StoredEntry.seal): the store never makes one.
        """
        ...

    async def append_many(
        self,
        match_id: str,
        expected_version: int,
        entries: Sequence[tuple[str, str, str]],
        meta: Mapping[str, str] | None = None,
        *,
        prev: str | None = None,
        seals: Sequence[str] = (),
    ) -> tuple[AppendStatus, int]:
        """Append a run of entries (command key, text, hash) as one, all or none: the checks of
        `append` are made for the first at `expected_version` (`prev`: the first's), and any key
        already seen answers DUPLICATE with its version. The version answered on OK is the last
        entry's; Ticks hear only that one. `seals[i]` is stored with entry i ("" past its end)."""
        ...

    async def repair(self, match_id: str) -> tuple[int, int]:
        """Accept the log as it is: lower the fence to the current top so play can go on, and
        note the repaired version in meta ("repaired"), so servers that remember a higher
        version accept it too. Returns (the version acknowledged before, the version kept)."""
        ...

    async def read_after(
        self, match_id: str, version: int, upto: int | None = None
    ) -> list[StoredEntry]:
        """Entries with versions in (version, upto] - all later ones when upto is None."""
        ...

    async def version(self, match_id: str) -> int:
        """The log's current version (0 when the match does not exist)."""
        ...

    async def read_watched(self, match_id: str, version: int) -> list[StoredEntry]:
        """read_after for watchers, on connections of their own (watching never starves moves)."""
        ...

    def ticks(self) -> Ticks:
        """A new listener for the appends of the matches it subscribes to."""
        ...

    async def meta(self, match_id: str, field: str) -> str | None:
        """One field of the match's secrets (server seed, token hashes)."""
        ...

    async def command_version(self, match_id: str, command_key: str) -> int | None:
        """The version a command produced, if it was accepted."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...

    # --- speed: snapshots (kozyr.engine.snapshots) ---

    async def put_snapshot(self, match_id: str, version: int, text: str) -> None:
        """Keep a snapshot of the record at `version` beside the log (unless a newer one is
        kept already)."""
        ...

    async def snapshot(self, match_id: str) -> tuple[int, str] | None:
        """The kept snapshot: (its version, its text), or None."""
        ...

    async def drop_snapshot(self, match_id: str, version: int) -> None:
        """Delete the kept snapshot if it is the one at `version` (a newer one stays)."""
        ...

    # --- clocks: deadlines of every match's current decision (actors/timers.py) ---

    async def set_deadline(self, match_id: str, due_ms: int | None, version: int) -> bool:
        """Record when the match's current decision is due (None: nothing is due), as derived
        from its record at `version`; ignored (False) when a later version's is recorded."""
        ...

    async def deadline_of(self, match_id: str) -> int | None:
        """The match's recorded deadline (its lease's end while claimed), None without one."""
        ...

    async def claim_deadlines(
        self, now_ms: int, lease_ms: int, limit: int
    ) -> list[tuple[str, int]]:
        """Claim up to `limit` deadlines due at `now_ms`: each is pushed to `now_ms + lease_ms`
        (so a claimer that dies is covered by another after the lease) and returned as
        (match id, the deadline it had)."""
        ...

    async def set_watched(self, match_id: str, seats: Mapping[int, int]) -> None:
        """Note that these seats are watched until the given times (ms): abandonment (R-7)
        needs to know whether any process has a watcher of a seat."""
        ...

    async def watched_until(self, match_id: str, seat: int) -> int:
        """Until when (ms) some process said the seat is watched; 0 if none ever did."""
        ...


class Ticks(Protocol):
    """Hears which watched matches grew, whoever appended: a doorbell, not a log - a tick may be
    lost with a dropped connection (then `next` raises UNAVAILABLE and the caller re-reads)."""

    async def subscribe(self, match_ids: Collection[str]) -> dict[str, int]:
        """Start hearing these matches; their versions as of the subscription."""
        ...

    async def unsubscribe(self, match_ids: Collection[str]) -> None:
        """Stop hearing these matches."""
        ...

    async def next(self, timeout: float) -> list[tuple[str, int]]:
        """The (match id, version) ticks heard within `timeout` seconds (often none); only
        versions past the one `subscribe` answered (an append before the subscription may be
        published to the listener after it, e.g. over a cluster's bus: it is not news)."""
        ...

    async def close(self) -> None:
        """Release the listening connection."""
        ...
