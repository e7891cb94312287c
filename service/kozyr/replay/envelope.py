"""The verifier's checks around the entries: the header and footer against the log, the seed a
log claims to reveal, and the outcome in words (seat numbers, as the log knows them)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from kozyr.games import Game
from kozyr.games.contract import Outcome
from kozyr.match.log import canonical_json
from kozyr.match.record import MatchRecord
from kozyr.replay.archive import ReplayFile, outcome_json
from kozyr.replay.report import Bad, Problem, first_diff, is_hex, short


def check_envelope(
    replay: ReplayFile, record: MatchRecord, head: str, outcome: Outcome, revealed: str
) -> None:
    """The header and footer must say what the log says; Bad at the first that does not."""
    created = record.created
    header = replay.header
    seats = [
        {"seat": s, "name": name, "contribution": c}
        for s, (name, c) in enumerate(zip(record.names, record.contributions, strict=True))
    ]
    for key, value in (
        ("match_id", created.match_id),
        ("game", created.game),
        ("rules_version", created.rules_version),
        ("options", dict(created.options)),
        ("seats", seats),
        ("commitment", created.commitment),
        ("prearranged", created.prearranged),
        ("first_dealer", created.first_dealer),
    ):
        if canonical_json(header.get(key)) != canonical_json(value):
            raise Bad(
                Problem(
                    "header",
                    f"{key} is not what the log says",
                    expected=short(value),
                    found=short(header.get(key)),
                )
            )
    footer = replay.footer
    if footer is None:
        raise Bad(
            Problem(
                "footer",
                "the file has no footer (was it cut short?)",
                expected="a footer line",
                found="none",
            )
        )
    for key, value in (
        ("entries", len(replay.entries)),
        ("head", head),
        ("finished", True),
        ("outcome", outcome_json(outcome)),
        ("revealed_seed", revealed),
    ):
        if canonical_json(footer.get(key)) != canonical_json(value):
            path, a, b = first_diff(value, footer.get(key), key)
            raise Bad(Problem("footer", f"{path} is not what the log says", expected=a, found=b))


def prescan_revealed(entries: Sequence[Any]) -> str:
    """The server seed the log claims to reveal, from the last entry that reveals one (trusted
    only once it matches the commitment), so a seed that does not fit is blamed on the entry
    that recorded it, and an entry appended after the end on itself."""
    for line in reversed(entries):
        events = line.get("events") if isinstance(line, dict) else None
        for event in events if isinstance(events, list) else ():
            if (
                isinstance(event, dict)
                and event.get("type") == "SeedRevealed"
                and is_hex(event.get("server_seed"))
            ):
                return str(event["server_seed"])
    return ""


def outcome_text(
    game: Game, state: Any, names: Sequence[str] = (), ended: Outcome | None = None
) -> str:
    """The outcome in words: the winners and the scores by seat number and player name, and
    how it ended when not by the rules. `ended` is the match's own outcome (the record's: an
    early ending's - a resignation, a timeout, an abort - or the game's), else the game's."""
    outcome = ended or game.outcome(state)
    if outcome is None:
        return "not finished"

    def who(seat: int) -> str:
        return (
            f"seat {seat} ({names[seat]})" if seat < len(names) and names[seat] else f"seat {seat}"
        )

    winners = ", ".join(who(w) for w in outcome.winners) or "nobody"
    scores = ", ".join(f"{who(s)} {v}" for s, v in enumerate(outcome.scores))
    how = "" if outcome.termination == "NORMAL" else f" (ended: {outcome.termination})"
    return f"{winners} won; scores {scores}; {outcome.reason}{how}"


def command_text(raw: dict[str, Any]) -> str:
    """A recorded command in words: its type and values."""
    values = [json.dumps(v) if not isinstance(v, str) else v for k, v in raw.items() if k != "type"]
    return " ".join([str(raw.get("type")), *values])


def describe(game: Game, event: Any) -> str:
    """The game's line for an event, or its type when the event cannot be described."""
    try:
        return game.describe(event)
    except Exception:  # describe is for people; never let it hide the real problem
        return type(event).__name__


def header_seats(header: dict[str, Any]) -> int:
    """The seat count the header claims (when the log itself could not be read that far)."""
    seats = header.get("seats")
    return len(seats) if isinstance(seats, list) else 0
