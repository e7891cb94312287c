"""`kozyr serve` as real processes: one server per data folder and port, and no orphan Redis."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc
import pytest
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc
from kozyr.store.redis.embedded import EmbeddedRedis, FolderInUse, redis_server_binary
from tests.api.helpers import create, play_out
from tests.conftest import repo_root

pytestmark = pytest.mark.slow

SERVE = [sys.executable, "-m", "kozyr.cli", "serve", "--json-logs"]


def env() -> dict[str, str]:
    path = os.pathsep.join([str(repo_root() / "service"), str(repo_root())])
    return {**os.environ, "PYTHONPATH": path}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Served:
    """A `kozyr serve` process, started and waited for until it logs "serving"."""

    def __init__(self, data_dir: Path, address: str = "127.0.0.1:0", *flags: str) -> None:
        self.proc = subprocess.Popen(
            [*SERVE, "--data-dir", str(data_dir), "--address", address, *flags],
            stderr=subprocess.PIPE,
            text=True,
            env=env(),
        )
        self.lines: list[str] = []
        self.address = ""
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)
            if line.startswith("{") and json.loads(line).get("event") == "serving":
                self.address = str(json.loads(line)["address"])
                break
        assert self.address, "".join(self.lines)
        self.reader = threading.Thread(target=self._drain, daemon=True)
        self.reader.start()

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        self.lines.extend(self.proc.stderr)

    def health(self) -> int:
        with grpc.insecure_channel(self.address) as channel:
            answer = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=30
            )
        return int(answer.status)

    def stub(self) -> kozyr_pb2_grpc.KozyrServiceStub:
        return kozyr_pb2_grpc.KozyrServiceStub(grpc.insecure_channel(self.address))

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(30)
        self.reader.join(10)
        return code


@pytest.fixture
def served(tmp_path: Path) -> Iterator[list[Served]]:
    running: list[Served] = []
    yield running
    for s in running:
        s.stop()


def refused(args: list[str]) -> tuple[int, list[str], float]:
    """Run a `kozyr serve` that must give up: its status, stderr lines and seconds taken."""
    began = time.monotonic()
    done = subprocess.run(
        [*SERVE, *args],
        capture_output=True,
        text=True,
        env=env(),
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    return done.returncode, done.stderr.splitlines(), time.monotonic() - began


SERVING = health_pb2.HealthCheckResponse.SERVING


def test_a_server_runs_the_cycle_collector_it_is_configured_for(
    tmp_path: Path, served: list[Served]
) -> None:
    config = tmp_path / "kozyr.toml"
    config.write_text("gc_young_threshold = 4321\n")
    server = Served(tmp_path / "data", "127.0.0.1:0", "--config", str(config))
    served.append(server)
    line = next(
        json.loads(x)
        for x in server.lines
        if x.startswith("{") and json.loads(x).get("event") == "serving"
    )
    assert line["gc"] == [4321, 20, 10]  # the process's own gc.get_threshold()
    assert server.health() == SERVING


def test_a_second_server_on_the_same_data_folder_exits_with_one_line(
    tmp_path: Path, served: list[Served]
) -> None:
    first = Served(tmp_path / "data")
    served.append(first)
    code, lines, seconds = refused(
        ["--data-dir", str(tmp_path / "data"), "--address", "127.0.0.1:0"]
    )
    assert code == 1
    assert len(lines) == 1, lines
    assert lines[0] == (
        f"kozyr serve: data folder {tmp_path / 'data'} is in use by pid "
        f"{first.proc.pid} serving {first.address}"
    )
    assert seconds < 5, "the second server must give up at once, not wait"
    assert first.health() == SERVING
    create(first.stub(), "dix")  # and its Redis is still its own: it stores matches


def test_a_second_server_on_a_port_in_use_exits_with_one_line(
    tmp_path: Path, served: list[Served]
) -> None:
    address = f"127.0.0.1:{free_port()}"
    first = Served(tmp_path / "one", address)
    served.append(first)
    code, lines, seconds = refused(["--data-dir", str(tmp_path / "two"), "--address", address])
    assert code == 1
    assert lines == [
        f"kozyr serve: cannot listen on {address}: the port is in use by pid {first.proc.pid}"
    ]
    assert seconds < 5, "the second server must give up at once, not wait"
    assert not (tmp_path / "two" / "redis.sock").exists(), "no Redis was started for it"
    assert not (tmp_path / "two" / "appendonly.aof").exists()
    assert first.health() == SERVING


def redis_pid(data_dir: Path) -> int:
    return int((data_dir / "redis.pid").read_text().split()[0])


def gone(pid: int) -> bool:
    """Whether `pid` ended (a zombie waiting for its reaper has ended too)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_a_killed_server_takes_its_redis_along_and_restarts_on_its_data(
    tmp_path: Path, served: list[Served]
) -> None:
    data = tmp_path / "data"
    first = Served(data)
    match_id, _ = create(first.stub(), "dix")
    version = first.stub().GetMatch(pb.GetMatchRequest(match_id=match_id)).view.version
    pid = redis_pid(data)
    first.proc.send_signal(signal.SIGKILL)
    first.proc.wait(30)
    for _ in range(200):  # the kernel signals the child when its parent dies
        if gone(pid):
            break
        time.sleep(0.05)
    assert gone(pid), "the embedded redis-server outlived its kozyr serve"
    again = Served(data)
    served.append(again)
    assert again.health() == SERVING
    view = again.stub().GetMatch(pb.GetMatchRequest(match_id=match_id)).view
    assert view.version == version and view.game == "dix"


