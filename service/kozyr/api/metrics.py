"""Prometheus metrics of the service (exposed on --metrics-port)."""

from __future__ import annotations

from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram


@dataclass(frozen=True)
class Metrics:
    """The service's metric families, in one registry."""

    registry: CollectorRegistry
    moves: Counter
    errors: Counter
    latency: Histogram
    watchers: Gauge


def _metrics() -> Metrics:
    registry = CollectorRegistry()
    return Metrics(
        registry=registry,
        moves=Counter("kozyr_moves", "Moves submitted, by game and result", ["game", "result"],
                      registry=registry),
        errors=Counter("kozyr_errors", "Refused requests, by reason", ["reason"],
                       registry=registry),
        latency=Histogram("kozyr_move_seconds", "Latency of accepted moves",
                          buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1),
                          registry=registry),
        watchers=Gauge("kozyr_open_watchers", "Open WatchMatch streams", registry=registry),
    )


METRICS = _metrics()
