"""Prometheus metrics of the service (exposed on --metrics-port)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from prometheus_client import (
    GC_COLLECTOR,
    PLATFORM_COLLECTOR,
    PROCESS_COLLECTOR,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
)
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

from kozyr.store.redis.command_stats import COMMANDS


@dataclass(frozen=True)
class Metrics:
    """The service's metric families, in one registry."""

    registry: CollectorRegistry
    moves: Counter
    errors: Counter
    latency: Histogram
    watchers: Gauge
    web_connections: Gauge
    web_refused: Counter
    grpc_refused: Counter
    refusals_without_error_info: Counter
    in_play: Gauge
    webhook_backlog: Gauge
    webhook_dead: Gauge
    webhook_delivered: Counter
    webhook_failed: Counter
    webhook_seconds: Histogram


class StoreCommands(Collector):
    """The Redis commands' durations and errors (store/redis/command_stats.py), read at scrape."""

    def collect(self) -> Iterator[Metric]:
        """The histogram and the error counter, as they stand."""
        yield HistogramMetricFamily(
            "kozyr_redis_command_seconds",
            "Duration of the store's Redis commands (blocking reads apart)",
            buckets=COMMANDS.cumulative(),
            sum_value=COMMANDS.seconds,
        )
        errors = CounterMetricFamily(
            "kozyr_redis_command_errors", "Redis commands that failed, by error", labels=["error"]
        )
        for kind, count in sorted(dict(COMMANDS.errors).items()):
            errors.add_metric([kind], count)
        yield errors


def _metrics() -> Metrics:
    registry = CollectorRegistry()
    # The process (CPU, memory, descriptors), the platform and the cycle collector, as
    # prometheus_client's default registry has them.
    for collector in (PROCESS_COLLECTOR, PLATFORM_COLLECTOR, GC_COLLECTOR, StoreCommands()):
        registry.register(collector)
    return Metrics(
        registry=registry,
        moves=Counter(
            "kozyr_moves",
            "Moves submitted, by game and result",
            ["game", "result"],
            registry=registry,
        ),
        errors=Counter(
            "kozyr_errors", "Refused requests, by reason", ["reason"], registry=registry
        ),
        latency=Histogram(
            "kozyr_move_seconds",
            "Latency of accepted moves",
            buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1),
            registry=registry,
        ),
        watchers=Gauge("kozyr_open_watchers", "Open WatchMatch streams", registry=registry),
        web_connections=Gauge(
            "kozyr_web_connections", "Open connections of the web port", registry=registry
        ),
        web_refused=Counter(
            "kozyr_web_refused",
            "Web port connections closed by the edge (caps, timeouts) and failed accepts",
            ["reason"],
            registry=registry,
        ),
        grpc_refused=Counter(
            "kozyr_grpc_connections_refused",
            "gRPC calls refused for opening one connection too many from a client host",
            registry=registry,
        ),
        refusals_without_error_info=Counter(
            "kozyr_refusals_without_error_info",
            "Refusals sent without exactly one ErrorInfo of a known reason (a bug)",
            ["method", "code"],
            registry=registry,
        ),
        **_platform_metrics(registry),
    )


def _platform_metrics(registry: CollectorRegistry) -> dict[str, Any]:
    """The families of the tenants' matches and webhooks (server/observed.py fills them)."""
    tenant = ["tenant"]
    return dict(
        in_play=Gauge(
            "kozyr_matches_in_play", "Matches started and not over", tenant, registry=registry
        ),
        webhook_backlog=Gauge(
            "kozyr_webhook_backlog",
            "Webhook deliveries waiting to be sent",
            tenant,
            registry=registry,
        ),
        webhook_dead=Gauge(
            "kozyr_webhook_dead_letters",
            "Webhook deliveries given up on",
            tenant,
            registry=registry,
        ),
        webhook_delivered=Counter(
            "kozyr_webhook_deliveries", "Webhook deliveries made", tenant, registry=registry
        ),
        webhook_failed=Counter(
            "kozyr_webhook_failures",
            "Failed webhook tries, by kind (an HTTP status, a timeout...)",
            ["tenant", "kind"],
            registry=registry,
        ),
        webhook_seconds=Histogram(
            "kozyr_webhook_delivery_seconds",
            "Duration of delivered webhook tries",
            tenant,
            buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
            registry=registry,
        ),
    )


METRICS = _metrics()
_MOVE_COUNTS: dict[tuple[str, str], Any] = {}


def count_move(game: str, result: str) -> None:
    """Count one move in `kozyr_moves`: its labelled child is kept (`labels()` on every move
    was ~1.4 % of a server's CPU); games and results are few."""
    child = _MOVE_COUNTS.get((game, result))
    if child is None:
        child = _MOVE_COUNTS[(game, result)] = METRICS.moves.labels(game=game, result=result)
    child.inc()
