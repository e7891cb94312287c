"""Ticks over Redis pub/sub: the append script PUBLISHes (SPUBLISHes, when sharded) each
version on the match's channel, and one listener per process hears the matches it watches.

A process hears its own appends' ticks too (Redis has no way to leave out a subscriber's own
publications), one per append of a watched match, so the listener's cost per message counts:
redis-py's PubSub reads one message per call through its locks, timeouts and dicts, ~6 % of a
server's CPU with its sessions' matches watched (py-spy, 2026-12-03). `ticks_for` gives
`LaneTicks` on a plain connection (host and port, or a unix socket), which parses whatever
arrived at once with hiredis as it arrives; a Redis Cluster and TLS keep `RedisTicks`
(redis-py's PubSub, which also knows sharded channels).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Collection, Mapping
from typing import Any

import hiredis
import redis.asyncio as aioredis
import redis.exceptions
from redis.asyncio.connection import Connection, UnixDomainSocketConnection

from kozyr.store.port import Ticks
from kozyr.store.redis.connect import AsyncClient, translated
from kozyr.store.redis.names import log_key, match_of, tick_channel

MAX_HEARD = 10_000  # ticks handed over by one `next` at most


def ticks_for(client: AsyncClient, *, sharded: bool = False) -> Ticks:
    """The ticks of `client`'s server (see the module docstring)."""
    if (
        isinstance(client, aioredis.Redis)
        and not sharded
        and (client.connection_pool.connection_class in (Connection, UnixDomainSocketConnection))
    ):
        return LaneTicks(client)
    return RedisTicks(client, sharded=sharded)


async def _tops(client: AsyncClient, ids: list[str]) -> dict[str, int]:
    """Each match's newest version, read after its subscription took effect."""
    async with client.pipeline(transaction=False) as pipe:
        for m in ids:
            pipe.xrevrange(log_key(m), count=1)
        tops = await pipe.execute()
    return {
        m: int(rows[0][0].split("-", 1)[0]) if rows else 0
        for m, rows in zip(ids, tops, strict=True)
    }


class _Listener(asyncio.Protocol):
    """The subscribed connection: messages parsed as they arrive, kept until `next` takes
    them; subscription confirmations counted for `subscribe` to wait on."""

    def __init__(self) -> None:
        self.reader = hiredis.Reader(encoding="utf-8")
        self.heard: list[tuple[str, str]] = []  # (channel, version) not taken yet
        self.bell: asyncio.Future[None] | None = None
        self.confirmed = 0  # SUBSCRIBE confirmations heard
        self.confirming: list[tuple[int, asyncio.Future[None]]] = []
        self.transport: asyncio.Transport | None = None
        self.lost: Exception | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        while (reply := self.reader.gets()) is not False:
            if isinstance(reply, hiredis.ReplyError):
                self.fail(redis.exceptions.ConnectionError(f"Redis refused: {reply}"))
                return
            kind = reply[0] if isinstance(reply, list) and reply else None
            if kind == "message":
                self.heard.append((reply[1], reply[2]))
            elif kind == "subscribe":
                self.confirmed += 1
        while self.confirming and self.confirming[0][0] <= self.confirmed:
            _resolve(self.confirming.pop(0)[1])
        if self.heard and self.bell is not None:
            _resolve(self.bell)

    def connection_lost(self, exc: Exception | None) -> None:
        self.fail(redis.exceptions.ConnectionError(f"the Redis connection was lost ({exc})"))

    def fail(self, error: Exception) -> None:
        """Wake every waiter; they raise `error` (the listener starts over)."""
        self.lost = self.lost or error
        for _, future in self.confirming:
            _resolve(future)
        self.confirming.clear()
        if self.bell is not None:
            _resolve(self.bell)
        if self.transport is not None:
            self.transport.abort()

    def write(self, *command: str) -> None:
        """Send a command; its reply comes as a push."""
        if self.lost is not None or self.transport is None:
            raise redis.exceptions.ConnectionError("the Redis connection was lost")
        # hiredis' stub types the tuple as of one element; it takes any number.
        self.transport.write(hiredis.pack_command(command))  # type: ignore[arg-type]


