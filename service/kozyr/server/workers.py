"""`kozyr serve --workers N`: N service processes on one port, for every core of a host.

The parent is a small supervisor (no gRPC, no event loop): it takes the data folder and starts
the embedded Redis when no URL is given, makes sure the seed key exists, reserves the port (a
bound, never listening socket with SO_REUSEPORT, so port 0 is resolved once and nobody else
takes it meanwhile), then starts N `kozyr serve` workers on that address with SO_REUSEPORT:
the kernel spreads new connections over them. A worker that dies is started again; SIGTERM
or SIGINT stops them all gracefully, SIGHUP is passed on (the arbiter token file).

No state of a worker is needed for correctness: every move is decided on a record caught up
from the match's stream (a stale cache shows up as a CONFLICT), watchers read the stream and
hear every worker's appends through Redis pub/sub, token revocations are announced to all.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kozyr.store.redis.embedded import LAUNCHER

RESTART_PAUSE_S = 1.0  # a worker that keeps dying is started again at most this often


def reserve(address: str) -> tuple[socket.socket, int]:
    """Bind `address` with SO_REUSEPORT without listening: the port (port 0 resolved) stays
    ours for the workers, whose listening sockets join it; connections go only to them."""
    host, _, port = address.rpartition(":")
    host = host.strip("[]") or "0.0.0.0"
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, int(port)))
    return sock, int(sock.getsockname()[1])


def worker_argv(
    argv: Sequence[str], *, address: str, redis_url: str, seed_key: str, index: int
) -> list[str]:
    """The `kozyr serve` command line of worker `index`: the parent's, less --workers, with
    the resolved address, store and seed key (a later flag wins in argparse)."""
    out: list[str] = []
    skip = False
    for item in argv:
        if skip:
            skip = False
            continue
        if item == "--workers":
            skip = True
            continue
        if item.startswith("--workers="):
            continue
        out.append(item)
    return [
        *out,
        "--address",
        address,
        "--redis-url",
        redis_url,
        "--seed-key-file",
        seed_key,
        "--worker-index",
        str(index),
    ]


@dataclass
class Supervisor:
    """The worker processes and how to keep them running."""

    argvs: list[list[str]]
    grace_s: float = 10.0
    processes: list[subprocess.Popen[bytes] | None] = field(default_factory=list)
    started: list[float] = field(default_factory=list)
    stopping: bool = False

    def _spawn(self, i: int) -> None:
        # Through the launcher: a worker gets SIGTERM (a graceful stop) if we die.
        self.processes[i] = subprocess.Popen(
            [
                sys.executable,
                "-I",
                "-S",
                "-c",
                LAUNCHER,
                str(os.getpid()),
                sys.executable,
                "-m",
                "kozyr.cli",
                *self.argvs[i],
            ]
        )
        self.started[i] = time.monotonic()

    def run(self) -> int:
        """Start every worker, keep them running until SIGTERM/SIGINT; the exit status."""
        self.processes = [None] * len(self.argvs)
        self.started = [0.0] * len(self.argvs)
        previous = {
            sig: signal.signal(sig, self._on_stop) for sig in (signal.SIGTERM, signal.SIGINT)
        }
        previous[signal.SIGHUP] = signal.signal(signal.SIGHUP, self._on_hup)
        try:
            for i in range(len(self.argvs)):
                self._spawn(i)
            while not self.stopping:
                for i, process in enumerate(self.processes):
                    if process is not None and process.poll() is not None and not self.stopping:
                        print(
                            f"kozyr serve: worker {i} (pid {process.pid}) exited with "
                            f"{process.returncode}; starting it again",
                            file=sys.stderr,
                        )
                        pause = RESTART_PAUSE_S - (time.monotonic() - self.started[i])
                        time.sleep(max(0.0, pause))
                        if not self.stopping:
                            self._spawn(i)
                time.sleep(0.2)
        finally:
            self._stop_all()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        return 0

    def _on_stop(self, signum: int, frame: object) -> None:
        self.stopping = True

    def _on_hup(self, signum: int, frame: object) -> None:
        for process in self.processes:
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGHUP)

    def _stop_all(self) -> None:
        live = [p for p in self.processes if p is not None and p.poll() is None]
        for process in live:
            process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + self.grace_s + 10
        for process in live:
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(5)


def seed_key_path(args_seed_key: str | None, data_dir: str) -> str:
    """The seed key every worker shares (made now if missing, so workers never race)."""
    from kozyr.secrets.seedbox import load_or_create

    path = (
        args_seed_key or os.environ.get("KOZYR_SEED_KEY_FILE") or str(Path(data_dir) / "seed.key")
    )
    load_or_create(Path(path))
    return str(Path(path).resolve())


def serve_workers(args: argparse.Namespace, argv: Sequence[str]) -> int:
    """`kozyr serve --workers N` (N > 1): the supervisor's side (see the module doc)."""
    from kozyr.server.listen import CannotListen, check_address
    from kozyr.store.redis.embedded import EmbeddedRedis, FolderInUse, FolderLock, FolderUnusable

    url = str(args.redis_url or os.environ.get("REDIS_URL") or "")
    lock: FolderLock | None = None
    embedded: EmbeddedRedis | None = None
    try:
        if not url:
            lock = FolderLock(args.data_dir).acquire(args.address)
        check_address(args.address)
        try:
            seed_key = seed_key_path(args.seed_key_file, args.data_dir)
        except (OSError, ValueError) as e:
            print(f"kozyr serve: cannot use the seed key: {e}", file=sys.stderr)
            return 1
        if lock is not None:
            embedded = EmbeddedRedis(args.data_dir, appendfsync=args.appendfsync, lock=lock).start(
                supervise=True
            )
            url = embedded.url
        reserved, port = reserve(args.address)
        with reserved:
            address = f"{args.address.rsplit(':', 1)[0]}:{port}"
            if lock is not None:
                lock.note(address)
            workers = int(args.workers)
            print(f"kozyr serve: {workers} workers on {address}", file=sys.stderr)
            argvs = [
                worker_argv(argv, address=address, redis_url=url, seed_key=seed_key, index=i)
                for i in range(workers)
            ]
            return Supervisor(argvs).run()
    except (FolderInUse, FolderUnusable, CannotListen, OSError) as e:
        print(f"kozyr serve: {e}", file=sys.stderr)
        return 1
    finally:
        if embedded is not None:
            embedded.stop()
        if lock is not None:
            lock.release()
