"""An in-process event store with the same contract as the Redis one (a second implementation,
not a mock): fast engine tests and in-process tools use it."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field

from kozyr.engine.store import AppendStatus, StoredEntry


@dataclass
class _Log:
    entries: list[StoredEntry] = field(default_factory=list)
    last_id: int = 0  # the highest version ever appended, as a Redis stream remembers it
    commands: dict[str, int] = field(default_factory=dict)
    meta: dict[str, str] = field(default_factory=dict)
    changed: asyncio.Event = field(default_factory=asyncio.Event)


class MemoryStore:
    """Match logs in a dict; each append is atomic because it never awaits."""

    def __init__(self) -> None:
        self._logs: dict[str, _Log] = {}
        self._requests: dict[str, str] = {}

    def _log(self, match_id: str) -> _Log:
        log = self._logs.get(match_id)
        if log is None:
            log = self._logs[match_id] = _Log()
        return log

    async def append(
        self, match_id: str, expected_version: int, command_key: str, text: str, digest: str,
        meta: Mapping[str, str] | None = None,
    ) -> tuple[AppendStatus, int]:
        """See Store.append."""
        log = self._log(match_id)
        if command_key and command_key in log.commands:
            return "DUPLICATE", log.commands[command_key]
        current = log.entries[-1].version if log.entries else 0
        if current != expected_version:
            return "CONFLICT", current
        version = current + 1
        if version <= log.last_id:
            return "GAP", current
        log.entries.append(StoredEntry(version, text, digest))
        log.last_id = version
        if command_key:
            log.commands[command_key] = version
        log.meta.update(meta or {})
        log.changed.set()
        log.changed = asyncio.Event()
        return "OK", version

    async def read_after(self, match_id: str, version: int,
                         upto: int | None = None) -> list[StoredEntry]:
        """See Store.read_after."""
        log = self._logs.get(match_id)
        if log is None:
            return []
        return [e for e in log.entries
                if e.version > version and (upto is None or e.version <= upto)]

    async def version(self, match_id: str) -> int:
        """See Store.version."""
        log = self._logs.get(match_id)
        return log.entries[-1].version if log and log.entries else 0

    async def wait_after(self, match_id: str, version: int, block_ms: int) -> int:
        """See Store.wait_after."""
        log = self._log(match_id)
        if not (log.entries and log.entries[-1].version > version):
            try:
                await asyncio.wait_for(log.changed.wait(), block_ms / 1000)
            except TimeoutError:
                return version
        return max(version, log.entries[-1].version if log.entries else 0)

    async def meta(self, match_id: str, field: str) -> str | None:
        """See Store.meta."""
        log = self._logs.get(match_id)
        return None if log is None else log.meta.get(field)

    async def command_version(self, match_id: str, command_key: str) -> int | None:
        """See Store.command_version."""
        log = self._logs.get(match_id)
        return None if log is None else log.commands.get(command_key)

    async def claim_request(self, request_id: str, value: str) -> str | None:
        """See Store.claim_request."""
        earlier = self._requests.setdefault(request_id, value)
        return None if earlier is value else earlier

    async def close(self) -> None:
        """Nothing to release."""

    def delete_top(self, match_id: str, count: int) -> None:
        """Delete the newest `count` entries as XDEL would (the log remembers its last id), so
        tests can damage a log the way an operator's mistake or a lost tail does."""
        log = self._logs[match_id]
        del log.entries[len(log.entries) - count:]
