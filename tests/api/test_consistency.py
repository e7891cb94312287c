"""Idempotency, two server processes on one Redis, restarts of the server and of Redis."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc
from kozyr.core.cards import deck
from kozyr.core.fairness import match_seed
from kozyr.match.log import GENESIS_HASH, Entry, entry_hash
from kozyr.match.record import fold_entries
from kozyr.store.redis.embedded import EmbeddedRedis
from kozyr.store.redis.streams import RedisStore, log_key
from kozyr.wire import convert
from tests.api.helpers import auth, create, play_one, play_out, reason
from tests.conftest import ARBITER, ServerThread


def test_one_command_sent_five_times_concurrently_appends_once(
    server: ServerThread, redis_client: redis.Redis
) -> None:
    stub = server.stub()
    match_id, tokens = create(stub, "dix")
    view = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).view
    seat = view.to_act
    move = stub.ListLegalMoves(
        pb.ListLegalMovesRequest(match_id=match_id), metadata=auth(tokens[seat])
    ).moves[0]
    request = pb.SubmitMoveRequest(match_id=match_id, move=move, command_id="same-command")
    stubs = [server.stub() for _ in range(5)]
    barrier = threading.Barrier(5)

    def send(s: kozyr_pb2_grpc.KozyrServiceStub) -> bytes:
        barrier.wait()
        return s.SubmitMove(request, metadata=auth(tokens[seat])).SerializeToString()

    with ThreadPoolExecutor(5) as pool:
        answers = list(pool.map(send, stubs))
    assert len(set(answers)) == 1, "all five must get the same answer"
    assert redis_client.xlen(log_key(match_id)) == view.version + 1
    # Later, after other moves, the same command id still answers the same.
    play_one(stub, match_id, tokens, random.Random(1))
    again = stub.SubmitMove(request, metadata=auth(tokens[seat])).SerializeToString()
    assert again == answers[0]


def test_create_match_with_a_request_id_is_idempotent(server: ServerThread) -> None:
    stub = server.stub()
    request = pb.CreateMatchRequest(
        game="durak-dice",
        request_id=uuid.uuid4().hex,
        seats=[pb.SeatRequest(name=n) for n in "abc"],
    )
    first, second = stub.CreateMatch(request), stub.CreateMatch(request)
    assert first == second and len(first.tokens) == 3
    assert (
        stub.GetMatch(
            pb.GetMatchRequest(match_id=first.match_id), metadata=auth(first.tokens[1].token)
        ).view.seat
        == 1
    )


def verify_chain(client: redis.Redis, match_id: str) -> list[Entry]:
    """Versions 1..n with no gap or duplicate, and every hash link intact."""
    rows = client.xrange(log_key(match_id))
    assert [int(i.split("-")[0]) for i, _ in rows] == list(range(1, len(rows) + 1))
    prev, entries = GENESIS_HASH, []
    for _, fields in rows:
        entry = Entry.from_canonical(fields["e"])
        assert entry_hash(fields["e"]) == fields["h"] and entry.prev == prev
        assert entry.canonical() == fields["e"]
        prev = fields["h"]
        entries.append(entry)
    return entries


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Processes:
    """Two `kozyr serve` processes on one Redis: their addresses, log lines and metrics port."""

    def __init__(self) -> None:
        self.addresses: list[str] = []
        self.logs: list[dict[str, object]] = []
        self.metrics_port = free_port()


@pytest.fixture
def two_processes(redis_url: str, tmp_path: Path) -> Iterator[Processes]:
    procs, out = [], Processes()
    env = {**os.environ, "KOZYR_ARBITER_TOKEN": ARBITER}
    readers = []
    for n in range(2):
        metrics = ["--metrics-port", str(out.metrics_port)] if n == 0 else []
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kozyr.cli",
                "serve",
                "--address",
                "127.0.0.1:0",
                "--redis-url",
                redis_url,
                "--json-logs",
                "--log-level",
                "debug",
                *metrics,
            ],
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        procs.append(proc)
        assert proc.stderr is not None
        for line in proc.stderr:
            record = json.loads(line)
            out.logs.append(record)
            if record.get("event") == "serving":
                out.addresses.append(str(record["address"]))
                break

        def drain(stream: Any = proc.stderr) -> None:  # keep the pipe drained, keep the lines
            out.logs.extend(json.loads(line) for line in stream)

        readers.append(threading.Thread(target=drain, daemon=True))
        readers[-1].start()
    yield out
    for proc in procs:
        proc.send_signal(signal.SIGTERM)
    for proc in procs:
        assert proc.wait(30) == 0, "SIGTERM must stop the server cleanly with status 0"
    for reader in readers:
        reader.join(10)


@pytest.mark.slow
def test_two_server_processes_sixteen_clients_same_matches(
    two_processes: Processes, redis_client: redis.Redis
) -> None:
    stubs = [
        kozyr_pb2_grpc.KozyrServiceStub(grpc.insecure_channel(a)) for a in two_processes.addresses
    ]
    matches = [
        create(stubs[0], "dix", options={"single_hand": "true"}),
        create(stubs[1], "six-dozens", players=2),
        create(stubs[0], "durak-dice", players=3),
        create(stubs[1], "dix", options={"single_hand": "true"}),
    ]
    refused: list[str] = []

    def client(n: int) -> None:
        stub = stubs[n % 2]
        match_id, tokens = matches[n % len(matches)]
        rng = random.Random(n)
        for _ in range(5000):
            try:
                if play_one(stub, match_id, tokens, rng) is None:
                    return
            except grpc.RpcError as e:
                # Racing clients of one seat: the loser sees the move already made.
                assert e.code() in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED), (
                    e.details()
                )
                refused.append(reason(e))
        raise AssertionError("a match did not end")

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(client, range(16)))
    for match_id, _ in matches:
        entries = verify_chain(redis_client, match_id)
        fresh = fold_entries(entries)  # a fresh process: nothing but the stream
        assert fresh.finished
        expected = convert.match_view(fresh, None)
        for stub in stubs:
            view = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).view
            assert view == expected
    assert refused, "16 clients on 4 matches should have raced at least once"

    # Metrics: moves by game and result, refusals by reason, latency, watchers.
    metrics = (
        urllib.request.urlopen(f"http://127.0.0.1:{two_processes.metrics_port}/metrics", timeout=10)
        .read()
        .decode()
    )
    for family in (
        "kozyr_moves_total",
        "kozyr_errors_total",
        "kozyr_move_seconds_bucket",
        "kozyr_open_watchers",
    ):
        assert family in metrics
    assert 'result="OK"' in metrics


@pytest.mark.slow
def test_logs_say_one_line_per_command_and_never_a_card_or_seed(two_processes: Processes) -> None:
    stub = kozyr_pb2_grpc.KozyrServiceStub(grpc.insecure_channel(two_processes.addresses[0]))
    match_id, tokens = create(stub, "six-dozens", players=2)
    moves = play_out(stub, match_id, tokens)
    log = stub.GetMatchLog(pb.GetMatchLogRequest(match_id=match_id)).entries
    secrets = [json.loads(e.canonical_json) for e in log]
    revealed = [
        ev["server_seed"] for e in secrets for ev in e["events"] if ev["type"] == "SeedRevealed"
    ]
    assert not [ev for e in secrets for ev in e["events"] if ev.get("seed")]  # withheld (§1)
    started = next(e for e in secrets if e["version"] == 1)
    contributions = [bytes.fromhex(c) for c in started["events"][0]["contributions"]]
    seeds = [match_seed(bytes.fromhex(revealed[0]), contributions).hex()]
    assert revealed
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # the reader thread may still be catching up
        lines = [r for r in two_processes.logs if r.get("match_id") == match_id]
        if sum(r.get("event") == "move" for r in lines) >= moves:
            break
        time.sleep(0.05)
    move_lines = [r for r in lines if r.get("event") == "move"]
    assert len(move_lines) == moves, "one log line per command"
    for r in move_lines:
        assert {
            "match_id",
            "seat",
            "command_id",
            "version",
            "result",
            "latency_ms",
            "timestamp",
            "level",
        } <= set(r)
    cards = {c.code for c in deck(53)}
    text = "\n".join(json.dumps(r) for r in two_processes.logs)
    for r in two_processes.logs:
        assert not any(isinstance(v, str) and v in cards for v in r.values()), r
    for secret in [*revealed, *seeds]:
        assert secret not in text


def test_server_restart_mid_match_continues_from_the_same_state(redis_url: str) -> None:
    first = ServerThread(redis_url)
    stub = first.stub()
    match_id, tokens = create(stub, "durak-dice", players=3)
    rng = random.Random(3)
    for _ in range(10):
        play_one(stub, match_id, tokens, rng)
    before = [
        stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth(t)).view for t in tokens
    ]
    first.stop()
    second = ServerThread(redis_url)
    try:
        stub = second.stub()
        after = [
            stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth(t)).view
            for t in tokens
        ]
        assert after == before
        play_out(stub, match_id, tokens)
        assert (
            stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).view.status
            == pb.MATCH_STATUS_FINISHED
        )
    finally:
        second.stop()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("fsync", "how"), [("everysec", signal.SIGTERM), ("always", signal.SIGKILL)]
)
def test_redis_restart_loses_no_acknowledged_move(
    tmp_path: Path, fsync: str, how: signal.Signals
) -> None:
    """A clean stop flushes the append-only file; with `always`, even a kill loses nothing."""
    embedded = EmbeddedRedis(tmp_path / "data", appendfsync=fsync).start()
    server = ServerThread(embedded.url)
    try:
        stub = server.stub()
        match_id, tokens = create(stub, "dix")
        rng = random.Random(5)
        acknowledged = 1
        for _ in range(15):
            response = play_one(stub, match_id, tokens, rng)
            assert response is not None
            acknowledged = response.version
        assert embedded.process is not None
        embedded.process.send_signal(how)
        embedded.process.wait(10)
        embedded.process = None
        with pytest.raises(grpc.RpcError) as info:
            play_one(stub, match_id, tokens, rng)
        assert info.value.code() == grpc.StatusCode.UNAVAILABLE
        assert reason(info.value) == "STORE_UNAVAILABLE"
        embedded.start()
        view = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).view
        assert view.version == acknowledged
        play_out(stub, match_id, tokens)
    finally:
        server.stop()
        embedded.stop()


def test_a_stream_behind_the_cache_is_never_written_over(
    server: ServerThread, redis_client: redis.Redis, redis_url: str
) -> None:
    """A failover that loses the stream's tail: refuse (again and again) until an operator
    repairs the log, then go on from what Redis holds."""
    stub = server.stub()
    match_id, tokens = create(stub, "dix")
    rng = random.Random(11)
    for _ in range(4):
        play_one(stub, match_id, tokens, rng)
    # The replica never got the last entry: the stream as it stands there.
    rows = redis_client.xrange(log_key(match_id))
    redis_client.delete(log_key(match_id))
    for entry_id, fields in rows[:-1]:
        redis_client.xadd(log_key(match_id), fields, id=entry_id)
    lost = len(rows)
    with pytest.raises(grpc.RpcError) as info:
        for _ in range(3):  # the move decided on the cached state is refused, not appended
            play_one(stub, match_id, tokens, rng)
    assert info.value.code() == grpc.StatusCode.UNAVAILABLE
    assert reason(info.value) == "STREAM_BEHIND"
    assert redis_client.xlen(log_key(match_id)) == lost - 1
    # The server reloaded: it serves what the stream holds, but takes no write over it.
    view = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).view
    assert view.version == lost - 1
    with pytest.raises(grpc.RpcError) as still:
        play_one(stub, match_id, tokens, rng)
    assert reason(still.value) == "STREAM_BEHIND"
    assert redis_client.xlen(log_key(match_id)) == lost - 1

    async def repair() -> tuple[int, int]:
        store = RedisStore.from_url(redis_url)
        try:
            return await store.repair(match_id)
        finally:
            await store.close()

    assert asyncio.run(repair()) == (lost, lost - 1)
    answer = play_one(stub, match_id, tokens, rng)
    assert answer is not None and answer.version == lost
    verify_chain(redis_client, match_id)


def test_a_stream_with_deleted_entries_is_refused_not_repaired(
    server: ServerThread, redis_client: redis.Redis
) -> None:
    stub = server.stub()
    match_id, tokens = create(stub, "dix")
    rng = random.Random(12)
    play_one(stub, match_id, tokens, rng)
    top = redis_client.xrevrange(log_key(match_id), count=1)[0][0]
    redis_client.xdel(log_key(match_id), top)  # Redis keeps the deleted ID as its last one
    with pytest.raises(grpc.RpcError) as info:
        for _ in range(3):
            play_one(stub, match_id, tokens, rng)
    assert info.value.code() == grpc.StatusCode.UNAVAILABLE
    assert reason(info.value) in ("STREAM_BEHIND", "STREAM_DAMAGED")


def test_tokens_never_start_with_a_dash() -> None:
    """A token is pasted into command lines (`kozyr replay export --token …`)."""
    from kozyr.secrets.tokens import new_token

    assert new_token(lambda n: b"\xf8" + bytes(n - 1)).startswith("A")  # would be "-A…"
    assert not any(new_token(os.urandom).startswith("-") for _ in range(500))
