"""`kozyr serve --workers N`: N processes on one port (SO_REUSEPORT) under a supervisor; no
state of a worker is needed (moves through any worker stay consistent, a watcher on one hears
moves through the other), a killed worker is started again, SIGTERM stops them all."""

from __future__ import annotations

import contextlib
import os
import random
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc
from kozyr_client import spread_connections
from tests.api.helpers import Watcher, create, play_one
from tests.reliability.harness import ARBITER, redis_servers_on, wait_for

pytestmark = pytest.mark.slow


class Workers:
    """`kozyr serve --workers 2` with its embedded Redis, in a folder of its own."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.log = folder / "serve.log"
        with self.log.open("wb") as err:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "kozyr.cli",
                    "serve",
                    "--workers",
                    "2",
                    "--address",
                    "127.0.0.1:0",
                    "--data-dir",
                    str(folder / "data"),
                    "--json-logs",
                ],
                stdout=subprocess.DEVNULL,
                stderr=err,
                env={**os.environ, "KOZYR_ARBITER_TOKEN": ARBITER},
            )
        if not wait_for(lambda: self.serving() >= 2, 60):
            self.process.kill()  # a start that failed leaves nothing running
            self.process.wait(10)
            for pid in redis_servers_on(folder / "data"):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            pytest.fail(f"kozyr serve --workers 2 did not start: {self.log.read_text()[-2000:]}")
        found = re.search(r"2 workers on (\S+)", self.log.read_text())
        assert found is not None
        self.address = found.group(1)
        self.port = int(self.address.rsplit(":", 1)[1])

    def serving(self) -> int:
        """How many times a worker said it serves."""
        return self.log.read_text().count('"event": "serving"')

    def workers(self) -> list[int]:
        """The pids of the live workers."""
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        pids = [int(p) for p in children.read_text().split()]
        return [p for p in pids if b"kozyr.cli" in Path(f"/proc/{p}/cmdline").read_bytes()]

    def stub(self) -> kozyr_pb2_grpc.KozyrServiceStub:
        """A stub on a new connection (the kernel picks its worker)."""
        channel = grpc.insecure_channel(
            self.address, options=[("grpc.use_local_subchannel_pool", 1)]
        )
        return kozyr_pb2_grpc.KozyrServiceStub(channel)


def connected_pids(port: int) -> set[int]:
    """Pids holding an established TCP connection on local port `port` (Linux /proc)."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for row in Path(table).read_text().splitlines()[1:]:
                f = row.split()
                if f[3] == "01" and int(f[1].rsplit(":", 1)[1], 16) == port:
                    inodes.add(f"socket:[{f[9]}]")
    pids: set[int] = set()
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            with contextlib.suppress(OSError):
                if any(str(fd.readlink()) in inodes for fd in (proc / "fd").iterdir()):
                    pids.add(int(proc.name))
    return pids


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[Workers]:
    """A running `kozyr serve --workers 2`; nothing left running afterwards."""
    served = Workers(tmp_path)
    try:
        yield served
    finally:
        if served.process.poll() is None:
            served.process.kill()
            served.process.wait(10)
        for pid in redis_servers_on(tmp_path / "data"):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_two_workers_share_one_port_and_no_state(workers: Workers) -> None:
    pids = workers.workers()
    assert len(pids) == 2
    stubs = [workers.stub() for _ in range(12)]  # twelve connections over the two workers
    for s in stubs:
        s.ListGames(pb.ListGamesRequest(), timeout=10)
    assert set(pids) <= connected_pids(workers.port), "the kernel spreads connections"
    match_id, tokens = create(stubs[0], "dix")
    watcher = Watcher(stubs[1], match_id, None)
    rng = random.Random(3)
    last = 0
    for n in range(30):  # every move through the next connection: both workers take turns
        done = play_one(stubs[n % len(stubs)], match_id, tokens, rng)
        if done is None:
            break
        assert done.version > last, "versions only grow, whichever worker decided"
        last = done.version
    assert wait_for(lambda: any(u.version >= last for u in watcher.updates), 20), (
        "a watcher hears moves made through the other worker"
    )


def test_a_killed_worker_is_started_again_and_sigterm_stops_everything(workers: Workers) -> None:
    first = workers.workers()
    os.kill(first[0], signal.SIGKILL)
    assert wait_for(lambda: workers.serving() >= 3, 60), "the supervisor started it again"
    assert wait_for(lambda: len(workers.workers()) == 2, 20)
    assert first[0] not in workers.workers()
    create(workers.stub(), "dix")  # still serving
    workers.process.send_signal(signal.SIGTERM)
    assert workers.process.wait(40) == 0
    assert wait_for(lambda: not redis_servers_on(workers.folder / "data"), 20)
    assert not [
        p
        for p in first
        if Path(f"/proc/{p}").exists() and b"kozyr" in Path(f"/proc/{p}/cmdline").read_bytes()
    ]


def test_a_tournament_worker_spreads_its_connections_over_both_workers(workers: Workers) -> None:
    tags = {workers.stub().ListGames(pb.ListGamesRequest(), timeout=10).process for _ in range(12)}
    assert len(tags) == 2 and all(tags), "each worker process answers with a tag of its own"
    kept = spread_connections(workers.address, 4, 16)
    try:
        seen = [c.server_process() for c in kept]
        assert len(kept) == 4 and set(seen) == tags
        assert seen[0] != seen[1] and seen[2] != seen[3], "taken from each process in turn"
        assert [c.server_process() for c in kept] == seen, "a connection keeps its process"
    finally:
        for c in kept:
            c.close()
