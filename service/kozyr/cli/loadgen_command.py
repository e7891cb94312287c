"""`kozyr loadgen`: its flags, and the run that turns them into a kozyr.tools.loadgen run.

Refuses a server that is not on a loopback address unless --allow-remote. Without an arbiter
token (--arbiter-token-file, else $KOZYR_ARBITER_TOKEN) only finished logs can be read back, so
every match is played to its end. Exit status: 0 every check passed, 1 one failed, 2 bad flags.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from kozyr.tools.load_report import passed, render
from kozyr.tools.loadgen import LoadConfig, LoadGen, is_loopback, redis_probe


def _arbiter_token(path: str | None) -> str | None:
    if path:
        return Path(path).read_text().strip() or None
    return os.environ.get("KOZYR_ARBITER_TOKEN") or None


def _run(args: argparse.Namespace) -> int:
    if not (args.allow_remote or is_loopback(args.server)):
        print(
            f"kozyr loadgen: {args.server} is not a loopback address "
            "(pass --allow-remote to load another machine)",
            file=sys.stderr,
        )
        return 2
    token = _arbiter_token(args.arbiter_token_file)
    moves = args.moves_per_match
    if token is None:
        moves = 100_000  # without the arbiter only finished logs can be read: play to the end
        print("kozyr loadgen: no arbiter token; playing every match to its end", file=sys.stderr)
    try:
        config = LoadConfig(
            server=args.server,
            matches=args.matches,
            concurrency=args.concurrency,
            game=args.game,
            moves_per_match=moves,
            seconds=args.seconds,
            seed=args.seed,
            arbiter_token=token,
            deadline=args.deadline,
            give_up=args.give_up,
        )
    except ValueError as e:
        print(f"kozyr loadgen: {e}", file=sys.stderr)
        return 2

    async def go() -> dict[str, Any]:
        probe = await redis_probe(args.store_url) if args.store_url else None
        return await LoadGen(config, probe).run()

    report = asyncio.run(go())
    print(render(report, sys.stdout.isatty()))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0 if passed(report) else 1


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `kozyr loadgen`."""
    p = sub.add_parser(
        "loadgen",
        help="play many watched matches against a server and check them",
        description="Play N matches with random legal clients that also watch "
        "them, report throughput, latency and errors, then check "
        "every match's log. Exit status 1 when a check fails.",
    )
    p.add_argument("--server", default="127.0.0.1:50051", help="host:port (loopback only)")
    p.add_argument("--matches", type=int, default=100, help="matches to play in all")
    p.add_argument("--concurrency", type=int, default=50, help="matches played at once")
    p.add_argument("--game", default="dix", choices=["dix", "six-dozens", "durak-dice"])
    p.add_argument("--moves-per-match", type=int, default=5, help="moves each match plays")
    p.add_argument("--seconds", type=float, default=60.0, help="stop starting moves after this")
    p.add_argument("--seed", type=int, default=0, help="seed of the random clients")
    p.add_argument("--deadline", type=float, default=5.0, help="deadline of each call, seconds")
    p.add_argument(
        "--give-up",
        type=float,
        default=20.0,
        help="a match is stuck after this many seconds without progress",
    )
    p.add_argument("--json", default=None, metavar="FILE", help="also write the report as JSON")
    p.add_argument(
        "--arbiter-token-file",
        default=None,
        help="file holding the arbiter token (default: $KOZYR_ARBITER_TOKEN)",
    )
    p.add_argument(
        "--store-url",
        default=None,
        help="Redis URL to PING when an UNAVAILABLE arrives (judges false ones)",
    )
    p.add_argument("--allow-remote", action="store_true", help="allow a non-loopback server")
    p.set_defaults(func=_run)
