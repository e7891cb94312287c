"""Time controls and deadlines of a match, as pure data (docs/rules.md R-7 … R-9).

Nothing here reads a clock: every time is an entry's recorded `time_ms`, so the deadline of
every decision can be derived again from the log alone - by the engine before it accepts a
move, by its timer loop before it appends a timeout, and by the offline verifier.

The record carries a `Clock` (folded from the entries' times by kozyr.match.timing) and, once a
match ends early, its `Outcome` with the termination (kozyr.match.outcomes). `deadline` is the
one function that says when the match's current decision is due and what happens then; the
checks below it (a late move, an abort, a claim) read the record it is given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kozyr.core.fast import quick_init
from kozyr.match.errors import Kind, MatchError
from kozyr.match.log import (
    Abandoned,
    Aborted,
    Expired,
    MatchTerms,
    Resigned,
    TimedOut,
)
from kozyr.match.timing import Clock

__all__ = [
    "CLOCKS",
    "DAY_MS",
    "MAX_BOT_WINDOW_MS",
    "MAX_LIMIT_MS",
    "POLICIES",
    "Clock",
    "Due",
    "alarm_ms",
    "bot_window_ms",
    "check_in_time",
    "deadline",
    "describe",
    "make_terms",
    "may_abort",
    "may_claim",
    "remaining",
]

if TYPE_CHECKING:
    from kozyr.match.record import MatchRecord

CLOCKS = ("NONE", "DECISION", "FISCHER", "CORRESPONDENCE")
POLICIES = ("FORFEIT", "AUTO_MOVE", "BOT")
DAY_MS = 86_400_000
MAX_LIMIT_MS = 366 * DAY_MS
MAX_BOT_WINDOW_MS = 2_000


@quick_init
@dataclass(frozen=True, slots=True)
class Due:
    """When the match's current decision is due and what is due then.

    `kind`: TIMEOUT (the seat's time runs out: the policy applies), BOT (a bot named at creation
    plays now), BOT_POLICY (the BOT policy's bot plays at the end of the return window) or
    EXPIRY (the open match expires), CONTRIBUTIONS (the window for the named seats'
    contributions ends, docs/fairness.md §1).
    """

    at_ms: int
    kind: str
    seat: int | None = None


# ---------------------------------------------------------------------------- terms


def make_terms(
    *,
    bots: Sequence[str] = (),
    clock: str = "NONE",
    limit_ms: int = 0,
    bank_ms: int = 0,
    increment_ms: int = 0,
    days: int = 0,
    policy: str = "FORFEIT",
    policy_bot: str = "",
    grace_ms: int = 0,
    expire_ms: int = 0,
    spectator_delay_ms: int = 0,
    contribute_ms: int = 0,
) -> MatchTerms:
    """Checked terms (BAD_REQUEST with a precise code, rule R-8/R-9); CORRESPONDENCE takes
    `days`, the others milliseconds."""
    if clock not in CLOCKS:
        raise _bad(
            "BAD_TIME_CONTROL", f"the time control is one of {', '.join(CLOCKS)}", rule="R-8"
        )
    if policy not in POLICIES:
        raise _bad("BAD_TIMEOUT_POLICY", f"the policy is one of {', '.join(POLICIES)}", rule="R-9")
    _check_spans(grace_ms=grace_ms, expire_ms=expire_ms, spectator_delay_ms=spectator_delay_ms)
    limit_ms, bank_ms, increment_ms = _clock_spans(clock, limit_ms, bank_ms, increment_ms, days)
    if (policy == "BOT") != bool(policy_bot):
        raise _bad("BAD_TIMEOUT_POLICY", "the BOT policy, and only it, names its bot", rule="R-9")
    return MatchTerms(
        bots=tuple(bots) if any(bots) else (),
        clock=clock,
        limit_ms=limit_ms,
        bank_ms=bank_ms,
        increment_ms=increment_ms,
        policy=policy,
        policy_bot=policy_bot,
        grace_ms=grace_ms,
        expire_ms=expire_ms,
        spectator_delay_ms=spectator_delay_ms,
        contribute_ms=contribute_ms,
    )


def _clock_spans(
    clock: str, limit_ms: int, bank_ms: int, increment_ms: int, days: int
) -> tuple[int, int, int]:
    """R-8: the time control's limit, bank and increment, checked, and those its kind does not
    use set to 0 (CORRESPONDENCE takes `days`)."""
    if clock == "CORRESPONDENCE":
        if not 1 <= days <= 366:
            raise _bad(
                "BAD_TIME_CONTROL", "correspondence takes 1 to 366 days per decision", rule="R-8"
            )
        limit_ms = days * DAY_MS
    _check_spans(limit_ms=limit_ms, bank_ms=bank_ms, increment_ms=increment_ms)
    if clock == "DECISION" and limit_ms <= 0:
        raise _bad("BAD_TIME_CONTROL", "a limit per decision must be above 0", rule="R-8")
    if clock == "FISCHER" and bank_ms <= 0:
        raise _bad("BAD_TIME_CONTROL", "a Fischer bank must be above 0", rule="R-8")
    if clock == "NONE":
        return 0, 0, 0
    if clock != "FISCHER":
        return limit_ms, 0, 0
    return 0, bank_ms, increment_ms


def _check_spans(**spans: int) -> None:
    """Every span of the terms is 0 to MAX_LIMIT_MS."""
    for name, value in spans.items():
        if not 0 <= value <= MAX_LIMIT_MS:
            raise _bad("BAD_TIME_CONTROL", f"{name} must be 0 to {MAX_LIMIT_MS}", rule="R-8")


def _bad(code: str, message: str, rule: str) -> MatchError:
    return MatchError(Kind.BAD_REQUEST, code, message, rule=rule)


def bot_window_ms(terms: MatchTerms) -> int:
    """R-9: how long a seat the BOT policy plays may take its decision back (a tenth of the
    limit or bank, at most 2 s)."""
    limit = terms.limit_ms or terms.bank_ms
    return min(MAX_BOT_WINDOW_MS, limit // 10)


# ---------------------------------------------------------------------------- deadlines


def deadline(record: MatchRecord) -> Due | None:
    """When the current decision is due (or the open match expires); None without a clock."""
    terms, clock = record.terms, record.clock
    if record.finished:
        return None
    if not record.started:
        if record.awaiting:  # docs/fairness.md §1: the window for named seats' contributions
            return Due(clock.created_ms + terms.contribute_ms, "CONTRIBUTIONS")
        if terms.expire_ms and record.open_seats:
            return Due(clock.created_ms + terms.expire_ms, "EXPIRY")
        return None
    if terms.clock == "NONE" and not clock.botted and not any(terms.bots):
        return None  # nothing below can be due (asked several times a move: skip to_act)
    seat = record.game.to_act(record.state)
    if seat is None:
        return None
    if terms.bots and terms.bots[seat]:
        return Due(clock.since_ms, "BOT", seat)
    if seat in clock.botted:
        return Due(clock.since_ms + bot_window_ms(terms), "BOT_POLICY", seat)
    if terms.clock in ("DECISION", "CORRESPONDENCE"):
        return Due(clock.since_ms + terms.limit_ms, "TIMEOUT", seat)
    if terms.clock == "FISCHER":
        return Due(clock.since_ms + clock.banks[seat], "TIMEOUT", seat)
    return None


BOT_SLACK_MS = 1_000


def alarm_ms(due: Due) -> int:
    """When the timer loops should act on `due`: a named bot's decision is played at once by
    the process that appended the entry before it; the loops cover it only if that process has
    not played it within BOT_SLACK_MS (it died), so they do not race it on every move."""
    return due.at_ms + (BOT_SLACK_MS if due.kind == "BOT" else 0)


def remaining(record: MatchRecord, now_ms: int) -> tuple[int, ...]:
    """Each seat's time left at `now_ms` (its bank, or the limit of a decision); () without a
    clock. The seat to act has the time elapsed since its decision began taken off."""
    terms, clock = record.terms, record.clock
    if terms.clock == "NONE" or not record.started:
        return ()
    left = list(clock.banks) if clock.banks else [terms.limit_ms] * len(record.names)
    seat = None if record.finished else record.game.to_act(record.state)
    if seat is not None:
        left[seat] = max(0, left[seat] - max(0, now_ms - clock.since_ms))
    return tuple(left)


def check_in_time(record: MatchRecord, seat: int, time_ms: int) -> None:
    """Refuse `seat`'s move at `time_ms` when its decision was due before (R-8): the timeout
    is the match's, whoever writes it."""
    bots = record.terms.bots
    if bots and bots[seat]:
        return  # a bot named at creation is never late: its decisions are due at once
    due = deadline(record)
    if due is None or due.seat != seat or due.kind == "BOT":
        return
    if time_ms > due.at_ms:
        raise MatchError(
            Kind.RULES,
            "OUT_OF_TIME",
            f"seat {seat}'s time ran out {time_ms - due.at_ms} ms ago",
            record.match_id,
            seat,
            rule="R-8",
        )


def may_abort(record: MatchRecord, seat: int) -> None:
    """R-7: refuse an abort once every seat has made its first decision."""
    if record.finished:
        raise _over(record, seat)
    if record.started and len(record.clock.decided) == len(record.names):
        raise MatchError(
            Kind.RULES,
            "TOO_LATE_TO_ABORT",
            "every seat has made its first decision; resign instead",
            record.match_id,
            seat,
            rule="R-7",
        )


def may_claim(record: MatchRecord, claimant: int, time_ms: int, watched: bool) -> int:
    """R-7: the seat `claimant` may claim the win of (the abandoned one), or MatchError."""
    terms = record.terms
    if record.finished:
        raise _over(record, claimant)
    seat = record.game.to_act(record.state) if record.started else None
    if seat is None or seat == claimant:
        raise MatchError(
            Kind.RULES,
            "NOTHING_TO_CLAIM",
            "the match waits for no other seat",
            record.match_id,
            claimant,
            rule="R-7",
        )
    if terms.policy != "FORFEIT":
        raise MatchError(
            Kind.RULES,
            "POLICY_PLAYS_ON",
            f"under {terms.policy} the server plays for an absent seat",
            record.match_id,
            claimant,
            rule="R-7",
        )
    waited = time_ms - record.clock.since_ms
    if watched or not terms.grace_ms or waited < terms.grace_ms:
        raise MatchError(
            Kind.RULES,
            "NOT_ABANDONED",
            f"seat {seat} is not abandoned: it is watched, or waited "
            f"{waited} ms of the grace of {terms.grace_ms} ms",
            record.match_id,
            claimant,
            rule="R-7",
        )
    return seat


def _over(record: MatchRecord, seat: int) -> MatchError:
    return MatchError(Kind.RULES, "MATCH_OVER", "the match is over", record.match_id, seat)


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
