"""Fixtures of the client tests: a server that restarts on the same port, a fault proxy."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from typing import Any

import pytest

from tests.clients.netfault import Proxy
from tests.conftest import ARBITER, ServerThread


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RestartableServer:
    """A real Kozyr server on a fixed loopback port that can be stopped and started again
    (a restart of the service: its state lives in Redis, so the new process carries on)."""

    def __init__(self, redis_url: str) -> None:
        self.redis_url = redis_url
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.running: Any = None
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self.start()

    def _run(self, coro: Any) -> Any:
        future: Future[Any] = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return future.result(60)

    def start(self) -> None:
        """Start a fresh server process-equivalent (new engine, empty caches) on the port."""
        from kozyr.engine import Engine
        from kozyr.server.bootstrap import start_server
        from kozyr.store.redis.streams import RedisStore

        async def boot() -> Any:
            engine = Engine(RedisStore.from_url(self.redis_url), arbiter_token=ARBITER)
            return await start_server(engine, self.address)

        self.running = self._run(boot())

    def stop(self, grace: float = 2.0) -> None:
        """Stop the server (open watches end; new calls fail with UNAVAILABLE)."""
        if self.running is not None:
            self._run(self.running.stop(grace))
            self.running = None

    def close(self) -> None:
        """Stop the server and its loop."""
        self.stop()
        self.loop.call_soon_threadsafe(self.loop.stop)


@pytest.fixture
def restartable(redis_url: str) -> Iterator[RestartableServer]:
    """A server that a test may stop and start again on the same address."""
    srv = RestartableServer(redis_url)
    yield srv
    srv.close()


@pytest.fixture
def proxy(server: ServerThread) -> Iterator[Proxy]:
    """A fault-injecting TCP proxy in front of the `server` fixture."""
    p = Proxy(server.address)
    yield p
    p.close()
