"""The speed figures of issue 15 for tests/bench/bench.py: PlaySession moves beside unary
SubmitMove and health checks (interleaved on one server), the move latency at version ~10 and
~1,000 timed alternately, and a cold rebuild of a 1,000-entry match beside the raw XRANGE."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
import uuid
from typing import Any

RUNS = 5


async def session_rate(
    stub: Any,
    created: list[tuple[str, list[str]]],
    scripts: list[tuple[list[str], list[tuple[int, str]]]],
) -> float:
    """Moves/s of the scripted matches over PlaySession (one stream per stub, all seats)."""
    from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb

    outbox: asyncio.Queue[pb.SessionRequest | None] = asyncio.Queue()
    seats = [
        pb.SessionSeat(match_id=m, seat=s, token=t, skip_events=True)
        for m, tokens in created
        for s, t in enumerate(tokens)
    ]
    await outbox.put(pb.SessionRequest(seats=seats))
    script = {m: moves for (m, _), (_, moves) in zip(created, scripts, strict=True)}
    left = len(seats)

    async def requests() -> Any:
        while (request := await outbox.get()) is not None:
            yield request

    start = time.perf_counter()
    call = stub.PlaySession(requests())
    total = 0
    async for message in call:
        moves = []
        for push in message.pushes:
            kind = push.WhichOneof("kind")
            if kind == "decision":
                d = push.decision
                _, card = script[d.match_id][d.version - 1]  # version 1 is the creation
                moves.append(
                    pb.SessionMove(
                        match_id=d.match_id,
                        seat=d.seat,
                        command_id=f"v{d.version}",
                        version=d.version,
                        move=pb.Move(dix=pb.DixMove(play=pb.PlayCard(card=card))),
                    )
                )
                total += 1
            elif kind == "finished":
                left -= 1
            else:
                raise RuntimeError(f"refused: {push.refusal}")
        if moves:
            await outbox.put(pb.SessionRequest(moves=moves))
        if left == 0:
            break
    elapsed = time.perf_counter() - start
    await outbox.put(None)
    call.cancel()
    return total / elapsed


async def alternating_latency(
    stub: Any, new_match: Any, script_of: Any, move: Any, hands: int
) -> dict[str, float]:
    """Median SubmitMove latency at versions ~10 and ~1,000, the two bands timed alternately
    (one move on a fresh match, one on a long one), so both see the same machine load."""
    decks, long_script = script_of(b"long", hands)
    long_id, long_tokens = await new_match(stub, decks)
    version = 1
    for seat, card in long_script[:985]:
        await stub.SubmitMove(move(long_id, card), metadata=_auth(long_tokens[seat]))
        version += 1
    early, late = [], []
    for k in range(3):
        decks, short_script = script_of(f"short{k}".encode(), 1)
        short_id, short_tokens = await new_match(stub, decks)
        for i in range(25):
            start = time.perf_counter()
            seat, card = short_script[i]
            await stub.SubmitMove(move(short_id, card), metadata=_auth(short_tokens[seat]))
            if i >= 3:
                early.append(time.perf_counter() - start)
            seat, card = long_script[version - 1]
            start = time.perf_counter()
            await stub.SubmitMove(move(long_id, card), metadata=_auth(long_tokens[seat]))
            late.append(time.perf_counter() - start)
            version += 1
    return {
        "early": statistics.median(early),
        "late": statistics.median(late),
        "late_version": version,
    }


def _auth(token: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")]


# ---------------------------------------------------------------------------- cold rebuild


def bench_cold(entries: int = 1000) -> dict[str, Any]:
    """A cold rebuild of an `entries`-entry Dix match (a fresh engine's first record())
    with the kept snapshot, and without one, beside the raw XRANGE of the same stream."""
    from kozyr.engine import Engine
    from kozyr.store.redis.embedded import EmbeddedRedis
    from kozyr.store.redis.streams import RedisStore

    async def main(url: str) -> dict[str, Any]:
        store = RedisStore.from_url(url)
        match_id = await _long_match(Engine(store), entries)  # a snapshot every 64 entries
        bare = Engine(store)
        bare.snapshots.every = 0  # none
        bare_id = await _long_match(bare, entries)
        raw, warm, bare = [], [], []

        async def timed(coro: Any) -> float:
            start = time.perf_counter()
            await coro
            return time.perf_counter() - start

        for _ in range(RUNS * 4):  # interleaved, so all three see the same load
            raw.append(await timed(store.read_after(match_id, 0)))
            warm.append(await timed(Engine(store).record(match_id)))
            bare.append(await timed(Engine(store).record(bare_id)))
        await store.close()
        xr, snap, full = (statistics.median(x) for x in (raw, warm, bare))
        return {
            "entries": entries,
            "raw_xrange_ms": round(xr * 1e3, 2),
            "cold_rebuild_with_snapshot_ms": round(snap * 1e3, 2),
            "cold_rebuild_full_fold_ms": round(full * 1e3, 2),
            "snapshot_rebuild_to_xrange_ratio": round(snap / xr, 2),
            "full_fold_rebuild_to_xrange_ratio": round(full / xr, 2),
        }

    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(tmp) as redis:
        out = asyncio.run(main(redis.url))
    for k, v in out.items():
        print(f"  {k:36} {v}", flush=True)
    return out


async def _long_match(engine: Any, entries: int) -> str:
    """A Dix match (many hands, no target) played by scripted moves to `entries` entries."""
    import random

    rng = random.Random(entries)
    created = await engine.create(
        "dix", {"target": "10000", "max_hands": "100"}, [("a", b""), ("b", b"")]
    )
    match_id = created.match_id
    for n in range(entries - 1):
        record = await engine.record(match_id)
        seat = record.game.to_act(record.state)
        legal = record.game.legal_commands(record.state, seat)
        await engine.submit(match_id, seat, rng.choice(legal), uuid.uuid4().hex[:8] + str(n))
    await engine.snapshots.settle()
    return str(match_id)


# ---------------------------------------------------------------------------- the lane


def bench_lane(calls: int = 4000) -> dict[str, Any]:
    """CPU of this process per script call: redis-py's pooled AsyncScript against the appends'
    own connection (ScriptLane), one at a time and 16 at once, interleaved, medians."""
    from redis import asyncio as aioredis

    from kozyr.store.redis.embedded import EmbeddedRedis
    from kozyr.store.redis.lane import ScriptLane

    async def main(url: str) -> dict[str, Any]:
        client = aioredis.Redis.from_url(url, decode_responses=True, socket_timeout=5)
        script = client.register_script("return {'OK', ARGV[1]}")
        lane = ScriptLane.for_client(client, script)
        assert lane is not None
        paths = {
            "redis_py": lambda: script(keys=["k"], args=["1"]),
            "lane": lambda: lane(["k"], ["1"]),
        }
        await paths["redis_py"]()
        samples: dict[str, list[float]] = {f"{p}_{c}": [] for p in paths for c in (1, 16)}

        async def cpu_per_call(call: Any, at_once: int) -> float:
            async def loop() -> None:
                for _ in range(calls // at_once):
                    await call()

            start = time.process_time()
            await asyncio.gather(*(loop() for _ in range(at_once)))
            return (time.process_time() - start) / calls

        for _ in range(RUNS):
            for at_once in (1, 16):
                for name, call in paths.items():
                    samples[f"{name}_{at_once}"].append(await cpu_per_call(call, at_once))
        lane.close()
        await client.aclose()
        m = {k: statistics.median(v) for k, v in samples.items()}
        return {
            "redis_py_us_alone": round(m["redis_py_1"] * 1e6),
            "lane_us_alone": round(m["lane_1"] * 1e6),
            "redis_py_us_16_at_once": round(m["redis_py_16"] * 1e6),
            "lane_us_16_at_once": round(m["lane_16"] * 1e6),
            "lane_to_redis_py_16_at_once": round(m["lane_16"] / m["redis_py_16"], 2),
        }

    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(tmp) as redis:
        out = asyncio.run(main(redis.url))
    for k, v in out.items():
        print(f"  {k:36} {v}", flush=True)
    return out
