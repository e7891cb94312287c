"""The PlatformStore contract, run against both implementations (Redis and in-memory), and the
feed and lobby writer on the in-memory stores: exactly once, in order, caught up after a
process died between the match append and the feed commit."""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from kozyr.engine import Engine
from kozyr.platform.publisher import Platform
from kozyr.platform.tenant_memory import MemoryPlatformStore
from kozyr.platform.tenant_store import PlatformStore, RedisPlatformStore
from kozyr.store.memory import MemoryStore

Body = Callable[[PlatformStore, str], Awaitable[None]]


def run_on_memory(body: Body) -> None:
    asyncio.run(body(MemoryPlatformStore(), f"t{uuid.uuid4().hex[:8]}"))


class Contract:
    """Each test runs against one store (see the subclasses)."""

    def run(self, body: Body) -> None:
        raise NotImplementedError

    def test_commit_is_idempotent_by_phase_and_refuses_a_gap(self) -> None:
        async def body(store: PlatformStore, t: str) -> None:
            args: dict[str, Any] = {
                "summary": "{}",
                "drop": [],
                "lists": ["all"],
                "created_ms": 5,
                "ended": False,
                "now_ms": 10,
            }
            assert await store.commit(t, "m1", 0, 1, ["a"], **args) == ("OK", 1)
            assert await store.commit(t, "m1", 0, 1, ["a"], **args) == ("DUPLICATE", 1)
            assert await store.commit(t, "m1", 2, 3, ["c"], **args) == ("BEHIND", 1)
            assert await store.commit(t, "m1", 1, 3, ["b", "c"], **args) == ("OK", 3)
            assert await store.fed(t, "m1") == 3 and await store.fed(t, "m2") == 0
            items = await store.read_feed(t, "", 10)
            assert [i.text for i in items] == ["a", "b", "c"]
            assert [i.text for i in await store.read_feed(t, items[0].cursor, 10)] == ["b", "c"]
            assert await store.read_feed(t, items[-1].cursor, 10) == []
            assert await store.feed_top(t) == items[-1].cursor

        self.run(body)

    def test_the_lobby_lists_newest_first_and_moves_entries_between_lists(self) -> None:
        async def body(store: PlatformStore, t: str) -> None:
            for n in range(5):
                await store.commit(
                    t, f"m{n}", 0, 1, [], f'{{"n":{n}}}', [], ["all", "open"], 100 + n, False, 1
                )
            await store.commit(t, "m2", 1, 2, [], '{"n":2,"x":1}', ["open"], ["all"], 0, False, 2)
            rows = await store.lobby_scan(t, "all", None, 3)
            assert [m for m, _ in rows] == ["m4", "m3", "m2"]
            rest = await store.lobby_scan(t, "all", rows[-1][1], 10)
            assert [m for m, _ in rest] == ["m1", "m0"]
            assert [m for m, _ in await store.lobby_scan(t, "open", None, 10)] == [
                "m4",
                "m3",
                "m1",
                "m0",
            ]
            found = await store.summaries(t, ["m2", "nope"])
            assert found == [('{"n":2,"x":1}', 102), (None, 0)]

        self.run(body)

    def test_live_matches_come_due_and_leave_when_ended(self) -> None:
        async def body(store: PlatformStore, t: str) -> None:
            await store.live(t, "a", 10)
            await store.live(t, "b", 20)
            assert await store.due(t, 15, 10) == ["a"]
            assert sorted(await store.due(t, 25, 10)) == ["a", "b"]
            await store.commit(t, "a", 0, 1, [], "{}", [], [], 0, True, 30)
            await store.drop_live(t, "b")
            assert await store.due(t, 100, 10) == []

        self.run(body)


class TestMemoryPlatformStore(Contract):
    def run(self, body: Body) -> None:
        run_on_memory(body)


class TestRedisPlatformStore(Contract):
    @pytest.fixture(autouse=True)
    def _url(self, redis_url: str) -> None:
        self.url = redis_url

    def run(self, body: Body) -> None:
        async def go() -> None:
            import redis.asyncio as aioredis

            client = aioredis.Redis.from_url(self.url, decode_responses=True)
            try:
                await body(RedisPlatformStore(client), f"t{uuid.uuid4().hex[:8]}")
            finally:
                await client.aclose()

        asyncio.run(go())


# ---------------------------------------------------------------------- the writer


