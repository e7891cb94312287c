"""The process's watcher feeds (engine/wakeups.py) on the in-memory store."""

from __future__ import annotations

import asyncio
from collections.abc import Collection

from kozyr.engine.wakeups import Feeds
from kozyr.store.memory import MemoryStore, MemoryTicks


class _GatedTicks(MemoryTicks):
    """Ticks whose unsubscribe waits for a gate, as a slow network round trip would."""

    def __init__(self, store: MemoryStore, gate: asyncio.Event, entered: asyncio.Event) -> None:
        super().__init__(store)
        self.gate, self.entered = gate, entered

    async def unsubscribe(self, match_ids: Collection[str]) -> None:
        self.entered.set()
        await self.gate.wait()
        await super().unsubscribe(match_ids)


class _GatedStore(MemoryStore):
    def __init__(self) -> None:
        super().__init__()
        self.gate, self.entered = asyncio.Event(), asyncio.Event()

    def ticks(self) -> MemoryTicks:
        ticks = _GatedTicks(self, self.gate, self.entered)
        self._ticks.add(ticks)
        return ticks


async def _append(store: MemoryStore, match_id: str, version: int) -> None:
    status, _ = await store.append(match_id, version - 1, "", f'{{"v":{version}}}', f"h{version}")
    assert status == "OK"


def test_a_watcher_that_returns_while_its_idle_feed_is_unsubscribed_still_hears_moves() -> None:
    async def body() -> None:
        store = _GatedStore()
        await _append(store, "m1", 1)
        feeds = Feeds(store, linger=0.0)
        await feeds.wait("m1", 0, timeout=5.0)  # subscribes; version 1 is there already
        # The feed idles; the listener's next sweep unsubscribes it, held at the gate...
        await asyncio.wait_for(store.entered.wait(), 10.0)
        # ...while a watcher comes back to wait for version 2.
        waiting = asyncio.create_task(feeds.wait("m1", 1, timeout=30.0))
        await asyncio.sleep(0)
        store.gate.set()
        for _ in range(50):  # let the listener finish the sweep and listen again
            await asyncio.sleep(0.01)
        await _append(store, "m1", 2)  # another process appends: only a tick can tell us
        done, _ = await asyncio.wait({waiting}, timeout=10.0)
        feeds.close()
        assert waiting in done, "the watcher heard no tick for version 2"

    asyncio.run(body())


def test_a_wait_with_nothing_appended_ends_at_its_timeout_and_others_wait_on() -> None:
    """No tick comes (as when one is lost): the listener ends each wait past its timeout, so
    the watcher reads the log again; a wait with a longer timeout goes on waiting."""

    async def body() -> None:
        store = MemoryStore()
        await _append(store, "m1", 1)
        feeds = Feeds(store)
        await asyncio.wait_for(feeds.wait("m1", 0, timeout=600.0), 30.0)  # subscribed: at 1
        loop = asyncio.get_running_loop()
        short = asyncio.create_task(feeds.wait("m1", 1, timeout=0.2))
        long = asyncio.create_task(feeds.wait("m1", 1, timeout=600.0))
        started = loop.time()
        done, _ = await asyncio.wait({short}, timeout=30.0)
        assert short in done and loop.time() - started >= 0.2
        assert not long.done() and await store.version("m1") == 1  # nothing came; it waits on
        await _append(store, "m1", 2)
        done, _ = await asyncio.wait({long}, timeout=30.0)
        feeds.close()
        assert long in done

    asyncio.run(body())


class _Record:
    def __init__(self, match_id: str, version: int) -> None:
        self.match_id, self.version, self.finished = match_id, version, False


class _Step:
    """What Feeds reads of a step: its record's match, version and end."""

    def __init__(self, match_id: str, version: int) -> None:
        self.record = _Record(match_id, version)


def test_a_follow_is_handed_each_own_step_and_closing_the_feeds_ends_it() -> None:
    async def body() -> None:
        store = MemoryStore()
        await _append(store, "m1", 1)
        feeds = Feeds(store)
        await asyncio.wait_for(feeds.wait("m1", 0, timeout=600.0), 30.0)  # subscribed: at 1
        handed: list[int] = []
        follow = asyncio.create_task(
            feeds.follow("m1", 1, lambda step: handed.append(step.record.version), timeout=600.0)
        )
        await asyncio.sleep(0.05)
        for version in (2, 3):
            await _append(store, "m1", version)
            feeds.appended(_Step("m1", version))  # type: ignore[arg-type]
        assert handed == [2, 3] and not follow.done()  # handed in the appends; still on
        feeds.close()  # it was handed the newest version, and is woken all the same
        last = await asyncio.wait_for(follow, 10.0)
        assert last is not None and last.record.version == 3

    asyncio.run(body())


def test_a_tick_for_a_match_being_written_here_waits_until_the_writer_releases_it() -> None:
    """The store's tick comes while this process appends to the match: its watchers are woken
    when the writer is done (`released`), whether it appended or gave up, never before."""

    async def body() -> None:
        store = MemoryStore()
        await _append(store, "m1", 1)
        writing: set[str] = set()
        feeds = Feeds(store, writing=writing.__contains__)
        await asyncio.wait_for(feeds.wait("m1", 0, timeout=600.0), 30.0)  # subscribed: at 1
        waiting = asyncio.create_task(feeds.wait("m1", 1, timeout=600.0))
        writing.add("m1")
        await _append(store, "m1", 2)  # its tick reaches the listener while "m1" is written
        for _ in range(3_000):
            if feeds.holding("m1"):
                break
            await asyncio.sleep(0.01)
        assert feeds.holding("m1") and not waiting.done()
        writing.discard("m1")
        feeds.released("m1")
        await asyncio.wait_for(waiting, 10.0)
        assert not feeds.holding("m1")
        feeds.close()

    asyncio.run(body())
