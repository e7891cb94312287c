"""Webhook deliveries tracked in Redis, in each tenant's hash slot (docs/architecture.md).

- ``kozyr:{t:<tenant>}:wh:cursor``  the last feed cursor turned into deliveries
- ``kozyr:{t:<tenant>}:wh:due``     sorted set: delivery id -> when to try it next (ms)
- ``kozyr:{t:<tenant>}:wh:tries``   hash: delivery id -> "<attempts> <first try ms>"
- ``kozyr:{t:<tenant>}:wh:dead``    sorted set: delivery id -> when it was given up (ms)
- ``kozyr:{t:<tenant>}:wh:why``     hash: delivery id -> the last failure, for operators

A delivery id is ``<endpoint name>|<feed cursor>``. A sender *claims* due deliveries by moving
them a lease into the future, so replicas never send one at once; a sender that dies holding a
claim leaves it to come due again when the lease ends: at least once, never lost.

Every command waits for a free connection of the client's pool (`pool_size`) rather than
overrunning it: redis-py's asyncio pool raises "Too many connections" past its size, and every
tenant's tries (up to CLAIM each, all at once) share this one client.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import Any

from kozyr.platform.tenant_store import FeedItem, tenant_key
from kozyr.store.redis.connect import AsyncClient
from kozyr.store.redis.scripts import lua_script

ENQUEUE_LUA = lua_script("delivery_enqueue", __package__)

CLAIM_LUA = lua_script("delivery_claim", __package__)

DELIVERED_LUA = lua_script("delivery_delivered", __package__)

FAILED_LUA = lua_script("delivery_failed", __package__)

REDELIVER_LUA = lua_script("delivery_redeliver", __package__)

DEFAULT_POOL = 8  # commands at once where the client's pool does not say its size (a cluster)


def pool_size(client: AsyncClient) -> int:
    """How many commands `client` may run at once: its pool's size (redis-py's default,
    2**31, counts as unbounded here: 64 at once is plenty)."""
    size = getattr(getattr(client, "connection_pool", None), "max_connections", None)
    if isinstance(size, int) and size > 0:
        return min(size, 64)
    return DEFAULT_POOL


@dataclass(frozen=True, slots=True)
class Dead:
    """A delivery given up on."""

    id: str
    died_ms: int
    why: str


class Deliveries:
    """The delivery bookkeeping of every tenant on one Redis."""

    def __init__(self, client: AsyncClient) -> None:
        self.redis = client
        self._gate = asyncio.Semaphore(pool_size(client))
        self._enqueue = client.register_script(ENQUEUE_LUA)
        self._claim = client.register_script(CLAIM_LUA)
        self._redeliver = client.register_script(REDELIVER_LUA)
        self._delivered = client.register_script(DELIVERED_LUA)
        self._failed = client.register_script(FAILED_LUA)

    async def _run(self, command: Awaitable[Any]) -> Any:
        """One command, once a connection of the pool is free for it."""
        async with self._gate:
            return await command

    async def start(self, tenant: str) -> None:
        """Deliver from now on: a tenant's first start skips the feed's history."""
        rows: list[tuple[str, Any]] = await self._run(
            self.redis.xrevrange(tenant_key(tenant, "feed"), count=1)
        )
        top = rows[0][0] if rows else "0-0"
        await self._run(self.redis.set(tenant_key(tenant, "wh:cursor"), top, nx=True))

    async def enqueue(
        self, tenant: str, endpoints: Sequence[str], now_ms: int, count: int = 500
    ) -> int:
        """Turn new feed events into due deliveries (one per endpoint); how many events."""
        keys = [
            tenant_key(tenant, "feed"),
            tenant_key(tenant, "wh:cursor"),
            tenant_key(tenant, "wh:due"),
        ]
        return int(await self._run(self._enqueue(keys=keys, args=[now_ms, count, *endpoints])))

    async def claim(self, tenant: str, now_ms: int, lease_ms: int, count: int) -> list[str]:
        """Due deliveries, each leased to this sender until now + lease."""
        ids = await self._run(
            self._claim(
                keys=[tenant_key(tenant, "wh:due")], args=[now_ms, now_ms + lease_ms, count]
            )
        )
        return [str(i) for i in ids]

    async def item(self, tenant: str, cursor: str) -> FeedItem | None:
        """The feed event a delivery carries."""
        rows: list[tuple[str, dict[str, str]]] = await self._run(
            self.redis.xrange(tenant_key(tenant, "feed"), min=cursor, max=cursor)
        )
        return FeedItem(rows[0][0], rows[0][1]["e"]) if rows else None

    async def delivered(self, tenant: str, delivery: str) -> None:
        """The endpoint took it: forget the delivery."""
        keys = [
            tenant_key(tenant, "wh:due"),
            tenant_key(tenant, "wh:tries"),
            tenant_key(tenant, "wh:why"),
        ]
        await self._run(self._delivered(keys=keys, args=[delivery]))

    async def failed(
        self,
        tenant: str,
        delivery: str,
        why: str,
        now_ms: int,
        *,
        retry_for_ms: int,
        backoff_ms: int,
        backoff_max_ms: int,
    ) -> bool:
        """Note a failed try: due again after an exponential backoff, or dead once it has been
        tried for `retry_for_ms`. True if it is dead now."""
        keys = [
            tenant_key(tenant, "wh:due"),
            tenant_key(tenant, "wh:tries"),
            tenant_key(tenant, "wh:why"),
            tenant_key(tenant, "wh:dead"),
        ]
        dead = await self._run(
            self._failed(
                keys=keys,
                args=[delivery, now_ms, why[:500], retry_for_ms, backoff_ms, backoff_max_ms],
            )
        )
        return bool(dead)

    async def dead(self, tenant: str) -> list[Dead]:
        """The dead letters, oldest first."""
        rows: list[tuple[str, float]] = await self._run(
            self.redis.zrange(tenant_key(tenant, "wh:dead"), 0, -1, withscores=True)
        )
        ids = [str(m) for m, _ in rows]
        why = await self._run(self.redis.hmget(tenant_key(tenant, "wh:why"), ids)) if ids else []
        return [
            Dead(i, int(s), str(w or ""))
            for (i, s), w in zip([(str(m), s) for m, s in rows], why, strict=True)
        ]

    async def redeliver(self, tenant: str, ids: Sequence[str] | None, now_ms: int) -> int:
        """Make dead letters due again, with a fresh retry window (all when `ids` is None)."""
        chosen = [d.id for d in await self.dead(tenant)] if ids is None else list(ids)
        keys = [
            tenant_key(tenant, "wh:dead"),
            tenant_key(tenant, "wh:due"),
            tenant_key(tenant, "wh:tries"),
        ]
        moved = 0
        for delivery in chosen:
            moved += int(await self._run(self._redeliver(keys=keys, args=[delivery, now_ms])))
        return moved
