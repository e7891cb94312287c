"""A real `kozyr serve` subprocess with its embedded Redis, and a loadgen run in a thread, for
the load and fault tests (tests/reliability/test_loadgen.py, test_faults.py)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import redis
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import NoBackoff
from redis.retry import Retry

from kozyr.tools.loadgen import LoadConfig, LoadGen, StoreProbe

ARBITER = "arbiter-token-for-load-tests-0123456789"
PROBE_NAME = "kozyr-test-probe"  # our own Redis connections, left out of the server's count


def free_port() -> int:
    """A loopback port nobody listens on now (the restarted server reuses it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(check: Callable[[], bool], seconds: float, step: float = 0.05) -> bool:
    """Poll `check` until it holds or `seconds` pass (bounded in time and count); whether it
    held."""
    deadline = time.monotonic() + seconds
    for _ in range(max(1, int(seconds / step))):
        if check():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(step)
    return check()


def redis_servers_on(data_dir: Path) -> list[int]:
    """Pids of every live redis-server on `data_dir` (orphans included). redis-server retitles
    itself "redis-server unixsocket:<socket>", so the folder is looked for anywhere in it."""
    folder = str(data_dir.resolve()).encode()
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes()
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if b"redis-server" in cmdline and folder in cmdline and state != "Z":
            pids.append(int(proc.name))
    return sorted(pids)


class Serve:
    """`kozyr serve` on 127.0.0.1:`port` with its embedded Redis under `data_dir`."""

    def __init__(
        self,
        data_dir: Path,
        port: int | None = None,
        grace: float = 10.0,
        extra: tuple[str, ...] = (),
    ) -> None:
        self.data_dir = data_dir
        self.extra = extra  # more `kozyr serve` flags (e.g. raised limits for a drill)
        self.port = port or free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.grace = grace
        self.process: subprocess.Popen[bytes] | None = None
        self.log = data_dir.parent / f"{data_dir.name}-serve.log"

    def start(self, timeout: float = 60.0) -> Serve:
        """Start it and wait until it logs that it serves."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "KOZYR_ARBITER_TOKEN": ARBITER}
        offset = self.log.stat().st_size if self.log.exists() else 0
        with self.log.open("ab") as err:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "kozyr.cli",
                    "serve",
                    "--address",
                    self.address,
                    "--data-dir",
                    str(self.data_dir),
                    "--json-logs",
                    *self.extra,
                ],
                stdout=subprocess.DEVNULL,
                stderr=err,
                env=env,
            )
        process = self.process

        def serving() -> bool:
            if process.poll() is not None:
                raise RuntimeError(f"kozyr serve exited: {self.log.read_text()[-2000:]}")
            return b'"serving"' in self.log.read_bytes()[offset:]

        try:
            if not wait_for(serving, timeout):
                raise RuntimeError(f"kozyr serve did not start: {self.log.read_text()[-2000:]}")
        except BaseException:
            self.kill_all()  # a start that failed leaves nothing running (no fixture stops it)
            raise
        return self

    @property
    def socket_path(self) -> Path:
        """The embedded Redis's unix socket."""
        return self.data_dir / "redis.sock"

    def admin(self, timeout: float | None = 2.0) -> redis.Redis:
        """A Redis client of our own on the embedded server (named, so it is not counted)."""
        # No retries: a drill asks "is it there now?", and redis-py would back off for long.
        return redis.Redis(
            unix_socket_path=str(self.socket_path),
            decode_responses=True,
            client_name=PROBE_NAME,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry=Retry(NoBackoff(), 0),
        )

    def redis_pid(self) -> int:
        """The pid of the embedded redis-server, from the server itself."""
        with contextlib.closing(self.admin()) as client:
            return int(client.info("server")["process_id"])

    def server_connections(self) -> int:
        """Redis connections that are not ours: the service's."""
        with contextlib.closing(self.admin()) as client:
            return sum(1 for c in client.client_list() if c.get("name") != PROBE_NAME)

    def stop(self, sig: int = signal.SIGTERM, timeout: float | None = None) -> float | None:
        """Send `sig` and wait (at most grace + 10 s); seconds it took, None if it did not end."""
        if self.process is None or self.process.poll() is not None:
            return 0.0
        began = time.monotonic()
        self.process.send_signal(sig)
        try:
            self.process.wait(self.grace + 10 if timeout is None else timeout)
        except subprocess.TimeoutExpired:
            return None
        return time.monotonic() - began

    def kill_all(self) -> None:
        """Leave nothing running: the service, and any redis-server on its folder."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        for pid in redis_servers_on(self.data_dir):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
                os.kill(pid, signal.SIGKILL)


def store_probe(serve: Serve) -> StoreProbe:
    """Healthy when the embedded Redis answers a PING within half a second."""

    async def healthy() -> bool:
        client = redis.asyncio.Redis(
            unix_socket_path=str(serve.socket_path),
            client_name=PROBE_NAME,
            socket_timeout=0.5,
            socket_connect_timeout=0.5,
            retry=AsyncRetry(NoBackoff(), 0),
        )
        try:
            return bool(await asyncio.wait_for(client.ping(), 0.5))
        except Exception:  # unreachable, paused or dead: not healthy
            return False
        finally:
            with contextlib.suppress(Exception):
                await client.aclose()

    return healthy


class Background:
    """A loadgen run on its own event loop in a thread, so a test can act while it plays."""

    def __init__(self, config: LoadConfig, probe: StoreProbe | None = None) -> None:
        self.gen = LoadGen(config, probe)
        self.report: dict[str, Any] | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.report = asyncio.run(self.gen.run())
        except BaseException as e:  # handed to the test thread by finish()
            self.error = e

    def acked(self) -> int:
        """Moves acknowledged so far."""
        return self.gen.stats.acked

    def wait_acked(self, more: int, seconds: float = 60.0) -> bool:
        """Wait (bounded) until `more` further moves are acknowledged."""
        target = self.acked() + more
        return wait_for(lambda: self.acked() >= target or not self.thread.is_alive(), seconds)

    def finish(self, seconds: float = 120.0) -> dict[str, Any]:
        """Stop starting moves, wait for the checks, and return the report."""
        self.gen.stop_soon()
        self.thread.join(seconds)
        if self.error is not None:
            raise self.error
        assert self.report is not None, "the loadgen run did not end in time"
        return self.report

    def first_ack_after(self, moment: float) -> float | None:
        """Seconds from `moment` (monotonic) to the first move sent after it and acknowledged."""
        done = [answered for sent, answered in list(self.gen.stats.acks) if sent >= moment]
        return round(min(done) - moment, 2) if done else None


@contextlib.contextmanager
def sampling(measure: Callable[[], int], every: float = 0.25) -> Iterator[list[int]]:
    """Sample `measure` in a thread while the block runs (bounded by the block); the samples."""
    samples: list[int] = []
    done = threading.Event()

    def loop() -> None:
        while not done.wait(every):
            with contextlib.suppress(Exception):  # a sample missed is not a finding
                samples.append(measure())

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield samples
    finally:
        done.set()
        thread.join(10)
