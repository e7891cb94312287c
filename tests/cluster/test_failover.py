"""Matches over every master of a real Redis Cluster through two `kozyr serve` processes, with
a CLUSTER FAILOVER and a SIGKILL of a master during play: play goes on, and every acknowledged
move is in the log at its version - or the service reports the match STREAM_BEHIND (the
fencing) instead of writing over it. docs/operations.md says when the second can happen."""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc
from kozyr.store.redis.streams import log_key
from tests.api.helpers import auth, create, reason
from tests.cluster.harness import LocalCluster
from tests.reliability.harness import ARBITER, Serve, wait_for

pytestmark = pytest.mark.slow
RETRYABLE = {"STORE_UNAVAILABLE", "STORE_FAILING_OVER", "STORE_LOADING", "TOO_MANY_CONFLICTS"}


@dataclass
class Played:
    """One match of the drill: what the clients were told."""

    match_id: str
    tokens: list[str]
    acked: dict[int, str] = field(default_factory=dict)  # version -> command id
    fenced: bool = False
    said: str = ""  # the fencing's message
    finished: bool = False


@pytest.fixture
def services(cluster: LocalCluster, tmp_path: Path) -> Iterator[list[Serve]]:
    """Two `kozyr serve` processes on the cluster, sharing the seed key (as replicas must)."""
    key = tmp_path / "seed.key"
    started: list[Serve] = []
    try:
        for n in range(2):
            serve = Serve(
                tmp_path / f"serve{n}",
                extra=("--redis-url", cluster.url, "--seed-key-file", str(key)),
            )
            started.append(serve.start())
        yield started
    finally:
        for serve in started:
            serve.kill_all()


class Spectator(threading.Thread):
    """A watcher that, like any client, reconnects from its last version when the stream
    ends with UNAVAILABLE (a read during a failover); bounded in reconnections."""

    def __init__(self, stub: kozyr_pb2_grpc.KozyrServiceStub, match_id: str) -> None:
        super().__init__(daemon=True)
        self.stub, self.match_id = stub, match_id
        self.versions: list[int] = []
        self.reconnects = 0
        self.error: Exception | None = None
        self.start()

    def run(self) -> None:
        for _ in range(100):
            try:
                for update in self.stub.WatchMatch(
                    pb.WatchMatchRequest(
                        match_id=self.match_id,
                        from_version=self.versions[-1] if self.versions else 0,
                    )
                ):
                    self.versions.append(update.version)
                return
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.UNAVAILABLE:
                    self.error = e
                    return
                self.reconnects += 1
                time.sleep(0.2)


def stubs(services: list[Serve]) -> list[kozyr_pb2_grpc.KozyrServiceStub]:
    return [kozyr_pb2_grpc.KozyrServiceStub(grpc.insecure_channel(s.address)) for s in services]


def move(
    stubs: list[kozyr_pb2_grpc.KozyrServiceStub], m: Played, first: int, rng: random.Random
) -> None:
    """One move of the seat to act, through stub `first` (the other one on a retryable error;
    the same command id, so a retry that was applied is answered, not applied twice)."""
    command_id = uuid.uuid4().hex
    chosen: pb.Move | None = None
    seat = -1
    for attempt in range(60):  # bounded: ~30 s of failover at most
        stub = stubs[(first + attempt) % len(stubs)]
        try:
            if chosen is None:
                view = stub.GetMatch(pb.GetMatchRequest(match_id=m.match_id), timeout=5).view
                if view.status == pb.MATCH_STATUS_FINISHED:
                    m.finished = True
                    return
                seat = view.to_act
                legal = stub.ListLegalMoves(
                    pb.ListLegalMovesRequest(match_id=m.match_id),
                    metadata=auth(m.tokens[seat]),
                    timeout=5,
                ).moves
                chosen = legal[rng.randrange(len(legal))]
            done = stub.SubmitMove(
                pb.SubmitMoveRequest(match_id=m.match_id, move=chosen, command_id=command_id),
                metadata=auth(m.tokens[seat]),
                timeout=5,
            )
            m.acked[done.version] = command_id
            return
        except grpc.RpcError as e:
            why = reason(e)
            if why == "STREAM_BEHIND":
                m.fenced, m.said = True, e.details() or ""
                return
            if why not in RETRYABLE and e.code() != grpc.StatusCode.UNAVAILABLE:
                raise
            time.sleep(0.5)
    raise AssertionError(f"match {m.match_id}: no move within the failover's bound")


def play_round(
    stubs: list[kozyr_pb2_grpc.KozyrServiceStub],
    played: list[Played],
    rounds: int,
    rng: random.Random,
) -> None:
    for r in range(rounds):
        for i, m in enumerate(played):
            if not (m.fenced or m.finished):
                move(stubs, m, (r + i) % 2, rng)  # alternate the servers move by move