def test_a_killed_embedded_redis_is_restarted_and_health_follows_it(
    tmp_path: Path, served: list[Served]
) -> None:
    data = tmp_path / "data"
    first = Served(data)
    served.append(first)
    match_id, _ = create(first.stub(), "dix")
    pid = redis_pid(data)
    os.kill(pid, signal.SIGKILL)
    statuses = []
    for _ in range(600):  # a count of tries, not a deadline
        status = first.health()
        if not statuses or statuses[-1] != status:
            statuses.append(status)
        with contextlib.suppress(OSError, ValueError, IndexError):  # the file is rewritten
            if status == SERVING and redis_pid(data) != pid:
                break
        time.sleep(0.05)
    assert statuses[-1] == SERVING and redis_pid(data) != pid, statuses
    assert not Path(f"/proc/{pid}").exists(), "the killed redis-server was left a zombie"
    view = first.stub().GetMatch(pb.GetMatchRequest(match_id=match_id)).view
    assert view.game == "dix"  # the same data folder, the same socket


def watch_to_the_end_then_hang_up(address: str, match_id: str) -> bool:
    """Watch like kozyr_client does: cancel the call as soon as the final update arrives."""
    with grpc.insecure_channel(address) as channel:
        call = kozyr_pb2_grpc.KozyrServiceStub(channel).WatchMatch(
            pb.WatchMatchRequest(match_id=match_id), timeout=60
        )
        for update in call:
            if update.view.status == pb.MATCH_STATUS_FINISHED:
                call.cancel()
                return True
    return False


def test_watched_matches_that_end_print_nothing_but_log_lines(
    tmp_path: Path, served: list[Served]
) -> None:
    """The cancel that follows the last update used to leave the server's next-entry task
    holding an unread StopAsyncIteration: "Task exception was never retrieved" on stderr."""
    server = Served(tmp_path / "data")
    stub = server.stub()
    for n in range(4):  # each of 4 watchers hit it in most of the matches before the fix
        match_id, tokens = create(stub, "dix", options={"single_hand": "true"})
        with ThreadPoolExecutor(4) as pool:
            watching = [
                pool.submit(watch_to_the_end_then_hang_up, server.address, match_id)
                for _ in range(4)
            ]
            play_out(stub, match_id, tokens, seed=n)
            assert [w.result(60) for w in watching] == [True] * 4
    assert server.stop() == 0
    text = "".join(server.lines)
    assert "never retrieved" not in text and "Traceback" not in text, text[-3000:]
    odd = [line for line in server.lines[1:] if not line.startswith("{")]
    assert odd == [], "after the first line, the server writes only JSON log lines"


# ---------------------------------------------------------------------------- in one process


@pytest.mark.parametrize("bad", ["a file", "an address"])
def test_an_unusable_folder_or_address_is_one_line_and_status_1(
    bad: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from kozyr.cli import main

    (tmp_path / "file").write_text("")
    args = (
        ["--data-dir", str(tmp_path / "file" / "data")]
        if bad == "a file"
        else ["--data-dir", str(tmp_path / "data"), "--address", "127.0.0.1:port"]
    )
    assert main(["serve", *args]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1, err
    assert (
        err[0]
        == {
            "a file": f"kozyr serve: cannot use data folder {tmp_path / 'file' / 'data'}: "
            "Not a directory",
            "an address": "kozyr serve: cannot listen on '127.0.0.1:port': write host:port",
        }[bad]
    )


def test_two_embedded_redis_on_one_folder_are_refused(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path) as first:
        with pytest.raises(FolderInUse, match=f"in use by pid {os.getpid()}"):
            EmbeddedRedis(tmp_path).start()
        assert redis.Redis.from_url(first.url).ping()


def a_redis_left_behind(folder: Path) -> subprocess.Popen[bytes]:
    """A redis-server on `folder` whose owner is gone (as one killed where no death signal
    is armed leaves it): running on the folder's config, holding its socket, unlocked."""
    EmbeddedRedis(folder).start().stop()  # writes the folder's config
    orphan = subprocess.Popen(
        [redis_server_binary(), str(folder / "redis.conf")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    client = redis.Redis(unix_socket_path=str(folder / "redis.sock"))
    for _ in range(200):
        try:
            if client.set("kept", "yes"):
                break
        except (redis.exceptions.RedisError, OSError):
            time.sleep(0.05)
    client.close()
    return orphan


def test_a_start_stops_a_redis_a_dead_owner_left_and_keeps_its_data(tmp_path: Path) -> None:
    orphan = a_redis_left_behind(tmp_path)
    try:
        with EmbeddedRedis(tmp_path) as mine:
            assert orphan.wait(30) == 0, "the orphan is stopped cleanly, not left beside ours"
            assert mine.process is not None and mine.process.pid == redis_pid(tmp_path)
            assert redis.Redis.from_url(mine.url).get("kept") == b"yes"
    finally:
        orphan.kill()
        orphan.wait()


def test_a_redis_of_unknown_origin_on_the_socket_is_refused_not_unlinked(tmp_path: Path) -> None:
    orphan = a_redis_left_behind(tmp_path)
    try:
        (tmp_path / "redis.pid").unlink()  # nothing says whose it is
        with pytest.raises(RuntimeError, match="we did not start"):
            EmbeddedRedis(tmp_path).start()
        assert orphan.poll() is None and (tmp_path / "redis.sock").exists()
        assert redis.Redis(unix_socket_path=str(tmp_path / "redis.sock")).get("kept") == b"yes"
    finally:
        orphan.terminate()
        orphan.wait(30)
