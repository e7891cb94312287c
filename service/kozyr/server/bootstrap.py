"""The composition root: the one place a Kozyr server is built.

`start(wiring)` builds, from a `Wiring` (what a caller varies: the store, the config, the
tenants, the arbiter, the seed box and signer, the clock, TLS, the ports), everything a server
is: the store, the engine, the actors (timers, seat bots), the platform (feed, lobby,
webhooks) wired to the engine as its lifecycle listener, the servicer with the guard, and the
transports (the gRPC server with health and reflection, the web port). `serve` runs one until
a signal (`kozyr serve`); `server/background.py` runs one on a loop of its own (`kozyr play`,
the test fixtures). Nothing else constructs an Engine or a KozyrServicer
(tests/server/test_composition_root.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from prometheus_client import start_http_server

from kozyr.actors.seatbots import SeatBots
from kozyr.actors.timers import Timers
from kozyr.api.auth.arbiter import Arbiter, ArbiterTokenError, listen_for_revocations
from kozyr.api.auth.revocations import listen_for_ticket_revocations
from kozyr.api.guard import Guard, guarded_handler
from kozyr.api.metrics import METRICS
from kozyr.api.movelog import MoveLog
from kozyr.api.servicer import KozyrServicer
from kozyr.api.terms import Defaults
from kozyr.config.settings import ServerConfig, Tenancy
from kozyr.engine import Engine
from kozyr.engine.lifecycle_listener import joined
from kozyr.platform.publisher import Platform
from kozyr.platform.tenant_store import RedisPlatformStore
from kozyr.platform.webhooks.deliveries import Deliveries
from kozyr.platform.webhooks.sender import Sender
from kozyr.secrets.seedbox import SeedBox
from kozyr.secrets.signing import Signer
from kozyr.secrets.tlog import LogListener, TransparencyLog
from kozyr.server.health import SERVICE_NAME, probe, set_health, store_answers
from kozyr.server.listen import CannotListen, check_address
from kozyr.server.observed import Observed
from kozyr.server.process_tuning import tune_gc
from kozyr.server.tls import Tls
from kozyr.store.port import Store
from kozyr.store.redis.embedded import EmbeddedRedis
from kozyr.store.redis.streams import RedisStore

log = structlog.get_logger("kozyr.server")


def redis_store(
    url: str, config: ServerConfig | None = None, **timeouts: Any
) -> Callable[[], Store]:
    """The store factory of a server on the Redis at `url`, with the config's pool sizes
    (`timeouts` override its socket timeouts)."""
    config = config or ServerConfig()
    settings = {
        "max_connections": config.redis_max_connections,
        "watch_connections": config.redis_watch_connections,
        "socket_timeout": config.redis_socket_timeout_s,
        "socket_connect_timeout": config.redis_connect_timeout_s,
        **timeouts,
    }
    return lambda: RedisStore.from_url(url, **settings)


@dataclass(frozen=True)
class Wiring:
    """What a server is built from: everything its callers (kozyr serve, kozyr play, the test
    fixtures) choose; the rest is built the same for all of them."""

    store: Callable[[], Store]
    address: str = "127.0.0.1:0"  # port 0 picks a free one
    config: ServerConfig = field(default_factory=ServerConfig)
    tenancy: Tenancy = field(default_factory=lambda: Tenancy({}))
    arbiter: Arbiter | None = None  # who may read every match's full log
    seed_box: SeedBox | None = None  # seals the server seeds (None: a key of this process)
    signer: Signer | None = None  # signs receipts (None: answers carry none)
    # The transparency log's folder (None: no log); its tree heads are signed by `signer`.
    tlog_dir: Path | None = None
    tlog_fsync: bool = True  # fsync each (grouped) write of leaves
    clock: Callable[[], float] = time.time
    tls: Tls | None = None
    reflection_on: bool = True
    reuse_port: bool = False  # one of several processes on the port (kozyr serve --workers)
    web_port: int | None = None  # the browser's port on the same host (0: a free one)


@dataclass
class Running:
    """A started server: the gRPC server, its bound port and its parts."""

    server: grpc.aio.Server
    port: int
    servicer: KozyrServicer
    health: health.aio.HealthServicer
    engine: Engine
    guard: Guard
    seatbots: SeatBots
    timers: Timers
    web: Any = None  # kozyr.web.transport.WebPort, when a web port was asked for
    observed: Observed | None = None  # the metrics read from Redis (a Redis store only)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    store_lost: asyncio.Event = field(default_factory=asyncio.Event)
    loop: asyncio.AbstractEventLoop = field(default_factory=asyncio.get_running_loop)

    def report_store_lost(self) -> None:
        """Say the store died (from any thread): health turns NOT_SERVING at once."""
        self.loop.call_soon_threadsafe(self.store_lost.set)

    async def stop(self, grace: float = 10.0) -> None:
        """Stop accepting calls, end the watchers, let in-flight moves finish, then close."""
        await cancel(self.tasks)  # the health probe, the timers, the revocation listener...
        await self.health.enter_graceful_shutdown()
        self.servicer.closing.set()  # ends the watches, so the web port closes at once too
        if self.web is not None:
            await self.web.stop()
        await self.server.stop(grace)
        await self.seatbots.close()
        await self.timers.close()
        await self.engine.close()
        if self.servicer.platform is not None:
            await self.servicer.platform.close()
        await self.engine.store.close()
        if self.engine.tlog is not None:
            self.engine.tlog.close()


async def cancel(tasks: list[asyncio.Task[None]], rounds: int = 20) -> None:
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
    log.error("background_tasks_would_not_stop", tasks=len(pending))


async def start(wiring: Wiring) -> Running:
    """Build a server from `wiring` and start it (CannotListen if its address is taken)."""
    config = wiring.config
    store = wiring.store()
    if isinstance(store, RedisStore):
        await store.ready()  # a cluster of Redis >= 7 switches ticks to sharded pub/sub
    engine = Engine(store, seed_box=wiring.seed_box, signer=wiring.signer, clock=wiring.clock)
    _transparency_log(wiring, engine)
    servicer = KozyrServicer(
        engine,
        arbiter=wiring.arbiter,
        tenancy=wiring.tenancy,
        leeway_s=config.ticket_leeway_s,
        move_log=MoveLog(config.move_log_interval_s),
        session_moves=config.session_moves_in_flight,
    )
    servicer.session_rate = (config.session_moves_per_s, config.session_moves_burst)
    servicer.term_defaults = Defaults(
        int(config.abandon_grace_s * 1000),
        int(config.open_match_expiry_s * 1000),
        config.policy_dir,
        int(config.contribution_window_s * 1000),
    )
    guard = Guard(config)
    server, port, health_servicer = await _grpc_server(wiring, servicer, guard)
    seatbots = SeatBots(engine, policy_dir=config.policy_dir)
    timers = Timers(
        engine,
        seatbots,
        interval_s=config.timer_interval_s,
        idle_interval_s=config.timer_idle_interval_s,
        lease_ms=int(config.timer_lease_s * 1000),
    )
    running = Running(server, port, servicer, health_servicer, engine, guard, seatbots, timers)
    await set_health(health_servicer, await store_answers(store, config.health_timeout_s))
    running.tasks += [
        asyncio.create_task(probe(health_servicer, store, running.store_lost, config)),
        asyncio.create_task(timers.run()),
        asyncio.create_task(servicer.presence.run()),
    ]
    if isinstance(store, RedisStore):
        running.tasks.append(asyncio.create_task(listen_for_revocations(store, engine)))
        revoked, tenants = servicer.access.revocations, list(wiring.tenancy.tenants)
        await revoked.load(store.redis, tenants)  # before the first call, not just soon after
        running.tasks.append(
            asyncio.create_task(listen_for_ticket_revocations(store, revoked, tenants))
        )
        tasks, running.observed = await _platform_tasks(servicer, store, wiring.tenancy, config)
        running.tasks += tasks
    if wiring.web_port is not None:  # the browser's port, same host, same servicer and guard
        from kozyr.web.transport import start_web

        host = wiring.address.rsplit(":", 1)[0]
        running.web = await start_web(
            servicer, guard, host, wiring.web_port, reuse_port=wiring.reuse_port
        )
    return running


def _transparency_log(wiring: Wiring, engine: Engine) -> None:
    """The host's transparency log, when the wiring names its folder: the engine checks the
    matches it loads against it, and it hears of creations and endings first."""
    if wiring.tlog_dir is None:
        return
    if wiring.signer is None:
        raise ValueError("a transparency log signs its tree heads: it needs a signer")
    tlog = TransparencyLog(
        wiring.tlog_dir, wiring.signer, fsync=wiring.tlog_fsync, clock=wiring.clock
    )
    engine.tlog, engine.lifecycle = tlog, LogListener(tlog)


async def _grpc_server(
    wiring: Wiring, servicer: KozyrServicer, guard: Guard
) -> tuple[grpc.aio.Server, int, health.aio.HealthServicer]:
    """The gRPC server of the guarded servicer, health and reflection, bound and started."""
    options = [
        (k, int(wiring.reuse_port) if k == "grpc.so_reuseport" else v)
        for k, v in wiring.config.grpc_options()
    ]
    server = grpc.aio.server(options=options)
    server.add_generic_rpc_handlers((guarded_handler(servicer, guard),))
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    if wiring.reflection_on:
        health_name = health_pb2.DESCRIPTOR.services_by_name["Health"].full_name
        reflection.enable_server_reflection(
            (SERVICE_NAME, health_name, reflection.SERVICE_NAME), server
        )
    address, tls = wiring.address, wiring.tls
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
    return server, port, health_servicer


async def _platform_tasks(
    servicer: KozyrServicer, store: RedisStore, tenancy: Tenancy, config: ServerConfig
) -> tuple[list[asyncio.Task[None]], Observed]:
    """The tenants' feed and lobby on the store's Redis, told of every creation and append by
    the engine, with their catch-up sweep, the webhook sender (primed before the server
    answers, so it misses no event), and the metrics read from Redis."""
    platform = servicer.platform = Platform(
        store, RedisPlatformStore.sharing(store), grace_s=config.feed_sweep_interval_s
    )
    servicer.engine.lifecycle = joined(servicer.engine.lifecycle, platform)
    tasks = [asyncio.create_task(platform.sweep_forever(tenancy.ids, config.feed_sweep_interval_s))]
    sender = Sender(Deliveries(RedisPlatformStore.beside(store.redis, 8).redis), tenancy, config)
    if sender.active:
        await sender.prime()
        tasks.append(asyncio.create_task(sender.run_forever()))
    else:
        await sender.close()
    observed = Observed(store.redis, tenancy.ids(), sender if sender.active else None)
    tasks.append(asyncio.create_task(observed.run(config.metrics_interval_s)))
    return tasks, observed


def _reload(arbiter: Arbiter) -> None:
    """SIGHUP: read the arbiter token file again; a bad file leaves no arbiter, and says so."""
    try:
        arbiter.reload()
    except ArbiterTokenError as e:
        log.error("arbiter_token_unusable", error=str(e))
        return
    log.info("arbiter_token_reloaded")


async def serve(
    wiring: Wiring,
    *,
    metrics_port: int | None = None,
    grace: float = 10.0,
    on_serving: Callable[[str], None] | None = None,
    supervised: EmbeddedRedis | None = None,
) -> None:
    """Run until SIGTERM or SIGINT, then stop gracefully (`on_serving` gets the bound address).

    SIGHUP reads the arbiter token file again (how an arbiter token is revoked)."""
    running = await start(wiring)
    host = wiring.address.rsplit(":", 1)[0]
    if metrics_port is not None:  # metrics listen on the same host as the API (loopback)
        start_http_server(metrics_port, addr=host.strip("[]"), registry=METRICS.registry)
    if running.web is not None:
        print(f"kozyr: web table on http://{host}:{running.web.port}/", file=sys.stderr, flush=True)
    if supervised is not None:  # its supervisor tells health the moment Redis dies
        supervised.on_death = running.report_store_lost
    tune_gc(wiring.config.gc_young_threshold)
    bound = f"{host}:{running.port}"
    if on_serving is not None:
        on_serving(bound)
    log.info(
        "serving",
        address=bound,
        metrics_port=metrics_port,
        tls=wiring.tls is not None,
        reflection=wiring.reflection_on,
        tenants=wiring.tenancy.ids(),
        require_auth=wiring.tenancy.require_auth,
        gc=list(gc.get_threshold()),
    )
    await _until_signalled(wiring.arbiter)
    log.info("stopping", grace_s=grace)
    await running.stop(grace)
    log.info("stopped")


async def _until_signalled(arbiter: Arbiter | None) -> None:
    """Wait for SIGTERM or SIGINT; meanwhile SIGHUP reloads the arbiter's token file."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    if arbiter is not None:
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(signal.SIGHUP, _reload, arbiter)
    await stop.wait()
