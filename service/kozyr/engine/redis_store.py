"""The Redis event store: one Redis Stream per match, appended through one Lua script.

Keys of a match share the hash tag ``{<match_id>}`` so they live in one Redis Cluster slot:

- ``kozyr:{id}:log``  the stream; entry ID ``<version>-0``, fields ``e`` (canonical entry JSON)
  and ``h`` (its SHA-256). The only source of truth; never trimmed.
- ``kozyr:{id}:meta`` a hash of secrets the log must not show before the end: the server seed
  and the token hashes (``tok:<sha256>`` → seat).
- ``kozyr:{id}:cmds`` a hash ``<seat>:<command_id>`` → version, for idempotent commands.

The append script checks the command id, then the expected version, then XADDs with our own ID
and records the command id and any meta fields, all atomically in one round trip.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import redis.asyncio as aioredis
import redis.exceptions
from redis.commands.core import AsyncScript

from kozyr.engine.store import AppendStatus, StoredEntry
from kozyr.match.errors import Kind, MatchError

APPEND_LUA = """
if ARGV[2] ~= '' then
  local seen = redis.call('HGET', KEYS[2], ARGV[2])
  if seen then return {'DUPLICATE', seen} end
end
local current = 0
local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #top > 0 then current = tonumber(string.match(top[1][1], '^(%d+)')) end
if current ~= tonumber(ARGV[1]) then return {'CONFLICT', tostring(current)} end
local version = current + 1
local added = redis.pcall('XADD', KEYS[1], version .. '-0', 'e', ARGV[3], 'h', ARGV[4])
if type(added) == 'table' and added.err then return {'GAP', tostring(current)} end
if ARGV[2] ~= '' then redis.call('HSET', KEYS[2], ARGV[2], version) end
if #ARGV > 4 then redis.call('HSET', KEYS[3], unpack(ARGV, 5)) end
return {'OK', tostring(version)}
"""

def log_key(match_id: str) -> str:
    """The stream key of a match."""
    return f"kozyr:{{{match_id}}}:log"


def meta_key(match_id: str) -> str:
    """The secrets hash of a match."""
    return f"kozyr:{{{match_id}}}:meta"


def cmds_key(match_id: str) -> str:
    """The command-id hash of a match."""
    return f"kozyr:{{{match_id}}}:cmds"


def request_key(request_id: str) -> str:
    """The key of an idempotent CreateMatch (the request id itself is not stored)."""
    return "kozyr:req:" + hashlib.sha256(b"idx:" + request_id.encode()).hexdigest()


@contextmanager
def _translated() -> Iterator[None]:
    """A lost or loading Redis becomes UNAVAILABLE; the engine never sees redis-py's errors."""
    try:
        yield
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError) as e:
        raise MatchError(Kind.UNAVAILABLE, "STORE_UNAVAILABLE",
                         "the event store is unreachable; retry shortly") from e
    except redis.exceptions.BusyLoadingError as e:
        raise MatchError(Kind.UNAVAILABLE, "STORE_LOADING",
                         "the event store is loading its data; retry shortly") from e


class RedisStore:
    """The Store on one Redis (or Redis Cluster-compatible) server."""

    def __init__(self, client: aioredis.Redis) -> None:
        self.redis = client
        self._append: AsyncScript = client.register_script(APPEND_LUA)

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> RedisStore:
        """Connect lazily to the Redis at `url` (redis://, rediss:// or unix://)."""
        return cls(aioredis.Redis.from_url(url, decode_responses=True, **kwargs))

    async def close(self) -> None:
        """Close the connection pool."""
        await self.redis.aclose()

    async def append(
        self,
        match_id: str,
        expected_version: int,
        command_key: str,
        text: str,
        digest: str,
        meta: Mapping[str, str] | None = None,
    ) -> tuple[AppendStatus, int]:
        """Append one entry if the stream is at `expected_version` and the command is new.

        Returns ("OK", new version), ("DUPLICATE", the version that command produced),
        ("CONFLICT", the stream's current version) or ("GAP", current version) when Redis refuses
        the next ID because entries above the top one were deleted — a damaged stream that only
        an operator may repair.
        """
        args: list[str | int] = [expected_version, command_key, text, digest]
        for k, v in (meta or {}).items():
            args += [k, v]
        with _translated():
            status, value = await self._append(
                keys=[log_key(match_id), cmds_key(match_id), meta_key(match_id)], args=args)
        return status, int(value)

    async def read_after(
        self, match_id: str, version: int, upto: int | None = None
    ) -> list[StoredEntry]:
        """Entries with versions in (version, upto] — all later ones when upto is None."""
        low = f"({version}-0" if version > 0 else "-"
        high = "+" if upto is None else f"{upto}-0"
        with _translated():
            rows: list[tuple[str, dict[str, str]]] = await self.redis.xrange(
                log_key(match_id), min=low, max=high)  # type: ignore[assignment]
        return [_stored(entry_id, fields) for entry_id, fields in rows]

    async def version(self, match_id: str) -> int:
        """The stream's current version (0 when the match does not exist)."""
        with _translated():
            rows: list[tuple[str, Any]] = await self.redis.xrevrange(  # type: ignore[assignment]
                log_key(match_id), count=1)
        return int(rows[0][0].split("-", 1)[0]) if rows else 0

    async def wait_after(self, match_id: str, version: int, block_ms: int) -> int:
        """Block until the stream has an entry after `version` (or timeout); its top version."""
        with _translated():
            rows: list[tuple[str, list[tuple[str, Any]]]] = await self.redis.xread(  # type: ignore[assignment]
                {log_key(match_id): f"{version}-0"}, block=block_ms)
        if not rows:
            return version
        entries = rows[0][1]
        return int(entries[-1][0].split("-", 1)[0])

    async def meta(self, match_id: str, field: str) -> str | None:
        """One field of the match's secrets hash."""
        with _translated():
            value = await self.redis.hget(meta_key(match_id), field)
        return None if value is None else str(value)

    async def command_version(self, match_id: str, command_key: str) -> int | None:
        """The version a command produced, if it was accepted."""
        with _translated():
            value = await self.redis.hget(cmds_key(match_id), command_key)
        return None if value is None else int(value)

    async def claim_request(self, request_id: str, value: str) -> str | None:
        """Record an idempotent creation; the earlier record if the id was used already."""
        key = request_key(request_id)
        with _translated():
            if await self.redis.set(key, value, nx=True):
                return None
            existing = await self.redis.get(key)
        return None if existing is None else str(existing)


def _stored(entry_id: str, fields: Mapping[str, str]) -> StoredEntry:
    return StoredEntry(int(entry_id.split("-", 1)[0]), fields["e"], fields["h"])