class LaneTicks:
    """Ticks on a pub/sub connection of their own, read with hiredis (module docstring).
    Used by one task at a time (Feeds' listener)."""

    def __init__(self, client: aioredis.Redis) -> None:
        self._client = client  # for the versions as of subscribing
        self._settings: Mapping[str, Any] = client.connection_pool.connection_kwargs
        self._listener: _Listener | None = None
        self._subscribed = 0  # SUBSCRIBE confirmations to expect in all
        # Each subscribed match with the version its subscription read: a tick of a match
        # just left, or at or below that version (no news), is dropped.
        self._matches: dict[str, int] = {}

    async def _connected(self) -> _Listener:
        if self._listener is None:
            s, loop = self._settings, asyncio.get_running_loop()
            timeout = s.get("socket_connect_timeout") or s.get("socket_timeout")
            async with asyncio.timeout(timeout):
                if "path" in s:
                    _, listener = await loop.create_unix_connection(_Listener, s["path"])
                else:
                    _, listener = await loop.create_connection(
                        _Listener, s.get("host", "localhost"), s.get("port", 6379)
                    )
            self._listener = listener
            if s.get("password"):
                listener.write("AUTH", *filter(None, (s.get("username"), s["password"])))
        if self._listener.lost is not None:
            raise self._listener.lost
        return self._listener

    async def subscribe(self, match_ids: Collection[str]) -> dict[str, int]:
        """See Ticks.subscribe: the versions are read once Redis confirmed every channel, so
        no append falls between the two unheard."""
        ids = list(match_ids)
        with translated():
            listener = await self._connected()
            listener.write("SUBSCRIBE", *(tick_channel(m) for m in ids))
            self._subscribed += len(ids)
            confirmed = asyncio.get_running_loop().create_future()
            listener.confirming.append((self._subscribed, confirmed))
            async with asyncio.timeout(self._settings.get("socket_timeout")):
                await confirmed
            if listener.lost is not None:
                raise listener.lost
            tops = await _tops(self._client, ids)
        self._matches.update(tops)
        return tops

    async def unsubscribe(self, match_ids: Collection[str]) -> None:
        """See Ticks.unsubscribe (not waited for: a late tick is dropped)."""
        with translated():
            (await self._connected()).write("UNSUBSCRIBE", *(tick_channel(m) for m in match_ids))
        for match_id in match_ids:
            self._matches.pop(match_id, None)

    async def next(self, timeout: float) -> list[tuple[str, int]]:
        """See Ticks.next."""
        if not self._matches:
            await asyncio.sleep(timeout)
            return []
        with translated():
            listener = await self._connected()
            if not listener.heard:
                loop = asyncio.get_running_loop()
                bell = listener.bell = loop.create_future()
                timer = loop.call_later(timeout, _resolve, bell)
                try:
                    await bell
                finally:
                    timer.cancel()
                    listener.bell = None
                if listener.lost is not None:
                    raise listener.lost
        taken = listener.heard[:MAX_HEARD]
        del listener.heard[:MAX_HEARD]
        return [
            (match_id, version)
            for channel, text in taken
            if (version := int(text)) > self._matches.get(match_id := match_of(channel), version)
        ]

    async def close(self) -> None:
        """See Ticks.close."""
        if self._listener is not None:
            self._listener.fail(redis.exceptions.ConnectionError("closed"))
            self._listener = None


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class RedisTicks:
    """Ticks over Redis pub/sub: the append script PUBLISHes (SPUBLISHes, when sharded) each
    version on the match's channel. Used by one task at a time (Feeds' listener), so its
    connections are never shared."""

    def __init__(self, client: AsyncClient, *, sharded: bool = False) -> None:
        self._client = client
        self._sharded = sharded
        self._pubsub: Any = None
        # What is subscribed now, with the version its subscription read. In a cluster a
        # PUBLISH reaches the subscriber's node over the bus, late: a tick of a match just left
        # may still arrive, and so may one of an append made before the subscription (at or
        # below the version it read); both are dropped here. An UNSUBSCRIBE is not waited for.
        self._matches: dict[str, int] = {}

    async def _connected(self) -> Any:
        if self._pubsub is None:
            if isinstance(self._client, aioredis.Redis):
                self._pubsub = self._client.pubsub(ignore_subscribe_messages=True)
            else:
                await self._client.initialize()  # the slot map, to find the channels' nodes
                # Classic ticks reach every node of a cluster: any one node will do.
                node = None if self._sharded else self._client.get_random_node()
                self._pubsub = self._client.pubsub(node=node, ignore_subscribe_messages=True)
        return self._pubsub

    async def subscribe(self, match_ids: Collection[str]) -> dict[str, int]:
        """See Ticks.subscribe."""
        ids = list(match_ids)
        channels = [tick_channel(m) for m in ids]
        with translated():
            await self._connected()
            if self._sharded:  # one SSUBSCRIBE per channel: each may live on another node
                for channel in channels:
                    await self._pubsub.ssubscribe(channel)
            else:
                await self._pubsub.subscribe(*channels)
            tops = await _tops(self._client, ids)
        self._matches.update(tops)
        return tops

    async def unsubscribe(self, match_ids: Collection[str]) -> None:
        """See Ticks.unsubscribe."""
        channels = [tick_channel(m) for m in match_ids]
        with translated():
            if self._sharded:
                for channel in channels:
                    await self._pubsub.sunsubscribe(channel)
            else:
                await self._pubsub.unsubscribe(*channels)
        for match_id in match_ids:
            self._matches.pop(match_id, None)

    async def _message(self, timeout: float) -> dict[str, Any] | None:
        if self._sharded:
            message: dict[str, Any] | None = await self._pubsub.get_sharded_message(
                ignore_subscribe_messages=True, timeout=timeout
            )
            return message
        return await self._pubsub.get_message(timeout=timeout)  # type: ignore[no-any-return]

    async def next(self, timeout: float) -> list[tuple[str, int]]:
        """See Ticks.next."""
        if not self._matches:
            await asyncio.sleep(timeout)
            return []
        heard: list[tuple[str, int]] = []
        with translated():
            message = await self._message(timeout)
            while message is not None and len(heard) < 10_000:
                if message.get("type") in ("message", "smessage") and (
                    version := int(message["data"])
                ) > self._matches.get(match_id := match_of(message["channel"]), version):
                    heard.append((match_id, version))
                message = await self._message(0)
        return heard

    async def close(self) -> None:
        """See Ticks.close."""
        if self._pubsub is None:
            return
        with contextlib.suppress(redis.exceptions.RedisError, OSError):
            await self._pubsub.aclose()
