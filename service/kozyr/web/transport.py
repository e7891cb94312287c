"""The web port: the Connect protocol (and gRPC-Web) for KozyrService, and the web application.

A thin adapter, nothing more. Each Connect call goes through the same guard (limits, rate
buckets, watcher caps, shared with the gRPC port) and the same servicer methods as a gRPC call:
`_Context` offers them the three things they read from a gRPC context (the metadata, the peer,
abort), and a refusal comes back as the same code, message and google.rpc.ErrorInfo, carried
as Connect error details. The protocol itself (Connect, gRPC-Web, JSON and binary) is the
`connectrpc` package's, on uvicorn, in the gRPC server's own event loop.

Other paths serve the built page from kozyr/web/static (files read once at start); an unknown
path is 404. Hash routes (#/m/<id>, #/replay/<id>) keep every page one file.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import grpc
import structlog
import uvicorn
from connectrpc.code import Code
from connectrpc.codec import Codec
from connectrpc.compat import google_protobuf_codecs
from connectrpc.errors import ConnectError, ErrorDetail
from connectrpc.request import RequestContext
from google.rpc import error_details_pb2, status_pb2
from protobuf.wkt import Any as AnyDetail
from protobuf.wkt import Struct

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr._proto.kozyr.v1.kozyr_connect import KozyrService, KozyrServiceASGIApplication
from kozyr.api.guard import Guard, guarded, undecodable_status
from kozyr.api.servicer import KozyrServicer
from kozyr.api.status_audit import AUDIT
from kozyr.match.errors import Kind, MatchError
from kozyr.web.gate import AcceptLoop, Gate, GatedH11
from kozyr.wire.status import to_status

STATIC = Path(__file__).resolve().parent.parent / "web" / "static"
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".json": "application/json",
    ".map": "application/json",
}
# The page talks to its own origin only and runs no inline script: a card in a name or a
# message can never become markup that calls elsewhere.
HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-cache"),
]
DETAILS_KEY = "grpc-status-details-bin"
SERVICE = pb.DESCRIPTOR.services_by_name["KozyrService"]

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


class _Aborted(grpc.aio.AbortError):
    """What `abort_with_status` raises here; an AbortError, so the servicer lets it through."""

    def __init__(self, status: grpc.Status) -> None:
        super().__init__(status.details)
        self.status = status


class _Context:
    """The part of a grpc.aio.ServicerContext the guard and the servicer use, over Connect."""

    def __init__(self, ctx: RequestContext[Any, Any]) -> None:
        self.ctx = ctx

    def invocation_metadata(self) -> list[tuple[str, str]]:
        """Every request header, as gRPC metadata (lower-case names, repeats kept): the guard
        and the tenancy read the same `authorization` and `x-api-key` as on the gRPC port."""
        return [(k.lower(), v) for k, v in self.ctx.request_headers.allitems()]

    def peer(self) -> str:
        """The client as gRPC names a peer ("ipv4:127.0.0.1:5000"), so buckets are shared."""
        address = self.ctx.client_address or ""
        return ("ipv6:" if address.count(":") > 1 else "ipv4:") + address

    async def send_initial_metadata(self, metadata: Sequence[tuple[str, str]]) -> None:
        """gRPC's initial metadata as response headers (sent before the first message)."""
        for key, value in metadata:
            self.ctx.response_headers[key] = value

    async def abort_with_status(self, status: grpc.Status) -> None:
        """Stop the call with this status (raises)."""
        raise _Aborted(status)


class ReadableDetail(ErrorDetail):
    """An error detail whose Connect JSON form also carries it decoded (the protocol's `debug`
    field) when it is an ErrorInfo, so a reader of the JSON sees the reason and rule, not only
    base64. Clients still decode `value`, the detail itself."""

    def __init__(self, detail: AnyDetail) -> None:
        super().__init__(detail)
        self._readable: Struct | None = None
        if detail.type_url.endswith("/google.rpc.ErrorInfo"):
            info = error_details_pb2.ErrorInfo.FromString(detail.value)
            self._readable = Struct.from_python(
                {"reason": info.reason, "domain": info.domain, "metadata": dict(info.metadata)}
            )

    def value(self, *args: Any) -> Any:
        """The decoded ErrorInfo (as a JSON object) for the `debug` field; else ErrorDetail's."""
        if not args and self._readable is not None:
            return self._readable
        return super().value(*args)


