"""What the edge's limits cost a move (issue 31; `tests/bench/bench.py --only edge`, or
`.venv/bin/python tests/bench/bench_edge.py`).

Two `kozyr serve --web-port` processes up side by side, each with its embedded Redis: one with
the edge's limits at their defaults (docs/security.md), one with every edge limit opened as far
as it goes (`WIDE`: no stream, connection or pending-call cap a run could reach, deadlines an
hour long). Both play the same matches (one hand of Dix, its moves decided in advance, all at
once) over gRPC and over Connect on the web port, the four rounds interleaved, a first round
dropped; medians and the ratio limits ÷ wide.

Both processes run the same code, so the limits' bookkeeping (a gRPC call counted on its
connection and host, a web connection on its host, a deadline armed per web request) is paid
on both sides: it is timed apart, per call, beside the moves.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import timeit
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.bench_tlog import served_rate  # noqa: E402
from tests.bench.bench_web import start_web_service  # noqa: E402
from tests.bench.harness import RUNS, scripted_rate  # noqa: E402

BIG = str(1_000_000)
WIDE = (
    *("--max-concurrent-streams", BIG, "--max-pending-calls", BIG),
    *("--grpc-connections-per-peer", BIG),
    *("--web-max-connections", BIG, "--web-connections-per-peer", BIG),
    *("--web-header-timeout-s", "3600", "--web-body-timeout-s", "3600"),
    *("--web-keepalive-s", "3600"),
)


async def connect_rate(web: str, matches: int) -> float:
    """Moves/s over Connect (binary) on the web port, 4 HTTP clients: the same matches as
    `served_rate` (harness.scripted_rate)."""
    from pyqwest import Client

    from kozyr._proto.kozyr.v1.kozyr_connect import KozyrServiceClient

    clients = [KozyrServiceClient(web, http_client=Client()) for _ in range(4)]
    return await scripted_rate(
        matches,
        "w",
        lambda i, request: clients[i % 4].create_match(request),
        lambda i, request, token: clients[i % 4].submit_move(
            request, headers={"authorization": f"Bearer {token}"}
        ),
    )


def bookkeeping_us() -> dict[str, float]:
    """The limits' own work per call, in µs (best of 5 timeit runs): a gRPC call counted on
    its connection and host, and a web request's header deadline armed and cancelled."""
    from kozyr.api.guard import Guard
    from kozyr.config.settings import ServerConfig

    guard = Guard(ServerConfig())

    def counted() -> None:
        with guard.connection("ipv4:127.0.0.1:40000"):
            pass

    loop = asyncio.new_event_loop()
    try:
        deadline = lambda: loop.call_later(5.0, print).cancel()  # noqa: E731
        n = 100_000
        return {
            "grpc_call_counted_us": round(min(timeit.repeat(counted, number=n)) / n * 1e6, 3),
            "web_deadline_armed_us": round(min(timeit.repeat(deadline, number=n)) / n * 1e6, 3),
        }
    finally:
        loop.close()


def bench_edge(matches: int = 64, runs: int = RUNS) -> dict[str, Any]:
    """Moves/s over gRPC and Connect with the edge's limits at their defaults and wide open,
    interleaved; medians, ratios, and the bookkeeping's cost per call."""
    rates: dict[str, list[float]] = {
        f"{port}_{side}": [] for port in ("grpc", "connect") for side in ("limits", "wide")
    }
    with tempfile.TemporaryDirectory() as on, tempfile.TemporaryDirectory() as off:
        services = {"limits": start_web_service(on), "wide": start_web_service(off, WIDE)}
        try:
            for _ in range(runs + 1):  # the first round warms both up and is dropped
                for side, (_, address, web) in services.items():
                    rates[f"grpc_{side}"].append(asyncio.run(served_rate(address, matches)))
                    rates[f"connect_{side}"].append(asyncio.run(connect_rate(web, matches)))
        finally:
            for proc, _, _ in services.values():
                proc.terminate()
                proc.wait(30)
    medians = {k: statistics.median(v[1:]) for k, v in rates.items()}
    result: dict[str, Any] = {f"moves_per_s_{k}": round(m) for k, m in medians.items()}
    for port in ("grpc", "connect"):
        ratio = medians[f"{port}_limits"] / medians[f"{port}_wide"]
        result[f"{port}_limits_to_wide"] = round(ratio, 3)
    result.update(bookkeeping_us())
    for k, v in result.items():
        print(f"  {k:40} {v}", flush=True)
    return result


if __name__ == "__main__":
    print(f"edge: kozyr serve moves/s, limits at defaults and wide, median of {RUNS} interleaved")
    bench_edge()
