"""The clocks section of `make bench`: deadline lateness, the time from a decision's deadline
to the appended timeout, read from the log itself (the entry's `time_ms` minus the TimedOut's
`deadline_ms`, both by the server's clock), with many clocks running at once.

N matches (Dix, 3 s per decision, AUTO_MOVE) are created on one `kozyr serve` and nobody moves:
every decision times out and the server plays the default one, so N clocks run for the whole
measurement. p50 and p99 over every timeout whose deadline fell in the measured window (the
clocks go on while the logs are read afterwards); 100 and 1,000 clocks side by side.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import tempfile
import time
from typing import Any

from tests.bench.harness import start_service

ARBITER = "arbiter-token-for-the-clock-bench-0123456789"
LIMIT_MS = 3_000


def start(tmp: str) -> tuple[subprocess.Popen[str], str]:
    """`kozyr serve` with an embedded Redis and an arbiter token; its address."""
    return start_service(tmp, env={**os.environ, "KOZYR_ARBITER_TOKEN": ARBITER})


async def retried(call: Any) -> Any:
    """The call, again after UNAVAILABLE: on a loaded machine the store may time out."""
    import grpc

    for _ in range(20):
        try:
            return await call()
        except grpc.aio.AioRpcError as e:
            if e.code() != grpc.StatusCode.UNAVAILABLE:
                raise
            await asyncio.sleep(0.2)
    raise RuntimeError("the server stayed unavailable")


def percentile(values: list[int], q: float) -> float:
    """The q-th percentile (0..100) by nearest rank."""
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))])


async def lateness(address: str, clocks: int, seconds: float) -> list[int]:
    """Run `clocks` silent timed matches for `seconds`; every timeout's lateness in ms."""
    import grpc

    from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
    from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc

    stub = kozyr_pb2_grpc.KozyrServiceStub(grpc.aio.insecure_channel(address))
    control = pb.TimeControl(kind=pb.TIME_CONTROL_KIND_DECISION, limit_ms=LIMIT_MS)
    gate = asyncio.Semaphore(16)

    async def create(k: int) -> str:
        request = pb.CreateMatchRequest(
            game="dix",
            seats=[pb.SeatRequest(name="a"), pb.SeatRequest(name="b")],
            time_control=control,
            timeout_policy=pb.TIMEOUT_POLICY_AUTO_MOVE,
            request_id=f"clock-bench-{k}",
        )
        async with gate:  # the request id makes a retry return the same match
            return str((await retried(lambda: stub.CreateMatch(request))).match_id)

    ids = await asyncio.gather(*(create(k) for k in range(clocks)))
    window = (time.time() * 1000, time.time() * 1000 + seconds * 1000)  # same machine's clock
    await asyncio.sleep(seconds)
    late: list[int] = []
    for match_id in ids:
        log = await retried(
            lambda m=match_id: stub.GetMatchLog(  # type: ignore[misc]
                pb.GetMatchLogRequest(match_id=m), metadata=[("authorization", f"Bearer {ARBITER}")]
            )
        )
        for entry in log.entries:
            data = json.loads(entry.canonical_json)
            for event in data["events"]:
                if event["type"] == "TimedOut" and window[0] <= event["deadline_ms"] <= window[1]:
                    late.append(int(data["time_ms"]) - int(event["deadline_ms"]))
    return late


def bench_clocks(seconds: float = 10.0) -> dict[str, Any]:
    """Lateness p50/p99 with 100 and with 1,000 running clocks (one server each run)."""
    out: dict[str, Any] = {}
    for clocks in (100, 1_000):
        with tempfile.TemporaryDirectory() as tmp:
            proc, address = start(tmp)
            try:
                began = time.perf_counter()
                late = asyncio.run(lateness(address, clocks, seconds))
                elapsed = time.perf_counter() - began
            finally:
                proc.terminate()
                proc.wait(30)
        row = {
            "timeouts": len(late),
            "p50_ms": percentile(late, 50),
            "p99_ms": percentile(late, 99),
            "max_ms": float(max(late)),
            "median_ms": statistics.median(late),
            "seconds": round(elapsed, 1),
        }
        out[f"{clocks}_clocks"] = row
        print(
            f"  {clocks:>5} clocks: {row['timeouts']:>6} timeouts, lateness p50 "
            f"{row['p50_ms']:.0f} ms, p99 {row['p99_ms']:.0f} ms, max {row['max_ms']:.0f} ms",
            flush=True,
        )
    small, big = out["100_clocks"], out["1000_clocks"]
    out["p99_ratio_1000_to_100"] = round(big["p99_ms"] / max(1.0, small["p99_ms"]), 2)
    print(f"  p99 at 1,000 clocks / p99 at 100: {out['p99_ratio_1000_to_100']}", flush=True)
    return out
