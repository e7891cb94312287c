"""The refusals the engine itself makes (the rules' refusals are the pure lifecycle's)."""

from __future__ import annotations

from kozyr.match.errors import Kind, MatchError
from kozyr.match.record import MatchRecord


def check_expected(record: MatchRecord, expected: int | None, seat: int) -> None:
    """Refuse a command whose `expected` version is not the record's (None: any)."""
    if expected is None or expected == record.version:
        return
    if expected < 1:  # a version the match can never be at: the request is wrong, not stale
        raise MatchError(
            Kind.BAD_REQUEST,
            "BAD_EXPECTED_VERSION",
            "expected_version counts the match's entries: 1 or more",
            record.match_id,
            seat,
        )
    raise MatchError(
        Kind.CONFLICT,
        "STALE_VERSION",
        f"the match is at version {record.version}, not {expected}",
        record.match_id,
        seat,
    )


def behind(match_id: str, current: int, why: str) -> MatchError:
    """The log lost entries this process or the store saw acknowledged: no writes until repaired."""
    return MatchError(
        Kind.UNAVAILABLE,
        "STREAM_BEHIND",
        f"the match's log is at version {current} but {why}: acknowledged moves are missing, "
        f"so it takes no writes until an operator runs `kozyr repair {match_id}` "
        "(docs/operations.md)",
        match_id,
    )


def rolled_back(match_id: str, why: str) -> MatchError:
    """The store holds the match behind what the transparency log says of it: a Redis restored
    from an older copy. Neither read nor written, so no version is acknowledged twice."""
    return MatchError(
        Kind.PRECONDITION,
        "MATCH_ROLLED_BACK",
        f"{why}: the event store was rolled back behind the transparency log, so this server "
        "refuses the match (docs/operations.md)",
        match_id,
    )


def not_found(match_id: str) -> MatchError:
    """No such match."""
    return MatchError(
        Kind.NOT_FOUND, "MATCH_NOT_FOUND", f"there is no match {match_id!r}", match_id
    )
