"""The webhook sender every service process runs: feed events -> signed POSTs, until cancelled.

Each round turns the tenants' new feed events into deliveries, claims the due ones and POSTs
them (httpx), each signed with its endpoint's secret per the Standard Webhooks specification:
headers `webhook-id` (the same for every try of one event: the receiver's dedup key),
`webhook-timestamp` and `webhook-signature` (`v1,<base64 HMAC-SHA256 of id.timestamp.body>`).
A 2xx answer delivers it; anything else (an error status, a timeout, a refused connection) is
tried again after 1, 2, 4, ... backoff periods up to a cap, until it has been tried for
`webhook_retry_for_s`, then it is a dead letter (`kozyr webhooks redeliver` revives it). All of
it lives in Redis (platform/webhooks/deliveries.py), so a restarted sender goes on where it stopped.

Tenants are isolated: each has a loop of its own and an HTTP client (a connection pool) of its
own, as large as the tries it may have in flight (CLAIM), so one tenant's slow, hanging or
dribbling endpoints - or those of any number of tenants - never delay another's deliveries,
neither by its rounds nor by holding connections a shared pool would make others wait for.
Each try has one deadline for the whole attempt (connect, send, the whole response), not a
timeout per read that a dribbling endpoint resets. Every failed try is counted and logged at
WARNING (`webhook_failed`; `WebhookStats`, exported as metrics) before the store is told, so a
store that is away cannot hide it; a dead letter is logged too (`webhook_dead_letter`). The
store's commands wait for a connection of its pool (deliveries.py): however many tries run at
once, none fails for want of one.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import httpx
import structlog
from standardwebhooks.webhooks import Webhook

from kozyr.config.settings import ServerConfig, Tenancy, WebhookEndpoint
from kozyr.platform.webhooks.deliveries import Deliveries

log = structlog.get_logger("kozyr.platform.webhooks")
CLAIM = 32  # deliveries one round sends per tenant, concurrently: its pool's connections
KEEP_ALIVE = 8  # idle connections a tenant's pool keeps (httpx closes them after 5 s)


def signed_headers(
    endpoint: WebhookEndpoint, message_id: str, body: str, now: float
) -> dict[str, str]:
    """The Standard Webhooks headers of one try."""
    stamp = datetime.fromtimestamp(int(now), tz=UTC)
    signature = Webhook(endpoint.secret).sign(message_id, stamp, body)
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(int(now)),
        "webhook-signature": signature,
        "content-type": "application/json",
    }


def tenant_client(timeout_s: float, tls: ssl.SSLContext) -> httpx.AsyncClient:
    """One tenant's HTTP client: a pool of its own with a connection for every try the tenant
    may have in flight, so no try waits for a connection that another tenant's tries hold."""
    return httpx.AsyncClient(
        timeout=timeout_s,
        follow_redirects=False,
        verify=tls,
        limits=httpx.Limits(max_connections=CLAIM, max_keepalive_connections=KEEP_ALIVE),
    )


def failure(e: BaseException, url: str) -> str:
    """Why a try failed, from what it raised: the exception's name (the metrics' kind), then
    its message, the endpoint's URL left out (it may carry a token); a group (anyio's connect
    raises one) by the first exception in it."""
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    return f"{type(e).__name__} {str(e).replace(url, '<url>')[:200]}".strip()


@dataclass
class WebhookStats:
    """What the sender did, by tenant: deliveries made, failed tries by kind (an HTTP status,
    a timeout, a refused connection) and each delivered try's duration, for the metrics."""

    delivered: Counter[str] = field(default_factory=Counter)
    failed: Counter[tuple[str, str]] = field(default_factory=Counter)
    dead: Counter[str] = field(default_factory=Counter)
    seconds: list[tuple[str, float]] = field(default_factory=list)  # drained by the metrics

    def took(self, tenant: str, seconds: float) -> None:
        """Note one delivered try's duration (bounded: the metrics drain it)."""
        if len(self.seconds) < 10_000:
            self.seconds.append((tenant, seconds))


