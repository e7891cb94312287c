"""The one table that maps engine errors to gRPC statuses, with google.rpc.ErrorInfo details.

Every error carries exactly one ErrorInfo (AIP-193): `reason` is the stable code, `domain` is
"kozyr.v1", and `metadata` holds `match_id`, `seat` and `rule` (the rule ID of docs/rules.md
behind a refused move or option) where known.
"""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from kozyr.errorinfo import DOMAIN, error_info
from kozyr.match.errors import Kind, MatchError

__all__ = ["DOMAIN", "STATUS", "error_info", "to_status"]


STATUS: dict[Kind, grpc.StatusCode] = {
    Kind.BAD_REQUEST: grpc.StatusCode.INVALID_ARGUMENT,
    Kind.RULES: grpc.StatusCode.FAILED_PRECONDITION,
    Kind.NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    Kind.UNAUTHENTICATED: grpc.StatusCode.UNAUTHENTICATED,
    Kind.FORBIDDEN: grpc.StatusCode.PERMISSION_DENIED,
    Kind.CONFLICT: grpc.StatusCode.ABORTED,
    Kind.UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
    Kind.EXHAUSTED: grpc.StatusCode.RESOURCE_EXHAUSTED,
    Kind.EXISTS: grpc.StatusCode.ALREADY_EXISTS,
    Kind.INTERNAL: grpc.StatusCode.INTERNAL,
}


def to_status(error: MatchError) -> grpc.Status:
    """The rich gRPC status for an engine error."""
    code = STATUS[error.kind]
    info = error_details_pb2.ErrorInfo(reason=error.code, domain=DOMAIN)
    if error.match_id:
        info.metadata["match_id"] = error.match_id
    if error.seat is not None:
        info.metadata["seat"] = str(error.seat)
    if error.rule:
        info.metadata["rule"] = error.rule
    detail = any_pb2.Any()
    detail.Pack(info)
    status = status_pb2.Status(
        code=getattr(code_pb2, code.name), message=error.message, details=[detail]
    )
    return rpc_status.to_status(status)
