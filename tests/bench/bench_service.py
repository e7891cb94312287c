"""The whole service (`bench.py --only service`): moves/s through `kozyr serve` (gRPC → rules →
Redis → reply) with many concurrent matches, by unary SubmitMove and over PlaySession, health
Check calls/s with the same client harness (the no-op ceiling), the server's CPU per call of
each, and a move's median latency at version ~10 against version ~1,000 (tests/bench/speed.py).
The three rates are interleaved run by run, so all of them see the same machine load.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
import uuid
from typing import Any

from tests.bench import speed
from tests.bench.bounded import proc_stat
from tests.bench.harness import RUNS, dix_request, dix_script, start_service

CHANNELS = 4


def move(match_id: str, card: str) -> Any:
    """The SubmitMove request of a Dix card, with a fresh command id."""
    from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb

    return pb.SubmitMoveRequest(
        match_id=match_id,
        command_id=uuid.uuid4().hex,
        move=pb.Move(dix=pb.DixMove(play=pb.PlayCard(card=card))),
    )


class ServiceRates:
    """One server's rates over CHANNELS channels: unary moves, PlaySession moves and health
    checks, each keeping the server's CPU per call of its runs."""

    def __init__(self, address: str, matches: int, server_pid: int) -> None:
        import grpc
        from grpc_health.v1 import health_pb2_grpc

        from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc

        self.matches = matches
        self.server_pid = server_pid
        self.channels = [grpc.aio.insecure_channel(address) for _ in range(CHANNELS)]
        self.stubs = [kozyr_pb2_grpc.KozyrServiceStub(c) for c in self.channels]
        self.health_stubs = [health_pb2_grpc.HealthStub(c) for c in self.channels]
        self.moves_cpu: list[float] = []
        self.health_cpu: list[float] = []

    def server_cpu(self) -> float:
        """The server process's own CPU seconds so far (from /proc, Redis apart)."""
        stat = proc_stat(self.server_pid)
        return stat[3] if stat is not None else float("nan")

    async def new_match(self, stub: Any, decks: list[str]) -> tuple[str, list[str]]:
        """A scripted match created: its id and its tokens by seat."""
        r = await stub.CreateMatch(dix_request(decks))
        return r.match_id, [t.token for t in sorted(r.tokens, key=lambda t: t.seat)]

    async def moves_rate(self) -> float:
        """Unary SubmitMove calls/s, every match played at once."""
        scripts = [dix_script(f"m{i}".encode(), 1) for i in range(self.matches)]
        created = await asyncio.gather(
            *(self.new_match(self.stubs[i % CHANNELS], s[0]) for i, s in enumerate(scripts))
        )

        async def play(i: int) -> int:
            match_id, tokens = created[i]
            stub = self.stubs[i % CHANNELS]
            for seat, card in scripts[i][1]:
                await stub.SubmitMove(
                    move(match_id, card), metadata=[("authorization", f"Bearer {tokens[seat]}")]
                )
            return len(scripts[i][1])

        start, cpu = time.perf_counter(), self.server_cpu()
        total = sum(await asyncio.gather(*(play(i) for i in range(self.matches))))
        self.moves_cpu.append((self.server_cpu() - cpu) / total)
        return total / (time.perf_counter() - start)

    async def health_rate(self) -> float:
        """Health Check calls/s in the same shape as the move harness."""
        from grpc_health.v1 import health_pb2

        per_task = 52  # the same shape as the move harness: one task per "match"
        request = health_pb2.HealthCheckRequest(service="")

        async def run(i: int) -> None:
            for _ in range(per_task):
                await self.health_stubs[i % CHANNELS].Check(request)

        start, cpu = time.perf_counter(), self.server_cpu()
        await asyncio.gather(*(run(i) for i in range(self.matches)))
        self.health_cpu.append((self.server_cpu() - cpu) / (self.matches * per_task))
        return self.matches * per_task / (time.perf_counter() - start)

    async def session_moves_rate(self) -> float:
        """Moves/s of fresh scripted matches over one PlaySession stream."""
        scripts = [dix_script(f"s{i}-{uuid.uuid4().hex}".encode(), 1) for i in range(self.matches)]
        created = await asyncio.gather(
            *(self.new_match(self.stubs[i % CHANNELS], s[0]) for i, s in enumerate(scripts))
        )
        return await speed.session_rate(self.stubs[0], list(created), scripts)

    async def close(self) -> None:
        """Close the channels."""
        for c in self.channels:
            await c.close()


async def bench_service_async(
    address: str, matches: int, hands: int, server_pid: int
) -> dict[str, Any]:
    """Moves/s over many concurrent matches, health checks/s, the server's CPU per call of
    each (from /proc: the process's own CPU, Redis apart), and latency by version."""
    rates = ServiceRates(address, matches, server_pid)
    moves_samples, health_samples, session_samples = [], [], []
    for _ in range(RUNS):  # interleaved, so all three see the same machine load
        moves_samples.append(await rates.moves_rate())
        health_samples.append(await rates.health_rate())
        session_samples.append(await rates.session_moves_rate())

    bands = await speed.alternating_latency(
        rates.stubs[0], rates.new_match, dix_script, move, hands
    )
    await rates.close()
    moves_per_s, checks_per_s, session_per_s = (
        statistics.median(x) for x in (moves_samples, health_samples, session_samples)
    )
    return {
        "concurrent_matches": matches,
        "moves_per_s": round(moves_per_s),
        "session_moves_per_s": round(session_per_s),
        "health_checks_per_s": round(checks_per_s),
        "moves_to_noop_ratio": round(moves_per_s / checks_per_s, 2),
        "server_cpu_us_per_unary_move": round(statistics.median(rates.moves_cpu) * 1e6),
        "server_cpu_us_per_health_check": round(statistics.median(rates.health_cpu) * 1e6),
        "session_moves_to_noop_ratio": round(session_per_s / checks_per_s, 2),
        "latency_ms_at_v10": round(bands["early"] * 1e3, 3),
        f"latency_ms_at_v{int(bands['late_version'])}": round(bands["late"] * 1e3, 3),
        "latency_ratio_late_to_early": round(bands["late"] / bands["early"], 2),
    }


def bench_service(matches: int) -> dict[str, Any]:
    """Run the service benchmark against a fresh `kozyr serve` process."""
    with tempfile.TemporaryDirectory() as tmp:
        proc, address = start_service(tmp)
        try:
            result = asyncio.run(
                bench_service_async(address, matches, hands=25, server_pid=proc.pid)
            )
        finally:
            proc.terminate()
            proc.wait(30)
    for k, v in result.items():
        print(f"  {k:32} {v}", flush=True)
    return result
