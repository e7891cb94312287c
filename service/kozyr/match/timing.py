"""The clock of a match as its entries' times leave it, and how one entry moves it (R-7 … R-9).

Part of the record's fold (kozyr.match.record): nothing here reads a clock or a record, only
the entry's recorded `time_ms`, the terms and the clock before it. What follows from a clock
(when a decision is due, whether a move is late, an abort or a claim allowed) is
kozyr.match.clock's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kozyr.core.fast import quick_init
from kozyr.match.log import MatchTerms, TimedOut


@quick_init
@dataclass(frozen=True, slots=True)
class Clock:
    """The clock of a match as its entries' times leave it.

    `since_ms` is when the current decision began (the time of the latest entry); `banks` each
    seat's FISCHER bank as of then; `botted` the seats the BOT policy plays until their players
    act again; `decided` the seats that made a decision of their own (the abort window, R-7).
    """

    created_ms: int = 0
    since_ms: int = 0
    banks: tuple[int, ...] = ()
    botted: tuple[int, ...] = ()
    decided: tuple[int, ...] = ()


NO_CLOCK = Clock()


def after_entry(
    old: Clock,
    terms: MatchTerms,
    players: int,
    first: bool,
    events: Sequence[Any],
    time_ms: int,
    seat: int,
    own: bool,
) -> Clock:
    """The clock after one entry at `time_ms` (`old`: the clock before it; `first`: the match's
    first entry after its creation; `own`: the entry is `seat`'s own decision, a game
    command)."""
    if first:
        start = (terms.bank_ms,) * players if terms.clock == "FISCHER" else ()
        return Clock(time_ms, time_ms, start, (), ())
    if own and not old.banks and seat in old.decided and seat not in old.botted:
        # A seat's move in a match without banks, the seat past its first decision and not
        # botted: only the time moves (most entries of a match).
        return Clock(old.created_ms, time_ms, (), old.botted, old.decided)
    banks, botted, decided = list(old.banks), set(old.botted), set(old.decided)
    timed_out = next((e for e in events if isinstance(e, TimedOut)), None)
    if own:
        decided.add(seat)
        botted.discard(seat)
        if banks:
            banks[seat] = max(0, banks[seat] - (time_ms - old.since_ms)) + terms.increment_ms
    elif timed_out is not None:
        if banks:
            banks[timed_out.seat] = terms.increment_ms
        if timed_out.policy == "BOT":
            botted.add(timed_out.seat)
    return Clock(
        old.created_ms, time_ms, tuple(banks), tuple(sorted(botted)), tuple(sorted(decided))
    )
