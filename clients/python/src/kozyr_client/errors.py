"""KozyrError: a failed call as an exception carrying the server's stable reason code.

Every error the Kozyr service sends carries one google.rpc.ErrorInfo (AIP-193, domain
"kozyr.v1") whose `reason` is a stable code such as NOT_YOUR_TURN or MUST_FOLLOW_SUIT and whose
metadata holds the lowerCamelCase keys `matchId`, `seat` and `rule` (and `limit`). The reasons
are the values of the kozyr.v1.ErrorReason enum (`error_reason` gives the value). Errors of the
transport itself (server down, connection reset) carry none; their `reason` is the status code's
name ("UNAVAILABLE") and `transport` is True.
"""

from __future__ import annotations

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from kozyr._proto.kozyr.v1 import errors_pb2

DOMAIN = "kozyr.v1"


class KozyrError(Exception):
    """A refused or failed call: gRPC status code, stable reason, message and metadata."""

    def __init__(
        self,
        code: grpc.StatusCode,
        reason: str,
        message: str,
        metadata: dict[str, str] | None = None,
        *,
        transport: bool = False,
    ) -> None:
        super().__init__(f"{code.name} {reason}: {message}")
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata: dict[str, str] = dict(metadata or {})
        self.transport = transport

    @property
    def error_reason(self) -> errors_pb2.ErrorReason.ValueType:
        """The reason as a kozyr.v1.ErrorReason value (UNSPECIFIED for a transport error or a
        reason this client's stubs do not know yet)."""
        name = f"ERROR_REASON_{self.reason}"
        if self.transport or name not in errors_pb2.ErrorReason.DESCRIPTOR.values_by_name:
            return errors_pb2.ERROR_REASON_UNSPECIFIED
        return errors_pb2.ErrorReason.Value(name)

    def __repr__(self) -> str:
        return f"KozyrError({self.code.name}, {self.reason!r}, {self.message!r}, {self.metadata!r})"

    @classmethod
    def from_rpc_error(cls, error: grpc.RpcError) -> KozyrError:
        """The KozyrError of a failed call (its ErrorInfo, or the bare status for transport
        errors)."""
        code = _code(error)
        message = _details(error)
        info = error_info(error)
        if info is None:
            return cls(code, code.name, message, transport=True)
        return cls(code, str(info.reason), message, dict(info.metadata))


def error_info(error: grpc.RpcError) -> error_details_pb2.ErrorInfo | None:
    """The google.rpc.ErrorInfo a failed call carries, if any."""
    if not isinstance(error, grpc.Call):
        return None
    try:
        status = rpc_status.from_call(error)
    except ValueError:  # the status details disagree with the call's code: treat as none
        return None
    if status is None:
        return None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    return None


def status_of(code: int) -> grpc.StatusCode:
    """The grpc.StatusCode of a status's number (a refusal inside a batch or a stream carries
    the number); UNKNOWN for a number grpc does not know."""
    return _CODES.get(code, grpc.StatusCode.UNKNOWN)


_CODES = {c.value[0]: c for c in grpc.StatusCode}


def _code(error: grpc.RpcError) -> grpc.StatusCode:
    code = error.code() if isinstance(error, grpc.Call) else None
    return code if isinstance(code, grpc.StatusCode) else grpc.StatusCode.UNKNOWN


def _details(error: grpc.RpcError) -> str:
    details = error.details() if isinstance(error, grpc.Call) else None
    return details or str(error)