async def events(platform: Platform, tenant: str) -> list[dict[str, Any]]:
    items = await platform.data.read_feed(tenant, "", 10_000)
    return [json.loads(i.text) for i in items]


async def played(engine: Engine, match_id: str, rng: random.Random) -> None:
    for _ in range(5000):
        record = await engine.record(match_id)
        if record.finished:
            return
        for seat in range(record.players):
            legal = list(record.game.legal_commands(record.state, seat))
            if legal:
                await engine.submit(match_id, seat, rng.choice(legal), uuid.uuid4().hex)
                break


@pytest.fixture
def stores() -> tuple[MemoryStore, MemoryPlatformStore]:
    return MemoryStore(), MemoryPlatformStore()


def test_every_lifecycle_event_once_in_order(
    stores: tuple[MemoryStore, MemoryPlatformStore],
) -> None:
    store, data = stores

    async def body() -> None:
        engine = Engine(store)
        platform = engine.lifecycle = Platform(store, data)
        created = await engine.create(
            "dix", {"single_hand": "true"}, [("", b""), ("", b"")], tenant="acme"
        )
        await engine.join(created.match_id, "ann", user="u-ann")
        await engine.join(created.match_id, "bob", user="u-bob")
        await played(engine, created.match_id, random.Random(1))
        seen = await events(platform, "acme")
        assert [e["type"] for e in seen] == [
            "match.created",
            "seat.joined",
            "seat.joined",
            "match.started",
            "match.ended",
        ]
        assert [e.get("user") for e in seen[1:3]] == ["u-ann", "u-bob"]
        assert await platform.sweep(["acme"]) == 0  # nothing behind, nothing again
        assert len(await events(platform, "acme")) == 5

    asyncio.run(body())


def test_a_writer_that_died_is_caught_up_by_the_next_append_or_the_sweep(
    stores: tuple[MemoryStore, MemoryPlatformStore],
) -> None:
    store, data = stores

    async def body() -> None:
        clock = iter(range(10**6, 10**7, 1000))
        platform = Platform(store, data, clock=lambda: next(clock) / 1000, grace_s=0)
        writer = Engine(store)
        writer.lifecycle = platform
        crashed = Engine(store)  # appends, never commits to the feed
        first = await writer.create("dix", {}, [("", b""), ("", b"")], tenant="acme")
        await crashed.join(first.match_id, "ann")  # died before its feed commit
        await writer.join(first.match_id, "bob")  # finds the feed behind: commits both
        second = await writer.create("dix", {}, [("", b""), ("", b"")], tenant="acme")
        await crashed.join(second.match_id, "cy")  # and nobody appends after it
        assert await platform.sweep(["acme"]) == 1
        seen = [(e["match_id"], e["type"], e["version"]) for e in await events(platform, "acme")]
        first_events = [s for s in seen if s[0] == first.match_id]
        assert [t for _, t, _ in first_events] == [
            "match.created",
            "seat.joined",
            "seat.joined",
            "match.started",
        ]
        assert [v for *_, v in first_events] == [1, 2, 3, 3]
        assert [t for m, t, _ in seen if m == second.match_id] == ["match.created", "seat.joined"]
        assert len(seen) == len(set(seen))

    asyncio.run(body())


def test_a_commit_that_lands_while_a_reader_reads_the_feed_wakes_it_at_once(
    stores: tuple[MemoryStore, MemoryPlatformStore],
) -> None:
    store, data = stores

    async def body() -> None:
        engine = Engine(store)
        platform = engine.lifecycle = Platform(store, data)
        read_feed = data.read_feed
        raced: list[str] = []

        async def read_then_commit(tenant: str, after: str, count: int) -> list[Any]:
            items = await read_feed(tenant, after, count)
            if not items and not raced:  # a commit lands just after the read was answered
                raced.append(after)
                await engine.create("dix", {}, [("ann", b""), ("bob", b"")], tenant="acme")
            return items

        data.read_feed = read_then_commit  # type: ignore[method-assign]
        reader = platform.events("acme", "", poll_s=600.0)
        # Its ring came during the read: the reader reads again at once. (A bell cleared after
        # the empty read lost that ring, and this waited the whole poll.)
        first = await asyncio.wait_for(anext(reader), 30)
        assert raced and json.loads(first.text)["type"] == "match.created"
        await reader.aclose()

    asyncio.run(body())
