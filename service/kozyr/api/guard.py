"""The service's edge: every call passes here before the servicer sees it.

grpc-python decodes a request before any handler runs, and a DecodeError there leaves the
server as UNKNOWN with no details; so the service is registered through a generic handler built
here from the servicer, whose deserializers never raise (an undecodable request becomes a
marker, refused as INVALID_ARGUMENT with ErrorInfo). Then, in order, before anything is logged,
stored or echoed: the authorization header's shape (one value, printable ASCII, bounded), the
request's ids and numbers against match/limits.py, the rate limits (token buckets per token and
per client host, matches created per host), and for WatchMatch the watcher caps. A refused call
changes nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import grpc
from google.protobuf.message import Message

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.api.metrics import METRICS
from kozyr.api.status_audit import noting_escapes, refuse
from kozyr.config.settings import ServerConfig
from kozyr.match import limits
from kozyr.match.errors import Kind, MatchError, bad_request
from kozyr.wire.status import exhausted, to_status

SERVICE = pb.DESCRIPTOR.services_by_name["KozyrService"]
# "Bearer " and a seat ticket (a JWT: api/auth/tickets.py MAX_TICKET); seat tokens are 128 at most.
MAX_AUTHORIZATION = 4096 + 16
MAX_VERSION = 2**31 - 1  # no match ever gets near it; beyond it a number is an attack or a bug
MAX_SEATS = 64  # above any game's player count
MAX_BUCKETS = 100_000  # keys remembered per bucket family (least recently used go first)

# The numeric fields of the requests: (lowest, highest, reason when out of range).
RANGES: dict[str, tuple[int, int, str]] = {
    "seat": (0, MAX_SEATS - 1, "NOT_A_SEAT"),
    "as_seat": (0, MAX_SEATS - 1, "NOT_A_SEAT"),
    "first_dealer": (0, MAX_SEATS - 1, "NOT_A_SEAT"),
    "from_version": (0, MAX_VERSION, "NO_SUCH_VERSION"),
    "version": (0, MAX_VERSION, "NO_SUCH_VERSION"),
    "expected_version": (1, MAX_VERSION, "BAD_EXPECTED_VERSION"),
}
# The repeated fields of the requests, how many items each may hold, and the reason beyond it
# (the one the lifecycle gives for the same excess, so a client sees one code either way).
COUNTS: dict[str, tuple[int, str]] = {
    "seats": (MAX_SEATS, "BAD_PLAYER_COUNT"),
    "prearranged_decks": (limits.MAX_PREARRANGED, "TOO_MANY_PREARRANGED"),
    "prearranged_dice": (limits.MAX_PREARRANGED, "TOO_MANY_PREARRANGED"),
    "options": (limits.MAX_OPTIONS, "FIELD_TOO_LONG"),
    "matches": (limits.MAX_BATCH, "TOO_MANY_IN_BATCH"),
}


class Undecodable:
    """What a deserializer returns for bytes that are not the request message."""

    def __init__(self, why: str) -> None:
        self.why = why


def _deserializer(cls: type[Message]) -> Callable[[bytes], Any]:
    def decode(data: bytes) -> Any:
        try:
            return cls.FromString(data)
        except Exception as e:  # DecodeError, and recursion limits of deep nesting
            return Undecodable(type(e).__name__)

    return decode


class TokenBucket:
    """`rate` tokens a second up to `burst`; take() answers 0 or the seconds until one."""

    __slots__ = ("burst", "level", "rate", "stamp")

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate, self.burst, self.level, self.stamp = rate, float(burst), float(burst), now

    def take(self, now: float, count: int = 1) -> float:
        """Take `count` tokens if there are (0.0), else the wait until there are (none taken;
        more than the burst never are: the wait is for the burst)."""
        self.level = min(self.burst, self.level + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.level >= count:
            self.level -= count
            return 0.0
        return (min(count, self.burst) - self.level) / self.rate


class Buckets:
    """A token bucket per key, the least recently used forgotten past MAX_BUCKETS keys."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float]) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def take(self, key: str, count: int = 1) -> float:
        """0.0 when `key` may go on (with `count` tokens), else the seconds to wait."""
        now = self.clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst, now)
            if len(self._buckets) > MAX_BUCKETS:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        return bucket.take(now, count)


def peer_host(peer: str) -> str:
    """The client's host from a gRPC peer ("ipv4:10.0.0.1:5000" -> "ipv4:10.0.0.1")."""
    if peer.startswith(("ipv4:", "ipv6:")):
        return peer.rsplit(":", 1)[0]
    return peer


