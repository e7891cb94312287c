"""Fixtures of the client tests: a server that restarts on the same port, a fault proxy."""

from __future__ import annotations

import socket
from collections.abc import Iterator
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
        from kozyr.api.auth.arbiter import Arbiter
        from kozyr.server.background import BackgroundServer
        from kozyr.server.bootstrap import Wiring, redis_store

        self.redis_url = redis_url
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.background = BackgroundServer(
            Wiring(store=redis_store(redis_url), address=self.address, arbiter=Arbiter(ARBITER))
        )
        self.start()

    @property
    def running(self) -> Any:
        """The started server (None while stopped)."""
        return self.background.running

    def start(self) -> None:
        """Start a fresh server process-equivalent (new engine, empty caches) on the port."""
        self.background.start()

    def stop(self, grace: float = 2.0) -> None:
        """Stop the server (open watches end; new calls fail with UNAVAILABLE)."""
        self.background.stop(grace)

    def close(self) -> None:
        """Stop the server and its loop."""
        self.background.close()


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
