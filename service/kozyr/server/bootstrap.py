"""Server assembly: the guarded servicer, TLS, health that follows the store, reflection,
metrics and graceful stop."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

import grpc
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from prometheus_client import start_http_server

from kozyr._proto.kozyr.v1 import kozyr_pb2
from kozyr.actors.seatbots import SeatBots
from kozyr.actors.timers import Timers
from kozyr.api.auth.arbiter import Arbiter, ArbiterTokenError, listen_for_revocations
from kozyr.api.guard import Guard, guarded_handler
from kozyr.api.metrics import METRICS
from kozyr.api.movelog import MoveLog
from kozyr.api.servicer import KozyrServicer
from kozyr.api.terms import Defaults
from kozyr.config.settings import ServerConfig, Tenancy
from kozyr.engine import Engine
from kozyr.platform.publisher import Platform
from kozyr.platform.tenant_store import RedisPlatformStore
from kozyr.platform.webhooks.deliveries import Deliveries
from kozyr.platform.webhooks.sender import Sender
from kozyr.secrets.seedbox import SeedBox
from kozyr.secrets.signing import Signer
from kozyr.server.listen import CannotListen, check_address
from kozyr.store.redis.embedded import EmbeddedRedis
from kozyr.store.redis.streams import RedisStore

__all__ = [
    "CannotListen",
    "Running",
    "Tls",
    "check_address",
    "configure_logging",
    "serve",
    "start_server",
]

SERVICE_NAME = kozyr_pb2.DESCRIPTOR.services_by_name["KozyrService"].full_name


@dataclass(frozen=True)
class Tls:
    """PEM certificate chain and key of the server; with `client_ca`, client certificates
    signed by it are required."""

    cert: bytes
    key: bytes
    client_ca: bytes | None = None

    def credentials(self) -> grpc.ServerCredentials:
        """The gRPC server credentials."""
        return grpc.ssl_server_credentials(
            [(self.key, self.cert)],
            root_certificates=self.client_ca,
            require_client_auth=self.client_ca is not None,
        )


@dataclass
class Running:
    """A started server: the gRPC server, its bound port and its parts."""

    server: grpc.aio.Server
    port: int
    servicer: KozyrServicer
    health: health.aio.HealthServicer
    engine: Engine
    guard: Guard
    seatbots: SeatBots | None = None
    timers: Timers | None = None
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    store_lost: asyncio.Event = field(default_factory=asyncio.Event)
    loop: asyncio.AbstractEventLoop = field(default_factory=asyncio.get_running_loop)

    def report_store_lost(self) -> None:
        """Say the store died (from any thread): health turns NOT_SERVING at once."""
        self.loop.call_soon_threadsafe(self.store_lost.set)

    async def stop(self, grace: float = 10.0) -> None:
        """Stop accepting calls, end the watchers, let in-flight moves finish, then close."""
        await _cancel(self.tasks)  # the health probe and the revocation listener
        await self.health.enter_graceful_shutdown()
        self.servicer.closing.set()
        await self.server.stop(grace)
        if self.seatbots is not None:
            await self.seatbots.close()
        if self.timers is not None:
            await self.timers.close()
        await self.engine.close()
        if self.servicer.platform is not None:
            await self.servicer.platform.close()
        await self.engine.store.close()


async def _cancel(tasks: list[asyncio.Task[None]], rounds: int = 20) -> None:
    """Cancel background tasks and wait for them - cancelling again if one goes on: redis-py
    swallows a cancellation that lands while it opens a connection, and a loop that then goes
    on would hold the stop forever."""
    pending = {t for t in tasks if not t.done()}
    for _ in range(rounds):
        if not pending:
            return
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=0.5)
    log = structlog.get_logger("kozyr.server")
    log.error("background_tasks_would_not_stop", tasks=len(pending))


async def start_server(
    engine: Engine,
    address: str = "127.0.0.1:50051",
    *,
    config: ServerConfig | None = None,
    tls: Tls | None = None,
    reflection_on: bool = True,
    arbiter: Arbiter | None = None,
    reuse_port: bool = False,
    tenancy: Tenancy | None = None,
) -> Running:
    """Build and start a server on `address` ("127.0.0.1:0" picks a free port); with
    `reuse_port`, one of several processes on that port (kozyr serve --workers)."""
    config = config or ServerConfig()
    tenancy = tenancy or Tenancy({})
    options = [
        (k, int(reuse_port) if k == "grpc.so_reuseport" else v) for k, v in config.grpc_options()
    ]
    server = grpc.aio.server(options=options)
    servicer = KozyrServicer(
        engine,
        arbiter=arbiter,
        tenancy=tenancy,
        leeway_s=config.ticket_leeway_s,
        move_log=MoveLog(config.move_log_interval_s),
        session_moves=config.session_moves_in_flight,
    )
    servicer.session_rate = (config.session_moves_per_s, config.session_moves_burst)
    guard = Guard(config)
    server.add_generic_rpc_handlers((guarded_handler(servicer, guard),))
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    if reflection_on:
        reflection.enable_server_reflection(
            (
                SERVICE_NAME,
                health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
                reflection.SERVICE_NAME,
            ),
            server,
        )
    try:
        port = (
            server.add_secure_port(address, tls.credentials())
            if tls is not None
            else server.add_insecure_port(address)
        )
    except RuntimeError:
        port = 0
    if port == 0:
        check_address(address)  # names the holder if it is a port in use
        raise CannotListen(f"cannot listen on {address}")
    await server.start()
    seatbots = SeatBots(engine)
    timers = Timers(
        engine,
        seatbots,
        interval_s=config.timer_interval_s,
        idle_interval_s=config.timer_idle_interval_s,
        lease_ms=int(config.timer_lease_s * 1000),
    )
    servicer.term_defaults = Defaults(
        int(config.abandon_grace_s * 1000), int(config.open_match_expiry_s * 1000)
    )
    running = Running(
        server, port, servicer, health_servicer, engine, guard, seatbots=seatbots, timers=timers
    )
    await _set_health(health_servicer, await _store_answers(engine, config.health_timeout_s))
    running.tasks.append(asyncio.create_task(_probe(running, config)))
    assert running.timers is not None
    running.tasks.append(asyncio.create_task(running.timers.run()))
    running.tasks.append(asyncio.create_task(servicer.presence.run()))
    if isinstance(engine.store, RedisStore):
        running.tasks.append(asyncio.create_task(listen_for_revocations(engine.store, engine)))
        running.tasks += await _platform_tasks(servicer, engine.store, tenancy, config)
    return running


async def _platform_tasks(
    servicer: KozyrServicer, store: RedisStore, tenancy: Tenancy, config: ServerConfig
) -> list[asyncio.Task[None]]:
    """The tenants' feed and lobby on the store's Redis, told of every creation and append by
    the engine, with their catch-up sweep, and the webhook sender (primed before the server
    answers, so it misses no event)."""
    platform = servicer.platform = Platform(
        store, RedisPlatformStore.sharing(store), grace_s=config.feed_sweep_interval_s
    )
    servicer.engine.lifecycle = platform
    tasks = [asyncio.create_task(platform.sweep_forever(tenancy.ids, config.feed_sweep_interval_s))]
    sender = Sender(Deliveries(RedisPlatformStore.beside(store.redis, 8).redis), tenancy, config)
    if sender.active:
        await sender.prime()
        tasks.append(asyncio.create_task(sender.run_forever()))
    else:
        await sender.close()
    return tasks


async def _store_answers(engine: Engine, timeout: float) -> bool:
    """Whether the store answers a PING within `timeout` (a store without PING always does)."""
    ping = getattr(engine.store, "redis", None)
    if ping is None:
        return True
    try:
        return bool(await asyncio.wait_for(ping.ping(), timeout))
    except Exception:  # unreachable, loading, timed out: all mean "not serving"
        return False


async def _set_health(servicer: health.aio.HealthServicer, serving: bool) -> None:
    status = (
        health_pb2.HealthCheckResponse.SERVING
        if serving
        else health_pb2.HealthCheckResponse.NOT_SERVING
    )
    for name in ("", SERVICE_NAME):
        await servicer.set(name, status)


async def _probe(running: Running, config: ServerConfig) -> None:
    """Health follows the store: NOT_SERVING from the first failed ping (or a death reported by
    the embedded Redis's supervisor), SERVING again after two answered ones in a row, so a
    store that flaps, or a Redis restarted in a blink, shows for at least one interval."""
    log = structlog.get_logger("kozyr.server")
    serving, answered = True, 0
    while True:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(running.store_lost.wait(), config.health_interval_s)
        lost = running.store_lost.is_set()
        running.store_lost.clear()
        up = not lost and await _store_answers(running.engine, config.health_timeout_s)
        answered = answered + 1 if up else 0
        now = answered >= 2 if not serving else up
        if now != serving:
            serving = now
            log.warning("store_health", serving=now)
            await _set_health(running.health, now)


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


def _reload(arbiter: Arbiter) -> None:
    """SIGHUP: read the arbiter token file again; a bad file leaves no arbiter, and says so."""
    log = structlog.get_logger("kozyr.server")
    try:
        arbiter.reload()
    except ArbiterTokenError as e:
        log.error("arbiter_token_unusable", error=str(e))
        return
    log.info("arbiter_token_reloaded")


GC_OLDER = (20, 10)  # young collections per middle one, middle ones per full one


def tune_gc(young_threshold: int) -> None:
    """Set the cycle collector for a long-running server (ServerConfig.gc_young_threshold)
    and freeze what start-up made (modules, handlers), which no full collection need scan."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(young_threshold, *GC_OLDER)


async def serve(
    redis_url: str,
    address: str,
    *,
    arbiter: Arbiter | None = None,
    seed_box: SeedBox | None = None,
    signer: Signer | None = None,
    config: ServerConfig | None = None,
    tls: Tls | None = None,
    reflection_on: bool = True,
    metrics_port: int | None = None,
    grace: float = 10.0,
    on_serving: Callable[[str], None] | None = None,
    supervised: EmbeddedRedis | None = None,
    reuse_port: bool = False,
    web_port: int | None = None,
    tenancy: Tenancy | None = None,
) -> None:
    """Run until SIGTERM or SIGINT, then stop gracefully (`on_serving` gets the bound address).

    SIGHUP reads the arbiter token file again (how an arbiter token is revoked)."""
    log = structlog.get_logger("kozyr.server")
    config = config or ServerConfig()
    store = RedisStore.from_url(
        redis_url,
        max_connections=config.redis_max_connections,
        watch_connections=config.redis_watch_connections,
        socket_timeout=config.redis_socket_timeout_s,
        socket_connect_timeout=config.redis_connect_timeout_s,
    )
    await store.ready()  # a cluster of Redis >= 7 switches ticks to sharded pub/sub
    engine = Engine(store, seed_box=seed_box, signer=signer)
    running = await start_server(
        engine,
        address,
        config=config,
        tls=tls,
        reflection_on=reflection_on,
        arbiter=arbiter,
        reuse_port=reuse_port,
        tenancy=tenancy,
    )
    if metrics_port is not None:
        # Metrics listen on the same host as the API (loopback by default).
        start_http_server(
            metrics_port, addr=address.rsplit(":", 1)[0].strip("[]"), registry=METRICS.registry
        )
    bound = f"{address.rsplit(':', 1)[0]}:{running.port}"
    web = None
    if web_port is not None:  # the browser's port, same host, same servicer and guard
        from kozyr.web.port import start_web

        host = address.rsplit(":", 1)[0]
        web = await start_web(
            running.servicer, running.guard, host, web_port, reuse_port=reuse_port
        )
        print(f"kozyr: web table on http://{host}:{web.port}/", file=sys.stderr, flush=True)
    if supervised is not None:  # its supervisor tells health the moment Redis dies
        supervised.on_death = running.report_store_lost
    tune_gc(config.gc_young_threshold)
    if on_serving is not None:
        on_serving(bound)
    log.info(
        "serving",
        address=bound,
        metrics_port=metrics_port,
        tls=tls is not None,
        reflection=reflection_on,
        tenants=(tenancy or Tenancy({})).ids(),
        require_auth=bool(tenancy and tenancy.require_auth),
        gc=list(gc.get_threshold()),
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    if arbiter is not None:
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(signal.SIGHUP, _reload, arbiter)
    await stop.wait()
    log.info("stopping", grace_s=grace)
    if web is not None:
        running.servicer.closing.set()  # ends the browsers' watches, so the port closes at once
        await web.stop()
    await running.stop(grace)
    log.info("stopped")
