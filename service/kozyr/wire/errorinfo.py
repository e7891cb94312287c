"""Reading google.rpc.ErrorInfo from a failed call, for the project's own clients (the replay
exporter, the tournament's remote players) and tests; servers build it in kozyr.wire.status."""

from __future__ import annotations

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

DOMAIN = "kozyr.v1"


def error_info(call: grpc.Call | grpc.aio.AioRpcError) -> error_details_pb2.ErrorInfo | None:
    """The ErrorInfo of a failed call, None when it carries none."""
    status = rpc_status.from_call(call)  # type: ignore[arg-type]
    if status is None:
        return None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    return None
