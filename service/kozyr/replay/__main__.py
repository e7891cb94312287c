"""`python -m kozyr.replay export|verify|show …`: the replay tools without the rest of `kozyr`."""

from __future__ import annotations

import argparse
import sys

from kozyr.replay.cli import add_commands


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments and run one replay subcommand."""
    parser = argparse.ArgumentParser(
        prog="python -m kozyr.replay", description="Kozyr replays (docs/replay-format.md)"
    )
    add_commands(parser.add_subparsers(dest="replay_command", required=True))
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
