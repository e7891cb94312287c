"""`kozyr mcp`: one seat of a match as an MCP server on stdio, for tool-using agents.

The seat's token (or platform ticket) is read from ``KOZYR_SEAT_TOKEN``; tools: view,
legal_moves, play, resign (kozyr.envs.mcp_seat, docs/agents.md "MCP").
"""

from __future__ import annotations

import argparse
import os
import sys


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the `mcp` subcommand."""
    p = sub.add_parser(
        "mcp",
        help="serve one seat of a match to an MCP-capable agent (stdio)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--server", default="127.0.0.1:50051", metavar="ADDR")
    p.add_argument("--match", required=True, help="the match id")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    """Serve the seat until the agent disconnects."""
    token = os.environ.get("KOZYR_SEAT_TOKEN", "")
    if not token:
        print("kozyr mcp: set KOZYR_SEAT_TOKEN to the seat's token or ticket", file=sys.stderr)
        return 2
    from kozyr.envs.mcp_seat import seat_server

    seat_server(args.server, args.match, token).run("stdio")
    return 0