def connect_error(status: grpc.Status) -> ConnectError:
    """The Connect error of a gRPC status: same code, message and details (ErrorInfo...)."""
    details: list[ErrorDetail] = []
    for key, value in status.trailing_metadata or ():
        if key == DETAILS_KEY and isinstance(value, bytes):
            rich = status_pb2.Status.FromString(value)
            details = [
                ReadableDetail(AnyDetail(type_url=d.type_url, value=d.value)) for d in rich.details
            ]
    return ConnectError(Code[status.code.name], status.details or "", details)


class WebService:
    """KozyrService for connectrpc: every method is the guarded servicer method.

    The methods are made from the service descriptor (see `_bind`), so an RPC added to the
    proto is served here with no wrapper to write.
    """

    def __init__(self, servicer: KozyrServicer, guard: Guard) -> None:
        self._calls = {
            m.name: guarded(m.name, getattr(servicer, m.name), guard, streaming=m.server_streaming)
            for m in SERVICE.methods
            if not m.client_streaming
        }

    async def _unary(self, name: str, request: Any, ctx: RequestContext[Any, Any]) -> Any:
        try:
            return await self._calls[name](request, _Context(ctx))
        except _Aborted as e:
            raise connect_error(e.status) from None

    async def _stream(
        self, name: str, request: Any, ctx: RequestContext[Any, Any]
    ) -> AsyncIterator[Any]:
        """A server stream, closed as soon as the browser goes away."""
        try:
            async with contextlib.aclosing(self._calls[name](request, _Context(ctx))) as items:
                async for item in items:
                    yield item
        except _Aborted as e:
            raise connect_error(e.status) from None


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _bind(name: str, streaming: bool) -> Callable[..., Any]:
    if streaming:

        def stream(
            self: WebService, request: Any, ctx: RequestContext[Any, Any]
        ) -> AsyncIterator[Any]:
            return self._stream(name, request, ctx)

        method: Callable[..., Any] = stream
    else:

        async def unary(self: WebService, request: Any, ctx: RequestContext[Any, Any]) -> Any:
            return await self._unary(name, request, ctx)

        method = unary
    method.__name__, method.__doc__ = _snake(name), f"{name} (the guarded servicer's)."
    return method


def _grpc_only(name: str) -> Callable[..., Any]:
    async def refuse(
        self: WebService, requests: Any, ctx: RequestContext[Any, Any]
    ) -> AsyncIterator[Any]:
        message = f"{name} is served on the gRPC port only (browsers cannot stream requests)"
        status = to_status(MatchError(Kind.UNIMPLEMENTED, "GRPC_PORT_ONLY", message))
        AUDIT.check(name, status)
        raise connect_error(status)
        yield  # pragma: no cover - makes this an async generator

    refuse.__name__, refuse.__doc__ = _snake(name), f"{name}: gRPC only (UNIMPLEMENTED here)."
    return refuse


# Browsers cannot send a client stream (fetch has no full duplex): those RPCs (PlaySession)
# stay gRPC-only, and the web port answers them UNIMPLEMENTED rather than not at all.
for _m in SERVICE.methods:
    setattr(
        WebService,
        _snake(_m.name),
        _grpc_only(_m.name) if _m.client_streaming else _bind(_m.name, _m.server_streaming),
    )


class _Strict(Codec[Any, Any]):
    """A codec whose refusal is the gRPC port's: INVALID_ARGUMENT, BAD_REQUEST_BYTES, ErrorInfo,
    naming the error's type only (a hostile body is never echoed)."""

    def __init__(self, inner: Codec[Any, Any]) -> None:
        self.inner = inner

    def name(self) -> str:
        """The codec's name ("proto", "json")."""
        return self.inner.name()

    def encode(self, message: Any) -> bytes:
        """The message's bytes."""
        return self.inner.encode(message)

    def decode(self, data: bytes | bytearray, message_class: type[Any]) -> Any:
        """The request, or the gRPC port's refusal of undecodable bytes."""
        try:
            return self.inner.decode(data, message_class)
        except Exception as e:  # DecodeError, ParseError, recursion limits
            method = message_class.__name__.removesuffix("Request")
            status = undecodable_status(method, type(e).__name__)
            AUDIT.check(method, status)
            raise connect_error(status) from None


