"""The web port for the tests: started on the test server's own loop, as `kozyr serve` does."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kozyr.web.port import WebPort, start_web
from tests.conftest import ServerThread


class Web:
    """A running web port beside a test server: its base URL and the server."""

    def __init__(self, server: ServerThread, port: WebPort) -> None:
        self.server, self.port = server, port
        self.url = f"http://127.0.0.1:{port.port}"


@pytest.fixture
def web(server: ServerThread) -> Iterator[Web]:
    """The web port (Connect, gRPC-Web and the page) of the running test server."""
    port = server.run(start_web(server.running.servicer, server.running.guard, "127.0.0.1", 0))
    yield Web(server, port)
    server.running.servicer.closing.set()
    server.run(port.stop())
