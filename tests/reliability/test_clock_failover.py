"""Clocks exactly once on many replicas (issue 10): three `kozyr serve` processes on one Redis
play 200 matches with short clocks while random clients sometimes go silent, and one process
is SIGKILLed in the middle. Every match ends, no timeout is applied twice or missed, and every
log verifies (chain, rules, and every timeout re-derived from the recorded times).

Outcomes only, never timings: the clocks are fractions of a second so the run is short.
"""

from __future__ import annotations

import asyncio
import json
import random
import signal
import uuid
from collections import Counter
from pathlib import Path

import grpc
import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc
from kozyr.replay import archive
from kozyr.replay.archive import RawEntry
from kozyr.replay.verify import verify
from tests.reliability.harness import ARBITER, Serve, free_port

MATCHES = 200
LIMIT_MS = 250
POLICIES = (pb.TIMEOUT_POLICY_FORFEIT, pb.TIMEOUT_POLICY_AUTO_MOVE)
Stub = kozyr_pb2_grpc.KozyrServiceStub


def auth(token: str | None) -> list[tuple[str, str]]:
    return [] if token is None else [("authorization", f"Bearer {token}")]


class Fleet:
    """Channels to the three processes; a dead one is skipped."""

    def __init__(self, serves: list[Serve]) -> None:
        self.serves = serves
        self.stubs = [Stub(grpc.aio.insecure_channel(s.address)) for s in serves]
        self.dead: set[int] = set()

    def stub(self, index: int) -> Stub:
        alive = [i for i in range(len(self.stubs)) if i not in self.dead]
        return self.stubs[index if index in alive else alive[index % len(alive)]]


async def play(fleet: Fleet, k: int, rng: random.Random, ended: Counter[str]) -> str:
    """Create match k on server k % 3 and play it with a client that may go silent."""
    home = k % 3
    policy = POLICIES[k % 2]
    created = await call(
        fleet,
        home,
        lambda s: s.CreateMatch(
            pb.CreateMatchRequest(
                game="dix",
                options={"single_hand": "true"},
                request_id=f"clock-drill-{k}",
                seats=[pb.SeatRequest(name="a"), pb.SeatRequest(name="b")],
                time_control=pb.TimeControl(kind=pb.TIME_CONTROL_KIND_DECISION, limit_ms=LIMIT_MS),
                timeout_policy=policy,
            )
        ),
    )
    match_id = created.match_id
    tokens = {t.seat: t.token for t in created.tokens}
    silent = rng.random() < 0.5  # this client stops playing at some point
    for _ in range(2_000):  # bounded: a Dix hand is 52 decisions
        view = (
            await call(fleet, home, lambda s: s.GetMatch(pb.GetMatchRequest(match_id=match_id)))
        ).view
        if view.status == pb.MATCH_STATUS_FINISHED:
            ended[pb.Termination.Name(view.outcome.termination)] += 1
            return match_id
        if silent and rng.random() < 0.08:
            await asyncio.sleep(LIMIT_MS / 1000 * 2)  # silent: the clock decides
            continue
        meta = auth(tokens[view.to_act])
        legal = pb.ListLegalMovesRequest(match_id=match_id)
        moves = (
            await call(fleet, home, lambda s, r=legal, m=meta: s.ListLegalMoves(r, metadata=m))
        ).moves
        await asyncio.sleep(rng.random() * LIMIT_MS / 1000 / 2)
        if moves:
            submit = pb.SubmitMoveRequest(
                match_id=match_id,
                move=rng.choice(list(moves)),
                command_id=uuid.uuid4().hex,
                expected_version=view.version,
            )
            try:
                await call(fleet, home, lambda s, r=submit, m=meta: s.SubmitMove(r, metadata=m))
            except grpc.aio.AioRpcError as e:  # a timeout landed first, or stale
                assert e.code() in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED), e
    raise AssertionError(f"match {match_id} did not end")


async def call(fleet: Fleet, home: int, rpc):  # type: ignore[no-untyped-def]
    """One RPC on the match's home server, on another one while it is dead or failing."""
    for attempt in range(50):
        try:
            return await rpc(fleet.stub(home + attempt))
        except grpc.aio.AioRpcError as e:
            if e.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                raise
            await asyncio.sleep(0.05)
    raise AssertionError("no server answered")


async def drill(fleet: Fleet) -> tuple[list[str], Counter[str]]:
    rng = random.Random(10)
    ended: Counter[str] = Counter()
    tasks = [
        asyncio.create_task(play(fleet, k, random.Random(rng.random()), ended))
        for k in range(MATCHES)
    ]
    # The middle: a quarter of the matches over, then SIGKILL process 0 with its claims.
    for _ in range(6_000):
        if sum(ended.values()) >= MATCHES // 4:
            break
        await asyncio.sleep(0.02)
    fleet.serves[0].stop(signal.SIGKILL, timeout=10)
    fleet.dead.add(0)
    done = await asyncio.wait_for(asyncio.gather(*tasks), 600)  # a bound for a hang
    return list(done), ended


async def logs(fleet: Fleet, match_ids: list[str]) -> dict[str, list[RawEntry]]:
    out = {}
    for match_id in match_ids:
        log = await fleet.stub(1).GetMatchLog(
            pb.GetMatchLogRequest(match_id=match_id), metadata=auth(ARBITER)
        )
        out[match_id] = [RawEntry(e.version, e.canonical_json, e.hash) for e in log.entries]
    return out


@pytest.mark.slow
@pytest.mark.solo
def test_three_servers_one_killed_every_clock_applied_exactly_once(
    redis_url: str, tmp_path: Path
) -> None:
    # Replicas share the seed key (the first creates it) and one Redis.
    flags = (
        "--redis-url",
        redis_url,
        "--timer-lease-s",
        "1",
        "--seed-key-file",
        str(tmp_path / "seed.key"),
    )
    serves = [Serve(tmp_path / f"s{i}", port=free_port(), extra=flags) for i in range(3)]
    try:
        for serve in serves:
            serve.start()

        async def main() -> tuple[list[str], Counter[str], dict[str, list[RawEntry]]]:
            fleet = Fleet(serves)  # grpc.aio channels belong to the loop that makes them
            match_ids, ended = await drill(fleet)
            return match_ids, ended, await logs(fleet, match_ids)

        match_ids, ended, stored = asyncio.run(main())
        assert len(set(match_ids)) == MATCHES and sum(ended.values()) == MATCHES
        assert ended["TERMINATION_TIMED_OUT"] > 0, ended  # silent clients were timed out
        for match_id, entries in stored.items():
            report = verify(archive.parse(archive.dumps(archive.build(entries))))
            assert report.status == "VERIFIED", (match_id, report.problems)
            timeouts = [
                (e["seat"], e["deadline_ms"])
                for raw in entries
                for e in json.loads(raw.canonical)["events"]
                if e["type"] == "TimedOut"
            ]
            assert len(timeouts) == len(set(timeouts)), f"{match_id}: a timeout applied twice"
        print(f"\nclock drill: {MATCHES} matches on 3 servers, one SIGKILLed: {dict(ended)}")
    finally:
        for serve in serves:
            serve.kill_all()
