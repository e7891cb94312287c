"""The transparency log's cost per move (issue 30; `make bench` section `tlog`, or
`.venv/bin/python tests/bench/bench_tlog.py`).

Moves/s through the engine on its in-memory store, every match created, played out (one hand
of Dix, its moves decided in advance) and ended, all matches at once (as a server runs them, so
leaves arriving together share one grouped write), in four set-ups interleaved run by run:
no signing and no log (an engine with no key), write-time signing, signing and the transparency log
with fsync, and with the log but no fsync. A creation and an ending are counted in the time,
as they are where the log appends its two leaves; the medians and the ratios to no log.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.harness import RUNS, dix_script, scripted_rate  # noqa: E402

SETUPS = ("plain", "signed", "signed+tlog", "signed+tlog-no-fsync")


def bench_tlog(matches: int = 64, runs: int = RUNS) -> dict[str, Any]:
    """Moves/s in each set-up (medians of interleaved runs) and their ratios."""
    from kozyr.core.cards import parse_cards
    from kozyr.engine import Engine
    from kozyr.match.log import registry_for
    from kozyr.secrets.signing import Signer
    from kozyr.secrets.tlog import LogListener, TransparencyLog
    from kozyr.store.memory import MemoryStore

    registry = registry_for(__import__("kozyr.games", fromlist=["GAMES"]).GAMES["dix"])
    scripts = [dix_script(f"t{i}".encode(), 1) for i in range(matches)]
    signer = Signer.generate()

    async def one(engine: Engine, decks: list[str], script: list[tuple[int, str]]) -> int:
        created = await engine.create(
            "dix",
            {"target": "10000", "max_hands": "1"},
            [("a", b""), ("b", b"")],
            first_dealer=0,
            decks=[parse_cards(d) for d in decks],
        )
        for n, (seat, card) in enumerate(script):
            command = registry.decode({"type": "Play", "card": card})
            await engine.submit(created.match_id, seat, command, f"c{n}")
        return len(script)

    async def rate(setup: str, folder: Path) -> float:
        engine = Engine(MemoryStore(), signer=None if setup == "plain" else signer)
        tlog = None
        if "tlog" in setup:
            tlog = TransparencyLog(folder, signer, fsync="no-fsync" not in setup)
            engine.tlog, engine.lifecycle = tlog, LogListener(tlog)
        start = time.perf_counter()
        counts = await asyncio.gather(*(one(engine, d, s) for d, s in scripts))
        elapsed = time.perf_counter() - start
        if tlog is not None:
            assert tlog.tree.size % (2 * matches) == 0  # every match: created and ended
            tlog.close()
        return sum(counts) / elapsed

    rates: dict[str, list[float]] = {s: [] for s in SETUPS}
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(runs):  # interleaved: every set-up sees the same machine load
            for setup in SETUPS:
                rates[setup].append(asyncio.run(rate(setup, Path(tmp) / f"{setup}-{run}")))
    medians = {s: statistics.median(v) for s, v in rates.items()}
    result: dict[str, Any] = {f"moves_per_s_{s}": round(m) for s, m in medians.items()}
    result["signed_to_plain"] = round(medians["signed"] / medians["plain"], 3)
    result["tlog_to_signed"] = round(medians["signed+tlog"] / medians["signed"], 3)
    result["tlog_no_fsync_to_signed"] = round(
        medians["signed+tlog-no-fsync"] / medians["signed"], 3
    )
    result["tlog_and_signing_to_plain"] = round(medians["signed+tlog"] / medians["plain"], 3)
    for k, v in result.items():
        print(f"  {k:40} {v}", flush=True)
    return result


async def served_rate(address: str, matches: int) -> float:
    """Moves/s through `kozyr serve` over gRPC (4 channels): `matches` Dix matches of one hand
    at once, each created and played out inside the timing (harness.scripted_rate)."""
    import grpc

    from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc

    channels = [grpc.aio.insecure_channel(address) for _ in range(4)]
    stubs = [kozyr_pb2_grpc.KozyrServiceStub(c) for c in channels]
    try:
        return await scripted_rate(
            matches,
            "s",
            lambda i, request: stubs[i % 4].CreateMatch(request),
            lambda i, request, token: stubs[i % 4].SubmitMove(
                request, metadata=[("authorization", f"Bearer {token}")]
            ),
        )
    finally:
        for channel in channels:
            await channel.close()


def bench_tlog_served(matches: int = 64, runs: int = RUNS) -> dict[str, Any]:
    """Moves/s through two `kozyr serve` processes (each with its embedded Redis), the log on
    (the default, fsync on) and off (--no-tlog), runs interleaved; medians and their ratio."""
    from tests.bench.harness import start_service

    rates: dict[str, list[float]] = {"tlog": [], "no_tlog": []}
    with tempfile.TemporaryDirectory() as on, tempfile.TemporaryDirectory() as off:
        services = {"tlog": start_service(on), "no_tlog": start_service(off, extra=("--no-tlog",))}
        try:
            for _ in range(runs + 1):  # the first round warms both up and is dropped
                for name, (_, address) in services.items():
                    rates[name].append(asyncio.run(served_rate(address, matches)))
        finally:
            for proc, _ in services.values():
                proc.terminate()
                proc.wait(30)
    medians = {k: statistics.median(v[1:]) for k, v in rates.items()}
    result: dict[str, Any] = {f"served_moves_per_s_{k}": round(m) for k, m in medians.items()}
    result["served_tlog_to_no_tlog"] = round(medians["tlog"] / medians["no_tlog"], 3)
    for k, v in result.items():
        print(f"  {k:40} {v}", flush=True)
    return result


if __name__ == "__main__":
    print(f"tlog: engine moves/s, 64 matches at once, median of {RUNS} interleaved runs")
    bench_tlog()
    print(f"tlog: kozyr serve moves/s, 64 matches at once, median of {RUNS} interleaved runs")
    bench_tlog_served()
