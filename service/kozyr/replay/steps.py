"""The table at any step of a replay, as a person at the table (or the arbiter) would see it.

Step N is the match right after its entry N (version N). A seat's view (`--as SEAT`) shows
that seat's hand and the public table, and describes each entry's events as that seat saw them
(the rules' `redact`); the spectator view shows only the public table; the full view (the
arbiter's) adds every hand and every hidden pile (stock, cards set aside) from the rules'
`zones`. Pure: it folds the recorded events, it does not verify them (`kozyr replay verify`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from kozyr.games import Game
from kozyr.match.log import MatchCreated, SeatJoined, SeedRevealed, decode_events
from kozyr.match.record import MatchRecord, apply_entry
from kozyr.replay.archive import ReplayFile, entry_of

FULL = "full"
SPECTATOR = "spectator"
WIDTH = 78

# Who is looking: a seat number, SPECTATOR or FULL (everything, the arbiter's view).
Viewer = int | str


@dataclass(frozen=True, slots=True)
class Frame:
    """One step: the entry, its decoded events and the match right after it."""

    version: int
    seat: int
    command: dict[str, Any] | None
    events: tuple[Any, ...]
    record: MatchRecord


def frames(replay: ReplayFile) -> list[Frame]:
    """Every step of the replay (fold of the recorded events; ValueError if they do not fold)."""
    out: list[Frame] = []
    record: MatchRecord | None = None
    for line in replay.entries:
        try:
            entry = entry_of(line)
            record = apply_entry(record, entry, str(line.get("hash", "")))
            events = tuple(decode_events(record.game, entry))
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise ValueError(f"entry {line.get('version', '?')} cannot be shown: {e}") from None
        command = entry.command if isinstance(entry.command, dict) else None
        out.append(Frame(entry.version, entry.seat, command, events, record))
    return out


def parse_viewer(text: str) -> Viewer:
    """`--as` value: a seat number, ``spectator`` or ``full``."""
    lowered = text.strip().lower()
    if lowered in (FULL, SPECTATOR):
        return lowered
    try:
        return int(lowered)
    except ValueError:
        raise ValueError(f"--as takes a seat number, 'spectator' or 'full', not {text!r}") from None


def parse_steps(text: str, total: int) -> list[int]:
    """`--step` value: ``N``, ``A-B``, ``A-`` (to the end), ``all``, or a comma list of those;
    negative N counts from the end (-1 is the last step)."""
    steps: list[int] = []

    def one(part: str) -> int:
        n = int(part)
        n = total + 1 + n if n < 0 else n
        if not 1 <= n <= total:
            raise ValueError(f"step {part} is outside 1..{total}")
        return n

    for part in text.replace(" ", "").split(","):
        if part == "all":
            steps += range(1, total + 1)
        elif "-" in part[1:]:
            cut = part.index("-", 1)
            low, high = part[:cut], part[cut + 1 :]
            steps += range(one(low), (one(high) if high else total) + 1)
        elif part:
            try:
                steps.append(one(part))
            except ValueError as e:
                if "outside" in str(e):
                    raise
                raise ValueError(
                    f"--step takes N, A-B, A-, all or a comma list, not {part!r}"
                ) from None
    return steps


def _seat_label(record: MatchRecord, seat: int) -> str:
    name = record.names[seat] if 0 <= seat < len(record.names) else ""
    return f"{name} (seat {seat})" if name else f"seat {seat}"


def _cards_line(label: str, cards: Sequence[Any]) -> list[str]:
    text = f"{label}: {' '.join(c.code for c in cards) or '-'}"
    return textwrap.wrap(text, WIDTH, subsequent_indent="    ") or [text]


def table_text(record: MatchRecord, viewer: Viewer) -> str:
    """The table right after `record`'s version for a viewer, as plain text (≤ 78 columns)."""
    game = record.game
    if not record.started:
        seats = ", ".join(
            _seat_label(record, i) if name else f"seat {i} open"
            for i, name in enumerate(record.names)
        )
        return f"{game.TITLE}: waiting for players ({seats})"
    state = record.state
    seat = viewer if isinstance(viewer, int) else None
    lines = game.render(game.view(state, seat)).splitlines()
    if viewer == FULL:
        lines += [
            line
            for i in range(record.players)
            for line in _cards_line(f"{_seat_label(record, i)} holds", game.view(state, i).hand)
        ]
        zones = game.zones(state)
        for name in game.hidden_zones(state, None):
            if not name.startswith("hand") and name in zones:
                lines += _cards_line(name, zones[name])
    if record.created.prearranged:
        lines.append("(prearranged deal: not a fair random deal)")
    return "\n".join(lines)


def _shown(game: Game, event: Any, viewer: Viewer) -> Any | None:
    if viewer == FULL:
        return event
    if isinstance(event, MatchCreated):
        return replace(event, decks=()) if event.decks else event
    if isinstance(event, (SeatJoined, SeedRevealed)):
        return event
    return game.redact(event, viewer if isinstance(viewer, int) else None)


def describe_event(game: Game, event: Any) -> str:
    """One line for an event, the engine's own events included."""
    if isinstance(event, MatchCreated):
        mark = ", prearranged" if event.prearranged else ""
        return (
            f"match created: {event.game} (rules {event.rules_version}), "
            f"{len(event.seats)} seats, commitment {event.commitment[:16]}…{mark}"
        )
    if isinstance(event, SeatJoined):
        return f"{event.name} takes seat {event.seat}"
    if isinstance(event, SeedRevealed):
        return f"the match is over; server seed revealed: {event.server_seed}"
    try:
        return game.describe(event)
    except Exception:  # describe is cosmetic; a replay must still show
        return type(event).__name__


def command_text(command: dict[str, Any]) -> str:
    """A recorded command in a few words: ``Play QS``, ``Take``."""
    values = [str(v) for k, v in command.items() if k != "type"]
    return " ".join([str(command.get("type", "?")), *values])


def frame_text(frame: Frame, total: int, viewer: Viewer, *, events: bool = True) -> str:
    """A step: what happened in its entry, then the table."""
    record, game = frame.record, frame.record.game
    who = (
        "the full table"
        if viewer == FULL
        else "a spectator"
        if viewer == SPECTATOR
        else f"seat {viewer}'s view"
    )
    if frame.command is not None:
        what = f"{_seat_label(record, frame.seat)}: {command_text(frame.command)}"
    elif frame.version == 1:
        what = "the match is created"
    else:
        what = f"{_seat_label(record, frame.seat)} joins"
    lines = [f"── step {frame.version} of {total} · {what} · {who} "[:WIDTH].ljust(WIDTH, "─")]
    if events:
        for event in frame.events:
            shown = _shown(game, event, viewer)
            if shown is not None:
                lines += textwrap.wrap(
                    describe_event(game, shown),
                    WIDTH,
                    initial_indent="  · ",
                    subsequent_indent="    ",
                )
    lines.append(table_text(record, viewer))
    return "\n".join(lines)