class Sender:
    """Delivers every configured tenant's events to its endpoints."""

    def __init__(
        self,
        deliveries: Deliveries,
        tenancy: Tenancy,
        config: ServerConfig,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.deliveries = deliveries
        self.config = config
        self._clock = clock
        self._endpoints = {
            t.id: {e.name: e for e in t.webhooks} for t in tenancy.tenants.values() if t.webhooks
        }
        tls = httpx.create_ssl_context()  # one CA bundle read, shared by every tenant's client
        self._clients = {
            tenant: tenant_client(config.webhook_timeout_s, tls) for tenant in self._endpoints
        }
        self.stats = WebhookStats()

    @property
    def active(self) -> bool:
        """Whether any tenant has an endpoint."""
        return bool(self._endpoints)

    async def prime(self) -> None:
        """Before serving: each tenant's deliveries start at its feed's present top (a tenant's
        first start), so no event committed from now on is missed."""
        for tenant in self._endpoints:
            await self.deliveries.start(tenant)

    async def tenant_round(self, tenant: str) -> int:
        """One round of one tenant: its new events become deliveries, its due ones are tried
        (at most CLAIM at once); how many tries were made."""
        now_ms = int(self._clock() * 1000)
        lease_ms = int((self.config.webhook_timeout_s + 5.0) * 1000)
        endpoints = self._endpoints[tenant]
        await self.deliveries.enqueue(tenant, sorted(endpoints), now_ms)
        claimed = await self.deliveries.claim(tenant, now_ms, lease_ms, CLAIM)
        tries = [self._try(tenant, delivery) for delivery in claimed]
        # Every try ends before the round does (never more than CLAIM in flight, the pool's
        # size); then the first that raised (the store away) fails the round.
        for outcome in await asyncio.gather(*tries, return_exceptions=True):
            if isinstance(outcome, BaseException):
                raise outcome
        return len(claimed)

    async def _try(self, tenant: str, delivery: str) -> None:
        name, _, cursor = delivery.partition("|")
        endpoint = self._endpoints[tenant].get(name)
        item = await self.deliveries.item(tenant, cursor)
        if endpoint is None or item is None:  # an endpoint removed from the config since
            await self.deliveries.delivered(tenant, delivery)
            return
        body = item.body()
        headers = signed_headers(endpoint, f"{tenant}-{cursor}", body, self._clock())
        started = time.monotonic()
        why = await self._post(self._clients[tenant], endpoint.url, body, headers)
        if why:
            await self._failed(tenant, delivery, why)
            return
        self.stats.delivered[tenant] += 1
        self.stats.took(tenant, time.monotonic() - started)
        await self.deliveries.delivered(tenant, delivery)

    async def _failed(self, tenant: str, delivery: str, why: str) -> None:
        """Count and log a failed try first (so a store that is away, slow or failing cannot
        hide it), then note it in the store: tried again later, or a dead letter."""
        name, _, cursor = delivery.partition("|")
        self.stats.failed[(tenant, why.split(" ")[0])] += 1
        log.warning("webhook_failed", tenant=tenant, endpoint=name, cursor=cursor, why=why)
        config = self.config
        dead = await self.deliveries.failed(
            tenant,
            delivery,
            why,
            int(self._clock() * 1000),
            retry_for_ms=int(config.webhook_retry_for_s * 1000),
            backoff_ms=int(config.webhook_backoff_s * 1000),
            backoff_max_ms=int(config.webhook_backoff_max_s * 1000),
        )
        if dead:
            self.stats.dead[tenant] += 1
            log.warning("webhook_dead_letter", tenant=tenant, endpoint=name, cursor=cursor)

    async def _post(
        self, client: httpx.AsyncClient, url: str, body: str, headers: dict[str, str]
    ) -> str:
        """POST one try within one deadline for the whole attempt; why it failed, or ""."""
        limit = self.config.webhook_timeout_s
        try:
            async with asyncio.timeout(limit):
                answer = await client.post(url, content=body.encode(), headers=headers)
        except TimeoutError:
            return f"timeout the whole try took over {limit:g} s"
        except Exception as e:  # refused, reset, TLS, the protocol, a URL it cannot use...
            return failure(e, url)
        return "" if 200 <= answer.status_code < 300 else f"HTTP {answer.status_code}"

    async def run_forever(self, interval_s: float = 0.2) -> None:
        """A loop per tenant until cancelled (then the HTTP clients are closed)."""
        try:
            async with asyncio.TaskGroup() as loops:
                for tenant in self._endpoints:
                    loops.create_task(self._tenant_forever(tenant, interval_s))
        finally:
            await self.close()

    async def _tenant_forever(self, tenant: str, interval_s: float) -> None:
        """One tenant's rounds: its store being away is tried again, never stops the others."""
        while True:
            try:
                sent = await self.tenant_round(tenant)
            except Exception:  # Redis away, or a bug: log it, go on - never stop sending
                log.exception("webhook_round_failed", tenant=tenant)
                sent = 0
            if not sent:
                await asyncio.sleep(interval_s)

    async def close(self) -> None:
        """Close every tenant's HTTP client and the deliveries' connections."""
        for client in self._clients.values():
            await client.aclose()
        await self.deliveries.redis.aclose()
