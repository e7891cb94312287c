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
    "kozyr.replay.cli", "kozyr.play", "kozyr.tournament.cli", "kozyr.rules",
    "kozyr.engine.repair", "kozyr.loadgen",
]


def _serve(args: argparse.Namespace) -> int:
    """`kozyr serve`: refuse at once (one line, status 1) a taken data folder or port."""
    from kozyr.api.listen import CannotListen, check_address
    from kozyr.engine.embedded import EmbeddedRedis, FolderInUse, FolderLock, FolderUnusable

    arbiter = args.arbiter_token or os.environ.get("KOZYR_ARBITER_TOKEN") or None
    url: str = args.redis_url or os.environ.get("REDIS_URL") or ""
    lock: FolderLock | None = None
    embedded: EmbeddedRedis | None = None
    try:
        if not url:  # the folder first: its lock names the running server's pid and address
            lock = FolderLock(args.data_dir).acquire(args.address)
        check_address(args.address)
        if args.metrics_port is not None:
            check_address(f"{args.address.rsplit(':', 1)[0]}:{args.metrics_port}")
        from kozyr.api.server import configure_logging, serve  # gRPC: only once we may serve

        configure_logging(json_logs=args.json_logs)
        if lock is not None:
            embedded = EmbeddedRedis(args.data_dir, appendfsync=args.appendfsync,
                                     lock=lock).start()
            url = embedded.url
            print(f"kozyr: embedded Redis on {url} (append-only file in {embedded.data_dir})",
                  file=sys.stderr)
        asyncio.run(serve(url, args.address, arbiter_token=arbiter,
                          metrics_port=args.metrics_port,
                          on_serving=lock.note if lock is not None else None))
    except (FolderInUse, FolderUnusable, CannotListen) as e:
        print(f"kozyr serve: {e}", file=sys.stderr)
        return 1
    finally:
        if embedded is not None:
            embedded.stop()
        if lock is not None:
            lock.release()
    return 0


def build_parser(serve_only: bool = False) -> argparse.ArgumentParser:
    """The argument parser of every subcommand (of `serve` alone when `serve_only`)."""
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
    for module in [] if serve_only else SUBCOMMANDS:
        importlib.import_module(module).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `kozyr` command."""
    argv = list(sys.argv[1:] if argv is None else argv)
    # `kozyr serve` needs none of the others (the games, the bots, rich): not importing them
    # lets a refused start (data folder or port taken) answer in a fraction of a second.
    args = build_parser(serve_only=argv[:1] == ["serve"]).parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
