"""CreateMatches (many matches in one call, each answered on its own) and the results feed a
tournament organiser reads instead of a call per match (WatchEvents from "$", by type)."""

from __future__ import annotations

import uuid

import grpc
import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.match.limits import MAX_BATCH
from kozyr_client import Created, KozyrClient, KozyrError, match_request
from tests.api.helpers import reason
from tests.conftest import ServerThread

BOTS = ["random:seed=1", "random:seed=2"]


@pytest.fixture
def client(server: ServerThread) -> KozyrClient:
    with KozyrClient(server.address) as client:
        yield client  # type: ignore[misc]


def test_a_batch_creates_each_match_and_refuses_a_bad_one_alone(client: KozyrClient) -> None:
    requests = [
        match_request("dix", ["ann", "bob"]),
        match_request("chess", ["ann", "bob"]),
        match_request("dix", ["a", "b"], {"target": "nine"}),
        match_request("six-dozens", ["ann", "bob"]),
    ]
    first, chess, option, last = client.create_matches(requests)
    assert isinstance(chess, KozyrError) and isinstance(option, KozyrError)
    assert (chess.code, chess.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_GAME")
    assert "dix" in chess.message  # it names the games there are
    assert (option.code, option.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_OPTION_VALUE")
    for created, game in ((first, "dix"), (last, "six-dozens")):
        assert isinstance(created, Created) and created.version == 1
        seat = client.seat(created.match_id, created.tokens[0])
        view = seat.view()
        assert (view.game, view.status) == (game, pb.MATCH_STATUS_PLAYING)
        assert seat.legal_moves() or view.to_act != 0


def test_a_batch_over_the_limit_is_refused_whole(client: KozyrClient, server: ServerThread) -> None:
    stub = server.stub()
    ids = [f"over-{uuid.uuid4().hex}" for _ in range(MAX_BATCH + 1)]
    with pytest.raises(grpc.RpcError) as error:
        stub.CreateMatches(
            pb.CreateMatchesRequest(
                matches=[match_request("dix", ["a", "b"], request_id=i) for i in ids]
            )
        )
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason(error.value) == "TOO_MANY_IN_BATCH"
    # Nothing of it was created: the first request id is still free for a match of its own.
    (created,) = client.create_matches([match_request("six-dozens", ["a", "b"], request_id=ids[0])])
    assert isinstance(created, Created)
    assert client.spectate(created.match_id).view().game == "six-dozens"


def test_a_retried_batch_answers_the_same_matches(client: KozyrClient) -> None:
    requests = [match_request("dix", ["a", "b"], request_id=uuid.uuid4().hex) for _ in range(3)]
    first = client.create_matches(requests)
    again = client.create_matches(requests)
    assert all(isinstance(c, Created) for c in first + again)
    assert [c.match_id for c in first] == [c.match_id for c in again]  # type: ignore[union-attr]
    assert len({c.match_id for c in first}) == 3  # type: ignore[union-attr]


def test_a_request_id_used_twice_in_a_batch_keeps_the_first(client: KozyrClient) -> None:
    # The batch's matches are made at once; a repeated id still waits for its first use.
    same, other = uuid.uuid4().hex, uuid.uuid4().hex
    first, again, reused, fresh = client.create_matches(
        [
            match_request("dix", ["a", "b"], request_id=same),
            match_request("dix", ["a", "b"], request_id=same),
            match_request("six-dozens", ["a", "b"], request_id=same),
            match_request("six-dozens", ["a", "b"], request_id=other),
        ]
    )
    assert isinstance(first, Created) and isinstance(again, Created)
    assert (again.match_id, again.tokens) == (first.match_id, first.tokens)
    assert isinstance(reused, KozyrError) and reused.reason == "REQUEST_ID_REUSED"
    assert isinstance(fresh, Created) and fresh.match_id != first.match_id
    assert client.spectate(first.match_id).view().game == "dix"


def test_the_feed_from_now_brings_only_the_types_asked_for(client: KozyrClient) -> None:
    before = client.create_matches(
        [match_request("dix", ["a", "b"], {"single_hand": "true"}, bots=BOTS)]
    )
    with client.feed("$", ["match.ended"]) as feed:
        assert feed.start  # the server said where it starts before any event
        batch = client.create_matches(
            [match_request("dix", ["a", "b"], {"single_hand": "true"}, bots=BOTS) for _ in range(3)]
        )
        ids = {c.match_id for c in batch if isinstance(c, Created)}
        assert len(ids) == 3
        heard: dict[str, pb.TenantEvent] = {}
        for event in feed:
            assert event.type == "match.ended"
            assert event.match_id not in heard
            heard[event.match_id] = event
            if ids <= set(heard):
                break
    assert before[0].match_id not in heard  # type: ignore[union-attr]  # ended before "$"
    for match_id in ids:
        final = client.spectate(match_id).view()
        event = heard[match_id]
        assert event.version == final.version and event.cursor > feed.start
        assert list(event.outcome.winners) == list(final.outcome.winners)
        assert list(event.outcome.scores) == list(final.outcome.scores)


@pytest.mark.parametrize(
    ("request_", "code"),
    [
        (pb.WatchEventsRequest(types=["match.won"]), "UNKNOWN_EVENT_TYPE"),
        (pb.WatchEventsRequest(from_cursor="$0"), "BAD_CURSOR"),
    ],
)
def test_a_bad_feed_request_is_refused(
    server: ServerThread, request_: pb.WatchEventsRequest, code: str
) -> None:
    with pytest.raises(grpc.RpcError) as error:
        next(server.stub().WatchEvents(request_, timeout=10))
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason(error.value) == code


def test_the_client_feed_raises_the_refusal(client: KozyrClient) -> None:
    with pytest.raises(KozyrError) as error:
        client.feed("$", ["match.won"])
    assert error.value.reason == "UNKNOWN_EVENT_TYPE"
