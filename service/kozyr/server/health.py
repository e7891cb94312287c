"""Health that follows the store: the gRPC health service says SERVING while the store answers."""

from __future__ import annotations

import asyncio
import contextlib

import structlog
from grpc_health.v1 import health, health_pb2

from kozyr._proto.kozyr.v1 import kozyr_pb2
from kozyr.config.settings import ServerConfig
from kozyr.store.port import Store

SERVICE_NAME = kozyr_pb2.DESCRIPTOR.services_by_name["KozyrService"].full_name


async def store_answers(store: Store, timeout: float) -> bool:
    """Whether the store answers a PING within `timeout` (a store without PING always does)."""
    ping = getattr(store, "redis", None)
    if ping is None:
        return True
    try:
        return bool(await asyncio.wait_for(ping.ping(), timeout))
    except Exception:  # unreachable, loading, timed out: all mean "not serving"
        return False


async def set_health(servicer: health.aio.HealthServicer, serving: bool) -> None:
    """Say SERVING or NOT_SERVING, overall and for the Kozyr service."""
    status = (
        health_pb2.HealthCheckResponse.SERVING
        if serving
        else health_pb2.HealthCheckResponse.NOT_SERVING
    )
    for name in ("", SERVICE_NAME):
        await servicer.set(name, status)


async def probe(
    servicer: health.aio.HealthServicer, store: Store, lost: asyncio.Event, config: ServerConfig
) -> None:
    """Health follows the store: NOT_SERVING from the first failed ping (or a death reported by
    the embedded Redis's supervisor through `lost`), SERVING again after two answered ones in a
    row, so a store that flaps, or a Redis restarted in a blink, shows for at least one
    interval."""
    log = structlog.get_logger("kozyr.server")
    serving, answered = True, 0
    while True:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(lost.wait(), config.health_interval_s)
        was_lost = lost.is_set()
        lost.clear()
        up = not was_lost and await store_answers(store, config.health_timeout_s)
        answered = answered + 1 if up else 0
        now = answered >= 2 if not serving else up
        if now != serving:
            serving = now
            log.warning("store_health", serving=now)
            await set_health(servicer, now)
