"""The web port for the tests: a test server built with a web port, as `kozyr serve --web-port`
builds one (the composition root starts it beside the gRPC port)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kozyr.web.transport import WebPort
from tests.conftest import ServerThread


class Web:
    """A running web port beside a test server: its base URL and the server."""

    def __init__(self, server: ServerThread, port: WebPort) -> None:
        self.server, self.port = server, port
        self.url = f"http://127.0.0.1:{port.port}"


@pytest.fixture
def web(redis_url: str) -> Iterator[Web]:
    """A running test server with its web port (Connect, gRPC-Web and the page)."""
    server = ServerThread(redis_url, web_port=0)
    yield Web(server, server.running.web)
    server.stop()
