"""Bad input: each answered with its status and ErrorInfo reason, and nothing appended."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import grpc
import pytest
import redis

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.store.redis.streams import log_key
from tests.api.helpers import auth, create, play_out, reason
from tests.conftest import ARBITER, ServerThread

Code = grpc.StatusCode


def expect(code: grpc.StatusCode, why: str, call: Callable[[], object]) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        call()
    error = info.value
    assert error.code() == code, error.details()  # type: ignore[attr-defined]
    assert reason(error) == why
    assert error.details()  # type: ignore[attr-defined]
    return error


def dix_move(card: str) -> pb.Move:
    return pb.Move(dix=pb.DixMove(play=pb.PlayCard(card=card)))


@pytest.fixture
def dix(server: ServerThread, redis_client: redis.Redis) -> tuple[object, str, list[str]]:
    stub = server.stub()
    match_id, tokens = create(stub, "dix")
    return stub, match_id, tokens


def submit(
    stub: object,
    match_id: str,
    move: pb.Move | None,
    token: str | None,
    command_id: str | None = None,
    **kw: object,
) -> object:
    request = pb.SubmitMoveRequest(
        match_id=match_id, command_id=command_id or uuid.uuid4().hex, **kw
    )
    if move is not None:
        request.move.CopyFrom(move)
    return stub.SubmitMove(request, metadata=auth(token))  # type: ignore[attr-defined]


def expect_malformed_moves_refused(
    stub: object, match_id: str, tokens: list[str], mover: int, good: pb.Move
) -> None:
    """A move request malformed in its match id, its move, its card or its command id."""
    expect(Code.NOT_FOUND, "MATCH_NOT_FOUND", lambda: submit(stub, "nosuchmatch", good, tokens[0]))
    expect(Code.INVALID_ARGUMENT, "BAD_MATCH_ID", lambda: submit(stub, "", good, tokens[0]))
    expect(Code.INVALID_ARGUMENT, "BAD_MATCH_ID", lambda: submit(stub, "x" * 65, good, tokens[0]))
    expect(Code.INVALID_ARGUMENT, "EMPTY_MOVE", lambda: submit(stub, match_id, None, tokens[mover]))
    expect(
        Code.INVALID_ARGUMENT,
        "EMPTY_MOVE",
        lambda: submit(stub, match_id, pb.Move(dix=pb.DixMove()), tokens[mover]),
    )
    expect(
        Code.INVALID_ARGUMENT,
        "WRONG_GAME",
        lambda: submit(
            stub, match_id, pb.Move(durak_dice=pb.DurakDiceMove(take=pb.Take())), tokens[mover]
        ),
    )
    expect(
        Code.INVALID_ARGUMENT,
        "BAD_CARD",
        lambda: submit(stub, match_id, dix_move("ZZ"), tokens[mover]),
    )
    expect(
        Code.INVALID_ARGUMENT,
        "EMPTY_CARD",
        lambda: submit(stub, match_id, dix_move(""), tokens[mover]),
    )
    expect(
        Code.INVALID_ARGUMENT,
        "FIELD_TOO_LONG",
        lambda: submit(stub, match_id, dix_move("Q" * 5000), tokens[mover]),
    )
    expect(
        Code.INVALID_ARGUMENT,
        "BAD_COMMAND_ID",
        lambda: submit(stub, match_id, good, tokens[mover], command_id=" "),
    )
    expect(
        Code.INVALID_ARGUMENT,
        "BAD_COMMAND_ID",
        lambda: submit(stub, match_id, good, tokens[mover], command_id="c" * 65),
    )


def expect_bad_credentials_refused(stub: object, match_id: str, good: pb.Move) -> None:
    """A good move with a forged, malformed or missing token, or the arbiter's."""
    expect(Code.UNAUTHENTICATED, "BAD_TOKEN", lambda: submit(stub, match_id, good, "A" * 43))
    expect(
        Code.UNAUTHENTICATED,
        "MALFORMED_TOKEN",
        lambda: submit(stub, match_id, good, "not a token!"),
    )
    expect(Code.UNAUTHENTICATED, "NO_TOKEN", lambda: submit(stub, match_id, good, None))
    expect(
        Code.PERMISSION_DENIED,
        "SPECTATOR_CANNOT_MOVE",
        lambda: submit(stub, match_id, good, ARBITER),
    )


