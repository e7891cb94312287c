"""Tenants: request ids in the tenant's own space, --require-auth, and seat tickets (issue 11),
on a real server and Redis."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.api.guard import SERVICE
from kozyr.config.settings import Tenancy
from kozyr.wire.errorinfo import error_info
from tests.api.platforms import (
    ACME_KEY,
    GLOBEX_KEY,
    SHORT_DIX,
    PlatformServer,
    bearer,
    key,
    open_match,
    tenancy_of,
    ticket,
)


@pytest.fixture
def strict(redis_url: str, tmp_path: Path) -> Iterator[PlatformServer]:
    server = PlatformServer(redis_url, tenancy_of(tmp_path, require_auth=True))
    yield server
    server.stop()


def refused(call: object, *args: object, **kwargs: object) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as e:
        result = call(*args, **kwargs)  # type: ignore[operator]
        if hasattr(result, "__iter__") and not isinstance(result, pb.ListGamesResponse):
            next(iter(result))
    info = error_info(e.value)  # type: ignore[arg-type]
    assert info is not None, e.value
    return e.value.code(), info.reason  # type: ignore[attr-defined]


def dix(request_id: str, target: str = "50") -> pb.CreateMatchRequest:
    return pb.CreateMatchRequest(
        game="dix",
        request_id=request_id,
        options={"target": target},
        seats=[pb.SeatRequest(name="ann"), pb.SeatRequest(name="bob")],
    )


def test_the_request_id_attack_fails_and_each_tenant_has_its_own_ids(
    strict: PlatformServer,
) -> None:
    stub = strict.stub()
    request_id = "req-42"  # a platform's row id: every tenant has a row 42
    first = stub.CreateMatch(dix(request_id), metadata=key(ACME_KEY))
    assert stub.CreateMatch(dix(request_id), metadata=key(ACME_KEY)) == first  # same body
    with pytest.raises(grpc.RpcError) as other:
        stub.CreateMatch(
            pb.CreateMatchRequest(
                game="six-dozens",
                request_id=request_id,
                seats=[pb.SeatRequest(name=n) for n in "abc"],
            ),
            metadata=key(ACME_KEY),
        )
    assert other.value.code() == grpc.StatusCode.ALREADY_EXISTS
    assert all(t.token not in str(other.value) for t in first.tokens)
    theirs = stub.CreateMatch(dix(request_id), metadata=key(GLOBEX_KEY))
    assert theirs.match_id != first.match_id  # another tenant's id space
    assert {t.token for t in theirs.tokens}.isdisjoint(t.token for t in first.tokens)


def test_every_rpc_without_a_key_or_ticket_is_unauthenticated(strict: PlatformServer) -> None:
    stub = strict.stub()
    match_id = open_match(stub, ACME_KEY)
    for method in SERVICE.methods:
        request = getattr(pb, method.input_type.name)()
        if "match_id" in request.DESCRIPTOR.fields_by_name:
            request.match_id = match_id
        if method.client_streaming:  # PlaySession: its requests come as a stream
            request = iter([request])
        code, reason = refused(getattr(stub, method.name), request)
        assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "AUTH_REQUIRED"), method.name
    assert (
        refused(stub.ListGames, pb.ListGamesRequest(), metadata=key("not-a-key-at-all"))[1]
        == "BAD_API_KEY"
    )


def test_bad_tickets_are_refused_and_a_spectator_cannot_move(strict: PlatformServer) -> None:
    stub = strict.stub()
    match_id = open_match(stub, ACME_KEY)
    other_match = open_match(stub, ACME_KEY)
    globex_match = open_match(stub, GLOBEX_KEY)
    get = pb.GetMatchRequest(match_id=match_id)
    forged = ed25519.Ed25519PrivateKey.generate()
    cases = {
        "TICKET_EXPIRED": (ticket("acme", match_id, expires_in=-3600), get),
        "BAD_TICKET_SIGNATURE": (ticket("acme", match_id, key="another-secret-" + "0" * 32), get),
        "UNKNOWN_TENANT": (ticket("initech", match_id), get),
        "TICKET_FOR_ANOTHER_MATCH": (ticket("acme", other_match), get),
        "OTHER_TENANT": (ticket("acme", globex_match), pb.GetMatchRequest(match_id=globex_match)),
        "MALFORMED_TICKET": ("a.b.c", get),
    }
    cases["BAD_TICKET_SIGNATURE "] = (
        ticket("globex", globex_match, key=forged),
        pb.GetMatchRequest(match_id=globex_match),
    )
    for want, (token, request) in cases.items():
        code, reason = refused(stub.GetMatch, request, metadata=bearer(token))
        assert reason == want.strip(), want
        assert code in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED)
        if want.startswith(("OTHER", "TICKET_FOR")):
            assert code == grpc.StatusCode.PERMISSION_DENIED
        else:
            assert code == grpc.StatusCode.UNAUTHENTICATED
    # Two users join with play tickets; a spectate ticket sees the table but cannot move.
    for seat in (0, 1):
        stub.JoinMatch(
            pb.JoinMatchRequest(match_id=match_id, name=f"user {seat}"),
            metadata=bearer(ticket("acme", match_id, user=f"u{seat}", seat=seat)),
        )
    watcher = ticket("acme", match_id, user="fan", seat=None, scope="spectate")
    view = stub.GetMatch(get, metadata=bearer(watcher)).view
    assert view.status == pb.MATCH_STATUS_PLAYING and not view.HasField("seat")
    seat = view.to_act
    mine = bearer(ticket("acme", match_id, user=f"u{seat}", seat=seat))
    move = stub.ListLegalMoves(pb.ListLegalMovesRequest(match_id=match_id), metadata=mine).moves[0]
    submit = pb.SubmitMoveRequest(match_id=match_id, move=move, command_id="c1")
    assert refused(stub.SubmitMove, submit, metadata=bearer(watcher)) == (
        grpc.StatusCode.PERMISSION_DENIED,
        "TICKET_CANNOT_MOVE",
    )
    intruder = bearer(ticket("acme", match_id, user="mallory", seat=seat))
    assert refused(stub.SubmitMove, submit, metadata=intruder) == (
        grpc.StatusCode.PERMISSION_DENIED,
        "SEAT_OF_ANOTHER_USER",
    )
    assert stub.SubmitMove(submit, metadata=mine).version == 4
    # The log names who did what: the joins' users, and the move's actor.
    entries = stub.GetMatchLog(
        pb.GetMatchLogRequest(match_id=match_id),
        metadata=bearer(ticket("acme", match_id, user="ref", seat=None, scope="arbitrate")),
    ).entries
    texts = [json.loads(e.canonical_json) for e in entries]
    assert [t["events"][0].get("user") for t in texts[1:3]] == ["u0", "u1"]
    assert texts[3]["actor"] == f"u{seat}" and "actor" not in texts[0]


def test_open_mode_keeps_anonymous_play_and_tickets_still_work(
    redis_url: str, tmp_path: Path
) -> None:
    server = PlatformServer(redis_url, tenancy_of(tmp_path))
    try:
        stub = server.stub()
        created = stub.CreateMatch(dix(f"anon-{uuid.uuid4().hex[:6]}"))  # no key: local tenant
        assert len(created.tokens) == 2
        match_id = open_match(stub, ACME_KEY)
        link = f"https://play.acme.example/join/{match_id}"
        joined = stub.JoinMatch(
            pb.JoinMatchRequest(link=link, name="by link"),
            metadata=bearer(ticket("acme", match_id, seat=1)),
        )
        assert joined.seat == 1
        assert refused(
            stub.JoinMatch, pb.JoinMatchRequest(link="https://x.example/", name="n")
        ) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_LINK")
    finally:
        server.stop()
    assert Tenancy({}).ids() == ["local"]


def test_a_log_with_users_and_actors_verifies_offline(redis_url: str, tmp_path: Path) -> None:
    from kozyr.replay import archive
    from kozyr.replay.export import export
    from kozyr.replay.verify import verify

    server = PlatformServer(redis_url, tenancy_of(tmp_path))
    try:
        stub = server.stub()
        match_id = open_match(stub, ACME_KEY)
        tickets = [bearer(ticket("acme", match_id, user=f"u{s}", seat=s)) for s in (0, 1)]
        for seat in (0, 1):
            stub.JoinMatch(
                pb.JoinMatchRequest(match_id=match_id, name=f"p{seat}"), metadata=tickets[seat]
            )
        for n in range(4):  # a few moves sent with tickets: entries with an actor
            view = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).view
            mine = tickets[view.to_act]
            move = stub.ListLegalMoves(
                pb.ListLegalMovesRequest(match_id=match_id), metadata=mine
            ).moves[0]
            stub.SubmitMove(
                pb.SubmitMoveRequest(match_id=match_id, move=move, command_id=f"m{n}"),
                metadata=mine,
            )
        server.play_out(match_id)
        exported = export(server.address, match_id, None)
    finally:
        server.stop()
    report = verify(archive.parse(exported.text))
    assert report.verified, report
    assert '"actor":"u' in exported.text and '"user":"u1"' in exported.text


def test_a_session_seat_of_another_tenants_match_is_refused_as_a_call_would_be(
    strict: PlatformServer,
) -> None:
    """A play session adds each seat through the same checks a unary call makes: a seat token
    of one tenant's match, sent with another tenant's key, is OTHER_TENANT on both paths."""
    stub = strict.stub()
    created = stub.CreateMatch(
        pb.CreateMatchRequest(
            game="dix", options=SHORT_DIX, seats=[pb.SeatRequest(name=n) for n in "ab"]
        ),
        metadata=key(ACME_KEY),
    )
    token = created.tokens[0].token
    as_globex = key(GLOBEX_KEY) + bearer(token)
    get = pb.GetMatchRequest(match_id=created.match_id)
    assert refused(stub.GetMatch, get, metadata=as_globex) == (
        grpc.StatusCode.PERMISSION_DENIED,
        "OTHER_TENANT",
    )
    seats = [
        pb.SessionSeat(match_id=created.match_id, token=t.token, seat=t.seat)
        for t in created.tokens
    ]
    refusal = first_push(stub, seats[:1], key(GLOBEX_KEY)).refusal
    assert (refusal.reason, refusal.code) == (
        "OTHER_TENANT",
        grpc.StatusCode.PERMISSION_DENIED.value[0],
    )
    # The tenant's own key adds the same seats, and the one to act is told its decision.
    assert first_push(stub, seats, key(ACME_KEY)).WhichOneof("kind") == "decision"


def first_push(stub: Any, seats: list[pb.SessionSeat], metadata: list[tuple[str, str]]) -> Any:
    """The first push of a play session that adds `seats` (our side kept open meanwhile: a
    closed side ends the session)."""
    done = threading.Event()

    def requests() -> Iterator[pb.SessionRequest]:
        yield pb.SessionRequest(seats=seats)
        done.wait(60)

    call = stub.PlaySession(requests(), metadata=metadata)
    try:
        for message in call:
            return message.pushes[0]
        raise AssertionError(f"no push: {call.code()} {call.details()}")
    finally:
        done.set()
        call.cancel()
