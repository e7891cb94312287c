"""Waking a process's watchers when a match's log grows, whoever appended.

One listener task per process hears every watched match through the store's Ticks (for Redis:
one pub/sub connection, the append script PUBLISHes each version), so a process watching
10,000 matches holds one listening connection instead of one blocking read per match, and
watchers hold no connection while they wait. A tick is only a doorbell: watchers always read
the log itself, and a lost connection wakes them all to re-read, so nothing is missed. An
append made by this process wakes its watchers at once, without waiting for the tick, and
hands them the step itself (entry, events, record after it): a watcher of a match this process
writes reads nothing from the store and folds nothing (the last few steps are kept per watched
match; a watcher further behind reads the log as before).

A waiter is a bare future, resolved on each new version: cancelling any number of waiters at
once leaves nothing held. (Not a Condition, whose lock a mass cancellation left held, nor
asyncio.wait_for, whose cancellation can hang a task for good on CPython 3.11.) Its timeout is
kept beside it and the listener resolves the waiters past theirs once a second (a timer per
wait, armed and cancelled on every step a watcher hears, was ~2 % of a server's CPU).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncGenerator, Callable
from typing import Any

import structlog

from kozyr.match.errors import MatchError
from kozyr.match.lifecycle import Step
from kozyr.store.port import Store, Ticks

log = structlog.get_logger("kozyr.feeds")
POLL = 0.05  # seconds the listener waits for ticks before it (un)subscribes pending matches
EXPIRE_EVERY = 1.0  # seconds between the listener's looks for waiters past their timeout
EXPIRE_AFTER_STEP = 5.0  # a follow handed a step waits this long again for the next
RECENT = 8  # steps kept per watched match for watchers that are a little behind


class _Follow:
    """A watcher handed this process's steps as they are appended (Feeds.follow)."""

    __slots__ = ("deadline", "last", "sink", "version", "waiter")

    def __init__(
        self,
        sink: Callable[[Step], object],
        version: int,
        waiter: asyncio.Future[None],
        deadline: float,
    ) -> None:
        self.sink, self.version, self.waiter, self.deadline = sink, version, waiter, deadline
        self.last: Step | None = None


class _Feed:
    """The watchers of one match in this process and the highest version heard."""

    __slots__ = ("follows", "idle_since", "steps", "top", "waiters")

    def __init__(self) -> None:
        self.waiters: dict[asyncio.Future[None], float] = {}  # each with its loop deadline
        self.follows: dict[asyncio.Future[None], _Follow] = {}
        self.top = 0
        self.idle_since: float | None = None
        self.steps: deque[Step] = deque(maxlen=RECENT)


