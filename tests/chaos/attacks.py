"""The attacks of issue 31, each against the chaos lane's one server while its moves flow
(tests/chaos/test_chaos.py). Each returns what it did and saw as figures, and whether what the
issue requires held; every loop is bounded in count and time, all traffic goes to 127.0.0.1.

They reuse the pieces the edge, platform and reliability tests are built from: the half-sent
request of tests/web/test_edge_limits.py, the dribbling and the honest webhook endpoints of
tests/platform/test_webhooks.py, the tenants and tickets of tests/api/platforms.py."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import grpc
import jwt
import redis

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc
from kozyr.api.metrics import METRICS
from kozyr.cli.commands import main
from kozyr.wire.errorinfo import error_info
from tests.api.platforms import ACME_KEY, GLOBEX_KEY, bearer, open_match, ticket
from tests.conftest import ServerThread
from tests.reliability.harness import wait_for

SERVICE = "/kozyr.v1.KozyrService/"
HALF_SENT = b"POST /kozyr.v1.KozyrService/ListGames HTTP/1.1\r\nHost: x\r\nContent-Ty"


@dataclass
class Outcome:
    """One attack: what was done, the figures seen, what had to hold and whether it did."""

    name: str
    done: str
    required: str
    held: bool = False
    figures: dict[str, Any] = field(default_factory=dict)


def _reason(error: grpc.RpcError) -> str:
    info = error_info(error)  # type: ignore[arg-type]
    return f"{error.code().name} {info.reason}" if info is not None else f"{error.code().name} -"  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------- (a) web flood


# The attacker: another process (with descriptors of its own), opening `count` connections to
# the port and sending each a request cut off in its headers, then holding them all open.
FLOOD = f"""
import resource, socket, sys
count, port = int(sys.argv[1]), int(sys.argv[2])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
held = []
for _ in range(count):
    sock = socket.socket()
    sock.settimeout(10)
    held.append(sock)
    try:
        sock.connect(("127.0.0.1", port))
        sock.sendall({HALF_SENT!r})
    except OSError:
        pass
print(len(held), flush=True)
sys.stdin.read()
"""


def web_flood(server: ServerThread, count: int) -> Outcome:
    """`count` half-sent requests from one peer (another process), held open: the connections
    past the per-peer cap are closed at once, and the server's log stays bounded."""
    gate = server.running.web.server.gate
    cap = gate.config.web_connections_per_peer
    shed = _web_refused("connections_per_peer")
    lines = gate.log.lines
    attacker = subprocess.Popen(
        [sys.executable, "-c", FLOOD, str(count), str(server.running.web.port)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert attacker.stdout is not None
        opened = int(attacker.stdout.readline() or 0)
        # The server accepts in order, at its own pace: wait (bounded) until it has seen them.
        wait_for(lambda: _web_refused("connections_per_peer") - shed >= count - cap, 60)
        admitted = gate.by_host.get("127.0.0.1", 0)
        refused = _web_refused("connections_per_peer") - shed
    finally:
        attacker.kill()
        attacker.wait(30)
    logged = gate.log.lines - lines
    return Outcome(
        "web flood",
        f"{count} half-sent requests from one peer (another process), held open",
        "connections past the per-peer cap closed; at most a few log lines",
        held=opened == count and admitted <= cap and refused >= count - cap and logged <= 5,
        figures={"admitted": admitted, "cap": cap, "refused": int(refused), "log lines": logged},
    )


def _web_refused(reason: str) -> float:
    value = METRICS.registry.get_sample_value("kozyr_web_refused_total", {"reason": reason})
    return value or 0.0


# ---------------------------------------------------------------------------- (b) gRPC streams


def grpc_streams(server: ServerThread, match_id: str, cap: int, extra: int) -> Outcome:
    """`cap + extra` WatchMatch streams on one connection: the server runs at most `cap` of
    them (max_concurrent_streams); the rest wait at the client, costing the server nothing."""

    async def run() -> tuple[int, int]:
        own = [("grpc.use_local_subchannel_pool", 1)]  # not the loadgen's connection
        async with grpc.aio.insecure_channel(server.address, options=own) as channel:
            stub = kozyr_pb2_grpc.KozyrServiceStub(channel)
            calls = [
                stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id)) for _ in range(cap + extra)
            ]
            firsts = [asyncio.ensure_future(c.read()) for c in calls]
            done, _ = await asyncio.wait(firsts, timeout=3)
            served = sum(1 for f in done if not f.exception())
            open_now = server.running.guard.watchers_by_match.get(match_id, 0)
            for c in calls:
                c.cancel()
            await asyncio.gather(*firsts, return_exceptions=True)
            return served, open_now

    served, open_now = asyncio.run(run())
    return Outcome(
        "gRPC streams on one connection",
        f"{cap + extra} watch streams on one connection (cap {cap} concurrent)",
        "at most the cap served at once; the rest wait at the client",
        held=served <= cap and open_now <= cap,
        figures={"served at once": served, "open on the server": open_now},
    )


