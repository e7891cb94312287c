"""The `kozyr` command: serve the API (more subcommands join as they are built)."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import sys
from collections.abc import Sequence

DEFAULT_ADDRESS = "127.0.0.1:50051"

# Modules with a `register(subparsers)` function adding their subcommand(s).
SUBCOMMANDS: list[str] = [
    "kozyr.replay.cli", "kozyr.play", "kozyr.tournament.cli", "kozyr.rules", "kozyr.loadgen",
]


def _serve(args: argparse.Namespace) -> int:
    from kozyr.api.server import configure_logging, serve
    from kozyr.engine.embedded import EmbeddedRedis

    configure_logging(json_logs=args.json_logs)
    arbiter = args.arbiter_token or os.environ.get("KOZYR_ARBITER_TOKEN") or None
    url = args.redis_url or os.environ.get("REDIS_URL")
    embedded = None
    if not url:
        embedded = EmbeddedRedis(args.data_dir, appendfsync=args.appendfsync).start()
        url = embedded.url
        print(f"kozyr: embedded Redis on {url} (append-only file in {embedded.data_dir})",
              file=sys.stderr)
    try:
        asyncio.run(serve(url, args.address, arbiter_token=arbiter,
                          metrics_port=args.metrics_port))
    finally:
        if embedded is not None:
            embedded.stop()
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="kozyr", description="Kozyr card-game engine")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the gRPC service")
    serve.add_argument("--address", default=DEFAULT_ADDRESS, help="host:port to listen on")
    serve.add_argument("--redis-url", default=None,
                       help="use this Redis (default: $REDIS_URL, else an embedded Redis)")
    serve.add_argument("--data-dir", default="data", help="embedded Redis data folder")
    serve.add_argument("--appendfsync", default="everysec", choices=["everysec", "always"],
                       help="embedded Redis durability (see deploy/redis/README.md)")
    serve.add_argument("--arbiter-token", default=None,
                       help="token that may read any log (default: $KOZYR_ARBITER_TOKEN)")
    serve.add_argument("--metrics-port", type=int, default=None, help="Prometheus port")
    serve.add_argument("--json-logs", action=argparse.BooleanOptionalAction, default=None,
                       help="JSON log lines (default: when stderr is not a terminal)")
    serve.set_defaults(func=_serve)

    # Each further subcommand lives beside the code it drives and registers itself here.
    for module in SUBCOMMANDS:
        importlib.import_module(module).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `kozyr` command."""
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
