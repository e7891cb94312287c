"""The one table that maps engine errors to gRPC statuses, with google.rpc.ErrorInfo details.

Every error carries exactly one ErrorInfo (AIP-193): `reason` is the stable code, the name of a
kozyr.v1.ErrorReason value without its prefix, `domain` is "kozyr.v1", and `metadata` holds the
lowerCamelCase keys `matchId`, `seat` and `rule` (the rule ID of docs/rules.md behind a refused
move or option) where known, and `limit` on RESOURCE_EXHAUSTED.
"""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from kozyr._proto.kozyr.v1 import errors_pb2
from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.match.errors import Kind, MatchError
from kozyr.match.limits import MATCH_ID
from kozyr.wire.errorinfo import DOMAIN, error_info

# An error message is ours, but may quote a bounded piece of the request: cap it anyway.
MAX_MESSAGE = 1024

__all__ = [
    "DOMAIN",
    "REASONS",
    "STATUS",
    "bounded",
    "error_info",
    "exhausted",
    "reason_name",
    "refusal",
    "to_status",
]

PREFIX = "ERROR_REASON_"
# Every reason the wire may carry: the ErrorReason values' names without the prefix (AIP-193).
REASONS = frozenset(
    name.removeprefix(PREFIX)
    for name in errors_pb2.ErrorReason.DESCRIPTOR.values_by_name
    if name != "ERROR_REASON_UNSPECIFIED"
)


def reason_name(code: str) -> str:
    """ErrorInfo.reason for an engine code: its ErrorReason value's bare name. A code missing
    from the enum (tests/wire/test_reasons.py keeps there being none) goes out as INTERNAL."""
    return code if code in REASONS else "INTERNAL"


STATUS: dict[Kind, grpc.StatusCode] = {
    Kind.BAD_REQUEST: grpc.StatusCode.INVALID_ARGUMENT,
    Kind.RULES: grpc.StatusCode.FAILED_PRECONDITION,
    Kind.NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    Kind.UNAUTHENTICATED: grpc.StatusCode.UNAUTHENTICATED,
    Kind.FORBIDDEN: grpc.StatusCode.PERMISSION_DENIED,
    Kind.CONFLICT: grpc.StatusCode.ABORTED,
    Kind.PRECONDITION: grpc.StatusCode.FAILED_PRECONDITION,
    Kind.UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
    Kind.EXHAUSTED: grpc.StatusCode.RESOURCE_EXHAUSTED,
    Kind.EXISTS: grpc.StatusCode.ALREADY_EXISTS,
    Kind.UNIMPLEMENTED: grpc.StatusCode.UNIMPLEMENTED,
    Kind.INTERNAL: grpc.StatusCode.INTERNAL,
}


def _info(error: MatchError) -> error_details_pb2.ErrorInfo:
    info = error_details_pb2.ErrorInfo(reason=reason_name(error.code), domain=DOMAIN)
    if error.match_id and MATCH_ID.fullmatch(error.match_id):  # never echo a hostile id
        info.metadata["matchId"] = error.match_id
    if error.seat is not None:
        info.metadata["seat"] = str(error.seat)
    if error.rule:
        info.metadata["rule"] = error.rule
    return info


def refusal(error: MatchError) -> pb.Refusal:
    """One refused item of a batch: what to_status would say of it as a call of its own."""
    info = _info(error)
    return pb.Refusal(
        code=getattr(code_pb2, STATUS[error.kind].name),
        reason=info.reason,
        message=bounded(error.message, MAX_MESSAGE),
        metadata=dict(info.metadata),
    )


def to_status(error: MatchError) -> grpc.Status:
    """The rich gRPC status for an engine error."""
    code = STATUS[error.kind]
    info = _info(error)
    detail = any_pb2.Any()
    detail.Pack(info)
    status = status_pb2.Status(
        code=getattr(code_pb2, code.name),
        message=bounded(error.message, MAX_MESSAGE),
        details=[detail],
    )
    return rpc_status.to_status(status)


# Longest text of a request that may reach an error message, its metadata or a log line whole.
MAX_ECHO = 64


def bounded(text: object, limit: int = MAX_ECHO) -> str:
    """`text` cut to `limit` characters (with its full length), safe to log or echo."""
    value = str(text)
    return value if len(value) <= limit else f"{value[:limit]}…({len(value)} chars)"


def exhausted(reason: str, subject: str, description: str, retry_after_s: float) -> grpc.Status:
    """RESOURCE_EXHAUSTED with ErrorInfo, google.rpc.QuotaFailure and RetryInfo details."""
    info = error_details_pb2.ErrorInfo(reason=reason_name(reason), domain=DOMAIN)
    info.metadata["limit"] = subject
    quota = error_details_pb2.QuotaFailure(
        violations=[
            error_details_pb2.QuotaFailure.Violation(subject=subject, description=description)
        ]
    )
    retry = error_details_pb2.RetryInfo()
    retry.retry_delay.FromNanoseconds(int(max(retry_after_s, 0.001) * 1e9))
    details = []
    for message in (info, quota, retry):
        detail = any_pb2.Any()
        detail.Pack(message)
        details.append(detail)
    status = status_pb2.Status(
        code=code_pb2.RESOURCE_EXHAUSTED,
        message=f"{description}; retry in {retry_after_s:.3g} s",
        details=details,
    )
    return rpc_status.to_status(status)
