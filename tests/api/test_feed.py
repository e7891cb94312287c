"""The tenant results feed (WatchEvents): every event exactly once, in order per match, for a
consumer that disconnects at random while matches are played on two replicas, one of which
restarts; a process that dies between the match append and the feed commit is caught up."""

from __future__ import annotations

import json
import random
import re
import threading
import time
from collections import defaultdict
from pathlib import Path

import grpc

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.config.settings import ServerConfig
from kozyr.engine import Engine
from kozyr.store.redis.streams import RedisStore
from tests.api.platforms import (
    ACME_KEY,
    PlatformServer,
    bearer,
    key,
    open_match,
    tenancy_of,
    ticket,
)

EXPECTED = ["match.created", "seat.joined", "seat.joined", "match.started", "match.ended"]
MATCHES = 50


def consume(
    servers: list[PlatformServer],
    until: threading.Event,
    seen: list[pb.TenantEvent],
    rng: random.Random,
    deadline: float,
    expected: tuple[set[str], int],
) -> int:
    """Read the feed from the start, dropping the stream at random and resuming from the last
    cursor on any replica, until `until` is set, the expected number of events of the expected
    matches came, and a stream then saw its timeout (so a late duplicate would be read too);
    how many times it reconnected."""
    matches, count = expected
    cursor, reconnects = "", 0
    while time.monotonic() < deadline:
        stub = rng.choice(servers).stub()
        stream = stub.WatchEvents(
            pb.WatchEventsRequest(from_cursor=cursor), metadata=key(ACME_KEY), timeout=5
        )
        take = rng.randint(1, 12)
        try:
            for event in stream:
                seen.append(event)
                cursor = event.cursor
                take -= 1
                if take == 0:
                    break
        except grpc.RpcError as e:  # the timeout, or a replica that is restarting
            # A stream can time out with events still unread (one on the replica that stops,
            # or one slowed by load): a timeout ends the reading only once every event came.
            timed_out = e.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            came = sum(event.match_id in matches for event in seen)
            if until.is_set() and timed_out and came >= count:
                return reconnects
        stream.cancel()
        reconnects += 1
    return reconnects


def play(servers: list[PlatformServer], matches: list[str], rng: random.Random) -> None:
    for i, match_id in enumerate(matches):
        server = servers[i % len(servers)]
        stub = server.stub()
        for seat in (0, 1):
            stub.JoinMatch(
                pb.JoinMatchRequest(match_id=match_id, name=f"n{seat}"),
                metadata=bearer(ticket("acme", match_id, user=f"{match_id}-{seat}", seat=seat)),
            )
        server.play_out(match_id, seed=rng.randrange(1000))


def test_a_consumer_that_disconnects_at_random_gets_every_event_once(
    redis_url: str, tmp_path: Path, redis_client: object
) -> None:
    redis_client.delete("kozyr:{t:acme}:feed")  # type: ignore[attr-defined]
    tenancy = tenancy_of(tmp_path)
    servers = [PlatformServer(redis_url, tenancy), PlatformServer(redis_url, tenancy)]
    rng = random.Random(11)
    try:
        stub = servers[0].stub()
        matches = [open_match(stub, ACME_KEY) for _ in range(MATCHES)]
        seen: list[pb.TenantEvent] = []
        done = threading.Event()
        reconnects: list[int] = []
        reader = threading.Thread(
            target=lambda: reconnects.append(
                consume(
                    servers,
                    done,
                    seen,
                    random.Random(5),
                    time.monotonic() + 240,
                    (set(matches), MATCHES * len(EXPECTED)),
                )
            )
        )
        reader.start()
        play(servers, matches[:25], rng)
        servers[1].stop()  # a replica restarts mid-way; the consumer may have been on it
        servers[1] = PlatformServer(redis_url, tenancy)
        play(servers, matches[25:], rng)
        done.set()
        reader.join(250)
        assert not reader.is_alive()
        assert reconnects and reconnects[0] >= 20  # it did drop the stream, many times
    finally:
        for server in servers:
            server.stop()
    by_match: dict[str, list[pb.TenantEvent]] = defaultdict(list)
    cursors = [e.cursor for e in seen]
    assert len(cursors) == len(set(cursors)), "an event came twice"
    assert cursors == sorted(cursors, key=lambda c: tuple(int(p) for p in c.split("-")))
    for event in seen:
        by_match[event.match_id].append(event)
    assert set(matches) <= set(by_match)
    for match_id in matches:
        events = by_match[match_id]
        assert [e.type for e in events] == EXPECTED, match_id
        assert [e.version for e in events] == sorted(e.version for e in events)
        assert [e.user for e in events if e.type == "seat.joined"] == [
            f"{match_id}-0",
            f"{match_id}-1",
        ]
        ended = events[-1]
        assert ended.head_hash and list(ended.outcome.scores)


