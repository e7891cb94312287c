"""The web port's edge (issue 31): one client flooding it with half-sent requests cannot take
the server down, and the web port honours the tenant headers the gRPC port reads."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import random
import resource
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

from kozyr.api.metrics import METRICS
from kozyr.config.settings import ServerConfig
from kozyr.server.health import SERVICE_NAME
from tests.api.helpers import create, play_one
from tests.api.platforms import ACME_KEY, tenancy_of
from tests.conftest import ServerThread

SERVICE = "/kozyr.v1.KozyrService/"
HALF_SENT = b"POST /kozyr.v1.KozyrService/ListGames HTTP/1.1\r\nHost: x\r\nContent-Ty"


def _refused(reason: str) -> float:
    return METRICS.registry.get_sample_value("kozyr_web_refused_total", {"reason": reason}) or 0.0


def _closed_by_server(sock: socket.socket) -> bool:
    """Whether the server closed this connection (waits for it, bounded by the socket's
    timeout: a server that never closes fails the test rather than hanging it)."""
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False
    except OSError:  # reset, or never connected: the server refused it at once
        return True


@pytest.fixture
def many_fds() -> Iterator[None]:
    """The soft descriptor limit raised to the hard one for the test (restored after)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def _server(redis_url: str, **limits: float) -> ServerThread:
    return ServerThread(redis_url, config=ServerConfig().with_values(limits), web_port=0)


def test_a_flood_of_half_sent_requests_from_one_peer_is_capped_and_moves_go_on(
    redis_url: str, many_fds: None
) -> None:
    cap = ServerConfig().web_connections_per_peer  # the default, as shipped
    extra = 300
    server = _server(redis_url, web_header_timeout_s=600.0)  # the flood outlives the test
    gate = server.running.web.server.gate
    stub = server.stub()
    health = health_pb2_grpc.HealthStub(grpc.insecure_channel(server.address))
    match_id, tokens = create(stub, "dix")
    shed_before = _refused("connections_per_peer")
    fds_before = len(os.listdir("/proc/self/fd"))
    started = time.monotonic()
    flood: list[socket.socket] = []
    try:
        for _ in range(cap + extra):
            sock = socket.socket()
            sock.settimeout(30)
            flood.append(sock)
            try:
                sock.connect(("127.0.0.1", server.running.web.port))
                sock.sendall(HALF_SENT)
            except ConnectionError:  # the server already closed it: past the cap
                pass
        # The connections past the cap are closed by the server, at once (accepted in order).
        assert all(_closed_by_server(s) for s in flood[cap:])
        assert gate.by_host == {"127.0.0.1": cap} and gate.open == cap
        assert _refused("connections_per_peer") - shed_before == extra
        # The server holds a descriptor for each admitted connection only (the test's own
        # sockets are the other `cap + extra`).
        held = len(os.listdir("/proc/self/fd")) - fds_before
        assert held <= cap + (cap + extra) + 16
        # Meanwhile the game goes on over gRPC, and the store stays healthy.
        rng = random.Random(7)
        for _ in range(20):
            assert play_one(stub, match_id, tokens, rng) is not None
        check = health.Check(health_pb2.HealthCheckRequest(service=SERVICE_NAME), timeout=30)
        assert check.status == health_pb2.HealthCheckResponse.SERVING
        # The log says so once an interval, not once a connection.
        interval = ServerConfig().edge_log_interval_s
        assert gate.log.lines <= 1 + (time.monotonic() - started) / interval
    finally:
        for sock in flood:
            sock.close()
        server.stop()


def test_a_half_sent_request_is_dropped_at_its_header_timeout(redis_url: str) -> None:
    server = _server(redis_url, web_header_timeout_s=0.3, web_body_timeout_s=0.3)
    port = server.running.web.port
    try:
        before = (_refused("header_timeout"), _refused("body_timeout"))
        with socket.create_connection(("127.0.0.1", port), timeout=30) as slow:
            slow.sendall(HALF_SENT)
            assert _closed_by_server(slow)
        body = HALF_SENT + b"pe: application/json\r\nContent-Length: 100\r\n\r\n{"
        with socket.create_connection(("127.0.0.1", port), timeout=30) as dribbling:
            dribbling.sendall(body)
            assert _closed_by_server(dribbling)
        assert _refused("header_timeout") == before[0] + 1
        assert _refused("body_timeout") == before[1] + 1
        assert server.running.web.server.gate.open == 0
        # A whole request on a fresh connection is answered as ever.
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as answer:
            assert answer.status == 200
    finally:
        server.stop()


def test_connections_past_the_global_cap_are_closed_at_once(redis_url: str) -> None:
    server = _server(redis_url, web_max_connections=5, web_header_timeout_s=600.0)
    port = server.running.web.port
    socks: list[socket.socket] = []
    for _ in range(8):
        sock = socket.socket()
        sock.settimeout(30)
        socks.append(sock)
        # Reset while connecting: the server shed it already (seen under load).
        with contextlib.suppress(ConnectionError):
            sock.connect(("127.0.0.1", port))
    try:
        assert [_closed_by_server(s) for s in socks[5:]] == [True] * 3
        assert server.running.web.server.gate.open == 5
    finally:
        for sock in socks:
            sock.close()
        server.stop()


def _post(port: int, method: str, body: object, headers: dict[str, str]) -> tuple[int, dict]:  # type: ignore[type-arg]
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{SERVICE}{method}",
        json.dumps(body).encode(),
        {"content-type": "application/json", **headers},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_a_tenant_creates_a_match_over_connect_with_its_api_key(
    redis_url: str, tmp_path: Path
) -> None:
    server = ServerThread(redis_url, tenancy=tenancy_of(tmp_path, require_auth=True), web_port=0)
    port = server.running.web.port
    match = {"game": "dix", "seats": [{"name": "ann"}, {"name": "bob"}]}
    try:
        status, created = _post(port, "CreateMatch", match, {"x-api-key": ACME_KEY})
        assert status == 200 and created["matchId"], created
        status, error = _post(port, "CreateMatch", match, {})
        assert status == 401
        assert error["code"] == "unauthenticated"
        [info] = [d for d in error["details"] if d["type"] == "google.rpc.ErrorInfo"]
        value = base64.b64decode(info["value"] + "==")
        assert error_details_pb2.ErrorInfo.FromString(value).reason == "AUTH_REQUIRED"
        status, error = _post(port, "CreateMatch", match, {"x-api-key": "no-such-key"})
        assert status == 401 and error["code"] == "unauthenticated"
    finally:
        server.stop()


def test_bad_requests_are_answered_and_counted_not_logged_one_by_one(redis_url: str) -> None:
    server = _server(redis_url)
    gate = server.running.web.server.gate
    before = _refused("bad_request")
    started = time.monotonic()
    try:
        for _ in range(50):
            with socket.create_connection(("127.0.0.1", server.running.web.port), timeout=30) as s:
                s.sendall(b"NOT HTTP AT ALL\r\n\r\n")
                assert s.recv(12).startswith(b"HTTP/1.1 400")
        assert _refused("bad_request") == before + 50
        assert gate.log.lines <= 1 + (time.monotonic() - started) / gate.log.interval_s
    finally:
        server.stop()
