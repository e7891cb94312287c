"""What a tenant's results feed and lobby say about a match, derived from its log (pure).

A match passes through *phases*, one per lifecycle entry: created (1), each open seat joined
(+1 each), ended (+1). A phase is a pure function of the record, so the feed can be written
idempotently by (match, phase): an entry's events go in only if the feed holds exactly the
phase before it, and a repeat (another process, a catch-up) finds the phase after it there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kozyr.games.contract import Outcome
from kozyr.match.lifecycle import Step
from kozyr.match.log import MatchCreated, SeatJoined
from kozyr.match.record import MatchRecord

CREATED, JOINED, STARTED, ENDED = "match.created", "seat.joined", "match.started", "match.ended"
TYPES = (CREATED, JOINED, STARTED, ENDED)


def phase(record: MatchRecord | None) -> int:
    """How many lifecycle entries the record has folded (0 before the match exists)."""
    if record is None:
        return 0
    joined = sum(
        1 for seat, name in enumerate(record.names) if name and not record.created.seats[seat]
    )
    return 1 + joined + (1 if record.finished else 0)


def status(record: MatchRecord) -> str:
    """waiting, playing or finished."""
    if record.finished:
        return "finished"
    return "playing" if record.started else "waiting"


@dataclass(frozen=True, slots=True)
class LifecycleEvent:
    """One event of a tenant's feed (and the body of its webhooks)."""

    type: str
    match_id: str
    version: int
    game: str
    time_ms: int
    seat: int | None = None
    user: str = ""
    name: str = ""
    outcome: Outcome | None = None
    termination: str = ""  # how a match ended: NORMAL, RESIGNED, TIMED_OUT, …
    head: str = ""

    def data(self) -> dict[str, Any]:
        """The event as JSON data: only public facts (no card, no seed)."""
        out: dict[str, Any] = {
            "type": self.type,
            "match_id": self.match_id,
            "version": self.version,
            "game": self.game,
            "time_ms": self.time_ms,
        }
        if self.type == JOINED:
            out.update(seat=self.seat, user=self.user, name=self.name)
        if self.type == ENDED:
            outcome = self.outcome
            out["outcome"] = (
                None
                if outcome is None
                else {
                    "winners": list(outcome.winners),
                    "scores": list(outcome.scores),
                    "reason": outcome.reason,
                }
            )
            out.update(termination=self.termination, head_hash=self.head)
        return out


def events_of(before: MatchRecord | None, step: Step, head: str) -> list[LifecycleEvent]:
    """The feed events of one entry (none for a plain move); `head` is the entry's hash."""
    after, entry = step.record, step.entry

    def event(kind: str, **more: Any) -> LifecycleEvent:
        return LifecycleEvent(
            kind, after.match_id, entry.version, after.game.NAME, entry.time_ms, **more
        )

    out: list[LifecycleEvent] = []
    for item in step.events:
        if isinstance(item, MatchCreated):
            out.append(event(CREATED))
        elif isinstance(item, SeatJoined):
            out.append(event(JOINED, seat=item.seat, user=item.user, name=item.name))
    if after.started and (before is None or not before.started):
        out.append(event(STARTED))
    if after.finished and (before is None or not before.finished):
        ending = after.outcome.termination if after.outcome is not None else ""
        out.append(event(ENDED, outcome=after.outcome, termination=ending, head=head))
    return out


def summary(record: MatchRecord) -> dict[str, Any]:
    """The lobby's entry of a match: public facts and the phase it reflects."""
    return {
        "match_id": record.match_id,
        "game": record.game.NAME,
        "status": status(record),
        "names": list(record.names),
        "users": list(record.users),
        "open_seats": list(record.open_seats),
        "phase": phase(record),
        # When a waiting match gives up on its open seats (0: never): the lobby hides it then,
        # even before the server's timer records the expiry.
        "expires_ms": (
            record.clock.created_ms + record.terms.expire_ms
            if record.terms.expire_ms and not record.started and not record.finished
            else 0
        ),
    }


def filters(entry: dict[str, Any]) -> set[str]:
    """The lobby lists a summary belongs to (one sorted set each)."""
    out = {"all", f"status:{entry['status']}", f"game:{entry['game']}"}
    if entry["open_seats"]:
        out.add("open")
    out.update(f"user:{u}" for u in entry["users"] if u)
    return out
