"""Webhooks against a real HTTP receiver on 127.0.0.1 that answers 500, times out and is down
for a while: every event still arrives, every signature verifies, dead letters are
redelivered by `kozyr webhooks redeliver`, and no body carries a card or a seed. Endpoints
that dribble (a byte at a time, never finishing) delay no other tenant, however many tenants
dribble, and each failed try is logged and counted."""

from __future__ import annotations

import hashlib
import json
import re
import socket
import threading
import time
from collections.abc import Iterator, MutableMapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import redis
from standardwebhooks.webhooks import Webhook
from structlog.testing import capture_logs

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.api.metrics import METRICS
from kozyr.cli import main as kozyr
from kozyr.config.settings import ServerConfig, load_tenancy
from kozyr.platform.webhooks.sender import CLAIM
from tests.api.platforms import (
    ACME_KEY,
    GLOBEX_KEY,
    WEBHOOK_SECRET,
    PlatformServer,
    key,
    open_match,
    write_config,
)

CARD = re.compile(r"\b(10|[2-9JQKA])[SHDC]\b")


class Receiver:
    """A webhook endpoint: answers as `mode` says (ok, 500, slow), or is not listening."""

    def __init__(self, port: int = 0) -> None:
        self.mode = "ok"
        self.tries = 0
        self.received: dict[str, tuple[dict[str, str], bytes]] = {}
        self.arrived: dict[str, float] = {}  # webhook id -> when it was taken (monotonic)
        self.lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self.port = port
        self.up()

    def up(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["content-length"]))
                with receiver.lock:
                    receiver.tries += 1
                    mode = receiver.mode
                if mode == "slow":
                    time.sleep(1.0)  # past the sender's timeout
                if mode == "500":
                    self.send_response(500)
                    self.end_headers()
                    return
                with receiver.lock:
                    receiver.received[self.headers["webhook-id"]] = (dict(self.headers), body)
                    receiver.arrived.setdefault(self.headers["webhook-id"], time.monotonic())
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def down(self) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()
        self._server = None

    def wait_tries(self, count: int, limit_s: float = 30.0) -> None:
        deadline = time.monotonic() + limit_s
        start = self.tries
        while self.tries < start + count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert self.tries >= start + count, "the sender stopped trying"

    def wait_ids(self, ids: set[str], limit_s: float = 60.0) -> None:
        deadline = time.monotonic() + limit_s
        while not ids <= set(self.received) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ids <= set(self.received), sorted(ids - set(self.received))[:5]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    if r._server is not None:
        r.down()


