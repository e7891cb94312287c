"""Server CPU per served move against the served window's size, side by side in one run.

    python -m tests.bench.served_window PID ADDRESS [SIZES]   (SIZES default "128,256,64")

PID is a running `kozyr serve --workers 1` (its process and children but Redis are counted),
ADDRESS where it listens. Three interleaved rounds of the same one-worker client-bot
tournament (dix single_hand, heuristic vs random, 1,200 matches) per window size
(kozyr.tournament.served.AT_ONCE set in the child before it starts); each prints the server's
CPU per move and matches/s, then the medians.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HZ = os.sysconf("SC_CLK_TCK")
WRAP = (
    "import sys, kozyr.tournament.served as s; s.AT_ONCE = int(sys.argv.pop(1)); "
    "from kozyr.cli import main; sys.exit(main())"
)


def cpu_s(pid: int) -> float:
    """CPU seconds of a process so far."""
    f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / HZ


def server_pids(pid: int) -> list[int]:
    """The server process and its children, Redis left out."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    pids = [pid, *map(int, children)]
    return [p for p in pids if b"redis" not in Path(f"/proc/{p}/cmdline").read_bytes()]


def one_run(pids: list[int], address: str, size: int, seed: int, out: Path) -> tuple[float, float]:
    """(server µs per move, matches/s) of one tournament with windows of `size`."""
    before = sum(cpu_s(p) for p in pids)
    argv = [sys.executable, "-c", WRAP, str(size), "tournament", "--game", "dix"]
    argv += ["--option", "single_hand=true", "--players", "heuristic,random"]
    argv += ["--matches", "1200", "--seed", str(seed), "--server", address, "--workers", "1"]
    subprocess.run([*argv, "--no-progress", "--json", str(out)], check=True, timeout=180)
    data = json.loads(out.read_text())
    moves = sum(m["moves"] for m in data["matches"])
    used = sum(cpu_s(p) for p in pids) - before
    return used / moves * 1e6, float(data["run"]["matches_per_s"])


def main() -> int:
    """Interleaved rounds, then the medians per size."""
    pid, address = int(sys.argv[1]), sys.argv[2]
    sizes = [int(x) for x in (sys.argv[3] if len(sys.argv) > 3 else "128,256,64").split(",")]
    pids, rows = server_pids(pid), {size: list[tuple[float, float]]() for size in sizes}
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        for seed in range(3):
            for size in sizes:
                us, rate = one_run(pids, address, size, seed, Path(folder) / "t.json")
                rows[size].append((us, rate))
                print(f"AT_ONCE {size} round {seed}: server {us:.0f} µs/move, {rate:.1f} m/s")
    for size, runs in rows.items():
        us = statistics.median(r[0] for r in runs)
        rate = statistics.median(r[1] for r in runs)
        print(f"AT_ONCE {size}: median server {us:.0f} µs/move, {rate:.1f} matches/s")
    print(f"({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
