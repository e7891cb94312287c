"""Ticks on their own pub/sub connection (store/redis/ticks.py), on a real Redis: a plain
connection gets the hiredis listener, which hears what it subscribed to once Redis confirmed
it, turns a lost connection into UNAVAILABLE (the feeds then re-read and subscribe again),
and works behind a password."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from kozyr.match.errors import MatchError
from kozyr.store.redis.embedded import EmbeddedRedis
from kozyr.store.redis.streams import RedisStore
from kozyr.store.redis.ticks import LaneTicks, RedisTicks


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    """A Redis of this test alone (its connections are killed, its password set)."""
    with EmbeddedRedis(tmp_path / "redis") as server:
        yield server


async def heard_within(ticks: LaneTicks | RedisTicks, count: int) -> list[tuple[str, int]]:
    heard: list[tuple[str, int]] = []
    for _ in range(100):
        heard += await ticks.next(0.05)
        if len(heard) >= count:
            break
    return heard


def test_a_plain_redis_gets_the_hiredis_listener_and_hears_each_append(redis_url: str) -> None:
    async def body() -> None:
        store = RedisStore.from_url(redis_url)
        ticks = store.ticks()
        assert isinstance(ticks, LaneTicks)
        try:
            # Many matches subscribed at once: every version read after Redis confirmed them.
            ids = [f"lt-{i}" for i in range(300)]
            assert await ticks.subscribe(ids) == dict.fromkeys(ids, 0)
            await asyncio.gather(*(store.append(m, 0, "", "e1", "h1") for m in ids))
            assert sorted(await heard_within(ticks, 300)) == sorted((m, 1) for m in ids)
        finally:
            await ticks.close()
            await store.close()

    asyncio.run(body())


def test_a_killed_listener_is_unavailable_and_a_new_one_hears_again(
    own_redis: EmbeddedRedis,
) -> None:
    async def body() -> None:
        store = RedisStore.from_url(own_redis.url)
        ticks = store.ticks()
        await ticks.subscribe(["k1"])
        with contextlib.closing(redis.Redis.from_url(own_redis.url)) as admin:
            admin.execute_command("CLIENT", "KILL", "TYPE", "pubsub")
        with pytest.raises(MatchError) as lost:
            for _ in range(100):
                await ticks.next(0.05)
        assert lost.value.code == "STORE_UNAVAILABLE"
        await ticks.close()
        again = store.ticks()  # what Feeds does after a loss
        try:
            assert await again.subscribe(["k1"]) == {"k1": 0}
            await store.append("k1", 0, "", "e1", "h1")
            assert await heard_within(again, 1) == [("k1", 1)]
        finally:
            await again.close()
            await store.close()

    asyncio.run(body())


def test_the_listener_logs_in_where_redis_wants_a_password(own_redis: EmbeddedRedis) -> None:
    with contextlib.closing(redis.Redis.from_url(own_redis.url)) as admin:
        admin.config_set("requirepass", "s3cret")
    url = f"{own_redis.url}?password=s3cret"

    async def body() -> None:
        store = RedisStore.from_url(url)
        ticks = store.ticks()
        try:
            assert await ticks.subscribe(["p1"]) == {"p1": 0}
            await store.append("p1", 0, "", "e1", "h1")
            assert await heard_within(ticks, 1) == [("p1", 1)]
        finally:
            await ticks.close()
            await store.close()

    asyncio.run(body())