class Feeds:
    """The feeds of every watched match of this process, and their one listener."""

    def __init__(
        self, store: Store, *, linger: float = 30.0, writing: Callable[[str], bool] | None = None
    ) -> None:
        self.store = store
        # Whether this process is appending to a match now (its lock is held): a tick heard
        # for it waits until the writer is done (`released`), so a watcher never hears of an
        # entry before the writer told the lifecycle listener of it (writing.committed).
        self._writing = writing or (lambda _: False)
        self._held: dict[str, int] = {}
        self.linger = linger  # an unwatched match stays subscribed this long (watchers come back)
        self._feeds: dict[str, _Feed] = {}
        self._new: set[str] = set()
        self._task: asyncio.Task[None] | None = None
        self._swept: float | None = None  # loop time of the last sweep for idle feeds
        self._expired = 0.0  # loop time of the last look for waiters past their timeout
        # Matches subscribed on the live listening connection: their `top` is every version
        # appended anywhere, up to the tick in flight.
        self._subscribed: set[str] = set()

    @property
    def watched(self) -> int:
        """How many matches this process listens to."""
        return len(self._feeds)

    async def wait(self, match_id: str, version: int, timeout: float = 5.0) -> None:
        """Return once the match has an entry after `version` (or after `timeout`, give or take
        `EXPIRE_EVERY`)."""
        feed = self._feed(match_id)
        if feed.top > version:
            return
        # Any ring returns: a newer version, or a lost connection (re-read the log).
        loop = asyncio.get_running_loop()
        waiter = _waiter(loop)
        feed.waiters[waiter] = loop.time() + timeout
        await _parked(feed, feed.waiters, waiter)

    async def follow(
        self, match_id: str, version: int, sink: Callable[[Step], object], timeout: float = 5.0
    ) -> Step | None:
        """Hand `sink` each step this process appends after `version`, in order, from within
        the append itself: no task is woken per step. Return the last step handed over (None:
        none) once one finishes the match, a version comes that `sink` cannot be handed (another
        process appended it, or a step was missed: read the log), or nothing came for
        `timeout`. An exception `sink` raises is raised here."""
        feed = self._feed(match_id)
        if feed.top > version:
            return None
        loop = asyncio.get_running_loop()
        waiter = _waiter(loop)
        follow = feed.follows[waiter] = _Follow(sink, version, waiter, loop.time() + timeout)
        await _parked(feed, feed.follows, waiter)
        return follow.last

    def _feed(self, match_id: str) -> _Feed:
        feed = self._feeds.get(match_id)
        if feed is None:
            feed = self._feeds[match_id] = _Feed()
            self._new.add(match_id)
        if self._task is None or self._task.done():  # it also ends the waits past timeout
            self._task = asyncio.create_task(self._listen())
        return feed

    def appended(self, step: Step) -> None:
        """This process appended `step`: keep it for the match's watchers and wake them."""
        record = step.record
        feed = self._feeds.get(record.match_id)
        if feed is None:
            return
        version = record.version
        if feed.steps and feed.steps[-1].record.version != version - 1:
            feed.steps.clear()  # keep only consecutive steps
        feed.steps.append(step)
        if feed.follows:
            _hand(feed, step, version)
        self.wake(record.match_id, version)

    def steps_after(self, match_id: str, version: int) -> list[Step] | None:
        """The kept steps after `version` up to the newest version heard, or None when they do
        not reach back that far (or further versions were heard: read the log then)."""
        feed = self._feeds.get(match_id)
        if feed is None or not feed.steps:
            return None
        first, last = feed.steps[0].record.version, feed.steps[-1].record.version
        if not first <= version + 1 <= last or feed.top > last:
            return None
        return [s for s in feed.steps if s.record.version > version]

    async def own_steps(self, match_id: str, version: int) -> AsyncGenerator[Step, None]:
        """The steps after `version` this process appended itself, waiting for more while they
        follow on; it ends where the log must be read (a step kept no longer, another writer)."""
        while (kept := self.steps_after(match_id, version)) is not None:
            for step in kept:
                version = step.record.version
                yield step
            await self.wait(match_id, version)

    def current(self, match_id: str, version: int) -> bool:
        """True when `version` is the newest this process has heard of for a subscribed match
        (so a cached record at it needs no read of the log)."""
        feed = self._feeds.get(match_id)
        return feed is not None and match_id in self._subscribed and feed.top <= version

    def wake(self, match_id: str, version: int) -> None:
        """This process appended `version` (or heard of it): wake the match's watchers."""
        feed = self._feeds.get(match_id)
        if feed is not None and version > feed.top:
            feed.top = version
            self._ring(feed)

    def heard(self, match_id: str, version: int) -> None:
        """The store says the match reached `version`: wake its watchers, unless this process
        is appending to it now (then when it is done: `released`)."""
        if self._writing(match_id):
            self._held[match_id] = max(version, self._held.get(match_id, 0))
        else:
            self.wake(match_id, version)

    def holding(self, match_id: str) -> bool:
        """Whether a tick heard for the match waits for this process's writer to be done."""
        return match_id in self._held

    def released(self, match_id: str) -> None:
        """This process is done appending to the match: wake for what was heard meanwhile."""
        if self._held and (version := self._held.pop(match_id, None)) is not None:
            self.wake(match_id, version)

    def _ring(self, feed: _Feed, every: bool = False) -> None:
        """Wake the feed's waiters, and its follows that were not handed the newest version
        (`every`: all of them, to read the log again)."""
        for waiter in feed.waiters:
            _resolve(waiter)
        for follow in feed.follows.values():
            if every or follow.version < feed.top:  # a version it was not handed: the log has it
                _resolve(follow.waiter)

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
                    self._subscribed = subscribed
                    self._new = set(self._feeds)
                await self._sync(ticks, subscribed)
                for match_id, version in await ticks.next(POLL):
                    self.heard(match_id, version)
                self._expire()
                backoff = POLL
            except MatchError as e:
                log.warning("feed_lost", reason=e.code, watched=len(self._feeds))
                subscribed.clear()  # nothing is current until subscribed again
                if ticks is not None:
                    await ticks.close()
                ticks = None
                for feed in self._feeds.values():  # re-read the logs: ticks may be lost
                    self._ring(feed, every=True)
                await asyncio.sleep(backoff)
                backoff = min(2 * backoff, 2.0)

    def _expire(self) -> None:
        """Resolve the waiters past their timeout (at most once every EXPIRE_EVERY)."""
        now = asyncio.get_running_loop().time()
        if now - self._expired < EXPIRE_EVERY:
            return
        self._expired = now
        for feed in self._feeds.values():
            for waiter, deadline in feed.waiters.items():
                if deadline <= now:
                    _resolve(waiter)
            for follow in feed.follows.values():
                if follow.deadline <= now:
                    _resolve(follow.waiter)

    async def _sync(self, ticks: Ticks, subscribed: set[str]) -> None:
        """Subscribe new feeds (then catch up with what they missed) and drop idle ones."""
        if self._new:
            new, self._new = self._new, set()
            tops = await ticks.subscribe(new)
            subscribed |= new
            for match_id, top in tops.items():
                self.heard(match_id, top)
        now = asyncio.get_running_loop().time()
        if self._swept is not None and now - self._swept < 1.0:
            return
        self._swept = now
        idle = [
            m
            for m in subscribed
            if (f := self._feeds.get(m)) is None
            or (f.idle_since is not None and now - f.idle_since > self.linger)
        ]
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
            self._ring(feed, every=True)
        self._feeds.clear()


