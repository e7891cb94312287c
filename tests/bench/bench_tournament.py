"""Tournaments (`bench.py --only tournament`): `kozyr tournament` matches/s (Dix, one hand,
heuristic against random) in-process with one and two worker processes, and through
`kozyr serve --workers 2` (a process per core) where every bot is a gRPC client over
PlaySession, and with `--server-bots` (every seat the server's own bot, SeatRequest.bot),
2 workers each, the same matches on every side, side by side, and both again against a
one-process server.
"""

from __future__ import annotations

import statistics
import tempfile
from typing import Any

from tests.bench.harness import RUNS, start_service

# `kozyr serve --workers` of the tournament section: a process per core of this 2-core host,
# as the in-process side has a worker per core.
SERVER_PROCESSES = 2
SIDES = ("one", "two", "served", "moves", "bots", "served_1", "bots_1")


def dix_tournament(matches: int, server_bots: bool = False) -> Any:
    """The benched tournament: Dix single hands, heuristic against random, duplicate."""
    from kozyr.tournament import Tournament

    return Tournament(
        "dix",
        ("heuristic", "random"),
        (("single_hand", "true"),),
        "duplicate",
        matches,
        1,
        server_bots=server_bots,
    )


def bench_tournament(matches: int) -> dict[str, Any]:
    """Tournament matches/s in-process (1 and 2 workers) and through a served engine, the
    server run as deployed on this host (one process per core, like the in-process workers)
    and, beside it, as one process: the same `matches`-match tournament on every side, so the
    workers' start-up weighs alike."""
    from kozyr.tournament import run

    t_local, t_bots = dix_tournament(matches), dix_tournament(matches, True)
    figures: dict[str, list[float]] = {k: [] for k in SIDES}
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as tmp_1:
        proc, address = start_service(tmp, workers=SERVER_PROCESSES)
        proc_1, address_1 = start_service(tmp_1, workers=1)
        try:
            for _ in range(RUNS):  # interleaved, so all of them see the same machine load
                figures["one"].append(run(t_local, workers=1).matches_per_second)
                figures["two"].append(run(t_local, workers=2).matches_per_second)
                result = run(t_local, workers=2, server=address)
                figures["served"].append(result.matches_per_second)
                figures["moves"].append(sum(r.moves for r in result.results) / result.elapsed)
                figures["bots"].append(run(t_bots, workers=2, server=address).matches_per_second)
                figures["served_1"].append(
                    run(t_local, workers=2, server=address_1).matches_per_second
                )
                figures["bots_1"].append(
                    run(t_bots, workers=2, server=address_1).matches_per_second
                )
        finally:
            for p in (proc, proc_1):
                p.terminate()
                p.wait(30)
    out = tournament_figures({k: statistics.median(v) for k, v in figures.items()})
    for k, v in out.items():
        print(f"  {k:36} {v}", flush=True)
    return out


def tournament_figures(m: dict[str, float]) -> dict[str, Any]:
    """The section's figures from the medians of each side."""
    return {
        "tournament": "dix single_hand=true, heuristic vs random, duplicate",
        "server_processes": SERVER_PROCESSES,
        "in_process_matches_per_s_1_worker": round(m["one"], 1),
        "in_process_matches_per_s_2_workers": round(m["two"], 1),
        "workers_speedup_2_to_1": round(m["two"] / m["one"], 2),
        "served_matches_per_s_2_workers": round(m["served"], 2),
        "served_moves_per_s_2_workers": round(m["moves"]),
        "served_to_in_process_ratio": round(m["served"] / m["two"], 4),
        "server_bots_matches_per_s": round(m["bots"], 2),
        "server_bots_to_in_process_ratio": round(m["bots"] / m["two"], 4),
        "one_server_process_served_ratio": round(m["served_1"] / m["two"], 4),
        "one_server_process_bots_ratio": round(m["bots_1"] / m["two"], 4),
    }
