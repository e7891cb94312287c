"""Waking a process's watchers when a match's log grows, whoever appended.

One reader per watched match per process blocks on the store for entries after the highest
version seen and wakes that match's watchers; an append made by this process wakes them at once
without waiting for the reader.
"""

from __future__ import annotations

import asyncio

from kozyr.engine.store import Store
from kozyr.match.errors import MatchError


class _Feed:
    """The watchers of one match in this process and the highest version seen."""

    def __init__(self) -> None:
        self.cond = asyncio.Condition()
        self.top = 0
        self.watchers = 0
        self.task: asyncio.Task[None] | None = None


class Feeds:
    """The feeds of every watched match of this process."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._feeds: dict[str, _Feed] = {}

    async def wait(self, match_id: str, version: int, timeout: float = 5.0) -> None:
        """Return once the match's log has an entry after `version`, or after `timeout`."""
        feed = self._feeds.get(match_id)
        if feed is None:
            feed = self._feeds[match_id] = _Feed()
            feed.task = asyncio.create_task(self._read(match_id, feed))
        feed.watchers += 1
        try:
            async with feed.cond:
                await asyncio.wait_for(feed.cond.wait_for(lambda: feed.top > version), timeout)
        except TimeoutError:
            pass
        finally:
            feed.watchers -= 1

    async def _read(self, match_id: str, feed: _Feed) -> None:
        try:
            feed.top = max(feed.top, await self.store.version(match_id))
            async with feed.cond:
                feed.cond.notify_all()
            while feed.watchers > 0:
                top = await self.store.wait_after(match_id, feed.top, block_ms=1000)
                if top > feed.top:
                    feed.top = top
                    async with feed.cond:
                        feed.cond.notify_all()
        except MatchError:
            await asyncio.sleep(0.5)  # watchers fall back to their timeout and re-read
        finally:
            if self._feeds.get(match_id) is feed:
                del self._feeds[match_id]

    def wake(self, match_id: str, version: int) -> None:
        """This process appended `version`: wake the match's watchers now."""
        feed = self._feeds.get(match_id)
        if feed is not None and version > feed.top:
            feed.top = version

            async def notify() -> None:
                async with feed.cond:
                    feed.cond.notify_all()

            asyncio.get_running_loop().create_task(notify())

    def close(self) -> None:
        """Stop every reader."""
        for feed in list(self._feeds.values()):
            if feed.task is not None:
                feed.task.cancel()
        self._feeds.clear()
