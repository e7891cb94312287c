"""Who watches which seat, across every process: abandonment (docs/rules.md R-7) needs "no
watcher" to mean no watcher on any replica, not only on the one that takes the claim.

Each process counts its own WatchMatch streams per (match, seat) and notes them in the store
(Store.set_watched) when a stream opens and then every `interval_s`, valid for three
intervals: a process that dies stops renewing, and its watchers lapse within that time.
"""

from __future__ import annotations

import asyncio
import collections

import structlog

from kozyr.engine import Engine
from kozyr.match.errors import MatchError

log = structlog.get_logger("kozyr.presence")


class Presence:
    """This process's watchers, noted in the store for every other process to see."""

    def __init__(self, engine: Engine, interval_s: float = 5.0) -> None:
        self.engine = engine
        self.interval_ms = int(interval_s * 1000)
        self.local: collections.Counter[tuple[str, int]] = collections.Counter()

    async def opened(self, match_id: str, seat: int) -> None:
        """A stream of `seat` opened here: noted at once."""
        self.local[(match_id, seat)] += 1
        await self._note({match_id: {seat}})

    def closed(self, match_id: str, seat: int) -> None:
        """A stream of `seat` ended here (its note lapses on its own)."""
        key = (match_id, seat)
        self.local[key] -= 1
        if self.local[key] <= 0:
            del self.local[key]

    async def watched(self, match_id: str, seat: int) -> bool:
        """True when a stream of `seat` is open here or a process noted one lately."""
        if self.local[(match_id, seat)] > 0:
            return True
        return await self.engine.store.watched_until(match_id, seat) >= self.engine.now_ms()

    async def run(self) -> None:
        """Renew this process's notes until cancelled."""
        while True:
            await asyncio.sleep(self.interval_ms / 1000)
            by_match: dict[str, set[int]] = collections.defaultdict(set)
            for match_id, seat in list(self.local):
                by_match[match_id].add(seat)
            await self._note(by_match)

    async def _note(self, by_match: dict[str, set[int]]) -> None:
        until = self.engine.now_ms() + 3 * self.interval_ms
        for match_id, seats in by_match.items():
            try:
                await self.engine.store.set_watched(match_id, dict.fromkeys(seats, until))
            except MatchError as e:  # the store is away: claims wait for it too
                log.warning("presence_not_noted", match_id=match_id, code=e.code)
