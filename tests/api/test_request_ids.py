"""CreateMatch request ids (AIP-155): a repeat gets the same match, another body under the same
id gets ALREADY_EXISTS and no token, and nothing is half-written when the store refuses."""

from __future__ import annotations

import asyncio
import itertools
import uuid

import grpc
import pytest
import redis

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.engine import Engine
from kozyr.match.errors import Kind, MatchError
from kozyr.store.memory import MemoryStore
from kozyr.wire.errorinfo import error_info
from tests.conftest import ServerThread


def dix(request_id: str, target: str = "50") -> pb.CreateMatchRequest:
    return pb.CreateMatchRequest(
        game="dix",
        request_id=request_id,
        options={"target": target},
        seats=[pb.SeatRequest(name="ann"), pb.SeatRequest(name="bob")],
    )


def test_another_body_under_a_used_request_id_gets_no_token(server: ServerThread) -> None:
    stub = server.stub()
    request_id = f"req-{uuid.uuid4().hex[:8]}"  # a platform's row id, say
    first = stub.CreateMatch(dix(request_id))
    assert len(first.tokens) == 2
    again = stub.CreateMatch(dix(request_id))
    assert again == first  # the same request: the same match and tokens
    for other in (
        dix(request_id, target="60"),
        pb.CreateMatchRequest(
            game="six-dozens", request_id=request_id, seats=[pb.SeatRequest(name=n) for n in "abc"]
        ),
    ):
        with pytest.raises(grpc.RpcError) as refused:
            stub.CreateMatch(other)
        assert refused.value.code() == grpc.StatusCode.ALREADY_EXISTS
        info = error_info(refused.value)  # type: ignore[arg-type]
        assert info is not None and info.reason == "REQUEST_ID_REUSED"
        assert all(t.token not in refused.value.details() for t in first.tokens)


def test_request_ids_are_scoped_and_expire() -> None:
    async def body() -> None:
        clock = itertools.count(1_767_225_600)
        engine = Engine(MemoryStore(), clock=lambda: float(next(clock)), request_ttl_s=100)
        seats = [("a", b""), ("b", b"")]
        mine = await engine.create("dix", {}, seats, request_id="r1", scope="tenant-a")
        theirs = await engine.create("dix", {}, seats, request_id="r1", scope="tenant-b")
        assert mine.match_id != theirs.match_id  # another caller's id space is separate
        assert (
            await engine.create("dix", {}, seats, request_id="r1", scope="tenant-a")
        ).tokens == mine.tokens
        for _ in range(200):  # let the clock pass the record's time to live
            next(clock)
        with pytest.raises(MatchError) as expired:
            await engine.create("dix", {}, seats, request_id="r1", scope="tenant-a")
        assert (expired.value.kind, expired.value.code) == (Kind.EXISTS, "REQUEST_ID_EXPIRED")

    asyncio.run(body())


def test_a_refused_creation_leaves_no_request_record(
    server: ServerThread, redis_client: redis.Redis
) -> None:
    stub = server.stub()
    request_id = f"full-{uuid.uuid4().hex[:8]}"
    policy = redis_client.config_get("maxmemory-policy")["maxmemory-policy"]
    redis_client.config_set("maxmemory-policy", "noeviction")
    redis_client.config_set("maxmemory", "1")  # below what is used: every write is refused
    try:
        with pytest.raises(grpc.RpcError) as full:
            stub.CreateMatch(dix(request_id))
        assert full.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        info = error_info(full.value)  # type: ignore[arg-type]
        assert info is not None and info.reason == "STORE_FULL"
    finally:
        redis_client.config_set("maxmemory", "0")
        redis_client.config_set("maxmemory-policy", policy)
    created = stub.CreateMatch(dix(request_id))  # the same request, now that there is room
    view = stub.GetMatch(pb.GetMatchRequest(match_id=created.match_id)).view
    assert view.version == 1 and len(created.tokens) == 2
