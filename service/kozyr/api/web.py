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
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import structlog
import uvicorn
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.request import RequestContext
from google.rpc import status_pb2
from protobuf.wkt import Any as AnyDetail

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr._proto.kozyr.v1.kozyr_connect import KozyrServiceASGIApplication
from kozyr.api.guard import Guard, guarded
from kozyr.api.servicer import KozyrServicer

STATIC = Path(__file__).resolve().parent.parent / "web" / "static"
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
         ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml", ".png": "image/png",
         ".json": "application/json", ".map": "application/json"}
# The page talks to its own origin only and runs no inline script: a card in a name or a
# message can never become markup that calls elsewhere.
HEADERS = [(b"content-security-policy",
            b"default-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'"),
           (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
           (b"cache-control", b"no-cache")]
DETAILS_KEY = "grpc-status-details-bin"

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
        """The authorization headers (all of them: the guard refuses more than one)."""
        return [("authorization", v) for v in self.ctx.request_headers.getall("authorization")]

    def peer(self) -> str:
        """The client as gRPC names a peer ("ipv4:127.0.0.1:5000"), so buckets are shared."""
        address = self.ctx.client_address or ""
        return ("ipv6:" if address.count(":") > 1 else "ipv4:") + address

    async def abort_with_status(self, status: grpc.Status) -> None:
        """Stop the call with this status (raises)."""
        raise _Aborted(status)


def connect_error(status: grpc.Status) -> ConnectError:
    """The Connect error of a gRPC status: same code, message and details (ErrorInfo...)."""
    details: list[AnyDetail] = []
    for key, value in status.trailing_metadata or ():
        if key == DETAILS_KEY and isinstance(value, bytes):
            rich = status_pb2.Status.FromString(value)
            details = [AnyDetail(type_url=d.type_url, value=d.value) for d in rich.details]
    return ConnectError(Code[status.code.name], status.details or "", details)


class WebService:
    """KozyrService for connectrpc: every method is the guarded servicer method."""

    def __init__(self, servicer: KozyrServicer, guard: Guard) -> None:
        self._calls = {m.name: guarded(m.name, getattr(servicer, m.name), guard,
                                       streaming=m.server_streaming)
                       for m in pb.DESCRIPTOR.services_by_name["KozyrService"].methods}

    async def _unary(self, name: str, request: Any, ctx: RequestContext[Any, Any]) -> Any:
        try:
            return await self._calls[name](request, _Context(ctx))
        except _Aborted as e:
            raise connect_error(e.status) from None

    async def list_games(self, request: pb.ListGamesRequest,
                         ctx: RequestContext[Any, Any]) -> pb.ListGamesResponse:
        """ListGames."""
        return await self._unary("ListGames", request, ctx)  # type: ignore[no-any-return]

    async def create_match(self, request: pb.CreateMatchRequest,
                           ctx: RequestContext[Any, Any]) -> pb.CreateMatchResponse:
        """CreateMatch."""
        return await self._unary("CreateMatch", request, ctx)  # type: ignore[no-any-return]

    async def join_match(self, request: pb.JoinMatchRequest,
                         ctx: RequestContext[Any, Any]) -> pb.JoinMatchResponse:
        """JoinMatch."""
        return await self._unary("JoinMatch", request, ctx)  # type: ignore[no-any-return]

    async def get_match(self, request: pb.GetMatchRequest,
                        ctx: RequestContext[Any, Any]) -> pb.GetMatchResponse:
        """GetMatch."""
        return await self._unary("GetMatch", request, ctx)  # type: ignore[no-any-return]

    async def list_legal_moves(self, request: pb.ListLegalMovesRequest,
                               ctx: RequestContext[Any, Any]) -> pb.ListLegalMovesResponse:
        """ListLegalMoves."""
        return await self._unary("ListLegalMoves", request, ctx)  # type: ignore[no-any-return]

    async def submit_move(self, request: pb.SubmitMoveRequest,
                          ctx: RequestContext[Any, Any]) -> pb.SubmitMoveResponse:
        """SubmitMove."""
        return await self._unary("SubmitMove", request, ctx)  # type: ignore[no-any-return]

    async def get_match_log(self, request: pb.GetMatchLogRequest,
                            ctx: RequestContext[Any, Any]) -> pb.GetMatchLogResponse:
        """GetMatchLog."""
        return await self._unary("GetMatchLog", request, ctx)  # type: ignore[no-any-return]

    async def replay_match(self, request: pb.ReplayMatchRequest,
                           ctx: RequestContext[Any, Any]) -> pb.ReplayMatchResponse:
        """ReplayMatch."""
        return await self._unary("ReplayMatch", request, ctx)  # type: ignore[no-any-return]

    async def inspect_replay(self, request: pb.InspectReplayRequest,
                             ctx: RequestContext[Any, Any]) -> pb.InspectReplayResponse:
        """InspectReplay."""
        return await self._unary("InspectReplay", request, ctx)  # type: ignore[no-any-return]

    async def get_signing_keys(self, request: pb.GetSigningKeysRequest,
                               ctx: RequestContext[Any, Any]) -> pb.GetSigningKeysResponse:
        """GetSigningKeys."""
        return await self._unary("GetSigningKeys", request, ctx)  # type: ignore[no-any-return]

    async def play_session(self, request: AsyncIterator[pb.SessionRequest],
                           ctx: RequestContext[Any, Any]) -> AsyncIterator[pb.SessionPushes]:
        """PlaySession is for bots on the gRPC port: browsers cannot hold a bidirectional
        stream over Connect, so the web port says so (UNIMPLEMENTED) instead of hanging."""
        raise ConnectError(Code.UNIMPLEMENTED, "PlaySession is served on the gRPC port only")
        yield pb.SessionPushes()  # pragma: no cover - makes this an async generator

    async def watch_match(self, request: pb.WatchMatchRequest,
                          ctx: RequestContext[Any, Any]) -> AsyncIterator[pb.MatchUpdate]:
        """WatchMatch: the servicer's stream, closed as soon as the browser goes away."""
        try:
            async with contextlib.aclosing(self._calls["WatchMatch"](request, _Context(ctx))
                                           ) as updates:
                async for update in updates:
                    yield update
        except _Aborted as e:
            raise connect_error(e.status) from None


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


def web_app(servicer: KozyrServicer, guard: Guard, static: Path = STATIC
            ) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
    """The ASGI application of the web port: Connect under /kozyr.v1.KozyrService/, else files."""
    api = KozyrServiceASGIApplication(WebService(servicer, guard))
    files = _static_files(static)
    prefix = "/" + pb.DESCRIPTOR.services_by_name["KozyrService"].full_name + "/"

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith(prefix):
            await api(scope, receive, send)
            return
        if scope["type"] != "http":  # lifespan is off; a websocket is not ours
            return
        found = files.get(scope["path"]) if scope["method"] in ("GET", "HEAD") else None
        body, kind = found or (b"not found\n", b"text/plain; charset=utf-8")
        await send({"type": "http.response.start", "status": 200 if found else 404,
                    "headers": [(b"content-type", kind), *HEADERS]})
        await send({"type": "http.response.body",
                    "body": b"" if scope["method"] == "HEAD" else body})

    return app


class _Server(uvicorn.Server):
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


async def start_web(servicer: KozyrServicer, guard: Guard, host: str, port: int,
                    static: Path = STATIC, *, reuse_port: bool = False) -> WebPort:
    """Serve the web port on host:port (0 picks a free port) in this event loop; with
    `reuse_port`, one of several worker processes on that port, as for gRPC."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host.strip("[]"), port))
    sock.set_inheritable(True)
    config = uvicorn.Config(web_app(servicer, guard, static), lifespan="off", log_config=None,
                            access_log=False, timeout_graceful_shutdown=2)
    server = _Server(config)
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
