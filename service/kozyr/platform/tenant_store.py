"""Where the platforms' data lives: per tenant, a results feed, a lobby index and the webhook
deliveries (the Redis layout is in docs/architecture.md, "Tenant keys").

Every key of one tenant carries the hash tag ``{t:<tenant>}``, so a tenant's feed, lobby and
deliveries share one Redis Cluster slot and each script below touches one slot only; a match's
own keys stay in the match's slot. The feed commit is idempotent by (match, phase): see
kozyr.match.phases.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import redis.asyncio as aioredis

from kozyr.store.port import store_full
from kozyr.store.redis.connect import AsyncClient, translated
from kozyr.store.redis.lane import ScriptLane, laned
from kozyr.store.redis.scripts import lua_script
from kozyr.store.redis.streams import RedisStore

CommitStatus = Literal["OK", "DUPLICATE", "BEHIND"]


@dataclass(frozen=True, slots=True)
class FeedItem:
    """One event of a tenant's feed: its cursor (the stream entry ID) and its JSON text."""

    cursor: str
    text: str

    def body(self, data: dict[str, Any] | None = None) -> str:
        """The event's JSON with its cursor as `id` (WatchEvents' json, a webhook's body);
        `data` is the event's JSON read already."""
        data = {**(json.loads(self.text) if data is None else data), "id": self.cursor}
        return json.dumps(data, sort_keys=True, separators=(",", ":"))


class PlatformStore(Protocol):
    """What the feed, the lobby and the webhook sender need from a store."""

    async def commit(
        self,
        tenant: str,
        match_id: str,
        before: int,
        after: int,
        events: Sequence[str],
        summary: str,
        drop: Sequence[str],
        lists: Sequence[str],
        created_ms: int,
        ended: bool,
        now_ms: int,
    ) -> tuple[CommitStatus, int]:
        """Append `events` to the feed and index `summary` in `lists` (leaving `drop`) if the
        feed holds phase `before` of the match: ("OK", after); ("DUPLICATE", fed) when it holds
        `after` or more; ("BEHIND", fed) when it holds less than `before`."""
        ...

    async def fed(self, tenant: str, match_id: str) -> int:
        """The match's phase the feed holds (0: none)."""
        ...

    async def read_feed(self, tenant: str, after: str, count: int) -> list[FeedItem]:
        """At most `count` events after cursor `after` ("" or "0-0": from the start)."""
        ...

    async def feed_top(self, tenant: str) -> str:
        """The newest cursor of the feed ("0-0" when empty)."""
        ...

    async def live(self, tenant: str, match_id: str, now_ms: int) -> None:
        """Note a match that is not ended yet (before its first entry: a write-ahead)."""
        ...

    async def due(self, tenant: str, before_ms: int, count: int) -> list[str]:
        """Live matches last looked at before `before_ms`."""
        ...

    async def drop_live(self, tenant: str, match_id: str) -> None:
        """Forget a live match that never came to exist."""
        ...

    async def lobby_scan(
        self, tenant: str, name: str, below: int | None, count: int
    ) -> list[tuple[str, int]]:
        """(match id, position) of list `name`, newest first, positions below `below`."""
        ...

    async def summaries(
        self, tenant: str, match_ids: Sequence[str]
    ) -> list[tuple[str | None, int]]:
        """Each match's summary JSON (None if unindexed) and creation time."""
        ...


# The write-ahead of a live match, as a script so that it can go on a lane of its own; a full
# store answers FULL, as the append does (inside a script Redis words an OOM as a script error).
LIVE_LUA = lua_script("tenant_live", __package__)
COMMIT_LUA = lua_script("tenant_commit", __package__)


def _semaphore(limit: int) -> Callable[[], AbstractAsyncContextManager[None]]:
    gate = asyncio.Semaphore(limit)

    @contextlib.asynccontextmanager
    async def held() -> AsyncIterator[None]:
        async with gate:
            yield

    return held


def tenant_key(tenant: str, part: str) -> str:
    """A key of one tenant (all in the tenant's hash slot)."""
    return f"kozyr:{{t:{tenant}}}:{part}"


