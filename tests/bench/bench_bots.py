"""The server's CPU per match its own bots play (issue 32; `bench.py --only bots`).

A served tournament of Dix single hands, heuristic against random, every seat the server's own
bot (`kozyr tournament --server-bots`), against one `kozyr serve` process with its embedded
Redis: after a warm-up round, the server process's own CPU (from /proc, Redis apart) per match
and the matches per second, medians of RUNS rounds. Each bot run is one append and, since
issue 32, one signature (docs/fairness.md §6): this is the figure that changed.
"""

from __future__ import annotations

import statistics
import tempfile
from typing import Any

from tests.bench.bounded import proc_stat
from tests.bench.harness import RUNS, start_service


def bench_bots(matches: int = 300, runs: int = RUNS) -> dict[str, Any]:
    """Server CPU per match and matches/s of a served --server-bots tournament."""
    from kozyr.tournament import Tournament, run

    tournament = Tournament(
        "dix",
        ("heuristic", "random"),
        (("single_hand", "true"),),
        "duplicate",
        matches,
        1,
        server_bots=True,
    )
    with tempfile.TemporaryDirectory() as tmp:
        proc, address = start_service(tmp)
        try:
            run(tournament, workers=1, server=address)  # warm-up: imports, caches, the bots
            cpu_us, rates = [], []
            for _ in range(runs):
                before = _cpu(proc.pid)
                result = run(tournament, workers=1, server=address)
                cpu_us.append((_cpu(proc.pid) - before) / matches * 1e6)
                rates.append(result.matches_per_second)
        finally:
            proc.terminate()
            proc.wait(30)
    out = {
        "matches_per_round": matches,
        "server_cpu_us_per_match": round(statistics.median(cpu_us)),
        "matches_per_s": round(statistics.median(rates), 1),
        "server_cpu_us_per_match_rounds": [round(x) for x in cpu_us],
    }
    for k, v in out.items():
        print(f"  {k:32} {v}", flush=True)
    return out


def _cpu(pid: int) -> float:
    stat = proc_stat(pid)
    assert stat is not None, "the server process is gone"
    return float(stat[3])
