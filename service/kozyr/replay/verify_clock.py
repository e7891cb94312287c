"""The verifier's checks of a match's terms, clock and early endings (docs/rules.md R-7 … R-9).

Split from kozyr.replay.verify (which calls these with its walk) so that module stays one job:
the deals and the moves. Pure, like it: no server, no Redis, no gRPC.
"""

from __future__ import annotations

from typing import Any, Protocol

from kozyr.games import Game
from kozyr.match import lifecycle
from kozyr.match.errors import MatchError
from kozyr.match.log import MatchCreated, MatchTerms, registry_for
from kozyr.match.record import MatchRecord, advance
from kozyr.replay.report import Bad, Problem, short


class Walk(Protocol):
    """What these checks need of the verifier's walk."""

    game: Game | None
    created: MatchCreated | None
    record: MatchRecord | None

    def _exact(self, i: int, decoded: Any, raw: dict[str, Any]) -> None: ...


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
    walk._exact(i, decoded, events[1])
    if decoded == MatchTerms():
        raise Bad(Problem(where, "MatchTerms with the defaults is never recorded",
                          found=short(events[1]), entry=i))
    try:
        lifecycle.check_terms(walk.created, decoded)
    except MatchError as e:
        raise Bad(Problem(where, f"the server would refuse these terms: {e.code}: {e.message}",
                          found=short(events[1]), entry=i)) from None
    walk.record = advance(walk.record, [decoded], 0, walk.record.head)
    return 2
