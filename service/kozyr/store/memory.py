"""An in-process event store with the same contract as the Redis one (a second implementation,
not a mock): fast engine tests and in-process tools use it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from kozyr.store.port import AppendStatus, StoredEntry


@dataclass
class _Log:
    entries: list[StoredEntry] = field(default_factory=list)
    fence: int = 0  # the highest version ever acknowledged
    commands: dict[str, int] = field(default_factory=dict)
    meta: dict[str, str] = field(default_factory=dict)
    snapshot: tuple[int, str] | None = None


class MemoryStore:
    """Match logs in a dict; each append is atomic because it never awaits."""

    def __init__(self) -> None:
        self._logs: dict[str, _Log] = {}
        self._ticks: set[MemoryTicks] = set()
        self._deadlines: dict[str, tuple[int, int]] = {}  # match -> (due ms, version)
        self._watched: dict[tuple[str, int], int] = {}  # (match, seat) -> until ms

    def _log(self, match_id: str) -> _Log:
        log = self._logs.get(match_id)
        if log is None:
            log = self._logs[match_id] = _Log()
        return log

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
        """See Store.append."""
        entries = [(command_key, text, digest)]
        return await self.append_many(
            match_id, expected_version, entries, meta, prev=prev, seals=(seal,)
        )

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
        """See Store.append_many."""
        log = self._log(match_id)
        current = log.entries[-1].version if log.entries else 0
        if current < log.fence:
            return "BEHIND", current
        chained = prev if prev is not None else _prev_in(entries[0][1])
        if (
            log.entries
            and current == expected_version
            and chained not in (None, log.entries[-1].hash)
        ):
            log.fence = current + 1  # as the Redis script: fence the match until repaired
            return "BEHIND", current
        for key, _, _ in entries:
            if key and key in log.commands:
                return "DUPLICATE", log.commands[key]
        if current != expected_version:
            return "CONFLICT", current
        for i, (key, text, digest) in enumerate(entries):
            version = log.entries[-1].version + 1 if log.entries else 1
            seal = seals[i] if i < len(seals) else ""
            log.entries.append(StoredEntry(version, text, digest, seal))
            if key:
                log.commands[key] = version
        log.fence = version
        log.meta.update(meta or {})
        for ticks in self._ticks:
            ticks.heard(match_id, version)
        return "OK", version

    async def repair(self, match_id: str) -> tuple[int, int]:
        """See Store.repair."""
        log = self._log(match_id)
        fence, log.fence = log.fence, await self.version(match_id)
        log.meta["repaired"] = str(log.fence)
        return fence, log.fence

    async def read_after(
        self, match_id: str, version: int, upto: int | None = None
    ) -> list[StoredEntry]:
        """See Store.read_after."""
        log = self._logs.get(match_id)
        if log is None:
            return []
        return [
            e for e in log.entries if e.version > version and (upto is None or e.version <= upto)
        ]

    async def version(self, match_id: str) -> int:
        """See Store.version."""
        log = self._logs.get(match_id)
        return log.entries[-1].version if log and log.entries else 0

    async def read_watched(self, match_id: str, version: int) -> list[StoredEntry]:
        """See Store.read_watched."""
        return await self.read_after(match_id, version)

    def ticks(self) -> MemoryTicks:
        """See Store.ticks."""
        ticks = MemoryTicks(self)
        self._ticks.add(ticks)
        return ticks

    def _forget(self, ticks: MemoryTicks) -> None:
        self._ticks.discard(ticks)

    async def meta(self, match_id: str, field: str) -> str | None:
        """See Store.meta."""
        log = self._logs.get(match_id)
        return None if log is None else log.meta.get(field)

    async def command_version(self, match_id: str, command_key: str) -> int | None:
        """See Store.command_version."""
        log = self._logs.get(match_id)
        return None if log is None else log.commands.get(command_key)

    async def close(self) -> None:
        """Nothing to release."""

    # --- speed: snapshots ---

    async def put_snapshot(self, match_id: str, version: int, text: str) -> None:
        """See Store.put_snapshot."""
        log = self._log(match_id)
        if log.snapshot is None or log.snapshot[0] < version:
            log.snapshot = (version, text)

    async def snapshot(self, match_id: str) -> tuple[int, str] | None:
        """See Store.snapshot."""
        log = self._logs.get(match_id)
        return None if log is None else log.snapshot

    async def drop_snapshot(self, match_id: str, version: int) -> None:
        """See Store.drop_snapshot."""
        log = self._logs.get(match_id)
        if log is not None and log.snapshot is not None and log.snapshot[0] == version:
            log.snapshot = None

    # --- clocks: deadlines (see Store) ---

    async def set_deadline(self, match_id: str, due_ms: int | None, version: int) -> bool:
        """See Store.set_deadline."""
        held = self._deadlines.get(match_id)
        if held is not None and version < held[1]:
            return False
        if due_ms is None:
            self._deadlines.pop(match_id, None)
        else:
            self._deadlines[match_id] = (due_ms, version)
        return True

    async def deadline_of(self, match_id: str) -> int | None:
        """See Store.deadline_of."""
        held = self._deadlines.get(match_id)
        return None if held is None else held[0]

    async def claim_deadlines(
        self, now_ms: int, lease_ms: int, limit: int
    ) -> list[tuple[str, int]]:
        """See Store.claim_deadlines."""
        due = sorted((d, m) for m, (d, _) in self._deadlines.items() if d <= now_ms)[:limit]
        for _, m in due:
            self._deadlines[m] = (now_ms + lease_ms, self._deadlines[m][1])
        return [(m, d) for d, m in due]

    async def set_watched(self, match_id: str, seats: Mapping[int, int]) -> None:
        """See Store.set_watched."""
        for seat, until in seats.items():
            key = (match_id, seat)
            self._watched[key] = max(until, self._watched.get(key, 0))

    async def watched_until(self, match_id: str, seat: int) -> int:
        """See Store.watched_until."""
        return self._watched.get((match_id, seat), 0)

    def delete_top(self, match_id: str, count: int) -> None:
        """Delete the newest `count` entries (the fence remembers them), so tests can damage a
        log the way a restored backup or a lost tail does."""
        log = self._logs[match_id]
        del log.entries[len(log.entries) - count :]


class MemoryTicks:
    """Ticks of a MemoryStore: appends to subscribed matches are queued as they happen."""

    def __init__(self, store: MemoryStore) -> None:
        self._store = store
        self._matches: dict[str, int] = {}  # subscribed, with the version subscribe answered
        self._queue: asyncio.Queue[tuple[str, int]] = asyncio.Queue()

    def heard(self, match_id: str, version: int) -> None:
        """The store appended `version` to `match_id` (no news at or below the subscribed
        version: see Ticks.next)."""
        if version > self._matches.get(match_id, version):
            self._queue.put_nowait((match_id, version))

    async def subscribe(self, match_ids: Collection[str]) -> dict[str, int]:
        """See Ticks.subscribe."""
        tops = {m: await self._store.version(m) for m in match_ids}
        self._matches.update(tops)
        return tops

    async def unsubscribe(self, match_ids: Collection[str]) -> None:
        """See Ticks.unsubscribe."""
        for match_id in match_ids:
            self._matches.pop(match_id, None)

    async def next(self, timeout: float) -> list[tuple[str, int]]:
        """See Ticks.next."""
        try:
            heard = [await asyncio.wait_for(self._queue.get(), timeout)]
        except TimeoutError:
            return []
        while not self._queue.empty():
            heard.append(self._queue.get_nowait())
        return heard

    async def close(self) -> None:
        """See Ticks.close."""
        self._store._forget(self)


def _prev_in(text: str) -> str | None:
    """The previous hash an entry's text names (None: it names none), as the script reads it."""
    try:
        entry = json.loads(text)
    except ValueError:
        return None
    prev = entry.get("prev") if isinstance(entry, dict) else None
    return prev if isinstance(prev, str) else None
