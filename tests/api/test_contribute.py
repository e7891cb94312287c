"""Contributions after the commitment over the API (docs/fairness.md §1, issue 30): CreateMatch
refuses a named seat's contribution and writes nothing; Contribute gives it after the
commitment, with the seat's token, once; the last one deals."""

from __future__ import annotations

import grpc
import pytest
import redis

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.wire.errorinfo import error_info
from tests.api.helpers import auth
from tests.conftest import ServerThread


def _refusal(call: object, request: object, **kwargs: object) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as refused:
        call(request, **kwargs)  # type: ignore[operator]
    info = error_info(refused.value)  # type: ignore[arg-type]
    assert info is not None
    return refused.value.code(), info.reason  # type: ignore[attr-defined]


def test_a_named_seats_contribution_is_refused_at_creation_and_given_after(
    server: ServerThread, redis_client: redis.Redis
) -> None:
    stub = server.stub()
    before = set(redis_client.scan_iter("kozyr:*"))
    early = pb.CreateMatchRequest(
        game="dix", seats=[pb.SeatRequest(name="ann", seed_contribution=b"mine"), pb.SeatRequest()]
    )
    assert _refusal(stub.CreateMatch, early) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "CONTRIBUTION_BEFORE_COMMITMENT",
    )
    assert set(redis_client.scan_iter("kozyr:*")) - before == set()  # nothing written
    created = stub.CreateMatch(
        pb.CreateMatchRequest(
            game="dix",
            seats=[pb.SeatRequest(name="ann"), pb.SeatRequest(name="bob")],
            contribution_window_ms=30_000,
        )
    )
    tokens = {t.seat: t.token for t in created.tokens}
    match_id = created.match_id
    given = pb.ContributeRequest(match_id=match_id, seed_contribution=b"ann's")
    assert _refusal(stub.Contribute, given) == (grpc.StatusCode.UNAUTHENTICATED, "NO_TOKEN")
    first = stub.Contribute(given, metadata=auth(tokens[0]))
    assert not first.started and first.receipt.commitment == created.seed_commitment
    assert _refusal(stub.Contribute, given, metadata=auth(tokens[0])) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "NOT_AWAITING_CONTRIBUTION",
    )
    last = stub.Contribute(
        pb.ContributeRequest(match_id=match_id, seed_contribution=b"bob's"),
        metadata=auth(tokens[1]),
    )
    assert last.started and last.version == created.version + 2
    view = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).view
    assert view.status == pb.MATCH_STATUS_PLAYING
    assert [p.seed_contribution for p in view.players] == [b"ann's".hex(), b"bob's".hex()]
