"""The Store contract: one abstract test class that every store passes (Redis and in-memory)."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from kozyr.match.log import Entry
from kozyr.store.memory import MemoryStore, MemoryTicks
from kozyr.store.port import Store, Ticks
from kozyr.store.redis.names import tick_channel
from kozyr.store.redis.streams import RedisStore, log_key

Body = Callable[[Store, str], Awaitable[None]]


class StoreContract:
    """What the engine relies on; a subclass names the store and how to damage its logs."""

    def make(self) -> Store:
        """A fresh store (called inside the test's event loop)."""
        raise NotImplementedError

    async def delete_top(self, store: Store, match_id: str, count: int) -> None:
        """Delete the newest `count` entries the way XDEL does."""
        raise NotImplementedError

    async def ring_late(self, store: Store, ticks: Ticks, match_id: str, version: int) -> None:
        """Ring the tick of `version` now, as a publication that reaches the listener late
        does (a cluster forwards a PUBLISH to the subscriber's node over its bus)."""
        if isinstance(store, RedisStore):
            await store.redis.publish(tick_channel(match_id), version)
        else:
            assert isinstance(ticks, MemoryTicks)
            ticks.heard(match_id, version)

    def run(self, body: Body) -> None:
        async def main() -> None:
            store = self.make()
            try:
                await body(store, "m" + uuid.uuid4().hex[:12])
            finally:
                await store.close()

        asyncio.run(main())

    def test_appends_are_numbered_from_one_and_read_back_in_order(self) -> None:
        async def body(store: Store, m: str) -> None:
            assert await store.version(m) == 0
            assert await store.read_after(m, 0) == []
            assert await store.append(m, 0, "", "e1", "h1") == ("OK", 1)
            assert await store.append(m, 1, "0:a", "e2", "h2") == ("OK", 2)
            assert await store.append(m, 2, "1:b", "e3", "h3") == ("OK", 3)
            assert await store.version(m) == 3
            rows = await store.read_after(m, 0)
            assert [(r.version, r.text, r.hash) for r in rows] == [
                (1, "e1", "h1"),
                (2, "e2", "h2"),
                (3, "e3", "h3"),
            ]
            assert [r.version for r in await store.read_after(m, 1)] == [2, 3]
            assert [r.version for r in await store.read_after(m, 0, upto=2)] == [1, 2]
            assert [r.version for r in await store.read_after(m, 1, upto=2)] == [2]
            assert await store.read_after(m, 3) == []

        self.run(body)

    def test_each_entry_keeps_the_seal_written_with_it_and_reads_it_back_as_written(
        self,
    ) -> None:
        async def body(store: Store, m: str) -> None:
            assert await store.append(m, 0, "", "e1", "h1", seal="k:s1") == ("OK", 1)
            assert await store.append(m, 1, "0:a", "e2", "h2") == ("OK", 2)
            run = [("0:b", "e3", "h3"), ("1:c", "e4", "h4")]
            assert await store.append_many(m, 2, run, seals=["k:s3", "k:s4"]) == ("OK", 4)
            rows = await store.read_after(m, 0)
            assert [r.seal for r in rows] == ["k:s1", "", "k:s3", "k:s4"]
            assert [r.seal for r in await store.read_watched(m, 2)] == ["k:s3", "k:s4"]

        self.run(body)

    def test_a_stale_expected_version_is_a_conflict_that_names_the_current_one(self) -> None:
        async def body(store: Store, m: str) -> None:
            await store.append(m, 0, "", "e1", "h1")
            await store.append(m, 1, "", "e2", "h2")
            assert await store.append(m, 1, "0:x", "late", "hx") == ("CONFLICT", 2)
            assert await store.append(m, 5, "0:x", "ahead", "hx") == ("CONFLICT", 2)
            assert [r.text for r in await store.read_after(m, 0)] == ["e1", "e2"]
            assert await store.command_version(m, "0:x") is None  # a refused command is not kept

        self.run(body)

    def test_a_repeated_command_is_a_duplicate_naming_its_version(self) -> None:
        async def body(store: Store, m: str) -> None:
            await store.append(m, 0, "", "e1", "h1")
            assert await store.append(m, 1, "0:c", "e2", "h2") == ("OK", 2)
            assert await store.command_version(m, "0:c") == 2
            assert await store.command_version(m, "1:c") is None  # command ids are per seat
            # A duplicate wins over a version check: a retry after a lost answer.
            assert await store.append(m, 1, "0:c", "again", "h") == ("DUPLICATE", 2)
            assert await store.append(m, 2, "0:c", "again", "h") == ("DUPLICATE", 2)
            assert await store.version(m) == 2

        self.run(body)

    def test_meta_is_written_with_the_append_and_only_with_it(self) -> None:
        async def body(store: Store, m: str) -> None:
            assert await store.meta(m, "server_seed") is None
            await store.append(m, 0, "", "e1", "h1", {"server_seed": "ab", "tok:1": "0"})
            assert await store.meta(m, "server_seed") == "ab"
            assert await store.append(m, 0, "", "x", "h", {"tok:2": "1"}) == ("CONFLICT", 1)
            assert await store.meta(m, "tok:2") is None
            await store.append(m, 1, "", "e2", "h2", {"tok:2": "1"})
            assert (await store.meta(m, "tok:1"), await store.meta(m, "tok:2")) == ("0", "1")

        self.run(body)

    def test_a_run_of_entries_is_appended_whole_or_not_at_all(self) -> None:
        async def body(store: Store, m: str) -> None:
            await store.append(m, 0, "", "e1", "h1")
            run = [("0:a", "e2", "h2"), ("", "e3", "h3"), ("1:b", "e4", "h4")]
            assert await store.append_many(m, 0, run) == ("CONFLICT", 1)
            assert await store.append_many(m, 1, run, {"phase": "2"}) == ("OK", 4)
            rows = await store.read_after(m, 0)
            assert [(r.version, r.text, r.hash) for r in rows] == [
                (1, "e1", "h1"),
                (2, "e2", "h2"),
                (3, "e3", "h3"),
                (4, "e4", "h4"),
            ]
            assert (
                await store.command_version(m, "0:a"),
                await store.command_version(m, "1:b"),
                await store.meta(m, "phase"),
            ) == (2, 4, "2")
            # One key seen before refuses the whole run, whatever the version.
            again = [("0:new", "e5", "h5"), ("1:b", "e6", "h6")]
            assert await store.append_many(m, 4, again, {"phase": "3"}) == ("DUPLICATE", 4)
            assert await store.version(m) == 4
            assert await store.command_version(m, "0:new") is None
            assert await store.meta(m, "phase") == "2"

        self.run(body)

    def test_a_log_that_lost_acknowledged_entries_is_behind_until_repaired(self) -> None:
        async def body(store: Store, m: str) -> None:
            for v in range(3):
                await store.append(m, v, f"0:c{v}", f"e{v + 1}", "h")
            await self.delete_top(store, m, 2)  # a restored backup, a failover's lost tail
            assert await store.version(m) == 1
            # Whatever the caller expects, the lost versions are never written over.
            assert await store.append(m, 1, "0:new", "over", "h") == ("BEHIND", 1)
            assert await store.append(m, 3, "0:new", "over", "h") == ("BEHIND", 1)
            assert await store.append(m, 1, "0:c2", "again", "h") == ("BEHIND", 1)
            assert [r.text for r in await store.read_after(m, 0)] == ["e1"]
            assert await store.repair(m) == (3, 1)  # acknowledged up to 3, kept 1
            assert await store.meta(m, "repaired") == "1"
            assert await store.append(m, 1, "0:new", "e2'", "h") == ("OK", 2)
            assert await store.append(m, 2, "0:next", "e3'", "h") == ("OK", 3)
            assert await store.repair(m) == (3, 3)  # nothing lost: a no-op

        self.run(body)

    def test_an_entry_that_does_not_chain_onto_the_top_fences_the_match(self) -> None:
        """A failover lost the entry a server acknowledged and another took its version: the
        server's next entry (chained onto the lost one) is refused, and so is everyone's."""

        def spaced(prev: str) -> str:
            return json.dumps({"prev": prev, "events": []}, sort_keys=True)

        def canonical(prev: str) -> str:  # as the engine writes it
            return Entry(1, 0, "c", None, ({"type": "X", "prev": "ffff"},), 0, prev).canonical()

        async def body(store: Store, m: str) -> None:
            for entry, match in ((spaced, m), (canonical, m + "-canonical")):
                assert await store.append(match, 0, "", entry(""), "a1") == ("OK", 1)
                assert await store.append(match, 1, "0:a", entry("a1"), "a2") == ("OK", 2)
                # The writer that saw version 2 as "dead" chains onto it: a fork, fenced.
                assert await store.append(match, 2, "1:b", entry("dead"), "a3") == ("BEHIND", 2)
                assert await store.append(match, 2, "0:c", entry("a2"), "a3") == ("BEHIND", 2)
                assert await store.version(match) == 2
                assert await store.repair(match) == (3, 2)
                assert await store.append(match, 2, "0:c", entry("a2"), "a3") == ("OK", 3)

        self.run(body)

    def test_an_entry_chains_by_the_prev_its_writer_gives(self) -> None:
        """The writer hands the store the hash its entry chains onto (the engine: its Entry's
        `prev`), so the store reads no JSON for it; a `prev` that is not the top's is a fork and
        fences the match whatever the text says, and a given one that is wins over the text."""

        async def body(store: Store, m: str) -> None:
            assert await store.append(m, 0, "", "opaque", "a1", prev="0" * 64) == ("OK", 1)
            misleading = json.dumps({"prev": "dead"})
            assert await store.append(m, 1, "0:a", misleading, "a2", prev="a1") == ("OK", 2)
            run = [("1:b", "opaque", "a3")]
            assert await store.append_many(m, 2, run, prev="dead") == ("BEHIND", 2)
            assert await store.version(m) == 2
            assert await store.repair(m) == (3, 2)
            assert await store.append_many(m, 2, run, prev="a2") == ("OK", 3)

        self.run(body)

    def test_ticks_report_appends_to_subscribed_matches_only(self) -> None:
        async def body(store: Store, m: str) -> None:
            other = m + "-other"
            await store.append(m, 0, "", "e1", "h1")
            ticks = store.ticks()
            try:
                assert await ticks.next(0.01) == []  # nothing subscribed, nothing heard
                assert await ticks.subscribe([m, other]) == {m: 1, other: 0}
                await store.append(m, 1, "", "e2", "h2")
                await store.append(other, 0, "", "o1", "h")
                heard: list[tuple[str, int]] = []
                for _ in range(100):
                    heard += await ticks.next(0.05)
                    if len(heard) >= 2:
                        break
                assert sorted(heard) == sorted([(m, 2), (other, 1)])
                await ticks.unsubscribe([other])
                await store.append(other, 1, "", "o2", "h")
                await store.append(m, 2, "", "e3", "h3")
                heard = []
                for _ in range(100):
                    heard += await ticks.next(0.05)
                    if heard:
                        break
                assert heard == [(m, 3)]
                assert [r.version for r in await store.read_watched(m, 1)] == [2, 3]
            finally:
                await ticks.close()

        self.run(body)

    def test_a_tick_at_or_below_the_subscribed_version_is_no_news(self) -> None:
        """An append made before the subscription, published to the listener after it, is
        never reported: subscribe answered that version already (the race a loaded cluster
        run showed, reproduced here by ringing the stale ticks after subscribing)."""

        async def body(store: Store, m: str) -> None:
            await store.append(m, 0, "", "e1", "h1")
            await store.append(m, 1, "", "e2", "h2")
            ticks = store.ticks()
            try:
                assert await ticks.subscribe([m]) == {m: 2}
                await self.ring_late(store, ticks, m, 1)
                await self.ring_late(store, ticks, m, 2)
                await store.append(m, 2, "", "e3", "h3")
                heard: list[tuple[str, int]] = []
                for _ in range(100):
                    heard += await ticks.next(0.05)
                    if (m, 3) in heard:
                        break
                assert heard == [(m, 3)]
            finally:
                await ticks.close()

        self.run(body)

    # --- speed: snapshots ---

    def test_a_snapshot_is_kept_beside_the_log_and_only_a_newer_one_replaces_it(self) -> None:
        async def body(store: Store, m: str) -> None:
            assert await store.snapshot(m) is None
            await store.put_snapshot(m, 64, "s64")
            assert await store.snapshot(m) == (64, "s64")
            await store.put_snapshot(m, 32, "s32")  # an older one (a slower process) is ignored
            assert await store.snapshot(m) == (64, "s64")
            await store.put_snapshot(m, 128, "s128")
            assert await store.snapshot(m) == (128, "s128")
            await store.drop_snapshot(m, 64)  # names another snapshot: the kept one stays
            assert await store.snapshot(m) == (128, "s128")
            await store.drop_snapshot(m, 128)
            assert await store.snapshot(m) is None
            assert await store.read_after(m, 0) == []  # the log is untouched
            await store.drop_snapshot(m, 128)  # dropping nothing is no error

        self.run(body)

    # --- clocks: deadlines ---

    def test_a_deadline_is_set_moved_and_removed_and_an_older_version_never_wins(self) -> None:
        async def body(store: Store, m: str) -> None:
            assert await store.deadline_of(m) is None
            assert await store.set_deadline(m, 5_000, 3)
            assert await store.deadline_of(m) == 5_000
            assert not await store.set_deadline(m, 1_000, 2)  # derived from an older record
            assert await store.deadline_of(m) == 5_000
            assert await store.set_deadline(m, 7_000, 3)  # the same version may move it
            assert await store.deadline_of(m) == 7_000
            assert await store.set_deadline(m, None, 4)
            assert await store.deadline_of(m) is None

        self.run(body)

    def test_due_deadlines_are_claimed_once_per_lease_and_come_due_again_after_it(self) -> None:
        async def body(store: Store, m: str) -> None:
            mine = [f"{m}-{i}" for i in range(5)]
            for i, match in enumerate(mine):
                await store.set_deadline(match, 1_000 + i, 1)
            claimed = [c for c in await store.claim_deadlines(1_002, 500, 100) if c[0] in mine]
            assert sorted(claimed) == [(mine[0], 1_000), (mine[1], 1_001), (mine[2], 1_002)]
            again = [c for c in await store.claim_deadlines(1_400, 500, 100) if c[0] in mine]
            assert sorted(again) == [(mine[3], 1_003), (mine[4], 1_004)], "claimed ones wait"
            assert await store.deadline_of(mine[0]) == 1_502  # the lease's end
            late = [c for c in await store.claim_deadlines(1_502, 500, 100) if c[0] in mine]
            assert sorted(m for m, _ in late) == mine[:3], "a dead claimer's lease runs out"
            for match in mine:
                await store.set_deadline(match, None, 2)

        self.run(body)

    def test_a_claim_takes_at_most_its_limit(self) -> None:
        async def body(store: Store, m: str) -> None:
            mine = [f"{m}-{i}" for i in range(4)]
            for match in mine:
                await store.set_deadline(match, 10, 1)
            claimed = await store.claim_deadlines(10, 1_000, 2)
            assert len(claimed) <= 2
            for match in mine:
                await store.set_deadline(match, None, 2)

        self.run(body)

    def test_a_watched_seat_is_noted_until_a_time_that_only_moves_later(self) -> None:
        async def body(store: Store, m: str) -> None:
            assert await store.watched_until(m, 0) == 0
            await store.set_watched(m, {0: 5_000, 2: 7_000})
            await store.set_watched(m, {0: 4_000})  # another process's older note
            assert await store.watched_until(m, 0) == 5_000
            assert await store.watched_until(m, 2) == 7_000
            assert await store.watched_until(m, 1) == 0
            await store.set_watched(m, {})

        self.run(body)


class TestMemoryStore(StoreContract):
    """The in-process store."""

    def make(self) -> Store:
        return MemoryStore()

    async def delete_top(self, store: Store, match_id: str, count: int) -> None:
        assert isinstance(store, MemoryStore)
        store.delete_top(match_id, count)


class TestRedisStore(StoreContract):
    """The Redis store, on the test session's real Redis."""

    @pytest.fixture(autouse=True)
    def _url(self, redis_url: str) -> None:
        self.url = redis_url

    def make(self) -> Store:
        return RedisStore.from_url(self.url)

    async def delete_top(self, store: Store, match_id: str, count: int) -> None:
        assert isinstance(store, RedisStore)
        top = await store.version(match_id)
        ids: list[Any] = [f"{v}-0" for v in range(top - count + 1, top + 1)]
        await store.redis.xdel(log_key(match_id), *ids)
