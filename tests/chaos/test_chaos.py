"""The chaos lane (issue 31): every attack of issue 31 against ONE server - the composition root
with its web port, two tenants with webhooks, the embedded Redis - while a loadgen run plays
watched matches through all of them, then a short report of what held.

`make test-chaos` runs it at full scale (KOZYR_CHAOS=full: a web flood of 19,950 half-sent
requests from one peer, 2,000 watchers at once, 1,000 random bodies a port) and writes the report to
$KOZYR_CHAOS_REPORT (default results/chaos-report.md). `make test` runs the bounded scale (a
few hundred of each) and asserts the same things. After each attack the moves must go on and
health must say SERVING; at the end the loadgen's audit must find no acknowledged move lost and
no match corrupted (docs/testing.md)."""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from kozyr.config.settings import ServerConfig, load_tenancy
from kozyr.server.health import SERVICE_NAME
from kozyr.tools.loadgen import LoadConfig
from tests.api.helpers import create
from tests.api.platforms import write_config
from tests.chaos import attacks
from tests.chaos.attacks import Outcome
from tests.conftest import ARBITER, ServerThread
from tests.platform.test_webhooks import Dribbler, Receiver
from tests.reliability.harness import Background, wait_for

# The lane loads one server and floods it: what it asserts needs the CPU it had when it was
# written, so no other test runs beside it.
pytestmark = [pytest.mark.solo, pytest.mark.slow]

FULL = os.environ.get("KOZYR_CHAOS") == "full"
SCALE = (
    {"flood_extra": 19_438, "web_cap": 512, "streams": 2048, "watchers": 2000, "garbage": 1000}
    if FULL
    else {"flood_extra": 300, "web_cap": 64, "streams": 128, "watchers": 200, "garbage": 100}
)
REPORT = Path(os.environ.get("KOZYR_CHAOS_REPORT", "results/chaos-report.md"))


@pytest.fixture
def arena(redis_url: str, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """The one server, its two tenants' webhook endpoints (acme's dribbles), and the raised
    descriptor limit the flood needs."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    dribbler, receiver = Dribbler(), Receiver()
    path = write_config(
        tmp_path,
        webhook_url=f"http://127.0.0.1:{dribbler.port}/hook",
        globex_webhook_url=f"http://127.0.0.1:{receiver.port}/hook",
    )
    config = ServerConfig().with_values(
        {
            "web_connections_per_peer": SCALE["web_cap"],
            "web_header_timeout_s": 600.0,  # the flood outlives the attack: the cap sheds it
            "max_concurrent_streams": SCALE["streams"],
            "webhook_timeout_s": 120.0,
            "feed_sweep_interval_s": 0.2,
        }
    )
    server = ServerThread(redis_url, config=config, web_port=0, tenancy=load_tenancy(path))
    try:
        yield {"server": server, "dribbler": dribbler, "receiver": receiver}
    finally:
        server.stop()
        dribbler.close()
        receiver.down()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_every_attack_while_moves_flow(arena: dict[str, Any], redis_url: str) -> None:
    server: ServerThread = arena["server"]
    load = Background(
        LoadConfig(
            server=server.address,
            matches=16,
            concurrency=16,
            moves_per_match=100_000,
            seconds=240,
            arbiter_token=ARBITER,
            deadline=10.0,
            give_up=60,
        )
    )
    assert load.wait_acked(50), "the moves never started"
    stub = server.stub()
    watched, _ = create(stub, "dix")
    streamed, _ = create(stub, "dix")
    scale = SCALE
    steps = [
        lambda: attacks.web_flood(server, scale["web_cap"] + scale["flood_extra"]),
        lambda: attacks.grpc_streams(server, streamed, scale["streams"], scale["streams"]),
        lambda: attacks.dribbling_webhook(server, arena["dribbler"], arena["receiver"]),
        lambda: attacks.store_full(server, redis_url, 20),
        lambda: attacks.bad_tickets_and_bytes(server, redis_url, watched, scale["garbage"]),
        lambda: attacks.watchers_at_once(server, watched, scale["watchers"]),
        lambda: attacks.redis_paused(redis_url, 1000),
    ]
    outcomes: list[Outcome] = []
    for step in steps:
        acked = load.acked()
        began = time.monotonic()
        outcome = step()
        outcome.figures["seconds"] = round(time.monotonic() - began, 1)
        # Moves go on after the attack, and the server says it serves.
        outcome.figures["moves acked during"] = load.acked() - acked
        moving = load.wait_acked(20, 60)
        health = _health(server)
        outcome.figures["moves go on after"] = moving
        outcome.figures["health after"] = health
        outcome.held = outcome.held and moving and health == "SERVING"
        outcomes.append(outcome)
    outcomes.append(audited(load.finish()))
    text = _report(outcomes)
    print("\n" + text)
    if FULL or "KOZYR_CHAOS_REPORT" in os.environ:
        REPORT.parent.mkdir(parents=True, exist_ok=True)
        REPORT.write_text(text)
    failed = [o.name for o in outcomes if not o.held]
    assert not failed, f"did not hold: {failed}\n{text}"


def audited(report: dict[str, Any]) -> Outcome:
    """The load's own audit after every attack: no acknowledged move lost, no match corrupted
    or stuck, no refusal without ErrorInfo."""
    unexplained = {k: v for k, v in report["errors"].items() if k.endswith(" -")}
    return Outcome(
        "the moves, audited",
        f"{report['moves_acknowledged']} moves acknowledged over every attack",
        "no acknowledged move lost, no match corrupted or stuck, no refusal without ErrorInfo",
        held=report["acknowledged_lost"] == 0
        and report["matches_corrupted"] == 0
        and report["matches_stuck"] == 0
        and not unexplained,
        figures={
            "lost": report["acknowledged_lost"],
            "corrupted": report["matches_corrupted"],
            "stuck": report["matches_stuck"],
            "errors": report["errors"],
            "without a reason": {
                k: v for k, v in report.get("error_samples", {}).items() if k.endswith(" -")
            },
        },
    )


def _health(server: ServerThread) -> str:
    channel = grpc.insecure_channel(server.address)
    try:
        stub = health_pb2_grpc.HealthStub(channel)

        def serving() -> bool:
            answer = stub.Check(health_pb2.HealthCheckRequest(service=SERVICE_NAME), timeout=5)
            return bool(answer.status == health_pb2.HealthCheckResponse.SERVING)

        return "SERVING" if wait_for(serving, 10) else "NOT_SERVING"
    except grpc.RpcError as e:
        return f"error {e.code().name}"
    finally:
        channel.close()


def _report(outcomes: list[Outcome]) -> str:
    """The report: one row an attack (docs/testing.md, the chaos lane)."""
    lines = [
        f"# Chaos lane ({'full' if FULL else 'bounded'} scale, {time.strftime('%Y-%m-%d')})",
        "",
        "| attack | what was done | what must hold | held | figures |",
        "| --- | --- | --- | --- | --- |",
    ]
    for o in outcomes:
        figures = "; ".join(f"{k}: {v}" for k, v in o.figures.items())
        held = "PASS" if o.held else "FAIL"
        lines.append(f"| {o.name} | {o.done} | {o.required} | {held} | {figures} |")
    return "\n".join(lines) + "\n"