def _hand(feed: _Feed, step: Step, version: int) -> None:
    """Hand an appended step to the follows at the version before it (Feeds.follow)."""
    for follow in feed.follows.values():
        if follow.version != version - 1 or follow.waiter.done():
            continue  # the version is rung (or the log read) instead
        follow.version, follow.last = version, step
        follow.deadline = follow.waiter.get_loop().time() + EXPIRE_AFTER_STEP
        try:
            follow.sink(step)
        except Exception as e:  # raised in the follower, not in the append that made the step
            follow.waiter.set_exception(e)
            continue
        if step.record.finished:
            _resolve(follow.waiter)


def _waiter(loop: asyncio.AbstractEventLoop) -> asyncio.Future[None]:
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        # redis-py can swallow a cancellation that lands while it opens a connection (seen
        # with thousands of watchers dropped at once): honour it before blocking again.
        raise asyncio.CancelledError
    return loop.create_future()


async def _parked(
    feed: _Feed, kept: dict[asyncio.Future[None], Any], waiter: asyncio.Future[None]
) -> None:
    """Await `waiter`, kept in `kept` (the feed's waiters or follows) meanwhile; the feed is
    idle from when its last one is gone (the listener drops idle feeds)."""
    feed.idle_since = None
    try:
        await waiter
    finally:
        kept.pop(waiter, None)
        if not feed.waiters and not feed.follows:
            feed.idle_since = waiter.get_loop().time()


def _resolve(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
