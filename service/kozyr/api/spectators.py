"""The spectator delay (CreateMatchRequest.spectator_delay_ms, kept in the match terms): a
spectator's GetMatch and WatchMatch show the match as it was at least that long ago by the
server's clock, so a broadcast table cannot be used to ghost. Seats and the arbiter are never
delayed. The entry served is the newest whose recorded `time_ms` is at least the delay old
(entry 1, the creation, when none is)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Callable

from kozyr.engine.answers import Viewer
from kozyr.engine.matches import Engine
from kozyr.match.lifecycle import Step
from kozyr.match.log import Entry
from kozyr.match.record import MatchRecord


def delay_for(record: MatchRecord, viewer: Viewer) -> int:
    """The delay, ms, this viewer is served at (0 for a seat or the arbiter)."""
    if viewer.seat is not None or viewer.arbiter:
        return 0
    return record.terms.spectator_delay_ms


def shown_version(times: list[int], now_ms: int, delay_ms: int) -> int:
    """The newest version (1-based index into `times`, each entry's recorded time) at least
    `delay_ms` old at `now_ms`; 1 when none is."""
    shown = 1
    for version, time_ms in enumerate(times, start=1):
        if time_ms + delay_ms <= now_ms:
            shown = version
    return shown


async def delayed_record(engine: Engine, record: MatchRecord, viewer: Viewer) -> MatchRecord:
    """The record this viewer may see now: `record` itself unless a spectator delay holds it
    back to an older version."""
    delay = delay_for(record, viewer)
    if delay <= 0:
        return record
    stored = await engine.log(record.match_id)
    times = [Entry.from_canonical(s.text).time_ms for s in stored]
    version = shown_version(times, engine.now_ms(), delay)
    if version >= record.version:
        return record
    older = await engine.record_at(record.match_id, version)
    assert older is not None
    return older


def delayed(
    updates: AsyncGenerator[Step, None], delay_ms: int, now_ms: Callable[[], int]
) -> AsyncGenerator[Step, None]:
    """`updates`, each held back until its entry is `delay_ms` old by the server's clock
    (`updates` itself when there is no delay)."""
    return _held_back(updates, delay_ms, now_ms) if delay_ms > 0 else updates


async def _held_back(
    updates: AsyncGenerator[Step, None], delay_ms: int, now_ms: Callable[[], int]
) -> AsyncGenerator[Step, None]:
    async with contextlib.aclosing(updates):
        async for step in updates:
            wait_ms = step.entry.time_ms + delay_ms - now_ms()
            if wait_ms > 0:
                await asyncio.sleep(wait_ms / 1000)
            yield step
