"""The timer loop on the in-memory store with an injected clock: two engines stand for two
replicas. Exactly once: a timeout is appended once whoever claims it, a move that lands first
wins, and a claim held by a dead replica is taken over when its lease ends."""

from __future__ import annotations

import asyncio
import json
import random

from kozyr.actors.seatbots import SeatBots
from kozyr.actors.timers import Timers
from kozyr.engine import Engine
from kozyr.match import clock
from kozyr.store.memory import MemoryStore

T0 = 1_767_225_600.0
LIMIT = 1_000


class Clock:
    """A clock the test moves by hand (seconds, like time.time)."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


def replica(store: MemoryStore, now: Clock, seed: int) -> tuple[Engine, Timers]:
    engine = Engine(store, clock=now, random_bytes=random.Random(seed).randbytes)
    return engine, Timers(engine, SeatBots(engine), lease_ms=500)


async def timed(engine: Engine) -> str:
    terms = clock.make_terms(clock="DECISION", limit_ms=LIMIT)
    return (await engine.create("dix", {}, [("a", b""), ("b", b"")], terms=terms)).match_id


async def timeouts(store: MemoryStore, match_id: str) -> list[dict[str, object]]:
    return [
        e
        for row in await store.read_after(match_id, 0)
        for e in json.loads(row.text)["events"]
        if e["type"] == "TimedOut"
    ]


def test_two_replicas_claiming_at_once_append_one_timeout() -> None:
    async def body() -> None:
        store, now = MemoryStore(), Clock()
        (a, ta), (b, tb) = replica(store, now, 1), replica(store, now, 2)
        match_id = await timed(a)
        await asyncio.sleep(0)
        assert await ta.tick() == 0  # not due yet
        now.now += LIMIT / 1000
        await asyncio.gather(ta.tick(), tb.tick())
        assert len(await timeouts(store, match_id)) == 1
        assert (await b.record(match_id)).outcome.termination == "TIMED_OUT"
        await asyncio.gather(ta.close(), tb.close())
        assert await store.deadline_of(match_id) is None  # finished: no deadline left

    asyncio.run(body())


def test_a_move_that_lands_first_wins_over_the_timeout() -> None:
    async def body() -> None:
        store, now = MemoryStore(), Clock()
        (a, ta), (b, tb) = replica(store, now, 1), replica(store, now, 2)
        match_id = await timed(a)
        record = await a.record(match_id)
        seat = record.game.to_act(record.state)
        now.now += LIMIT / 1000  # exactly at the deadline: still in time
        await a.submit(match_id, seat, record.game.legal_commands(record.state, seat)[0], "c1")
        await asyncio.sleep(0)
        assert await tb.tick() == 0 or not await timeouts(store, match_id)
        assert not (await b.record(match_id)).finished
        await asyncio.gather(ta.close(), tb.close())

    asyncio.run(body())


def test_a_claim_held_by_a_dead_replica_is_covered_when_its_lease_ends() -> None:
    async def body() -> None:
        store, now = MemoryStore(), Clock()
        (a, ta), (_, tb) = replica(store, now, 1), replica(store, now, 2)
        match_id = await timed(a)
        await asyncio.sleep(0)
        now.now += LIMIT / 1000
        # Replica a claims the deadline and dies before it appends anything.
        assert [m for m, _ in await store.claim_deadlines(int(now.now * 1000), 500, 10)] == [
            match_id
        ]
        assert await tb.tick() == 0  # the claim's lease still holds
        now.now += 0.5
        assert await tb.tick() == 1
        assert len(await timeouts(store, match_id)) == 1
        await asyncio.gather(ta.close(), tb.close())

    asyncio.run(body())


def test_an_alarm_replaced_since_no_longer_wakes_the_loop() -> None:
    """A bot match that ends within its slack leaves no alarm to wake for (the loop polled
    every deadline shard for each such match before); a standing alarm still wakes it."""

    async def body() -> None:
        store, now = MemoryStore(), Clock()
        engine, timers = replica(store, now, 1)
        bots = timers.seatbots
        terms = clock.make_terms(bots=["random", "random"])
        created = await engine.create(
            "dix", {"single_hand": "true"}, [("a", b""), ("b", b"")], terms=terms
        )
        await asyncio.sleep(0)  # the run starts; each append records the match's alarm
        await bots.wait()
        assert (await engine.record(created.match_id)).finished
        await asyncio.sleep(0)  # the deadline writes in the background
        assert await store.deadline_of(created.match_id) is None
        start = int(T0 * 1000)
        assert timers.next_alarm(start) is None
        match_id = await timed(engine)
        await asyncio.sleep(0)
        assert timers.next_alarm(start) == await store.deadline_of(match_id) == start + LIMIT
        await timers.close()

    asyncio.run(body())