def fresh_deliveries(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    for name in client.scan_iter(match="kozyr:{t:acme}:wh:*"):
        client.delete(name)
    client.close()


def config(retry_for_s: float) -> ServerConfig:
    return ServerConfig(
        webhook_timeout_s=0.3,
        webhook_backoff_s=0.05,
        webhook_backoff_max_s=0.4,
        webhook_retry_for_s=retry_for_s,
        feed_sweep_interval_s=0.2,
    )


def feed_ids(
    server: PlatformServer, matches: list[str], api_key: str = ACME_KEY, tenant: str = "acme"
) -> set[str]:
    """The webhook ids the matches' feed events must arrive under."""
    wanted: set[str] = set()
    stream = server.stub().WatchEvents(pb.WatchEventsRequest(), metadata=key(api_key), timeout=3)
    try:
        for event in stream:
            if event.match_id in matches:
                wanted.add(f"{tenant}-{event.cursor}")
    except Exception:  # the deadline: the feed is read to its end
        pass
    return wanted


def verify(receiver: Receiver, ids: set[str]) -> None:
    hook = Webhook(WEBHOOK_SECRET)
    for message_id in ids:
        headers, body = receiver.received[message_id]
        data = hook.verify(body, {k.lower(): v for k, v in headers.items()})
        assert isinstance(data, dict) and data["id"] == message_id.removeprefix("acme-")
        assert not CARD.search(body.decode()) and "server_seed" not in body.decode()


def test_every_event_arrives_through_500s_timeouts_and_an_outage(
    redis_url: str, tmp_path: Path, receiver: Receiver
) -> None:
    fresh_deliveries(redis_url)
    tenancy = load_tenancy(
        write_config(tmp_path, webhook_url=f"http://127.0.0.1:{receiver.port}/hook")
    )
    server = PlatformServer(redis_url, tenancy, config=config(retry_for_s=600))
    try:
        stub = server.stub()
        receiver.mode = "500"
        first = open_match(stub, ACME_KEY, named=2)
        receiver.wait_tries(4)
        receiver.mode = "slow"
        server.play_out(first)
        receiver.wait_tries(2)
        receiver.down()
        second = open_match(stub, ACME_KEY, named=2)
        server.play_out(second)
        time.sleep(0.5)  # tries meanwhile find nobody listening (not a timing assertion)
        receiver.mode = "ok"
        receiver.up()
        ids = feed_ids(server, [first, second])
        assert len(ids) == 6  # created, started, ended of each
        receiver.wait_ids(ids)
        verify(receiver, ids)
        body = json.loads(receiver.received[max(ids)][1])
        assert body["type"] == "match.ended" and body["head_hash"]
    finally:
        server.stop()


def test_dead_letters_are_redelivered(redis_url: str, tmp_path: Path, receiver: Receiver) -> None:
    fresh_deliveries(redis_url)
    tenancy = load_tenancy(
        write_config(tmp_path, webhook_url=f"http://127.0.0.1:{receiver.port}/hook")
    )
    server = PlatformServer(redis_url, tenancy, config=config(retry_for_s=0.3))
    try:
        receiver.mode = "500"
        match_id = open_match(server.stub(), ACME_KEY, named=2)
        ids = feed_ids(server, [match_id])
        client = redis.Redis.from_url(redis_url, decode_responses=True)
        deadline = time.monotonic() + 30
        while client.zcard("kozyr:{t:acme}:wh:dead") < len(ids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert client.zcard("kozyr:{t:acme}:wh:dead") == len(ids) == 2
        client.close()
        assert not receiver.received
        receiver.mode = "ok"
        assert kozyr(["webhooks", "redeliver", "acme", "--redis-url", redis_url]) == 0
        receiver.wait_ids(ids)
        verify(receiver, ids)
    finally:
        server.stop()


class Dribbler:
    """An endpoint that answers one byte at a time and never finishes: each connection reads
    the request, sends a status line and headers promising a long body, then a byte every
    0.1 s until the sender gives up (or the test ends)."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0), backlog=512)
        self.port = self.listener.getsockname()[1]
        self.open = 0
        self.closed = 0  # tries that ended (the sender hung up)
        self.first_closed = float("inf")  # when the first try ended (monotonic)
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.stopped.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._dribble, args=(conn,), daemon=True).start()

    def _dribble(self, conn: socket.socket) -> None:
        with self.lock:
            self.open += 1
        try:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
            while not self.stopped.wait(0.1):
                conn.sendall(b".")
        except OSError:
            pass  # the sender hung up: its deadline for the whole try
        finally:
            conn.close()
            with self.lock:
                self.open -= 1
                self.closed += 1
                self.first_closed = min(self.first_closed, time.monotonic())

    def wait_open(self, count: int = 1, limit_s: float = 30.0) -> None:
        deadline = time.monotonic() + limit_s
        while self.open < count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert self.open >= count, f"{self.open} tries open at the dribbling endpoint, not {count}"

    def close(self) -> None:
        self.stopped.set()
        self.listener.close()


@pytest.fixture
def dribbler() -> Iterator[Dribbler]:
    d = Dribbler()
    yield d
    d.close()


def fresh_tenant_deliveries(redis_url: str, *tenants: str) -> None:
    client = redis.Redis.from_url(redis_url)
    for tenant in tenants:
        for name in client.scan_iter(match=f"kozyr:{{t:{tenant}}}:wh:*"):
            client.delete(name)
    client.close()


def wait_why(redis_url: str, tenant: str, limit_s: float = 30.0) -> dict[str, str]:
    """The tenant's wh:why hash once a failed try is recorded there (delivery id -> reason)."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    deadline = time.monotonic() + limit_s
    why: dict[str, str] = {}
    while not why and time.monotonic() < deadline:
        why = client.hgetall(f"kozyr:{{t:{tenant}}}:wh:why")  # type: ignore[assignment]
        time.sleep(0.05)
    client.close()
    assert why, f"no failed try of {tenant} was recorded"
    return why


def failures(tenant: str) -> float:
    """kozyr_webhook_failures_total of a tenant, every kind together (the registry is the
    process's: compare with its value before)."""
    return sum(
        sample.value
        for metric in METRICS.registry.collect()
        for sample in metric.samples
        if sample.name == "kozyr_webhook_failures_total" and sample.labels["tenant"] == tenant
    )


def failed_lines(
    logs: list[MutableMapping[str, Any]], tenant: str
) -> list[MutableMapping[str, Any]]:
    return [
        line
        for line in list(logs)
        if line["event"] == "webhook_failed" and line["tenant"] == tenant
    ]


def wait_failed(logs: list[MutableMapping[str, Any]], tenant: str, limit_s: float = 30.0) -> None:
    deadline = time.monotonic() + limit_s
    while not failed_lines(logs, tenant) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert failed_lines(logs, tenant), f"no webhook_failed logged for {tenant}"


def assert_logged_and_counted(
    server: PlatformServer,
    logs: list[MutableMapping[str, Any]],
    tenant: str,
    before: float,
    why: str,
) -> None:
    """The tenant's failed tries were logged at WARNING with their reason, and counted in
    kozyr_webhook_failures_total once the metrics were brought up to date."""
    wait_failed(logs, tenant)
    lines = failed_lines(logs, tenant)
    assert all(line["log_level"] == "warning" for line in lines), lines
    assert all(line["why"].startswith(why) for line in lines), lines
    server.run(server.running.observed.observe())
    assert failures(tenant) - before >= len(lines)


def test_a_dribbling_endpoint_of_one_tenant_never_delays_another(
    redis_url: str, tmp_path: Path, receiver: Receiver, dribbler: Dribbler
) -> None:
    """acme's endpoint holds every try open (a byte at a time) until the try's deadline;
    globex's events, committed after acme's first try began, arrive before that try ends:
    each tenant's deliveries go on in a loop of their own. Then acme's try fails at its
    deadline, and the failure is logged and counted; globex has none."""
    fresh_tenant_deliveries(redis_url, "acme", "globex")
    path = write_config(
        tmp_path,
        webhook_url=f"http://127.0.0.1:{dribbler.port}/hook",
        globex_webhook_url=f"http://127.0.0.1:{receiver.port}/hook",
    )
    server_config = ServerConfig(webhook_timeout_s=5.0, feed_sweep_interval_s=0.2)
    before = failures("acme"), failures("globex")
    with capture_logs() as logs:
        server = PlatformServer(redis_url, load_tenancy(path), config=server_config)
        try:
            stub = server.stub()
            open_match(stub, ACME_KEY, named=2)
            dribbler.wait_open()
            match_id = open_match(stub, GLOBEX_KEY, named=2)
            wanted = feed_ids(server, [match_id], GLOBEX_KEY, "globex")
            assert len(wanted) == 2  # created, started
            receiver.wait_ids(wanted)
            assert max(receiver.arrived[i] for i in wanted) < dribbler.first_closed, (
                "an acme try ended before globex's events arrived"
            )
            assert_logged_and_counted(server, logs, "acme", before[0], "timeout the whole try")
            assert not failed_lines(logs, "globex") and failures("globex") == before[1]
        finally:
            server.stop()


def test_a_try_has_one_deadline_for_the_whole_attempt(
    redis_url: str, tmp_path: Path, dribbler: Dribbler
) -> None:
    """A per-read timeout never fires on an endpoint that sends a byte every 0.1 s; the try's
    own deadline does: the failure is recorded with its reason, logged, counted and the event
    tried again."""
    fresh_tenant_deliveries(redis_url, "acme")
    path = write_config(tmp_path, webhook_url=f"http://127.0.0.1:{dribbler.port}/hook")
    before = failures("acme")
    with capture_logs() as logs:
        server = PlatformServer(redis_url, load_tenancy(path), config=config(retry_for_s=600))
        try:
            open_match(server.stub(), ACME_KEY, named=2)
            why = wait_why(redis_url, "acme")
            assert all(w.startswith("timeout the whole try took over 0.3 s") for w in why.values())
            dribbler.wait_open()
            assert_logged_and_counted(server, logs, "acme", before, "timeout the whole try")
        finally:
            server.stop()


def test_a_try_that_cannot_connect_at_all_is_logged_and_counted(
    redis_url: str, tmp_path: Path
) -> None:
    """An endpoint whose URL the connect refuses outright (a port past 65535: anyio raises an
    ExceptionGroup, not an httpx error) is a failed try like any other: recorded with its
    reason, logged, counted and tried again, never a failed round that hides it."""
    fresh_tenant_deliveries(redis_url, "acme")
    path = write_config(tmp_path, webhook_url="http://127.0.0.1:99999/hook")
    before = failures("acme")
    with capture_logs() as logs:
        server = PlatformServer(redis_url, load_tenancy(path), config=config(retry_for_s=600))
        try:
            open_match(server.stub(), ACME_KEY, named=2)
            why = wait_why(redis_url, "acme", limit_s=10.0)
            assert all(w.startswith("OverflowError") for w in why.values()), why
            assert_logged_and_counted(server, logs, "acme", before, "OverflowError")
            assert not [line for line in logs if line["event"] == "webhook_round_failed"]
        finally:
            server.stop()


HONEST_KEY = "honest-api-key-0123456789abcdef"


def drip_key(n: int) -> str:
    return f"drip-{n}-api-key-0123456789abcdef"


def write_many_tenants(folder: Path, dribbling: int, drip_url: str, honest_url: str) -> Path:
    """A --config file with `dribbling` tenants whose CLAIM endpoints each all point at
    `drip_url` (one event is a full round of tries for each), and an honest tenant."""
    (folder / "hook.whsec").write_text(WEBHOOK_SECRET)

    def tenant(tid: str, api_key: str, urls: list[str]) -> str:
        digest = hashlib.sha256(api_key.encode()).hexdigest()
        hooks = ", ".join(
            f'{{name = "e{i}", url = "{url}", secret_file = "hook.whsec"}}'
            for i, url in enumerate(urls)
        )
        return f'[tenants.{tid}]\napi_key_sha256 = ["{digest}"]\nwebhooks = [{hooks}]\n'

    tables = [tenant(f"drip-{n}", drip_key(n), [drip_url] * CLAIM) for n in range(dribbling)]
    tables.append(tenant("honest", HONEST_KEY, [honest_url]))
    path = folder / "kozyr.toml"
    path.write_text("require_auth = false\n\n" + "\n".join(tables))
    return path


def test_many_dribbling_tenants_never_delay_an_honest_one(
    redis_url: str, tmp_path: Path, receiver: Receiver, dribbler: Dribbler
) -> None:
    """Enough dribbling tenants, each with its full CLAIM of tries open at once, to hold more
    connections than one shared HTTP pool (httpx's default, 100) has: the honest tenant's
    events still arrive before any dribbling try ends, and every dribbling tenant gets all its
    tries open (a pool of each tenant's own, sized to what it may have in flight)."""
    dribbling = 100 // CLAIM + 2
    tenants = [f"drip-{n}" for n in range(dribbling)]
    fresh_tenant_deliveries(redis_url, *tenants, "honest")
    path = write_many_tenants(
        tmp_path,
        dribbling,
        f"http://127.0.0.1:{dribbler.port}/hook",
        f"http://127.0.0.1:{receiver.port}/hook",
    )
    server_config = ServerConfig(webhook_timeout_s=10.0, feed_sweep_interval_s=0.2)
    server = PlatformServer(redis_url, load_tenancy(path), config=server_config)
    try:
        stub = server.stub()
        for n in range(dribbling):
            open_match(stub, drip_key(n))  # created: CLAIM deliveries, each one dribbled
        dribbler.wait_open(100, limit_s=8.0)  # what one shared pool would hold
        match_id = open_match(stub, HONEST_KEY, named=2)
        wanted = feed_ids(server, [match_id], HONEST_KEY, "honest")
        assert len(wanted) == 2  # created, started
        receiver.wait_ids(wanted, limit_s=8.0)
        assert max(receiver.arrived[i] for i in wanted) < dribbler.first_closed, (
            "a dribbling try ended before the honest tenant's events arrived"
        )
        dribbler.wait_open(dribbling * CLAIM, limit_s=5.0)
        assert not dribbler.closed
    finally:
        server.stop()
