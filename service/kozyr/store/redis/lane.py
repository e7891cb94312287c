"""A script's own connection (the append, the deadlines, the feed commit): calls pipelined on
one socket, replies read in order.

redis-py's pooled path costs the event loop about 105-190 µs per script call (pool and
observability bookkeeping, a health check, retry and timeout wrappers), this lane 23 µs with
16 calls in flight and 93 µs alone (`tests/bench/bench.py --only lane`): the append is the one
command of every move, and on a busy server the event loop is the limit. Redis answers the
commands of one connection in the order they were sent, so every append can share one
socket: a call writes its command and queues a future, and the protocol resolves the futures
in order from hiredis' reader - no pool, no lock, and concurrent appends of many matches
travel together.

Only for a plain connection (host and port, or a unix socket; a password and a database are
sent on connecting); TLS and a Redis Cluster keep redis-py's path. Errors are redis-py's own
exception types, so the store translates them as before: a lost connection (or no answer
within the client's socket timeout) fails every call in flight with ConnectionError or
TimeoutError - their outcome is unknown, as for a pooled call cut off mid-reply, and a move
sent again with its command id gets DUPLICATE or lands - a reply error fails its own call only,
and NOSCRIPT (a restarted or flushed Redis) loads the script and sends the call again.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Mapping
from typing import Any

import hiredis
import redis.asyncio as aioredis
import redis.exceptions
from redis.asyncio.connection import Connection, UnixDomainSocketConnection
from redis.commands.core import AsyncScript

Arg = str | int | float | bytes | memoryview  # what hiredis packs

_ERRORS: dict[str, type[redis.exceptions.RedisError]] = {
    "NOSCRIPT": redis.exceptions.NoScriptError,
    "LOADING": redis.exceptions.BusyLoadingError,
    "NOAUTH": redis.exceptions.AuthenticationError,
    "WRONGPASS": redis.exceptions.AuthenticationError,
}


def _error(reply: Exception) -> redis.exceptions.RedisError:
    """redis-py's exception for an error reply (the store translates those)."""
    text = str(reply)
    return _ERRORS.get(text.split(" ", 1)[0], redis.exceptions.ResponseError)(text)


class _Lane(asyncio.Protocol):
    """One connection: commands written in call order, replies matched to them in order.

    With a `timeout`, one timer watches the oldest call in flight (a timer per call, as
    asyncio.timeout makes, was ~4 % of a busy server's CPU): a reply later than that fails
    every call in flight, since the replies can no longer be matched up."""

    def __init__(self, timeout: float | None = None) -> None:
        self.reader = hiredis.Reader(encoding="utf-8")
        self.waiting: deque[asyncio.Future[Any]] = deque()
        self.sent: deque[float] = deque()  # loop time each call in `waiting` was sent
        self.timeout = timeout
        self._watch: asyncio.TimerHandle | None = None
        self.transport: asyncio.Transport | None = None
        self.lost: Exception | None = None
        self.unsent: list[bytes] = []  # commands of this loop pass, written as one

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        while (reply := self.reader.gets()) is not False:
            future = self.waiting.popleft()
            self.sent.popleft()
            if future.done():  # its caller gave up (cancelled): the reply is still its own
                continue
            if isinstance(reply, hiredis.ReplyError):
                future.set_exception(_error(reply))
            else:
                future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.fail(redis.exceptions.ConnectionError(f"the Redis connection was lost ({exc})"))

    def fail(self, error: Exception) -> None:
        """Fail every call in flight and refuse new ones (the lane is reopened)."""
        self.lost = self.lost or error
        self.sent.clear()
        while self.waiting:
            future = self.waiting.popleft()
            if not future.done():
                future.set_exception(error)
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        if self.transport is not None:
            self.transport.abort()

    def send(self, *command: Arg) -> asyncio.Future[Any]:
        """Write a command; the future of its reply."""
        if self.lost is not None or self.transport is None:
            raise redis.exceptions.ConnectionError("the Redis connection was lost")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self.waiting.append(future)
        self.sent.append(loop.time())
        # hiredis' stub types the tuple as of one element; it takes any number.
        self.unsent.append(hiredis.pack_command(command))  # type: ignore[arg-type]
        if len(self.unsent) == 1:  # one write (one system call) for the pass's commands
            loop.call_soon(self._write)
        if self._watch is None and self.timeout is not None:
            self._watch = loop.call_later(self.timeout, self._check)
        return future

    def _check(self) -> None:
        """The watch timer: fail the lane if its oldest call is overdue, else look again when
        that call falls due."""
        self._watch = None
        if not self.sent or self.timeout is None:
            return
        due = self.sent[0] + self.timeout
        loop = asyncio.get_running_loop()
        if loop.time() >= due:
            self.fail(redis.exceptions.TimeoutError("Redis did not answer in time"))
        else:
            self._watch = loop.call_at(due, self._check)

    def _write(self) -> None:
        unsent, self.unsent = self.unsent, []
        if self.lost is None and self.transport is not None:
            self.transport.write(b"".join(unsent))


