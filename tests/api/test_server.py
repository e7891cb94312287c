"""The server as generic gRPC tooling sees it: health, reflection, graceful stop, stream errors."""

from __future__ import annotations

import time
import uuid

import grpc
import pytest
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.match.log import entry_hash
from kozyr.store.redis.streams import log_key
from tests.api.helpers import Watcher, create, reason
from tests.conftest import ServerThread


def test_health_check_reports_serving(server: ServerThread) -> None:
    stub = health_pb2_grpc.HealthStub(grpc.insecure_channel(server.address))
    for service in ("", "kozyr.v1.KozyrService"):
        answer = stub.Check(health_pb2.HealthCheckRequest(service=service))
        assert answer.status == health_pb2.HealthCheckResponse.SERVING


def test_reflection_lists_the_service_and_describes_it(server: ServerThread) -> None:
    stub = reflection_pb2_grpc.ServerReflectionStub(grpc.insecure_channel(server.address))
    requests = [
        reflection_pb2.ServerReflectionRequest(list_services=""),
        reflection_pb2.ServerReflectionRequest(file_containing_symbol="kozyr.v1.KozyrService"),
    ]
    answers = list(stub.ServerReflectionInfo(iter(requests)))
    names = {s.name for s in answers[0].list_services_response.service}
    assert {"kozyr.v1.KozyrService", "grpc.health.v1.Health"} <= names
    assert answers[1].file_descriptor_response.file_descriptor_proto


def test_graceful_stop_ends_open_watchers(redis_url: str) -> None:
    server = ServerThread(redis_url)
    stub = server.stub()
    match_id, _ = create(stub, "dix")
    watcher = Watcher(server.stub(), match_id, None)
    version = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).view.version
    deadline = time.monotonic() + 60  # a bound for a hang, not a timing: it returns when due
    while len(watcher.updates) < version:
        assert time.monotonic() < deadline and watcher.error is None, watcher.error
        time.sleep(0.01)  # wait until the watcher is open and caught up
    server.stop(grace=5)
    watcher.join(10)
    assert not watcher.is_alive(), "a watcher must not hold the server open"
    assert [u.version for u in watcher.updates] == list(range(1, version + 1))


def watch_error(server: ServerThread, match_id: str, from_version: int = 0) -> grpc.RpcError:
    """Read a whole WatchMatch stream that must fail; its error."""
    with pytest.raises(grpc.RpcError) as info:
        for _ in server.stub().WatchMatch(
            pb.WatchMatchRequest(match_id=match_id, from_version=from_version), timeout=30
        ):
            pass
    return info.value


def test_a_stream_refuses_with_the_same_status_and_error_info_as_unary_calls(
    server: ServerThread,
) -> None:
    stub = server.stub()
    unknown = uuid.uuid4().hex
    with pytest.raises(grpc.RpcError) as unary:
        stub.GetMatch(pb.GetMatchRequest(match_id=unknown))
    streamed = watch_error(server, unknown)
    assert streamed.code() == unary.value.code() == grpc.StatusCode.NOT_FOUND
    assert reason(streamed) == reason(unary.value) == "MATCH_NOT_FOUND"
    match_id, _ = create(stub, "dix")
    too_far = watch_error(server, match_id, from_version=10**6)
    assert too_far.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason(too_far) == "NO_SUCH_VERSION"


def test_an_unexpected_failure_in_a_stream_is_internal_with_error_info_never_unknown(
    server: ServerThread, redis_client: redis.Redis
) -> None:
    """A damaged entry (not JSON) after the first: the stream fails as INTERNAL with an
    ErrorInfo and a generic message, not UNKNOWN with the exception's text."""
    match_id, _ = create(server.stub(), "dix")
    version = server.stub().GetMatch(pb.GetMatchRequest(match_id=match_id)).view.version
    damaged = "{not json"
    redis_client.xadd(
        log_key(match_id), {"e": damaged, "h": entry_hash(damaged)}, id=f"{version + 1}-0"
    )
    error = watch_error(server, match_id)
    assert error.code() == grpc.StatusCode.INTERNAL, error.details()
    assert reason(error) == "INTERNAL"
    assert error.details() == "internal error; it has been logged"
