"""Who is calling: a tenant's API key, a seat ticket, a seat token, or nobody (open mode).

Server-to-server calls of a platform (CreateMatch, ListMatches, WatchEvents, and anything it
does as a spectator of its own matches) carry `x-api-key: <key>`; we hold only the keys'
SHA-256. A platform's user carries a seat ticket as `authorization: Bearer <jwt>`
(api/auth/tickets.py). The server-minted seat tokens and the arbiter token work as before. With no
`--require-auth` an anonymous caller acts for the local tenant (open mode, `make run`);
with it, every call needs a key, a ticket, or (on a match) a seat or arbiter token.

The caller is resolved once per call, before the servicer runs, and kept in a context variable
for the call's task.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import grpc

from kozyr.api.auth.revocations import TicketRevocations
from kozyr.api.auth.tickets import Ticket, TicketVerifier, looks_like_ticket
from kozyr.api.guard import Buckets, bearer_values
from kozyr.config.settings import LOCAL_TENANT, Tenancy
from kozyr.engine import Engine, Viewer
from kozyr.match.errors import Kind, MatchError
from kozyr.platform.publisher import Platform

API_KEY_HEADER = "x-api-key"
MAX_API_KEY = 256
# RPCs about one match, where a seat token or the arbiter's identifies the caller.
MATCH_RPCS = frozenset(
    {"GetMatch", "ListLegalMoves", "SubmitMove", "WatchMatch", "GetMatchLog", "ReplayMatch"}
)
# RPCs only a tenant's own server (its API key; anonymous in open mode) may make.
TENANT_RPCS = frozenset({"CreateMatch", "CreateMatches", "ListMatches", "WatchEvents"})


@dataclass(frozen=True, slots=True)
class Caller:
    """The caller of one RPC."""

    tenant: str  # "" when only a seat or arbiter token speaks for it
    keyed: bool = False
    ticket: Ticket | None = None


ANONYMOUS = Caller(LOCAL_TENANT)
_CALLER: ContextVar[Caller] = ContextVar("kozyr_caller", default=ANONYMOUS)


def current() -> Caller:
    """The caller of the RPC this task serves."""
    return _CALLER.get()


def _denied(code: str, message: str, match_id: str = "") -> MatchError:
    return MatchError(Kind.FORBIDDEN, code, message, match_id)


def _unauthenticated(code: str, message: str) -> MatchError:
    return MatchError(Kind.UNAUTHENTICATED, code, message)


class Access:
    """Resolves callers and checks what a tenant's key or ticket may touch."""

    def __init__(
        self, tenancy: Tenancy, leeway_s: float = 30.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.tenancy = tenancy
        self.tickets = TicketVerifier(tenancy, leeway_s)
        self.revocations = TicketRevocations()  # kept current by the server (bootstrap)
        self._keys = {digest: t.id for t in tenancy.tenants.values() for digest in t.api_key_sha256}
        self._creations = {
            t.id: Buckets(t.matches_per_minute / 60.0, t.matches_per_minute, clock)
            for t in tenancy.tenants.values()
        }

    def enter(self, method: str, context: grpc.aio.ServicerContext[Any, Any]) -> Caller:
        """Resolve and remember the caller of this RPC, or refuse it (UNAUTHENTICATED)."""
        keyed = self._tenant_of_key(context)
        bearer = next(iter(bearer_values(context)), None)
        token = bearer.partition(" ")[2].strip() if bearer else ""
        ticket = self.tickets.verify(token) if token and looks_like_ticket(token) else None
        if ticket is not None:
            self.revocations.check(ticket)
        if keyed and ticket and ticket.tenant != keyed:
            raise _denied("OTHER_TENANT", "the ticket is another tenant's than the API key")
        tenant = keyed or (ticket.tenant if ticket else "")
        if not tenant and not self.tenancy.require_auth:
            tenant = LOCAL_TENANT
        if self.tenancy.require_auth and not tenant and not (token and method in MATCH_RPCS):
            raise _unauthenticated(
                "AUTH_REQUIRED",
                "this server requires authentication: "
                f"send '{API_KEY_HEADER}: <tenant key>' or a seat ticket "
                "('authorization: Bearer <ticket>')",
            )
        if ticket is not None and method in TENANT_RPCS:
            raise _denied(
                "TENANT_KEY_REQUIRED",
                f"{method} is for the tenant's own server: send its '{API_KEY_HEADER}'",
            )
        if method == "CreateMatch":
            self.take_creations(tenant, 1)
        caller = Caller(tenant, bool(keyed), ticket)
        _CALLER.set(caller)
        return caller

    def take_creations(self, tenant: str, count: int) -> None:
        """Count `count` new matches against the tenant's rate (all of them or none);
        RESOURCE_EXHAUSTED (TOO_MANY_MATCHES) beyond it."""
        buckets = self._creations.get(tenant)
        wait = buckets.take(tenant, count) if buckets is not None else 0.0
        if wait:
            raise MatchError(
                Kind.EXHAUSTED,
                "TOO_MANY_MATCHES",
                f"tenant {tenant} may create at most "
                f"{self.tenancy.tenants[tenant].matches_per_minute} matches a "
                f"minute; retry in {wait:.3g} s",
            )

    def _tenant_of_key(self, context: grpc.aio.ServicerContext[Any, Any]) -> str:
        values = [v for k, v in context.invocation_metadata() or () if k == API_KEY_HEADER]
        if not values:
            return ""
        key = values[0] if isinstance(values[0], str) else values[0].decode("ascii", "replace")
        if len(values) > 1 or len(key) > MAX_API_KEY or not key.isascii():
            raise _unauthenticated(
                "BAD_API_KEY",
                f"send one {API_KEY_HEADER} of at most {MAX_API_KEY} ASCII characters",
            )
        digest = hashlib.sha256(key.encode()).hexdigest()
        for known, tenant in self._keys.items():
            if hmac.compare_digest(known, digest):
                return tenant
        raise _unauthenticated("BAD_API_KEY", "this API key belongs to no tenant")

    async def check_owner(
        self, engine: Engine, platform: Platform | None, caller: Caller, match_id: str
    ) -> None:
        """A key or ticket may touch only its own tenant's matches (and a ticket its match)."""
        if not (caller.keyed or caller.ticket):
            return
        owner = (await platform.owners.of(match_id) if platform else "") or LOCAL_TENANT
        if owner != caller.tenant:
            await engine.record(match_id)  # an unknown match is NOT_FOUND first
            raise _denied("OTHER_TENANT", "this match belongs to another tenant", match_id)
        if caller.ticket is not None and caller.ticket.match_id != match_id:
            raise _denied(
                "TICKET_FOR_ANOTHER_MATCH",
                f"the ticket is for match {caller.ticket.match_id}",
                match_id,
            )

    async def ticket_viewer(self, engine: Engine, ticket: Ticket, match_id: str) -> Viewer:
        """The viewer a verified ticket stands for in its match."""
        if ticket.scope == "spectate":
            return Viewer(None)
        if ticket.scope == "arbitrate":
            return Viewer(None, arbiter=True)
        assert ticket.seat is not None  # a play ticket names its seat (api/auth/tickets.py)
        record = await engine.record(match_id)
        if ticket.seat >= record.players:
            raise _denied(
                "NOT_A_SEAT", f"the ticket's seat {ticket.seat} is not in this match", match_id
            )
        holder = record.users[ticket.seat]
        if record.names[ticket.seat] and holder and holder != ticket.user:
            raise _denied("SEAT_OF_ANOTHER_USER", "another user holds the ticket's seat", match_id)
        return Viewer(ticket.seat)
