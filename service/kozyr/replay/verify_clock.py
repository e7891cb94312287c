"""The verifier's checks of a match's terms, clock and early endings (docs/rules.md R-7 … R-9).

Called by kozyr.replay.verify with its walk, beside the chain (verify_chain), the creation and
joins (verify_creation) and the moves (verify_moves). Pure, like it: no server, no Redis, no gRPC.
"""

from __future__ import annotations

import json
from typing import Any

from kozyr.games.contract import Outcome
from kozyr.match import clock, endings, lifecycle
from kozyr.match.errors import Kind, MatchError
from kozyr.match.lifecycle import Step
from kozyr.match.log import Entry, MatchTerms, registry_for
from kozyr.match.record import MatchRecord, advance, apply_entry
from kozyr.replay.report import Bad, Problem, first_diff, is_hex, short
from kozyr.replay.verify_moves import reveal
from kozyr.replay.verify_rules import exact
from kozyr.replay.walk import Walk


def terms(walk: Walk, i: int, events: list[dict[str, Any]]) -> int:
    """Entry 1's MatchTerms, if any, checked and folded into the walk's record; the index of
    the first event after MatchCreated and it (where the game's opening starts)."""
    if len(events) < 2 or events[1].get("type") != "MatchTerms":
        return 1
    assert walk.game is not None and walk.created is not None and walk.record is not None
    where = f"entry {i}"
    try:
        decoded = registry_for(walk.game).decode(events[1])
    except (ValueError, TypeError, KeyError) as e:
        raise Bad(Problem(where, f"MatchTerms cannot be read: {e}", entry=i)) from None
    assert isinstance(decoded, MatchTerms)
    exact(walk, i, decoded, events[1])
    if decoded == MatchTerms():
        raise Bad(
            Problem(
                where,
                "MatchTerms with the defaults is never recorded",
                found=short(events[1]),
                entry=i,
            )
        )
    try:
        lifecycle.check_terms(walk.created, decoded)
    except MatchError as e:
        raise Bad(
            Problem(
                where,
                f"the server would refuse these terms: {e.code}: {e.message}",
                found=short(events[1]),
                entry=i,
            )
        ) from None
    walk.record = advance(walk.record, [decoded], 0, walk.record.head)
    return 2


ENDINGS = ("Resigned", "Aborted", "TimedOut", "Abandoned", "Expired")


def track(walk: Walk, i: int, line: dict[str, Any]) -> None:
    """Fold the checked entry into the walk's full record (clock included)."""
    seed = bytes.fromhex(walk.revealed_in_log) if walk.revealed_in_log else None
    walk.shadow = apply_entry(
        walk.shadow, Entry.from_canonical(walk.text), line["hash"], server_seed=seed
    )


def in_time(walk: Walk, i: int, line: dict[str, Any]) -> None:
    """R-8: a move, or a join, accepted after its deadline fails at its entry; entry times
    never go back."""
    record = walk.shadow
    assert record is not None
    if line["time_ms"] < record.clock.since_ms:
        raise Bad(
            Problem(
                f"entry {i}",
                "the entry's time is before the entry before it",
                expected=f">= {record.clock.since_ms}",
                found=str(line["time_ms"]),
                entry=i,
            )
        )
    due = clock.deadline(record)
    late = (
        due is not None
        and line["time_ms"] > due.at_ms
        and (due.kind == "EXPIRY" or (due.seat == line["seat"] and due.kind != "BOT"))
    )
    if late and due is not None:
        raise Bad(
            Problem(
                f"entry {i}",
                f"accepted after its deadline: the decision was due at "
                f"{due.at_ms} ({due.kind.lower()}), "
                f"{line['time_ms'] - due.at_ms} ms before this entry",
                expected=f"time_ms <= {due.at_ms}",
                found=str(line["time_ms"]),
                entry=i,
            )
        )


def ending(walk: Walk, i: int, line: dict[str, Any]) -> bool:
    """An early ending or a timeout (R-7 … R-9): rebuilt from the record and the entry's time by
    the very functions the server uses, it must be this entry byte for byte. False for any
    other entry."""
    events = line["events"]
    if not events or events[0].get("type") not in ENDINGS:
        return False
    record, game = walk.shadow, walk.game
    assert record is not None and game is not None
    where, kind = f"entry {i}", events[0]["type"]
    last = events[-1]
    seed = (
        bytes.fromhex(last["server_seed"])
        if last.get("type") == "SeedRevealed" and is_hex(last.get("server_seed"))
        else None
    )
    try:
        step = _rebuild(record, line, kind, seed)
    except MatchError as e:
        raise Bad(
            Problem(
                where,
                f"{kind}: the rules refuse it here: {e.code}: {e.message}",
                found=short(events[0]),
                entry=i,
            )
        ) from None
    if step.text != walk.text:
        path, a, b = first_diff(json.loads(step.text), json.loads(walk.text))
        raise Bad(
            Problem(
                where,
                f"{kind}: the entry is not what the rules give at its time ({path})",
                expected=a,
                found=b,
                entry=i,
            )
        )
    if seed is not None:
        reveal(walk, i, last, line["prev"])
    walk.record = step.record
    return True


def _rebuild(record: MatchRecord, line: dict[str, Any], kind: str, seed: bytes | None) -> Step:
    seat, time_ms, command_id = line["seat"], line["time_ms"], line["command_id"]
    if seed is None and kind != "TimedOut":
        raise MatchError(Kind.RULES, "NO_REVEAL", "an early ending must reveal the seed")
    if kind == "Resigned":
        return endings.resign(record, seat, command_id, server_seed=seed or b"", time_ms=time_ms)
    if kind == "Aborted":
        return endings.abort(record, seat, command_id, server_seed=seed or b"", time_ms=time_ms)
    if kind == "Abandoned":  # who watched is the server's word: not in the log
        return endings.claim(
            record, seat, command_id, watched=False, server_seed=seed or b"", time_ms=time_ms
        )
    if kind == "Expired":
        return endings.expire(record, server_seed=seed or b"", time_ms=time_ms)
    due = clock.deadline(record)
    if due is None:
        raise MatchError(Kind.RULES, "NOT_DUE", "no decision is due in this match")
    raw = line["command"]
    command = None if raw is None else registry_for(record.game).decode(raw)
    return endings.time_out(record, due, command, server_seed=seed, time_ms=time_ms)


def outcome(walk: Walk) -> Outcome | None:
    """The match's outcome from the full record (an early ending's, or the game's with its
    termination)."""
    return None if walk.shadow is None else walk.shadow.outcome
