"""Prometheus metrics of the service (exposed on --metrics-port)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram


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


def _metrics() -> Metrics:
    registry = CollectorRegistry()
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