# ---------------------------------------------------------------------------- (c) webhooks


def dribbling_webhook(
    server: ServerThread, dribbler: Any, receiver: Any, limit_s: float = 30.0
) -> Outcome:
    """acme's endpoint dribbles a byte at a time; globex's events still arrive."""
    stub = server.stub()
    open_match(stub, ACME_KEY, named=2)
    dribbler.wait_open(limit_s=limit_s)
    before = set(receiver.received)
    started = time.monotonic()
    open_match(stub, GLOBEX_KEY, named=2)
    deadline = started + limit_s
    while len(set(receiver.received) - before) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    arrived = len(set(receiver.received) - before)
    took = round(time.monotonic() - started, 2)
    return Outcome(
        "dribbling webhook",
        "tenant acme's endpoint sends a byte every 0.1 s and never finishes",
        "tenant globex's events (created, started) arrive while acme's try is open",
        held=arrived >= 2 and dribbler.open > 0,
        figures={"globex events": arrived, "seconds": took, "acme tries open": dribbler.open},
    )


# ---------------------------------------------------------------------------- (d) Redis full


def store_full(server: ServerThread, redis_url: str, tries: int) -> Outcome:
    """Redis at its memory limit: CreateMatch answers STORE_FULL, never INTERNAL."""
    client = redis.Redis.from_url(redis_url)
    stub = server.stub()
    seen: Counter[str] = Counter()
    used = int(client.info("memory")["used_memory"])
    client.config_set("maxmemory", used + 64 * 1024)
    try:
        filler = 0
        while filler < 4096:  # fill to the limit (bounded)
            try:
                client.set(f"chaos:fill:{filler}", b"x" * 4096)
            except redis.exceptions.ResponseError:
                break
            filler += 1
        for _ in range(tries):
            try:
                stub.CreateMatch(
                    pb.CreateMatchRequest(game="dix", seats=[pb.SeatRequest(name="a")] * 2),
                    timeout=10,
                )
                seen["OK"] += 1
            except grpc.RpcError as e:
                seen[_reason(e)] += 1
    finally:
        client.config_set("maxmemory", 0)
        for k in client.scan_iter(match="chaos:fill:*"):
            client.delete(k)
        client.close()
    internal = sum(n for k, n in seen.items() if k.startswith("INTERNAL"))
    return Outcome(
        "Redis full",
        f"maxmemory just above use, filled; {tries} CreateMatch",
        "RESOURCE_EXHAUSTED STORE_FULL, never INTERNAL",
        held=internal == 0 and seen.get("RESOURCE_EXHAUSTED STORE_FULL", 0) > 0,
        figures=dict(seen),
    )


# ---------------------------------------------------------------------------- (e) bad input


def bad_tickets_and_bytes(
    server: ServerThread, redis_url: str, match_id: str, garbage: int
) -> Outcome:
    """Refused tickets and random bytes: each its precise reason, with ErrorInfo."""
    stub = server.stub()
    forged = {
        "alg none": jwt.encode(_claims_of(ticket("acme", match_id)), None, algorithm="none"),
        "expired": ticket("acme", match_id, expires_in=-60),
        "past max lifetime": ticket("acme", match_id, expires_in=10 * 365 * 86400),
        "wrong audience": ticket("acme", match_id, aud="elsewhere"),
        "wrong key": ticket("acme", match_id, key="another-secret-0123456789abcdef0123"),
    }
    jti = f"chaos-{os.urandom(4).hex()}"
    revoked = ticket("acme", match_id, jti=jti)
    assert main(["tickets", "revoke", "acme", "--jti", jti, "--redis-url", redis_url]) == 0
    heard = server.running.servicer.access.revocations
    deadline = time.monotonic() + 30
    while ("acme", jti) not in heard.ids and time.monotonic() < deadline:
        time.sleep(0.02)
    forged["revoked"] = revoked
    reasons: dict[str, str] = {}
    for what, token in forged.items():
        try:
            stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=bearer(token))
            reasons[what] = "OK"
        except grpc.RpcError as e:
            reasons[what] = _reason(e)
    grpc_seen, web_seen = random_bodies(server, garbage)
    precise = all(
        r.startswith("UNAUTHENTICATED ") and not r.endswith(" -") for r in reasons.values()
    )
    # Random bytes that happen to decode are refused for what they hold (BAD_MATCH_ID...).
    bytes_refused = all(
        k.startswith("INVALID_ARGUMENT ") and not k.endswith(" -") for k in grpc_seen
    )
    return Outcome(
        "bad tickets and random bytes",
        f"{len(forged)} refused tickets; {garbage} random bodies to each port",
        "every one refused with its reason in ErrorInfo; no answer OK, none INTERNAL",
        held=precise and bytes_refused and set(web_seen) <= {400},
        figures={**reasons, "gRPC": dict(grpc_seen), "web (HTTP)": dict(web_seen)},
    )


