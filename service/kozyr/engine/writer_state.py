"""What the write path and creation need of the engine they write for: its store, its cache of
records, its per-match locks and fences, its clock, and whom an append is told of.

`engine.matches.Engine` is the one implementation. The write path (engine/writing.py) and the
creation helpers (engine/creation.py) are typed against this protocol, not the Engine class,
so the engine's modules import one way: the Engine uses them, they know only this."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol

from kozyr.engine.snapshots import Snapshots
from kozyr.engine.wakeups import Feeds
from kozyr.match.lifecycle import Step
from kozyr.match.record import MatchRecord
from kozyr.secrets.signing import EntryReceipts
from kozyr.store.port import Store


class WriterState(Protocol):
    """The engine as its write path sees it (kozyr.engine.matches.Engine implements it)."""

    store: Store
    receipts: EntryReceipts
    request_ttl_ms: int
    cache_size: int
    max_retries: int
    locks: dict[str, asyncio.Lock]
    fences: dict[str, int]
    feeds: Feeds
    snapshots: Snapshots
    alarm_listeners: list[Callable[[str, int, int], None]]

    async def record(self, match_id: str) -> MatchRecord:
        """The match caught up with its log."""
        ...

    async def catch_up(self, record: MatchRecord) -> MatchRecord:
        """The record with the entries the store has after it."""
        ...

    def cached(self, match_id: str) -> MatchRecord | None:
        """The cached record of the match, as it is."""
        ...

    def now_ms(self) -> int:
        """The server's clock, in ms."""
        ...

    def remember(self, record: MatchRecord, added: int = 0, *, fresh: bool = False) -> MatchRecord:
        """Cache the record."""
        ...

    def forget(self, match_id: str) -> None:
        """Drop the match from the cache."""
        ...

    async def appended(self, before: MatchRecord | None, step: Step, tenant: str = "") -> None:
        """Tell the lifecycle listener of an append."""
        ...

    def tell(self, step: Step) -> None:
        """Tell the append listeners of a step."""
        ...
