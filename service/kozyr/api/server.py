"""Server assembly: the servicer, health checking, reflection, metrics and graceful stop."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass

import grpc
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from prometheus_client import start_http_server

from kozyr._proto.kozyr.v1 import kozyr_pb2, kozyr_pb2_grpc
from kozyr.api.listen import CannotListen, check_address
from kozyr.api.metrics import METRICS
from kozyr.api.servicer import KozyrServicer
from kozyr.engine import Engine, RedisStore

__all__ = ["CannotListen", "Running", "check_address", "configure_logging", "serve",
           "start_server"]

SERVICE_NAME = kozyr_pb2.DESCRIPTOR.services_by_name["KozyrService"].full_name


@dataclass
class Running:
    """A started server: the gRPC server, its bound port and its parts."""

    server: grpc.aio.Server
    port: int
    servicer: KozyrServicer
    health: health.aio.HealthServicer
    engine: Engine

    async def stop(self, grace: float = 10.0) -> None:
        """Stop accepting calls, end the watchers, let in-flight moves finish, then close."""
        await self.health.enter_graceful_shutdown()
        self.servicer.closing.set()
        await self.server.stop(grace)
        await self.engine.close()
        await self.engine.store.close()


async def start_server(engine: Engine, address: str = "127.0.0.1:50051") -> Running:
    """Build and start a server on `address` ("127.0.0.1:0" picks a free port)."""
    server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
    servicer = KozyrServicer(engine)
    kozyr_pb2_grpc.add_KozyrServiceServicer_to_server(servicer, server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
         reflection.SERVICE_NAME), server)
    try:
        port = server.add_insecure_port(address)
    except RuntimeError:
        port = 0
    if port == 0:
        check_address(address)  # names the holder if it is a port in use
        raise CannotListen(f"cannot listen on {address}")
    await server.start()
    for name in ("", SERVICE_NAME):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return Running(server, port, servicer, health_servicer, engine)


def configure_logging(json_logs: bool | None = None, level: int = logging.INFO) -> None:
    """structlog: console lines in a terminal, JSON lines otherwise."""
    if json_logs is None:
        json_logs = not sys.stderr.isatty()
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer() if json_logs else structlog.dev.ConsoleRenderer()
    )
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )


async def serve(redis_url: str, address: str, *, arbiter_token: str | None = None,
                metrics_port: int | None = None, grace: float = 10.0,
                on_serving: Callable[[str], None] | None = None) -> None:
    """Run until SIGTERM or SIGINT, then stop gracefully (`on_serving` gets the bound address)."""
    log = structlog.get_logger("kozyr.server")
    store = RedisStore.from_url(redis_url)
    await store.redis.ping()
    engine = Engine(store, arbiter_token=arbiter_token)
    running = await start_server(engine, address)
    if metrics_port is not None:
        # Metrics listen on the same host as the API (loopback by default).
        start_http_server(metrics_port, addr=address.rsplit(":", 1)[0].strip("[]"),
                          registry=METRICS.registry)
    bound = f"{address.rsplit(':', 1)[0]}:{running.port}"
    if on_serving is not None:
        on_serving(bound)
    log.info("serving", address=bound, metrics_port=metrics_port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("stopping", grace_s=grace)
    await running.stop(grace)
    log.info("stopped")
