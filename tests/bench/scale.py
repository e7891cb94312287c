"""Scale-out benchmarks for bench.py (`make bench`, sections `scale`, `replicas`, `ray`):

- scale:    total moves/s through `kozyr serve --workers 1|2|4` on one Redis, and through one
            service process on a 3-master Redis Cluster against a single Redis with the same
            settings; Redis CPU per move (what one shard can take) and bytes per match;
- replicas: three `kozyr serve` on one Redis: the delay from a move's answer through one
            replica to a watcher's update on another;
- ray:      tournament matches/s on a local Ray (started before the clock runs) against the
            local process-pool runner, the same tournament and seed.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from tests.bench.harness import dix_request, dix_script

RUNS = 3
CONNECTIONS = 8  # client connections: the kernel spreads them over the workers


def serve(
    folder: str, workers: int, redis_url: str | None = None, seed_key: str | None = None
) -> tuple[Any, str]:
    """`kozyr serve --workers N` (embedded Redis unless `redis_url`); the process, address."""
    args = [
        sys.executable,
        "-m",
        "kozyr.cli",
        "serve",
        "--address",
        "127.0.0.1:0",
        "--data-dir",
        folder,
        "--json-logs",
        "--workers",
        str(workers),
        "--seed-key-file",
        seed_key or str(Path(folder) / "seed.key"),
    ]
    if redis_url:
        args += ["--redis-url", redis_url]
    proc = subprocess.Popen(args, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    address, serving = "", 0
    for line in proc.stderr:
        if " workers on " in line:
            address = line.rsplit(" ", 1)[1].strip()
        elif line.startswith("{") and json.loads(line).get("event") == "serving":
            address = address or json.loads(line)["address"]
            serving += 1
            if serving == workers:
                break
    else:
        raise RuntimeError("the service did not start")
    stream = proc.stderr
    threading.Thread(target=lambda: [None for _ in stream], daemon=True).start()
    return proc, address


async def moves_per_s(address: str, matches: int) -> float:
    """Total moves/s of `matches` concurrent scripted Dix matches over CONNECTIONS channels."""
    import grpc

    from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
    from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc

    own = [("grpc.use_local_subchannel_pool", 1)]  # a connection of its own per channel
    channels = [grpc.aio.insecure_channel(address, options=own) for _ in range(CONNECTIONS)]
    stubs = [kozyr_pb2_grpc.KozyrServiceStub(c) for c in channels]
    scripts = [dix_script(f"s{i}".encode(), 1) for i in range(matches)]

    async def play(i: int) -> int:
        stub = stubs[i % CONNECTIONS]
        decks, moves = scripts[i]
        r = await stub.CreateMatch(dix_request(decks))
        tokens = [t.token for t in sorted(r.tokens, key=lambda t: t.seat)]
        await ready.wait()
        for seat, card in moves:
            await stub.SubmitMove(
                pb.SubmitMoveRequest(
                    match_id=r.match_id,
                    command_id=uuid.uuid4().hex,
                    move=pb.Move(dix=pb.DixMove(play=pb.PlayCard(card=card))),
                ),
                metadata=[("authorization", f"Bearer {tokens[seat]}")],
            )
        return len(moves)

    ready = asyncio.Event()
    tasks = [asyncio.create_task(play(i)) for i in range(matches)]
    await asyncio.sleep(1.0)  # every match created before the clock starts
    start = time.perf_counter()
    ready.set()
    total = sum(await asyncio.gather(*tasks))
    elapsed = time.perf_counter() - start
    for c in channels:
        await c.close()
    return total / elapsed


def redis_cpu(port: int) -> float:
    """CPU seconds the Redis on `port` has used."""
    import redis

    info = redis.Redis(port=port).info("cpu")
    return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


def bench_scale(matches: int) -> dict[str, Any]:
    """Moves/s with 1, 2, 4 workers; cluster against single Redis; Redis CPU per move."""
    from tests.cluster.harness import LocalCluster

    out: dict[str, Any] = {"concurrent_matches": matches, "cores": os.cpu_count()}
    with tempfile.TemporaryDirectory() as tmp:
        single = LocalCluster(Path(tmp) / "single").start_single()
        cluster = LocalCluster(Path(tmp) / "cluster").start()
        try:
            for workers in (1, 2, 4):
                out[f"moves_per_s_{workers}_workers"] = round(
                    _median_rate(
                        Path(tmp) / f"w{workers}",
                        workers,
                        f"redis://127.0.0.1:{single.port}",
                        matches,
                    )
                )
            before = redis_cpu(single.port)
            moves = _median_rate(
                Path(tmp) / "single1",
                1,
                f"redis://127.0.0.1:{single.port}",
                matches,
                runs=1,
                count=True,
            )
            out["redis_cpu_ms_per_move"] = round((redis_cpu(single.port) - before) * 1e3 / moves, 4)
            out["single_redis_moves_per_s_1_worker"] = out["moves_per_s_1_workers"]
            out["cluster_moves_per_s_1_worker"] = round(
                _median_rate(Path(tmp) / "c1", 1, cluster.url, matches)
            )
            out["cluster_moves_per_s_2_workers"] = round(
                _median_rate(Path(tmp) / "c2", 2, cluster.url, matches)
            )
            out["bytes_per_finished_dix_match"] = _match_bytes(single.port)
        finally:
            cluster.stop()
            single.process.kill()
    out["speedup_2_to_1_workers"] = round(
        out["moves_per_s_2_workers"] / out["moves_per_s_1_workers"], 2
    )
    out["speedup_4_to_1_workers"] = round(
        out["moves_per_s_4_workers"] / out["moves_per_s_1_workers"], 2
    )
    out["cluster_to_single_ratio_1_worker"] = round(
        out["cluster_moves_per_s_1_worker"] / out["moves_per_s_1_workers"], 2
    )
    for k, v in out.items():
        print(f"  {k:36} {v}", flush=True)
    return out


def _median_rate(
    folder: Path, workers: int, url: str, matches: int, runs: int = RUNS, count: bool = False
) -> float:
    """The median moves/s of `runs` runs on one service (with `count`: the moves played)."""
    folder.mkdir(parents=True, exist_ok=True)
    proc, address = serve(str(folder), workers, url)
    try:
        if count:
            start = time.perf_counter()
            rate = asyncio.run(moves_per_s(address, matches))
            return rate * (time.perf_counter() - start - 1.0)
        return statistics.median(asyncio.run(moves_per_s(address, matches)) for _ in range(runs))
    finally:
        proc.terminate()
        proc.wait(60)


def _match_bytes(port: int) -> int:
    """Redis memory of one finished scripted Dix match (all its keys)."""
    import redis

    client = redis.Redis(port=port, decode_responses=True)
    ids = {
        k.split("{", 1)[1].split("}", 1)[0] for k in client.scan_iter("kozyr:{*}:log", count=1000)
    }
    sample = sorted(ids)[:50]
    sizes = [
        sum(int(client.memory_usage(k) or 0) for k in client.scan_iter(f"kozyr:{{{m}}}:*"))
        for m in sample
    ]
    return int(statistics.median(sizes)) if sizes else 0


async def watch_delays(mover: str, watcher_address: str, moves: int) -> list[float]:
    """Seconds from each move's answer (through `mover`) to a spectator's update on the
    watcher's replica."""
    import grpc

    from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
    from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc

    a = kozyr_pb2_grpc.KozyrServiceStub(grpc.aio.insecure_channel(mover))
    w = kozyr_pb2_grpc.KozyrServiceStub(grpc.aio.insecure_channel(watcher_address))
    decks, script = dix_script(b"watch", 2)
    r = await a.CreateMatch(dix_request(decks))
    tokens = [t.token for t in sorted(r.tokens, key=lambda t: t.seat)]
    seen: dict[int, float] = {}

    async def watch() -> None:
        async for update in w.WatchMatch(pb.WatchMatchRequest(match_id=r.match_id)):
            seen[update.version] = time.perf_counter()

    task = asyncio.create_task(watch())
    await asyncio.sleep(0.5)
    delays = []
    for seat, card in script[:moves]:
        done = await a.SubmitMove(
            pb.SubmitMoveRequest(
                match_id=r.match_id,
                command_id=uuid.uuid4().hex,
                move=pb.Move(dix=pb.DixMove(play=pb.PlayCard(card=card))),
            ),
            metadata=[("authorization", f"Bearer {tokens[seat]}")],
        )
        answered = time.perf_counter()
        for _ in range(2000):  # bounded: 2 s at most
            if done.version in seen:
                break
            await asyncio.sleep(0.001)
        delays.append(seen.get(done.version, answered + 2.0) - answered)
    task.cancel()
    return delays


