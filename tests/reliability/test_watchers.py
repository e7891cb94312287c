"""Watching scales: many watched matches share a few Redis connections, and mass cancellation
leaves the feeds working (issue 13, findings 1 and 2)."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
import redis

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc
from kozyr.engine import Engine
from kozyr.store.redis.connect import connect
from kozyr.store.redis.streams import BACKGROUND, RedisStore
from kozyr.wire.errorinfo import error_info
from tests.conftest import ServerThread

MATCHES = 150
MOVES, WATCHERS = 64, 8  # RedisStore.from_url's defaults: the two pools' gates


def named_pools(url: str) -> RedisStore:
    """The store RedisStore.from_url builds, each pool's connections named (CLIENT SETNAME)
    so that Redis tells the watchers' from the moves' and the background tasks'."""
    return RedisStore(
        connect(url, max_connections=MOVES + BACKGROUND, client_name="moves"),
        connect(url, max_connections=WATCHERS + 4, client_name="watchers"),
        limit=MOVES,
        watch_limit=WATCHERS,
    )


def our_connections(client: redis.Redis, before: set[int]) -> Counter[str]:
    """The connections opened since `before`, counted by their pool's name."""
    return Counter(c["name"] for c in client.client_list() if int(c["id"]) not in before)


@pytest.fixture
def named_server(redis_url: str) -> Iterator[ServerThread]:
    """A server whose store's pools name their connections."""
    srv = ServerThread(redis_url, store=named_pools)
    yield srv
    srv.stop()


async def dix_matches(stub: Any, count: int) -> list[tuple[str, dict[int, str]]]:
    """`count` Dix matches created one after the other: each id with its tokens by seat."""
    matches = []
    for _ in range(count):
        created = await stub.CreateMatch(
            pb.CreateMatchRequest(
                game="dix", seats=[pb.SeatRequest(name="a"), pb.SeatRequest(name="b")]
            )
        )
        matches.append((created.match_id, {t.seat: t.token for t in created.tokens}))
    return matches


async def first_legal_move(stub: Any, match_id: str, tokens: dict[int, str]) -> str | None:
    """The seat to act plays its first legal move; how the move failed, if it did."""
    view = (await stub.GetMatch(pb.GetMatchRequest(match_id=match_id))).view
    token = tokens[view.to_act]
    legal = await stub.ListLegalMoves(
        pb.ListLegalMovesRequest(match_id=match_id),
        metadata=[("authorization", f"Bearer {token}")],
    )
    try:
        await stub.SubmitMove(
            pb.SubmitMoveRequest(
                match_id=match_id, move=legal.moves[0], command_id=uuid.uuid4().hex
            ),
            metadata=[("authorization", f"Bearer {token}")],
        )
    except grpc.aio.AioRpcError as e:
        return f"{e.code().name}: {e.details()}"
    return None


def test_many_watched_matches_share_few_connections_and_moves_never_starve(
    named_server: ServerThread, redis_client: redis.Redis
) -> None:
    server = named_server
    before = {int(c["id"]) for c in redis_client.client_list()}

    async def scenario() -> tuple[Counter[str], int, list[str]]:
        async with grpc.aio.insecure_channel(server.address) as channel:
            stub = kozyr_pb2_grpc.KozyrServiceStub(channel)
            matches = await dix_matches(stub, MATCHES)
            seen: dict[str, int] = {}

            async def watch(match_id: str) -> None:
                async for update in stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id)):
                    seen[match_id] = update.version

            watchers = [asyncio.create_task(watch(m)) for m, _ in matches]
            for _ in range(1_200):  # every stream has delivered entry 1 (bounded: 60 s)
                if len(seen) >= MATCHES or any(t.done() for t in watchers):
                    break
                await asyncio.sleep(0.05)
            assert len(seen) == MATCHES, [t.exception() for t in watchers if t.done()][:3]
            await asyncio.sleep(1.5)  # every feed subscribed; no watcher holds a connection now
            watching = our_connections(redis_client, before)
            failures: list[str] = []
            rng = random.Random(1)
            for match_id, tokens in rng.sample(matches, 60):
                failure = await first_legal_move(stub, match_id, tokens)
                if failure is not None:
                    failures.append(failure)
            for _ in range(200):  # the watchers hear the moves made
                if sum(v >= 2 for v in seen.values()) >= 60:
                    break
                await asyncio.sleep(0.05)
            heard = sum(v >= 2 for v in seen.values())
            for task in watchers:
                task.cancel()
            return watching, heard, failures

    watching, heard, failures = asyncio.run(scenario())
    assert failures == []
    assert heard == 60
    # One pub/sub connection and a few pooled ones, whatever the number of watched matches
    # (before: one blocking XREAD connection per watched match, and the pool ran out at 100):
    # the watchers' pool, eight reads at a time beside the ticks' pub/sub and its subscribing
    # pipeline (within its room of 4). The moves' pool served only this test's calls, one at
    # a time, and the background tasks (health probe, timers, feed sweep, revocation
    # listener: within their reserve). Counted apart, since a background task that ran beside
    # a call made the total one more than the watchers' bound on a busy machine (13 > 12).
    assert watching["watchers"] <= WATCHERS + 4, (
        f"{watching} Redis connections for {MATCHES} watched matches"
    )
    assert watching["moves"] <= 1 + BACKGROUND, watching