def random_bodies(server: ServerThread, garbage: int) -> tuple[Counter[str], Counter[int]]:
    """`garbage` random bodies as SubmitMove to the gRPC port and to the web port: the gRPC
    answers by status and reason, the web port's by HTTP status."""
    rng = os.urandom
    grpc_seen: Counter[str] = Counter()
    with grpc.insecure_channel(server.address) as channel:
        call = channel.unary_unary(SERVICE + "SubmitMove")
        for k in range(garbage):
            try:
                call(rng(1 + k % 200), timeout=10)
                grpc_seen["OK"] += 1
            except grpc.RpcError as e:
                grpc_seen[_reason(e)] += 1
    web_seen: Counter[int] = Counter()
    for k in range(garbage):
        request = urllib.request.Request(
            f"http://127.0.0.1:{server.running.web.port}{SERVICE}SubmitMove",
            rng(1 + k % 200),
            {"content-type": "application/proto"},
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                web_seen[answer.status] += 1
        except urllib.error.HTTPError as e:
            web_seen[e.code] += 1
    return grpc_seen, web_seen


def _claims_of(token: str) -> dict[str, Any]:
    """A platform's ticket's claims, unsigned: what an `alg: none` forgery would carry."""
    claims: dict[str, Any] = jwt.decode(token, options={"verify_signature": False})
    return claims


# ---------------------------------------------------------------------------- (f) watchers


def watchers_at_once(server: ServerThread, match_id: str, count: int) -> Outcome:
    """`count` watchers open one match at once: every one is served, none CANCELLED."""

    async def run() -> Counter[str]:
        seen: Counter[str] = Counter()
        # Eight connections of their own (channels to one address share one by default).
        own = [("grpc.use_local_subchannel_pool", 1)]
        channels = [grpc.aio.insecure_channel(server.address, options=own) for _ in range(8)]
        stubs = [kozyr_pb2_grpc.KozyrServiceStub(c) for c in channels]
        calls = [
            stubs[k % 8].WatchMatch(pb.WatchMatchRequest(match_id=match_id)) for k in range(count)
        ]

        async def first(call: Any) -> None:
            try:
                await asyncio.wait_for(call.read(), 30)
                seen["served"] += 1
            except grpc.aio.AioRpcError as e:
                seen[_reason(e)] += 1
            except TimeoutError:
                seen["no update in 30 s"] += 1

        await asyncio.gather(*(first(c) for c in calls))
        for c in calls:
            c.cancel()
        for ch in channels:
            await ch.close()
        return seen

    seen = asyncio.run(run())
    return Outcome(
        "watchers at once",
        f"{count} WatchMatch streams opened at once on one match",
        "every watcher served its first update; none CANCELLED",
        held=seen["served"] == count,
        figures=dict(seen),
    )


# ---------------------------------------------------------------------------- (g) Redis pause


def redis_paused(redis_url: str, pause_ms: int) -> Outcome:
    """Redis stops answering writes for `pause_ms` while moves flow (CLIENT PAUSE WRITE). A
    write of our own, sent once the pause is on, shows it took: it cannot be answered before
    the pause ends, so it waits about `pause_ms` from before the pause was asked for (Redis
    counts the pause in whole milliseconds: 0.9 of it is the bar)."""
    client = redis.Redis.from_url(redis_url)
    writer = redis.Redis.from_url(redis_url)
    try:
        began = time.monotonic()
        client.execute_command("CLIENT", "PAUSE", pause_ms, "WRITE")
        writer.set("kozyr-chaos:paused-write", "1")
        blocked_s = time.monotonic() - began
        time.sleep(0.2)
    finally:
        client.execute_command("CLIENT", "UNPAUSE")
        client.close()
        writer.delete("kozyr-chaos:paused-write")
        writer.close()
    return Outcome(
        "Redis paused",
        f"writes paused {pause_ms} ms while moves flow",
        "the pause took (a write waited it out); moves go on after it; no acknowledged move "
        "lost (checked at the end)",
        held=blocked_s >= 0.9 * pause_ms / 1000,
        figures={"pause ms": pause_ms, "a write waited ms": round(blocked_s * 1000)},
    )
