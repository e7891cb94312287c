"""The deadline an append makes due, recorded before the append (docs/architecture.md)."""

from __future__ import annotations

from kozyr.match import clock
from kozyr.match.lifecycle import Step
from kozyr.match.record import MatchRecord
from kozyr.store.port import Store


async def before_append(store: Store, before: MatchRecord | None, step: Step) -> int | None:
    """Where the entry makes a decision due that was not due before, record its deadline
    before appending: a process that dies right after the append leaves the deadline behind,
    so no match is forgotten (one whose append failed is dropped when due). The deadlines of
    later decisions are set after their appends (actors/timers.py): the one they replace stays
    until then, and is re-derived from the log when it comes due. Returns the alarm it stored
    (None for none)."""
    if before is not None and clock.deadline(before) is not None:
        return None
    due = clock.deadline(step.record)
    if due is None:
        return None
    at = clock.alarm_ms(due)
    await store.set_deadline(step.record.match_id, at, step.record.version)
    return at