class ScriptLane:
    """Calls one script like AsyncScript does, over one pipelined connection of its own."""

    def __init__(self, settings: Mapping[str, Any], script: AsyncScript) -> None:
        self.settings = settings  # redis-py's connection kwargs: host/port or path, auth, db
        self.script = script
        self.timeout: float | None = settings.get("socket_timeout")
        self._lane: _Lane | None = None
        self._opening = asyncio.Lock()

    @classmethod
    def for_client(cls, client: aioredis.Redis, script: AsyncScript) -> ScriptLane | None:
        """A lane on the client's server, or None where redis-py's path stays (TLS)."""
        pool = client.connection_pool
        if pool.connection_class not in (Connection, UnixDomainSocketConnection):
            return None
        return cls(pool.connection_kwargs, script)

    async def __call__(self, keys: list[str], args: list[str | int]) -> Any:
        """The script's reply (redis-py's exception types on failure)."""
        command = ("EVALSHA", self.script.sha, len(keys), *keys, *args)
        try:
            return await self._call(command)
        except redis.exceptions.NoScriptError:
            await self._call(("SCRIPT", "LOAD", self.script.script))
            return await self._call(command)

    async def _call(self, command: tuple[Arg, ...]) -> Any:
        lane = self._lane
        if lane is None or lane.lost is not None:
            lane = await self._open()
        return await lane.send(*command)  # the lane's own timer fails it if Redis stalls

    async def _open(self) -> _Lane:
        async with self._opening:
            if self._lane is not None and self._lane.lost is None:
                return self._lane
            try:
                async with asyncio.timeout(
                    self.settings.get("socket_connect_timeout") or self.timeout
                ):
                    self._lane = await self._connect()
            except TimeoutError:
                raise redis.exceptions.TimeoutError("timed out connecting to Redis") from None
            except OSError as e:
                raise redis.exceptions.ConnectionError(f"cannot connect to Redis: {e}") from e
            return self._lane

    async def _connect(self) -> _Lane:
        loop, s = asyncio.get_running_loop(), self.settings

        def made() -> _Lane:
            return _Lane(self.timeout)

        if "path" in s:
            _, lane = await loop.create_unix_connection(made, s["path"])
        else:
            _, lane = await loop.create_connection(
                made, s.get("host", "localhost"), s.get("port", 6379)
            )
        try:
            if s.get("password"):
                await lane.send("AUTH", *filter(None, (s.get("username"), s["password"])))
            if s.get("db"):
                await lane.send("SELECT", s["db"])
        except BaseException:
            lane.fail(redis.exceptions.ConnectionError("the Redis handshake failed"))
            raise
        return lane

    def close(self) -> None:
        """Drop the connection (calls in flight fail with ConnectionError)."""
        if self._lane is not None:
            self._lane.fail(redis.exceptions.ConnectionError("the store was closed"))
            self._lane = None


def laned(client: Any, script: AsyncScript) -> AsyncScript | ScriptLane:
    """`script` on a pipelined connection of its own on one server; redis-py's pooled path
    on a Redis Cluster or over TLS."""
    if isinstance(client, aioredis.Redis):
        return ScriptLane.for_client(client, script) or script
    return script
