"""Small client-side helpers for the API tests (they use the generated stubs only)."""

from __future__ import annotations

import random
import threading
import uuid
from collections.abc import Sequence
from typing import Any

import grpc

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc
from kozyr.api.errors import error_info

PLAYERS = {"dix": 2, "six-dozens": 3, "durak-dice": 4}
Stub = kozyr_pb2_grpc.KozyrServiceStub


def auth(token: str | None) -> list[tuple[str, str]]:
    """Call metadata carrying a bearer token (none for a spectator)."""
    return [] if token is None else [("authorization", f"Bearer {token}")]


def create(stub: Stub, game: str, players: int | None = None,
           options: dict[str, str] | None = None, **kwargs: Any) -> tuple[str, list[str]]:
    """Create a match with every seat named; its id and the tokens in seat order."""
    n = players or PLAYERS[game]
    response = stub.CreateMatch(pb.CreateMatchRequest(
        game=game, options=options or {},
        seats=[pb.SeatRequest(name=f"p{i}") for i in range(n)], **kwargs))
    tokens = sorted(response.tokens, key=lambda t: t.seat)
    return response.match_id, [t.token for t in tokens]


def play_one(stub: Stub, match_id: str, tokens: Sequence[str], rng: random.Random
             ) -> pb.SubmitMoveResponse | None:
    """The seat to act plays a random legal move; None when the match is over."""
    view = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).view
    if view.status == pb.MATCH_STATUS_FINISHED:
        return None
    seat = view.to_act
    legal = stub.ListLegalMoves(pb.ListLegalMovesRequest(match_id=match_id),
                                metadata=auth(tokens[seat])).moves
    if not legal:  # another client of this seat moved in between
        return pb.SubmitMoveResponse(version=view.version)
    move = legal[rng.randrange(len(legal))]
    return stub.SubmitMove(pb.SubmitMoveRequest(match_id=match_id, move=move,
                                                command_id=uuid.uuid4().hex),
                           metadata=auth(tokens[seat]))


def play_out(stub: Stub, match_id: str, tokens: Sequence[str], seed: int = 0,
             limit: int = 20_000) -> int:
    """Play random legal moves to the end; the number of moves."""
    rng = random.Random(seed)
    for n in range(limit):
        if play_one(stub, match_id, tokens, rng) is None:
            return n
    raise AssertionError("the match did not end")


def reason(error: grpc.RpcError) -> str:
    """The ErrorInfo reason of a failed call."""
    info = error_info(error)  # type: ignore[arg-type]
    assert info is not None, "every error must carry an ErrorInfo"
    return str(info.reason)


class Watcher(threading.Thread):
    """Collects a WatchMatch stream in the background."""

    def __init__(self, stub: Stub, match_id: str, token: str | None, from_version: int = 0):
        super().__init__(daemon=True)
        self.stub, self.match_id, self.token, self.from_version = (
            stub, match_id, token, from_version)
        self.updates: list[pb.MatchUpdate] = []
        self.raw: list[bytes] = []
        self.error: Exception | None = None
        self.start()

    def run(self) -> None:
        try:
            for update in self.stub.WatchMatch(
                    pb.WatchMatchRequest(match_id=self.match_id, from_version=self.from_version),
                    metadata=auth(self.token)):
                self.updates.append(update)
                self.raw.append(update.SerializeToString())
        except Exception as e:  # reported by the test
            self.error = e