def test_cancelling_thousands_of_watchers_at_once_leaves_the_feed_working(redis_url: str) -> None:
    async def scenario() -> list[int]:
        engine = Engine(RedisStore.from_url(redis_url))
        created = await engine.create("dix", {}, [("a", b""), ("b", b"")])
        match_id = created.match_id

        async def watch(into: list[int]) -> None:
            async for step in engine.updates(match_id, 1):
                into.append(step.entry.version)

        crowd = [asyncio.create_task(watch([])) for _ in range(2_000)]
        await asyncio.sleep(0.5)  # all of them are waiting on the match's feed
        for task in crowd:
            task.cancel()
        await asyncio.gather(*crowd, return_exceptions=True)
        seen: list[int] = []
        late = asyncio.create_task(watch(seen))
        await asyncio.sleep(0.1)
        record = await engine.record(match_id)
        seat = record.game.to_act(record.state)
        assert seat is not None
        await engine.submit(
            match_id, seat, record.game.legal_commands(record.state, seat)[0], "after-the-crowd"
        )
        for _ in range(200):
            if seen:
                break
            await asyncio.sleep(0.05)
        late.cancel()
        await engine.close()
        await engine.store.close()
        return seen

    assert asyncio.run(scenario()) == [2]


@pytest.mark.solo  # 2,000 streams opened at once: the burst must be the only load
def test_two_thousand_watchers_opening_at_once_on_one_match_are_all_served(
    server: ServerThread,
) -> None:
    """Opened in one burst, every watcher gets the match (issue 31, finding 5). gRPC's core
    used to cancel ~10 % of them at random, CANCELLED with no ErrorInfo, before any handler
    ran: its pending-call limit (1,000 soft, 3,000 hard) sat below such a burst
    (ServerConfig.max_pending_calls). Any refusal must carry its reason."""
    created = server.stub().CreateMatch(
        pb.CreateMatchRequest(
            game="dix", seats=[pb.SeatRequest(name="a"), pb.SeatRequest(name="b")]
        )
    )

    async def burst() -> Counter[str]:
        got: Counter[str] = Counter()
        async with grpc.aio.insecure_channel(server.address) as channel:
            stub = kozyr_pb2_grpc.KozyrServiceStub(channel)

            async def watch() -> None:
                call = stub.WatchMatch(pb.WatchMatchRequest(match_id=created.match_id), timeout=120)
                try:
                    async for update in call:
                        got["OK" if update.version >= 1 else "empty"] += 1
                        break
                except grpc.aio.AioRpcError as e:
                    reason = "no ErrorInfo" if error_info(e) is None else "with ErrorInfo"
                    got[f"{e.code().name} {reason}"] += 1
                finally:
                    call.cancel()

            await asyncio.gather(*(watch() for _ in range(2000)))
        return got

    assert asyncio.run(burst()) == {"OK": 2000}
