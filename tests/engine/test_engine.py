"""The engine's retry and catch-up logic, on the in-memory store (milliseconds, no Redis).

Two Engine objects on one MemoryStore stand for two server processes with their own caches.
"""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from kozyr.engine import Engine, early_endings
from kozyr.match.errors import Kind, MatchError
from kozyr.match.log import Entry
from kozyr.match.record import MatchRecord, fold_entries
from kozyr.store.memory import MemoryStore

PLAYERS = {"dix": 2, "six-dozens": 3, "durak-dice": 4}


def run(body: Callable[[MemoryStore], Awaitable[None]]) -> None:
    asyncio.run(body(MemoryStore()))


def engine(store: MemoryStore) -> Engine:
    ticks = itertools.count(1_767_225_600)
    return Engine(store, clock=lambda: float(next(ticks)), random_bytes=random.Random(7).randbytes)


def seats(game: str) -> list[tuple[str, bytes]]:
    return [(f"p{i}", b"") for i in range(PLAYERS[game])]


async def stored_record(store: MemoryStore, match_id: str) -> MatchRecord:
    rows = await store.read_after(match_id, 0)
    assert [r.version for r in rows] == list(range(1, len(rows) + 1))
    # The log withholds the match seed (docs/fairness.md §1): a fresh process folds it with the
    # server seed it keeps apart, as the engine does.
    seed = await store.meta(match_id, "server_seed")
    assert seed is not None
    return fold_entries(
        (Entry.from_canonical(r.text) for r in rows), server_seed=bytes.fromhex(seed)
    )


async def random_move(eng: Engine, match_id: str, rng: random.Random, n: int) -> Any:
    record = await eng.record(match_id)
    seat = record.game.to_act(record.state)
    assert seat is not None
    legal = record.game.legal_commands(record.state, seat)
    return await eng.submit(match_id, seat, rng.choice(legal), f"c{n}")


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_a_match_plays_to_its_end_and_the_cache_equals_the_fold_of_the_log(game: str) -> None:
    async def body(store: MemoryStore) -> None:
        eng, rng = engine(store), random.Random(game)
        match_id = (await eng.create(game, {}, seats(game))).match_id
        for n in range(5_000):
            step = await random_move(eng, match_id, rng, n)
            if step.record.finished:
                break
        assert step.record.finished and step.record.revealed_seed
        folded = await stored_record(store, match_id)
        assert folded == step.record == await eng.record(match_id)

    run(body)


def test_a_stale_cache_catches_up_and_decides_again() -> None:
    async def body(store: MemoryStore) -> None:
        a, b = engine(store), engine(store)
        rng = random.Random(1)
        match_id = (await a.create("dix", {}, seats("dix"))).match_id
        await b.record(match_id)  # b caches version 1
        for n in range(3):  # a moves on; b's cache is now 3 versions behind
            await random_move(a, match_id, rng, n)
        # b decides on its stale cache: the seat to act there may not be the seat to act now,
        # and the append conflicts; either way b must catch up and answer as of now.
        now = await a.record(match_id)
        seat = now.game.to_act(now.state)
        assert seat is not None
        command = now.game.legal_commands(now.state, seat)[0]
        step = await b.submit(match_id, seat, command, "late-1")
        assert step.entry.version == now.version + 1
        assert await stored_record(store, match_id) == step.record

    run(body)


def test_a_repeated_command_id_appends_once_and_answers_the_same() -> None:
    async def body(store: MemoryStore) -> None:
        a, b = engine(store), engine(store)
        match_id = (await a.create("durak-dice", {}, seats("durak-dice"))).match_id
        record = await a.record(match_id)
        seat = record.game.to_act(record.state)
        assert seat is not None
        command = record.game.legal_commands(record.state, seat)[0]
        first = await a.submit(match_id, seat, command, "once")
        again = await a.submit(match_id, seat, command, "once")
        elsewhere = await b.submit(match_id, seat, command, "once")  # another process's retry
        assert first.entry == again.entry == elsewhere.entry
        assert await store.version(match_id) == 2

    run(body)


def test_a_stale_expected_version_is_refused_after_catching_up() -> None:
    async def body(store: MemoryStore) -> None:
        eng = engine(store)
        match_id = (await eng.create("dix", {}, seats("dix"))).match_id
        record = await eng.record(match_id)
        seat = record.game.to_act(record.state)
        assert seat is not None
        await eng.submit(match_id, seat, record.game.legal_commands(record.state, seat)[0], "a")
        record = await eng.record(match_id)
        seat = record.game.to_act(record.state)
        assert seat is not None
        command = record.game.legal_commands(record.state, seat)[0]
        with pytest.raises(MatchError) as refused:
            await eng.submit(match_id, seat, command, "x", expected_version=1)
        assert (refused.value.kind, refused.value.code) == (Kind.CONFLICT, "STALE_VERSION")
        assert await store.version(match_id) == 2
        step = await eng.submit(match_id, seat, command, "x", expected_version=2)
        assert step.entry.version == 3

    run(body)