class RedisPlatformStore:
    """The PlatformStore on a Redis: on a pool of its own (`beside`, the webhook sender), or on
    a RedisStore's pool behind that store's own gate (`sharing`: the feed and lobby add no
    connection of their own, and the pool never serves more callers than its size)."""

    def __init__(
        self,
        client: AsyncClient,
        limit: int = 16,
        gate: Callable[[], AbstractAsyncContextManager[None]] | None = None,
    ) -> None:
        self.redis = client
        # On connections of their own like the match append (store/redis/lane.py): each
        # match commits twice (created, ended), and redis-py's pooled path costs the event
        # loop 105-190 us a call against the lane's 23-93; every match notes itself live
        # before its first append too (py-spy had that pooled ZADD at 3 % of a server-bots
        # server's CPU).
        self._commit = laned(client, client.register_script(COMMIT_LUA))
        self._live = laned(client, client.register_script(LIVE_LUA))
        self._gate = gate or _semaphore(limit)
        self._owned = gate is None

    @classmethod
    def sharing(cls, store: RedisStore) -> RedisPlatformStore:
        """On `store`'s connections, each call taking a place at its gate like a move's."""
        return cls(store.redis, gate=store.slot)  # the one gate of that pool, on purpose

    @classmethod
    def beside(cls, client: AsyncClient, limit: int = 16) -> RedisPlatformStore:
        """A store on the same Redis as `client` (its address and settings), with a pool of
        its own on one server (a cluster client's per-node pools are shared)."""
        if not isinstance(client, aioredis.Redis):
            return cls(client, limit)
        pool = client.connection_pool
        own = aioredis.ConnectionPool(
            connection_class=pool.connection_class, max_connections=limit, **pool.connection_kwargs
        )
        return cls(aioredis.Redis(connection_pool=own), limit)

    async def close(self) -> None:
        """Release the pool (if it is this store's own) and the commit's connection."""
        for lane in (self._commit, self._live):
            if isinstance(lane, ScriptLane):
                lane.close()
        if self._owned:
            await self.redis.aclose()

    @contextlib.asynccontextmanager
    async def _slot(self) -> AsyncIterator[None]:
        async with self._gate():
            with translated():  # a full Redis, in any form, is STORE_FULL
                yield

    async def commit(
        self,
        tenant: str,
        match_id: str,
        before: int,
        after: int,
        events: Sequence[str],
        summary: str,
        drop: Sequence[str],
        lists: Sequence[str],
        created_ms: int,
        ended: bool,
        now_ms: int,
    ) -> tuple[CommitStatus, int]:
        """See PlatformStore.commit."""
        t = tenant
        keys = [
            tenant_key(t, "feed"),
            tenant_key(t, "fed"),
            tenant_key(t, "lobby"),
            tenant_key(t, "live"),
            tenant_key(t, "created"),
            tenant_key(t, "seq"),
            tenant_key(t, "seq:next"),
        ]
        keys += [tenant_key(t, f"list:{n}") for n in drop]
        keys += [tenant_key(t, f"list:{n}") for n in lists]
        args: list[str | int] = [
            match_id,
            before,
            after,
            summary,
            created_ms,
            "1" if ended else "0",
            len(drop),
            len(events),
            *events,
            now_ms,
        ]
        async with self._slot():
            status, value = await self._commit(keys=keys, args=args)
        return status, int(value)

    async def fed(self, tenant: str, match_id: str) -> int:
        """See PlatformStore.fed."""
        async with self._slot():
            value = await self.redis.hget(tenant_key(tenant, "fed"), match_id)
        return int(value or 0)

    async def read_feed(self, tenant: str, after: str, count: int) -> list[FeedItem]:
        """See PlatformStore.read_feed."""
        low = f"({after}" if after and after != "0-0" else "-"
        async with self._slot():
            rows: list[tuple[str, Mapping[str, str]]] = await self.redis.xrange(  # type: ignore[assignment]
                tenant_key(tenant, "feed"), min=low, max="+", count=count
            )
        return [FeedItem(cursor, fields["e"]) for cursor, fields in rows]

    async def feed_top(self, tenant: str) -> str:
        """See PlatformStore.feed_top."""
        async with self._slot():
            rows: list[tuple[str, object]] = await self.redis.xrevrange(  # type: ignore[assignment]
                tenant_key(tenant, "feed"), count=1
            )
        return rows[0][0] if rows else "0-0"

    async def live(self, tenant: str, match_id: str, now_ms: int) -> None:
        """See PlatformStore.live."""
        async with self._slot():
            status = await self._live(keys=[tenant_key(tenant, "live")], args=[now_ms, match_id])
        if status == "FULL":
            raise store_full()

    async def due(self, tenant: str, before_ms: int, count: int) -> list[str]:
        """See PlatformStore.due."""
        async with self._slot():
            found = await self.redis.zrangebyscore(
                tenant_key(tenant, "live"), "-inf", before_ms, start=0, num=count
            )
        return [str(m) for m in found]

    async def drop_live(self, tenant: str, match_id: str) -> None:
        """See PlatformStore.drop_live."""
        async with self._slot():
            await self.redis.zrem(tenant_key(tenant, "live"), match_id)

    async def lobby_scan(
        self, tenant: str, name: str, below: int | None, count: int
    ) -> list[tuple[str, int]]:
        """See PlatformStore.lobby_scan."""
        top = "+inf" if below is None else f"({below}"
        async with self._slot():
            rows: list[tuple[str, float]] = await self.redis.zrevrangebyscore(  # type: ignore[assignment]
                tenant_key(tenant, f"list:{name}"), top, "-inf", start=0, num=count, withscores=True
            )
        return [(str(m), int(s)) for m, s in rows]

    async def summaries(
        self, tenant: str, match_ids: Sequence[str]
    ) -> list[tuple[str | None, int]]:
        """See PlatformStore.summaries."""
        if not match_ids:
            return []
        async with self._slot():
            texts = await self.redis.hmget(tenant_key(tenant, "lobby"), list(match_ids))
            times = await self.redis.hmget(tenant_key(tenant, "created"), list(match_ids))
        return [
            (None if t is None else str(t), int(c or 0)) for t, c in zip(texts, times, strict=True)
        ]
