"""The store an operator's command works on (`kozyr tokens`, `tickets`, `repair`, `webhooks`):
`--redis-url`, else $REDIS_URL, else the embedded Redis of a running `kozyr serve` in
`--data-dir` (its unix socket)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path


def add_store_flags(parser: argparse.ArgumentParser) -> None:
    """Add `--redis-url` and `--data-dir` to an operator's command."""
    parser.add_argument(
        "--redis-url",
        default=None,
        help="the Redis (default: $REDIS_URL, else the embedded one of --data-dir)",
    )
    parser.add_argument(
        "--data-dir",
        default="data",
        help="the data folder of a running `kozyr serve` with its embedded Redis",
    )


def store_url(args: argparse.Namespace) -> str:
    """The Redis URL the flags name."""
    return str(
        args.redis_url
        or os.environ.get("REDIS_URL")
        or f"unix://{Path(args.data_dir).resolve() / 'redis.sock'}"
    )
