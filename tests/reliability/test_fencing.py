"""A log that lost acknowledged entries is refused for writes, never written over, until an
operator repairs it (issue 13, finding 5)."""

from __future__ import annotations

import subprocess
import sys

import grpc
import pytest
import redis

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.store.redis.streams import fence_key, log_key
from kozyr.wire.errorinfo import error_info
from tests.api.helpers import auth, create
from tests.conftest import ServerThread


def move(stub: object, match_id: str, tokens: list[str], command_id: str) -> pb.SubmitMoveResponse:
    view = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).view  # type: ignore[attr-defined]
    token = tokens[view.to_act]
    legal = stub.ListLegalMoves(  # type: ignore[attr-defined]
        pb.ListLegalMovesRequest(match_id=match_id), metadata=auth(token)
    )
    return stub.SubmitMove(  # type: ignore[attr-defined, no-any-return]
        pb.SubmitMoveRequest(match_id=match_id, move=legal.moves[0], command_id=command_id),
        metadata=auth(token),
    )


@pytest.mark.parametrize("lose_fence", [False, True], ids=["stream-only", "stream-and-fence"])
def test_a_rolled_back_log_is_refused_then_repaired(
    server: ServerThread, redis_client: redis.Redis, redis_url: str, lose_fence: bool
) -> None:
    stub = server.stub()
    match_id, tokens = create(stub, "dix")
    for n in range(3):
        move(stub, match_id, tokens, f"m{n}")
    assert redis_client.xlen(log_key(match_id)) == 4
    # Restore an "older backup": the last two acknowledged entries are gone (and, in the worse
    # case, the fence key with them; then only the server's own memory knows).
    redis_client.xdel(log_key(match_id), "4-0", "3-0")
    if lose_fence:
        redis_client.set(fence_key(match_id), 2)
    for n in range(2):
        with pytest.raises(grpc.RpcError) as refused:
            move(stub, match_id, tokens, f"after-{n}")
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        info = error_info(refused.value)  # type: ignore[arg-type]
        assert info is not None and info.reason == "STREAM_BEHIND"
        assert f"kozyr repair {match_id}" in refused.value.details()
        assert redis_client.xlen(log_key(match_id)) == 2, "a lost version was written over"
    repaired = subprocess.run(
        [sys.executable, "-m", "kozyr.cli", "repair", match_id, "--redis-url", redis_url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert repaired.returncode == 0, repaired.stderr
    expected = "nothing was lost" if lose_fence else "versions 3..4 were acknowledged and are lost"
    assert expected in repaired.stdout
    assert move(stub, match_id, tokens, "resumed").version == 3
