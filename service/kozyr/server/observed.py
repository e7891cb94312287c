"""The metrics the service reads rather than counts: matches in play and the webhook backlog
and dead letters of each tenant (from Redis), and what the webhook sender did (its
`WebhookStats`), brought into api/metrics.py's families every `metrics_interval_s`."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import structlog

from kozyr.api.metrics import METRICS
from kozyr.platform.tenant_store import tenant_key
from kozyr.platform.webhooks.sender import Sender

log = structlog.get_logger("kozyr.server")


class Observed:
    """Reads the tenants' gauges from Redis and the sender's counts, on demand or in a loop."""

    def __init__(self, redis: Any, tenants: list[str], sender: Sender | None) -> None:
        self.redis, self.tenants, self.sender = redis, tenants, sender
        self.delivered: Counter[str] = Counter()  # what the counters have been told already
        self.failed: Counter[tuple[str, str]] = Counter()

    async def observe(self) -> None:
        """Bring every metric of this module up to date once."""
        for tenant in self.tenants:
            playing = await self.redis.zcard(tenant_key(tenant, "list:status:playing"))
            METRICS.in_play.labels(tenant=tenant).set(playing)
            if self.sender is not None:
                due = await self.redis.zcard(tenant_key(tenant, "wh:due"))
                dead = await self.redis.zcard(tenant_key(tenant, "wh:dead"))
                METRICS.webhook_backlog.labels(tenant=tenant).set(due)
                METRICS.webhook_dead.labels(tenant=tenant).set(dead)
        if self.sender is not None:
            self._sent(self.sender)

    def _sent(self, sender: Sender) -> None:
        stats = sender.stats
        for tenant, count in list(stats.delivered.items()):
            METRICS.webhook_delivered.labels(tenant=tenant).inc(count - self.delivered[tenant])
            self.delivered[tenant] = count
        for (tenant, kind), count in list(stats.failed.items()):
            grew = count - self.failed[(tenant, kind)]
            METRICS.webhook_failed.labels(tenant=tenant, kind=kind).inc(grew)
            self.failed[(tenant, kind)] = count
        took, stats.seconds = stats.seconds, []
        for tenant, seconds in took:
            METRICS.webhook_seconds.labels(tenant=tenant).observe(seconds)

    async def run(self, interval_s: float) -> None:
        """Observe every `interval_s` until cancelled (a failing store is tried again)."""
        while True:
            try:
                await self.observe()
            except Exception as e:  # the store is away: the gauges keep their last values
                log.warning("metrics_unobserved", error=type(e).__name__)
            await asyncio.sleep(interval_s)