def bearer_values(context: grpc.aio.ServicerContext[Any, Any]) -> list[str]:
    """The authorization header's values, refused unless at most one of a sane shape."""
    values = [v for k, v in context.invocation_metadata() or () if k == "authorization"]
    if len(values) > 1:
        raise MatchError(
            Kind.UNAUTHENTICATED,
            "DUPLICATE_AUTHORIZATION",
            "send one authorization header, not several",
        )
    for value in values:
        text = value.decode("ascii", "replace") if isinstance(value, bytes) else str(value)
        if (
            len(text) > MAX_AUTHORIZATION
            or not text.isascii()
            or not text.isprintable()
            or (isinstance(value, bytes) and not value.isascii())
        ):
            raise MatchError(
                Kind.UNAUTHENTICATED,
                "MALFORMED_TOKEN",
                "send the token as 'authorization: Bearer <token>' in ASCII",
            )
    return [v.decode() if isinstance(v, bytes) else str(v) for v in values]


def check_request(request: Message) -> None:
    """The request's match id, numbers and list lengths against the limits; INVALID_ARGUMENT."""
    for field, value in request.ListFields():
        name = field.name
        if name == "match_id":
            limits.check_match_id(value)
        elif name in RANGES:
            low, high, reason = RANGES[name]
            if not low <= value <= high:
                raise bad_request(reason, f"{name} must be {low}..{high}")
        elif name in COUNTS and len(value) > COUNTS[name][0]:
            most, reason = COUNTS[name]
            raise bad_request(reason, f"{name} may hold at most {most} items")


class Guard:
    """The limits of one server: rate buckets and watcher counts (one event loop's state)."""

    def __init__(self, config: ServerConfig, clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.per_token = Buckets(config.rate_per_token, config.burst_per_token, clock)
        self.per_peer = Buckets(config.rate_per_peer, config.burst_per_peer, clock)
        self.creations = Buckets(config.matches_per_minute / 60.0, config.matches_per_minute, clock)
        self.calls_by_connection: dict[str, int] = {}  # calls in flight per peer (host:port)
        self.connections_by_host: dict[str, int] = {}  # peers with a call in flight, per host
        self.watchers_by_match: dict[str, int] = {}
        self.watchers_by_peer: dict[str, int] = {}
        self.watchers = 0

    def admit(
        self, method: str, request: Message, context: grpc.aio.ServicerContext[Any, Any]
    ) -> grpc.Status | None:
        """None if the call may go on, else the status that refuses it."""
        try:
            tokens = bearer_values(context)
            check_request(request)
        except MatchError as e:
            return to_status(e)
        host = peer_host(context.peer() or "")
        if tokens:
            key = hashlib.sha256(tokens[0].encode()).hexdigest()
            wait = self.per_token.take(key)
            if wait:
                return exhausted("RATE_LIMITED", "token", "too many requests with this token", wait)
        wait = self.per_peer.take(host)
        if wait:
            return exhausted("RATE_LIMITED", "peer", "too many requests from this client", wait)
        if method in ("CreateMatch", "CreateMatches"):  # a batch counts each of its matches
            wait = self.creations.take(host, len(getattr(request, "matches", ())) or 1)
            if wait:
                return exhausted(
                    "TOO_MANY_MATCHES",
                    "matches_per_minute",
                    f"at most {self.config.matches_per_minute} new matches a "
                    "minute from one client",
                    wait,
                )
        return None

    @contextlib.contextmanager
    def connection(self, peer: str) -> Iterator[grpc.Status | None]:
        """Count a call on its connection for the block (yields the refusal instead when the
        call's host already has `grpc_connections_per_peer` other connections with calls in
        flight). grpc.aio tells of a connection only through its calls, so a connection is
        counted while it has one; see docs/security.md."""
        host = peer_host(peer)
        calls = self.calls_by_connection.get(peer, 0)
        cap = self.config.grpc_connections_per_peer
        if not calls and self.connections_by_host.get(host, 0) >= cap:
            METRICS.grpc_refused.inc()
            yield exhausted(
                "TOO_MANY_CONNECTIONS",
                "grpc_connections_per_peer",
                f"this client host has calls in flight on {cap} connections already",
                1.0,
            )
            return
        self.calls_by_connection[peer] = calls + 1
        if not calls:
            _add(self.connections_by_host, host, 1)
        try:
            yield None
        finally:
            left = self.calls_by_connection.pop(peer) - 1
            if left:
                self.calls_by_connection[peer] = left
            else:
                _add(self.connections_by_host, host, -1)

    @contextlib.contextmanager
    def watching(self, match_id: str, peer: str) -> Iterator[grpc.Status | None]:
        """Hold a watcher slot for the block (yields the refusal instead when none is free)."""
        config = self.config
        refusal = None
        if self.watchers >= config.max_watchers:
            refusal = ("max_watchers", f"the server has {config.max_watchers} watchers")
        elif self.watchers_by_match.get(match_id, 0) >= config.watchers_per_match:
            refusal = (
                "watchers_per_match",
                f"the match has {config.watchers_per_match} watchers already",
            )
        elif self.watchers_by_peer.get(peer, 0) >= config.watchers_per_peer:
            refusal = (
                "watchers_per_peer",
                f"this connection watches {config.watchers_per_peer} matches already",
            )
        if refusal is not None:
            yield exhausted("TOO_MANY_WATCHERS", refusal[0], refusal[1], 1.0)
            return
        self.watchers += 1
        _add(self.watchers_by_match, match_id, 1)
        _add(self.watchers_by_peer, peer, 1)
        try:
            yield None
        finally:
            self.watchers -= 1
            _add(self.watchers_by_match, match_id, -1)
            _add(self.watchers_by_peer, peer, -1)


def _add(counts: dict[str, int], key: str, delta: int) -> None:
    value = counts.get(key, 0) + delta
    if value > 0:
        counts[key] = value
    else:
        counts.pop(key, None)


def undecodable_status(method: str, why: str) -> grpc.Status:
    """INVALID_ARGUMENT for request bytes that are not the method's request message."""
    return to_status(
        MatchError(
            Kind.BAD_REQUEST,
            "BAD_REQUEST_BYTES",
            f"the request is not a valid {method} request ({why})",
        )
    )


def guarded_handler(servicer: Any, guard: Guard) -> grpc.GenericRpcHandler:
    """The service's generic handler: the servicer's methods behind the guard."""
    handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}
    for method in SERVICE.methods:
        request_cls = pb.__dict__[method.input_type.name]
        response_cls = pb.__dict__[method.output_type.name]
        behaviour = getattr(servicer, method.name)
        if method.client_streaming:  # PlaySession: each message is checked by the session
            handlers[method.name] = grpc.stream_stream_rpc_method_handler(
                _guard_session(method.name, behaviour, guard),
                request_deserializer=_deserializer(request_cls),
                response_serializer=response_cls.SerializeToString,
            )
        elif method.server_streaming:
            handlers[method.name] = grpc.unary_stream_rpc_method_handler(
                _guard_stream(method.name, behaviour, guard),
                request_deserializer=_deserializer(request_cls),
                response_serializer=response_cls.SerializeToString,
            )
        else:
            handlers[method.name] = grpc.unary_unary_rpc_method_handler(
                _guard_unary(method.name, behaviour, guard),
                request_deserializer=_deserializer(request_cls),
                response_serializer=response_cls.SerializeToString,
            )
    return grpc.method_handlers_generic_handler(SERVICE.full_name, handlers)


