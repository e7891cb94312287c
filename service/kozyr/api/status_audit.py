"""Every refusal the server sends carries exactly one google.rpc.ErrorInfo whose reason is an
ErrorReason value (docs/api.md): checked on the way out, at the one place statuses leave the
service's code (the guard's wrappers and the RPC error mapping, for the gRPC port and the web
port alike), so a refusal built by hand that forgot its ErrorInfo is seen where it happens.

A status without one is still sent (the client gets an answer either way) but counted in
`kozyr_refusals_without_error_info` by method and code, logged at most once a minute, and kept
in `AUDIT.missing` for the test suite, which fails on any at the end of a session. Statuses the
gRPC core makes itself (a client's own deadline or cancel, a message past the size limit
before any handler runs) never pass here and are not counted.
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import grpc
import structlog
from google.rpc import error_details_pb2, status_pb2

from kozyr.api.metrics import METRICS
from kozyr.wire.status import REASONS

log = structlog.get_logger("kozyr.api")

DETAILS_KEY = "grpc-status-details-bin"
LOG_EVERY_S = 60.0


def error_info_problem(status: grpc.Status) -> str | None:
    """Why this status is not a proper refusal (None: exactly one ErrorInfo, a known reason)."""
    blobs = [v for k, v in status.trailing_metadata or () if k == DETAILS_KEY]
    if len(blobs) != 1 or not isinstance(blobs[0], bytes):
        return "no google.rpc.Status details"
    infos = [
        d
        for d in status_pb2.Status.FromString(blobs[0]).details
        if d.Is(error_details_pb2.ErrorInfo.DESCRIPTOR)
    ]
    if len(infos) != 1:
        return f"{len(infos)} ErrorInfo details, not one"
    info = error_details_pb2.ErrorInfo()
    infos[0].Unpack(info)
    if info.reason not in REASONS:
        return f"reason {info.reason!r} is not an ErrorReason value"
    return None


class StatusAudit:
    """The refusals this process sent without a proper ErrorInfo, by (method, code, why)."""

    def __init__(self) -> None:
        self.missing: Counter[tuple[str, str, str]] = Counter()
        self._logged = -LOG_EVERY_S

    def check(self, method: str, status: grpc.Status) -> None:
        """Count `status` if it lacks its ErrorInfo (what `refuse` sends)."""
        problem = error_info_problem(status)
        if problem is not None:
            self.note(method, status.code.name, problem)

    def note(self, method: str, code: str, problem: str) -> None:
        """Count one refusal without its ErrorInfo."""
        self.missing[(method, code, problem)] += 1
        METRICS.refusals_without_error_info.labels(method=method, code=code).inc()
        now = time.monotonic()
        if now - self._logged >= LOG_EVERY_S:
            self._logged = now
            log.error("refusal_without_error_info", rpc=method, code=code, problem=problem)


AUDIT = StatusAudit()


async def refuse(context: Any, method: str, status: grpc.Status) -> None:
    """End the call with `status` (raises), checking first that it carries its ErrorInfo."""
    AUDIT.check(method, status)
    await context.abort_with_status(status)


@contextlib.contextmanager
def noting_escapes(method: str, context: Any) -> Iterator[None]:
    """Count an exception that escapes a call's error mapping: gRPC would answer it UNKNOWN,
    with no ErrorInfo (a bug, like a refusal built without one). A call already over (the
    client left, the server stopped) answers nobody, so what its clean-up raises is not
    counted."""
    try:
        yield
    except grpc.aio.AbortError:
        raise
    except Exception as e:
        done = getattr(context, "done", None)
        if not (callable(done) and done()):
            AUDIT.note(method, "UNKNOWN", f"{type(e).__name__} escaped the error mapping")
        raise
