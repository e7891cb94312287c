"""Round trips to Redis a process leaves out, seen with Redis MONITOR: a finished match's
record is final (every append after its last entry refuses, MATCH_OVER), so GetMatch and the
like answer it without a read, while a match still playing is caught up with its log; and the
alarm stored before a match's first append is not written again after it."""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import redis

from kozyr.actors.seatbots import SeatBots
from kozyr.actors.timers import Timers
from kozyr.engine import Engine
from kozyr.match import clock
from kozyr.match.phases import ENDED
from kozyr.platform.publisher import Platform
from kozyr.platform.tenant_store import RedisPlatformStore
from kozyr.store.redis.names import deadline_shard, deadline_versions_key
from kozyr.store.redis.streams import RedisStore, log_key


class Monitor:
    """The commands Redis runs (MONITOR), until a sentinel command says all before it came."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self.commands: list[str] = []
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._listen, daemon=True)

    def __enter__(self) -> Monitor:
        self._thread.start()
        assert self._ready.wait(10)
        return self

    def _listen(self) -> None:
        with self.client.monitor() as monitor:  # type: ignore[no-untyped-call]  # unannotated
            self._ready.set()
            for command in monitor.listen():
                self.commands.append(command["command"])
                if command["command"].startswith("ECHO monitor-end"):
                    return

    def __exit__(self, *exc: Any) -> None:
        self.client.echo("monitor-end")
        self._thread.join(10)
        assert not self._thread.is_alive()


def on_redis(redis_url: str, body: Callable[[Engine, redis.Redis], Awaitable[None]]) -> None:
    """Run `body` with an engine on the test Redis and a client to MONITOR it; close both."""

    async def run(watch: redis.Redis) -> None:
        store = RedisStore.from_url(redis_url)
        engine = Engine(store)
        try:
            await body(engine, watch)
        finally:
            await engine.close()
            await store.close()

    watch = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        asyncio.run(run(watch))
    finally:
        watch.close()


def test_a_finished_match_is_answered_without_reading_its_log(redis_url: str) -> None:
    async def body(engine: Engine, watch: redis.Redis) -> None:
        bots = SeatBots(engine)
        done = await engine.create(
            "dix",
            {"single_hand": "true"},
            [("a", b""), ("b", b"")],
            terms=clock.make_terms(bots=["random", "random"]),
        )
        await asyncio.sleep(0)
        await bots.wait()
        playing = await engine.create("dix", {}, [("a", b""), ("b", b"")])
        with Monitor(watch) as seen:
            for _ in range(3):
                assert (await engine.record(done.match_id)).finished
                assert not (await engine.record(playing.match_id)).finished
        reads = [c for c in seen.commands if c.startswith("XRANGE")]
        assert not [c for c in reads if log_key(done.match_id) in c]
        assert len([c for c in reads if log_key(playing.match_id) in c]) == 3

    on_redis(redis_url, body)


def test_the_alarm_stored_before_the_first_append_is_not_written_again(redis_url: str) -> None:
    async def body(engine: Engine, watch: redis.Redis) -> None:
        timers = Timers(engine, SeatBots(engine))
        terms = clock.make_terms(clock="DECISION", limit_ms=60_000)
        # A first match loads the scripts: on a fresh Redis an EVALSHA answered NOSCRIPT is
        # sent again after SCRIPT LOAD, and MONITOR would count that one write twice.
        await engine.create("dix", {}, [("a", b""), ("b", b"")], terms=terms)
        with Monitor(watch) as seen:
            created = await engine.create("dix", {}, [("a", b""), ("b", b"")], terms=terms)
            await timers.close()  # the deadline writes in flight land
        shard = deadline_versions_key(deadline_shard(created.match_id))
        writes = [
            c
            for c in seen.commands
            if c.startswith("EVALSHA") and shard in c and created.match_id in c
        ]
        assert len(writes) == 1, writes
        assert await engine.store.deadline_of(created.match_id) is not None

    on_redis(redis_url, body)


def test_a_feed_reader_of_endings_reads_once_per_ending_and_no_owner_is_looked_up(
    redis_url: str,
) -> None:
    async def body(engine: Engine, watch: redis.Redis) -> None:
        store = engine.store
        assert isinstance(store, RedisStore)
        platform = engine.lifecycle = Platform(store, RedisPlatformStore.sharing(store))
        tenant = f"t{uuid.uuid4().hex[:8]}"
        bots = SeatBots(engine)
        reader = platform.events(tenant, "", poll_s=600.0, types=frozenset({ENDED}))
        first = asyncio.ensure_future(anext(reader))
        await asyncio.sleep(0.05)  # the reader has read the empty feed and waits
        with Monitor(watch) as seen:
            created = await engine.create(
                "dix",
                {"single_hand": "true"},
                [("a", b""), ("b", b"")],
                terms=clock.make_terms(bots=["random", "random"]),
                tenant=tenant,
            )
            await bots.wait()
            while json.loads((item := await asyncio.wait_for(first, 30)).text)["type"] != ENDED:
                first = asyncio.ensure_future(anext(reader))
            await reader.aclose()
        feed = f"kozyr:{{t:{tenant}}}:feed"
        reads = [c for c in seen.commands if c.startswith(f"XRANGE {feed}")]
        # The match.created commit rang no bell of this reader: it read once, for the ending.
        assert len(reads) == 1, reads
        assert json.loads(item.text)["match_id"] == created.match_id
        # The ending's feed commit knew the match's tenant from its creation here.
        assert not [c for c in seen.commands if c.startswith("HGET") and c.endswith(" tenant")]

    on_redis(redis_url, body)
