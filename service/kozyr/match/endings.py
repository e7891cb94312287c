"""The entries that end a match early or decide for an absent seat (docs/rules.md R-7 … R-9).

Pure, like kozyr.match.lifecycle, whose sealing they use: resign, abort, claim (abandonment),
expire and time_out each check the record and the entry's time against the rules and return
the sealed `Step`, or raise MatchError and change nothing. An entry that ends the match reveals
the server seed with the head hash, as every final entry does.
"""

from __future__ import annotations

from typing import Any

from kozyr.games.codec import encode
from kozyr.match import clock, lifecycle
from kozyr.match.clock import Due
from kozyr.match.errors import Kind, MatchError
from kozyr.match.lifecycle import Step
from kozyr.match.log import (
    SYSTEM_SEAT,
    Abandoned,
    Aborted,
    ContributionsClosed,
    Expired,
    Resigned,
    SeedRevealed,
    TimedOut,
)
from kozyr.match.record import MatchRecord, advance


def _final(
    record: MatchRecord,
    seat: int,
    command_id: str,
    command: Any,
    events: list[Any],
    server_seed: bytes,
    time_ms: int,
) -> Step:
    events.append(SeedRevealed(server_seed.hex(), record.head))
    return lifecycle.seal(record, seat, command_id, command, events, time_ms)


def resign(
    record: MatchRecord, seat: int, command_id: str, *, server_seed: bytes, time_ms: int
) -> Step:
    """R-7: `seat` resigns a running match (the game's forfeit)."""
    if record.finished:
        raise MatchError(Kind.RULES, "MATCH_OVER", "the match is over", record.match_id, seat)
    if not record.started:
        raise MatchError(
            Kind.RULES,
            "NOT_STARTED",
            "the match has not started: abort it instead",
            record.match_id,
            seat,
            rule="R-7",
        )
    return _final(record, seat, command_id, None, [Resigned(seat)], server_seed, time_ms)


def abort(
    record: MatchRecord, seat: int, command_id: str, *, server_seed: bytes, time_ms: int
) -> Step:
    """R-7: `seat` aborts the match before every seat made its first decision."""
    clock.may_abort(record, seat)
    return _final(record, seat, command_id, None, [Aborted(seat)], server_seed, time_ms)


def claim(
    record: MatchRecord,
    claimant: int,
    command_id: str,
    *,
    watched: bool,
    server_seed: bytes,
    time_ms: int,
) -> Step:
    """R-7: `claimant` claims the win from the abandoned seat to act."""
    seat = clock.may_claim(record, claimant, time_ms, watched)
    return _final(
        record, claimant, command_id, None, [Abandoned(seat, claimant)], server_seed, time_ms
    )


def expire(record: MatchRecord, *, server_seed: bytes, time_ms: int) -> Step:
    """R-7: the open match's expiry came with seats still open."""
    due = clock.deadline(record)
    if due is None or due.kind != "EXPIRY" or time_ms < due.at_ms:
        raise MatchError(
            Kind.RULES, "NOT_DUE", "the match is not due to expire", record.match_id, rule="R-7"
        )
    return _final(
        record,
        SYSTEM_SEAT,
        f"expire-{record.version}",
        None,
        [Expired(record.open_seats)],
        server_seed,
        time_ms,
    )


def close_contributions(record: MatchRecord, *, server_seed: bytes, time_ms: int) -> Step:
    """docs/fairness.md §1: the contribution window ended; the silent seats' contributions are
    empty, said so in the log, and the match starts if no seat is open."""
    due = clock.deadline(record)
    if due is None or due.kind != "CONTRIBUTIONS" or time_ms < due.at_ms:
        raise MatchError(
            Kind.RULES, "NOT_DUE", "the contribution window is still open", record.match_id
        )
    events: list[Any] = [ContributionsClosed(record.awaiting)]
    if not record.open_seats:
        closed = advance(record, events, record.version, record.head)
        events += lifecycle.opening(closed, lifecycle.seed_of(closed, server_seed))
    return lifecycle.seal(
        record, SYSTEM_SEAT, f"contributions-{record.version}", None, events, time_ms
    )


def timeout_command(record: MatchRecord, due: Due) -> tuple[str, Any | None]:
    """The policy a due decision falls to and the command it makes for the seat (None for a
    forfeit; for BOT the caller's bot chooses, so None here too)."""
    assert due.seat is not None
    policy = "BOT" if due.kind == "BOT_POLICY" else record.terms.policy
    if policy == "AUTO_MOVE":
        return policy, record.game.default_decision(record.state, due.seat)
    return policy, None


def time_out(
    record: MatchRecord,
    due: Due,
    bot_command: Any | None,
    *,
    server_seed: bytes | None,
    time_ms: int,
) -> Step:
    """R-8, R-9: the seat's decision was due at `due.at_ms`; apply the policy (`bot_command`
    is the BOT policy's bot's choice)."""
    if due != clock.deadline(record) or due.kind not in ("TIMEOUT", "BOT_POLICY"):
        raise MatchError(
            Kind.CONFLICT, "NOT_DUE", "that decision is no longer due", record.match_id, rule="R-8"
        )
    if time_ms < due.at_ms:
        raise MatchError(
            Kind.RULES,
            "NOT_DUE",
            f"the decision is due in {due.at_ms - time_ms} ms",
            record.match_id,
            rule="R-8",
        )
    assert due.seat is not None
    policy, command = timeout_command(record, due)
    if policy == "BOT":
        if bot_command is None:
            raise MatchError(
                Kind.BAD_REQUEST,
                "NO_BOT_COMMAND",
                "the BOT policy's bot must choose the decision",
                record.match_id,
                rule="R-9",
            )
        command = bot_command
    timed = TimedOut(due.seat, due.at_ms, policy)
    command_id = f"timeout-{record.version}"
    if command is None:
        if server_seed is None:
            raise AssertionError("a forfeit needs the server seed")
        return _final(record, SYSTEM_SEAT, command_id, None, [timed], server_seed, time_ms)
    decision = lifecycle.decide(record, due.seat, command)
    events: list[Any] = [timed, *decision.events]
    if decision.finishes:
        if server_seed is None:
            raise AssertionError("the finishing decision needs the server seed")
        return _final(
            record, SYSTEM_SEAT, command_id, encode(command), events, server_seed, time_ms
        )
    return lifecycle.seal(record, SYSTEM_SEAT, command_id, encode(command), events, time_ms)


def finishes(record: MatchRecord, due: Due, bot_command: Any | None) -> bool:
    """True when the timeout of `due` ends the match (so the server seed is needed)."""
    policy, command = timeout_command(record, due)
    if policy == "BOT":
        command = bot_command
    return command is None or lifecycle.decide(record, due.seat or 0, command).finishes