def during(fault: Callable[[], object], play: Callable[[], None]) -> None:
    """Run `fault` in a thread while `play` goes on here; raise what the fault raised."""
    failed: list[BaseException] = []

    def run() -> None:
        try:
            fault()
        except BaseException as e:  # reported below, in the test's thread
            failed.append(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    play()
    thread.join(60)
    assert not thread.is_alive(), "the fault did not finish"
    if failed:
        raise failed[0]


def log_of(stub: kozyr_pb2_grpc.KozyrServiceStub, match_id: str) -> list[pb.LogEntry]:
    return list(
        stub.GetMatchLog(
            pb.GetMatchLogRequest(match_id=match_id), metadata=auth(ARBITER), timeout=10
        ).entries
    )


def test_play_goes_on_through_a_failover_and_a_killed_master(
    cluster: LocalCluster, services: list[Serve]
) -> None:
    both = stubs(services)
    rng = random.Random(14)
    played: list[Played] = []
    owners: dict[int, int] = {}
    for _ in range(60):  # bounded: until every master holds two matches
        match_id, tokens = create(both[len(played) % 2], "dix")
        port = cluster.owner(log_key(match_id)).port
        owners[port] = owners.get(port, 0) + 1
        played.append(Played(match_id, tokens))
        if len(owners) == cluster.masters and min(owners.values()) >= 2:
            break
    assert len(owners) == cluster.masters, "matches on every master"
    watched = played[0]
    watcher = Spectator(both[1], watched.match_id)  # a spectator on the second server

    play_round(both, played, 3, rng)
    # Each loss happens while moves are in flight: the drill plays on in this thread.
    during(
        lambda: cluster.failover(cluster.replicated_masters()[0]),
        lambda: play_round(both, played, 4, rng),
    )
    killed = cluster.replicated_masters()[-1]
    during(lambda: cluster.kill(killed), lambda: play_round(both, played, 4, rng))
    assert not killed.alive
    play_round(both, played, 1, rng)

    assert all(m.fenced or m.finished or len(m.acked) >= 12 for m in played), (
        "play went on after the failovers"
    )
    for m in played:
        entries = log_of(both[0], m.match_id)
        by_version = {e.version: json.loads(e.canonical_json) for e in entries}
        for prev, entry in itertools.pairwise(entries):
            assert json.loads(entry.canonical_json)["prev"] == prev.hash, "the chain holds"
        lost = [v for v, c in m.acked.items() if by_version.get(v, {}).get("command_id") != c]
        # Acknowledged and gone is allowed only where the service said so (the fencing).
        assert not lost or m.fenced, f"match {m.match_id} lost acknowledged versions {lost}"
    final = max(watched.acked) if watched.acked else 0
    assert wait_for(lambda: any(v >= final for v in watcher.versions), 40), (
        f"the watcher on the other server saw the last move {final}: "
        f"{watcher.versions[-5:]}, {watcher.reconnects} reconnects, {watcher.error!r}"
    )
    assert watcher.versions == sorted(set(watcher.versions)), "no gap, no duplicate"
    assert watcher.versions[0] == 1 and watcher.versions[-1] - 1 == len(watcher.versions) - 1


def test_a_lost_tail_is_reported_never_written_over_and_repair_lets_play_go_on(
    cluster: LocalCluster, services: list[Serve], tmp_path: Path
) -> None:
    """The master acknowledges moves its (paused) replica never receives, then dies: the
    replica is elected without them. The service answers STREAM_BEHIND for that match (both
    processes saw the lost versions) and appends nothing; `kozyr repair` accepts the log."""
    both = stubs(services)
    rng = random.Random(7)
    master = cluster.replicated_masters()[0]
    m: Played | None = None
    for _ in range(60):  # bounded: a match on that master
        match_id, tokens = create(both[0], "dix")
        if cluster.owner(log_key(match_id)).port == master.port:
            m = Played(match_id, tokens)
            break
    assert m is not None
    play_round(both, [m], 4, rng)
    kept = max(m.acked)
    replica = cluster.pause_replica(master)
    play_round(both, [m], 3, rng)  # acknowledged by the master alone
    assert max(m.acked) == kept + 3
    cluster.kill_lagging(master, replica)
    cluster.wait_healthy()
    for n in range(2):  # each server refuses to write over what it acknowledged
        move(both, m, n, rng)
        assert m.fenced, "the lost tail is reported"
        m.fenced = False
    entries = log_of(both[0], m.match_id)
    assert entries[-1].version == kept, "the new master lacks the lost moves; nothing new"

    done = subprocess.run(
        [sys.executable, "-m", "kozyr.cli", "repair", m.match_id, "--redis-url", cluster.url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # The fence key was lost with the tail (same slot, same replication): only the servers
    # knew, and said so (STREAM_BEHIND, and their `stream_behind` log lines).
    assert f"(at version {kept})" in done.stdout
    logs = "".join(s.log.read_text() for s in services)
    assert '"stream_behind"' in logs and f'"cached_version": {kept + 3}' in logs
    play_round(both, [m], 2, rng)
    assert not m.fenced, f"play goes on after the repair, not {m.said}"
    assert log_of(both[1], m.match_id)[-1].version == kept + 2, "the lost versions, played anew"


def test_a_token_revoked_on_the_cluster_is_refused_by_both_servers(
    cluster: LocalCluster, services: list[Serve]
) -> None:
    """`kozyr tokens revoke` with a cluster URL: the announcement (classic pub/sub, which a
    cluster forwards to every node) reaches both servers, which had the token cached."""
    both = stubs(services)
    match_id, tokens = create(both[0], "dix")
    for stub in both:  # both servers cache the seat's token
        stub.ListLegalMoves(
            pb.ListLegalMovesRequest(match_id=match_id), metadata=auth(tokens[0]), timeout=5
        )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "kozyr.cli",
            "tokens",
            "revoke",
            match_id,
            "--seat",
            "0",
            "--redis-url",
            cluster.url,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr

    def refused(stub: kozyr_pb2_grpc.KozyrServiceStub) -> bool:
        try:
            stub.ListLegalMoves(
                pb.ListLegalMovesRequest(match_id=match_id), metadata=auth(tokens[0]), timeout=5
            )
        except grpc.RpcError as e:
            return e.code() == grpc.StatusCode.UNAUTHENTICATED
        return False

    for stub in both:
        assert wait_for(lambda s=stub: refused(s), 10), "the revocation reached every server"
