"""How an RPC call runs: its errors mapped to gRPC statuses (unary and server-streaming), and
the wait for a stream's next item that ends when the server closes.

Every engine error becomes its gRPC status with one ErrorInfo (wire/status.py); anything
unexpected becomes INTERNAL with a generic message while the traceback goes to the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import grpc
import structlog

from kozyr.api.metrics import METRICS
from kozyr.api.status_audit import refuse
from kozyr.match.errors import Kind, MatchError
from kozyr.wire.status import to_status

log = structlog.get_logger("kozyr.api")


Context = grpc.aio.ServicerContext[Any, Any]
Req = TypeVar("Req")
T = TypeVar("T")
Resp = TypeVar("Resp")


def rpc(
    method: Callable[[Any, Req, Context], Awaitable[Resp]],
) -> Callable[[Any, Req, Context], Awaitable[Resp]]:
    """Map errors of a unary RPC to statuses."""

    @functools.wraps(method)
    async def wrapper(self: Any, request: Req, context: Context) -> Resp:
        try:
            self.access.enter(method.__name__, context)
            return await method(self, request, context)
        except MatchError as e:
            METRICS.errors.labels(reason=e.code).inc()
            await refuse(context, method.__name__, to_status(e))
        except Exception:
            await refuse(context, method.__name__, internal(method.__name__))
        raise AssertionError("unreachable")  # refuse raises

    return wrapper


def internal(rpc: str) -> grpc.Status:
    log.exception("internal_error", rpc=rpc)
    METRICS.errors.labels(reason="INTERNAL").inc()
    return to_status(MatchError(Kind.INTERNAL, "INTERNAL", "internal error; it has been logged"))


def stream_rpc(
    method: Callable[[Any, Req, Context], AsyncGenerator[Resp, None]],
) -> Callable[[Any, Req, Context], AsyncGenerator[Resp, None]]:
    """Map errors of a server-streaming RPC to statuses, exactly as rpc does for unary ones."""

    @functools.wraps(method)
    async def wrapper(self: Any, request: Req, context: Context) -> AsyncGenerator[Resp, None]:
        try:
            # aclosing: when the call ends early (the client went away), close the inner
            # generator now, so its own clean-up runs in this call rather than at collection.
            self.access.enter(method.__name__, context)
            async with contextlib.aclosing(method(self, request, context)) as stream:
                async for item in stream:
                    yield item
        except grpc.aio.AbortError:
            raise
        except MatchError as e:
            METRICS.errors.labels(reason=e.code).inc()
            await refuse(context, method.__name__, to_status(e))
        except Exception:
            await refuse(context, method.__name__, internal(method.__name__))

    return wrapper


async def next_update(updates: AsyncIterator[T], closing_event: asyncio.Event) -> T | None:
    """The next item of a stream; None once the stream ends or the server is closing."""
    step = asyncio.ensure_future(anext(updates))
    closing = asyncio.ensure_future(closing_event.wait())
    try:
        await asyncio.wait({step, closing}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        closing.cancel()
        if not step.done():
            # The server is closing, or the caller went away while we waited: stop that
            # wait too, and let it finish, or the generator cannot be closed while it runs.
            step.cancel()
            await asyncio.wait({step})
        # Read the step's outcome whatever happens next. When the caller cancelled just as
        # the match ended, the step held a StopAsyncIteration nobody read, which asyncio
        # printed as "Task exception was never retrieved" after every such match.
        failure = None if step.cancelled() else step.exception()
    if step.cancelled() or isinstance(failure, StopAsyncIteration):
        return None
    if failure is not None:
        raise failure
    return step.result()
