"""A server built by the composition root, run on an event loop of its own in a background
thread: `kozyr play`'s embedded server and the test fixtures."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

from kozyr.server.bootstrap import Running, Wiring, start

T = TypeVar("T")


class BackgroundServer:
    """`start()` builds and starts the server of `wiring` on its own loop; `stop()` stops it
    gracefully (it may be started again: a fresh engine, the same store and address)."""

    def __init__(self, wiring: Wiring, timeout_s: float = 60.0) -> None:
        self.wiring = wiring
        self.timeout_s = timeout_s
        self.running: Running | None = None
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    @property
    def port(self) -> int:
        """The bound gRPC port."""
        assert self.running is not None, "not started"
        return self.running.port

    @property
    def address(self) -> str:
        """host:port of the bound gRPC port."""
        return f"{self.wiring.address.rsplit(':', 1)[0]}:{self.port}"

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine on the server's loop and wait for its result."""
        future: Future[T] = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return future.result(self.timeout_s)

    def start(self) -> Running:
        """Build and start the server."""
        self.running = self.run(start(self.wiring))
        return self.running

    def stop(self, grace: float = 5.0) -> None:
        """Stop the server gracefully (open watches end; new calls fail with UNAVAILABLE)."""
        if self.running is not None:
            running, self.running = self.running, None
            self.run(running.stop(grace))

    def close(self, grace: float = 5.0) -> None:
        """Stop the server and end its loop's thread."""
        try:
            self.stop(grace)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
