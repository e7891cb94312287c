"""The append script's own pipelined connection (store/redis/lane.py), on real Redis servers:
every reply reaches its own caller, an error reply fails only its call, NOSCRIPT reloads, a lost
or stalled connection fails the calls in flight and the next call reconnects, and the password,
database and TCP paths all work."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import redis.asyncio as aioredis
import redis.exceptions

from kozyr.match.errors import MatchError
from kozyr.store.redis.embedded import EmbeddedRedis
from kozyr.store.redis.lane import ScriptLane
from kozyr.store.redis.streams import RedisStore
from tests.cluster.harness import LocalCluster

ECHO = """
if ARGV[1] == 'bad' then return redis.error_reply('BOOM refused') end
redis.call('SET', KEYS[1], ARGV[1])
return {'OK', ARGV[1]}
"""


def lane_on(url: str, **kwargs: Any) -> tuple[aioredis.Redis, ScriptLane]:
    client = aioredis.Redis.from_url(url, decode_responses=True, **kwargs)
    lane = ScriptLane.for_client(client, client.register_script(ECHO))
    assert lane is not None
    return client, lane


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    """A Redis of this test alone (its connections are killed, its password set)."""
    with EmbeddedRedis(tmp_path / "redis") as server:
        yield server


def test_concurrent_calls_each_get_their_own_reply_and_errors_stay_their_own(
    redis_url: str,
) -> None:
    async def body() -> None:
        client, lane = lane_on(redis_url)
        args = [f"v{i}" if i % 50 else "bad" for i in range(600)]
        results = await asyncio.gather(
            *(lane([f"lane:{{t}}:{i}"], [a]) for i, a in enumerate(args)), return_exceptions=True
        )
        for arg, result in zip(args, results, strict=True):
            if arg == "bad":
                assert isinstance(result, redis.exceptions.ResponseError)
                assert "BOOM" in str(result)
            else:
                assert result == ["OK", arg]
        assert await client.get("lane:{t}:7") == "v7"
        lane.close()
        await client.aclose()

    asyncio.run(body())


def test_a_flushed_script_cache_is_loaded_again(redis_url: str) -> None:
    async def body() -> None:
        client, lane = lane_on(redis_url)
        assert await lane(["lane:{flush}"], ["a"]) == ["OK", "a"]
        await client.script_flush()
        results = await asyncio.gather(*(lane(["lane:{flush}"], [str(i)]) for i in range(20)))
        assert results == [["OK", str(i)] for i in range(20)]
        lane.close()
        await client.aclose()

    asyncio.run(body())


def test_a_killed_connection_fails_as_unavailable_and_the_next_call_reconnects(
    own_redis: EmbeddedRedis,
) -> None:
    async def body() -> None:
        store = RedisStore.from_url(own_redis.url)
        assert (await store.append("m1", 0, "", '{"v":1}', "h1"))[0] == "OK"
        with contextlib.closing(redis.Redis.from_url(own_redis.url)) as admin:
            admin.execute_command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")
        outcomes: list[str] = []
        for _ in range(4):  # the first call after the kill may find the socket dead
            try:  # CONFLICT: an attempt cut off after it landed
                status, _ = await store.append("m2", 0, "", '{"v":2}', "h2")
                outcomes.append(status)
            except MatchError as e:
                outcomes.append(e.code)
            if outcomes[-1] in ("OK", "CONFLICT"):
                break
        assert outcomes[-1] in ("OK", "CONFLICT"), outcomes
        assert set(outcomes[:-1]) <= {"STORE_UNAVAILABLE"}, outcomes
        assert await store.version("m2") == 1
        await store.close()

    asyncio.run(body())


def test_a_stalled_redis_times_out_and_the_lane_recovers(own_redis: EmbeddedRedis) -> None:
    async def body() -> None:
        client, lane = lane_on(own_redis.url, socket_timeout=0.3)
        assert await lane(["lane:{stall}"], ["a"]) == ["OK", "a"]
        admin = aioredis.Redis.from_url(own_redis.url)
        sleeping = asyncio.create_task(admin.execute_command("DEBUG", "SLEEP", "1"))
        await asyncio.sleep(0.1)
        with pytest.raises(redis.exceptions.TimeoutError):
            await lane(["lane:{stall}"], ["b"])
        await sleeping
        assert await lane(["lane:{stall}"], ["c"]) == ["OK", "c"]
        lane.close()
        await admin.aclose()
        await client.aclose()

    asyncio.run(body())


def test_password_and_database_are_sent_on_connecting(own_redis: EmbeddedRedis) -> None:
    with contextlib.closing(redis.Redis.from_url(own_redis.url)) as admin:
        admin.config_set("requirepass", "s3cret")

    async def body() -> None:
        client, lane = lane_on(f"{own_redis.url}?password=s3cret&db=3")
        assert await lane(["lane:{db}"], ["in-three"]) == ["OK", "in-three"]
        lane.close()
        await client.aclose()
        _, wrong = lane_on(f"{own_redis.url}?password=wrong")
        with pytest.raises(redis.exceptions.AuthenticationError):
            await wrong(["lane:{db}"], ["x"])

    asyncio.run(body())
    for db, held in ((3, "in-three"), (0, None)):
        with contextlib.closing(
            redis.Redis.from_url(f"{own_redis.url}?password=s3cret&db={db}", decode_responses=True)
        ) as check:
            assert check.get("lane:{db}") == held


def test_a_tcp_redis_works_and_tls_keeps_redis_pys_path(tmp_path: Path) -> None:
    cluster = LocalCluster(tmp_path)
    node = cluster.start_single()
    try:

        async def body() -> None:
            store = RedisStore.from_url(f"redis://127.0.0.1:{node.port}/0")
            statuses = await asyncio.gather(
                *(store.append(f"t{i}", 0, "", '{"v":1}', "h") for i in range(50))
            )
            assert {s for s, _ in statuses} == {"OK"}
            assert await store.version("t49") == 1
            await store.close()

        asyncio.run(body())
    finally:
        cluster.stop()
    tls = aioredis.Redis.from_url("rediss://127.0.0.1:1")  # lazy: never connects
    assert ScriptLane.for_client(tls, tls.register_script(ECHO)) is None