def test_bad_moves_are_refused_precisely_and_change_nothing(
    dix: tuple[object, str, list[str]], redis_client: redis.Redis
) -> None:
    stub, match_id, tokens = dix
    view = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).view  # type: ignore[attr-defined]
    mover, other = view.to_act, 1 - view.to_act
    my_hand = stub.GetMatch(
        pb.GetMatchRequest(match_id=match_id),  # type: ignore[attr-defined]
        metadata=auth(tokens[mover]),
    ).view.dix.hand
    their_hand = stub.GetMatch(
        pb.GetMatchRequest(match_id=match_id),  # type: ignore[attr-defined]
        metadata=auth(tokens[other]),
    ).view.dix.hand
    length = redis_client.xlen(log_key(match_id))
    good = dix_move(my_hand[0])

    expect_malformed_moves_refused(stub, match_id, tokens, mover, good)
    expect(
        Code.FAILED_PRECONDITION,
        "CARD_NOT_IN_HAND",
        lambda: submit(stub, match_id, dix_move(their_hand[0]), tokens[mover]),
    )
    expect(
        Code.FAILED_PRECONDITION,
        "NOT_YOUR_TURN",
        lambda: submit(stub, match_id, dix_move(their_hand[0]), tokens[other]),
    )
    expect_bad_credentials_refused(stub, match_id, good)
    for impossible in (view.version + 5, -1, 0, 2**63 - 1):  # never a version of this match
        expect(
            Code.INVALID_ARGUMENT,
            "BAD_EXPECTED_VERSION",
            lambda v=impossible: submit(
                stub,
                match_id,
                good,
                tokens[mover],  # type: ignore[misc]
                expected_version=v,
            ),
        )
    error = expect(
        Code.FAILED_PRECONDITION,
        "NOT_YOUR_TURN",
        lambda: submit(stub, match_id, dix_move(their_hand[0]), tokens[other]),
    )
    from kozyr.wire.status import error_info

    info = error_info(error)  # type: ignore[arg-type]
    assert info is not None and info.domain == "kozyr.v1"
    assert info.metadata["matchId"] == match_id and info.metadata["seat"] == str(other)

    assert redis_client.xlen(log_key(match_id)) == length, "a refused request appended"
    # The right move with the right version still works afterwards.
    ok = submit(stub, match_id, good, tokens[mover], expected_version=view.version)
    assert ok.version == view.version + 1  # type: ignore[attr-defined]


def test_a_token_of_another_match_is_refused(server: ServerThread) -> None:
    stub = server.stub()
    _, tokens_a = create(stub, "dix")
    b, _ = create(stub, "dix")
    expect(
        Code.UNAUTHENTICATED,
        "BAD_TOKEN",
        lambda: stub.GetMatch(pb.GetMatchRequest(match_id=b), metadata=auth(tokens_a[0])),
    )


def test_a_move_after_the_end_is_refused(server: ServerThread, redis_client: redis.Redis) -> None:
    stub = server.stub()
    match_id, tokens = create(stub, "dix", options={"single_hand": "true"})
    play_out(stub, match_id, tokens)
    length = redis_client.xlen(log_key(match_id))
    expect(
        Code.FAILED_PRECONDITION,
        "MATCH_OVER",
        lambda: submit(stub, match_id, dix_move("2C"), tokens[0]),
    )
    assert redis_client.xlen(log_key(match_id)) == length


