"""The Redis event store: one Redis Stream per match, appended through one Lua script.

Keys of a match share the hash tag ``{<match_id>}`` so they live in one Redis Cluster slot:

- ``kozyr:{id}:log``  the stream; entry ID ``<version>-0``, fields ``e`` (canonical entry JSON)
  and ``h`` (its SHA-256). The only source of truth; never trimmed.
- ``kozyr:{id}:meta`` a hash of secrets the log must not show before the end: the server seed
  and the token hashes (``tok:<sha256>`` → seat).
- ``kozyr:{id}:cmds`` a hash ``<seat>:<command_id>`` → version, for idempotent commands.

The append script checks the command id, then the expected version (and that the entry chains
onto the stream's top), then XADDs with our own ID and records the command id and any meta
fields, all atomically in one round trip. Key names live in kozyr.store.redis.names;
clients are made by kozyr.store.redis.connect (one server or a Redis Cluster).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import redis.asyncio as aioredis
from redis.commands.core import AsyncScript

from kozyr.store.port import AppendStatus, StoredEntry, Ticks
from kozyr.store.redis.connect import (
    AsyncClient,
    Gate,
    connect,
    server_version,
    translated,
)
from kozyr.store.redis.lane import ScriptLane, laned
from kozyr.store.redis.names import (
    DEADLINE_SHARDS,
    cmds_key,
    deadline_shard,
    deadline_versions_key,
    deadlines_key,
    fence_key,
    log_key,
    meta_key,
    seen_key,
    snapshot_key,
    tick_channel,
)
from kozyr.store.redis.scripts import lua_script
from kozyr.store.redis.ticks import RedisTicks, ticks_for

# The key helpers stay importable from here (they live in kozyr.store.redis.names).
__all__ = [
    "APPEND_LUA",
    "REPAIR_LUA",
    "RedisStore",
    "RedisTicks",
    "cmds_key",
    "fence_key",
    "log_key",
    "meta_key",
    "tick_channel",
]

APPEND_LUA = lua_script("append")

# Only a newer snapshot replaces the kept one; a drop removes only the one it names.
PUT_SNAPSHOT_LUA = lua_script("put_snapshot")
DROP_SNAPSHOT_LUA = lua_script("drop_snapshot")

REPAIR_LUA = lua_script("repair")


# --- clocks: deadlines ---
# Deadlines of many matches cannot share a match's hash tag, so they are spread over
# DEADLINE_SHARDS shards (kozyr.store.redis.names), each a sorted set in its own slot with a hash of
# the versions the deadlines were derived from in the same slot.

SET_DEADLINE_LUA = lua_script("set_deadline")

SEEN_LUA = lua_script("seen")

# Every shard's claim in one call where the shards share one server (not a cluster): the
# timer loop polls all of them a few times a second in every process, and eight calls on
# redis-py's pooled path were ~3 % of a busy server's CPU (py-spy).
CLAIM_ALL_LUA = lua_script("claim_all")

CLAIM_LUA = lua_script("claim")


BACKGROUND = 8  # connections of the moves' pool kept for background tasks


class RedisStore:
    """The Store on one Redis (or Redis Cluster-compatible) server.

    Moves and watchers use separate, bounded connection pools, so watching can never starve
    moving: `redis` serves the commands of moves, `watch_redis` the reads of watchers and the
    one pub/sub connection that hears every watched match's appends. A burst beyond a pool's
    size waits its turn at a semaphore rather than failing. (Not redis-py's
    BlockingConnectionPool: on CPython 3.11 a task cancelled while it waits there can hang
    for good, and a client that drops thousands of calls at once cancels exactly so.)
    """

    def __init__(
        self,
        client: AsyncClient,
        watch_client: AsyncClient | None = None,
        *,
        limit: int = 64,
        watch_limit: int = 8,
        sharded: bool = False,
    ) -> None:
        self.redis = client
        self.watch_redis = watch_client or client
        self._repair: AsyncScript = client.register_script(REPAIR_LUA)
        self._put_snapshot: AsyncScript = client.register_script(PUT_SNAPSHOT_LUA)
        self._drop_snapshot: AsyncScript = client.register_script(DROP_SNAPSHOT_LUA)
        # Deadlines are written on every move of a clocked match (and every run of bots):
        # they get a lane of their own too.
        self._set_deadline = laned(self.redis, client.register_script(SET_DEADLINE_LUA))
        self._claim: AsyncScript = client.register_script(CLAIM_LUA)
        self._claim_all = laned(self.redis, client.register_script(CLAIM_ALL_LUA))
        self._seen: AsyncScript = client.register_script(SEEN_LUA)
        self._next_shard = 0
        self.use_sharded_ticks(sharded)
        self._gate = Gate(limit)
        self._watch_gate = Gate(watch_limit)

    @classmethod
    def from_url(
        cls, url: str, *, max_connections: int = 64, watch_connections: int = 8, **kwargs: Any
    ) -> RedisStore:
        """Connect lazily to the Redis at `url` (redis://, rediss://, unix:// or a Redis
        Cluster's redis+cluster://host:port,... - see kozyr.store.redis.connect)."""
        # Each pool has room beyond its gate: the watchers' for the ticks listener, the moves'
        # for the service's background tasks (the revocation listener holds a connection for
        # good; the feed sweep, webhook sender and timer loop take one now and then). A pool
        # only as big as its gate gave false STORE_UNAVAILABLE with 64 moves in flight.
        return cls(
            connect(url, max_connections=max_connections + BACKGROUND, **kwargs),
            connect(url, max_connections=watch_connections + 4, **kwargs),
            limit=max_connections,
            watch_limit=watch_connections,
        )

    @property
    def cluster(self) -> bool:
        """Whether this store talks to a Redis Cluster."""
        return not isinstance(self.redis, aioredis.Redis)

    def use_sharded_ticks(self, sharded: bool) -> None:
        """Ring ticks with SPUBLISH and hear them with SSUBSCRIBE (Redis >= 7, a cluster):
        a tick then stays on its match's shard instead of crossing the whole cluster bus."""
        self.sharded = sharded
        script = APPEND_LUA.replace("'PUBLISH'", "'SPUBLISH'") if sharded else APPEND_LUA
        self._append = laned(self.redis, self.redis.register_script(script))

    async def ready(self) -> None:
        """Connect now (errors surface here, not on the first move); on a Redis Cluster of
        Redis >= 7 switch ticks to sharded pub/sub."""
        await self.redis.ping()
        if self.cluster:
            self.use_sharded_ticks(await server_version(self.redis) >= (7, 0))

    def slot(self, watch: bool = False) -> Gate:
        """A turn on the moves' pool (the watchers' with `watch`), with redis-py's errors
        translated into MatchError: everything on this store's connections runs inside one,
        so a burst waits at the gate instead of failing (see the class docstring)."""
        return self._watch_gate if watch else self._gate

    async def close(self) -> None:
        """Close both connection pools (and the scripts' own connections)."""
        for lane in (self._append, self._set_deadline, self._claim_all):
            if isinstance(lane, ScriptLane):
                lane.close()
        await self.redis.aclose()
        if self.watch_redis is not self.redis:
            await self.watch_redis.aclose()

    async def append(
        self,
        match_id: str,
        expected_version: int,
        command_key: str,
        text: str,
        digest: str,
        meta: Mapping[str, str] | None = None,
        *,
        prev: str | None = None,
        seal: str = "",
    ) -> tuple[AppendStatus, int]:
        """Append one entry if the stream is at `expected_version` and the command is new.

        See Store.append. The fence key keeps the highest version ever acknowledged, so a
        stream that lost acknowledged entries answers BEHIND instead of being written over.
        """
        return await self.append_many(
            match_id,
            expected_version,
            [(command_key, text, digest)],
            meta,
            prev=prev,
            seals=(seal,),
        )

    async def append_many(
        self,
        match_id: str,
        expected_version: int,
        entries: Sequence[tuple[str, str, str]],
        meta: Mapping[str, str] | None = None,
        *,
        prev: str | None = None,
        seals: Sequence[str] = (),
    ) -> tuple[AppendStatus, int]:
        """See Store.append_many: one script call for the whole run."""
        args: list[str | int] = [
            expected_version,
            tick_channel(match_id),
            len(entries),
            prev or "",  # "": the script reads it from the entry
        ]
        for i, (key, text, digest) in enumerate(entries):
            args += [key, text, digest, seals[i] if i < len(seals) else ""]
        for k, v in (meta or {}).items():
            args += [k, v]
        keys = [log_key(match_id), cmds_key(match_id), meta_key(match_id), fence_key(match_id)]
        if not isinstance(self._append, ScriptLane):
            async with self.slot():
                status, value = await self._append(keys=keys, args=args)
            return status, int(value)
        # The lane takes no pooled connection, so it needs no turn at the gate (a turn was
        # ~2 % of a server's CPU): only redis-py's errors are translated.
        with translated():
            status, value = await self._append(keys=keys, args=args)
        return status, int(value)

    async def repair(self, match_id: str) -> tuple[int, int]:
        """See Store.repair."""
        async with self.slot():
            fence, top = await self._repair(
                keys=[log_key(match_id), fence_key(match_id), meta_key(match_id)]
            )
        return int(fence), int(top)

    async def read_after(
        self, match_id: str, version: int, upto: int | None = None
    ) -> list[StoredEntry]:
        """Entries with versions in (version, upto] — all later ones when upto is None."""
        low = f"({version}-0" if version > 0 else "-"
        high = "+" if upto is None else f"{upto}-0"
        async with self.slot():
            rows: list[tuple[str, dict[str, str]]] = await self.redis.xrange(
                log_key(match_id), min=low, max=high
            )  # type: ignore[assignment]
        return [_stored(entry_id, fields) for entry_id, fields in rows]

    async def version(self, match_id: str) -> int:
        """The stream's current version (0 when the match does not exist)."""
        async with self.slot():
            rows: list[tuple[str, Any]] = await self.redis.xrevrange(  # type: ignore[assignment]
                log_key(match_id), count=1
            )
        return int(rows[0][0].split("-", 1)[0]) if rows else 0

    async def read_watched(self, match_id: str, version: int) -> list[StoredEntry]:
        """See Store.read_watched: the watchers' own pool."""
        async with self.slot(watch=True):
            rows: list[tuple[str, dict[str, str]]] = await self.watch_redis.xrange(
                log_key(match_id), min=f"({version}-0" if version > 0 else "-"
            )  # type: ignore[assignment]
        return [_stored(entry_id, fields) for entry_id, fields in rows]

    def ticks(self) -> Ticks:
        """See Store.ticks: one pub/sub connection (store/redis/ticks.py)."""
        return ticks_for(self.watch_redis, sharded=self.sharded)

    async def meta(self, match_id: str, field: str) -> str | None:
        """One field of the match's secrets hash."""
        async with self.slot():
            value = await self.redis.hget(meta_key(match_id), field)
        return None if value is None else str(value)

    async def command_version(self, match_id: str, command_key: str) -> int | None:
        """The version a command produced, if it was accepted."""
        async with self.slot():
            value = await self.redis.hget(cmds_key(match_id), command_key)
        return None if value is None else int(value)

    # --- speed: snapshots ---

    async def put_snapshot(self, match_id: str, version: int, text: str) -> None:
        """See Store.put_snapshot."""
        async with self.slot():
            await self._put_snapshot(keys=[snapshot_key(match_id)], args=[version, text])

    async def snapshot(self, match_id: str) -> tuple[int, str] | None:
        """See Store.snapshot."""
        async with self.slot():
            kept: dict[str, str] = await self.redis.hgetall(  # type: ignore[assignment]
                snapshot_key(match_id)
            )
        if "v" not in kept or "s" not in kept:
            return None
        return int(kept["v"]), kept["s"]

    async def drop_snapshot(self, match_id: str, version: int) -> None:
        """See Store.drop_snapshot."""
        async with self.slot():
            await self._drop_snapshot(keys=[snapshot_key(match_id)], args=[version])

    # --- clocks: deadlines (see Store) ---

    async def set_deadline(self, match_id: str, due_ms: int | None, version: int) -> bool:
        """See Store.set_deadline: one script on the match's deadline shard."""
        shard = deadline_shard(match_id)
        async with self.slot():
            done = await self._set_deadline(
                keys=[deadlines_key(shard), deadline_versions_key(shard)],
                args=[match_id, version, "" if due_ms is None else due_ms],
            )
        return bool(done)

    async def deadline_of(self, match_id: str) -> int | None:
        """See Store.deadline_of."""
        async with self.slot():
            score = await self.redis.zscore(deadlines_key(deadline_shard(match_id)), match_id)
        return None if score is None else int(score)

    async def claim_deadlines(
        self, now_ms: int, lease_ms: int, limit: int
    ) -> list[tuple[str, int]]:
        """See Store.claim_deadlines: every shard, starting from a rotating one so that no
        shard waits behind the others when more than `limit` are due."""
        claimed: list[tuple[str, int]] = []
        start, self._next_shard = self._next_shard, (self._next_shard + 1) % DEADLINE_SHARDS
        if not self.cluster:
            keys = [deadlines_key((start + k) % DEADLINE_SHARDS) for k in range(DEADLINE_SHARDS)]
            with translated():
                rows = await self._claim_all(keys, [now_ms, now_ms + lease_ms, limit])
            return [(str(rows[i]), int(float(rows[i + 1]))) for i in range(0, len(rows), 2)]
        for k in range(DEADLINE_SHARDS):
            if len(claimed) >= limit:
                break
            shard = (start + k) % DEADLINE_SHARDS
            async with self.slot():
                rows = await self._claim(
                    keys=[deadlines_key(shard)],
                    args=[now_ms, now_ms + lease_ms, limit - len(claimed)],
                )
            claimed += [(str(rows[i]), int(float(rows[i + 1]))) for i in range(0, len(rows), 2)]
        return claimed

    async def set_watched(self, match_id: str, seats: Mapping[int, int]) -> None:
        """See Store.set_watched: a hash in the match's slot that expires with its last
        watcher (a field only ever moves later, so replicas never undo each other)."""
        if not seats:
            return
        args: list[int] = []
        for seat, until in seats.items():
            args += [seat, until]
        async with self.slot():
            await self._seen(keys=[seen_key(match_id)], args=args)

    async def watched_until(self, match_id: str, seat: int) -> int:
        """See Store.watched_until."""
        async with self.slot():
            value = await self.redis.hget(seen_key(match_id), str(seat))
        return 0 if value is None else int(value)


def _stored(entry_id: str, fields: Mapping[str, str]) -> StoredEntry:
    return StoredEntry(
        int(entry_id.split("-", 1)[0]), fields["e"], fields["h"], fields.get("s", "")
    )
