"""Time controls, deadlines and early endings of a match, as pure data (docs/rules.md R-7 … R-9).

Nothing here reads a clock: every time is an entry's recorded `time_ms`, so the deadline of
every decision can be derived again from the log alone (by the engine, its timer loop and the
offline verifier alike).
"""

from __future__ import annotations

from typing import Any

from kozyr.match.log import Abandoned, Aborted, Expired, MatchTerms, Resigned, TimedOut


def describe(event: Any) -> str | None:
    """One line for a lifecycle event of this module's concern; None for any other event."""
    if isinstance(event, MatchTerms):
        bots = [f"seat {i}: {b}" for i, b in enumerate(event.bots) if b]
        clock = "no clock" if event.clock == "NONE" else f"clock {event.clock.lower()}"
        return "terms: " + ", ".join([clock, *(f"bot {b}" for b in bots)])
    if isinstance(event, Resigned):
        return f"seat {event.seat} resigns"
    if isinstance(event, Aborted):
        return f"seat {event.seat} aborts the match"
    if isinstance(event, TimedOut):
        return f"seat {event.seat} ran out of time ({event.policy.lower().replace('_', ' ')})"
    if isinstance(event, Abandoned):
        return f"seat {event.seat} left the table; seat {event.claimant} claims the win"
    if isinstance(event, Expired):
        return "the match expired with seats still open"
    return None
