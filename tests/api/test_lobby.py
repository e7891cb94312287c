"""The lobby (ListMatches): filters and pages over 1,000 matches, and no entry ever shows a
match in another state than its log's, even when a process died before indexing a change and
the server restarted."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.config.settings import Tenancy
from kozyr.engine import Engine
from kozyr.store.redis.streams import RedisStore
from tests.api.platforms import GLOBEX_KEY, SHORT_DIX, PlatformServer, key, tenancy_of

MATCHES = 1000
Lobby = tuple[PlatformServer, Tenancy, list[dict[str, Any]]]
STATUS = {
    "waiting": pb.MATCH_STATUS_WAITING,
    "playing": pb.MATCH_STATUS_PLAYING,
    "finished": pb.MATCH_STATUS_FINISHED,
}


def seats_of(i: int) -> tuple[str, list[pb.SeatRequest]]:
    """Match i's game and seats: four kinds in turn, some with platform users."""
    kind = i % 4
    if kind == 0:
        return "six-dozens", [pb.SeatRequest(name=f"s{k}") for k in range(3)]
    if kind == 1:
        return "dix", [pb.SeatRequest(), pb.SeatRequest()]
    if kind == 2:
        return "dix", [pb.SeatRequest(name="host", user=f"user{i % 7}"), pb.SeatRequest()]
    return "dix", [
        pb.SeatRequest(name="a", user=f"user{i % 7}"),
        pb.SeatRequest(name="b", user=f"user{(i + 1) % 7}"),
    ]


def pages(stub: Any, page_size: int, **filters: Any) -> Iterator[pb.ListMatchesResponse]:
    token = ""
    for _ in range(MATCHES + 2):  # bounded: never more pages than matches
        page = stub.ListMatches(
            pb.ListMatchesRequest(page_size=page_size, page_token=token, **filters),
            metadata=key(GLOBEX_KEY),
        )
        yield page
        token = page.next_page_token
        if not token:
            return
    raise AssertionError("paging did not end")


@pytest.fixture
def lobby(redis_url: str, tmp_path: Path) -> Iterator[Lobby]:
    client = redis.Redis.from_url(redis_url)
    for name in client.scan_iter(match="kozyr:{t:globex}:*", count=1000):
        client.delete(name)
    client.close()
    tenancy = tenancy_of(tmp_path)
    server = PlatformServer(redis_url, tenancy)
    stub = server.stub()
    made: list[dict[str, Any]] = []
    for i in range(MATCHES):
        game, seats = seats_of(i)
        response = stub.CreateMatch(
            pb.CreateMatchRequest(
                game=game, seats=seats, options=SHORT_DIX if game == "dix" else {}
            ),
            metadata=key(GLOBEX_KEY),
        )
        made.append(
            {
                "id": response.match_id,
                "game": game,
                "status": "waiting" if i % 4 in (1, 2) else "playing",
                "open": i % 4 in (1, 2),
                "users": {s.user for s in seats if s.user},
            }
        )
    for entry in [m for i, m in enumerate(made) if i % 4 == 3][:12]:
        server.play_out(entry["id"])
        entry["status"] = "finished"
    yield server, tenancy, made
    server.stop()


def expected(made: list[dict[str, Any]], **f: Any) -> list[str]:
    return [
        m["id"]
        for m in reversed(made)
        if (not f.get("game") or m["game"] == f["game"])
        and (not f.get("status") or m["status"] == f["status"])
        and (not f.get("open_seats") or m["open"])
        and (not f.get("user") or f["user"] in m["users"])
    ]


FILTERS: list[dict[str, Any]] = [
    {},
    {"game": "dix"},
    {"status": "waiting"},
    {"status": "playing"},
    {"status": "finished"},
    {"open_seats": True},
    {"user": "user3"},
    {"game": "six-dozens", "status": "playing"},
    {"game": "dix", "open_seats": True, "user": "user2"},
    {"game": "durak-dice"},
]


def test_list_matches_filters_and_pages_over_a_thousand_matches(lobby: Lobby) -> None:
    server, _, made = lobby
    stub = server.stub()
    for filters in FILTERS:
        for size in (37, 500):
            wire = {k: STATUS[v] if k == "status" else v for k, v in filters.items()}
            listed = [m.match_id for page in pages(stub, size, **wire) for m in page.matches]
            assert listed == expected(made, **filters), (filters, size)
    first = next(pages(stub, 3)).matches[0]
    assert first.join_link == f"kozyr://join/{first.match_id}"
    for bad, reason in (
        ({"page_size": 501}, "BAD_PAGE_SIZE"),
        ({"page_token": "garbage"}, "BAD_PAGE_TOKEN"),
        ({"game": "chess"}, "UNKNOWN_GAME"),
    ):
        with pytest.raises(grpc.RpcError) as refused:
            stub.ListMatches(pb.ListMatchesRequest(**bad), metadata=key(GLOBEX_KEY))
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, reason


def test_no_entry_shows_another_state_after_a_crash_and_a_restart(
    lobby: Lobby, redis_url: str
) -> None:
    server, tenancy, made = lobby
    waiting = [m for m in made if m["status"] == "waiting"][:20]

    async def joins_nobody_indexed() -> None:  # a process that died after each append
        engine = Engine(RedisStore.from_url(redis_url))
        for entry in waiting:
            record = await engine.record(entry["id"])
            for _ in record.open_seats:
                await engine.join(entry["id"], "late")
            entry.update(status="playing", open=False)
        await engine.store.close()

    server.run(joins_nobody_indexed())
    server.stop()
    restarted = PlatformServer(redis_url, tenancy)
    lobby_ = (restarted, tenancy, made)
    try:
        stub = restarted.stub()
        listed = [
            m for page in pages(stub, 200, status=pb.MATCH_STATUS_WAITING) for m in page.matches
        ]
        assert [m.match_id for m in listed] == expected(made, status="waiting")
        shown = {m.match_id: m for page in pages(stub, 500) for m in page.matches}
        for entry in made:  # every entry agrees with the match itself
            view = stub.GetMatch(
                pb.GetMatchRequest(match_id=entry["id"]), metadata=key(GLOBEX_KEY)
            ).view
            assert shown[entry["id"]].status == view.status
    finally:
        lobby_[0].stop()
    server.stop = lambda: None  # type: ignore[method-assign]  # stopped above
