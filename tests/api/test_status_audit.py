"""Every refusal carries its ErrorInfo, checked suite-wide (issue 31): `refuse`, the one way a
status leaves the service's code, counts any without exactly one ErrorInfo of a known reason,
and tests/conftest.py fails the test during which an in-process server sent one. Here: the
check catches a refusal built by hand (so the suite-wide check can fail), and real refusals of
both ports pass it."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator

import grpc
import pytest
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status
from pyqwest import SyncClient

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr._proto.kozyr.v1.kozyr_connect import KozyrServiceClientSync
from kozyr.api.status_audit import AUDIT, error_info_problem, noting_escapes, refuse
from kozyr.match.errors import Kind, MatchError
from kozyr.wire.status import to_status
from tests.conftest import ServerThread, refusals_without_error_info
from tests.web.conftest import Web


class _Bare(grpc.Status):
    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        self.code, self.details, self.trailing_metadata = code, details, ()


@pytest.fixture
def forgiven() -> Iterator[Counter[tuple[str, str, str]]]:
    """The counts before the test; what the test caused on purpose is taken off after."""
    before = Counter(AUDIT.missing)
    yield before
    AUDIT.missing = before


class _Call:
    """The one method of a call's context that `refuse` uses, as grpc.aio behaves."""

    def __init__(self) -> None:
        self.sent: grpc.Status | None = None

    async def abort_with_status(self, status: grpc.Status) -> None:
        self.sent = status
        raise grpc.aio.AbortError(status.details)


def test_a_refusal_without_error_info_is_caught(forgiven: Counter[tuple[str, str, str]]) -> None:
    call = _Call()
    bare = _Bare(grpc.StatusCode.FAILED_PRECONDITION, "no info")
    with pytest.raises(grpc.aio.AbortError):
        asyncio.run(refuse(call, "Probe", bare))
    assert call.sent is bare  # still answered
    caught = refusals_without_error_info(forgiven)
    assert caught == "Probe FAILED_PRECONDITION: no google.rpc.Status details (x1)"
    # A proper refusal passes.
    proper = to_status(MatchError(Kind.RULES, "NOT_YOUR_TURN", "wait"))
    with pytest.raises(grpc.aio.AbortError):
        asyncio.run(refuse(_Call(), "Probe", proper))
    assert refusals_without_error_info(forgiven) == caught


def test_an_exception_escaping_the_mapping_is_caught(
    forgiven: Counter[tuple[str, str, str]],
) -> None:
    with pytest.raises(KeyError), noting_escapes("Probe", _Call()):
        raise KeyError("x")
    assert refusals_without_error_info(forgiven) == (
        "Probe UNKNOWN: KeyError escaped the error mapping (x1)"
    )


def _with_infos(*reasons: str) -> grpc.Status:
    details = []
    for reason in reasons:
        detail = any_pb2.Any()
        detail.Pack(error_details_pb2.ErrorInfo(reason=reason, domain="kozyr.v1"))
        details.append(detail)
    return rpc_status.to_status(status_pb2.Status(code=9, message="m", details=details))


def test_what_the_check_accepts_and_refuses() -> None:
    assert error_info_problem(to_status(MatchError(Kind.RULES, "NOT_YOUR_TURN", "wait"))) is None
    assert error_info_problem(_with_infos("NOT_YOUR_TURN")) is None
    assert (
        error_info_problem(_Bare(grpc.StatusCode.INTERNAL, "x")) == "no google.rpc.Status details"
    )
    assert error_info_problem(_with_infos()) == "0 ErrorInfo details, not one"
    assert error_info_problem(_with_infos("NOT_YOUR_TURN", "MATCH_OVER")) == (
        "2 ErrorInfo details, not one"
    )
    assert error_info_problem(_with_infos("NOPE")) == "reason 'NOPE' is not an ErrorReason value"


def test_refusals_of_the_grpc_port_pass(server: ServerThread) -> None:
    before = Counter(AUDIT.missing)
    stub = server.stub()
    with pytest.raises(grpc.RpcError) as refused:
        stub.GetMatch(pb.GetMatchRequest(match_id="no-such-match"))
    assert refused.value.code() == grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.RpcError):
        stub.CreateMatch(pb.CreateMatchRequest(game="no-such-game"))
    assert refusals_without_error_info(before) == ""


def test_play_session_on_the_web_port_is_refused_with_its_reason(redis_url: str) -> None:
    server = ServerThread(redis_url, web_port=0)
    web = Web(server, server.running.web)
    try:
        client = KozyrServiceClientSync(web.url, http_client=SyncClient())
        with pytest.raises(ConnectError) as refused:
            list(client.play_session(iter([pb.SessionRequest()])))
    finally:
        server.stop()
    assert refused.value.code == Code.UNIMPLEMENTED
    infos = [d for d in refused.value.details if d.type_name == "google.rpc.ErrorInfo"]
    assert len(infos) == 1