def test_a_refusal_by_the_rules_names_its_code_and_changes_nothing() -> None:
    async def body(store: MemoryStore) -> None:
        eng = engine(store)
        match_id = (await eng.create("dix", {}, seats("dix"))).match_id
        record = await eng.record(match_id)
        seat = record.game.to_act(record.state)
        assert seat is not None
        command = record.game.legal_commands(record.state, seat)[0]
        with pytest.raises(MatchError) as refused:
            await eng.submit(match_id, 1 - seat, command, "wrong-seat")
        assert refused.value.kind is Kind.RULES and refused.value.code == "NOT_YOUR_TURN"
        assert await store.version(match_id) == 1

    run(body)


def test_a_log_behind_the_cache_is_refused_and_never_written_over() -> None:
    async def body(store: MemoryStore) -> None:
        eng, rng = engine(store), random.Random(3)
        match_id = (await eng.create("dix", {}, seats("dix"))).match_id
        for n in range(3):
            await random_move(eng, match_id, rng, n)
        store.delete_top(match_id, 2)  # the store lost acknowledged entries (a failover)
        for attempt in range(3):  # refused again and again, never appended over version 2
            with pytest.raises(MatchError) as behind:
                await random_move(eng, match_id, rng, 10 + attempt)
            assert (behind.value.kind, behind.value.code) == (Kind.UNAVAILABLE, "STREAM_BEHIND")
            assert "kozyr repair" in behind.value.message
            assert await store.version(match_id) == 2
        restarted = engine(store)  # a new process: the store's own fence still refuses
        with pytest.raises(MatchError) as again:
            await random_move(restarted, match_id, rng, 20)
        assert again.value.code == "STREAM_BEHIND"
        assert await store.repair(match_id) == (4, 2)
        for n, server in enumerate((eng, restarted)):  # after the repair both accept the log
            step = await random_move(server, match_id, rng, 30 + n)
            assert step.entry.version == await store.version(match_id)
        assert await store.version(match_id) == 4
        await stored_record(store, match_id)  # gapless and folds

    run(body)


def test_a_process_remembers_a_rollback_its_store_forgot() -> None:
    async def body(store: MemoryStore) -> None:
        eng, rng = engine(store), random.Random(4)
        match_id = (await eng.create("dix", {}, seats("dix"))).match_id
        for n in range(3):
            await random_move(eng, match_id, rng, n)
        store.delete_top(match_id, 2)
        await store.repair(match_id)  # fence and all rolled back, as an old backup would be
        store._logs[match_id].meta.pop("repaired")  # ...with no trace of a repair
        with pytest.raises(MatchError) as behind:
            await random_move(eng, match_id, rng, 10)
        assert behind.value.code == "STREAM_BEHIND"
        with pytest.raises(MatchError):
            await random_move(eng, match_id, rng, 11)
        assert await store.version(match_id) == 2
        await store.repair(match_id)  # the operator's repair is what lets it go on
        assert (await random_move(eng, match_id, rng, 12)).entry.version == 3

    run(body)


def test_the_last_join_starts_the_match_and_a_taken_seat_is_refused() -> None:
    async def body(store: MemoryStore) -> None:
        eng = engine(store)
        created = await eng.create("six-dozens", {}, [("ann", b""), ("", b""), ("", b"")])
        match_id = created.match_id
        first = await eng.join(match_id, "bob", seat=2, contribution=b"\x01")
        assert (first.seat, first.started) == (2, False)
        with pytest.raises(MatchError) as taken:
            await eng.join(match_id, "eve", seat=2)
        assert taken.value.code == "SEAT_TAKEN"
        last = await eng.join(match_id, "cid")
        assert (last.seat, last.started, last.version) == (1, True, 3)
        record = await stored_record(store, match_id)
        assert record.names == ("ann", "cid", "bob") and record.started

    run(body)


def test_a_watcher_sees_every_entry_another_process_appends_in_order() -> None:
    async def body(store: MemoryStore) -> None:
        writer, reader = engine(store), engine(store)
        rng = random.Random(5)
        match_id = (await writer.create("dix", {"single_hand": "true"}, seats("dix"))).match_id
        seen: list[int] = []

        async def watch() -> None:
            async for step in reader.updates(match_id, 0):
                seen.append(step.entry.version)

        watcher = asyncio.ensure_future(watch())
        for n in range(1_000):
            step = await random_move(writer, match_id, rng, n)
            await asyncio.sleep(0)
            if step.record.finished:
                break
        await asyncio.wait_for(watcher, 30)
        assert seen == list(range(1, step.entry.version + 1))
        await reader.close()

    run(body)


@pytest.mark.parametrize("expected", [-1, 0, 2**63 - 1])
def test_an_impossible_expected_version_is_a_bad_request_not_a_conflict(expected: int) -> None:
    async def body(store: MemoryStore) -> None:
        eng = engine(store)
        match_id = (await eng.create("dix", {}, seats("dix"))).match_id
        record = await eng.record(match_id)
        seat = record.game.to_act(record.state)
        assert seat is not None
        command = record.game.legal_commands(record.state, seat)[0]
        with pytest.raises(MatchError) as refused:
            await eng.submit(match_id, seat, command, "x", expected_version=expected)
        assert (refused.value.kind, refused.value.code) == (
            Kind.BAD_REQUEST,
            "BAD_EXPECTED_VERSION",
        )
        assert await store.version(match_id) == 1

    run(body)


