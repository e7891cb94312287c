"""A full Redis (maxmemory with noeviction) is STORE_FULL at every write site a platform's calls
reach: the match's stream, the tenant's feed and lobby, the live index, the deadlines of a
clocked match, a join, a move. Never INTERNAL, and nothing half-written: once memory is freed,
every match the service acknowledged plays on and the lobby lists only matches that exist."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc
from kozyr.config.settings import ServerConfig, load_tenancy
from kozyr.store.redis.connect import out_of_memory, store_error
from kozyr.store.redis.embedded import EmbeddedRedis
from kozyr.wire.errorinfo import error_info
from tests.api.platforms import ACME_KEY, PlatformServer, key, open_match, write_config

pytestmark = pytest.mark.slow  # a Redis of its own, filled to its limit


@pytest.fixture
def small_redis(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    with EmbeddedRedis(tmp_path / "redis") as server:
        yield server


def fill(url: str) -> None:
    """Set maxmemory well below what Redis uses (noeviction): every write is refused."""
    client = redis.Redis.from_url(url)
    used = int(client.info("memory")["used_memory"])
    client.config_set("maxmemory-policy", "noeviction")
    client.config_set("maxmemory", used // 2)
    client.close()


def free(url: str) -> None:
    client = redis.Redis.from_url(url)
    client.config_set("maxmemory", 0)
    client.close()


def refusal(call: grpc.RpcError) -> tuple[grpc.StatusCode, str]:
    info = error_info(call)  # type: ignore[arg-type]
    assert info is not None, f"{call.code()} without ErrorInfo: {call.details()}"
    return call.code(), str(info.reason)


def test_every_form_of_a_refused_write_is_store_full(small_redis: EmbeddedRedis) -> None:
    fill(small_redis.url)
    client = redis.Redis.from_url(small_redis.url)
    errors: list[Exception] = []
    for write in (
        lambda: client.set("one-more", "x"),
        lambda: client.eval("redis.call('SET', KEYS[1], 'x') return 1", 1, "from-a-script"),
    ):
        with pytest.raises(redis.exceptions.ResponseError) as caught:
            write()
        errors.append(caught.value)
    client.close()
    errors.append(redis.exceptions.ResponseError("OOM command not allowed when used memory"))
    for error in errors:
        assert out_of_memory(error), repr(error)
        made = store_error(error)
        assert made is not None and made.code == "STORE_FULL", repr(error)


def writes(
    stub: kozyr_pb2_grpc.KozyrServiceStub, waiting: str, joiner: str
) -> list[tuple[str, Callable[[], str]]]:
    """The calls that write: an open match (stream, feed, lobby, live index), a clocked match
    (its deadline too) and a join of an open seat; each gives the match id it acknowledged."""
    clocked = pb.CreateMatchRequest(
        game="dix",
        options={"single_hand": "true"},
        seats=[pb.SeatRequest(name="a"), pb.SeatRequest(name="b")],
        time_control=pb.TimeControl(
            kind=pb.TIME_CONTROL_KIND_FISCHER, bank_ms=60_000, increment_ms=1_000
        ),
    )
    join = pb.JoinMatchRequest(match_id=waiting, name=joiner)
    return [
        ("open match", functools.partial(open_match, stub, ACME_KEY, named=1)),
        ("clocked match", lambda: stub.CreateMatch(clocked, metadata=key(ACME_KEY)).match_id),
        ("join", lambda: stub.JoinMatch(join, metadata=key(ACME_KEY)).match_id),
    ]


def test_a_full_redis_answers_store_full_at_every_write_site_and_half_writes_nothing(
    small_redis: EmbeddedRedis, tmp_path: Path
) -> None:
    tenancy = load_tenancy(write_config(tmp_path))
    server = PlatformServer(
        small_redis.url, tenancy, config=ServerConfig(feed_sweep_interval_s=0.2)
    )
    try:
        stub = server.stub()
        waiting = open_match(stub, ACME_KEY, named=1)  # one seat open: a join to refuse
        playing = open_match(stub, ACME_KEY, named=2)
        fill(small_redis.url)
        seen: dict[tuple[grpc.StatusCode, str], int] = {}
        acknowledged: list[str] = []
        for i in range(12):
            for what, call in writes(stub, waiting, f"j{i}"):
                try:
                    acknowledged.append(call())
                except grpc.RpcError as e:
                    got = refusal(e)
                    assert got == (grpc.StatusCode.RESOURCE_EXHAUSTED, "STORE_FULL"), (what, got)
                    seen[got] = seen.get(got, 0) + 1
        assert seen, "the full Redis refused nothing: the test did not fill it"
        free(small_redis.url)
        for match_id in {playing, *acknowledged}:
            server.play_out(match_id)  # every acknowledged match plays on to its end
        listed = stub.ListMatches(pb.ListMatchesRequest(), metadata=key(ACME_KEY))
        for entry in listed.matches:
            stub.GetMatch(pb.GetMatchRequest(match_id=entry.match_id), metadata=key(ACME_KEY))
    finally:
        server.stop()


def test_the_feed_and_lobby_commit_on_a_full_redis_is_store_full(
    small_redis: EmbeddedRedis,
) -> None:
    """The commit is a script on a lane of its own: Redis refuses its first write inside the
    script ("Error running script ... -OOM ..."), which must read as STORE_FULL (it was INTERNAL
    when a match's append had just fit and its feed commit did not)."""
    from kozyr.match.errors import MatchError
    from kozyr.platform.tenant_store import RedisPlatformStore
    from kozyr.store.redis.connect import connect

    async def commit() -> None:
        store = RedisPlatformStore(connect(small_redis.url), 4)
        try:
            with pytest.raises(MatchError) as refused:
                await store.commit(
                    "acme", "0123456789abcdef", 0, 1, ['{"type":"match.created"}'], "{}",
                    [], ["all"], 1, False, 1,
                )  # fmt: skip
            assert refused.value.code == "STORE_FULL"
            with pytest.raises(MatchError) as refused:
                await store.live("acme", "0123456789abcdef", 1)
            assert refused.value.code == "STORE_FULL"
        finally:
            await store.close()

    fill(small_redis.url)
    asyncio.run(commit())


def test_each_write_of_the_match_store_on_a_full_redis_is_store_full(
    small_redis: EmbeddedRedis,
) -> None:
    """The store's writes past a move's append, each on its own: a snapshot kept, a deadline
    set, due deadlines leased to a timer, a seat's watched mark. On a full Redis each is
    STORE_FULL (the service answers RESOURCE_EXHAUSTED, the timer retries), never a raw Redis
    error, and what it would have changed stays as it was. (Dropping a snapshot frees memory:
    Redis takes it, full or not.)"""
    from kozyr.match.errors import MatchError
    from kozyr.server.bootstrap import redis_store

    match_id = "0123456789abcdef"

    async def body() -> None:
        store = redis_store(small_redis.url)()
        try:
            await store.ready()
            await store.put_snapshot(match_id, 1, "{}")
            assert await store.set_deadline(match_id, 1_000, 1)  # due already: a timer's to take
            fill(small_redis.url)
            writes: dict[str, Callable[[], Any]] = {
                "snapshot kept": lambda: store.put_snapshot(match_id, 2, "{}"),
                "deadline set": lambda: store.set_deadline(match_id, 5_000, 2),
                "deadlines leased": lambda: store.claim_deadlines(2_000, 1_000, 10),
                "seat watched": lambda: store.set_watched(match_id, {0: 9_000}),
            }
            for what, write in writes.items():
                with pytest.raises(MatchError) as refused:
                    await write()
                assert refused.value.code == "STORE_FULL", (what, refused.value)
            free(small_redis.url)
            assert await store.snapshot(match_id) == (1, "{}")
            assert await store.deadline_of(match_id) == 1_000
            assert await store.watched_until(match_id, 0) == 0
        finally:
            await store.close()

    asyncio.run(body())
