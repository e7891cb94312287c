"""Kozyr benchmarks (`make bench`): figures for README, medians of repeated runs in one process.

Sections (all by default, or pick with --only):
- games:   random-playout matches/s and moves/s per game, and events folded/s
           (tests/bench/bench_games.py);
- service: moves/s through the whole service (gRPC → rules → Redis → reply) with many concurrent
           matches, health Check calls/s with the same client harness (the no-op ceiling), their
           ratio, and a move's median latency at version ~10 against version ~1,000
           (tests/bench/bench_service.py);
- verify:  offline replay verification (`kozyr replay verify`: parse, chain, seed, deals,
           every move re-decided, outcome) in entries/s over an archive of 1,000 matches
           recorded in-process in the engine's log format, beside the chain check alone and a
           plain fold of the same entries (what replaying without verifying costs)
           (tests/bench/bench_verify.py);
- scale, replicas, ray: `kozyr serve --workers 1|2|4`, Redis Cluster against one Redis, the
           watch delay across replicas, tournaments on Ray (see tests/bench/scale.py);
- receipts: the cost of signing: moves/s through the engine (on its in-memory store, each
           entry signed in the write path and its signature stored with it, as served) with
           and without a signing key,
           interleaved in one run, their ratio, and Ed25519 receipts signed and checked per
           second (tests/bench/bench_receipts.py);
- tlog:    moves/s with the transparency log on and off, with and without write-time signing,
           interleaved in one run (tests/bench/bench_tlog.py);
- tournament: `kozyr tournament` matches/s (Dix, one hand, heuristic against random) in-process
           with one and two worker processes, and through `kozyr serve --workers 2` (a process
           per core) where every bot is a gRPC client over PlaySession, and with
           `--server-bots` (every seat the server's own bot, SeatRequest.bot), 2 workers each,
           the same 400 matches on every side, side by side, and both again against a
           one-process server (tests/bench/bench_tournament.py);
- web:     GetMatch and ListLegalMoves latency over gRPC, Connect (binary, JSON) and gRPC-Web
           on the web port of one process, side by side (tests/bench/bench_web.py);
- cold:    a fresh engine's first read of a 1,000-entry match (snapshot + tail, and the full
           fold without a snapshot) beside the raw XRANGE of its stream (tests/bench/speed.py).
The service section also runs the same matches over PlaySession, interleaved with the unary
moves and the health checks, and times the v10 and v1000 latency bands alternately.
- lane:    the event loop's CPU per append-script call on the Redis lane (tests/bench/speed.py).
- clocks:  deadline lateness (deadline to the appended timeout, from the log) p50 and p99 with
           100 and with 1,000 running clocks (tests/bench/bench_clocks.py).
- bots:    the server's CPU per match of a served `--server-bots` tournament, and its matches/s
           (tests/bench/bench_bots.py).
- edge:    moves/s over gRPC and Connect with the edge's limits at their defaults and opened
           wide, interleaved in one run, and the limits' bookkeeping per call
           (tests/bench/bench_edge.py).

What the sections share (the runs' median, a Dix match decided in advance, a `kozyr serve` to
measure) is tests/bench/harness.py's.

The machine is shared and noisy: compare ratios measured side by side, not absolute numbers
across runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.harness import RUNS  # noqa: E402

Section = Callable[[argparse.Namespace], Any]


def games(args: argparse.Namespace) -> Any:
    from tests.bench.bench_games import bench_games

    print(f"games: random playout, one process, median of {RUNS} runs", flush=True)
    return bench_games(args.seconds)


def service(args: argparse.Namespace) -> Any:
    from tests.bench.bench_service import bench_service

    print(f"service: kozyr serve + embedded Redis, median of {RUNS} runs", flush=True)
    return bench_service(args.matches)


def verify(args: argparse.Namespace) -> Any:
    from tests.bench.bench_verify import bench_verify

    print(
        f"verify: offline replay verification, {args.archive} matches, median of {RUNS} runs",
        flush=True,
    )
    return bench_verify(args.archive)


def receipts(args: argparse.Namespace) -> Any:
    from tests.bench.bench_receipts import bench_receipts

    print(
        f"receipts: engine moves/s with and without signing, median of {RUNS} interleaved runs",
        flush=True,
    )
    return bench_receipts(args.matches)


def tlog(args: argparse.Namespace) -> Any:
    from tests.bench.bench_tlog import bench_tlog, bench_tlog_served

    print(f"tlog: engine moves/s, {args.matches} matches at once, median of {RUNS}", flush=True)
    return {**bench_tlog(args.matches), **bench_tlog_served(args.matches)}


def tournament(args: argparse.Namespace) -> Any:
    from tests.bench.bench_tournament import bench_tournament

    print(f"tournament: kozyr tournament matches/s, median of {RUNS} runs", flush=True)
    return bench_tournament(400)


def scale(args: argparse.Namespace) -> Any:
    from tests.bench.scale import RUNS as SCALE_RUNS
    from tests.bench.scale import bench_scale

    print(
        "scale: moves/s by service processes, cluster against single Redis, median of "
        f"{SCALE_RUNS} runs",
        flush=True,
    )
    return bench_scale(args.matches)


def replicas(args: argparse.Namespace) -> Any:
    from tests.bench.scale import bench_replicas

    print("replicas: three kozyr serve on one Redis, a watcher on another replica", flush=True)
    return bench_replicas()


def ray(args: argparse.Namespace) -> Any:
    from tests.bench.scale import RUNS as SCALE_RUNS
    from tests.bench.scale import bench_ray

    print(
        f"ray: tournament matches/s, local Ray against the local runner, median of "
        f"{SCALE_RUNS} runs",
        flush=True,
    )
    return bench_ray(400)


def web(args: argparse.Namespace) -> Any:
    from tests.bench.bench_web import CALLS, bench_web

    print(f"web: one call at a time over gRPC and the web port, median of {CALLS}", flush=True)
    return bench_web()


def cold(args: argparse.Namespace) -> Any:
    from tests.bench import speed

    print(
        f"cold: a fresh engine's rebuild of a 1,000-entry match, median of {RUNS * 4}", flush=True
    )
    return speed.bench_cold()


def lane(args: argparse.Namespace) -> Any:
    from tests.bench import speed

    print(f"lane: event-loop CPU per append-script call, median of {RUNS}", flush=True)
    return speed.bench_lane()


def clocks(args: argparse.Namespace) -> Any:
    from tests.bench.bench_clocks import bench_clocks

    print("clocks: deadline lateness, kozyr serve + embedded Redis", flush=True)
    return bench_clocks()


def bots(args: argparse.Namespace) -> Any:
    from tests.bench.bench_bots import bench_bots

    print(f"bots: served --server-bots, server CPU per match, median of {RUNS}", flush=True)
    return bench_bots()


def edge(args: argparse.Namespace) -> Any:
    from tests.bench.bench_edge import bench_edge

    print(f"edge: moves/s, limits at defaults and wide, median of {RUNS}", flush=True)
    return bench_edge(args.matches)


# Every section, in the order they run (whatever the order of --only); each imports its module
# only when chosen, so a section never pays for another's imports.
SECTIONS: dict[str, Section] = {
    "games": games,
    "service": service,
    "verify": verify,
    "receipts": receipts,
    "tlog": tlog,
    "tournament": tournament,
    "scale": scale,
    "replicas": replicas,
    "ray": ray,
    "web": web,
    "cold": cold,
    "lane": lane,
    "clocks": clocks,
    "bots": bots,
    "edge": edge,
}
# What `make bench` runs when no --only is given.
DEFAULT = (
    "games",
    "service",
    "verify",
    "receipts",
    "tournament",
    "scale",
    "replicas",
    "ray",
    "cold",
    "lane",
    "clocks",
)


def parse_args() -> argparse.Namespace:
    """The command line: the sections (--only, repeated) and their sizes."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--only", action="append", choices=list(SECTIONS), help="run only these sections"
    )
    parser.add_argument("--seconds", type=float, default=2.0, help="per game-playout run")
    parser.add_argument("--matches", type=int, default=64, help="concurrent service matches")
    parser.add_argument(
        "--archive", type=int, default=1000, help="matches in the verify section's archive"
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    return parser.parse_args()


def main() -> int:
    """Run the chosen sections and print (and optionally save) the figures."""
    args = parse_args()
    chosen = args.only or DEFAULT
    results = {name: run(args) for name, run in SECTIONS.items() if name in chosen}
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
