"""Bounded commands and servers for the many-core bench (tests/bench/manycore.py, from the kit
in the many-core kit): every command runs under `timeout` in a process group of its own,
every `kozyr serve` is stopped (SIGTERM, then its group killed), also when the bench is cut
short; CPU seconds per process from /proc around each run. Each measurement is one JSON line,
printed and appended to `JSONL`.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

T0 = time.monotonic()
REPO = Path(__file__).resolve().parents[2]
OUT = Path(os.environ.get("OUT") or "/tmp/kozyr-bench-scale")
OUT.mkdir(parents=True, exist_ok=True)
JSONL = OUT / "scale.jsonl"
SERVER_LOGS = OUT / "serve-logs.txt"
WORK = Path(tempfile.mkdtemp(prefix="kozyr-scale-", dir=os.environ.get("WORK_DIR") or None))
PY = sys.executable
CLI = [PY, "-m", "kozyr.cli"]
HZ = os.sysconf("SC_CLK_TCK")
# this checkout's code for every command, whatever installed the dependencies (.venv, or the
# kit's wheels on PYTHONPATH on a machine without a package index)
os.environ["PYTHONPATH"] = os.pathsep.join(
    p
    for p in (str(REPO / "service"), str(REPO / "clients/python/src"), os.environ.get("PYTHONPATH"))
    if p
)
os.environ["PYTHONUNBUFFERED"] = "1"
for name in ("REDIS_URL", "KOZYR_ARBITER_TOKEN", "KOZYR_SEED_KEY_FILE", "KOZYR_SIGNING_KEY_DIR"):
    os.environ.pop(name, None)

LIVE: list[Server] = []
GROUPS: set[int] = set()  # process groups of the commands running now (`timeout` leads each)


def now() -> float:
    """Seconds since the bench started."""
    return round(time.monotonic() - T0, 1)


def log(msg: str) -> None:
    """A line of the run's log."""
    print(f"[{now():7.1f}s] {msg}", flush=True)


def emit(record: dict[str, Any]) -> None:
    """One measurement: printed, and appended to JSONL."""
    record = {"t_s": now(), **record}
    line = json.dumps(record, sort_keys=False, default=str)
    print(line, flush=True)
    with JSONL.open("a") as f:
        f.write(line + "\n")


def tail(path: Path, head: int = 15, last: int = 40) -> str:
    """The start and end of a file's text."""
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return ""
    if len(lines) <= head + last:
        return "\n".join(lines)
    return "\n".join([*lines[:head], f"... ({len(lines) - head - last} lines) ...", *lines[-last:]])


# ------------------------------------------------------------------ processes and CPU


def proc_stat(pid: int) -> tuple[int, int, str, float] | None:
    """(ppid, pgrp, comm, cpu seconds) of a live process, None if gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    comm = raw[raw.index("(") + 1 : raw.rindex(")")]
    f = raw[raw.rindex(")") + 2 :].split()
    return int(f[1]), int(f[2]), comm, (int(f[11]) + int(f[12])) / HZ


def group_cpu(pgid: int) -> dict[int, tuple[str, float]]:
    """pid -> (comm, CPU seconds so far) of the processes in a process group."""
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st = proc_stat(int(entry))
            if st is not None and st[1] == pgid:
                out[int(entry)] = (st[2], st[3])
    return out


def cpu_delta(
    before: dict[int, tuple[str, float]], after: dict[int, tuple[str, float]], wall: float
) -> dict[str, Any]:
    """Cores used over `wall` seconds: the server's processes (each, and in all) and Redis."""
    per = {pid: (comm, cpu - before.get(pid, (comm, 0.0))[1]) for pid, (comm, cpu) in after.items()}
    redis = sum(c for comm, c in per.values() if "redis" in comm)
    server = sorted((c / wall for comm, c in per.values() if "redis" not in comm), reverse=True)
    return {
        "server_cpu_cores": round(sum(server), 2),
        "redis_cpu_cores": round(redis / wall, 2),
        "server_process_cores": [round(c, 2) for c in server if c >= 0.01][:16],
    }