def bench_replicas() -> dict[str, Any]:
    """Three replicas on one Redis: the watch delay across replicas."""
    from tests.cluster.harness import LocalCluster

    with tempfile.TemporaryDirectory() as tmp:
        single = LocalCluster(Path(tmp) / "redis").start_single()
        url = f"redis://127.0.0.1:{single.port}"
        key = str(Path(tmp) / "seed.key")  # replicas on one Redis share the seed key
        procs = [serve(str(Path(tmp) / f"r{i}"), 1, url, key) for i in range(3)]
        try:
            delays = asyncio.run(watch_delays(procs[0][1], procs[2][1], 50))
        finally:
            for proc, _ in procs:
                proc.terminate()
                proc.wait(60)
            single.process.kill()
    ms = sorted(d * 1e3 for d in delays)
    out = {
        "replicas": 3,
        "moves": len(ms),
        "watch_delay_ms_median": round(statistics.median(ms), 2),
        "watch_delay_ms_p90": round(ms[int(len(ms) * 0.9)], 2),
        "watch_delay_ms_max": round(ms[-1], 2),
    }
    for k, v in out.items():
        print(f"  {k:36} {v}", flush=True)
    return out


def bench_ray(matches: int) -> dict[str, Any]:
    """Tournament matches/s on a local Ray (2 CPUs) against the local runner (2 workers)."""
    import ray

    from kozyr.tournament import Tournament, run
    from kozyr.tournament.ray_runner import run_on_ray

    t = Tournament(
        "dix", ("heuristic", "random"), (("single_hand", "true"),), "duplicate", matches, 1
    )
    started = time.perf_counter()
    ray.init(
        num_cpus=os.cpu_count() or 2,
        include_dashboard=False,
        log_to_driver=False,
        logging_level="WARNING",
    )
    startup = time.perf_counter() - started
    local, on_ray = [], []
    try:
        for _ in range(RUNS):
            local.append(run(t, workers=os.cpu_count() or 2).matches_per_second)
            on_ray.append(run_on_ray(t, "auto").matches_per_second)
    finally:
        ray.shutdown()
    out = {
        "tournament": f"dix single_hand, heuristic vs random, {matches} matches",
        "local_runner_matches_per_s": round(statistics.median(local), 1),
        "ray_matches_per_s": round(statistics.median(on_ray), 1),
        "ray_to_local_ratio": round(statistics.median(on_ray) / statistics.median(local), 2),
        "ray_startup_s": round(startup, 1),
    }
    for k, v in out.items():
        print(f"  {k:36} {v}", flush=True)
    return out