def expect_bad_creations_refused(stub: Any) -> None:
    """CreateMatch without a game or seats, of an unknown game, with a wrong player count, an
    unknown or bad option, a field too long, or bad prearranged dice."""

    def make(**kw: object) -> object:
        return stub.CreateMatch(pb.CreateMatchRequest(**kw))

    seats = [pb.SeatRequest(name="a"), pb.SeatRequest(name="b")]
    expect(Code.INVALID_ARGUMENT, "EMPTY_GAME", lambda: make(seats=seats))
    expect(Code.INVALID_ARGUMENT, "UNKNOWN_GAME", lambda: make(game="chess", seats=seats))
    expect(Code.INVALID_ARGUMENT, "NO_SEATS", lambda: make(game="dix"))
    expect(
        Code.INVALID_ARGUMENT,
        "BAD_PLAYER_COUNT",
        lambda: make(game="dix", seats=[pb.SeatRequest(name="a")]),
    )
    expect(
        Code.INVALID_ARGUMENT,
        "UNKNOWN_OPTION",
        lambda: make(game="dix", seats=seats, options={"colour": "red"}),
    )
    expect(
        Code.INVALID_ARGUMENT,
        "BAD_OPTION_VALUE",
        lambda: make(game="dix", seats=seats, options={"target": "0"}),
    )
    expect(
        Code.INVALID_ARGUMENT,
        "FIELD_TOO_LONG",
        lambda: make(game="dix", seats=[pb.SeatRequest(name="n" * 65), seats[1]]),
    )
    expect(
        Code.INVALID_ARGUMENT,
        "FIELD_TOO_LONG",
        lambda: make(
            game="dix", seats=[pb.SeatRequest(name="a", seed_contribution=b"x" * 65), seats[1]]
        ),
    )

    durak_seats = [pb.SeatRequest(name=n) for n in "abc"]
    expect(
        Code.INVALID_ARGUMENT,
        "BAD_DICE",
        lambda: make(game="durak-dice", seats=durak_seats, prearranged_dice=["3 x"]),
    )
    expect(
        Code.INVALID_ARGUMENT,
        "BAD_DICE",
        lambda: make(game="durak-dice", seats=durak_seats, prearranged_dice=["3 7"]),
    )


def test_bad_creation_and_joining(server: ServerThread) -> None:
    stub = server.stub()

    expect_bad_creations_refused(stub)

    open_match = stub.CreateMatch(
        pb.CreateMatchRequest(game="dix", seats=[pb.SeatRequest(name="a"), pb.SeatRequest()])
    ).match_id
    expect(
        Code.INVALID_ARGUMENT,
        "EMPTY_NAME",
        lambda: stub.JoinMatch(pb.JoinMatchRequest(match_id=open_match)),
    )
    expect(
        Code.NOT_FOUND,
        "MATCH_NOT_FOUND",
        lambda: stub.JoinMatch(pb.JoinMatchRequest(match_id="nosuch", name="b")),
    )
    expect(
        Code.FAILED_PRECONDITION,
        "SEAT_TAKEN",
        lambda: stub.JoinMatch(pb.JoinMatchRequest(match_id=open_match, name="b", seat=0)),
    )
    expect(
        Code.INVALID_ARGUMENT,
        "NOT_A_SEAT",
        lambda: stub.JoinMatch(pb.JoinMatchRequest(match_id=open_match, name="b", seat=7)),
    )
    joined = stub.JoinMatch(pb.JoinMatchRequest(match_id=open_match, name="b"))
    assert (joined.seat, joined.started) == (1, True)
    expect(
        Code.FAILED_PRECONDITION,
        "SEAT_TAKEN",
        lambda: stub.JoinMatch(pb.JoinMatchRequest(match_id=open_match, name="c")),
    )


def test_the_log_is_closed_until_the_end_except_for_the_arbiter(server: ServerThread) -> None:
    stub = server.stub()
    match_id, tokens = create(stub, "dix", options={"single_hand": "true"})
    request = pb.GetMatchLogRequest(match_id=match_id)
    expect(
        Code.PERMISSION_DENIED,
        "MATCH_NOT_FINISHED",
        lambda: stub.GetMatchLog(request, metadata=auth(tokens[0])),
    )
    expect(Code.PERMISSION_DENIED, "MATCH_NOT_FINISHED", lambda: stub.GetMatchLog(request))
    assert len(stub.GetMatchLog(request, metadata=auth(ARBITER)).entries) == 1
    play_out(stub, match_id, tokens)
    assert len(stub.GetMatchLog(request).entries) > 20