def _static_files(folder: Path) -> dict[str, tuple[bytes, bytes]]:
    """URL path -> (body, content type) of every built file; "/" is index.html."""
    files: dict[str, tuple[bytes, bytes]] = {}
    if folder.is_dir():
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            kind = TYPES.get(path.suffix, "application/octet-stream").encode()
            files["/" + path.relative_to(folder).as_posix()] = (path.read_bytes(), kind)
    if "/index.html" in files:
        files["/"] = files["/index.html"]
    return files


def web_app(
    servicer: KozyrServicer, guard: Guard, static: Path = STATIC
) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
    """The ASGI application of the web port: Connect under /kozyr.v1.KozyrService/, else files."""
    api = KozyrServiceASGIApplication(
        cast(KozyrService, WebService(servicer, guard)),
        codecs=[_Strict(c) for c in google_protobuf_codecs()],
    )
    files = _static_files(static)
    prefix = "/" + SERVICE.full_name + "/"

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith(prefix):
            await api(scope, receive, send)
            return
        if scope["type"] != "http":  # lifespan is off; a websocket is not ours
            return
        found = files.get(scope["path"]) if scope["method"] in ("GET", "HEAD") else None
        body, kind = found or (b"not found\n", b"text/plain; charset=utf-8")
        await send(
            {
                "type": "http.response.start",
                "status": 200 if found else 404,
                "headers": [(b"content-type", kind), *HEADERS],
            }
        )
        await send(
            {"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body}
        )

    return app


class _Server(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, gate: Gate) -> None:
        super().__init__(config)
        self.gate = gate

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        """Accept through the gate (web/gate.py) rather than asyncio's own server."""
        config = self.config

        def protocol(host: str) -> GatedH11:
            return GatedH11(
                config=config,
                server_state=self.server_state,
                app_state=self.lifespan.state,
                gate=self.gate,
                host=host,
            )

        self.servers = [AcceptLoop(s, protocol, self.gate) for s in sockets or []]  # type: ignore[misc]
        self.started = True

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        # `kozyr serve` owns SIGTERM/SIGINT and stops both ports in order; uvicorn's own
        # handlers would replace the loop's and swallow them.
        yield


@dataclass
class WebPort:
    """The running web port: its uvicorn server, task and bound port."""

    server: uvicorn.Server
    task: asyncio.Task[None]
    port: int

    async def stop(self) -> None:
        """Stop accepting, end open streams (the servicer's closing event ends watchers)."""
        self.server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(self.task), 10.0)
        if not self.task.done():
            self.task.cancel()


async def start_web(
    servicer: KozyrServicer,
    guard: Guard,
    host: str,
    port: int,
    static: Path = STATIC,
    *,
    reuse_port: bool = False,
) -> WebPort:
    """Serve the web port on host:port (0 picks a free port) in this event loop; with
    `reuse_port`, one of several worker processes on that port, as for gRPC."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named, not 0: asyncio sets TCP_NODELAY only on sockets that say they are TCP,
    # and without it every response written in two parts waited ~40 ms for a delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host.strip("[]"), port))
    sock.set_inheritable(True)
    config = uvicorn.Config(
        web_app(servicer, guard, static),
        lifespan="off",
        log_config=None,
        access_log=False,
        timeout_graceful_shutdown=2,
        timeout_keep_alive=guard.config.web_keepalive_s,  # type: ignore[arg-type]
    )
    server = _Server(config, Gate(guard.config))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    for _ in range(500):  # bounded: uvicorn starts in a few ms
        if server.started or task.done():
            break
        await asyncio.sleep(0.01)
    if task.done():
        task.result()  # raises what stopped it
    bound = sock.getsockname()[1]
    structlog.get_logger("kozyr.web").info("web_serving", host=host, port=bound)
    return WebPort(server, task, bound)
