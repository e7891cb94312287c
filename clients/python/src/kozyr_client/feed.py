"""A tenant's feed of lifecycle events (WatchEvents): match.created, match.ended, …

`KozyrClient.feed()` opens it and returns once the server has said where it starts (the
`kozyr-feed-cursor` initial metadata), so nothing that happens after the call is missed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import grpc

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc
from kozyr_client.errors import KozyrError

FEED_CURSOR = "kozyr-feed-cursor"  # WatchEvents' initial metadata: the cursor it starts after


class Feed:
    """An open WatchEvents stream: iterate its TenantEvents; `start` is where it began."""

    def __init__(self, call: Any, start: str) -> None:
        self._call = call
        self.start = start

    def __iter__(self) -> Iterator[pb.TenantEvent]:
        try:
            yield from self._call
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.CANCELLED:
                raise KozyrError.from_rpc_error(e) from None

    def close(self) -> None:
        """End the stream."""
        self._call.cancel()

    def __enter__(self) -> Feed:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def open_feed(
    stub: kozyr_pb2_grpc.KozyrServiceStub, from_cursor: str, types: Sequence[str]
) -> Feed:
    """Open WatchEvents and wait for the cursor it starts after (KozyrError if it failed)."""
    call = stub.WatchEvents(pb.WatchEventsRequest(from_cursor=from_cursor, types=list(types)))
    try:
        start = dict(call.initial_metadata()).get(FEED_CURSOR, "")
    except grpc.RpcError as e:
        raise KozyrError.from_rpc_error(e) from None
    if not start:  # the call failed before its headers: its status says why
        try:
            next(iter(call))
        except grpc.RpcError as e:
            raise KozyrError.from_rpc_error(e) from None
    return Feed(call, str(start))