def test_the_state_cache_stays_within_its_bytes_and_evicted_matches_reload() -> None:
    async def body(store: MemoryStore) -> None:
        eng = Engine(store, cache_bytes=40_000)
        rng = random.Random(9)
        matches = [(await eng.create("dix", {}, seats("dix"))).match_id for _ in range(20)]
        for n in range(200):
            await random_move(eng, rng.choice(matches), rng, n)
        assert eng._cached_bytes <= 40_000
        assert eng._cached_bytes == sum(eng._sizes.values())
        assert set(eng._sizes) == set(eng._cache)
        assert 1 <= len(eng._cache) < len(matches)  # some were evicted...
        for match_id in matches:  # ...and every one is still served exactly as its log says
            assert await eng.record(match_id) == await stored_record(store, match_id)

    run(body)


def test_a_sink_is_handed_own_steps_within_their_appends_and_others_come_from_the_log() -> None:
    """Engine.updates with a sink: the steps this process appends reach the sink before the
    append returns (no task is woken for them); another process's come through the generator;
    between them every version comes once, in order; a sink's error ends the follower."""

    async def body(store: MemoryStore) -> None:
        own, other = engine(store), engine(store)
        rng = random.Random(11)
        match_id = (await own.create("dix", {"single_hand": "true"}, seats("dix"))).match_id
        handed: list[int] = []
        yielded: list[int] = []

        async def follow() -> None:
            async for step in own.updates(
                match_id, 0, sink=lambda s: handed.append(s.entry.version)
            ):
                yielded.append(step.entry.version)

        follower = asyncio.ensure_future(follow())
        while not yielded:  # the start of the log is read (and the follow is on)
            await asyncio.sleep(0.01)
        for n in range(1_000):
            writer = own if n % 4 else other
            step = await random_move(writer, match_id, rng, n)
            if writer is own and step.entry.version in handed:
                assert handed[-1] == step.entry.version  # before the append returned
            for _ in range(20):  # let the follower read what the other process appended
                await asyncio.sleep(0.01)
                if step.record.finished or step.entry.version in handed + yielded:
                    break
            if step.record.finished:
                break
        await asyncio.wait_for(follower, 30)
        assert sorted(handed + yielded) == list(range(1, step.entry.version + 1))
        assert len(handed) > len(yielded) > 1

        def broken(step: Any) -> None:
            raise RuntimeError("sink failed")

        match_id = (await own.create("dix", {"single_hand": "true"}, seats("dix"))).match_id

        async def fail() -> None:
            async for _ in own.updates(match_id, 0, sink=broken):
                pass

        failing = asyncio.ensure_future(fail())
        await asyncio.sleep(0.05)
        await random_move(own, match_id, rng, 0)  # the append itself succeeds
        with pytest.raises(RuntimeError, match="sink failed"):
            await asyncio.wait_for(failing, 30)
        await own.close()
        await other.close()

    run(body)


class _GatedEnding:
    """A lifecycle listener that holds the append that ends a match until `gate` is set (as
    the transparency log's file write does, in a thread)."""

    def __init__(self) -> None:
        self.entered, self.gate = asyncio.Event(), asyncio.Event()

    async def creating(self, tenant: str, match_id: str) -> None:
        pass

    async def appended(self, before: MatchRecord | None, step: Any, tenant: str = "") -> None:
        if step.record.finished:
            self.entered.set()
            await self.gate.wait()


def test_a_watcher_hears_of_the_end_only_after_the_lifecycle_listener_was_told() -> None:
    """writing.committed tells the lifecycle listener first, so a tree head asked for after
    the end holds it: the store's tick, which comes while the listener is at work, waits
    for the writer to be done (it once woke the watcher, who read the end from the log)."""

    async def body(store: MemoryStore) -> None:
        eng, listener = engine(store), _GatedEnding()
        eng.lifecycle = listener
        match_id = (await eng.create("dix", {"single_hand": "true"}, seats("dix"))).match_id
        seen: list[MatchRecord] = []

        async def watch() -> None:
            async for step in eng.updates(match_id, 0):
                seen.append(step.record)

        watcher = asyncio.ensure_future(watch())
        while not seen:
            await asyncio.sleep(0.01)
        ending = asyncio.ensure_future(early_endings.resign(eng, match_id, 0, "r1"))
        await asyncio.wait_for(listener.entered.wait(), 30)
        for _ in range(3_000):  # until the tick arrived (held) or the watcher read the end
            if eng.feeds.holding(match_id) or seen[-1].finished:
                break
            await asyncio.sleep(0.01)
        assert eng.feeds.holding(match_id) and not seen[-1].finished
        listener.gate.set()
        await asyncio.wait_for(asyncio.gather(ending, watcher), 30)
        assert seen[-1].finished and not eng.feeds.holding(match_id)
        await eng.close()

    run(body)
