"""The web port's edge: who may connect, and how long a request may take to arrive.

uvicorn has no cap on connections per client and no timeout on a request's headers or body:
one client's half-sent requests could hold every file descriptor of the process, and asyncio's
accept loop then logged a traceback per refused accept. So the web port accepts here, in a
loop of its own: a connection past `web_max_connections`, or past `web_connections_per_peer`
from its host, is closed at once (before a byte is read); a failed accept (out of descriptors)
waits a moment and tries again. Each refusal is counted in the metrics, and logged at most
once per `edge_log_interval_s` (so is uvicorn's own line per bad request). A connection's
request must then bring its headers within `web_header_timeout_s` and its body within
`web_body_timeout_s`, or the connection is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import logging
import socket
import struct
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import h11
import structlog
from uvicorn.protocols.http.h11_impl import H11Protocol

from kozyr.api.metrics import METRICS
from kozyr.config.settings import ServerConfig

BACKLOG = 2048  # uvicorn's default
ACCEPT_RETRY_S = 0.1  # after a failed accept (no descriptor free): let some close first

log = structlog.get_logger("kozyr.web")


class EdgeLog:
    """Counts of what the edge refused, logged at most once an interval."""

    def __init__(self, interval_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval_s, self.clock = interval_s, clock
        self.pending: Counter[str] = Counter()
        self.logged_at = -interval_s
        self.lines = 0

    def note(self, what: str) -> None:
        """Count one refusal (`what`: its reason); log the counts if the interval is over."""
        METRICS.web_refused.labels(reason=what).inc()
        self.pending[what] += 1
        now = self.clock()
        if now - self.logged_at >= self.interval_s:
            log.warning("web_edge_refused", **dict(sorted(self.pending.items())))
            self.pending.clear()
            self.logged_at = now
            self.lines += 1


class QuietHttpLog(logging.Filter):
    """uvicorn's own log lines (one per bad request, one per failing call) counted instead:
    a bad request is never logged alone, a failure at most once an interval, with its
    traceback; the rest are in the counts `EdgeLog` logs."""

    def __init__(self, edge: EdgeLog) -> None:
        super().__init__()
        self.edge = edge
        self.failure_logged_at = -edge.interval_s

    def filter(self, record: logging.LogRecord) -> bool:
        """Count the record; let through only the interval's first failure."""
        if record.levelno < logging.WARNING:
            return False
        if record.levelno == logging.WARNING:
            self.edge.note("bad_request")
            return False
        self.edge.note("app_error")
        now = self.edge.clock()
        if now - self.failure_logged_at < self.edge.interval_s:
            return False
        self.failure_logged_at = now
        return True


def http_logger(edge: EdgeLog) -> logging.Logger:
    """A logger of this web port's own (under "kozyr.web") for uvicorn's protocol."""
    logger = logging.Logger("kozyr.web.http", logging.WARNING)
    logger.parent = logging.getLogger("kozyr.web")
    logger.addFilter(QuietHttpLog(edge))
    return logger


class Gate:
    """The web port's open connections, in all and per client host."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.open = 0
        self.by_host: dict[str, int] = {}
        self.log = EdgeLog(config.edge_log_interval_s)
        self.http_log = http_logger(self.log)

    def admit(self, host: str) -> bool:
        """Take a slot for a new connection from `host` (False, and counted, if none is free)."""
        if self.open >= self.config.web_max_connections:
            self.log.note("max_connections")
            return False
        if self.by_host.get(host, 0) >= self.config.web_connections_per_peer:
            self.log.note("connections_per_peer")
            return False
        self.open += 1
        self.by_host[host] = self.by_host.get(host, 0) + 1
        METRICS.web_connections.set(self.open)
        return True

    def release(self, host: str) -> None:
        """Give back the slot of a closed connection."""
        self.open -= 1
        left = self.by_host.get(host, 0) - 1
        if left > 0:
            self.by_host[host] = left
        else:
            self.by_host.pop(host, None)
        METRICS.web_connections.set(self.open)


class GatedH11(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with deadlines for a request's headers and body."""

    def __init__(self, *args: Any, gate: Gate, host: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.gate, self.host = gate, host
        self.logger = gate.http_log
        self.phase = ""  # the deadline running: "header", "body", or none
        self.deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm("header")

    def connection_lost(self, exc: Exception | None) -> None:
        self._arm("")
        self.gate.release(self.host)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        state = self.conn.their_state
        if state is h11.IDLE:  # a request begun (the idle wait between two is uvicorn's)
            if not self.phase:
                self._arm("header")
        elif state is h11.SEND_BODY:
            if self.phase != "body":
                self._arm("body")
        else:  # the request is in: answering takes what it takes (a stream may be long)
            self._arm("")

    def _arm(self, phase: str) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None
        self.phase = phase
        if phase:
            seconds = (
                self.gate.config.web_header_timeout_s
                if phase == "header"
                else self.gate.config.web_body_timeout_s
            )
            self.deadline = self.loop.call_later(seconds, self._expired, phase)

    def _expired(self, phase: str) -> None:
        self.deadline = None
        if self.phase == phase and not self.transport.is_closing():
            self.gate.log.note(f"{phase}_timeout")
            self.transport.close()


class AcceptLoop:
    """Accepts the web port's connections (in place of asyncio's server; uvicorn closes it
    as one of its `servers`)."""

    def __init__(self, sock: socket.socket, protocol: Callable[[str], GatedH11], gate: Gate):
        self.sock, self.protocol, self.gate = sock, protocol, gate
        self.sockets = [sock]  # as asyncio's Server names its listening sockets
        sock.setblocking(False)
        sock.listen(BACKLOG)
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                conn, address = await loop.sock_accept(self.sock)
            except OSError as e:  # EMFILE, ENFILE, ENOBUFS, ECONNABORTED: never fatal
                self.gate.log.note(f"accept_{_errno_name(e)}")
                await asyncio.sleep(ACCEPT_RETRY_S)
                continue
            host = str(address[0])
            if not self.gate.admit(host):
                _close_now(conn)
                continue
            try:
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                await loop.connect_accepted_socket(functools.partial(self.protocol, host), conn)
            except OSError as e:
                self.gate.release(host)
                self.gate.log.note(f"accept_{_errno_name(e)}")
                conn.close()

    def close(self) -> None:
        """Stop accepting (the listening socket is the caller's to close)."""
        self.task.cancel()

    async def wait_closed(self) -> None:
        """Wait for the loop to end."""
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


def _errno_name(e: OSError) -> str:
    return errno.errorcode.get(e.errno or 0, "error").lower()


def _close_now(conn: socket.socket) -> None:
    """Close with a reset (no TIME_WAIT left behind, the peer learns at once)."""
    with contextlib.suppress(OSError):
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()
