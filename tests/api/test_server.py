"""Generic gRPC tooling works against the server: health checking, reflection, graceful stop."""

from __future__ import annotations

import time

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from tests.api.helpers import Watcher, create
from tests.conftest import ServerThread


def test_health_check_reports_serving(server: ServerThread) -> None:
    stub = health_pb2_grpc.HealthStub(grpc.insecure_channel(server.address))
    for service in ("", "kozyr.v1.KozyrService"):
        answer = stub.Check(health_pb2.HealthCheckRequest(service=service))
        assert answer.status == health_pb2.HealthCheckResponse.SERVING


def test_reflection_lists_the_service_and_describes_it(server: ServerThread) -> None:
    stub = reflection_pb2_grpc.ServerReflectionStub(grpc.insecure_channel(server.address))
    requests = [reflection_pb2.ServerReflectionRequest(list_services=""),
                reflection_pb2.ServerReflectionRequest(
                    file_containing_symbol="kozyr.v1.KozyrService")]
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
    deadline = time.monotonic() + 10
    while len(watcher.updates) < version and time.monotonic() < deadline:
        time.sleep(0.01)  # the watcher is open and caught up
    server.stop(grace=5)
    watcher.join(10)
    assert not watcher.is_alive(), "a watcher must not hold the server open"
    assert [u.version for u in watcher.updates] == list(range(1, version + 1))
