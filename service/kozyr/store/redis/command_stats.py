"""How long the store's Redis commands take, and how they fail: counted in this process for
the metrics (api/metrics.py exports them as `kozyr_redis_command_seconds` and
`kozyr_redis_command_errors_total`).

The moves' and watchers' clients are `TimedRedis`: each command through `execute_command`
(scripts, reads, writes) is timed, but a blocking read (XREAD ... BLOCK: a watcher waiting for
the next move) is not, as its wait is the stream's pace, not the store's. Pipelines and
pub/sub have paths of their own and are not counted.
"""

from __future__ import annotations

import bisect
import time
from collections import Counter
from typing import Any

import redis.asyncio as aioredis

BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
BLOCKING = (b"BLOCK", "BLOCK")


class CommandStats:
    """Durations (bucketed as a Prometheus histogram) and errors (by type) of commands."""

    def __init__(self) -> None:
        self.counts = [0] * (len(BUCKETS) + 1)  # the last one: above every bucket
        self.seconds = 0.0
        self.errors: Counter[str] = Counter()

    def took(self, seconds: float) -> None:
        """Count one command that took `seconds`."""
        self.counts[bisect.bisect_left(BUCKETS, seconds)] += 1
        self.seconds += seconds

    def cumulative(self) -> list[tuple[str, float]]:
        """The histogram's buckets as Prometheus gives them ("le" bound, count up to it)."""
        out, total = [], 0
        for bound, count in zip([*map(str, BUCKETS), "+Inf"], list(self.counts), strict=True):
            total += count
            out.append((bound, float(total)))
        return out


COMMANDS = CommandStats()


class TimedRedis(aioredis.Redis):
    """redis-py's asyncio client, each command timed in COMMANDS."""

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        """Run the command, counting its duration and any error."""
        if any(a in BLOCKING for a in args):
            return await super().execute_command(*args, **options)  # type: ignore[no-untyped-call]
        started = time.perf_counter()
        try:
            return await super().execute_command(*args, **options)  # type: ignore[no-untyped-call]
        except Exception as e:
            COMMANDS.errors[type(e).__name__] += 1
            raise
        finally:
            COMMANDS.took(time.perf_counter() - started)