def machine_busy() -> tuple[float, float]:
    """(busy, all) CPU seconds of the whole machine so far (/proc/stat)."""
    f = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:9]]
    busy = f[0] + f[1] + f[2] + f[5] + f[6] + f[7]
    return busy / HZ, (busy + f[3] + f[4]) / HZ


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def run_cmd(name: str, argv: list[str], limit: float) -> dict[str, Any]:
    """Run `argv` under `timeout` (own process group), output to WORK/name.out; wall, rc."""
    limit = max(5, int(limit))
    out_path = WORK / f"{name}.out"
    cmd = ["timeout", "-k", "5", str(limit), *argv]
    log(f"run {name} (limit {limit} s): {' '.join(argv[2:])}")
    cpu0, busy0, t = children_cpu(), machine_busy()[0], time.monotonic()
    with out_path.open("w") as out:
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        GROUPS.add(p.pid)
        try:
            rc = p.wait(limit + 20)
        except subprocess.TimeoutExpired:
            kill_group(p.pid)
            rc = p.wait()
    wall = time.monotonic() - t
    if group_alive(p.pid):  # `timeout` leads its group: strays of the command
        kill_group(p.pid)
    GROUPS.discard(p.pid)
    print(tail(out_path), flush=True)
    log(f"end {name}: rc {rc}, {wall:.1f} s")
    return {
        "rc": rc,
        "wall_s": round(wall, 2),
        "client_cpu_s": round(children_cpu() - cpu0, 2),
        "machine_busy_cores": round((machine_busy()[0] - busy0) / wall, 2),
        "timed_out": rc in (124, 137),
        "output": out_path,
    }


class Server:
    """`kozyr serve --workers N` with its embedded Redis in its own data folder."""

    def __init__(self, name: str, workers: int, limit: float) -> None:
        self.name, self.workers = name, workers
        self.folder = WORK / name
        self.log_path = WORK / f"{name}.log"
        self.address = ""
        self.serving = 0
        self.ready = threading.Event()
        argv = [
            *CLI,
            "serve",
            "--address",
            "127.0.0.1:0",
            "--data-dir",
            str(self.folder),
            "--json-logs",
            "--workers",
            str(workers),
        ]
        self.cmd = ["timeout", "-k", "10", str(max(10, int(limit))), *argv]
        log(f"start {name}: {' '.join(argv[2:])}")
        self.t = time.monotonic()
        self.proc = subprocess.Popen(
            self.cmd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            errors="replace",
        )
        self.pgid = self.proc.pid  # `timeout` makes itself a process group leader
        GROUPS.add(self.pgid)
        LIVE.append(self)
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        with self.log_path.open("w") as f:
            for line in self.proc.stderr:
                f.write(line)
                f.flush()
                if " workers on " in line:
                    self.address = line.rsplit(" ", 1)[1].strip()
                elif line.startswith("{"):
                    try:
                        event = json.loads(line)
                    except ValueError:
                        continue
                    if event.get("event") == "serving":
                        self.address = self.address or str(event.get("address", ""))
                        self.serving += 1
                        if self.serving >= self.workers:
                            self.ready.set()
        self.ready.set()  # the server ended: wait() says whether it served

    def wait(self, timeout: float = 90) -> float:
        """Seconds until every worker said serving; raises if it never did."""
        self.ready.wait(timeout)
        if self.serving < self.workers or not self.address:
            raise RuntimeError(
                f"{self.name}: {self.serving}/{self.workers} workers serving "
                f"after {timeout} s; log:\n{tail(self.log_path)}"
            )
        took = time.monotonic() - self.t
        log(f"{self.name}: {self.workers} worker(s) serving on {self.address} after {took:.1f} s")
        return took

    def kozyr_pid(self) -> int | None:
        """The kozyr process `timeout` started (its only child)."""
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                st = proc_stat(int(entry))
                if st is not None and st[0] == self.proc.pid:
                    return int(entry)
        return None

    def cpu(self) -> dict[int, tuple[str, float]]:
        return group_cpu(self.pgid)

    def stop(self) -> None:
        if self not in LIVE:
            return
        LIVE.remove(self)
        t = time.monotonic()
        if self.proc.poll() is None:
            pid = self.kozyr_pid()
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid if pid is not None else self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(40)
            except subprocess.TimeoutExpired:
                log(f"{self.name}: still running 40 s after SIGTERM: killing its group")
        if group_alive(self.pgid):
            kill_group(self.pgid)
        GROUPS.discard(self.pgid)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(10)
        log(f"stopped {self.name} in {time.monotonic() - t:.1f} s (exit {self.proc.returncode})")
        with SERVER_LOGS.open("a") as f:
            f.write(f"===== {self.name}: {' '.join(self.cmd)}\n{tail(self.log_path, 20, 60)}\n")


def stop_all() -> None:
    for server in list(LIVE):
        try:
            server.stop()
        except Exception as e:  # keep stopping the others
            log(f"stopping {server.name}: {e!r}")
    for pgid in list(GROUPS):  # commands cut short by a signal to this script
        if group_alive(pgid):
            log(f"killing process group {pgid}")
            kill_group(pgid)
        GROUPS.discard(pgid)
