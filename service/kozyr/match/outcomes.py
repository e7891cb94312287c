"""The outcome a match's entries give: an early ending's (R-7) or the game's own, with its
termination (GUARD when R-5's guard ended it). Part of the record's fold (kozyr.match.record)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kozyr.games.contract import Outcome
from kozyr.match.log import (
    ENDING_EVENTS,
    Abandoned,
    Aborted,
    Expired,
    Resigned,
    TimedOut,
)

GUARD = "GUARD"

_ENDINGS = frozenset(ENDING_EVENTS)


def ending_of(game: Any, players: int, state: Any, events: Sequence[Any]) -> Outcome | None:
    """The outcome an early-ending event in `events` gives (None when there is none); `state`
    is the game's after them."""
    for event in events:
        if type(event) in _ENDINGS:
            break
    else:
        return None  # only a game's events (the endings have no subclasses to miss)
    for event in events:
        if isinstance(event, Resigned):
            return _forfeit(game, state, event.seat, "RESIGNED")
        if isinstance(event, TimedOut) and event.policy == "FORFEIT":
            return _forfeit(game, state, event.seat, "TIMED_OUT")
        if isinstance(event, Abandoned):
            return _forfeit(game, state, event.seat, "ABANDONED")
        if isinstance(event, Aborted):
            return Outcome(
                (),
                (0,) * players,
                f"seat {event.seat} aborted the match: no result (R-7)",
                termination="ABORTED",
                seats=(event.seat,),
            )
        if isinstance(event, Expired):
            return Outcome(
                (),
                (0,) * players,
                "the open seats were never filled: no result (R-7)",
                termination="EXPIRED",
                seats=event.seats,
            )
    return None


def _forfeit(game: Any, state: Any, seat: int, termination: str) -> Outcome:
    outcome: Outcome = game.forfeit(state, seat)
    return Outcome(
        outcome.winners, outcome.scores, outcome.reason, outcome.details, termination, (seat,)
    )


def normal_outcome(game: Any, state: Any, outcome: Outcome) -> Outcome:
    """The game's own outcome with its termination: GUARD when R-5's guard ended it."""
    if game.guarded(state):
        return Outcome(outcome.winners, outcome.scores, outcome.reason, outcome.details, GUARD)
    return outcome