def test_a_process_that_died_before_the_feed_commit_is_caught_up(
    redis_url: str, tmp_path: Path
) -> None:
    tenancy = tenancy_of(tmp_path)
    server = PlatformServer(redis_url, tenancy, config=ServerConfig(feed_sweep_interval_s=60))
    try:
        stub = server.stub()
        match_id = open_match(stub, ACME_KEY, named=1)

        async def crash_join() -> None:  # an engine with no feed writer: the append alone
            engine = Engine(RedisStore.from_url(redis_url))
            await engine.join(match_id, "late", user="u-late")
            await engine.store.close()

        server.run(crash_join())
        # The lobby never answers the match's old state: the read itself catches it up.
        page = stub.ListMatches(pb.ListMatchesRequest(page_size=5), metadata=key(ACME_KEY))
        mine = [m for m in page.matches if m.match_id == match_id]
        assert mine and mine[0].status == pb.MATCH_STATUS_PLAYING
    finally:
        server.stop()
    restarted = PlatformServer(redis_url, tenancy)
    try:
        events = feed_of(restarted, match_id)
        assert [e.type for e in events] == ["match.created", "seat.joined", "match.started"]
        assert events[1].user == "u-late"
    finally:
        restarted.stop()


def feed_of(server: PlatformServer, match_id: str, wanted: int = 3) -> list[pb.TenantEvent]:
    """The match's events in the feed (read until `wanted` of them, or a bounded time)."""
    out: list[pb.TenantEvent] = []
    try:
        for event in server.stub().WatchEvents(
            pb.WatchEventsRequest(), metadata=key(ACME_KEY), timeout=10
        ):
            if event.match_id == match_id:
                out.append(event)
                if len(out) == wanted:
                    break
    except grpc.RpcError:
        pass
    return out


CARD = re.compile(r"\b(10|[2-9JQKA])[SHDC]\b")


def test_feed_bytes_carry_no_card_and_no_seed(redis_url: str, tmp_path: Path) -> None:
    server = PlatformServer(redis_url, tenancy_of(tmp_path))
    try:
        stub = server.stub()
        match_id = open_match(stub, ACME_KEY, named=2)
        server.play_out(match_id)
        log = stub.GetMatchLog(pb.GetMatchLogRequest(match_id=match_id), metadata=key(ACME_KEY))
        final = json.loads(log.entries[-1].canonical_json)
        seed = next(e["server_seed"] for e in final["events"] if e["type"] == "SeedRevealed")
        events = feed_of(server, match_id, wanted=3)
        assert [e.type for e in events] == ["match.created", "match.started", "match.ended"]
        for event in events:
            raw = event.SerializeToString()
            assert seed.encode() not in raw and not CARD.search(event.json)
            assert set(json.loads(event.json)) <= {
                "id",
                "type",
                "match_id",
                "version",
                "game",
                "time_ms",
                "seat",
                "user",
                "name",
                "outcome",
                "termination",
                "head_hash",
            }
    finally:
        server.stop()
