"""The per-move log, off the hot path: one line per command at DEBUG, a summary at INFO.

New matches likewise: `match_created` at DEBUG, and the summary counts them (a tournament
creates hundreds a second; their lines were 2.5 % of a server's CPU).

Rendering and writing a structured line per move was 15% of the server's CPU per move
(issue 15). So at INFO a move only counts towards a `moves` summary line written at most once
per interval (moves by result, median and largest latency); refused moves still get a line of
their own (they are rare and they are what an operator looks for); at DEBUG
(`kozyr serve --log-level debug`) every command has its line, as before. Hidden information
never enters these lines: only ids, seat, version, result and latency.
"""

from __future__ import annotations

import logging
import statistics
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import structlog

log = structlog.get_logger("kozyr.api")
SAMPLES = 1024  # latencies kept per summary for its median


class MoveLog:
    """Counts moves and writes the `move` lines as configured (see the module docstring)."""

    def __init__(
        self, interval_s: float = 10.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.interval_s = interval_s
        self._clock = clock
        self._since = clock()
        self._results: Counter[str] = Counter()
        self._latencies: list[float] = []
        self._largest = 0.0
        self._created = 0
        # Whether a line per move is written (DEBUG): asked again at each summary, since even a
        # filtered call through structlog's proxy cost ~1.5 us a move.
        self._each = _debug_enabled()

    def created(self, **fields: Any) -> None:
        """One new match (`fields`: match_id, game, seats)."""
        log.debug("match_created", **fields)
        self._created += 1
        if self._clock() - self._since >= self.interval_s:
            self.flush()

    def record(self, result: str, latency_ms: float, **fields: Any) -> None:
        """One command's outcome (`fields`: match_id, seat, command_id, version)."""
        if result != "OK":
            log.info("move", result=result, latency_ms=round(latency_ms, 3), **fields)
        elif self._each:
            log.debug("move", result=result, latency_ms=round(latency_ms, 3), **fields)
        self._results[result] += 1
        if len(self._latencies) < SAMPLES:
            self._latencies.append(latency_ms)
        self._largest = max(self._largest, latency_ms)
        if self._clock() - self._since >= self.interval_s:
            self.flush()

    def flush(self) -> None:
        """Write the summary of the moves counted since the last one (if any)."""
        now = self._clock()
        if self._results or self._created:
            moves: dict[str, Any] = {}
            if self._results:
                moves = {
                    "results": dict(self._results),
                    "median_latency_ms": round(statistics.median(self._latencies), 3),
                    "max_latency_ms": round(self._largest, 3),
                }
            log.info(
                "moves",
                interval_s=round(now - self._since, 3),
                moves=sum(self._results.values()),
                matches_created=self._created,
                **moves,
            )
        self._since = now
        self._each = _debug_enabled()
        self._results.clear()
        self._latencies.clear()
        self._largest = 0.0
        self._created = 0


def _debug_enabled() -> bool:
    """Whether the configured logger writes DEBUG lines (a logger that cannot say does). A
    fresh proxy is asked: binding `log` itself could fix its configuration for good."""
    enabled = getattr(structlog.get_logger("kozyr.api").bind(), "is_enabled_for", None)
    return True if enabled is None else bool(enabled(logging.DEBUG))
