"""The `kozyr` command: serve the API (more subcommands join as they are built)."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from kozyr.cli import serve_command

# Modules with a `register(subparsers)` function adding their subcommand(s).
SUBCOMMANDS: list[str] = [
    "kozyr.cli.replay_command",
    "kozyr.cli.play_command",
    "kozyr.cli.tournament_command",
    "kozyr.cli.rules_command",
    "kozyr.cli.repair_command",
    "kozyr.cli.tokens_command",
    "kozyr.cli.tickets_command",
    "kozyr.cli.loadgen_command",
    "kozyr.cli.keys_command",
    "kozyr.cli.log_command",
    "kozyr.cli.health_command",
    "kozyr.cli.webhooks_command",
    "kozyr.cli.export_command",
    "kozyr.cli.mcp_command",
]


def build_parser(serve_only: bool = False) -> argparse.ArgumentParser:
    """The argument parser of every subcommand (of `serve` alone when `serve_only`)."""
    parser = argparse.ArgumentParser(prog="kozyr", description="Kozyr card-game engine")
    sub = parser.add_subparsers(dest="command", required=True)
    serve_command.register(sub)

    # Each further subcommand registers itself from its own cli/<name>_command.py.
    for module in [] if serve_only else SUBCOMMANDS:
        importlib.import_module(module).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `kozyr` command."""
    argv = list(sys.argv[1:] if argv is None else argv)
    # `kozyr serve` needs none of the others (the games, the bots, rich): not importing them
    # lets a refused start (data folder or port taken) answer in a fraction of a second.
    args = build_parser(serve_only=argv[:1] == ["serve"]).parse_args(argv)
    args.argv = argv  # `serve --workers` starts its workers with the same flags
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
