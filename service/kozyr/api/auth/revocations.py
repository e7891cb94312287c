"""Revoked seat tickets: by ticket id (`jti`), or every ticket of a user issued before a time.

`kozyr tickets revoke TENANT --jti ID | --user USER` writes the revocation to the tenant's hash
in Redis (store/redis/names.py `revoked_tickets_key`) and announces it on
``kozyr:revoked:tickets``; every server keeps the revocations in memory (read whole at start
and whenever its subscription comes back, having maybe missed announcements; then from the
announcements), so checking a ticket costs no Redis call. A revoked ticket is UNAUTHENTICATED
`TICKET_REVOKED`; so is a ticket without `iat` of a user with a "not before" time (its age
cannot be shown).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from typing import Any

import structlog

from kozyr.api.auth.tickets import Ticket
from kozyr.match.errors import Kind, MatchError
from kozyr.store.redis.connect import SyncClient
from kozyr.store.redis.names import TICKETS_REVOKED_CHANNEL, revoked_tickets_key

log = structlog.get_logger("kozyr.auth")


class TicketRevocations:
    """The revoked ticket ids and per-user "not before" times of every tenant, in memory."""

    def __init__(self) -> None:
        self.ids: set[tuple[str, str]] = set()  # (tenant, jti)
        self.not_before: dict[tuple[str, str], int] = {}  # (tenant, user) -> seconds

    def check(self, ticket: Ticket) -> None:
        """Refuse a revoked ticket (UNAUTHENTICATED, TICKET_REVOKED)."""
        if ticket.ticket_id is not None and (ticket.tenant, ticket.ticket_id) in self.ids:
            raise _revoked("this ticket was revoked")
        cutoff = self.not_before.get((ticket.tenant, ticket.user))
        if cutoff is not None and (ticket.issued is None or ticket.issued < cutoff):
            raise _revoked("the tickets this user was given before a revocation are refused")

    def apply(self, tenant: str, kind: str, name: str, when: int) -> None:
        """Take one revocation (`kind` "jti" or "user")."""
        if kind == "jti":
            self.ids.add((tenant, name))
        elif kind == "user":
            key = (tenant, name)
            self.not_before[key] = max(when, self.not_before.get(key, 0))

    def announced(self, message: str) -> None:
        """Take an announcement ("<tenant> <kind> <when> <name>")."""
        tenant, kind, when, name = [*message.split(" ", 3), "", "", ""][:4]
        if when.isdigit() and name:
            self.apply(tenant, kind, name, int(when))

    async def load(self, redis: Any, tenants: Iterable[str]) -> None:
        """Read every tenant's revocations from Redis."""
        for tenant in tenants:
            stored: dict[Any, Any] = await redis.hgetall(revoked_tickets_key(tenant))
            for field, value in stored.items():
                kind, _, name = _text(field).partition(":")
                self.apply(tenant, kind, name, int(_text(value)))


def _revoked(message: str) -> MatchError:
    return MatchError(Kind.UNAUTHENTICATED, "TICKET_REVOKED", message)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def revoke_tickets(client: SyncClient, tenant: str, kind: str, name: str, now: int) -> None:
    """Revoke a tenant's ticket id (`kind` "jti") or a user's tickets issued before `now`
    ("user"), for every server: stored, then announced."""
    if kind not in ("jti", "user") or not name or " " in name:
        raise ValueError("revoke a ticket id (jti) or a user, named without spaces")
    client.hset(revoked_tickets_key(tenant), f"{kind}:{name}", str(now))
    client.publish(TICKETS_REVOKED_CHANNEL, f"{tenant} {kind} {now} {name}")


async def listen_for_ticket_revocations(
    store: Any, revocations: TicketRevocations, tenants: list[str], retry_s: float = 1.0
) -> None:
    """Keep `revocations` up to date until cancelled (as arbiter.listen_for_revocations)."""
    me = asyncio.current_task()
    while me is None or not me.cancelling():
        pubsub = store.redis.pubsub()
        try:
            await pubsub.subscribe(TICKETS_REVOKED_CHANNEL)
            await revocations.load(store.redis, tenants)  # what was missed while away
            async for message in pubsub.listen():
                if message.get("type") == "message":
                    revocations.announced(_text(message["data"]))
        except asyncio.CancelledError:
            raise
        except Exception as e:  # the store is away: listen again once it is back
            log.warning("ticket_revocations_lost", error=type(e).__name__)
            await asyncio.sleep(retry_s)
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(pubsub.aclose(), 1.0)