def guarded(
    name: str, behaviour: Callable[..., Any], guard: Guard, *, streaming: bool
) -> Callable[..., Any]:
    """One servicer method behind the guard, for another transport (the web port) to call."""
    return (_guard_stream if streaming else _guard_unary)(name, behaviour, guard)


async def _admit(
    name: str, request: Any, context: grpc.aio.ServicerContext[Any, Any], guard: Guard
) -> None:
    """Refuse (raises) a request whose bytes did not decode, or that the guard refuses."""
    if isinstance(request, Undecodable):
        await refuse(context, name, undecodable_status(name, request.why))
    refusal = guard.admit(name, request, context)
    if refusal is not None:
        await refuse(context, name, refusal)


def _guard_unary(name: str, behaviour: Callable[..., Any], guard: Guard) -> Callable[..., Any]:
    async def unary(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        with noting_escapes(name, context):
            await _admit(name, request, context, guard)
            with guard.connection(context.peer() or "") as crowded:
                if crowded is not None:
                    await refuse(context, name, crowded)
                return await behaviour(request, context)

    return unary


def _guard_stream(
    name: str, behaviour: Callable[..., Any], guard: Guard
) -> Callable[..., AsyncIterator[Any]]:
    async def stream(
        request: Any, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[Any]:
        with noting_escapes(name, context):
            await _admit(name, request, context, guard)
            # A feed (WatchEvents) counts as a watcher of the pseudo-match "feed".
            watched = getattr(request, "match_id", "") or "feed"
            peer = context.peer() or ""
            with guard.connection(peer) as crowded, guard.watching(watched, peer) as full:
                if crowded is not None or full is not None:
                    await refuse(context, name, crowded or full)  # type: ignore[arg-type]
                async with contextlib.aclosing(behaviour(request, context)) as updates:
                    async for item in updates:
                        yield item

    return stream


def _guard_session(
    name: str, behaviour: Callable[..., Any], guard: Guard
) -> Callable[..., AsyncIterator[Any]]:
    async def session(
        requests: AsyncIterator[Any], context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[Any]:
        with noting_escapes(name, context):
            refusal = guard.admit(name, pb.SessionRequest(), context)  # the header, the rates
            if refusal is not None:
                await refuse(context, name, refusal)
            with guard.connection(context.peer() or "") as crowded:
                if crowded is not None:
                    await refuse(context, name, crowded)
                async with contextlib.aclosing(behaviour(requests, context)) as pushes:
                    async for push in pushes:
                        yield push

    return session
