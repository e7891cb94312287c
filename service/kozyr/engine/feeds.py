"""Waking a process's watchers when a match's log grows, whoever appended.

One listener task per process hears every watched match through the store's Ticks (for Redis:
one pub/sub connection, the append script PUBLISHes each version), so a process watching
10,000 matches holds one listening connection instead of one blocking read per match, and
watchers hold no connection while they wait. A tick is only a doorbell: watchers always read
the log itself, and a lost connection wakes them all to re-read, so nothing is missed. An
append made by this process wakes its watchers at once, without waiting for the tick.

A waiter is a bare future with a timer, resolved on each new version: cancelling any number of
waiters at once leaves nothing held. (Not a Condition, whose lock a mass cancellation left held,
nor asyncio.wait_for, whose cancellation can hang a task for good on CPython 3.11.)
"""

from __future__ import annotations

import asyncio

import structlog

from kozyr.engine.store import Store, Ticks
from kozyr.match.errors import MatchError

log = structlog.get_logger("kozyr.feeds")
POLL = 0.05  # seconds the listener waits for ticks before it (un)subscribes pending matches


class _Feed:
    """The watchers of one match in this process and the highest version heard."""

    __slots__ = ("idle_since", "top", "waiters")

    def __init__(self) -> None:
        self.waiters: set[asyncio.Future[None]] = set()
        self.top = 0
        self.idle_since: float | None = None


class Feeds:
    """The feeds of every watched match of this process, and their one listener."""

    def __init__(self, store: Store, *, linger: float = 30.0) -> None:
        self.store = store
        self.linger = linger  # an unwatched match stays subscribed this long (watchers come back)
        self._feeds: dict[str, _Feed] = {}
        self._new: set[str] = set()
        self._task: asyncio.Task[None] | None = None
        self._swept: float | None = None  # loop time of the last sweep for idle feeds

    @property
    def watched(self) -> int:
        """How many matches this process listens to."""
        return len(self._feeds)

    async def wait(self, match_id: str, version: int, timeout: float = 5.0) -> None:
        """Return once the match has an entry after `version` (or after `timeout`)."""
        feed = self._feeds.get(match_id)
        if feed is None:
            feed = self._feeds[match_id] = _Feed()
            self._new.add(match_id)
            if self._task is None or self._task.done():
                self._task = asyncio.create_task(self._listen())
        if feed.top > version:
            return
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            # redis-py can swallow a cancellation that lands while it opens a connection (seen
            # with thousands of watchers dropped at once): honour it before blocking again.
            raise asyncio.CancelledError
        # Any ring returns: a newer version, or a lost connection (re-read the log).
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        feed.waiters.add(waiter)
        feed.idle_since = None
        timer = loop.call_later(timeout, _resolve, waiter)
        try:
            await waiter
        finally:
            timer.cancel()
            feed.waiters.discard(waiter)
            if not feed.waiters:
                feed.idle_since = loop.time()

    def wake(self, match_id: str, version: int) -> None:
        """This process appended `version` (or heard of it): wake the match's watchers."""
        feed = self._feeds.get(match_id)
        if feed is not None and version > feed.top:
            feed.top = version
            self._ring(feed)

    def _ring(self, feed: _Feed) -> None:
        for waiter in feed.waiters:
            _resolve(waiter)

    async def _listen(self) -> None:
        ticks: Ticks | None = None
        subscribed: set[str] = set()
        backoff = POLL
        while True:
            if not self._feeds:  # nobody watches: release the connection, then look again
                if ticks is None:
                    return  # no await after the last look, so no feed can be missed
                await ticks.close()
                ticks = None
                continue
            try:
                if ticks is None:
                    ticks, subscribed = self.store.ticks(), set()
                    self._new = set(self._feeds)
                await self._sync(ticks, subscribed)
                for match_id, version in await ticks.next(POLL):
                    self.wake(match_id, version)
                backoff = POLL
            except MatchError as e:
                log.warning("feed_lost", reason=e.code, watched=len(self._feeds))
                if ticks is not None:
                    await ticks.close()
                ticks = None
                for feed in self._feeds.values():  # re-read the logs: ticks may be lost
                    self._ring(feed)
                await asyncio.sleep(backoff)
                backoff = min(2 * backoff, 2.0)

    async def _sync(self, ticks: Ticks, subscribed: set[str]) -> None:
        """Subscribe new feeds (then catch up with what they missed) and drop idle ones."""
        if self._new:
            new, self._new = self._new, set()
            tops = await ticks.subscribe(new)
            subscribed |= new
            for match_id, top in tops.items():
                self.wake(match_id, top)
        now = asyncio.get_running_loop().time()
        if self._swept is not None and now - self._swept < 1.0:
            return
        self._swept = now
        idle = [m for m in subscribed
                if (f := self._feeds.get(m)) is None
                or (f.idle_since is not None and now - f.idle_since > self.linger)]
        if idle:
            await ticks.unsubscribe(idle)
            subscribed.difference_update(idle)
            for match_id in idle:
                feed = self._feeds.get(match_id)
                if feed is None:
                    continue
                if feed.waiters or feed.idle_since is None:
                    # A watcher came back while we unsubscribed: listen again, or it would
                    # hear nothing more than its re-read timeout.
                    self._new.add(match_id)
                else:
                    del self._feeds[match_id]

    def close(self) -> None:
        """Stop the listener and wake every watcher."""
        if self._task is not None:
            self._task.cancel()
        for feed in self._feeds.values():
            self._ring(feed)
        self._feeds.clear()


def _resolve(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
