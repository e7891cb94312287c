"""Play N random-playout matches of one game and exit: a fixed amount of work to count
instructions with, `valgrind --tool=callgrind .venv/bin/python tests/bench/playouts.py GAME N`
(callgrind counts the same for the same tree whatever else the machine does; subtract a run of
a few matches to leave start-up out). docs/benchmarks.md, "Instructions per playout"."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from kozyr.games import GAMES
from tests.bench.bench_games import PLAYERS, playout


def main() -> None:
    """Play `N` matches of `GAME` (the seeds s0, s1, …)."""
    name, count = sys.argv[1], int(sys.argv[2])
    for i in range(count):
        playout(GAMES[name], PLAYERS[name], f"s{i}".encode())


if __name__ == "__main__":
    main()
