"""Snapshots: a cold load from a snapshot and the tail equals the full fold for every game; a
damaged or foreign snapshot is discarded, reported and never trusted (in-memory store)."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import random
from collections.abc import Awaitable, Callable

import pytest

from kozyr.core.fairness import match_seed
from kozyr.engine import Engine
from kozyr.engine.snapshots import SnapshotError, dump, load, same_record
from kozyr.match.log import Entry
from kozyr.match.record import MatchRecord, fold_entries
from kozyr.store.memory import MemoryStore

PLAYERS = {"dix": 2, "six-dozens": 3, "durak-dice": 4}


def run(body: Callable[[MemoryStore], Awaitable[None]]) -> None:
    asyncio.run(body(MemoryStore()))


def engine(store: MemoryStore, every: int = 5) -> Engine:
    ticks = itertools.count(1_767_225_600)
    eng = Engine(store, clock=lambda: float(next(ticks)), random_bytes=random.Random(7).randbytes)
    eng.snapshots.every = every
    return eng


async def server_seed(store: MemoryStore, match_id: str) -> bytes:
    value = await store.meta(match_id, "server_seed")
    assert value is not None
    return bytes.fromhex(value)


async def full_fold(store: MemoryStore, match_id: str) -> MatchRecord:
    """The fold a server makes: the withheld match seed restored from the server seed."""
    return fold_entries(
        (Entry.from_canonical(r.text) for r in await store.read_after(match_id, 0)),
        server_seed=await server_seed(store, match_id),
    )


async def play(eng: Engine, game: str, moves: int, seed: int = 1) -> str:
    """A match of `game` with `moves` random moves at most (fewer if it ends)."""
    rng = random.Random(seed)
    match_id = (await eng.create(game, {}, [(f"p{i}", b"") for i in range(PLAYERS[game])])).match_id
    for n in range(moves):
        record = await eng.record(match_id)
        if record.finished:
            break
        seat = record.game.to_act(record.state)
        assert seat is not None
        command = rng.choice(record.game.legal_commands(record.state, seat))
        await eng.submit(match_id, seat, command, f"c{n}")
    await eng.snapshots.settle()
    return match_id


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_snapshot_and_tail_equal_the_full_fold_at_every_version(game: str) -> None:
    async def body(store: MemoryStore) -> None:
        match_id = await play(engine(store), game, 300)
        stored = await store.read_after(match_id, 0)
        entries = [Entry.from_canonical(r.text) for r in stored]
        seed = await server_seed(store, match_id)
        full = fold_entries(entries, server_seed=seed)
        record: MatchRecord | None = None
        for entry in entries:  # a snapshot at every 7th version (and the last), then the tail
            record = fold_entries([entry], record, server_seed=seed)
            if entry.version % 7 and entry.version != len(entries):
                continue
            text = dump(record)
            if record.started:  # the snapshot withholds the match seed, as the log does
                contributions = [bytes.fromhex(c) for c in record.contributions]
                assert match_seed(seed, contributions).hex() not in text
            snap = load(match_id, text, seed).record
            assert same_record(snap, record)
            rest = entries[entry.version :]
            assert same_record(fold_entries(rest, snap, server_seed=seed) if rest else snap, full)

    run(body)


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_a_cold_engine_loads_from_the_kept_snapshot(game: str) -> None:
    async def body(store: MemoryStore) -> None:
        match_id = await play(engine(store), game, 23)
        kept = await store.snapshot(match_id)
        assert kept is not None and kept[0] % 5 == 0
        cold = engine(store)
        record = await cold.record(match_id)
        assert same_record(record, await full_fold(store, match_id))
        assert cold.snapshots.loads == 1 and cold.snapshots.discarded == 0
        seed = await server_seed(store, match_id)
        assert await cold.snapshots.audit(match_id, load(match_id, kept[1], seed).record, seed)
        # Without the server seed a snapshot loads as a fold without it does: seedless.
        assert load(match_id, kept[1]).record.seedless

    run(body)


def damaged(text: str) -> list[tuple[str, str]]:
    """Ways a kept snapshot goes wrong: (what, text)."""
    digest, _, body = text.partition(":")
    data = json.loads(body)
    flipped = body.replace('"version":', '"version": ', 1)
    other_head = dict(data, head="0" * 64)
    return [
        ("not a snapshot", "garbage"),
        ("a body that is not its checksum's", f"{digest}:{flipped}"),
        ("undecodable under a good checksum", dump_raw({"format": 1, "game": "dix"})),
        ("a head that is not the stream's", dump_raw(other_head)),
    ]


def dump_raw(data: dict[str, object]) -> str:
    import hashlib

    body = json.dumps(data, separators=(",", ":"), sort_keys=True)
    return f"{hashlib.sha256(body.encode()).hexdigest()}:{body}"


def test_a_corrupted_snapshot_is_discarded_and_the_stream_folded_instead() -> None:
    async def body(store: MemoryStore) -> None:
        match_id = await play(engine(store), "six-dozens", 17)
        kept = await store.snapshot(match_id)
        assert kept is not None
        version, text = kept
        for what, bad in damaged(text):
            store._logs[match_id].snapshot = (version, bad)
            cold = engine(store)
            record = await cold.record(match_id)
            assert same_record(record, await full_fold(store, match_id)), what
            assert cold.snapshots.discarded == 1, what
            assert await store.snapshot(match_id) is None, what

    run(body)


def test_a_snapshot_that_differs_from_the_fold_is_discarded_by_the_audit() -> None:
    async def body(store: MemoryStore) -> None:
        match_id = await play(engine(store), "dix", 12)
        kept = await store.snapshot(match_id)
        assert kept is not None
        good = load(match_id, kept[1], await server_seed(store, match_id)).record
        # Intact and chained to the stream, yet not what the entries fold to.
        lying = dataclasses.replace(good, names=("x", "y"))
        store._logs[match_id].snapshot = (kept[0], dump(lying))
        cold = engine(store)
        cold.snapshots.audit_every = 1
        await cold.record(match_id)
        await cold.snapshots.settle()
        assert cold.snapshots.discarded == 1 and await store.snapshot(match_id) is None
        assert same_record(await cold.record(match_id), await full_fold(store, match_id))

    run(body)


def test_a_snapshot_of_another_match_is_refused() -> None:
    async def body(store: MemoryStore) -> None:
        match_id = await play(engine(store), "dix", 6)
        kept = await store.snapshot(match_id)
        assert kept is not None
        with pytest.raises(SnapshotError):
            load("0" * 16, kept[1])

    run(body)
